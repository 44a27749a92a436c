--- retrace.reduce: long series folded to one summary per pixel column (in C,
-- core/util/rt_reduce.c), so a display draws at most one mark per column.
--
--   local reduce = require "retrace.reduce"
--   local r = reduce.new(w, x0, x1 [, step])   -- streaming: r:add(xs, ys) with strings of
--                                               -- doubles, r:add_pack(pack), r:add_uniform(x, dx, ys),
--                                               -- r:finish(x_end) (steps), r:columns()
--   reduce.series(xs, ys, w, x0, x1 [, {step =, x_end =}]) -> columns
--   reduce.doubles({1, 2, 3}) -> a string of native doubles
-- columns: {w, x0, x1, step, outside, count = {...}, min, max, mean, first, last}
-- (column i covers [x0 + (i-1)(x1-x0)/w, x0 + i(x1-x0)/w); count 0 marks an empty one).
-- Points: mean = average of the values; steps (y[k] holds from x[k] to x[k+1]):
-- min / max over the steps that overlap the column, mean weighted by time.
local core = require("retrace.core").reduce

local M = {}

M.new = core.new

--- A string of native doubles from a Lua list (for small inputs and tests; long
-- series should come from C as strings or packs already).
function M.doubles(t)
  local parts = {}
  for i = 1, #t, 4096 do
    parts[#parts + 1] = string.pack(string.rep("d", math.min(4096, #t - i + 1)),
      table.unpack(t, i, math.min(i + 4095, #t)))
  end
  return table.concat(parts)
end

--- Reduce a whole series at once; xs and ys: Lua lists or strings of doubles.
function M.series(xs, ys, w, x0, x1, opts)
  opts = opts or {}
  local r = core.new(w, x0, x1, opts.step)
  r:add(type(xs) == "string" and xs or M.doubles(xs), type(ys) == "string" and ys or M.doubles(ys))
  if opts.step and opts.x_end then r:finish(opts.x_end) end
  local cols = r:columns()
  r:close()
  return cols
end

return M
