-- Animate a SHMAP trace with a panel layout of one's own, written in Lua: the
-- memory canvases fill the left two thirds, the cache window and the active-PE
-- graph share the right third, the statistics run along the bottom, and a
-- caption with the step and the trace time sits at the top.
--   retrace examples/shmap/animate.lua TRACE OUTDIR [PES [STEPS_PER_FRAME]]
-- Writes OUTDIR/frame_NNNNNN.png and OUTDIR/index.html (a player).
require "retrace"
local shmap = require "retrace.shmap"
local frames = require "retrace.frames"
local colors = require "retrace.colors"
local memory = require "retrace.displays.shmap.memory"
local cache = require "retrace.displays.shmap.cache"
local active = require "retrace.displays.shmap.active"
local stats = require "retrace.displays.shmap.stats"

local path, out = arg[1], arg[2]
local pes, every = tonumber(arg[3] or "4"), tonumber(arg[4] or "25")
if not (path and out and pes and every) then
  io.stderr:write("usage: retrace examples/shmap/animate.lua TRACE OUTDIR [PES [STEPS_PER_FRAME]]\n")
  os.exit(2)
end
local W, H = 1280, 720

-- 1. the simulation: PES PEs, one cache per pair of PEs
local trace = assert(shmap.open(path))
local machine = { pes = pes, caches = math.max(1, pes // 2), cache_size = 512, line = 4 }
local sim = assert(shmap.sim { trace = trace, pes = machine.pes, caches = machine.caches,
                               cache_size = machine.cache_size, line = machine.line })

-- 2. where each panel goes (any rectangles will do; each display draws inside its own)
local rects = {
  memory = { x = 10, y = 40, w = 840, h = 500 },
  cache = { x = 870, y = 40, w = 400, h = 260 },
  active = { x = 870, y = 320, w = 400, h = 220 },
  stats = { x = 10, y = 560, w = 1260, h = 150 },
}

-- 3. the view keeps what these panels need and nothing else: each display says
-- what it needs for its rectangle
local info = trace:info()
local span = info.time_last - math.min(info.time_first, info.time_last)
local opts = { shades = 6, fade = span > 0 and span / 40 or 1 }
for k, v in pairs(memory.view_opts(rects.memory)) do opts[k] = v end
for k, v in pairs(cache.view_opts(rects.cache, 2 * 420 / 470)) do opts[k] = v end
for k, v in pairs(active.view_opts(rects.active)) do opts[k] = v end
local view = assert(shmap.view(sim, opts))

-- 4. what the displays share
local ctx = {
  view = view, sim = sim, trace = trace, matrices = trace:matrices(), info = info,
  pes = machine.pes, ncaches = machine.caches, shades = opts.shades,
  palette = colors.processors(machine.pes, { shades = opts.shades }),
  line = machine.line, cache_lines = machine.cache_size // machine.line, scroll = "smooth",
}
local panels = { memory = memory.new(ctx), cache = cache.new(ctx), active = active.new(ctx),
                 stats = stats.new(ctx) }

-- 5. the frames
local fw = assert(frames.writer(out, { width = W, height = H, fps = 12, title = path }))
repeat
  local done, finished = sim:step(every)
  if done > 0 then
    fw:frame(function(cv)
      local vi = view:info()
      cv:text(10, 8, string.format("%s   step %d   trace time %.6g", path:match("[^/]+$"), vi.step, vi.time),
        { valign = "top", size = 16, bold = true, color = "black" })
      for name, d in pairs(panels) do
        d:update()
        d:draw(cv, rects[name])
      end
    end)
    view:new_frame()
  end
until finished
local r = fw:finish({ html = true })
print(string.format("%d frames in %s, player %s", r.frames, r.dir, r.html))
