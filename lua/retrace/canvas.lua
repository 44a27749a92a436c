--- retrace.canvas: drawing for displays, over Cairo.
--
-- Surfaces (the same drawing calls on all three):
--   canvas.image(w, h [, background])   -- pixels; cv:write_png(path)
--   canvas.pdf(path, w, h)              -- vector, many pages (cv:show_page()), cv:finish()
--   canvas.svg(path, w, h)              -- vector, one page, cv:finish()
--   canvas.load_png(path)               -- an image canvas holding a PNG (nil, message on failure)
-- Buffers the bulk paths draw from (owned by C; engines hand out their own):
--   canvas.grid(w, h [, fill])          -- int32 cells; g:set(x, y, v), g:get, g:fill, g:load, g:dump
--   canvas.pack(stride)                 -- packed items; p:push(...), p:load(bytes), #p
--   canvas.palette(list)                -- colours (names, "#rrggbb", {r, g, b}) -> C palette
-- The methods (cv:rect, cv:line, cv:text, cv:grid, ...) are documented where they
-- are defined below and in README.md.
local core = require("retrace.core").canvas
local colors = require "retrace.colors"

local M = {}
local mt = core.methods -- the C method table; Lua conveniences are added to it

-- Whole-number width and height (floats like 800.0 are fine) or a one-line error.
local function check_size(w, h, level)
  local iw, ih = math.tointeger(w), math.tointeger(h)
  if not iw or not ih or iw < 1 or ih < 1 then
    error(string.format("canvas size: %s x %s, width and height must be positive integers",
      tostring(w), tostring(h)), level + 1)
  end
  return iw, ih
end

--- An image canvas w x h pixels, cleared to background (default transparent).
function M.image(w, h, background)
  w, h = check_size(w, h, 2)
  local cv = core.image(w, h)
  if background then cv:background(background) end
  return cv
end

--- A PDF canvas of w x h points writing to path; nil, message when path cannot be written.
function M.pdf(path, w, h)
  w, h = check_size(w, h, 2)
  return core.pdf(path, w, h)
end

--- An SVG canvas of w x h points writing to path; nil, message when path cannot be written.
function M.svg(path, w, h)
  w, h = check_size(w, h, 2)
  return core.svg(path, w, h)
end

--- A recording canvas: it keeps the drawing, and cv:replay(rec) plays it onto
-- any other canvas (draw once, write a PNG and a PDF page from it).
function M.recording(w, h)
  w, h = check_size(w, h, 2)
  return core.recording(w, h)
end

--- A canvas of the kind the file name says: .png (image), .pdf, .svg.
function M.for_file(path, w, h)
  local ext = path:match("%.(%w+)$")
  ext = ext and ext:lower()
  if ext == "pdf" then return M.pdf(path, w, h) end
  if ext == "svg" then return M.svg(path, w, h) end
  if ext == "png" then return M.image(w, h) end
  return nil, path .. ": unknown picture type (use .png, .pdf or .svg)"
end

M.load_png = core.load_png
M.grid = core.grid
M.pack = core.pack
M.processor_palette = core.processor_palette

--- A palette from a list of colours, or n transparent entries when given a number.
function M.palette(list)
  if type(list) == "number" then return core.palette(list) end
  return colors.palette(list)
end

-- ---- colour and style ---------------------------------------------------------

--- Set the drawing colour (name, "#rrggbb[aa]", {r, g, b [, a]} or a grey level).
function mt:color(c)
  self:set_rgba(colors.parse(c, 2))
  return self
end

--- Replace the whole canvas (inside the clip) by a colour.
function mt:background(c)
  self:clear(colors.parse(c, 2))
  return self
end

--- Apply a style table: color, width, dash, cap, join.
local function apply(cv, o)
  if o.width then cv:line_width(o.width) end
  if o.dash then cv:dash(o.dash) end
  if o.cap then cv:line_cap(o.cap) end
  if o.join then cv:line_join(o.join) end
end

-- Fill and/or stroke the current path. style: nil (the current colour), a
-- colour, or {fill = c, stroke = c, color = c, width = w, dash = {..}, cap, join};
-- fill / stroke may be true (the current colour). Without fill or stroke the
-- shape's usual way (fill for areas, stroke for lines) uses style.color.
local function paint(cv, style, stroke_default)
  local is_colour = type(style) ~= "table" or style[1] ~= nil or style.r ~= nil
  if style == nil or is_colour then
    if style ~= nil then cv:set_rgba(colors.parse(style, 3)) end
    if stroke_default then cv:stroke() else cv:fill() end
    return
  end
  cv:save()
  apply(cv, style)
  local fill, stroke = style.fill, style.stroke
  if fill == nil and stroke == nil then
    if stroke_default then stroke = style.color or true else fill = style.color or true end
  end
  if fill then
    if fill ~= true then cv:set_rgba(colors.parse(fill, 3)) end
    cv:fill(stroke and true or false)
  end
  if stroke then
    if stroke ~= true then cv:set_rgba(colors.parse(stroke, 3)) end
    cv:stroke()
  end
  cv:new_path()
  cv:restore()
end

-- ---- primitives -----------------------------------------------------------------

--- Rectangle; style as for paint (default: fill with the current colour).
function mt:rect(x, y, w, h, style)
  self:new_path()
  self:rectangle(x, y, w, h)
  paint(self, style, false)
  return self
end

--- Straight line; style: a colour or {color, width, dash, cap}.
function mt:line(x1, y1, x2, y2, style)
  self:new_path()
  self:move_to(x1, y1)
  self:line_to(x2, y2)
  paint(self, style, true)
  return self
end

local function path_points(cv, pts, close)
  if #pts < 4 or #pts % 2 ~= 0 then
    error("points: a flat list {x1, y1, x2, y2, ...} of at least two points", 3)
  end
  cv:new_path()
  cv:move_to(pts[1], pts[2])
  for i = 3, #pts, 2 do cv:line_to(pts[i], pts[i + 1]) end
  if close then cv:close_path() end
end

--- Open polyline through {x1, y1, x2, y2, ...} (stroked).
function mt:polyline(pts, style)
  path_points(self, pts, false)
  paint(self, style, true)
  return self
end

--- Closed polygon through {x1, y1, ...} (filled by default).
function mt:polygon(pts, style)
  path_points(self, pts, true)
  paint(self, style, false)
  return self
end

--- Circle (filled by default).
function mt:circle(cx, cy, r, style)
  self:new_path()
  self:arc(cx, cy, r, 0, 2 * math.pi)
  paint(self, style, false)
  return self
end

--- Arc of a circle from angle a1 to a2 (degrees, clockwise on screen), stroked.
function mt:arc_path(cx, cy, r, a1, a2, style)
  self:new_path()
  self:arc(cx, cy, r, math.rad(a1), math.rad(a2))
  paint(self, style, true)
  return self
end

--- A curved arc from (x1, y1) to (x2, y2) bulging sideways by `bend` times the
-- chord length (positive: to the left going from 1 to 2), stroked.
function mt:curve(x1, y1, x2, y2, bend, style)
  local dx, dy = x2 - x1, y2 - y1
  local mx, my = (x1 + x2) / 2, (y1 + y2) / 2
  local b = bend or 0.25
  -- control point of the equivalent quadratic: the mid-point pushed out by 2 * bend * chord
  local cx, cy = mx + dy * 2 * b, my - dx * 2 * b
  self:new_path()
  self:move_to(x1, y1)
  self:curve_to(x1 + (cx - x1) * 2 / 3, y1 + (cy - y1) * 2 / 3,
    x2 + (cx - x2) * 2 / 3, y2 + (cy - y2) * 2 / 3, x2, y2)
  paint(self, style, true)
  return self
end

--- Run f(cv) between save and restore (restores even when f raises).
function mt:with(f)
  self:save()
  local ok, err = pcall(f, self)
  self:restore()
  if not ok then error(err, 0) end
  return self
end

--- Clip further drawing to a rectangle (until restore or reset_clip).
function mt:clip_rect(x, y, w, h)
  self:new_path()
  self:rectangle(x, y, w, h)
  self:clip()
  return self
end

-- ---- text -----------------------------------------------------------------------

local halign = { left = 0, center = 0.5, centre = 0.5, middle = 0.5, right = 1 }
local valign = { top = 0, middle = 0.5, center = 0.5, centre = 0.5, bottom = 1, baseline = -1 }

--- Set the font: family (default "DejaVu Sans"), size, bold, italic.
function mt:font(family, size, bold, italic)
  self:set_font(family or "DejaVu Sans", size or 12, bold, italic)
  return self
end

--- Draw text at (x, y). opts: align ("left" | "center" | "right"), valign ("top" |
-- "middle" | "bottom" | "baseline", the default), angle (degrees, clockwise),
-- color, size, font, bold, italic. Returns the text's width and height.
function mt:text(x, y, s, opts)
  opts = opts or {}
  local ax = halign[opts.align or "left"]
  local ay = valign[opts.valign or "baseline"]
  if not ax then error("text align '" .. tostring(opts.align) .. "': use left, center or right", 2) end
  if not ay then error("text valign '" .. tostring(opts.valign) .. "': use top, middle, bottom or baseline", 2) end
  local changed = opts.size or opts.font or opts.bold or opts.italic or opts.color
  if changed then self:save() end
  if opts.size or opts.font or opts.bold or opts.italic then
    self:set_font(opts.font or "DejaVu Sans", opts.size or 12, opts.bold, opts.italic)
  end
  if opts.color then self:set_rgba(colors.parse(opts.color, 2)) end
  local w, h = self:show_text(x, y, tostring(s), ax, ay, math.rad(opts.angle or 0))
  if changed then self:restore() end
  return w, h
end

-- ---- bulk -------------------------------------------------------------------------

--- Draw a grid's cells into the box (x, y, w, h) through a palette.
-- opts.region = {sx, sy, sw, sh} (0-based cells; default the whole grid),
-- opts.range = {lo, hi} maps values linearly onto the palette instead of using
-- them as indices; opts.gap = n leaves n device pixels between cells (separate
-- squares). Empty cells (negative, past the palette) are not drawn.
function mt:grid(g, palette, x, y, w, h, opts)
  local r = opts and opts.region or {}
  local range = opts and opts.range
  self:draw_grid(g, palette, x, y, w, h, r[1], r[2], r[3], r[4],
    range and range[1], range and range[2], opts and opts.gap)
  return self
end

--- Write a grid's cells 1:1 as device pixels with the top-left cell at pixel (x, y);
-- opts.range as for cv:grid.
function mt:pixels(g, palette, x, y, opts)
  local gw, gh = g:size()
  local range = opts and opts.range
  self:save()
  self:identity()
  self:draw_grid(g, palette, x, y, gw, gh, nil, nil, nil, nil, range and range[1], range and range[2])
  self:restore()
  return self
end

local function bulk_style(cv, opts)
  opts = opts or {}
  cv:save()
  if opts.color then cv:set_rgba(colors.parse(opts.color, 3)) end
  apply(cv, opts)
  return opts
end

--- Many rectangles from a packed array of items x, y, w, h [, palette index].
-- opts: palette (colour per item from field 5), color, stroke (outline instead of fill), width.
function mt:rects(pack, opts)
  opts = bulk_style(self, opts)
  self:draw_rects(pack, opts.palette, opts.stroke)
  self:restore()
  return self
end

--- Many segments from a packed array of items x1, y1, x2, y2 [, palette index].
function mt:segments(pack, opts)
  opts = bulk_style(self, opts)
  self:draw_segments(pack, opts.palette)
  self:restore()
  return self
end

--- Many points from a packed array of items x, y [, palette index]: squares of
-- half-side opts.radius (default 1), or discs with opts.round.
function mt:points(pack, opts)
  opts = bulk_style(self, opts)
  self:draw_points(pack, opts.palette, opts.radius or 1, opts.round)
  self:restore()
  return self
end

--- One connected line through the points of a packed array of items x, y (a long
-- time series); opts: color, width, dash, close, fill (fill the closed outline instead).
function mt:path(pack, opts)
  opts = bulk_style(self, opts)
  self:draw_path(pack, opts.close, opts.fill)
  self:restore()
  return self
end

--- Write the canvas where it belongs: a PNG for an image canvas (path needed),
-- finish the file for PDF / SVG. Returns true or nil, message.
function mt:write(path)
  if self:kind() == "image" then
    if not path then error("write: an image canvas needs a path", 2) end
    return self:write_png(path)
  end
  return self:finish()
end

return M
