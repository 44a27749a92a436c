-- Passes over the trace and cost of `retrace paragraph TRACE -o DIR --all --data D --json`
-- (all 25 displays, 20 frames at 1280x720 written as PNG, every CSV) on a generated
-- PICL ring of P processors, at a tenth of RECORDS and at RECORDS: the passes the run
-- made over the trace (the summary's "reads"), calls into Lua from the replay, and wall
-- time and peak memory from /usr/bin/time -v.
--   build/retrace bench/paragraph_passes.lua [RECORDS [PROCS]]   (default 10^5 records, 64 processors)
-- The ring: every step each processor sends 1 KiB to its right neighbour, then waits in a
-- blocking receive for its left neighbour's message (4 records per processor per step).
local cjson = require "cjson"

local n = math.tointeger(tonumber(arg and arg[1])) or 100000
local P = math.tointeger(tonumber(arg and arg[2])) or 64
local retrace = io.open("build/retrace") and "build/retrace" or "./retrace"

-- (the ring's writer, beside this script)
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local write_ring = dofile(here .. "/picl_ring.lua")
local function ring(path, records) return write_ring(path, P, records) end

local function run(records)
  local base = os.tmpname()
  local trace, out, data, js, tv = base .. ".trf", base .. "_frames", base .. "_data", base .. ".json", base .. ".time"
  local written = ring(trace, records)
  local cmd = string.format("/usr/bin/time -v %s paragraph %s -o %s --all --data %s --json --pace records:%d > %s 2> %s",
    retrace, trace, out, data, math.max(1, written // 20), js, tv)
  local ok = os.execute(cmd)
  local s = ok and cjson.decode(assert(io.open(js)):read("a")) or {}
  local time = assert(io.open(tv)):read("a")
  local wall = time:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): ([%d:.]+)")
  local rss = tonumber(time:match("Maximum resident set size %(kbytes%): (%d+)"))
  local user = tonumber(time:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(time:match("System time %(seconds%): ([%d.]+)"))
  print(string.format("%d processors, %d records: %s, %d passes over the trace, %d calls into Lua, " ..
    "%s wall, %.2f s CPU, max RSS %.1f MiB", P, written, ok and "ok" or "FAILED", s.reads or -1, s.lua_calls or -1,
    wall or "?", (user or 0) + (sys or 0), (rss or 0) / 1024))
  os.execute(string.format("rm -rf %s %s %s %s %s %s", base, trace, out, data, js, tv))
  return ok
end

print("retrace paragraph --all --data: passes over the trace, time and memory")
local ok = run(n // 10)
ok = run(n) and ok
if not ok then os.exit(1) end
