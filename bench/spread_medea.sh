#!/bin/sh
# retrace medea over a folder of K traces, serial and as an MPI job of N ranks (the traces
# spread over the ranks, retrace.par.spread): wall time and the largest rank's peak memory
# at K and 10 K traces. Usage: sh bench/spread_medea.sh [BUILD] [K] [N]
# (defaults build, 2, 2). The traces are copies of ../shared/data/picl/mpicl-10.trf
# (10 processors, 3.8 MB); it is skipped, saying so, without it or without mpirun.
BUILD=${1:-build}
K=${2:-2}
N=${3:-2}
SRC=$(dirname "$0")/../../shared/data/picl/mpicl-10.trf
[ -f "$SRC" ] || { echo "spread_medea: $SRC absent: skipped"; exit 0; }
command -v mpirun >/dev/null || { echo "spread_medea: mpirun absent: skipped"; exit 0; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
for k in $K $((K * 10)); do
  mkdir -p "$TMP/d$k"
  i=1
  while [ $i -le $k ]; do cp "$SRC" "$TMP/d$k/run$i.trf"; i=$((i + 1)); done
  /usr/bin/time -f "%e %M" -o "$TMP/t" "$BUILD/retrace" medea "$TMP/d$k" --json >"$TMP/serial.json"
  read -r ws ms < "$TMP/t"
  mpirun --allow-run-as-root --oversubscribe -q -np "$N" \
    /usr/bin/time -f "%e %M" -a -o "$TMP/p$k" "$BUILD/retrace" medea "$TMP/d$k" --json >"$TMP/par.json"
  same=$(cmp -s "$TMP/serial.json" "$TMP/par.json" && echo yes || echo NO)
  wp=$(sort -n "$TMP/p$k" | tail -1 | cut -d' ' -f1)
  mp=$(cut -d' ' -f2 "$TMP/p$k" | sort -n | tail -1)
  echo "traces $k: serial ${ws} s ${ms} KB; $N ranks ${wp} s, largest rank ${mp} KB; same output: $same"
  rm -rf "$TMP/d$k"
done
