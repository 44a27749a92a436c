-- MEDEA activity profiles of a long trace: a generated new-format PICL trace of
-- N records (default 10^7; 16 processors, nested user events, sends and receives),
--   1. in this process: replay + accumulation (acc with profiles kept), the six
--      profiles reduced to pixel columns in C, the profile picture drawn and
--      written, and the size of its JSON (bounded by the picture's width, not N);
--      Then the zoomed profile of a hundredth of the run (--zoom) and a time
--      parameter per slice (--fit-time, 10^3 slices), both in C from the profiles,
--      and the computation bursts clustered (--bursts 3);
--   2. the whole command `retrace medea TRACE --plots DIR --plot-profiles` under
--      /usr/bin/time -v: wall time and peak resident memory; then the same with
--      --zoom and --fit-time cmtime --slices 100 instead of --plot-profiles, and with --bursts 3.
-- Usage: retrace bench/medea_profiles.lua [RECORDS]   (target: profile drawing < 2 s)
local medea = require "retrace.medea"
local plots = require "retrace.displays.medea.plots"
local profile = require "retrace.displays.medea.profile"
local display = require "retrace.display"
local wall = require("retrace.core").frames.clock
-- CPU seconds of this process next to wall seconds: the machine may be shared
local function clock() return wall(), os.clock() end
local function since(w0, c0)
  local w1, c1 = clock()
  return w1 - w0, c1 - c0
end

local n = math.tointeger(tonumber(arg and arg[1]) or 1e7)
local dir = (os.getenv("TMPDIR") or "/tmp") .. "/retrace-bench-medea-profiles"
os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")
local path = dir .. "/long.trf"

-- the k-th record (0-based) of a 16-processor trace: per processor a cycle of 8
-- records, user 1 { user 2 { send } receive }, as bench/medea_params.c makes them
local rectype = { -3, -3, -3, -4, -4, -3, -4, -4 }
local event = { 1, 2, -21, -21, 2, -52, -52, 1 }
local t0 = wall()
local f = assert(io.open(path, "w"))
local buf = {}
for k = 0, n - 1 do
  local cyc, proc = k // 16, k % 16
  local i = cyc % 8 + 1
  local rt, ev = rectype[i], event[i]
  local time = cyc * 1e-5 + proc * 1e-7
  if (ev == -21 and rt == -3) or (ev == -52 and rt == -4) then
    buf[#buf + 1] = string.format("%d %d %.6f %d 0 3 2 1024 7 %d\n", rt, ev, time, proc,
      rt == -3 and (proc + 1) % 16 or (proc + 15) % 16)
  else
    buf[#buf + 1] = string.format("%d %d %.6f %d 0 0\n", rt, ev, time, proc)
  end
  if #buf == 8192 then f:write(table.concat(buf)); buf = {} end
end
f:write(table.concat(buf))
f:close()
print(string.format("generated %d records in %.1f s (%s)", n, wall() - t0, path))

local w0, c0 = clock()
local acc = assert(medea.accumulate(path, false, true, true))
local w_acc, c_acc = since(w0, c0)
w0, c0 = clock()
local pc = plots.profile_columns(acc)
local w_reduce, c_reduce = since(w0, c0)
local span = pc.tmax - pc.tmin
local z0, z1 = pc.tmin + 0.4 * span, pc.tmin + 0.41 * span
w0, c0 = clock()
assert(plots.zoom_columns(acc, "recv", z0, z1))
local w_zoom, c_zoom = since(w0, c0)
w0, c0 = clock()
local sl = assert(medea.slices.fit_time(acc, "cmtime", 1000, "linear"))
local w_slices, c_slices = since(w0, c0)
w0, c0 = clock()
local br = assert(medea.bursts.cluster(acc, 3))
local w_bursts, c_bursts = since(w0, c0)
acc:close()
pc.trace = "long.trf"
w0, c0 = clock()
local o = { trace = "long.trf", profiles = pc.columns, nprocs = pc.nprocs, tmin = pc.tmin, tmax = pc.tmax }
local data = assert(display.render(profile.new(nil, o), dir .. "/profiles.png", plots.profile_width,
  60 + profile.panels(o) * 170))
local json = require("cjson").encode(data)
local w_draw, c_draw = since(w0, c0)
print(string.format("replay + accumulate: %.2f s wall (%.2f s CPU)", w_acc, c_acc))
print(string.format("six profiles reduced to %d columns: %.3f s wall (%.3f s CPU)", pc.columns.exec.w,
  w_reduce, c_reduce))
print(string.format("profile picture drawn, PNG + JSON written: %.3f s wall (%.3f s CPU)", w_draw, c_draw))
print(string.format("zoomed receive profile (a hundredth of the run): %.3f s wall (%.3f s CPU)", w_zoom, c_zoom))
print(string.format("cmtime in 1000 slices + linear fit: %.3f s wall (%.3f s CPU), R^2 %.4f", w_slices, c_slices,
  sl.fit.r2))
print(string.format("%d computation bursts in 3 k-means clusters: %.3f s wall (%.3f s CPU)", br.n, w_bursts,
  c_bursts))
print(string.format("profile drawing total: %.3f s wall (%.3f s CPU); JSON %d bytes",
  w_reduce + w_draw, c_reduce + c_draw, #json))

local bin = arg and arg[-1] or "retrace"
-- the command with `extra` options under /usr/bin/time -v: wall, user, system seconds, peak RSS
local function timed(extra)
  local cmd = string.format("/usr/bin/time -v %s medea '%s' --plots '%s/plots' %s > /dev/null 2> '%s/time.txt'",
    bin, path, dir, extra, dir)
  local t = wall()
  os.execute(cmd)
  local w = wall() - t
  local tf = io.open(dir .. "/time.txt")
  local text = tf and tf:read("a") or ""
  if tf then tf:close() end
  return w, text:match("User time %(seconds%): ([%d.]+)") or "?", text:match("System time %(seconds%): ([%d.]+)") or "?",
    text:match("Maximum resident set size %(kbytes%): (%d+)") or "?"
end
local w_cmd, user, sys, rss = timed("--plot-profiles")
local jf = io.open(dir .. "/plots/profiles_long.trf.json")
local jsize = jf and jf:seek("end") or 0
if jf then jf:close() end
print(string.format("retrace medea --plot-profiles: %.2f s wall (%s s user + %s s system), peak RSS %s KB, " ..
  "profiles JSON %d bytes", w_cmd, user, sys, rss, jsize))
w_cmd, user, sys, rss = timed(string.format("--zoom %.9g:%.9g --fit-time cmtime --slices 100", z0, z1))
print(string.format("retrace medea --zoom --fit-time: %.2f s wall (%s s user + %s s system), peak RSS %s KB",
  w_cmd, user, sys, rss))
w_cmd, user, sys, rss = timed("--bursts 3")
print(string.format("retrace medea --bursts 3: %.2f s wall (%s s user + %s s system), peak RSS %s KB",
  w_cmd, user, sys, rss))
os.execute("rm -rf '" .. dir .. "'")
