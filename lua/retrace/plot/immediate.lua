--- retrace.plot.immediate: plot pieces drawn at once, for displays that lay
-- out their own frame (the canvas tour, bench/canvas.lua): axes with ticks,
-- a legend at a given place, a colour bar, a tick label. retrace.plot.new is the
-- full frame (legend placement, labels, data()); prefer it for charts.
--
--   immediate.axes(cv, r, {x = {lo, hi, label =, log =}, y = {...}}) -> scale (s.x(v), s.y(v), s.plot)
--   immediate.legend(cv, x, y, items [, opts]) -> width, height; items {{label, colour}, ...}
--   immediate.colorbar(cv, x, y, w, h, palette, lo, hi [, opts]) -> width, height
--   immediate.format_tick(v [, step]) -> text
local axis = require "retrace.plot.axis"

local M = {}

--- A single tick label (immediate-mode axes): integers without a decimal point,
-- others with as many decimals as the step needs.
function M.format_tick(v, step)
  if v == math.floor(v) and math.abs(v) < 1e15 then
    return string.format("%d", math.floor(v))
  end
  if math.abs(v) >= 1e6 or math.abs(v) < 1e-4 then return string.format("%.3g", v) end
  local dec = step and math.max(0, math.ceil(-math.log(step, 10) - 1e-9)) or 3
  return string.format("%." .. dec .. "f", v)
end

-- ---- immediate-mode pieces: axes, legend, colour bar drawn at once -------------------------

local function scaler(ax, from, to)
  local lo, hi = ax[1] or ax.lo or 0, ax[2] or ax.hi or 1
  if ax.log then
    if lo <= 0 or hi <= 0 then error("log axis: range must be positive", 3) end
    local a, b = math.log(lo, 10), math.log(hi, 10)
    return function(v) return from + (math.log(math.max(v, 1e-300), 10) - a) / (b - a) * (to - from) end, lo, hi
  end
  if hi == lo then hi = lo + 1 end
  return function(v) return from + (v - lo) / (hi - lo) * (to - from) end, lo, hi
end

--- Draw axes with ticks and labels inside r at once (plot.new is the full frame); returns a scale:
-- s.x(v), s.y(v) map data to canvas units, s.plot is the plotting rectangle.
-- opts.x / opts.y: {lo, hi, label = "time (s)", log = false, ticks = n}; opts.color
-- ("black"), opts.size (font size, 10), opts.grid (colour of grid lines, or nil).
function M.axes(cv, r, opts)
  opts = opts or {}
  local xa, ya = opts.x or {}, opts.y or {}
  local size = opts.size or 10
  local color = opts.color or "black"
  local function range(ax)
    return ax[1] or ax.lo or 0, ax[2] or ax.hi or 1
  end
  local xlo, xhi = range(xa)
  local ylo, yhi = range(ya)
  local xt, xstep
  if xa.log then xt = axis.log_ticks(xlo, xhi, true) else xt, xstep = axis.ticks(xlo, xhi, xa.ticks or 6) end
  local yt, ystep
  if ya.log then yt = axis.log_ticks(ylo, yhi, true) else yt, ystep = axis.ticks(ylo, yhi, ya.ticks or 5) end
  -- margins that leave room for the labels
  cv:save()
  cv:font(nil, size)
  local ywidest = 0
  for _, v in ipairs(yt) do ywidest = math.max(ywidest, (cv:text_size(M.format_tick(v, ystep)))) end
  local xlast = #xt > 0 and cv:text_size(M.format_tick(xt[#xt], xstep)) or 0
  cv:restore()
  local left = opts.left or (ywidest + size * (ya.label and 2.2 or 1))
  local right = opts.right or math.max(size, xlast / 2 + 2)
  local bottom = opts.bottom or (xa.label and size * 3.4 or size * 2)
  local plot = { x = r.x + left, y = r.y + size * 0.7, w = r.w - left - right, h = r.h - bottom - size * 0.7 }
  local sx = scaler(xa, plot.x, plot.x + plot.w)
  local sy = scaler(ya, plot.y + plot.h, plot.y)
  cv:save()
  cv:font(nil, size)
  cv:line_width(1)
  if opts.grid then
    cv:color(opts.grid)
    cv:line_width(0.5)
    cv:new_path()
    for _, v in ipairs(xt) do cv:move_to(sx(v), plot.y); cv:line_to(sx(v), plot.y + plot.h) end
    for _, v in ipairs(yt) do cv:move_to(plot.x, sy(v)); cv:line_to(plot.x + plot.w, sy(v)) end
    cv:stroke()
    cv:line_width(1)
  end
  -- the axis lines and every tick in one path, then the labels (one colour for all)
  cv:color(color)
  local base, tick = plot.y + plot.h, size * 0.4
  cv:new_path()
  cv:move_to(plot.x + plot.w, base); cv:line_to(plot.x, base); cv:line_to(plot.x, plot.y)
  for _, v in ipairs(xt) do cv:move_to(sx(v), base); cv:line_to(sx(v), base + tick) end
  for _, v in ipairs(yt) do cv:move_to(plot.x - tick, sy(v)); cv:line_to(plot.x, sy(v)) end
  cv:stroke()
  local right_end = -math.huge -- labels that would overlap the previous one are left out
  for _, v in ipairs(xt) do
    local label = M.format_tick(v, xstep)
    local tw = cv:text_size(label)
    if sx(v) - tw / 2 > right_end + size * 0.5 then
      cv:show_text(sx(v), base + size * 0.5, label, 0.5, 0)
      right_end = sx(v) + tw / 2
    end
  end
  for _, v in ipairs(yt) do
    cv:show_text(plot.x - size * 0.5, sy(v), M.format_tick(v, ystep), 1, 0.5)
  end
  if xa.label then cv:show_text(plot.x + plot.w / 2, r.y + r.h, xa.label, 0.5, 1) end
  if ya.label then cv:show_text(r.x, plot.y + plot.h / 2, ya.label, 0.5, 0, -math.pi / 2) end
  cv:restore()
  return { x = sx, y = sy, plot = plot, xticks = xt, yticks = yt }
end

-- ---- legends ---------------------------------------------------------------------------

--- A legend at (x, y): a swatch and a label per item {label, colour}.
-- opts: size (font size, 10), horizontal (one row instead of a column), color
-- (text colour), box (swatch side, size). Returns the legend's width and height.
function M.legend(cv, x, y, items, opts)
  opts = opts or {}
  local size = opts.size or 10
  local box = opts.box or size
  local line = size * 1.5
  local cx, cy, w, h = x, y, 0, 0
  cv:save()
  cv:font(nil, size)
  for _, it in ipairs(items) do
    cv:rect(cx, cy + (line - box) / 2, box, box, { fill = it[2], stroke = opts.outline or "black", width = 0.5 })
    local tw = cv:text(cx + box + size * 0.4, cy + line / 2, it[1],
      { valign = "middle", color = opts.color or "black" })
    local iw = box + size * 0.4 + tw
    if opts.horizontal then
      cx = cx + iw + size
      w, h = cx - x - size, line
    else
      cy = cy + line
      w, h = math.max(w, iw), cy - y
    end
  end
  cv:restore()
  return w, h
end

--- A colour bar legend for a palette drawn with a value range: n swatches from
-- lo to hi, labelled at both ends. Returns width, height.
function M.colorbar(cv, x, y, w, h, palette, lo, hi, opts)
  opts = opts or {}
  local n = #palette
  local g = require("retrace.canvas").grid(n, 1)
  for i = 0, n - 1 do g:set(i, 0, i) end
  cv:grid(g, palette, x, y, w, h)
  cv:rect(x, y, w, h, { stroke = "black", width = 0.5 })
  local size = opts.size or 10
  cv:text(x, y + h + 2, M.format_tick(lo), { valign = "top", size = size, color = opts.color or "black" })
  cv:text(x + w, y + h + 2, M.format_tick(hi), { align = "right", valign = "top", size = size, color = opts.color or "black" })
  return w, h + size * 1.4
end


return M
