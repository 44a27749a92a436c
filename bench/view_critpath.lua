-- The viewer's critical path on demand (retrace.viewer.critical_path, what `retrace view` runs for
-- api/critpath): the whole run's path on the first request (one replay, as `retrace stats`) and
-- then 100 random windows cut from it, on a PICL ring of 16 processors (bench/picl_ring.lua) at a
-- tenth of RECORDS and at RECORDS (default 10^6). Each size runs in a child under /usr/bin/time -v:
-- CPU time (user + sys) and peak memory.
--   build/retrace bench/view_critpath.lua [RECORDS]
local viewer = require "retrace.viewer"

if arg[1] == "--one" then -- the child: one trace
  local trace = arg[2]
  local clock = os.clock
  local cp = viewer.critical_path(trace)
  local t0 = clock()
  local whole = assert(cp:window(-math.huge, math.huge))
  local t1 = clock()
  local rnd, span = math.random, whole.stop - whole.start
  math.randomseed(31)
  local n = 0
  for _ = 1, 100 do
    local a = whole.start + rnd() * span
    local b = a + rnd() * (whole.stop - a)
    n = n + assert(cp:window(a, b)).nsegments
  end
  local t2 = clock()
  print(string.format("first request %.2f s (path of %d segments, %d messages); 100 windows %.3f s (%.1f ms each)",
    t1 - t0, whole.nsegments, whole.nmessages, t2 - t1, (t2 - t1) * 10))
  os.exit(0)
end

local records = tonumber(arg[1]) or 1000000
local ring = dofile("bench/picl_ring.lua")
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))
for _, n in ipairs({ records // 10, records }) do
  local path = dir .. "/ring.trf"
  ring(path, 16, n)
  local p = io.popen("/usr/bin/time -v build/retrace bench/view_critpath.lua --one " .. path .. " 2>&1")
  local out = p:read("a")
  p:close()
  local user = tonumber(out:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(out:match("System time %(seconds%): ([%d.]+)"))
  local rss = tonumber(out:match("Maximum resident set size %(kbytes%): (%d+)"))
  print(string.format("%d records: %s; CPU %.2f s, max RSS %.1f MiB", n, out:match("first request[^\n]*") or out,
    user + sys, rss / 1024))
  os.remove(path)
end
os.remove(dir)
