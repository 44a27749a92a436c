-- The gallery: every display picture of every family, made from the bundled
-- examples (and from ../shared/data when it is there), on one HTML page.
--   retrace examples/gallery.lua RETRACE OUT     (make demo runs it: OUT = build/gallery)
-- runs each command below with the retrace program RETRACE, then writes
-- OUT/index.html with every picture, its caption and the command that made it.
--
-- To add a picture, append an entry to `entries`:
--   run      the words after `retrace`, with {ex} (this examples folder),
--            {out} (the gallery folder) and {data} (../shared/data) in them;
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
local MEDEA_RUNS = { "medea", "{out}/medea/pstswm/pstswm.02.4.x", "{out}/medea/pstswm/pstswm.12.4.0",
                     "--approach", "processor", "--plots", "{out}/medea/runs", "--plot-profiles" }
local FFT16 = { "medea", "{data}/picl/fft-16.trf", "--approach", "processor", "--plots", "{out}/real/fft16",
                "--plot-profiles" }

local entries = {
  -- the canvas
  { family = "Canvas", caption = "The canvas tour, last of 6 frames: memory accesses fading in processor colours, " ..
      "utilization states, space-time messages coloured by size, a hypercube with task colours",
    run = { "render", "{ex}/canvas/tour.lua", "-o", "{out}/canvas/tour", "-n", "6", "--html" },
    image = "canvas/tour/frame_000006.png" },
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
  { family = "MEDEA", glob = "medea/plots/scatter_*.png",
    caption = "Program runs of the pstswm workload, clustered with k-means (scatter %s: x_y)",
    run = { "medea", "{out}/medea/pstswm", "--kmax", "8", "--plots", "{out}/medea/plots" } },
  { family = "MEDEA", glob = "medea/runs/profiles_*.png",
    caption = "Activity profiles of one run, %s",
    run = MEDEA_RUNS },
  { family = "MEDEA", glob = "medea/runs/scatter_*.png",
    caption = "Processors of two runs, clustered (scatter %s: x_y)",
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
  -- ParaGraph: the utilization and communication displays on the real traces
  { family = "ParaGraph (real traces)", needs = "{data}/picl/mpicl-10.trf",
    caption = "mpicl-10, every display at the end of the run: utilization, broadcasts as bands and a series, " ..
      "the cumulative matrix, every pair used",
    run = { "paragraph", "{data}/picl/mpicl-10.trf", "-o", "{out}/paragraph/mpicl10", "--all", "--pace",
            "records:4000", "--html" },
    image = "paragraph/mpicl10/frame_000031.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16 mid-run (frame 50 of 100): compstats overhead in yellow, messages in flight, queues, " ..
      "the tesseract",
    run = { "paragraph", "{data}/picl/fft-16.trf", "-o", "{out}/paragraph/fft16", "--all" },
    image = "paragraph/fft16/frame_000050.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/picl/fft-16.trf",
    caption = "fft-16 in gray mode, Gray-code order, at the end of the run",
    run = { "paragraph", "{data}/picl/fft-16.trf", "-o", "{out}/paragraph/fft16-gray", "--all", "--gray",
            "--order", "gray", "--pace", "time:1000" },
    image = "paragraph/fft16-gray/frame_000006.png" },
  { family = "ParaGraph (real traces)", needs = "{data}/paraver/qsort_beo3.prv",
    caption = "A Paraver trace (qsort) through the same displays: utilization group at the end",
    run = { "paragraph", "{data}/paraver/qsort_beo3.prv", "-o", "{out}/paragraph/qsort", "--group",
            "utilization", "--pace", "records:1000000000" },
    image = "paragraph/qsort/frame_000001.png" },
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
  local vars = { ex = opts.ex, out = opts.out, data = opts.data }
  local shown = { ex = opts.ex, out = opts.out, data = opts.data }
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
        pictures[#pictures + 1] = { family = e.family, image = e.image, caption = e.caption, command = command }
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
