-- Chitra views benchmark: every view of a generated PES of 10^6 states (dining
-- philosophers like: a cycle of 8 states with 5% random detours over 32 others).
--   1. `retrace chitra FILE --views DIR` as a user runs it, under /usr/bin/time -v:
--      wall time, peak memory (max RSS) and the size of views.json
--   2. in this process, the seconds each view takes (data + picture), after loading
-- Target: under 2 s per view, views.json bounded (independent of the length).
-- Target (issue 28): --views within 2x the run without them, memory bounded by the
-- pixels and the chain (views.json and the pictures do not grow with the length).
-- Usage: retrace bench/chitra_views.lua [STATES [command]]   (files go to /tmp and are
-- removed; "command": only step 1)
local chitra = require "retrace.chitra"
local clock = require("retrace.core").frames.clock

local n = math.tointeger(tonumber(arg and arg[1] or "1000000"))
assert(n and n >= 100, "usage: retrace bench/chitra_views.lua [STATES >= 100]")
local pes = os.tmpname() .. ".pes"
local dir = os.tmpname() .. "-views"
os.remove(dir:sub(1, -7))

-- the PES: xorshift random numbers so the file is the same on every run
local cycle = { "TE", "A1E", "A1R1", "A2R1", "ET", "EA1", "R1A1", "R2A2" }
local f = assert(io.open(pes, "w"))
local x, t, buf = 88172645463325252, 0, {}
for i = 1, n do
  x = x ~ (x << 13); x = x ~ (x >> 7); x = x ~ (x << 17)
  local r = x % 100
  buf[#buf + 1] = (r < 5 and ("P" .. (x >> 8) % 32) or cycle[(i - 1) % 8 + 1]) .. " " .. t
  t = t + 1 + (x >> 20) % 30
  if #buf == 10000 then f:write(table.concat(buf, "\n"), "\n"); buf = {} end
end
f:write(table.concat(buf, "\n"), "\n")
f:close()
print(string.format("chitra views: %d-state PES (%s)", n, pes))

-- 1. the command, as a user runs it: without views, then with them
local bin = arg[-1] or "retrace"
local function seconds(w)
  local h, m, sec = w:match("^(%d+):(%d+):([%d.]+)$")
  if h then return h * 3600 + m * 60 + sec end
  m, sec = w:match("^(%d+):([%d.]+)$")
  return m * 60 + sec
end
local function run(extra)
  local cmd = string.format("/usr/bin/time -v %q chitra %q %s > /dev/null 2> %q", bin, pes, extra, dir .. ".time")
  local ok = os.execute(cmd)
  local tv = io.open(dir .. ".time"):read("a")
  local wall = tv:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): ([%d:.]+)")
  local user = tonumber(tv:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(tv:match("System time %(seconds%): ([%d.]+)"))
  local rss = tonumber(tv:match("Maximum resident set size %(kbytes%): (%d+)"))
  return ok, seconds(wall), user + sys, (rss or 0) / 1024
end
local ok0, wall0, cpu0, rss0 = run("")
print(string.format("  retrace chitra (no views):  %s, wall %.2f s, CPU %.2f s, max RSS %.0f MB",
  ok0 and "ok" or "FAILED", wall0, cpu0, rss0))
local ok, wall, cpu, rss = run(string.format("--views %q --shade TE,A1E", dir))
local jf = io.open(dir .. "/views.json")
local json = jf and jf:seek("end") or 0
if jf then jf:close() end
print(string.format("  retrace chitra --views:     %s, wall %.2f s, CPU %.2f s, max RSS %.0f MB, views.json %.1f kB",
  ok and "ok" or "FAILED", wall, cpu, rss, json / 1024))
print(string.format("  views / no views: %.2fx wall, %.2fx CPU, %.2fx memory", wall / wall0, cpu / cpu0, rss / rss0))
if arg[2] == "command" then os.remove(pes) os.exit(0) end

-- 2. each view on its own, in this process
local t0 = clock()
local ses = assert(chitra.load(pes))
print(string.format("  %-28s %7.3f s", "load", clock() - t0))
local function timed(name, fn)
  local a = clock()
  assert(fn())
  print(string.format("  %-28s %7.3f s", name, clock() - a))
end
local seq = require "retrace.displays.chitra.sequence"
local freq = require "retrace.displays.chitra.frequency"
local hist = require "retrace.displays.chitra.histogram"
local chainv = require "retrace.displays.chitra.chain"
local out = dir .. "/bench.png"
timed("time view", function() return seq.render(ses, out, { domain = "time", shade = { "TE,A1E" } }) end)
timed("event view", function() return seq.render(ses, out, { domain = "event" }) end)
timed("frequency view (event)", function() return freq.render(ses, out, { domain = "event" }) end)
timed("frequency view (time)", function() return freq.render(ses, out, { domain = "time" }) end)
timed("h(s)/T histogram", function() return hist.render(hist.shares(ses), out) end)
timed("occupancy histogram", function() return hist.render(assert(hist.occupancy(ses, "ET")), out) end)
timed("chain", function() return chainv.render(assert(ses:chain()), out) end)
os.remove(pes)
os.execute(string.format("rm -rf %q %q", dir, dir .. ".time"))
