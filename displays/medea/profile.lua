--- displays/medea/profile: how many processors are in an activity over time
-- (execution, computation, communication, receive, transmit, I/O profiles),
-- drawn as a step function from an accumulator's profile (times, counts).
--
--   profile.draw(cv, area, {times=, counts=, nprocs=, label=, title= [, tmin=, tmax=]})
local axes = require "retrace.medea.axes"

local M = {}

function M.data(o)
  return { label = o.label, times = o.times, counts = o.counts }
end

function M.draw(cv, area, o)
  local t = o.times
  local tmin, tmax = o.tmin or t[1] or 0, o.tmax or t[#t] or 1
  if tmax <= tmin then tmax = tmin + 1 end
  local top = o.nprocs or 1
  for _, c in ipairs(o.counts) do top = math.max(top, c) end
  local f = axes.frame(cv, area, { xmin = tmin, xmax = tmax, ymin = 0, ymax = top,
                                   xlabel = "time (s)", ylabel = (o.label or "") .. " processors",
                                   title = o.title })
  local pts = {}
  for i = 1, #t do
    local x1 = f.sx(t[i])
    local x2 = f.sx(t[i + 1] or tmax)
    local y = f.sy(o.counts[i])
    pts[#pts + 1], pts[#pts + 2] = x1, y
    pts[#pts + 1], pts[#pts + 2] = x2, y
  end
  if #pts >= 4 then cv:polyline(pts, { color = "#1f77b4", width = 1.5 }) end
  return M.data(o)
end

return M
