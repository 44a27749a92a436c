#!/bin/sh
# capture_dinero.sh - a capture's cache totals against Dinero IV's demand fetches and misses.
#
#   DINERO=/path/to/dineroIV sh bench/capture_dinero.sh [RETRACE] [ROUNDS]
#
# Captures examples/capture/conflict.c under valgrind lackey (keeping the text log),
# then for a few geometries compares, data references only, one processor:
#   - `retrace memspy DIR`          (the capture folder's MemSpy totals)
#   - `retrace cache DIR`           (the folder's RTMB trace)
#   - `retrace cache trace.lackey`  (the same references from lackey's own text)
#   - Dinero IV on the same references written as extended din (xdin): lackey's
#     L -> r, S -> w, M -> r then w, I -> i (instruction cache, not compared); lackey's
#     sizes are decimal, xdin's hexadecimal.
# Dinero IV is not a Debian package: build it from its sources and point DINERO at the
# binary. Without it the script says so and stops (exit 0). A mismatch exits 1.
# Write-backs are not compared: Dinero also counts the dirty lines it writes back when
# the run ends.
set -eu
RETRACE=${1:-build/retrace}
ROUNDS=${2:-50}
SRC=$(dirname "$0")/..
DINERO=${DINERO:-$(command -v dineroIV || true)}
if [ -z "$DINERO" ] || [ ! -x "$DINERO" ]; then
    echo "capture_dinero: Dinero IV not found (set DINERO to a dineroIV binary); nothing compared"
    exit 0
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "capture_dinero: valgrind missing (make deps installs it); nothing compared"
    exit 0
fi
WORK=$(mktemp -d /tmp/retrace-dinero.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cc -O1 -g -o "$WORK/conflict" "$SRC/examples/capture/conflict.c"
"$RETRACE" capture --lackey -o "$WORK/cap" --keep-text -- "$WORK/conflict" "$ROUNDS" >/dev/null
awk '/^I /  { split($2, a, ","); printf "i %s %x\n", a[1], a[2]; next }
     /^ L / { split($2, a, ","); printf "r %s %x\n", a[1], a[2]; next }
     /^ S / { split($2, a, ","); printf "w %s %x\n", a[1], a[2]; next }
     /^ M / { split($2, a, ","); printf "r %s %x\nw %s %x\n", a[1], a[2], a[1], a[2] }' \
    "$WORK/cap/trace.lackey" >"$WORK/trace.xdin"

# field NAME of a flat JSON object on stdin
field() { sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }

status=0
printf '%-16s %-14s %10s %10s %10s %10s\n' geometry source refs misses reads writes
for g in "32K 64 1" "8K 32 2" "16K 64 4" "4K 16 1"; do
    set -- $g
    size=$1 line=$2 ways=$3
    d4=$("$DINERO" -informat D -l1-dsize "$size" -l1-dbsize "$line" -l1-dassoc "$ways" -l1-drepl l \
        -l1-isize "$size" -l1-ibsize "$line" -l1-iassoc "$ways" <"$WORK/trace.xdin" |
        awk '/^l1-dcache/ { d = 1 } d && /Demand Fetches/ { f = $3 " " $6 " " $7 } d && /Demand Misses/ { print f, $3, $6, $7; exit }')
    set -- $d4
    dref=$1 dread=$2 dwrite=$3 dmiss=$4
    name="$size/$line/${ways}-way"
    printf '%-16s %-14s %10s %10s %10s %10s\n' "$name" "Dinero IV" "$dref" "$dmiss" "$dread" "$dwrite"
    for src in "$WORK/cap" "$WORK/cap/trace.lackey"; do
        j=$("$RETRACE" cache "$src" --size "$size" --line "$line" --ways "$ways" --json)
        refs=$(echo "$j" | field refs) misses=$(echo "$j" | field misses)
        reads=$(echo "$j" | field reads) writes=$(echo "$j" | field writes)
        label=$([ "$src" = "$WORK/cap" ] && echo "cache DIR" || echo "cache lackey")
        printf '%-16s %-14s %10s %10s %10s %10s\n' "" "$label" "$refs" "$misses" "$reads" "$writes"
        [ "$refs $misses $reads $writes" = "$dref $dmiss $dread $dwrite" ] || { echo "  DIFFERS"; status=1; }
    done
    j=$("$RETRACE" memspy "$WORK/cap" --size "$size" --line "$line" --ways "$ways" --json |
        tr -d ' \n' | sed 's/.*"totals":{\([^}]*\)}.*/\1/')
    refs=$(echo "$j" | field refs) misses=$(echo "$j" | field misses)
    printf '%-16s %-14s %10s %10s\n' "" "memspy DIR" "$refs" "$misses"
    [ "$refs $misses" = "$dref $dmiss" ] || { echo "  DIFFERS"; status=1; }
done
[ $status = 0 ] && echo "capture_dinero: every total equals Dinero IV's demand fetches and misses"
exit $status
