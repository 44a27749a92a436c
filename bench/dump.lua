-- Cost of `retrace dump TRACE > /dev/null` on a generated PICL ring of P processors at a
-- tenth of RECORDS and at RECORDS: lines printed, CPU time (user + sys) and peak memory
-- from /usr/bin/time -v. The events stream through C: memory stays flat with the length.
--   build/retrace bench/dump.lua [RECORDS [PROCS]]   (default 10^6 records, 64 processors)
local n = math.tointeger(tonumber(arg and arg[1])) or 1000000
local P = math.tointeger(tonumber(arg and arg[2])) or 64
local retrace = io.open("build/retrace") and "build/retrace" or "./retrace"
local here = (arg and arg[0] or ""):match("^(.*)/[^/]*$") or "."
local write_ring = dofile(here .. "/picl_ring.lua")

local function run(records)
  local base = os.tmpname()
  local trace, tv, count = base .. ".trf", base .. ".time", base .. ".count"
  local written = write_ring(trace, P, records)
  local ok = os.execute(string.format("/usr/bin/time -v %s dump %s 2> %s | wc -l > %s", retrace, trace, tv, count))
  local time = assert(io.open(tv)):read("a")
  local lines = tonumber(assert(io.open(count)):read("a"))
  local rss = tonumber(time:match("Maximum resident set size %(kbytes%): (%d+)"))
  local user = tonumber(time:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(time:match("System time %(seconds%): ([%d.]+)"))
  print(string.format("%d processors, %d records: %s, %d lines, %.2f s CPU, max RSS %.1f MiB", P, written,
    ok and "ok" or "FAILED", lines or -1, (user or 0) + (sys or 0), (rss or 0) / 1024))
  os.execute(string.format("rm -f %s %s %s %s", base, trace, tv, count))
  return ok
end

print("retrace dump: time and memory at two lengths")
run(n // 10)
run(n)
