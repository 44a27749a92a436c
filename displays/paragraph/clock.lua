--- ParaGraph clock: the trace time as a number of whole time units (--unit)
-- and a bar of the part of the window [from, to] done. The reading steps
-- through every whole unit: it shows the last whole unit reached, whatever
-- the frame times.
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(true)

--- The clock's reading at t: whole units since t0, and the fraction of [lo, hi] done.
function M.reading(t, t0, unit, lo, hi)
  local units = math.floor((t - t0) / unit + 1e-9)
  local frac = hi > lo and math.max(0, math.min(1, (t - lo) / (hi - lo))) or 1
  return units, frac
end

--- The reading as text: whole units in the largest of s, ms, us, ns not above the
-- unit, with the decimals the unit needs ("7 s", "2873 us", "11.58 s").
function M.text(units, unit)
  for _, u in ipairs({ { 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" } }) do
    if unit >= u[1] * (1 - 1e-9) then
      local dec = math.max(0, math.floor(-math.log(unit / u[1], 10) + 0.5))
      return string.format("%." .. dec .. "f %s", units * unit / u[1], u[2])
    end
  end
  return string.format("%g s", units * unit)
end

function D:draw(cv, rect)
  local ctx = self.ctx
  local t0 = ctx.info.span[1]
  local lo, hi = ctx.window_lo or t0, ctx.window_hi or ctx.info.span[2]
  local t = self.t or lo
  local unit = ctx.unit or ctx.info.unit or 1
  local units, frac = M.reading(t, t0, unit, lo, hi)
  local text = M.text(units, unit)
  local size = math.max(10, math.min(40, rect.h / 3, rect.w / (#text * 0.7)))
  local tw, th = cv:text(rect.x + rect.w / 2, rect.y + rect.h * 0.35, text, { align = "center", valign = "middle",
    size = size, color = "black" })
  local bx, bw, by, bh = rect.x + 10, rect.w - 20, rect.y + rect.h * 0.65, math.max(6, math.min(28, rect.h * 0.12))
  cv:rect(bx, by, bw, bh, { fill = "#ffffff", stroke = "black", width = 1 })
  cv:rect(bx, by, bw * frac, bh, require("retrace.colors").ink("#4060a0"))
  cv:text(rect.x + rect.w / 2, by + bh + 3, string.format("%.0f%% of %.6g .. %.6g s", 100 * frac, lo, hi),
    { align = "center", valign = "top", size = 9, color = "black" })
  self.d = { time = t, units = units, unit = unit, fraction = frac, window = { lo, hi },
             bar = { x = bx, y = by, w = bw, h = bh, done = bw * frac },
             reading = { text = text, size = size, w = tw, h = th, x = rect.x + rect.w / 2 - (tw or 0) / 2,
                         y = rect.y + rect.h * 0.35 - (th or 0) / 2 },
             rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h } }
end

return M
