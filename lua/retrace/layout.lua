--- retrace.layout: the furniture of a display, drawn on a canvas.
--
-- Rectangles are tables {x = , y = , w = , h = } in canvas units.
--   layout.split(r, cols, rows [, gap])      -> list of cells, row by row
--   layout.panel(cv, r, title [, opts])      -> the inner rectangle of a titled frame
--   layout.compose(cv, r, cols, rows, {{title =, draw = function(cv, inner) end}, ...})
--   layout.ticks(lo, hi [, n]), layout.log_ticks(lo, hi)
--   layout.axes(cv, r, {x = {lo, hi, label =, log =}, y = {...}}) -> scale (s.x(v), s.y(v), s.plot)
--   layout.legend(cv, x, y, items [, opts])  -> width, height; items {{label, colour}, ...}
--   layout.time_window(width [, {mode = "jump" | "smooth", start = 0}]) -> window (w:update(t))
local M = {}

function M.rect(x, y, w, h) return { x = x, y = y, w = w, h = h } end

--- r shrunk by margins (left, top, right, bottom; one number for all four).
function M.inset(r, l, t, rr, b)
  t, rr, b = t or l, rr or l, b or t or l
  return { x = r.x + l, y = r.y + t, w = math.max(0, r.w - l - rr), h = math.max(0, r.h - t - b) }
end

--- Split r into cols x rows cells separated by gap; returned row by row.
function M.split(r, cols, rows, gap)
  gap = gap or 0
  local cw = (r.w - gap * (cols - 1)) / cols
  local ch = (r.h - gap * (rows - 1)) / rows
  local cells = {}
  for j = 0, rows - 1 do
    for i = 0, cols - 1 do
      cells[#cells + 1] = { x = r.x + i * (cw + gap), y = r.y + j * (ch + gap), w = cw, h = ch }
    end
  end
  return cells
end

--- A titled panel: a border around r, the title in a band at the top.
-- opts: border (colour, default "gray"), title_color ("black"), fill (background),
-- size (title font size, 12), padding (4). Returns the rectangle inside.
function M.panel(cv, r, title, opts)
  opts = opts or {}
  local size, pad = opts.size or 12, opts.padding or 4
  if opts.fill then cv:rect(r.x, r.y, r.w, r.h, opts.fill) end
  cv:rect(r.x + 0.5, r.y + 0.5, r.w - 1, r.h - 1, { stroke = opts.border or "gray", width = 1 })
  local top = pad
  if title and title ~= "" then
    top = size + 2 * pad
    cv:text(r.x + pad, r.y + pad, title, { valign = "top", size = size, bold = true,
      color = opts.title_color or "black" })
  end
  return { x = r.x + pad, y = r.y + top, w = r.w - 2 * pad, h = r.h - top - pad }
end

--- Several displays in one frame: rect is split into cols x rows cells, each
-- display {title = "...", draw = function(cv, inner, k) ... end} gets a titled
-- panel and draws inside it, clipped to it. opts: gap (8) and the panel options.
-- Returns the inner rectangles.
function M.compose(cv, r, cols, rows, displays, opts)
  opts = opts or {}
  local cells = M.split(r, cols, rows, opts.gap or 8)
  local inners = {}
  for k, d in ipairs(displays) do
    local cell = cells[k]
    if not cell then
      error(string.format("layout: %d displays do not fit in %d x %d cells", #displays, cols, rows), 2)
    end
    local inner = M.panel(cv, cell, d.title, opts)
    inners[k] = inner
    if d.draw then
      cv:save()
      cv:clip_rect(inner.x, inner.y, inner.w, inner.h)
      local ok, err = pcall(d.draw, cv, inner, k)
      cv:restore()
      if not ok then error(err, 0) end
    end
  end
  return inners
end

-- ---- ticks ---------------------------------------------------------------------------

--- About n "nice" tick values (steps of 1, 2 or 5 times a power of ten) inside [lo, hi].
function M.ticks(lo, hi, n)
  n = n or 5
  if hi < lo then lo, hi = hi, lo end
  if hi == lo then return { lo } end
  local raw = (hi - lo) / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local f = raw / mag -- in [1, 10): pick the nice step nearest to it
  local step = (f < 1.5 and 1 or f < 3 and 2 or f < 7 and 5 or 10) * mag
  local out = {}
  local first = math.ceil(lo / step - 1e-9)
  local last = math.floor(hi / step + 1e-9)
  for k = first, last do
    local v = k * step
    if math.abs(v) < step * 1e-9 then v = 0 end
    out[#out + 1] = v
  end
  return out, step
end

--- Ticks for a log axis: the powers of ten inside [lo, hi] (lo > 0), with 2 and 5
-- times them added when the range spans fewer than three decades.
function M.log_ticks(lo, hi)
  if lo <= 0 then error("log axis: lower end " .. tostring(lo) .. " must be positive", 2) end
  local a, b = math.floor(math.log(lo, 10) + 1e-9), math.ceil(math.log(hi, 10) - 1e-9)
  local mult = (b - a) < 3 and { 1, 2, 5 } or { 1 }
  local out = {}
  for e = a, b do
    for _, m in ipairs(mult) do
      local v = m * 10 ^ e
      if v >= lo * (1 - 1e-9) and v <= hi * (1 + 1e-9) then out[#out + 1] = v end
    end
  end
  return out
end

--- A tick label: integers without a decimal point, others with as many decimals as the step needs.
function M.format(v, step)
  if v == math.floor(v) and math.abs(v) < 1e15 then
    return string.format("%d", math.floor(v))
  end
  if math.abs(v) >= 1e6 or math.abs(v) < 1e-4 then return string.format("%.3g", v) end
  local dec = step and math.max(0, math.ceil(-math.log(step, 10) - 1e-9)) or 3
  return string.format("%." .. dec .. "f", v)
end

-- ---- axes ----------------------------------------------------------------------------

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

--- Draw axes with ticks and labels inside r; returns a scale:
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
  if xa.log then xt = M.log_ticks(xlo, xhi) else xt, xstep = M.ticks(xlo, xhi, xa.ticks or 6) end
  local yt, ystep
  if ya.log then yt = M.log_ticks(ylo, yhi) else yt, ystep = M.ticks(ylo, yhi, ya.ticks or 5) end
  -- margins that leave room for the labels
  cv:save()
  cv:font(nil, size)
  local ywidest = 0
  for _, v in ipairs(yt) do ywidest = math.max(ywidest, (cv:text_size(M.format(v, ystep)))) end
  local xlast = #xt > 0 and cv:text_size(M.format(xt[#xt], xstep)) or 0
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
    local label = M.format(v, xstep)
    local tw = cv:text_size(label)
    if sx(v) - tw / 2 > right_end + size * 0.5 then
      cv:show_text(sx(v), base + size * 0.5, label, 0.5, 0)
      right_end = sx(v) + tw / 2
    end
  end
  for _, v in ipairs(yt) do
    cv:show_text(plot.x - size * 0.5, sy(v), M.format(v, ystep), 1, 0.5)
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
  cv:text(x, y + h + 2, M.format(lo), { valign = "top", size = size, color = opts.color or "black" })
  cv:text(x + w, y + h + 2, M.format(hi), { align = "right", valign = "top", size = size, color = opts.color or "black" })
  return w, h + size * 1.4
end

-- ---- scrolling time window ---------------------------------------------------------------

--- A window of `width` time units over a time axis that follows the current time.
-- mode "jump" (default) keeps the window still until t passes its right end, then
-- moves it on by whole pages so t is in the new page; "smooth" keeps t at the right
-- end once t > width. w:update(t) returns lo, hi; w.lo, w.hi hold them.
function M.time_window(width, opts)
  opts = opts or {}
  if not (type(width) == "number" and width > 0) then
    error("time window: width " .. tostring(width) .. " must be positive", 2)
  end
  local mode = opts.mode or "jump"
  if mode ~= "jump" and mode ~= "smooth" then
    error("time window mode '" .. tostring(mode) .. "': use 'jump' or 'smooth'", 2)
  end
  local start = opts.start or 0
  local w = { width = width, mode = mode, lo = start, hi = start + width }
  function w.update(self, t)
    if self.mode == "smooth" then
      self.lo = math.max(start, t - self.width)
    elseif t > self.hi then
      self.lo = self.lo + math.ceil((t - self.hi) / self.width) * self.width
    end
    self.hi = self.lo + self.width
    return self.lo, self.hi
  end
  return w
end

return M
