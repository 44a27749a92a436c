#!/bin/sh
# make demo: the main job on the bundled examples. Each issue adds its part.
set -e
RETRACE=${1:-build/retrace}
here=$(dirname "$0")
echo "== retrace info on the bundled examples"
"$RETRACE" info "$here"/hello/lu4.shm
echo "== a script: opcode counts"
"$RETRACE" "$here"/hello/opcodes.lua "$here"/hello/lu4.shm
echo "== SHMAP: LU decomposition (right-looking, parallel column updates) on 4 PEs sharing 2 caches"
tmp=${TMPDIR:-/tmp}/retrace-demo-$$
mkdir -p "$tmp"
"$RETRACE" "$here"/shmap/lu.lua kji 24 "$tmp"/lu-kji.shm
"$RETRACE" shmap "$tmp"/lu-kji.shm --pes 4 --caches 2 --cache-size 128 --line 4 --policy lru
echo "== SHMAP: blocked LU, its matrix multiply in parallel groups, 8 PEs, JSON"
"$RETRACE" "$here"/shmap/lu.lua blocked 24 "$tmp"/lu-blocked.shm 8
"$RETRACE" shmap "$tmp"/lu-blocked.shm --pes 8 --caches 4 --cache-size 128 --line 4 --ways 4 --policy clock --json
rm -rf "$tmp"
echo "== PICL: replay a message-passing trace"
"$RETRACE" picl stats "$here"/picl/ring4.trf
"$RETRACE" picl dump --from 0.0041 --to 0.0046 "$here"/picl/ring4.trf
echo "== the canvas: a few frames of the tour, with a PDF and an HTML player"
out=${TMPDIR:-/tmp}/retrace-demo/canvas
rm -rf "$out"
"$RETRACE" render "$here"/canvas/tour.lua -o "$out" -n 6 --html --pdf "$out"/tour.pdf
echo "   open $out/index.html in a browser; $out/tour.pdf has one page per frame"
