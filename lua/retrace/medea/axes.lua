--- retrace.medea.axes: the plot frame of the MEDEA displays (scatter plots, fits,
-- profiles, execution signatures): a title over retrace.layout's axes, padded
-- data ranges, and the cluster colours.
--
--   local f = axes.frame(cv, {x=, y=, w=, h=}, {xmin=, xmax=, ymin=, ymax=,
--                        xlabel=, ylabel=, title=})
--   f.sx(x), f.sy(y) -> device coordinates; f.box the plotting area
local M = {}

--- A range [lo, hi] around the values, padded, never empty.
function M.range(values, pad, zero)
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(values) do
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  if lo == math.huge then lo, hi = 0, 1 end
  if zero then lo = math.min(lo, 0) end
  if hi == lo then
    local d = lo == 0 and 1 or math.abs(lo) * 0.1
    lo, hi = lo - d, hi + d
  end
  local p = (hi - lo) * (pad or 0.05)
  return (zero and lo == 0) and 0 or lo - p, hi + p
end

--- Draw the frame (retrace.layout axes under an optional title) and return the mapping.
function M.frame(cv, area, r)
  local layout = require "retrace.layout"
  local top = r.title and 26 or 4
  if r.title then
    cv:text(area.x + area.w / 2, area.y + 6, r.title, { align = "center", valign = "top", size = 14, bold = true })
  end
  local inner = layout.inset(area, 8, top, 12, 6)
  local s = layout.axes(cv, inner, { x = { r.xmin, r.xmax, label = r.xlabel }, y = { r.ymin, r.ymax, label = r.ylabel },
                                     grid = "#dddddd" })
  return { sx = s.x, sy = s.y, box = s.plot }
end

-- Ten distinguishable colours for clusters (recycled past ten).
M.cluster_colors = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                     "#7f7f7f", "#bcbd22", "#17becf" }

function M.cluster_color(h)
  return M.cluster_colors[(h - 1) % #M.cluster_colors + 1]
end

--- A legend of (colour, text) entries at the top right of the box.
function M.legend(cv, box, entries)
  local items = {}
  for i, e in ipairs(entries) do items[i] = { e[2], e[1] } end
  require("retrace.layout").legend(cv, box.x + box.w - 90, box.y + 6, items)
end

return M
