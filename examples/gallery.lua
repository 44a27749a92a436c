-- The gallery: every display picture of every family, made from the bundled
-- examples (and from ../shared/data when it is there), on one HTML page.
--   retrace examples/gallery.lua RETRACE OUT     (make demo runs it: OUT = build/gallery)
-- runs each command below with the retrace program RETRACE, then writes
-- OUT/index.html with every picture, its caption and the command that made it.
--
-- To add a picture, append an entry to `entries`:
--   run      the words after `retrace`, with {ex} (this examples folder),
--            {out} (the gallery folder), {data} (../shared/data) and {bin} (the
--            folder of the retrace program: the build tree) in them;
--            entries with the same run share one run of it
--   image    the picture, a path under {out}; or
--   glob     "folder/prefix_*.png" under {out}: one picture per match, the
--            caption's %s replaced by the part the * matched
--   caption  what the picture shows
--   family   the section it goes in
--   needs    a file that must exist ({data}/...): without it the entry is
--            listed as not made instead of failing
-- An entry with only `run` is a step that makes input for later entries.
local gallery = require "retrace.gallery"
local lfs = require "lfs"

-- commands that make several pictures (each runs once)
local CHITRA = { "chitra", "{ex}/chitra/phil4_x100.pes", "--recipe", "{ex}/chitra/steady.lua",
                 "--simulate", "5000", "--seed", "1", "--views", "{out}/chitra" }
local MEDEA_PST = { "medea", "{out}/medea/pstswm", "--kmax", "8", "--plots", "{out}/medea/plots" }
local MEDEA_RUNS = { "medea", "{out}/medea/pstswm/pstswm.02.4.x", "{out}/medea/pstswm/pstswm.12.4.0",
                     "--approach", "processor", "--plots", "{out}/medea/runs", "--plot-profiles" }
local FFT16 = { "medea", "{data}/picl/fft-16.trf", "--approach", "processor", "--plots", "{out}/real/fft16",
                "--plot-profiles" }

local MEMSPY_MM = { "memspy", "{out}/memspy/mm.msp", "--size", "8K", "--plots", "{out}/memspy/mm" }

local entries = {
  -- the canvas
  { family = "Canvas", caption = "The canvas tour, last of 6 frames: memory accesses fading in processor colours, " ..
      "utilization states, space-time messages coloured by size, a hypercube with task colours",
    run = { "render", "{ex}/canvas/tour.lua", "-o", "{out}/canvas/tour", "-n", "6", "--html" },
    image = "canvas/tour/frame_000006.png", links = { { "the player", "canvas/tour/index.html" } } },
  { family = "Canvas", caption = "The same tour in gray mode (for printing): every mark stays visible",
    run = { "render", "{ex}/canvas/tour.lua", "-o", "{out}/canvas/tour-gray", "-n", "6", "gray" },
    image = "canvas/tour-gray/frame_000006.png" },
  { family = "Canvas", caption = "The shared palettes on their backgrounds, colour and gray, with contrast ratios",
    run = { "render", "{ex}/canvas/palettes.lua", "-o", "{out}/canvas/palettes" },
    image = "canvas/palettes/frame_000001.png" },

  -- Chitra: a recipe on a simulated 4-philosopher run
  { family = "Chitra", caption = "Time view: the recipe's symbol of every state over trace time (4 philosophers, eat/think x 100)",
    run = CHITRA,
    image = "chitra/time.png" },
  { family = "Chitra", caption = "Event view: the symbol at each event number",
    run = CHITRA,
    image = "chitra/event.png" },
  { family = "Chitra", caption = "Occurrences of each symbol (histogram)",
    run = CHITRA,
    image = "chitra/counts.png" },
  { family = "Chitra", caption = "h(s)/T: the share of the time each symbol holds (histogram)",
    run = CHITRA,
    image = "chitra/shares.png" },
  { family = "Chitra", caption = "Occupancy times of the pattern ETET",
    run = CHITRA,
    image = "chitra/occupancy.png" },
  { family = "Chitra", caption = "Frequency view: periodogram of the event sequence, peaks labelled",
    run = CHITRA,
    image = "chitra/frequency.png" },
  { family = "Chitra", caption = "Frequency view of the sequence sampled in trace time",
    run = CHITRA,
    image = "chitra/frequency_time.png" },
  { family = "Chitra", caption = "Semi-Markov chain of the recipe's states: mean and variance of holding times, transition probabilities",
    run = CHITRA,
    image = "chitra/chain.png" },

  -- MEDEA: a generated workload of 40 runs, clustered
  { run = { "{ex}/medea/pstswm.lua", "{out}/medea/pstswm" } },
  { family = "MEDEA", image = "medea/plots/scatter_matrix.png",
    caption = "Program runs of the pstswm workload, clustered with k-means: every pair of parameters in one " ..
      "scatter matrix (each pair also at full size, scatter_X_Y.png, beside it)",
    run = MEDEA_PST },
  { family = "MEDEA", caption = "Are the clusters real? W_K, Hartigan's H(K), Calinski-Harabasz and the mean "
      .. "silhouette against K, the K taken marked (numbers in k_indices.json)",
    run = MEDEA_PST, image = "medea/plots/k_indices.png" },
  { family = "MEDEA", caption = "The pstswm runs on their first two principal axes, by k-means cluster, "
      .. "centroids as crosses (numbers in pca.json)",
    run = MEDEA_PST, image = "medea/plots/pca.png" },
  { family = "MEDEA", caption = "Silhouette width of every run, grouped by cluster (below 0: nearer "
      .. "another cluster)",
    run = MEDEA_PST, image = "medea/plots/silhouette.png" },
  { family = "MEDEA", caption = "Ward's hierarchical clustering of the same runs, a second method beside "
      .. "k-means: leaves by k-means cluster, the cut into K Ward clusters dashed",
    run = MEDEA_PST, image = "medea/plots/dendrogram.png" },
  { family = "MEDEA", glob = "medea/runs/profiles_*.png",
    caption = "Activity profiles of one run, %s",
    run = MEDEA_RUNS },
  { family = "MEDEA", image = "medea/runs/scatter_matrix.png",
    caption = "Processors of two runs, clustered: every pair of parameters in one scatter matrix",
    run = MEDEA_RUNS },

  -- real traces from ../shared/data
  { family = "MEDEA (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "16-node FFT (PICL, 624 records): processors clustered, extime against cmtime",
    run = FFT16,
    image = "real/fft16/scatter_extime_cmtime.png" },
  { family = "MEDEA (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "16-node FFT: activity profiles",
    run = FFT16,
    image = "real/fft16/profiles_fft-16.trf.png" },
  { family = "MEDEA (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "10 MPI processes, 120k records (MPICL): activity profiles",
    run = { "medea", "{data}/picl/mpicl-10.trf", "--approach", "processor", "--plots", "{out}/real/mpicl10",
            "--plot-profiles" },
    image = "real/mpicl10/profiles_mpicl-10.trf.png" },
  -- SHMAP: LU decomposition animated (memory, cache, active PEs, histograms, statistics)
  { run = { "{ex}/shmap/lu.lua", "kji", "48", "{out}/shmap/lu-kji.shm" } },
  { family = "SHMAP", caption = "LU decomposition (kji, right-looking) of a 48 x 48 matrix on 4 PEs sharing 2 " ..
      "caches, frame 60 of the animation (its folder has an HTML player): loads and stores fading in the PEs' " ..
      "colours, the cache window, active PEs, the references and time-line histograms, the statistics",
    run = { "shmap", "{out}/shmap/lu-kji.shm", "--pes", "4", "--caches", "2", "--cache-size", "256", "--line", "4",
            "--frames", "{out}/shmap/lu", "--panels", "all", "--every", "10", "--html" },
    image = "shmap/lu/frame_000060.png", links = { { "the player", "shmap/lu/index.html" } } },
  { family = "SHMAP", caption = "The same frame in gray mode",
    run = { "shmap", "{out}/shmap/lu-kji.shm", "--pes", "4", "--caches", "2", "--cache-size", "256", "--line", "4",
            "--frames", "{out}/shmap/lu-gray", "--panels", "all", "--every", "10", "--gray", "--from", "600",
            "--to", "600" },
    image = "shmap/lu-gray/frame_000001.png" },
  { run = { "{ex}/shmap/lu.lua", "jki", "48", "{out}/shmap/lu-jki.shm" } },
  { run = { "{ex}/shmap/lu.lua", "blocked", "48", "{out}/shmap/lu-blocked.shm", "8" } },
  { family = "SHMAP", caption = "Three LU orderings side by side (kji, jki, blocked), one step of each per frame, " ..
      "as in the SHMAP paper's Figure 2 (step 400)",
    run = { "shmap", "{out}/shmap/lu-kji.shm", "{out}/shmap/lu-jki.shm", "{out}/shmap/lu-blocked.shm", "--compare",
            "--pes", "4", "--caches", "2", "--cache-size", "256", "--line", "4", "--frames", "{out}/shmap/compare",
            "--panels", "memory,active", "--size", "1500x560", "--from", "400", "--to", "400" },
    image = "shmap/compare/frame_000001.png" },
  -- SHMAP of ordinary C programs: captured by valgrind (element by element) or by their CBLAS calls
  { run = { "{ex}/shmap/programs.lua", "{out}/shmap/programs", "32" } },
  { family = "SHMAP", caption = "Ordinary C programs captured by `retrace capture` and animated with " ..
      "`retrace shmap --from-capture` side by side: naive and blocked 32 x 32 multiply and LU, their static " ..
      "arrays shaped by DWARF (reference 60 000 of each; with a cache the load canvas shows the misses)",
    run = { "shmap", "--from-capture", "{out}/shmap/programs/matmul_naive.cap",
            "{out}/shmap/programs/matmul_blocked.cap", "{out}/shmap/programs/lu.cap", "--compare", "--pes", "1",
            "--cache-size", "256", "--line", "4", "--frames", "{out}/shmap/programs/cmp", "--panels",
            "memory,stats", "--size", "1500x600", "--every", "100", "--from", "60000", "--to", "60000" },
    image = "shmap/programs/cmp/frame_000001.png" },
  { family = "SHMAP", caption = "A 512 x 512 multiply in 64 x 64 blocks, its cblas_dgemm calls recorded by " ..
      "`retrace shmap --blas` (libretrace_blas.so; one thread: one PE): every panel, call 300 of 512",
    run = { "shmap", "{out}/shmap/programs/blas_matmul.shm", "--pes", "1", "--caches", "1", "--cache-size", "4096",
            "--line", "8", "--frames", "{out}/shmap/programs/blas", "--panels", "all", "--every", "10",
            "--from", "1200", "--to", "1200" },
    image = "shmap/programs/blas/frame_000001.png" },

  -- MemSpy: the seed's blocked matrix multiply (block just fits the cache) and the tri case study
  { run = { "{ex}/memspy/matmul.lua", "64", "32", "{out}/memspy/mm.msp" } },
  { family = "MemSpy", caption = "Blocked matrix multiply (N = 64, B = 32, 8 KiB direct-mapped cache): " ..
      "percent of total memory stall time by code segment and data bin, with the row and column totals",
    run = MEMSPY_MM, image = "memspy/mm/matrix.png" },
  { family = "MemSpy", caption = "The same run: misses of each data bin by cause",
    run = MEMSPY_MM, image = "memspy/mm/causes.png" },
  { family = "MemSpy", caption = "The same run: causes of replacements, from the evicting data bin to the evicted one " ..
      "(Matrix.Y interferes with itself)",
    run = MEMSPY_MM, image = "memspy/mm/replacements.png" },
  { family = "MemSpy", caption = "The matrix in gray mode (for printing)",
    run = { "memspy", "{out}/memspy/mm.msp", "--size", "8K", "--plots", "{out}/memspy/mm-gray", "--gray" },
    image = "memspy/mm-gray/matrix.png" },
  { run = { "{ex}/memspy/tri.lua", "orig", "4", "64", "{out}/memspy/tri_orig.msp" } },
  { run = { "{ex}/memspy/tri.lua", "tuned", "4", "64", "{out}/memspy/tri_tuned.msp" } },
  { family = "MemSpy", caption = "Sparse triangular solve on 4 processors, rows dealt round-robin: misses by cause " ..
      "(invalidations of x and Ready, first references of M.nz shared between processors)",
    run = { "memspy", "{out}/memspy/tri_orig.msp", "--procs", "4", "--plots", "{out}/memspy/tri_orig" },
    image = "memspy/tri_orig/causes.png" },
  { family = "MemSpy", caption = "The same solve with each processor's rows contiguous and Ready gone: " ..
      "misses by cause (compare with the picture before)",
    run = { "memspy", "{out}/memspy/tri_tuned.msp", "--procs", "4", "--plots", "{out}/memspy/tri_tuned" },
    image = "memspy/tri_tuned/causes.png" },
  -- an MPI program of our own traced by libretrace-mpi (retrace capture --mpi), on 4 ranks
  { needs = "{bin}/mpi/examples/mpi/jacobi",
    run = { "capture", "--mpi", "-o", "{out}/mpi/jacobi.otf2", "--", "mpirun", "--allow-run-as-root",
            "--oversubscribe", "-np", "4", "{bin}/mpi/examples/mpi/jacobi", "300" } },
  { family = "Tracing your own MPI program", needs = "{bin}/mpi/examples/mpi/jacobi",
    caption = "examples/mpi/jacobi.c on 4 ranks, traced by retrace capture --mpi: MPI_Init (overhead, the runtime " ..
      "starting the ranks), then 300 halo exchanges with a residual Allreduce every fourth step; the larger " ..
      "blocks of the higher ranks keep the lower ones waiting",
    run = { "paragraph", "{out}/mpi/jacobi.otf2", "--static", "-o", "{out}/mpi/jacobi.png", "--size", "1400x800" },
    image = "mpi/jacobi.png" },
  { family = "Tracing your own MPI program", needs = "{bin}/mpi/examples/mpi/jacobi",
    caption = "The same archive in ParaGraph's displays at the end of the run (the sweep region is task 163)",
    run = { "paragraph", "{out}/mpi/jacobi.otf2", "-o", "{out}/mpi/jacobi-frames", "--all", "--size", "1920x1200" },
    image = "mpi/jacobi-frames/frame_000100.png" },
  -- other display families: append their entries here
  -- ParaGraph at scale: whole-window pictures from the C raster (retrace paragraph --static)
  { family = "ParaGraph whole-run views", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16, the whole run in one picture: Gantt chart and spacetime diagram (--static)",
    run = { "paragraph", "{data}/picl/fft-16.trf", "--static", "-o", "{out}/paragraph-static/fft16.png",
            "--size", "1400x800" },
    image = "paragraph-static/fft16.png" },
  { family = "ParaGraph whole-run views", needs = "{data}/picl/mpicl-8a.trf",
    caption = "mpicl-8a in gray mode, the whole run: 174 messages as lines",
    run = { "paragraph", "{data}/picl/mpicl-8a.trf", "--static", "--gray", "-o",
            "{out}/paragraph-static/mpicl8a-gray.png", "--size", "1400x800" },
    image = "paragraph-static/mpicl8a-gray.png" },
  { family = "ParaGraph whole-run views", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16 with its rows in Gray-code order (--order gray): hypercube neighbours side by side",
    run = { "paragraph", "{data}/picl/fft-16.trf", "--static", "--order", "gray", "-o",
            "{out}/paragraph-static/fft16-gray-order.png", "--size", "1400x800" },
    image = "paragraph-static/fft16-gray-order.png" },
  -- ParaGraph: the utilization and communication displays on the real traces
  { family = "ParaGraph (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "mpicl-10, every display at the end of the run: utilization, broadcasts as bands and a series, " ..
      "the cumulative matrix, every pair used",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "-o", "{out}/paragraph/mpicl10", "--all", "--size", "1920x1200", "--pace",
            "records:4000", "--html" },
    image = "paragraph/mpicl10/frame_000031.png", links = { { "the player", "paragraph/mpicl10/index.html" } } },
  { needs = "{data}/picl/mpicl-10.trf",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "--timeline-html", "{out}/paragraph/mpicl10-timeline.html" } },
  { needs = "{data}/picl/mpicl-10.trf",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "--export", "chrome-json", "{out}/paragraph/mpicl10.json" } },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "mpicl-10, the whole run in one picture (--static); the same run as a zoomable page " ..
      "(--timeline-html: Gantt and spacetime, zoom and pan in the browser) and exported for Perfetto or " ..
      "chrome://tracing (--export chrome-json)",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "--static", "-o", "{out}/paragraph/mpicl10-static.png",
            "--size", "1400x800" },
    image = "paragraph/mpicl10-static.png",
    links = { { "the zoomable timeline", "paragraph/mpicl10-timeline.html" },
              { "the chrome-json export", "paragraph/mpicl10.json" } } },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16 mid-run (frame 50 of 100): compstats overhead in yellow, messages in flight, queues, " ..
      "the tesseract",
    run = { "paragraph", "{data}/picl/fft-16.trf", "-o", "{out}/paragraph/fft16", "--all", "--size", "1920x1200" },
    image = "paragraph/fft16/frame_000050.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16 in gray mode, Gray-code order, at the end of the run",
    run = { "paragraph", "{data}/picl/fft-16.trf", "-o", "{out}/paragraph/fft16-gray", "--all", "--size", "1920x1200", "--gray",
            "--order", "gray", "--pace", "time:1000" },
    image = "paragraph/fft16-gray/frame_000006.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/paraver/qsort_beo3.prv",
    caption = "A Paraver trace (qsort) through the same displays: utilization group at the end",
    run = { "paragraph", "{data}/paraver/qsort_beo3.prv", "-o", "{out}/paragraph/qsort", "--group",
            "utilization", "--pace", "records:1000000000" },
    image = "paragraph/qsort/frame_000001.png" },
  -- ParaGraph part 2: task, other and application displays
  { family = "ParaGraph (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16, the task displays at the end of the run: mean processors per task, the task Gantt chart, " ..
      "every task done, each task's span as a percent of the run",
    run = { "paragraph", "{data}/picl/fft-16.trf", "-o", "{out}/paragraph/fft16-tasks", "--group", "task",
            "--pace", "time:500" },
    image = "paragraph/fft16-tasks/frame_000012.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "mpicl-10 mid-run (frame 40 of 100), the other displays: phase portrait, the critical path " ..
      "drawn as the replay reaches it, processor status, clock, the records around the current one",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "-o", "{out}/paragraph/mpicl10-other", "--group", "other" },
    image = "paragraph/mpicl10-other/frame_000040.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "mpicl-10 at the end, the other displays: the whole critical path and the statistical summary",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "-o", "{out}/paragraph/mpicl10-other", "--group", "other" },
    image = "paragraph/mpicl10-other/frame_000100.png" },
  { family = "ParaGraph (real traces)",
    caption = "An application display (--app examples/paragraph/transpose.lua): recursive matrix transposition, " ..
      "mid-way (after the quadrant swap), next to the spacetime diagram",
    run = { "paragraph", "{ex}/paragraph/transpose.trf", "-o", "{out}/paragraph/transpose", "--app",
            "{ex}/paragraph/transpose.lua", "--display", "spacetime", "--pace", "time:1", "--unit", "s" },
    image = "paragraph/transpose/frame_000015.png" },
  { family = "ParaGraph (real traces)",
    caption = "An application display (--app examples/paragraph/sort.lua): the keys each processor holds " ..
      "in an odd-even merge-split sort, after the third exchange (new keys outlined)",
    run = { "paragraph", "{ex}/paragraph/sort.trf", "-o", "{out}/paragraph/sort", "--app",
            "{ex}/paragraph/sort.lua", "--display", "spacetime", "--pace", "time:1", "--unit", "s" },
    image = "paragraph/sort/frame_000035.png" },
  -- retrace view: the browser test's screenshots (headless Chromium)
  { family = "retrace view", needs = "{data}/otf2/pingpong/traces.otf2",
    run = { "{ex}/../tests/browser/gallery_shots.lua", "{bin}/retrace", "{out}/viewer" },
    glob = "viewer/view_*.png", caption = "retrace view in headless Chromium, step %s (tests/browser/test_view.py)" },
  { family = "retrace view", needs = "{data}/otf2/pingpong/traces.otf2",
    run = { "{ex}/../tests/browser/gallery_shots.lua", "{bin}/retrace", "{out}/viewer" },
    glob = "viewer/counters_*.png",
    caption = "retrace view: a Paraver hardware counter plotted under the timeline, %s (tests/browser/test_counters.py)" },
  { family = "retrace view", needs = "{data}/otf2/pingpong/traces.otf2",
    run = { "{ex}/../tests/browser/gallery_shots.lua", "{bin}/retrace", "{out}/viewer" },
    glob = "viewer/pes_*.png",
    caption = "retrace view on a Chitra sequence (four philosophers), step %s (tests/browser/test_pes.py)" },
}

local M = { entries = entries }

-- Replace {ex}, {out} and {data} in s.
local function fill(s, vars)
  return (s:gsub("{(%a+)}", function(k) return vars[k] end))
end

local function quote(s)
  if s:match("^[%w%./_,:=+-]+$") then return s end
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local function exists(path)
  return lfs.attributes(path, "mode") ~= nil
end

-- Pictures under out matching "dir/prefix*suffix": list of {path, matched part}, sorted.
local function glob(out, pattern)
  local dir, pre, post = pattern:match("^(.*)/([^/*]*)%*([^/*]*)$")
  if not dir then error("gallery: glob " .. pattern .. ": use folder/prefix*suffix", 0) end
  local found = {}
  if lfs.attributes(out .. "/" .. dir, "mode") == "directory" then
    for f in lfs.dir(out .. "/" .. dir) do
      if #f > #pre + #post and f:sub(1, #pre) == pre and f:sub(-#post) == post then
        found[#found + 1] = { dir .. "/" .. f, f:sub(#pre + 1, #f - #post) }
      end
    end
  end
  table.sort(found, function(a, b) return a[1] < b[1] end)
  return found
end

--- Run every entry's command and collect the pictures. opts: retrace (the
-- program), out, ex, data, quiet. Returns pictures (for retrace.gallery),
-- skipped (notes) and failed (notes).
function M.make(list, opts)
  local bin = opts.retrace:match("^(.*)/[^/]+$") or "."
  local vars = { ex = opts.ex, out = opts.out, data = opts.data, bin = bin }
  local shown = { ex = opts.ex, out = opts.out, data = opts.data, bin = bin }
  local done, pictures, skipped, failed = {}, {}, {}, {}
  for i, e in ipairs(list) do
    local argv, words = {}, { "retrace" }
    for k, w in ipairs(e.run) do
      argv[k] = quote(fill(w, vars))
      words[k + 1] = quote(fill(w, shown))
    end
    local command = table.concat(words, " ")
    local what = e.image or e.glob or command
    if e.needs and not exists(fill(e.needs, vars)) then
      skipped[#skipped + 1] = what .. ": " .. fill(e.needs, shown) .. " is absent"
    else
      if done[command] == nil then
        -- outputs go under {out}: their parent folders are made first
        for _, w in ipairs(e.run) do
          local parent = w:match("^{out}/(.+)/[^/]+$")
          if parent then require("retrace.fs").mkdir_p(opts.out .. "/" .. parent) end
        end
        local line = quote(opts.retrace) .. " " .. table.concat(argv, " ") .. " >/dev/null"
        if not opts.quiet then io.stderr:write("gallery: ", command, "\n") end
        local ok, _, code = os.execute(line)
        done[command] = ok and true or code
      end
      if done[command] ~= true then
        failed[#failed + 1] = string.format("entry %d: %s failed (exit %s)", i, command, tostring(done[command]))
      elseif e.image then
        pictures[#pictures + 1] = { family = e.family, image = e.image, caption = e.caption, command = command,
                                    links = e.links }
      elseif e.glob then
        local found = glob(opts.out, e.glob)
        if #found == 0 then failed[#failed + 1] = string.format("entry %d: %s made no %s", i, command, e.glob) end
        for _, f in ipairs(found) do
          pictures[#pictures + 1] = { family = e.family, image = f[1], command = command,
            caption = e.caption:gsub("%%s", (f[2]:gsub("%%", "%%%%"))) }
        end
      end
    end
  end
  return pictures, skipped, failed
end

--- The command: run everything and write OUT/index.html.
function M.main(args)
  local retrace, out = args[1], args[2]
  if not retrace or not out then
    io.stderr:write("usage: retrace examples/gallery.lua RETRACE OUT\n")
    return 2
  end
  local ex = (arg and arg[0] or "examples/gallery.lua"):match("^(.*)/[^/]+$") or "."
  local data = os.getenv("RETRACE_SHARED") or (ex .. "/../../shared/data")
  -- "examples/../../shared/data" reads better as "../shared/data"
  repeat local n data, n = data:gsub("[^/.][^/]*/%.%./", "", 1) until n == 0
  local fs = require "retrace.fs"
  assert(fs.mkdir_p(out))
  local pictures, skipped, failed = M.make(entries, { retrace = retrace, out = out, ex = ex, data = data })
  for _, f in ipairs(failed) do skipped[#skipped + 1] = f end
  local path, err = gallery.write(out, pictures, {
    title = "retrace gallery",
    lead = "Every display of every family, made by make demo from the bundled examples" ..
      " (and the sample traces in ../shared/data when present). Under each picture: the command that made it.",
    skipped = skipped,
  })
  if not path then
    io.stderr:write("gallery: ", err, "\n")
    return 1
  end
  print(string.format("gallery: %d pictures in %s%s", #pictures, path,
    #skipped > 0 and string.format(" (%d not made: listed at the end of the page)", #skipped) or ""))
  for _, f in ipairs(failed) do io.stderr:write("gallery: ", f, "\n") end
  return #failed > 0 and 1 or 0
end

if arg and arg[0] and arg[0]:match("gallery%.lua$") then
  os.exit(M.main(arg), true)
end
return M
