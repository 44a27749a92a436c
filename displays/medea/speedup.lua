--- displays/medea/speedup: speedup, efficiency and efficacy against processors
-- for runs of one program (rows of retrace.medea.metrics.scaling).
--
--   speedup.draw(cv, area, {rows=, title=}) -> the plotted rows
local axes = require "retrace.medea.axes"

local M = {}

M.series = { { "speedup", "#1f77b4" }, { "efficiency", "#2ca02c" }, { "efficacy", "#d62728" } }

function M.data(o)
  local out = {}
  for i, r in ipairs(o.rows) do
    out[i] = { p = r.p, speedup = r.speedup, efficiency = r.efficiency, efficacy = r.efficacy }
  end
  return { rows = out }
end

function M.draw(cv, area, o)
  local ps, all = {}, {}
  for i, r in ipairs(o.rows) do
    ps[i] = r.p
    for _, s in ipairs(M.series) do all[#all + 1] = r[s[1]] end
  end
  local xmin, xmax = axes.range(ps)
  local ymin, ymax = axes.range(all, 0.05, true)
  local f = axes.frame(cv, area, { xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax,
                                   xlabel = "processors", ylabel = "", title = o.title })
  local entries = {}
  for k, s in ipairs(M.series) do
    local pts = {}
    for _, r in ipairs(o.rows) do
      pts[#pts + 1], pts[#pts + 2] = f.sx(r.p), f.sy(r[s[1]])
      cv:circle(f.sx(r.p), f.sy(r[s[1]]), 3.5, { fill = s[2] })
    end
    if #pts >= 4 then cv:polyline(pts, { color = s[2], width = 1.5 }) end
    entries[k] = { s[2], s[1] }
  end
  axes.legend(cv, f.box, entries)
  return M.data(o)
end

return M
