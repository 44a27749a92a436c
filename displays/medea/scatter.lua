--- displays/medea/scatter: components projected onto two parameters, one colour
-- and marker per cluster (the extime-cptime and rctime-trtime views).
--
--   local d = scatter.new(ctx, {xs =, ys =, clusters =, names =, xlabel =, ylabel =,
--                               title =, log = "auto" | true | false})
--   d:draw(cv, rect); d:data() -> retrace.plot's data plus points = {{x, y, cluster, name}}
--   scatter.draw(cv, rect, opts) -> data (both steps at once)
-- Fewer than two components: no scatter (a lone dot says nothing); the display
-- says so in words instead, and data().message holds the sentence.
local plot = require "retrace.plot"
local style = require "retrace.displays.medea.style"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.medea.Scatter(" .. #d.o.xs .. " points)" end

function M.new(_, o) return setmetatable({ o = o }, D) end

local function points(o)
  local pts = {}
  for i = 1, #o.xs do
    pts[i] = { x = o.xs[i], y = o.ys[i], cluster = o.clusters and o.clusters[i], name = o.names and o.names[i] }
  end
  return pts
end

function D:draw(cv, rect)
  local o = self.o
  if #o.xs < 2 then
    local what = #o.xs == 1 and string.format("one component only (%s: %s = %s, %s = %s)",
      tostring(o.names and o.names[1] or 1), o.xlabel or "x", plot.format_number(o.xs[1]),
      o.ylabel or "y", plot.format_number(o.ys[1])) or "no components"
    self.message = what .. ": a scatter plot needs two or more"
    cv:text(rect.x + rect.w / 2, rect.y + rect.h / 2, self.message, { align = "center", valign = "middle",
      size = 14 })
    self.p = nil
    return self
  end
  local p = plot.new{ title = o.title, x = style.axis(o.xlabel, o.log), y = style.axis(o.ylabel, o.log) }
  local k = 0
  for i = 1, #o.xs do k = math.max(k, o.clusters and o.clusters[i] or 1) end
  for h = 1, k do
    local xs, ys = {}, {}
    for i = 1, #o.xs do
      if (o.clusters and o.clusters[i] or 1) == h then xs[#xs + 1], ys[#ys + 1] = o.xs[i], o.ys[i] end
    end
    if #xs > 0 then
      p:points(xs, ys, { color = style.cluster_color(h), marker = style.cluster_marker(h),
        label = o.clusters and string.format("cluster %d (%d)", h, #xs) or nil })
    end
  end
  p:draw(cv, rect)
  self.p = p
  return self
end

function D:data()
  local d = self.p and self.p:data() or { message = self.message }
  d.xlabel, d.ylabel, d.points = self.o.xlabel, self.o.ylabel, points(self.o)
  return d
end

function M.draw(cv, rect, o)
  return M.new(nil, o):draw(cv, rect):data()
end

return M
