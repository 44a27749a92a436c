--- displays/medea/fit: data points and a fitted law (a retrace.medea.fit result).
-- The formula and R^2 go under the title, never over the points.
--
--   local d = fit.new(ctx, {xs =, ys =, fit = result, xlabel =, ylabel =, title =,
--                           log = "auto" | true | false, points_label = "components"})
--   d:draw(cv, rect); d:data() -> plot data plus the points, the curve sampled at
--   100 x values (curve_x, curve_y), model, coef, r2, formula
--   fit.draw(cv, rect, opts) -> data
local plot = require "retrace.plot"
local fitmod = require "retrace.medea.fit"
local style = require "retrace.displays.medea.style"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.medea.Fit(" .. d.o.fit.model .. ")" end

function M.new(_, o) return setmetatable({ o = o }, D) end

-- The fitted curve at 100 x values over the data (geometric spacing on a log axis).
local function curve(o, log)
  local lo, hi = math.huge, -math.huge
  for _, x in ipairs(o.xs) do lo = math.min(lo, x); hi = math.max(hi, x) end
  local cx, cy = {}, {}
  for i = 0, 99 do
    local x = log and lo * (hi / lo) ^ (i / 99) or lo + (hi - lo) * i / 99
    local y = o.fit.predict(x)
    if y == y and y > -math.huge and y < math.huge then cx[#cx + 1], cy[#cy + 1] = x, y end
  end
  return cx, cy
end

function D:draw(cv, rect)
  local o = self.o
  local xax = style.axis(o.xlabel, o.log)
  local logx = xax.log == true
  if xax.log == "auto" then
    local lo, hi, pos = math.huge, -math.huge, true
    for _, x in ipairs(o.xs) do lo, hi, pos = math.min(lo, x), math.max(hi, x), pos and x > 0 end
    logx = pos and hi / lo >= 1000
  end
  xax.log = logx
  self.cx, self.cy = curve(o, logx)
  self.formula = fitmod.formula(o.fit, 4)
  local p = plot.new{ title = o.title, x = xax, y = style.axis(o.ylabel, o.log) }
  if #self.cx >= 2 then
    p:line(self.cx, self.cy, { color = "#d62728", width = 2, label = o.fit.model .. " fit" })
  end
  p:points(o.xs, o.ys, { color = "#1f77b4", label = o.points_label or "components" }) -- over the curve
  local xu, yu = style.unit(o.xlabel), style.unit(o.ylabel)
  local units = (xu or yu) and string.format("   (x = %s%s, y = %s%s)", o.xlabel or "x", xu and (" in " .. xu) or "",
    o.ylabel or "y", yu and (" in " .. yu) or "") or ""
  p:note(string.format("%s    R^2 = %s%s", self.formula, plot.format_number(o.fit.r2, 4), units))
  p:draw(cv, rect)
  self.p = p
  return self
end

function D:data()
  local o = self.o
  local d = self.p:data()
  d.xlabel, d.ylabel, d.xs, d.ys = o.xlabel, o.ylabel, o.xs, o.ys
  d.model, d.coef, d.r2 = o.fit.model, o.fit.coef, o.fit.r2
  d.formula = fitmod.formula(o.fit)
  d.curve_x, d.curve_y = self.cx, self.cy
  return d
end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

return M
