--- retrace.plot: the one plot frame every display family draws its charts in.
--
-- A plot is described first and drawn once, so the frame can place the legend
-- where it hides nothing and give labels room before anything is painted:
--
--   local plot = require "retrace.plot"
--   local p = plot.new{ title = "extime against cmtime",
--                       x = { label = "communication time", unit = "s" },
--                       y = { label = "execution time", unit = "s", log = "auto" } }
--   p:points(xs, ys, { color = "#1f77b4", label = "cluster 1", marker = "square" })
--   p:line(xs, ys, { color = "red", dash = { 4, 3 }, label = "ideal" })
--   p:bars(xs, heights, { width = 1, color = "gray", label = "count" })
--   p:columns(cols, { color = "navy" })       -- per-pixel reduced series (retrace.reduce)
--   p:labels({ { x =, y =, text = }, ... })   -- point / peak labels, never overlapping
--   p:note("trtime is constant: 0.0015 s")    -- a line under the title, never over data
--   p:colorbar{ palette = pal, lo = 0, hi = 4, label = "misses" }
--   p:draw(cv, { x = 0, y = 0, w = 800, h = 600 })
--   local d = p:data()     -- everything drawn and where (see below)
--   local px, py = plot.to_pixel(d, x, y)
--
-- Axis options (x = {...}, y = {...}): label, unit (printed "label (unit)"),
-- lo / hi (default: the data range, padded 5 %), zero (include 0), log
-- (true, false or "auto": log when every value is positive and they span three
-- decades or more), time (values in seconds: the unit becomes s, ms, us or ns by
-- the span), ticks (about how many), pad (fraction, 0.05), labels ({[v] = text}
-- instead of numbers, e.g. state names). Linear ticks step by 1, 2 or 5 times a
-- power of ten; log ticks are the powers of ten (the range widens to whole decades).
-- A value range narrower than 1e-9 of its magnitude is drawn as a constant: one
-- tick at the value and a note saying so.
--
-- p:data() -> { title =, plot = {x, y, w, h} (device pixels), axes = { x = {lo, hi,
-- log, scale, unit, label, ticks = {...}, tick_labels = {...}, constant}, y = ...},
-- series = { {kind, label, color, x = {...}, y = {...}}, ... }, legend = {x, y, w, h,
-- where = "inside top right" | ... | "outside right", items}, labels = {drawn = {{text,
-- x, y, box}}, dropped = {...}}, notes = {...}, colorbar = {...} }.
--
-- Numbers: plot.format_number(v [, digits]) prints v with at most `digits`
-- significant digits (6) and no trailing zeros; plot.tick_labels(values) uses the
-- fewest digits that keep adjacent ticks apart; plot.format_signed_term(c, term
-- [, first [, digits]]) gives "- 1.05 x" / "+ 3 x^2" for formulas.
local colors = require "retrace.colors"
local numbers = require "retrace.numbers"
local axis = require "retrace.plot.axis"
local marks = require "retrace.plot.marks"
local immediate = require "retrace.plot.immediate"

local M = {}

-- numbers, scales, markers and the immediate-mode pieces, under one name
M.format_number = numbers.format_number
M.tick_labels = numbers.tick_labels
M.format_signed_term = numbers.format_signed_term
M.ticks, M.log_ticks, M.to_pixel = axis.ticks, axis.log_ticks, axis.to_pixel
M.markers, M.marker = marks.kinds, marks.draw
M.axes, M.legend, M.colorbar, M.format_tick = immediate.axes, immediate.legend, immediate.colorbar,
  immediate.format_tick

local Plot = {}
Plot.__index = Plot
Plot.__tostring = function(p)
  return string.format("retrace.Plot(%s, %d series)", tostring(p.opts.title or ""), #p.series)
end

--- A new plot; opts: title, x, y (axis options above), legend ("auto" default,
-- "inside", "outside" or false), size (font size, 11), grid (colour or false).
function M.new(opts)
  opts = opts or {}
  return setmetatable({ opts = opts, series = {}, label_list = {}, notes = {}, legend_items = {} }, Plot)
end

local function add_series(p, kind, xs, ys, style)
  style = style or {}
  local s = { kind = kind, x = xs, y = ys, style = style, label = style.label,
              color = style.color or "#1f77b4" }
  p.series[#p.series + 1] = s
  if style.label and style.legend ~= false then
    p.legend_items[#p.legend_items + 1] = { label = style.label, color = s.color, kind = kind,
                                            marker = style.marker, dash = style.dash, markers = style.markers }
  end
  return s
end

--- Scatter points; style: color, radius (4), marker ("circle", "square",
-- "triangle", "diamond"), stroke, label (legend entry), names (per point).
function Plot:points(xs, ys, style) add_series(self, "points", xs, ys, style); return self end

--- A line through the points; style: color, width (1.5), dash, label, markers (radius).
function Plot:line(xs, ys, style) add_series(self, "line", xs, ys, style); return self end

--- A step line: y[i] holds from x[i] to x[i + 1]; style as for line.
function Plot:steps(xs, ys, style) add_series(self, "steps", xs, ys, style); return self end

--- Bars of heights ys centred at xs; style: width (in x units, default the
-- smallest spacing), color, stroke, label, base (0).
function Plot:bars(xs, ys, style) add_series(self, "bars", xs, ys, style); return self end

--- A series reduced per pixel column (a table from retrace.reduce: x0, x1, count,
-- min, max, mean): each column drawn as a vertical stroke from min to max, the
-- mean as a line through them. style: color, mean_color, label.
function Plot:columns(cols, style)
  local xs, ys = {}, {}
  local w = #cols.count
  for i = 1, w do
    if cols.count[i] > 0 then
      local x = cols.x0 + (i - 0.5) * (cols.x1 - cols.x0) / w
      xs[#xs + 1] = x; ys[#ys + 1] = cols.min[i]
      xs[#xs + 1] = x; ys[#ys + 1] = cols.max[i]
    end
  end
  local s = add_series(self, "columns", xs, ys, style)
  s.cols = cols
  return self
end

--- Point / peak labels {x =, y =, text = [, priority =]}; drawn only where they
-- overlap no other label (offset, or dropped; see data().labels).
function Plot:labels(list, style)
  for _, l in ipairs(list) do self.label_list[#self.label_list + 1] = l end
  self.label_style = style or self.label_style or {}
  return self
end

--- A line of text under the title (never over the data).
function Plot:note(text) self.notes[#self.notes + 1] = text; return self end

--- A colour bar right of the plot: {palette = C palette or list, lo, hi, label, log}.
function Plot:colorbar(cb) self.cb = cb; return self end

-- Every value of the series along axis k ("x" or "y").
local function values_of(p, k)
  local out = {}
  for _, s in ipairs(p.series) do
    for _, v in ipairs(s[k]) do out[#out + 1] = v end
    if s.kind == "bars" and k == "y" then out[#out + 1] = s.style.base or 0 end
  end
  for _, l in ipairs(p.label_list) do out[#out + 1] = l[k] end
  return out
end

-- How many marks of the series the box r covers, at the current mapping.
local function marks_in(p, r)
  local hits = 0
  for _, s in ipairs(p.series) do
    local xs, ys = s.x, s.y
    if s.kind == "points" or s.kind == "bars" then
      local rad = (s.style.radius or 4) + 1
      for i = 1, #xs do
        local px, py = p.sx(xs[i]), p.sy(ys[i])
        local box = { x = px - rad, y = py - rad, w = 2 * rad, h = 2 * rad }
        if s.kind == "bars" then
          local b = p.sy(s.style.base or 0)
          box = { x = px - 1, y = math.min(py, b), w = 2, h = math.abs(b - py) }
        end
        if marks.intersects(r, box) then hits = hits + 1 end
      end
    elseif s.kind == "columns" then
      for i = 1, #xs - 1, 2 do
        if marks.segment_hits(r, p.sx(xs[i]), p.sy(ys[i]), p.sx(xs[i + 1]), p.sy(ys[i + 1])) then hits = hits + 1 end
      end
    else
      for i = 1, #xs - 1 do
        local x2, y2 = p.sx(xs[i + 1]), p.sy(ys[i + 1])
        local ya = s.kind == "steps" and p.sy(ys[i]) or y2
        if marks.segment_hits(r, p.sx(xs[i]), p.sy(ys[i]), x2, ya) then hits = hits + 1 end
        if s.kind == "steps" and marks.segment_hits(r, x2, ya, x2, y2) then hits = hits + 1 end
      end
      if #xs == 1 and marks.segment_hits(r, p.sx(xs[1]), p.sy(ys[1]), p.sx(xs[1]), p.sy(ys[1])) then
        hits = hits + 1
      end
    end
  end
  return hits
end

local function legend_size(cv, items, size)
  cv:save()
  cv:font(nil, size)
  local w = 0
  for _, it in ipairs(items) do w = math.max(w, (cv:text_size(it.label))) end
  cv:restore()
  local line = size * 1.5
  return w + size * 2.6 + 8, #items * line + 6
end

local function draw_legend(cv, p, box, size)
  cv:rect(box.x, box.y, box.w, box.h, { fill = "#ffffffe6", stroke = "#808080", width = 0.75 })
  local line = size * 1.5
  for i, it in ipairs(p.legend_items) do
    local cy = box.y + 3 + (i - 0.5) * line
    local sx = box.x + 4
    local c = colors.ink(it.color)
    if it.kind == "points" then
      marks.draw(cv, it.marker, sx + size * 0.9, cy, size * 0.4, { fill = c, stroke = "black", width = 0.5 })
    elseif it.kind == "bars" then
      cv:rect(sx, cy - size * 0.45, size * 1.8, size * 0.9, { fill = c, stroke = "black", width = 0.5 })
    else
      cv:line(sx, cy, sx + size * 1.8, cy, { color = c, width = 2, dash = it.dash })
      if it.markers then marks.draw(cv, it.marker, sx + size * 0.9, cy, size * 0.35, { fill = c }) end
    end
    cv:text(sx + size * 2.2, cy, it.label, { valign = "middle", size = size, color = "black" })
  end
end

-- Place the labels: preferred above the point, then right, left, below; a label

local function place_labels(cv, p, size, taken)
  local drawn, dropped = {}, {}
  local order = {}
  for i, l in ipairs(p.label_list) do order[i] = l end
  table.sort(order, function(a, b) return (a.priority or 0) > (b.priority or 0) end)
  cv:save()
  cv:font(nil, size)
  local plot = p.plot_rect
  for _, l in ipairs(order) do
    local tw, th = cv:text_size(l.text)
    local px, py = p.sx(l.x), p.sy(l.y)
    -- next to the point only (a label far from its point is worse than none)
    local tries = {
      { px - tw / 2, py - th - 4 }, { px + 3, py - th - 3 }, { px - tw - 3, py - th - 3 },
      { px + 6, py - th / 2 }, { px - tw - 6, py - th / 2 },
    }
    local placed
    for _, t in ipairs(tries) do
      local box = { x = t[1], y = t[2], w = tw, h = th }
      local ok = box.x >= plot.x and box.y >= plot.y and box.x + box.w <= plot.x + plot.w
        and box.y + box.h <= plot.y + plot.h
      if ok then
        for _, o in ipairs(taken) do
          if marks.intersects(box, o) then ok = false; break end
        end
      end
      -- nor over the data (one pixel of slack so a peak's own tip may touch it)
      if ok and marks_in(p, { x = box.x + 1, y = box.y + 1, w = box.w - 2, h = box.h - 2 }) > 0 then
        ok = false
      end
      if ok then placed = box; break end
    end
    if placed then
      taken[#taken + 1] = placed
      drawn[#drawn + 1] = { text = l.text, x = l.x, y = l.y, box = placed }
    else
      dropped[#dropped + 1] = { text = l.text, x = l.x, y = l.y }
    end
  end
  cv:restore()
  return drawn, dropped
end

local function fmt_values(ax, v, digits)
  return numbers.format_number(v / ax.scale, digits or 6) .. (ax.unit and ax.unit ~= "" and (" " .. ax.unit) or "")
end

-- The notes under the title: the plot's own, then one per constant axis.
local function all_notes(self, xa, ya)
  local notes = {}
  for _, n in ipairs(self.notes) do notes[#notes + 1] = n end
  for _, pair in ipairs({ { "x", xa }, { "y", ya } }) do
    local name, ax = pair[1], pair[2]
    if ax.constant then
      notes[#notes + 1] = string.format("%s is constant: %s (spread %s)", ax.label or name,
        fmt_values(ax, ax.constant), ax.spread == 0 and "0" or fmt_values(ax, ax.spread, 2))
    end
  end
  return notes
end

-- The legend's box: inside, in the first corner (top right, top left, bottom
-- right, bottom left) whose box covers no mark; otherwise outside on the right,
-- taking the room from the plot (plot.w shrinks and the mapping is redone).
local function place_legend(self, plot, lw, lh, set_mapping)
  local o = self.opts
  if o.legend ~= "outside" then
    local m = 6
    local corners = {
      { "inside top right", plot.x + plot.w - lw - m, plot.y + m },
      { "inside top left", plot.x + m, plot.y + m },
      { "inside bottom right", plot.x + plot.w - lw - m, plot.y + plot.h - lh - m },
      { "inside bottom left", plot.x + m, plot.y + plot.h - lh - m },
    }
    local best, besthits
    for _, c in ipairs(corners) do
      local box = { x = c[2], y = c[3], w = lw, h = lh, where = c[1] }
      local hits = marks_in(self, { x = box.x - 3, y = box.y - 3, w = box.w + 6, h = box.h + 6 })
      if not besthits or hits < besthits then best, besthits = box, hits end
    end
    if besthits == 0 or o.legend == "inside" then return best end
  end
  plot.w = plot.w - lw - 12
  set_mapping()
  return { x = plot.x + plot.w + 10, y = plot.y, w = lw, h = lh, where = "outside right" }
end

-- Where everything goes: the plot rectangle (room for the title, notes, tick
-- labels, axis titles and a colour bar), the y ticks, the mapping, the legend.
local function geometry(self, cv, r, xa, ya, notes, size)
  local o = self.opts
  local g = { top = r.y + 6, title_h = o.title and size * 1.5 + 4 or 0 }
  local plot = { y = g.top + g.title_h + #notes * size * 1.3 + 4 }
  plot.h = r.y + r.h - plot.y - (size * 2 + (axis.title(xa) and size * 1.6 or 0)) - 4
  if #self.label_list > 0 and not ya.log and not ya.constant and (o.y or {}).hi == nil then
    -- headroom for labels above the highest points
    local room = size * 1.6
    ya.hi = ya.hi + (ya.hi - ya.lo) * room / math.max(plot.h - room, 1)
  end
  axis.place_ticks(ya, plot.h, 50, size + 3)
  g.ylabels = axis.labels(ya)
  cv:save()
  cv:font(nil, size)
  local ywidest = 0
  for _, s in ipairs(g.ylabels) do ywidest = math.max(ywidest, (cv:text_size(s))) end
  cv:restore()
  local left = ywidest + size * 0.8 + (axis.title(ya) and size * 1.8 or 0) + 4
  local right = size * 3 + (self.cb and 70 or 0)
  plot.x, plot.w = r.x + left, r.w - left - right
  local function set_mapping()
    self.sx = axis.mapper(xa, plot.x, plot.x + plot.w)
    self.sy = axis.mapper(ya, plot.y + plot.h, plot.y)
    self.plot_rect = plot
  end
  set_mapping()
  if #self.legend_items > 0 and o.legend ~= false then
    g.lw, g.lh = legend_size(cv, self.legend_items, size - 1)
    g.legend = place_legend(self, plot, g.lw, g.lh, set_mapping)
  end
  local xlabel_px
  if xa.labels then -- room for the widest label and a gap
    cv:save()
    cv:font(nil, size)
    xlabel_px = 0
    for _, s in pairs(xa.labels) do xlabel_px = math.max(xlabel_px, (cv:text_size(tostring(s)))) end
    cv:restore()
    xlabel_px = xlabel_px + size * 0.6
  end
  axis.place_ticks(xa, plot.w, 90, xlabel_px)
  g.xlabels = axis.labels(xa)
  g.plot = plot
  return g
end

-- Background, grid, frame, ticks and their labels (x labels that would touch
-- their left neighbour are skipped), axis titles, title and notes. Returns the
-- x labels drawn.
local function draw_frame(self, cv, r, g, xa, ya, notes, size)
  local o, plot = self.opts, g.plot
  local grid = o.grid == nil and "#e6e6e6" or o.grid
  cv:rect(plot.x, plot.y, plot.w, plot.h, "white")
  if grid then
    for _, v in ipairs(xa.ticks) do cv:line(self.sx(v), plot.y, self.sx(v), plot.y + plot.h, { color = grid, width = 1 }) end
    for _, v in ipairs(ya.ticks) do cv:line(plot.x, self.sy(v), plot.x + plot.w, self.sy(v), { color = grid, width = 1 }) end
  end
  cv:rect(plot.x, plot.y, plot.w, plot.h, { stroke = "black", width = 1 })
  local tick = size * 0.35
  cv:font(nil, size)
  local right_end, xdrawn = -math.huge, {}
  for i, v in ipairs(xa.ticks) do
    local px = self.sx(v)
    cv:line(px, plot.y + plot.h, px, plot.y + plot.h + tick, "black")
    local tw = cv:text_size(g.xlabels[i])
    if px - tw / 2 > right_end + size * 0.4 then
      cv:text(px, plot.y + plot.h + tick + 2, g.xlabels[i], { align = "center", valign = "top", size = size })
      right_end = px + tw / 2
      xdrawn[#xdrawn + 1] = g.xlabels[i]
    end
  end
  for i, v in ipairs(ya.ticks) do
    local py = self.sy(v)
    cv:line(plot.x - tick, py, plot.x, py, "black")
    cv:text(plot.x - tick - 3, py, g.ylabels[i], { align = "right", valign = "middle", size = size })
  end
  local xt, yt = axis.title(xa), axis.title(ya)
  if xt then
    cv:text(plot.x + plot.w / 2, r.y + r.h - 4, xt, { align = "center", valign = "bottom", size = size })
  end
  if yt then
    -- along the plot's height (a little past its ends): smaller type, then cut short with an
    -- ellipsis, rather than running into the legend above or the axis below
    local span, ysize, txt = plot.h + 2 * size, size, yt
    local function width(t, z) return (cv:text_size(t, z)) end
    while ysize > 7 and width(txt, ysize) > span do ysize = ysize - 1 end
    if width(txt, ysize) > span then
      repeat
        txt = txt:sub(1, (utf8.offset(txt, -1) or 2) - 1)
      until #txt <= 1 or width(txt .. "\u{2026}", ysize) <= span
      txt = txt .. "\u{2026}"
    end
    g.ytitle, g.ytitle_size = txt, ysize
    cv:text(r.x + 4, plot.y + plot.h / 2, txt, { align = "center", valign = "top", size = ysize, angle = -90 })
  end
  if o.title then
    cv:text(r.x + r.w / 2, g.top, o.title, { align = "center", valign = "top", size = size + 3, bold = true })
  end
  for i, n in ipairs(notes) do
    cv:text(r.x + r.w / 2, g.top + g.title_h + (i - 1) * size * 1.3, n,
      { align = "center", valign = "top", size = size - 1, color = "#404040" })
  end
  return xdrawn
end

-- Bars: the width given, else 0.8 of the smallest spacing of the x values.
local function bar_width(s, xa)
  local bw = s.style.width
  if bw then return bw end
  bw = math.huge
  for i = 2, #s.x do bw = math.min(bw, math.abs(s.x[i] - s.x[i - 1])) end
  if bw == math.huge or bw == 0 then bw = (xa.hi - xa.lo) / 20 end
  return bw * 0.8
end

-- Reduced columns: one stroke from min to max per column (at least a pixel
-- tall) in one packed call, and a line through the means.
local function draw_columns(self, cv, s, c)
  local cols, st = s.cols, s.style
  local n = #cols.count
  local pk = require("retrace.canvas").pack(4)
  local mean = {}
  for i = 1, n do
    if cols.count[i] > 0 then
      local px = self.sx(cols.x0 + (i - 0.5) * (cols.x1 - cols.x0) / n)
      local y1, y2 = self.sy(cols.min[i]), self.sy(cols.max[i])
      if math.abs(y1 - y2) < 1 then y1 = y1 + 0.5; y2 = y2 - 0.5 end
      pk:push(px, y1, px, y2)
      mean[#mean + 1] = px
      mean[#mean + 1] = self.sy(cols.mean[i])
    end
  end
  if #pk > 0 then cv:segments(pk, { color = c, width = st.width or 1 }) end
  if #mean >= 4 and st.mean_color ~= false then
    cv:polyline(mean, { color = colors.ink(st.mean_color or "black"), width = 1 })
  end
end

-- Lines and step lines, with optional markers at the points.
local function draw_line(self, cv, s, c)
  local st = s.style
  local pts = {}
  for i = 1, #s.x do
    local px, py = self.sx(s.x[i]), self.sy(s.y[i])
    if s.kind == "steps" and i > 1 then
      pts[#pts + 1] = px; pts[#pts + 1] = self.sy(s.y[i - 1])
    end
    pts[#pts + 1] = px; pts[#pts + 1] = py
  end
  if s.kind == "steps" and st.x_end and #s.x > 0 then
    pts[#pts + 1] = self.sx(st.x_end); pts[#pts + 1] = self.sy(s.y[#s.y])
  end
  if #pts >= 4 then cv:polyline(pts, { color = c, width = st.width or 1.5, dash = st.dash }) end
  if st.markers then
    for i = 1, #s.x do
      marks.draw(cv, st.marker, self.sx(s.x[i]), self.sy(s.y[i]), st.markers, { fill = c })
    end
  end
end

-- Every series, in the order added, clipped to the plot area.
local function draw_series(self, cv, plot, xa)
  cv:save()
  cv:clip_rect(plot.x, plot.y, plot.w, plot.h)
  for _, s in ipairs(self.series) do
    local c = colors.ink(s.color)
    local st = s.style
    if s.kind == "points" then
      for i = 1, #s.x do
        marks.draw(cv, st.marker or "circle", self.sx(s.x[i]), self.sy(s.y[i]), st.radius or 4,
          { fill = c, stroke = st.stroke or "black", width = 0.5 })
      end
    elseif s.kind == "bars" then
      local bw = bar_width(s, xa)
      local base = self.sy(st.base or 0)
      for i = 1, #s.x do
        local x1, x2 = self.sx(s.x[i] - bw / 2), self.sx(s.x[i] + bw / 2)
        local y = self.sy(s.y[i])
        cv:rect(x1, math.min(y, base), math.max(1, x2 - x1), math.abs(base - y),
          { fill = c, stroke = st.stroke, width = 0.5 })
      end
    elseif s.kind == "columns" then
      draw_columns(self, cv, s, c)
    else
      draw_line(self, cv, s, c)
    end
  end
  cv:restore()
end

-- The colour bar right of the plot (and of an outside legend), with ticks and a
-- title turned along it. Returns where it went.
local function draw_colorbar(self, cv, g, size)
  local cb, plot, legend = self.cb, g.plot, g.legend
  local pal = cb.palette
  if type(pal) == "table" then pal = colors.palette(pal) end
  local bx = plot.x + plot.w + (legend and legend.where == "outside right" and g.lw + 16 or 14)
  local by, bw, bh = plot.y, 14, plot.h
  local n = #pal
  local grid = require("retrace.canvas").grid(1, n)
  for i = 0, n - 1 do grid:set(0, n - 1 - i, i) end
  cv:grid(grid, pal, bx, by, bw, bh)
  cv:rect(bx, by, bw, bh, { stroke = "black", width = 0.5 })
  local cax = axis.resolve({ lo = cb.lo, hi = cb.hi, log = cb.log, pad = 0 }, { cb.lo, cb.hi })
  cax.lo, cax.hi = cb.lo, cb.hi
  axis.place_ticks(cax, bh, 40)
  local cl = axis.labels(cax)
  local cmap = axis.mapper(cax, by + bh, by)
  cv:font(nil, size - 2)
  local widest = 0
  for i, v in ipairs(cax.ticks) do
    cv:line(bx + bw, cmap(v), bx + bw + 3, cmap(v), "black")
    cv:text(bx + bw + 5, cmap(v), cl[i], { valign = "middle", size = size - 2 })
    widest = math.max(widest, (cv:text_size(cl[i])))
  end
  if cb.label then
    cv:text(bx + bw + 10 + widest, by + bh / 2, cb.label, { align = "center", valign = "top", size = size - 1,
      angle = -90 })
  end
  return { x = bx, y = by, w = bw, h = bh, lo = cb.lo, hi = cb.hi, label = cb.label, ticks = cax.ticks }
end

local function axis_data(ax, labels)
  return { lo = ax.lo, hi = ax.hi, log = ax.log, scale = ax.scale, unit = ax.unit, label = ax.label,
           title = axis.title(ax), ticks = ax.ticks, tick_labels = labels, constant = ax.constant,
           spread = ax.spread }
end

local function series_data(self)
  local series = {}
  for i, s in ipairs(self.series) do
    local e = { kind = s.kind, label = s.label, color = colors.ink(s.color) }
    if s.cols then e.columns = s.cols else e.x, e.y = s.x, s.y end
    if s.style.names then e.names = s.style.names end
    series[i] = e
  end
  return series
end

--- Draw the plot into rect r of canvas cv; returns the plot (p:data() then tells
-- where everything went).
function Plot:draw(cv, r)
  local o = self.opts
  local size = o.size or 11
  local xa = axis.resolve(o.x or {}, values_of(self, "x"))
  local ya = axis.resolve(o.y or {}, values_of(self, "y"))
  local notes = all_notes(self, xa, ya)
  local g = geometry(self, cv, r, xa, ya, notes, size)
  cv:save()
  local xdrawn = draw_frame(self, cv, r, g, xa, ya, notes, size)
  draw_series(self, cv, g.plot, xa)
  local ldrawn, ldropped = place_labels(cv, self, size - 1, { g.legend })
  for _, l in ipairs(ldrawn) do
    cv:text(l.box.x, l.box.y, l.text, { valign = "top", size = size - 1,
      color = (self.label_style or {}).color or "black" })
  end
  if g.legend then draw_legend(cv, self, g.legend, size - 1) end
  local cbd = self.cb and draw_colorbar(self, cv, g, size)
  cv:restore()
  local plot, legend = g.plot, g.legend
  self.result = {
    title = o.title, notes = notes,
    plot = { x = plot.x, y = plot.y, w = plot.w, h = plot.h },
    axes = { x = axis_data(xa, g.xlabels), y = axis_data(ya, g.ylabels) },
    y_title = g.ytitle and { text = g.ytitle, size = g.ytitle_size } or nil,
    series = series_data(self),
    legend = legend and { x = legend.x, y = legend.y, w = legend.w, h = legend.h, where = legend.where,
                          items = self.legend_items } or nil,
    labels = { drawn = ldrawn, dropped = ldropped }, colorbar = cbd or nil, xlabels_drawn = xdrawn,
  }
  return self
end

--- What the last draw showed and where (see the header); nil before draw.
function Plot:data() return self.result end

--- A plot as a display (retrace.display protocol): draw(cv, rect) and data().
function Plot:display() return self end

return M
