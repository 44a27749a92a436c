-- Frames per second of `retrace paragraph` at 1280x720 on a trace (default
-- ../shared/data/picl/mpicl-10.trf), with six displays (utilization count,
-- Gantt, utilization meter, traffic, spacetime, matrix) and with all 15:
-- drawn only (frames drawn on one canvas, not encoded), and drawn and written
-- as PNG files (the command as a user runs it, encoder threads included).
--   build/retrace bench/paragraph_frames.lua [TRACE [FRAMES]]
local canvas = require "retrace.canvas"
local cli = require "retrace.cli"
local clock = require("retrace.core").frames.clock

local trace = arg and arg[1] or "../shared/data/picl/mpicl-10.trf"
local n = tonumber(arg and arg[2]) or 200
local f = io.open(trace)
if not f then
  print("paragraph_frames: " .. trace .. " is absent: nothing measured")
  return
end
f:close()
local cmd = assert(cli.load("paragraph"))
local info = require("retrace.paragraph").prescan(trace)
local pace = "records:" .. math.max(1, math.floor(info.records / n))
local out = os.tmpname()
os.remove(out)

-- A writer that draws every frame on one canvas and encodes nothing.
local function draw_only(w, h)
  local cv = canvas.image(w, h)
  local wr = { count = 0 }
  function wr.frame(self, draw)
    self.count = self.count + 1
    cv:save()
    cv:background("white")
    draw(cv, self.count)
    cv:restore()
    return self.count
  end
  function wr.finish(self) return { frames = self.count, errors = {} } end
  return wr
end

local function measure(label, displays)
  local base = { trace = trace, output = out, size = "1280x720", pace = pace }
  for k, v in pairs(displays) do base[k] = v end
  -- drawn only
  local args = {}
  for k, v in pairs(base) do args[k] = v end
  args.writer = draw_only(1280, 720)
  local saved = io.output()
  io.output("/dev/null")
  local t0, c0 = clock(), os.clock()
  cmd.run(args)
  local dt, dc = clock() - t0, os.clock() - c0
  local drawn = args.writer.count
  -- drawn and encoded to PNG files
  t0 = clock()
  cmd.run(base)
  local dt2 = clock() - t0
  io.output(saved)
  print(string.format("%-14s %4d frames  drawn: %6.1f frames/s (%.1f CPU)   drawn + PNG: %6.1f frames/s",
    label, drawn, drawn / dt, drawn / dc, drawn / dt2))
  os.execute("rm -rf '" .. out .. "'")
end

local lf = io.open("/proc/loadavg")
print(string.format("%s (%d processors, %d records) at 1280x720, load average %s", trace, info.P, info.records,
  lf and lf:read("l") or "?"))
if lf then lf:close() end
measure("six displays", { display = "utilization_count,gantt,utilization_meter,traffic,spacetime,comm_matrix" })
measure("--all (15)", { all = true })
