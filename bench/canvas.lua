-- Canvas benchmark: a 1920x1080 frame holding three 300x300-cell grids (SHMAP
-- style memory canvases through the processor palette), their axes, titles, a
-- legend and text, drawn from Lua through retrace.canvas.
--   1. frames/s drawn (target: >= 200 on a 2-core machine)
--   2. frames/s drawn and encoded to PNG on the encoder pool, with each worker's
--      frames and CPU time (both cores busy encoding)
-- Usage: retrace bench/canvas.lua [DRAW_FRAMES [PNG_FRAMES]]
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local layout = require "retrace.layout"
local frames = require "retrace.frames"
local clock = require("retrace.core").frames.clock

local W, H, N = 1920, 1080, 300
local draw_frames = tonumber(arg and arg[1]) or 600
local png_frames = tonumber(arg and arg[2]) or 120
local SHADES = 8
local pal = colors.processors(16, { shades = SHADES })

-- Three grids whose cells change every frame: the engine's side, simulated by
-- loading one of a few precomputed states (a memcpy, as an engine writing cells).
math.randomseed(42)
local states = {}
for k = 1, 4 do
  local cells = {}
  for y = 0, N - 1 do
    for x = 0, N - 1 do
      local pe = (x // 19 + y // 23 + k) % 16
      local age = (x * 7 + y * 3 + k * 5) % (SHADES + 3) - 2 -- some cells empty (-1, -2)
      cells[#cells + 1] = age < 0 and -1 or pal:pe(pe, age)
    end
  end
  states[k] = string.pack(string.rep("i4", #cells), table.unpack(cells, 1, #cells))
end
local grids = { canvas.grid(N, N), canvas.grid(N, N), canvas.grid(N, N) }
local names = { "load canvas", "store canvas", "cache window" }
local legend = colors.processor_legend(pal)

local function draw(cv, i)
  for k, g in ipairs(grids) do g:load(states[(i + k) % #states + 1]) end
  cv:background("#f4f4f4")
  cv:text(20, 16, "retrace canvas benchmark", { valign = "top", size = 22, bold = true, color = "black" })
  cv:text(W - 20, 16, string.format("frame %06d", i), { align = "right", valign = "top", size = 16, color = "black" })
  local cells = layout.split({ x = 10, y = 60, w = W - 20, h = 880 }, 3, 1, 10)
  for k, r in ipairs(cells) do
    local inner = layout.panel(cv, r, names[k] .. " (300 x 300)", { fill = "white" })
    local s = layout.axes(cv, inner, { x = { 0, N, label = "column" }, y = { N, 0, label = "row" } })
    local p = s.plot
    cv:grid(grids[k], pal, p.x, p.y, p.w, p.h)
  end
  layout.legend(cv, 20, 960, legend, { size = 12, horizontal = true })
  cv:text(20, 1040, "time " .. i * 125 .. " ns   events " .. i * 4096, { size = 14, color = "dimgray" })
end

local function loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return "?" end
  local v = f:read("l"):match("^(%S+)")
  f:close()
  return v
end
io.write("load average at start: ", loadavg(), " (other work on the machine takes cores from this run)\n")

-- 1. drawing alone
local cv = canvas.image(W, H)
draw(cv, 0) -- warm up fonts and caches
local t0, cpu0 = clock(), os.clock()
for i = 1, draw_frames do draw(cv, i) end
local dt, dcpu = clock() - t0, os.clock() - cpu0
io.write(string.format("drawn:   %d frames of %dx%d in %.2f s = %.0f frames/s (target >= 200); " ..
  "%.2f s CPU = %.0f frames per CPU second\n", draw_frames, W, H, dt, draw_frames / dt, dcpu,
  draw_frames / dcpu))
assert(cv:write_png("/tmp/retrace-bench-canvas.png"))
io.write("         one frame: /tmp/retrace-bench-canvas.png\n")

-- 2. drawing and PNG encoding on the pool
local dir = "/tmp/retrace-bench-frames"
os.execute("rm -rf " .. dir)
local fw = assert(frames.writer(dir, { width = W, height = H, label = "bench" }))
local c0, t1 = os.clock(), clock()
for _ = 1, png_frames do fw:frame(draw) end
local r = fw:finish()
local dt2 = clock() - t1
local cpu = os.clock() - c0
io.write(string.format("encoded: %d frames drawn and written as PNG in %.2f s = %.1f frames/s " ..
  "(%d workers; process CPU %.2f s = %.2f cores busy)\n", r.frames, dt2, r.frames / dt2,
  r.encoder.threads, cpu, cpu / dt2))
for k = 1, r.encoder.threads do
  io.write(string.format("         worker %d: %d frames, %.2f s CPU (%.0f%% of the wall time)\n", k,
    r.encoder.per_thread[k], r.encoder.cpu[k], 100 * r.encoder.cpu[k] / dt2))
end
local f = io.popen("du -sk " .. dir)
local kb = tonumber(f:read("a"):match("^(%d+)"))
f:close()
io.write(string.format("         %.0f KiB per frame in %s\n", kb / r.frames, dir))
os.execute("rm -rf " .. dir)
io.write("load average at end: ", loadavg(), "\n")
