-- Chitra drift and merge benchmark: two per-thread PES files (a philosopher each:
-- T, A1, A2, E, R1, R2 with random holding times, xorshift, the same files on every
-- run), the second read on a clock t * 1.0001 + 7, each STATES long with a sync state S
-- every 50 states. Times `retrace chitra A B` alone, with --acquisition A1,A2, and with
-- --drift linear --sync S --merge (CPU time and peak memory via /usr/bin/time -v).
-- Usage: retrace bench/chitra_merge.lua [STATES]   (default 1000000)
local states = math.tointeger(tonumber(arg and arg[1] or "1000000"))
local cycle = { "T", "A1", "A2", "E", "R1", "R2" }
local function make(seed, scale, offset)
  local path = os.tmpname() .. ".pes"
  local f = assert(io.open(path, "w"))
  local x, t, buf = seed, 0, {}
  for i = 1, states do
    x = x ~ (x << 13); x = x ~ (x >> 7); x = x ~ (x << 17)
    local s = i % 50 == 1 and "S" or cycle[(i - 1) % 6 + 1]
    buf[#buf + 1] = string.format("%s %.6f", s, t * scale + offset)
    t = t + 1 + (x >> 20) % 30
    if #buf == 10000 then f:write(table.concat(buf, "\n"), "\n"); buf = {} end
  end
  f:write(table.concat(buf, "\n"), "\n")
  f:close()
  return path
end
local a, b = make(88172645463325252, 1, 0), make(1181783497276652981, 1.0001, 7)
local bin = arg[-1] or "retrace"
local function run(extra)
  local log = a .. ".time"
  local ok = os.execute(string.format("/usr/bin/time -v %q chitra %q %q %s > /dev/null 2> %q", bin, a, b, extra, log))
  local tv = io.open(log):read("a")
  os.remove(log)
  local user = tonumber(tv:match("User time %(seconds%): ([%d.]+)"))
  local sys = tonumber(tv:match("System time %(seconds%): ([%d.]+)"))
  local rss = tonumber(tv:match("Maximum resident set size %(kbytes%): (%d+)")) / 1024
  return ok, user + sys, rss
end
print(string.format("chitra on two runs of %d states each", states))
for _, extra in ipairs { "", "--acquisition A1,A2", "--drift linear --sync S --merge" } do
  local ok, cpu, rss = run(extra)
  print(string.format("  %-34s %s  CPU %6.2f s  max RSS %6.0f MB", extra == "" and "text report" or extra,
    ok and "ok" or "FAILED", cpu, rss))
end
os.remove(a); os.remove(b)
