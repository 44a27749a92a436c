-- Chitra on a PES of N distinct symbols (every state occurs once): the commands a
-- user runs, timed as a user runs them (wall seconds, peak memory), and the size of
-- their output. Target (issue 18 item 10): each under 10 s at N = 10^6.
--   retrace bench/chitra_distinct.lua [N]      (files go to /tmp and are removed)
local n = math.tointeger(tonumber(arg and arg[1] or "1000000"))
assert(n and n >= 10, "usage: retrace bench/chitra_distinct.lua [N >= 10]")
local bin = arg[-1] or "retrace"
local pes = os.tmpname() .. ".pes"
local f = assert(io.open(pes, "w"))
local buf = {}
for i = 1, n do
  buf[#buf + 1] = "S" .. i .. " " .. (i - 1)
  if #buf == 10000 then f:write(table.concat(buf, "\n"), "\n"); buf = {} end
end
buf[#buf + 1] = "S0 " .. n
f:write(table.concat(buf, "\n"), "\n")
f:close()
print(string.format("chitra on %d distinct symbols (%s)", n, pes))
local out, tim = os.tmpname(), os.tmpname()
for _, opts in ipairs { "", "--json", "--filter-event 2", "--filter-event 2 --json",
                        "--filter-time 0.01 --json" } do
  os.execute(string.format("/usr/bin/time -f '%%e %%M' -o %s %s chitra %s %s > %s", tim, bin, pes, opts, out))
  local t = io.open(tim):read("a")
  local wall, kb = t:match("([%d.]+) (%d+)%s*$")
  local size = io.open(out):seek("end")
  print(string.format("  %-28s %7.2f s  %7.0f MB peak  %9.1f MB output", opts == "" and "(text)" or opts,
    tonumber(wall or 0), tonumber(kb or 0) / 1024, size / 2 ^ 20))
end
os.remove(pes); os.remove(out); os.remove(tim)
