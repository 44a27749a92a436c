#!/bin/sh
# make demo: the main job on the bundled examples. Each issue adds its part.
# It ends by writing the gallery, BUILD/gallery/index.html (examples/gallery.lua
# lists its pictures; RETRACE_GALLERY=DIR puts it elsewhere).
set -e
RETRACE=${1:-build/retrace}
here=$(dirname "$0")
# everything the demo writes goes under the build folder (BUILD/demo), never a fixed
# folder elsewhere that another user of the machine may own
demo=$(dirname "$RETRACE")/demo
mkdir -p "$demo"
echo "== retrace info on the bundled examples"
"$RETRACE" info "$here"/hello/lu4.shm
echo "== a script: opcode counts"
"$RETRACE" "$here"/hello/opcodes.lua "$here"/hello/lu4.shm
echo "== SHMAP: LU decomposition (right-looking, parallel column updates) on 4 PEs sharing 2 caches"
tmp=$demo/work
mkdir -p "$tmp"
"$RETRACE" "$here"/shmap/lu.lua kji 24 "$tmp"/lu-kji.shm
"$RETRACE" shmap "$tmp"/lu-kji.shm --pes 4 --caches 2 --cache-size 128 --line 4 --policy lru
echo "== SHMAP: blocked LU, its matrix multiply in parallel groups, 8 PEs, JSON"
"$RETRACE" "$here"/shmap/lu.lua blocked 24 "$tmp"/lu-blocked.shm 8
"$RETRACE" shmap "$tmp"/lu-blocked.shm --pes 8 --caches 4 --cache-size 128 --line 4 --ways 4 --policy clock --json
echo "== SHMAP: the LU animation (memory, cache, active PEs, histograms, statistics) as an HTML player"
anim=$demo/shmap
rm -rf "$anim"
"$RETRACE" "$here"/shmap/lu.lua kji 48 "$tmp"/lu-kji48.shm
"$RETRACE" shmap "$tmp"/lu-kji48.shm --pes 4 --caches 2 --cache-size 256 --line 4 --frames "$anim" \
  --panels all --every 10 --html
echo "   open $anim/index.html in a browser"
rm -rf "$tmp"
echo "== PICL: replay a message-passing trace"
"$RETRACE" picl stats "$here"/picl/ring4.trf
"$RETRACE" picl dump --from 0.0041 --to 0.0046 "$here"/picl/ring4.trf
echo "== the canvas: a few frames of the tour, with a PDF and an HTML player"
out=$demo/canvas
rm -rf "$out"
"$RETRACE" render "$here"/canvas/tour.lua -o "$out" -n 6 --html --pdf "$out"/tour.pdf
echo "   open $out/index.html in a browser; $out/tour.pdf has one page per frame"
echo "== chitra: the worked examples on a dining philosophers fragment"
"$RETRACE" chitra "$here"/chitra/fragment.pes --filter-time 0.147 --filter-event 2
echo "== chitra: a recipe on a simulated 4-philosopher run, its views and its chain"
out=$demo/chitra
rm -rf "$out"
"$RETRACE" chitra "$here"/chitra/phil4_x100.pes --recipe "$here"/chitra/steady.lua \
  --simulate 5000 --seed 1 --views "$out" --chain "$out"/chain.dot --find ETET,T2,RARA | grep -E "(x100.pes:|^pattern|^simulation)"
echo "   views and data in $out"
echo "== chitra: runs at eat/think time x = 10, 100, 1000 merged, with fits"
"$RETRACE" chitra "$here"/chitra/phil2_x10.pes "$here"/chitra/phil2_x100.pes \
  "$here"/chitra/phil2_x1000.pes --recipe philosophers --clip 20:20 --params 10,100,1000 \
  --predict 10000 | sed -n '/^merged/,$p'
echo "== medea: an example workload (ring algorithms on 16 processors) and its clusters"
medea_out=$demo/pstswm
rm -rf "$medea_out"
"$RETRACE" "$here"/medea/pstswm.lua "$medea_out"
"$RETRACE" medea "$medea_out" --kmax 8 --plots "$medea_out/plots"
"$RETRACE" medea "$medea_out"/pstswm.02.4.x "$medea_out"/pstswm.12.4.0 --approach processor \
  --plots "$medea_out/runs" --plot-profiles > /dev/null
"$RETRACE" "$here"/medea/fit.lua "$medea_out"
echo "(pictures and their data in $medea_out/plots and $medea_out/runs)"
echo "== retrace cache: a naive and a blocked matrix transpose traced by valgrind's lackey"
sh "$here"/lackey/run.sh "$RETRACE"   # skips, saying so, without valgrind
echo "== retrace paragraph: ParaGraph's displays, frame by frame, on a hand-made 4-processor trace"
pg_out=$demo/paragraph
rm -rf "$pg_out"
"$RETRACE" paragraph "$here"/../tests/fixtures/paragraph/pg4.trf -o "$pg_out" --all --pace time:0.25 --unit s --html
echo "== retrace capture --mpi: an MPI program of our own (examples/mpi/jacobi.c) traced on 4 ranks"
jacobi=$(dirname "$RETRACE")/mpi/examples/mpi/jacobi
if [ -x "$jacobi" ] && command -v mpirun >/dev/null; then
  mpi_out=$demo/mpi
  rm -rf "$mpi_out"
  "$RETRACE" capture --mpi -o "$mpi_out"/jacobi.otf2 -- mpirun --allow-run-as-root --oversubscribe -np 4 "$jacobi" 100
  "$RETRACE" stats "$mpi_out"/jacobi.otf2 | sed -n '1,10p'
  "$RETRACE" paragraph "$mpi_out"/jacobi.otf2 --static -o "$mpi_out"/jacobi.png --size 1400x800
else
  echo "   skipped: retrace was built without MPI (make deps installs libopenmpi-dev openmpi-bin)"
fi
echo "== the gallery: every display picture of every family on one page"
gallery=${RETRACE_GALLERY:-$(dirname "$RETRACE")/gallery}
"$RETRACE" "$here"/gallery.lua "$RETRACE" "$gallery"
echo "   open $gallery/index.html in a browser (no server needed)"
