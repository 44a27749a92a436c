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
echo "== medea: an example workload (ring algorithms on 16 processors) and its clusters"
medea_out=${TMPDIR:-/tmp}/retrace-demo-pstswm
rm -rf "$medea_out"
"$RETRACE" "$here"/medea/pstswm.lua "$medea_out"
"$RETRACE" medea "$medea_out" --kmax 8 --plots "$medea_out/plots"
"$RETRACE" medea "$medea_out"/pstswm.02.4.x "$medea_out"/pstswm.12.4.0 --approach processor \
  --plots "$medea_out/runs" --plot-profiles > /dev/null
"$RETRACE" "$here"/medea/fit.lua "$medea_out"
echo "(pictures and their data in $medea_out/plots and $medea_out/runs)"
