-- A first retrace script: count the opcodes of a SHMAP trace with the core's
-- streaming line reader.   retrace examples/hello/opcodes.lua FILE.shm
local util = retrace.core.util
local path = arg[1] or (retrace.root .. "/../examples/hello/lu4.shm")
local names = { [0] = "define", "load", "store", "info", "info", "flops",
                "parallel start", "parallel end", "group start", "group end" }
local counts, elements = {}, 0
for n, line in util.lines(path) do
  local op, rest = line:match("^%s*(%d+)%s*(.*)$")
  if op then
    op = tonumber(op)
    counts[op] = (counts[op] or 0) + 1
    if op == 1 or op == 2 then
      local r1, r2, c1, c2 = rest:match("^%d+%s+(%d+)%s+(%d+)%s+(%d+)%s+(%d+)")
      if not r1 then error(path .. ":" .. n .. ": malformed access", 0) end
      elements = elements + (r2 - r1 + 1) * (c2 - c1 + 1)
    end
  end
end
print(("%s: %d element accesses"):format(path, elements))
for op = 0, 9 do
  if counts[op] then print(("  %-15s %d"):format(names[op], counts[op])) end
end
