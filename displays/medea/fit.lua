--- displays/medea/fit: data points and a fitted law (retrace.medea.fit result).
--
--   fit.draw(cv, area, {xs=, ys=, fit=result, xlabel=, ylabel=, title=})
--   fit.data(opts) -> points, the curve sampled at 100 x values, coefficients, R^2
local axes = require "retrace.medea.axes"
local fitmod = require "retrace.medea.fit"

local M = {}

local function curve(o)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(o.xs) do lo = math.min(lo, x); hi = math.max(hi, x) end
  local cx, cy = {}, {}
  for i = 0, 99 do
    local x = lo + (hi - lo) * i / 99
    cx[#cx + 1], cy[#cy + 1] = x, o.fit.predict(x)
  end
  return cx, cy
end

function M.data(o)
  local cx, cy = curve(o)
  return { xlabel = o.xlabel, ylabel = o.ylabel, xs = o.xs, ys = o.ys, model = o.fit.model,
           coef = o.fit.coef, r2 = o.fit.r2, formula = fitmod.formula(o.fit), curve_x = cx, curve_y = cy }
end

function M.draw(cv, area, o)
  local d = M.data(o)
  local all = table.move(o.ys, 1, #o.ys, 1, {})
  table.move(d.curve_y, 1, #d.curve_y, #all + 1, all)
  local xmin, xmax = axes.range(o.xs)
  local ymin, ymax = axes.range(all)
  local f = axes.frame(cv, area, { xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax,
                                   xlabel = o.xlabel, ylabel = o.ylabel, title = o.title })
  local pts = {}
  for i = 1, #d.curve_x do
    pts[#pts + 1] = f.sx(d.curve_x[i])
    pts[#pts + 1] = f.sy(d.curve_y[i])
  end
  cv:polyline(pts, { color = "#d62728", width = 2 })
  for i = 1, #o.xs do
    cv:circle(f.sx(o.xs[i]), f.sy(o.ys[i]), 4, { fill = "#1f77b4", stroke = "black", width = 0.5 })
  end
  cv:text(f.box.x + 8, f.box.y + 8, string.format("%s   R^2 = %.4f", d.formula, d.r2),
    { valign = "top", size = 11 })
  return d
end

return M
