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
echo "== chitra: the worked examples on a dining philosophers fragment"
"$RETRACE" chitra "$here"/chitra/fragment.pes --filter-time 0.147 --filter-event 2
echo "== chitra: a recipe on a simulated 4-philosopher run, its views and its chain"
out=${TMPDIR:-/tmp}/retrace-demo/chitra
rm -rf "$out"
"$RETRACE" chitra "$here"/chitra/phil4_x100.pes --recipe "$here"/chitra/steady.lua \
  --simulate 5000 --seed 1 --views "$out" --chain "$out"/chain.dot --find ETET,T2,RARA | grep -E "(x100.pes:|^pattern|^simulation)"
echo "   views and data in $out"
echo "== chitra: runs at eat/think time x = 10, 100, 1000 merged, with fits"
"$RETRACE" chitra "$here"/chitra/phil2_x10.pes "$here"/chitra/phil2_x100.pes \
  "$here"/chitra/phil2_x1000.pes --recipe philosophers --clip 20:20 --params 10,100,1000 \
  --predict 10000 | sed -n '/^merged/,$p'
