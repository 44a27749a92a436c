#!/bin/sh
# bench/shmap_paje.sh [BUILD] [N...]: `retrace shmap --paje` (core/sched/rt_shmap_paje.c: a SHMAP
# run written as a Pajé trace while it simulates) on kji LU traces of order N (default 100 and
# 316: about ten times the events), 8 PEs sharing 4 caches of 1024 words. Prints, for the run
# alone, the run writing the Pajé trace and `retrace index` of that trace (what `retrace view`
# builds first): wall and CPU seconds (user + system), SHMAP events per CPU second, peak memory
# (/usr/bin/time -v) and the Pajé file's size. Files go to $TMPDIR (removed at the end).
set -e
BUILD=${1:-build}
[ $# -gt 0 ] && shift
SIZES=${*:-100 316}
retrace=$BUILD/retrace
[ -x "$retrace" ] || { echo "shmap_paje: $retrace missing (make build)"; exit 2; }
[ -x /usr/bin/time ] || { echo "shmap_paje: /usr/bin/time missing (apt-get install time)"; exit 2; }
src=$(dirname "$0")/..
tmp=$(mktemp -d "${TMPDIR:-/tmp}/retrace-shmap-paje.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
machine="--pes 8 --caches 4 --cache-size 1024 --line 4 --ways 4"
printf '%-5s %-9s %-7s %8s %8s %15s %9s %10s\n' N events command wall_s cpu_s events_per_cpu_s peak_MiB paje_MiB
for n in $SIZES; do
    "$retrace" "$src/examples/shmap/lu.lua" kji "$n" "$tmp/lu.shm" > /dev/null
    events=$("$retrace" shmap "$tmp/lu.shm" --pes 1 --no-cache | awk '/^trace /{ for (i = 1; i <= NF; i++) if ($i ~ /events/) print $(i - 1) }' | tr -d ,)
    for cmd in run paje index; do
        case $cmd in
            run) set -- shmap "$tmp/lu.shm" $machine --json ;;
            paje) set -- shmap "$tmp/lu.shm" $machine --json --paje "$tmp/lu.trace" ;;
            index) set -- index --output "$tmp/lu.rtidx" "$tmp/lu.trace" ;;
        esac
        /usr/bin/time -v "$retrace" "$@" > "$tmp/out" 2> "$tmp/time" || { cat "$tmp/time"; exit 1; }
        size=$( [ -f "$tmp/lu.trace" ] && stat -c %s "$tmp/lu.trace" || echo 0)
        [ $cmd = run ] && size=0
        awk -v n="$n" -v e="$events" -v c=$cmd -v z="$size" '
            /User time/ { u = $NF } /System time/ { s = $NF } /Maximum resident/ { m = $NF }
            /Elapsed \(wall/ { k = split($NF, a, ":"); w = 0; for (i = 1; i <= k; i++) w = w * 60 + a[i] }
            END { printf "%-5d %-9d %-7s %8.2f %8.2f %15.0f %9.1f %10.1f\n", n, e, c, w, u + s, e / (u + s > 0 ? u + s : 0.01), m / 1024, z / 1048576 }' "$tmp/time"
    done
    rm -f "$tmp/lu.trace" "$tmp/lu.rtidx"
done
