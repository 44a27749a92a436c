--- displays/medea/speedup: parallel metrics of one program's runs against the
-- processor count, in two panels: speedup with the ideal line S = p, and
-- efficiency (ideal 1) with efficacy (speedup x efficiency).
--
--   local d = speedup.new(ctx, {rows = retrace.medea.metrics rows, title =, base_p =})
--   d:draw(cv, rect); d:data() -> {rows = {{p, speedup, efficiency, efficacy}}, panels = {...}}
--   speedup.draw(cv, rect, opts) -> data
local plot = require "retrace.plot"
local display = require "retrace.display"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.medea.Speedup(" .. #d.o.rows .. " runs)" end

M.series = { { "speedup", "#1f77b4" }, { "efficiency", "#2ca02c" }, { "efficacy", "#d62728" } }

function M.new(_, o) return setmetatable({ o = o }, D) end

local function column(rows, k)
  local out = {}
  for i, r in ipairs(rows) do out[i] = r[k] end
  return out
end

function D:draw(cv, rect)
  local o = self.o
  local ps = column(o.rows, "p")
  local base = o.base_p or ps[1] or 1
  local pmax = ps[#ps] or 1
  local xaxis = { label = "processors", log = pmax / base >= 16 and "auto" or false, zero = false }
  local s = plot.new{ x = xaxis, y = { label = "speedup S", zero = true } }
  s:note(string.format("S(p) = T(%d) x %d / T(p)", base, base))
  s:line(ps, ps, { color = "#808080", dash = { 5, 4 }, width = 1, label = "ideal: S = p" })
  s:line(ps, column(o.rows, "speedup"), { color = M.series[1][2], markers = 3.5, label = "speedup" })
  local e = plot.new{ x = xaxis, y = { label = "efficiency, efficacy", zero = true } }
  local ones = {}
  for i = 1, #ps do ones[i] = 1 end
  e:line(ps, ones, { color = "#808080", dash = { 5, 4 }, width = 1, label = "ideal efficiency 1" })
  e:line(ps, column(o.rows, "efficiency"), { color = M.series[2][2], markers = 3.5, marker = "square",
    label = "efficiency = S / p" })
  e:line(ps, column(o.rows, "efficacy"), { color = M.series[3][2], markers = 3.5, marker = "triangle",
    label = "efficacy = S x efficiency" })
  local top = 0
  if o.title then
    cv:text(rect.x + rect.w / 2, rect.y + 6, o.title, { align = "center", valign = "top", size = 14, bold = true })
    top = 28
  end
  self.c = display.compose({ { title = "speedup", display = s }, { title = "efficiency and efficacy", display = e } },
    { cols = 2, gap = 10 })
  self.c:draw(cv, { x = rect.x + 4, y = rect.y + top, w = rect.w - 8, h = rect.h - top - 4 })
  return self
end

function D:data()
  local out = {}
  for i, r in ipairs(self.o.rows) do
    out[i] = { p = r.p, speedup = r.speedup, efficiency = r.efficiency, efficacy = r.efficacy }
  end
  return { title = self.o.title, rows = out, panels = self.c and self.c:data().panels }
end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

return M
