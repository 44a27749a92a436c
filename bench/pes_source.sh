#!/bin/sh
# bench/pes_source.sh [BUILD] [STATES...]: a Chitra sequence read as a trace source
# (core/seq/rt_pes_source.c: the PES reader on a thread of its own, one bounded queue) by
# `retrace index` (what `retrace view` builds first) and `retrace stats --format pes`, on
# generated PES files of STATES states (default 10^6 and 10^7) over 64 names. Prints each
# command's wall and CPU seconds (user + system), states per CPU second and peak memory
# (/usr/bin/time -v). Files go to $TMPDIR (removed at the end).
set -e
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SIZES=${*:-1000000 10000000}
retrace=$BUILD/retrace
[ -x "$retrace" ] || { echo "pes_source: $retrace missing (make build)"; exit 2; }
[ -x /usr/bin/time ] || { echo "pes_source: /usr/bin/time missing (apt-get install time)"; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retrace-pes-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
printf '%-10s %-8s %9s %9s %14s %10s\n' states command wall_s cpu_s states_per_cpu_s peak_MiB
for n in $SIZES; do
    awk -v n="$n" 'BEGIN { srand(7); t = 0; for (i = 0; i < n; i++) { printf "S%d %d\n", int(rand() * 64), t; t += 1 + int(rand() * 9) } }' \
        > "$tmp/run.pes"
    for cmd in index stats; do
        if [ $cmd = index ]; then set -- index --output "$tmp/run.rtidx" "$tmp/run.pes"
        else set -- stats --format pes "$tmp/run.pes"; fi
        /usr/bin/time -v "$retrace" "$@" > "$tmp/out" 2> "$tmp/time" || { cat "$tmp/time"; exit 1; }
        awk -v n="$n" -v c=$cmd '
            /User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident/ { m = $NF }
            /Elapsed \(wall/ { k = split($NF, a, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + a[i] }
            END { printf "%-10d %-8s %9.2f %9.2f %14.0f %10.1f\n", n, c, w, u + s, (n - 1) / (u + s), m / 1024 }' "$tmp/time"
    done
done
