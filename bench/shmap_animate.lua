-- SHMAP animation benchmark: LU decomposition (kji, right-looking) of a 256 x 256
-- matrix on 4 PEs sharing 2 caches (1024 words, lines of 4), animated at 1280x720
-- with every panel (memory, cache, active, refs, timeline, stats, legend).
--   1. element accesses/s of the bare simulation and of the simulation with the
--      view observing it (target: the view costs at most 2x)
--   2. frames/s drawn, and drawn + encoded to PNG on the encoder pool (target >= 30)
--   3. memory: the view's bytes and the process's anonymous RSS along the run (target: flat)
-- Usage: retrace bench/shmap_animate.lua [TRACE [STEPS_PER_FRAME]]
-- (without TRACE the trace is written with examples/shmap/lu.lua kji 256 into /tmp)
require "retrace"
local shmap = require "retrace.shmap"
local frames = require "retrace.frames"
local frame = require "retrace.displays.shmap.frame"
local clock = require("retrace.core").frames.clock

local trace_path = arg and arg[1]
local every = tonumber(arg and arg[2]) or 40
if not trace_path then
  trace_path = "/tmp/retrace-bench-lu-kji-256.shm"
  local bin = os.getenv("RETRACE_BIN") or "build/retrace"
  local src = os.getenv("RETRACE_SOURCE") or "."
  assert(os.execute(string.format("%s %s/examples/shmap/lu.lua kji 256 %s", bin, src, trace_path)),
    "could not write the LU trace (set RETRACE_BIN and RETRACE_SOURCE)")
end
local W, H = 1280, 720
local FADE -- the command's default: 1/50 of the trace's time span
local machine = { pes = 4, caches = 2, cache_size = 1024, line = 4 }

local function rss_kib()
  local f = io.open("/proc/self/status")
  if not f then return 0 end
  local v = f:read("a"):match("RssAnon:%s*(%d+)")
  f:close()
  return tonumber(v) or 0
end

local function loadavg()
  local f = io.open("/proc/loadavg")
  if not f then return "?" end
  local v = f:read("l"):match("^(%S+)")
  f:close()
  return v
end

local function new_sim()
  local t = assert(shmap.open(trace_path))
  local o = { trace = t }
  for k, v in pairs(machine) do o[k] = v end
  return assert(shmap.sim(o)), t
end

local function accesses(sim)
  local s = sim:stats().totals
  return s.loads + s.stores
end

io.write("load average at start: ", loadavg(), " (other work on the machine takes cores from this run)\n")
io.write("trace: ", trace_path, "\n")
do
  local info = assert(shmap.open(trace_path)):info()
  local span = info.time_last - math.min(info.time_first, info.time_last)
  FADE = span > 0 and span / 50 or 1
end

-- 1. the bare simulation, then with the view (all panels, sized for the frame),
-- in turns, three times each; the best of each is kept (the machine's speed drifts
-- from run to run, and turns let both see the same drift). Wall and CPU seconds:
-- os.clock is the process's CPU time; no other thread of this process works here.
local ROUNDS = 3
local best = { bare = math.huge, bare_cpu = math.huge, view = math.huge, view_cpu = math.huge }
local n, steps, nv
for _ = 1, ROUNDS do
  local sim = new_sim()
  local t0, c0 = clock(), os.clock()
  sim:run()
  best.bare, best.bare_cpu = math.min(best.bare, clock() - t0), math.min(best.bare_cpu, os.clock() - c0)
  n, steps = accesses(sim), sim:stats().steps
  sim:close()

  local sim2, t2 = new_sim()
  local f = assert(frame.new(sim2, t2, { panels = "all", width = W, height = H, shades = 4, fade = FADE,
                                         machine = machine }))
  t0, c0 = clock(), os.clock()
  sim2:run()
  best.view, best.view_cpu = math.min(best.view, clock() - t0), math.min(best.view_cpu, os.clock() - c0)
  nv = accesses(sim2)
  f.view:close()
  sim2:close()
end
io.write(string.format("bare simulation:   %d element accesses, %d steps in %.3f s = %.2f M accesses/s (best of %d)\n",
  n, steps, best.bare, n / best.bare / 1e6, ROUNDS))
io.write(string.format("with the view:     %d element accesses in %.3f s = %.2f M accesses/s " ..
  "(%.2fx the bare run; target <= 2x)\n", nv, best.view, nv / best.view / 1e6, best.view / best.bare))
io.write(string.format("CPU time:          bare %.3f s, with the view %.3f s: %.2fx\n", best.bare_cpu, best.view_cpu,
  best.view_cpu / best.bare_cpu))

-- 2. the animation: a frame every `every` steps, drawn (and encoded)
local function animate(encode)
  local s, tr = new_sim()
  local fr = assert(frame.new(s, tr, { panels = "all", width = W, height = H, shades = 4, fade = FADE,
                                       machine = machine }))
  local canvas = require "retrace.canvas"
  local cv = canvas.image(W, H)
  local fw, dir
  if encode then
    dir = "/tmp/retrace-bench-shmap-frames"
    os.execute("rm -rf " .. dir)
    fw = assert(frames.writer(dir, { width = W, height = H, label = "bench" }))
  end
  local count, rss, done_steps = 0, {}, 0
  local start = clock()
  repeat
    local k, finished = s:step(every)
    done_steps = done_steps + k
    if k > 0 then
      fr:update()
      if fw then
        fw:frame(function(c) fr:draw(c) end)
      else
        cv:background("white")
        fr:draw(cv)
      end
      fr.view:new_frame()
      count = count + 1
      if count % 100 == 0 then rss[#rss + 1] = { done_steps, rss_kib(), fr.view:info().bytes } end
    end
  until finished
  local r = fw and fw:finish()
  local dt = clock() - start
  if not fw then assert(cv:write_png("/tmp/retrace-bench-shmap.png")) end
  fr.view:close()
  s:close()
  return count, dt, rss, r, dir
end

local count, dt, rss = animate(false)
io.write(string.format("drawn:             %d frames (every %d steps) in %.2f s = %.1f frames/s, " ..
  "simulation included\n", count, every, dt, count / dt))
io.write("                   last frame: /tmp/retrace-bench-shmap.png\n")
io.write("memory along the run (steps: anonymous RSS KiB, view bytes):")
for _, m in ipairs(rss) do io.write(string.format(" %d: %d, %d;", m[1], m[2], m[3])) end
io.write("\n")
local c2, dt2, _, r, dir = animate(true)
io.write(string.format("drawn and encoded: %d frames in %.2f s = %.1f frames/s (target >= 30; %d encoder threads)\n",
  c2, dt2, c2 / dt2, r.encoder.threads))
local p = io.popen("du -sk " .. dir)
local kb = tonumber(p:read("a"):match("^(%d+)"))
p:close()
io.write(string.format("                   %.0f KiB per frame\n", kb / c2))
os.execute("rm -rf " .. dir)
io.write("load average at end: ", loadavg(), "\n")
