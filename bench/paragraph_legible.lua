-- Time and peak memory of the ParaGraph displays that aggregate processors when
-- they outnumber the pixels (processor status, statistics table, hypercube), in
-- the panels of --all at 1280 x 720 (a 6 x 5 grid), on generated runs of P and
-- 10 P processors (default 4732, the Pajé g5k sample's count): processor p busy
-- from p % 100 + 0.5 to 100.5 s, 14 frames.
--   build/retrace bench/paragraph_legible.lua [P [BIN]]
local P = tonumber(arg and arg[1]) or 4732
local bin = arg and arg[2] or "build/retrace"

local function gen(n)
  local path = os.tmpname() .. ".trf"
  local ev = {}
  for p = 0, n - 1 do
    local s = p % 100 + 0.5
    ev[#ev + 1] = { s, string.format("-3 1 %.1f %d 0 0", s, p) }
    ev[#ev + 1] = { 100.5, string.format("-4 1 100.5 %d 0 0", p) }
  end
  table.sort(ev, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
  local f = assert(io.open(path, "w"))
  for _, e in ipairs(ev) do f:write(e[2], "\n") end
  f:close()
  return path
end

local function measure(n, displays)
  local trace = gen(n)
  local out = os.tmpname()
  os.remove(out)
  local log = os.tmpname()
  local cmd = string.format("/usr/bin/time -v %s paragraph %s -o %s --display %s --grid 6x5 --pace time:7.25 "
    .. "--unit s > /dev/null 2> %s", bin, trace, out, displays, log)
  local ok = os.execute(cmd)
  local text = io.open(log):read("a")
  os.remove(log)
  os.remove(trace)
  os.execute("rm -rf " .. out)
  if not ok then error("paragraph_legible: the command failed:\n" .. text) end
  local wall = text:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): ([%d:.]+)")
  local user = tonumber(text:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(text:match("System time %(seconds%): ([%d.]+)"))
  local rss = tonumber(text:match("Maximum resident set size %(kbytes%): (%d+)"))
  print(string.format("%7d processors  %-34s wall %8s  CPU %6.2f s  max RSS %6.1f MB", n, displays, wall,
    user + sys, rss / 1024))
end

for _, n in ipairs({ P, 10 * P }) do
  for _, d in ipairs({ "processor_status", "stats", "hypercube", "processor_status,stats,hypercube" }) do
    measure(n, d)
  end
end
