-- Frames per second of `retrace paragraph` at 1280x720 on a trace (default
-- ../shared/data/picl/mpicl-10.trf): --all (15 displays) and six displays
-- (utilization count, Gantt, meter, traffic, spacetime, matrix), 200 frames
-- each, PNG encoding included (the frames are written to a temporary folder).
--   build/retrace bench/paragraph_frames.lua [TRACE [FRAMES]]
local cli = require "retrace.cli"

local trace = arg and arg[1] or "../shared/data/picl/mpicl-10.trf"
local n = tonumber(arg and arg[2]) or 200
if not io.open(trace) then
  print("paragraph_frames: " .. trace .. " is absent: nothing measured")
  return
end
local core = require "retrace.core"
local function now() return core.util.monotonic and core.util.monotonic() or os.clock() end
local out = os.tmpname()
os.remove(out)
local function measure(label, displays)
  local argv = { "paragraph", trace, "-o", out, "--size", "1280x720", "--pace", "records:1" }
  for _, a in ipairs(displays) do argv[#argv + 1] = a end
  -- records:N chosen so the run makes about n frames
  local info = require("retrace.paragraph").prescan(trace)
  argv[8] = "records:" .. math.max(1, math.floor(info.records / n))
  local rout = io.output()
  io.output(os.tmpname())
  local t0, c0 = now(), os.clock()
  local code = cli.main(argv)
  local wall, cpu = now() - t0, os.clock() - c0
  io.output(rout)
  assert(code == 0, "retrace paragraph failed")
  local frames = 0
  for f in require("lfs").dir(out) do if f:match("^frame_%d+%.png$") then frames = frames + 1 end end
  print(string.format("%-14s %4d frames  %6.1f frames/s (wall)  %6.1f frames/s (CPU of the main thread and encoders)",
    label, frames, frames / wall, frames / cpu))
  os.execute("rm -rf '" .. out .. "'")
end
local f = io.open("/proc/loadavg")
print(string.format("%s at 1280x720, load average %s", trace, f and f:read("l") or "?"))
if f then f:close() end
measure("six displays", { "--display", "utilization_count,gantt,utilization_meter,traffic,spacetime,comm_matrix" })
measure("--all (15)", { "--all" })
