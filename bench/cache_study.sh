#!/bin/sh
# Parameter studies: `retrace cache TRACE --configs FILE` at K and 10 K configurations,
# serially and as an MPI job of N ranks (the configurations spread over the ranks,
# retrace.par.spread): wall and CPU time (user + sys, summed over the ranks) and the
# largest rank's peak memory; checks that the output is the serial run's.
# Usage: sh bench/cache_study.sh [BUILD] [K] [N] [REFS] (defaults build, 10, 2, 1000000).
# The trace: REFS din records (loads and stores over 4 MiB, a strided and a random stream,
# one in eight an instruction fetch), written by the retrace host; skipped without mpirun.
BUILD=${1:-build}
K=${2:-10}
N=${3:-2}
REFS=${4:-1000000}
command -v mpirun >/dev/null || { echo "cache_study: mpirun absent: skipped"; exit 0; }
TMP=$(mktemp -d /tmp/cache_study.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
"$BUILD/retrace" -e "
  local f = assert(io.open('$TMP/t.din', 'w'))
  local x, a = 12345, 0
  for i = 1, $REFS do
    x = (x * 1103515245 + 12345) % 2147483648
    if i % 8 == 0 then f:write(string.format('2 %x\n', 0x400000 + (i % 4096) * 4))
    elseif i % 2 == 0 then a = (a + 64) % 4194304; f:write(string.format('%d %x\n', x % 4 == 0 and 1 or 0, 0x10000000 + a))
    else f:write(string.format('%d %x\n', x % 3 == 0 and 1 or 0, 0x20000000 + (x % 4194304))) end
  end
  f:close()"
# configuration i: a level-1 unified cache of 1 KiB to 512 KiB, 1 to 16 ways, with a
# second level of 1 MiB on every other line
configs() {
  i=0
  while [ $i -lt "$1" ]; do
    s=$((1 << (i % 10))); w=$((1 << ((i / 10) % 5)))
    if [ $((i % 2)) -eq 1 ]; then echo "l1:${s}k/64:$w l2:1m/64:16"; else echo "l1:${s}k/64:$w"; fi
    i=$((i + 1))
  done
}
for k in $K $((K * 10)); do
  configs "$k" > "$TMP/c$k.txt"
  /usr/bin/time -f "%e %U %S %M" -o "$TMP/t" "$BUILD/retrace" cache "$TMP/t.din" --configs "$TMP/c$k.txt" --json >"$TMP/serial.json"
  read -r ws us ss ms < "$TMP/t"
  rm -f "$TMP/p$k"
  mpirun --allow-run-as-root --oversubscribe -q -np "$N" \
    /usr/bin/time -f "%e %U %S %M" -a -o "$TMP/p$k" "$BUILD/retrace" cache "$TMP/t.din" --configs "$TMP/c$k.txt" --json >"$TMP/par.json"
  same=$(cmp -s "$TMP/serial.json" "$TMP/par.json" && echo yes || echo NO)
  wp=$(sort -n "$TMP/p$k" | tail -1 | cut -d' ' -f1)
  cp=$(awk '{ c += $2 + $3 } END { printf "%.2f", c }' "$TMP/p$k")
  mp=$(cut -d' ' -f4 "$TMP/p$k" | sort -n | tail -1)
  cs=$(echo "$us $ss" | awk '{ printf "%.2f", $1 + $2 }')
  echo "configurations $k ($REFS references): serial ${ws} s wall, ${cs} s CPU, ${ms} KB;" \
    "$N ranks ${wp} s wall, ${cp} s CPU in all, largest rank ${mp} KB; same output: $same"
done
