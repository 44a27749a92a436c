#!/bin/sh
# Trace a naive and a blocked matrix transpose with valgrind's lackey and run
# both traces through `retrace cache` (32 KiB, 64-byte lines, 8-way LRU).
# Usage: sh examples/lackey/run.sh [RETRACE] [WORKDIR]
# The traces are kept in WORKDIR when it is given, removed otherwise.
set -e
RETRACE=${1:-build/retrace}
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "$2" ]; then
  work=$2
  mkdir -p "$work"
else
  work=$(mktemp -d /tmp/retrace-lackey.XXXXXX)
  trap 'rm -rf "$work"' EXIT
fi
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not found: the lackey example is skipped"
  exit 0
fi
CC=${CC:-cc}
"$CC" -O1 -g -o "$work/transpose" "$here/transpose.c"
for v in naive blocked; do
  valgrind --tool=lackey --trace-mem=yes --log-file="$work/$v.lackey" "$work/transpose" $v
  echo "== $v transpose ($(wc -l < "$work/$v.lackey") trace lines)"
  "$RETRACE" cache "$work/$v.lackey" --size 32K --line 64 --ways 8 --classify
done
[ -n "$2" ] && echo "(traces in $work)"
true
