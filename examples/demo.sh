#!/bin/sh
# make demo: the main job on the bundled examples. Each issue adds its part.
set -e
RETRACE=${1:-build/retrace}
here=$(dirname "$0")
echo "== retrace info on the bundled examples"
"$RETRACE" info "$here"/hello/lu4.shm
echo "== a script: opcode counts"
"$RETRACE" "$here"/hello/opcodes.lua "$here"/hello/lu4.shm
echo "== retrace cache: a naive and a blocked matrix transpose traced by valgrind's lackey"
sh "$here"/lackey/run.sh "$RETRACE"   # skips, saying so, without valgrind
