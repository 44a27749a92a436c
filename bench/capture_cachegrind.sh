#!/bin/sh
# capture_cachegrind.sh - `retrace capture` (the retrace Valgrind tool) against
# `valgrind --tool=cachegrind` on the programs of examples/capture, each at two sizes
# ten times apart in references.
#
#   sh bench/capture_cachegrind.sh [RETRACE]          (RETRACE: build/retrace)
#
# For each run: wall seconds, CPU seconds (user + system, the program's and every
# process it started: valgrind, and for the capture retrace's converter on the other
# core) and peak resident memory (KiB), from /usr/bin/time -v; the ratios are capture
# over cachegrind. Cachegrind simulates its default hierarchy (--cache-sim=yes) and
# writes its per-line counts to /dev/null; the capture writes its whole folder.
set -eu
RETRACE=${1:-build/retrace}
SRC=$(dirname "$0")/..
if ! command -v valgrind >/dev/null 2>&1; then
    echo "capture_cachegrind: valgrind missing (make deps installs it); nothing measured"
    exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
for p in listwalk matmul threads2; do
    cc -O1 -g -pthread -o "$WORK/$p" "$SRC/examples/capture/$p.c"
done

# field NAME of a /usr/bin/time -v report
field() { sed -n "s/^[[:space:]]*$1: //p" "$2"; }

measure() { # LABEL COMMAND... -> "wall cpu rss"
    /usr/bin/time -v -o "$WORK/t" "$@" >/dev/null 2>"$WORK/err" || {
        echo "capture_cachegrind: failed: $*" >&2
        cat "$WORK/err" >&2
        exit 1
    }
    wall=$(field "Elapsed (wall clock) time (h:mm:ss or m:ss)" "$WORK/t" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')
    cpu=$(awk -v u="$(field "User time (seconds)" "$WORK/t")" -v s="$(field "System time (seconds)" "$WORK/t")" 'BEGIN { print u + s }')
    rss=$(field "Maximum resident set size (kbytes)" "$WORK/t")
    echo "$wall $cpu $rss"
}

printf '%-26s %12s %8s %8s %9s | %8s %8s %9s | %6s %6s\n' program "data refs" "cg wall" "cg cpu" "cg KiB" \
    "rt wall" "rt cpu" "rt KiB" "wall x" "cpu x"
run() { # NAME ARGS...
    name=$1
    shift
    set -- "$WORK/$@"
    cg=$(measure valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file=/dev/null "$@")
    rm -rf "$WORK/cap"
    rt=$(measure "$RETRACE" capture -o "$WORK/cap" -- "$@")
    refs=$("$RETRACE" cache "$WORK/cap" --json | sed -n 's/.*"refs":\([0-9]*\).*/\1/p')
    echo "$name $refs $cg $rt" | awk '{ printf "%-26s %12d %8.2f %8.2f %9d | %8.2f %8.2f %9d | %6.2f %6.2f\n",
        $1, $2, $3, $4, $5, $6, $7, $8, $6 / $3, $7 / $4 }'
}
run listwalk_20000 listwalk 20000 10
run listwalk_200000 listwalk 200000 10
run naive_100 matmul naive 100
run naive_215 matmul naive 215
run blocked_100/25 matmul blocked 100 25
run blocked_215/25 matmul blocked 215 25
run threads2_65536 threads2 65536 8
run threads2_655360 threads2 655360 8
