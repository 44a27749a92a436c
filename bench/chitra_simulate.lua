-- Chitra simulation benchmark: `retrace chitra PES --simulate N` streams the simulated
-- trajectory (per-state sums, arc counts, n-grams, a Welch spectrum and KS samples of
-- the dominant states), so its memory must stay flat as N grows ten-fold.
-- The PES: a cycle of 8 states with 5% random detours over 32 others (xorshift, the
-- same file on every run), STATES long.
-- Usage: retrace bench/chitra_simulate.lua [STATES [N1 N2 ...]]   (default 1000000; 100000 1000000)
local states = math.tointeger(tonumber(arg and arg[1] or "1000000"))
local ns = {}
for i = 2, #(arg or {}) do ns[#ns + 1] = math.tointeger(tonumber(arg[i])) end
if #ns == 0 then ns = { 100000, 1000000 } end
local pes = os.tmpname() .. ".pes"
local cycle = { "TE", "A1E", "A1R1", "A2R1", "ET", "EA1", "R1A1", "R2A2" }
local f = assert(io.open(pes, "w"))
local x, t, buf = 88172645463325252, 0, {}
for i = 1, states do
  x = x ~ (x << 13); x = x ~ (x >> 7); x = x ~ (x << 17)
  buf[#buf + 1] = (x % 100 < 5 and ("P" .. (x >> 8) % 32) or cycle[(i - 1) % 8 + 1]) .. " " .. t
  t = t + 1 + (x >> 20) % 30
  if #buf == 10000 then f:write(table.concat(buf, "\n"), "\n"); buf = {} end
end
f:write(table.concat(buf, "\n"), "\n")
f:close()
local bin = arg[-1] or "retrace"
local function run(extra)
  local log = pes .. ".time"
  local ok = os.execute(string.format("/usr/bin/time -v %q chitra %q %s > /dev/null 2> %q", bin, pes, extra, log))
  local tv = io.open(log):read("a")
  os.remove(log)
  local user = tonumber(tv:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(tv:match("System time %(seconds%): ([%d.]+)"))
  local rss = tonumber(tv:match("Maximum resident set size %(kbytes%): (%d+)")) / 1024
  return ok, user + sys, rss
end
print(string.format("chitra --simulate on a %d-state PES", states))
local ok, cpu, rss = run("")
print(string.format("  %-22s %s  CPU %6.2f s  max RSS %6.0f MB", "no simulation", ok and "ok" or "FAILED", cpu, rss))
for _, n in ipairs(ns) do
  ok, cpu, rss = run("--simulate " .. n)
  print(string.format("  %-22s %s  CPU %6.2f s  max RSS %6.0f MB", "--simulate " .. n, ok and "ok" or "FAILED", cpu, rss))
end
os.remove(pes)
