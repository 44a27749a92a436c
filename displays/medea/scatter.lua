--- displays/medea/scatter: components projected onto two parameters,
-- coloured by cluster (the extime-cptime and rctime-trtime views).
--
--   scatter.draw(cv, area, {xs=, ys=, clusters=, names=, xlabel=, ylabel=, title=})
--   scatter.data(opts) -> the plotted points as a table (for JSON / CSV)
local axes = require "retrace.medea.axes"

local M = {}

function M.data(o)
  local pts = {}
  for i = 1, #o.xs do
    pts[i] = { x = o.xs[i], y = o.ys[i], cluster = o.clusters and o.clusters[i], name = o.names and o.names[i] }
  end
  return { xlabel = o.xlabel, ylabel = o.ylabel, points = pts }
end

function M.draw(cv, area, o)
  local xmin, xmax = axes.range(o.xs)
  local ymin, ymax = axes.range(o.ys)
  local f = axes.frame(cv, area, { xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax,
                                   xlabel = o.xlabel, ylabel = o.ylabel, title = o.title })
  local k = 0
  for i = 1, #o.xs do
    local h = o.clusters and o.clusters[i] or 1
    k = math.max(k, h)
    cv:circle(f.sx(o.xs[i]), f.sy(o.ys[i]), 4, { fill = axes.cluster_color(h), stroke = "black", width = 0.5 })
  end
  if o.clusters then
    local entries = {}
    for h = 1, k do entries[h] = { axes.cluster_color(h), "cluster " .. h } end
    axes.legend(cv, f.box, entries)
  end
  return M.data(o)
end

return M
