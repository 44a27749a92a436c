--- retrace.medea.axes: a plot frame with linear axes, ticks and labels, for the
-- MEDEA displays (scatter plots, fits, profiles, speedup curves).
--
--   local f = axes.frame(cv, {x=, y=, w=, h=}, {xmin=, xmax=, ymin=, ymax=,
--                        xlabel=, ylabel=, title=})
--   f.sx(x), f.sy(y) -> device coordinates; f.box the plotting area
local M = {}

--- Round tick positions covering [lo, hi] (about n of them).
function M.ticks(lo, hi, n)
  n = n or 5
  if hi <= lo then return { lo } end
  local raw = (hi - lo) / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({ 1, 2, 5, 10 }) do
    if m * mag >= raw then step = m * mag break end
  end
  local out = {}
  local t = math.ceil(lo / step - 1e-9) * step
  while t <= hi + step * 1e-9 do
    out[#out + 1] = math.abs(t) < step * 1e-9 and 0 or t
    t = t + step
  end
  return out
end

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

local function label(v)
  return string.format("%.4g", v)
end

--- Draw the frame and return the mapping (see the header).
function M.frame(cv, area, r)
  local left, bottom, top, right = 70, 50, r.title and 34 or 14, 16
  local box = { x = area.x + left, y = area.y + top, w = area.w - left - right, h = area.h - top - bottom }
  local function sx(x) return box.x + (x - r.xmin) / (r.xmax - r.xmin) * box.w end
  local function sy(y) return box.y + box.h - (y - r.ymin) / (r.ymax - r.ymin) * box.h end
  cv:rect(box.x, box.y, box.w, box.h, { fill = "white", stroke = "black", width = 1 })
  local grid = { color = "#dddddd", width = 0.5 }
  for _, t in ipairs(M.ticks(r.xmin, r.xmax)) do
    cv:line(sx(t), box.y, sx(t), box.y + box.h, grid)
    cv:line(sx(t), box.y + box.h, sx(t), box.y + box.h + 4, { color = "black", width = 1 })
    cv:text(sx(t), box.y + box.h + 6, label(t), { align = "center", valign = "top", size = 10 })
  end
  for _, t in ipairs(M.ticks(r.ymin, r.ymax)) do
    cv:line(box.x, sy(t), box.x + box.w, sy(t), grid)
    cv:line(box.x - 4, sy(t), box.x, sy(t), { color = "black", width = 1 })
    cv:text(box.x - 6, sy(t), label(t), { align = "right", valign = "middle", size = 10 })
  end
  cv:rect(box.x, box.y, box.w, box.h, { stroke = "black", width = 1 })
  if r.xlabel then
    cv:text(box.x + box.w / 2, area.y + area.h - 6, r.xlabel, { align = "center", valign = "bottom", size = 12 })
  end
  if r.ylabel then
    cv:text(area.x + 14, box.y + box.h / 2, r.ylabel, { align = "center", valign = "middle", size = 12,
      angle = -90 })
  end
  if r.title then
    cv:text(area.x + area.w / 2, area.y + 8, r.title, { align = "center", valign = "top", size = 14, bold = true })
  end
  return { sx = sx, sy = sy, box = box }
end

-- Ten distinguishable colours for clusters (recycled past ten).
M.cluster_colors = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                     "#7f7f7f", "#bcbd22", "#17becf" }

function M.cluster_color(h)
  return M.cluster_colors[(h - 1) % #M.cluster_colors + 1]
end

--- A legend of (colour, text) entries at the top right of the box.
function M.legend(cv, box, entries)
  local y = box.y + 8
  for _, e in ipairs(entries) do
    local x = box.x + box.w - 110
    cv:rect(x, y, 10, 10, { fill = e[1] })
    cv:text(x + 14, y + 5, e[2], { valign = "middle", size = 10 })
    y = y + 14
  end
end

return M
