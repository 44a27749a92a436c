#!/bin/sh
# make demo: the main job on the bundled examples. Each issue adds its part.
set -e
RETRACE=${1:-build/retrace}
here=$(dirname "$0")
echo "== retrace info on the bundled examples"
"$RETRACE" info "$here"/hello/lu4.shm
echo "== a script: opcode counts"
"$RETRACE" "$here"/hello/opcodes.lua "$here"/hello/lu4.shm
echo "== the canvas: a few frames of the tour, with a PDF and an HTML player"
out=${TMPDIR:-/tmp}/retrace-demo/canvas
rm -rf "$out"
"$RETRACE" render "$here"/canvas/tour.lua -o "$out" -n 6 --html --pdf "$out"/tour.pdf
echo "   open $out/index.html in a browser; $out/tour.pdf has one page per frame"
