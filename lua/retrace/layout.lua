--- retrace.layout: the furniture of a display, drawn on a canvas.
--
-- Rectangles are tables {x = , y = , w = , h = } in canvas units.
--   layout.split(r, cols, rows [, gap])      -> list of cells, row by row
--   layout.panel(cv, r, title [, opts])      -> the inner rectangle of a titled frame
--   layout.compose(cv, r, cols, rows, {{title =, draw = function(cv, inner) end}, ...})
--   layout.ticks, log_ticks, format, axes, legend, colorbar: the plotting pieces,
--     now in retrace.plot (same names there), kept here for old callers
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

-- ---- plotting furniture (lives in retrace.plot) ---------------------------------------
-- Kept here under their old names so existing callers keep working; new code
-- uses retrace.plot (plot.new for whole plots, or these immediate-mode pieces).

local function plot() return require "retrace.plot" end
function M.ticks(lo, hi, n) return plot().ticks(lo, hi, n) end
function M.log_ticks(lo, hi) return plot().log_ticks(lo, hi, true) end
function M.format(v, step) return plot().format_tick(v, step) end
function M.axes(cv, r, opts) return plot().axes(cv, r, opts) end
function M.legend(cv, x, y, items, opts) return plot().legend(cv, x, y, items, opts) end
function M.colorbar(cv, x, y, w, h, palette, lo, hi, opts)
  return plot().colorbar(cv, x, y, w, h, palette, lo, hi, opts)
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
