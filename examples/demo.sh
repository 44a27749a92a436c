#!/bin/sh
# make demo: the main job on the bundled examples. Each issue adds its part.
set -e
RETRACE=${1:-build/retrace}
here=$(dirname "$0")
echo "== retrace info on the bundled examples"
"$RETRACE" info "$here"/hello/lu4.shm
echo "== a script: opcode counts"
"$RETRACE" "$here"/hello/opcodes.lua "$here"/hello/lu4.shm
echo "== PICL: replay a message-passing trace"
"$RETRACE" picl stats "$here"/picl/ring4.trf
"$RETRACE" picl dump --from 0.0041 --to 0.0046 "$here"/picl/ring4.trf
