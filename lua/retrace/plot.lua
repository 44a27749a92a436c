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

local M = {}

-- ---- numbers ---------------------------------------------------------------------

-- v rounded to `digits` significant digits, as a string without trailing zeros.
local function sig(v, digits)
  local s = string.format("%." .. digits .. "g", v)
  local mant, exp = s:match("^([^e]*)e([-+]%d+)$")
  if mant then
    if mant:find("%.") then mant = mant:gsub("0+$", ""):gsub("%.$", "") end
    local e = tonumber(exp)
    return mant .. "e" .. e
  end
  if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
  return s
end

--- v with at most `digits` significant digits (default 6), trailing zeros dropped;
-- plain notation from 1e-4 to 1e6 (whole numbers to 1e15), otherwise "1.5e7", "6e-5".
function M.format_number(v, digits)
  digits = digits or 6
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == 0 then return "0" end
  local a = math.abs(v)
  if a >= 1e-4 and a < 1e6 then
    -- %g switches to exponents by its own rule; print plain with enough decimals
    local e = math.floor(math.log(a, 10))
    local r = tonumber(string.format("%." .. digits .. "g", v))
    if r == 0 then return "0" end
    local dec = math.max(0, digits - 1 - e)
    local s = string.format("%." .. dec .. "f", r)
    if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
    if s == "-0" then s = "0" end
    return s
  end
  if a >= 1e6 and a < 1e15 and v == math.floor(v) and digits >= 15 then
    return string.format("%d", math.floor(v))
  end
  return sig(v, digits)
end

--- Labels for a list of tick values: the fewest significant digits (1..15) with
-- which every label reads back within 1e-6 of the tick step and no two adjacent
-- labels are equal.
function M.tick_labels(values, step)
  local n = #values
  if n == 0 then return {} end
  if not step then
    step = math.huge
    for i = 2, n do step = math.min(step, math.abs(values[i] - values[i - 1])) end
    if step == math.huge or step == 0 then step = math.max(math.abs(values[1]), 1e-300) end
  end
  for digits = 1, 15 do
    local out, ok = {}, true
    for i, v in ipairs(values) do
      local s = M.format_number(v, digits)
      out[i] = s
      if math.abs((tonumber(s) or math.huge) - v) > step * 1e-6 then ok = false; break end
      if i > 1 and s == out[i - 1] then ok = false; break end
    end
    if ok then return out end
  end
  local out = {}
  for i, v in ipairs(values) do out[i] = M.format_number(v, 15) end
  return out
end

--- A signed term of a formula: "- 1.05 x", "+ 2 x^2"; first = true for the
-- leading term ("-1.05 x", "2 x^2"). term may be "" for a constant. digits: 4.
function M.format_signed_term(c, term, first, digits)
  local num = M.format_number(math.abs(c), digits or 4)
  local body = (term and term ~= "") and (num .. " " .. term) or num
  if first then return (c < 0 and "-" or "") .. body end
  return (c < 0 and "- " or "+ ") .. body
end

-- ---- ticks ------------------------------------------------------------------------

--- About n "nice" tick values (steps of 1, 2 or 5 times a power of ten) in [lo, hi];
-- also returns the step.
function M.ticks(lo, hi, n)
  n = n or 5
  if hi < lo then lo, hi = hi, lo end
  if hi == lo then return { lo }, 0 end
  local raw = (hi - lo) / math.max(n, 1)
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local f = raw / mag
  local step = (f < 1.5 and 1 or f < 3 and 2 or f < 7 and 5 or 10) * mag
  local out = {}
  for k = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9) do
    local v = k * step
    if math.abs(v) < step * 1e-9 then v = 0 end
    out[#out + 1] = v
  end
  return out, step
end

--- The powers of ten in [lo, hi] (lo > 0).
function M.log_ticks(lo, hi)
  if not (lo > 0) then error("log axis: lower end " .. tostring(lo) .. " must be positive", 2) end
  local out = {}
  for e = math.ceil(math.log(lo, 10) - 1e-9), math.floor(math.log(hi, 10) + 1e-9) do
    out[#out + 1] = 10.0 ^ e
  end
  return out
end

-- ---- axes ---------------------------------------------------------------------------

local TIME_UNITS = { { 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" } }

-- Resolve an axis: range, log or not, scale (for time), constant; from the options and values.
local function resolve_axis(o, values)
  local ax = { label = o.label, unit = o.unit, scale = 1, labels = o.labels }
  local lo, hi = math.huge, -math.huge
  local positive = true
  for _, v in ipairs(values) do
    if v == v and v > -math.huge and v < math.huge then
      if v < lo then lo = v end
      if v > hi then hi = v end
      if v <= 0 then positive = false end
    end
  end
  local empty = lo > hi
  if empty then lo, hi, positive = 0, 1, false end
  local log = o.log
  if log == "auto" then
    log = positive and hi / lo >= 1000 and o.lo == nil
  end
  if log and not positive and not (o.lo and o.lo > 0) then log = false end
  ax.log = log and true or false
  local spread = hi - lo
  local mag = math.max(math.abs(lo), math.abs(hi))
  if not empty and o.lo == nil and o.hi == nil and spread <= 1e-9 * mag then
    -- a constant, up to rounding: one tick at the value
    local c = (lo + hi) / 2
    if mag == 0 then c = 0 end
    ax.constant = c
    ax.spread = spread
    local d = c == 0 and 1 or math.abs(c) * 0.5
    ax.lo, ax.hi = c - d, c + d
    if ax.log then ax.lo, ax.hi = c / 10, c * 10 end
    ax.ticks = { c }
  else
    if o.zero and not ax.log then lo, hi = math.min(lo, 0), math.max(hi, 0) end
    if ax.log then
      -- padded in log space; widened to whole decades when fewer than two
      -- powers of ten would fall inside
      local la, lb = math.log(o.lo or lo, 10), math.log(o.hi or hi, 10)
      local pad = math.max((lb - la) * (o.pad or 0.05), 0.05)
      if o.lo == nil then la = la - pad end
      if o.hi == nil then lb = lb + pad end
      if math.floor(lb + 1e-9) - math.ceil(la - 1e-9) < 1 then
        la, lb = math.floor(la + 1e-9), math.ceil(lb - 1e-9)
        if lb <= la then lb = la + 1 end
      end
      ax.lo, ax.hi = 10.0 ^ la, 10.0 ^ lb
    else
      local pad = (hi - lo) * (o.pad or 0.05)
      if hi == lo then pad = hi == 0 and 1 or math.abs(hi) * 0.1 end
      ax.lo = o.lo or ((o.zero and lo == 0) and 0 or lo - pad)
      ax.hi = o.hi or hi + pad
      if ax.hi == ax.lo then ax.hi = ax.lo + 1 end
    end
  end
  if o.time and not ax.log then
    local span = math.max(math.abs(ax.hi), math.abs(ax.lo), ax.hi - ax.lo)
    for _, u in ipairs(TIME_UNITS) do
      ax.scale, ax.unit = u[1], u[2]
      if span >= 2 * u[1] then break end
    end
  end
  return ax
end

local function axis_ticks(ax, npix, per)
  if ax.ticks then return end
  if ax.labels then
    local t = {}
    for v in pairs(ax.labels) do if v >= ax.lo and v <= ax.hi then t[#t + 1] = v end end
    table.sort(t)
    ax.ticks = t
    return
  end
  if ax.log then
    ax.ticks = M.log_ticks(ax.lo, ax.hi)
    return
  end
  local t, step = M.ticks(ax.lo / ax.scale, ax.hi / ax.scale, math.max(2, math.floor(npix / per)))
  for i, v in ipairs(t) do t[i] = v * ax.scale end
  ax.ticks, ax.step = t, step and step * ax.scale
end

local function axis_tick_labels(ax)
  if ax.labels then
    local out = {}
    for i, v in ipairs(ax.ticks) do out[i] = tostring(ax.labels[v]) end
    return out
  end
  local vals = {}
  for i, v in ipairs(ax.ticks) do vals[i] = v / ax.scale end
  if ax.constant then
    return { M.format_number(ax.constant / ax.scale, 6) }
  end
  if ax.log then
    local out = {}
    for i, v in ipairs(vals) do
      local e = math.floor(math.log(v, 10) + 0.5)
      out[i] = (e >= -3 and e <= 5) and M.format_number(v) or ("1e" .. e)
    end
    return out
  end
  return M.tick_labels(vals, ax.step and ax.step / ax.scale)
end

local function axis_title(ax)
  if not ax.label and not ax.unit then return nil end
  if ax.unit and ax.unit ~= "" then return (ax.label or "") .. " (" .. ax.unit .. ")" end
  return ax.label
end

-- Data -> pixel along one axis.
local function mapper(ax, from, to)
  if ax.log then
    local a, b = math.log(ax.lo, 10), math.log(ax.hi, 10)
    return function(v)
      if v <= 0 then return from end
      return from + (math.log(v, 10) - a) / (b - a) * (to - from)
    end
  end
  local lo, hi = ax.lo, ax.hi
  return function(v) return from + (v - lo) / (hi - lo) * (to - from) end
end

--- The pixel of data point (x, y) from a plot's data() table.
function M.to_pixel(d, x, y)
  local p = d.plot
  local fx = mapper(d.axes.x, p.x, p.x + p.w)
  local fy = mapper(d.axes.y, p.y + p.h, p.y)
  return fx(x), fy(y)
end

-- ---- the plot object -------------------------------------------------------------------

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
                                            marker = style.marker, dash = style.dash }
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

local function intersects(a, b)
  return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
end

-- Does the segment (x1, y1)-(x2, y2) cross rectangle r? (Liang-Barsky clipping)
local function segment_hits(r, x1, y1, x2, y2)
  local t0, t1 = 0, 1
  local dx, dy = x2 - x1, y2 - y1
  local function clip(pq, qq)
    if pq == 0 then return qq >= 0 end
    local t = qq / pq
    if pq < 0 then
      if t > t1 then return false end
      if t > t0 then t0 = t end
    else
      if t < t0 then return false end
      if t < t1 then t1 = t end
    end
    return true
  end
  return clip(-dx, x1 - r.x) and clip(dx, r.x + r.w - x1) and clip(-dy, y1 - r.y)
     and clip(dy, r.y + r.h - y1)
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
        if intersects(r, box) then hits = hits + 1 end
      end
    elseif s.kind == "columns" then
      for i = 1, #xs - 1, 2 do
        if segment_hits(r, p.sx(xs[i]), p.sy(ys[i]), p.sx(xs[i + 1]), p.sy(ys[i + 1])) then hits = hits + 1 end
      end
    else
      for i = 1, #xs - 1 do
        local x2, y2 = p.sx(xs[i + 1]), p.sy(ys[i + 1])
        local ya = s.kind == "steps" and p.sy(ys[i]) or y2
        if segment_hits(r, p.sx(xs[i]), p.sy(ys[i]), x2, ya) then hits = hits + 1 end
        if s.kind == "steps" and segment_hits(r, x2, ya, x2, y2) then hits = hits + 1 end
      end
      if #xs == 1 and segment_hits(r, p.sx(xs[1]), p.sy(ys[1]), p.sx(xs[1]), p.sy(ys[1])) then
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

local MARKERS = { "circle", "square", "triangle", "diamond", "down", "cross" }
M.markers = MARKERS

-- A marker of kind m at (x, y), half-size r.
local function marker(cv, m, x, y, r, style)
  if m == "square" then
    cv:rect(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8, style)
  elseif m == "triangle" then
    cv:polygon({ x, y - r * 1.15, x + r, y + r * 0.7, x - r, y + r * 0.7 }, style)
  elseif m == "down" then
    cv:polygon({ x, y + r * 1.15, x + r, y - r * 0.7, x - r, y - r * 0.7 }, style)
  elseif m == "diamond" then
    cv:polygon({ x, y - r * 1.2, x + r * 1.2, y, x, y + r * 1.2, x - r * 1.2, y }, style)
  elseif m == "cross" then
    local c = type(style) == "table" and (style.fill or style.color) or style
    cv:line(x - r, y - r, x + r, y + r, { color = c, width = 2 })
    cv:line(x - r, y + r, x + r, y - r, { color = c, width = 2 })
  else
    cv:circle(x, y, r, style)
  end
end
M.marker = marker

local function draw_legend(cv, p, box, size)
  cv:rect(box.x, box.y, box.w, box.h, { fill = "#ffffffe6", stroke = "#808080", width = 0.75 })
  local line = size * 1.5
  for i, it in ipairs(p.legend_items) do
    local cy = box.y + 3 + (i - 0.5) * line
    local sx = box.x + 4
    local c = colors.ink(it.color)
    if it.kind == "points" then
      marker(cv, it.marker, sx + size * 0.9, cy, size * 0.4, { fill = c, stroke = "black", width = 0.5 })
    elseif it.kind == "bars" then
      cv:rect(sx, cy - size * 0.45, size * 1.8, size * 0.9, { fill = c, stroke = "black", width = 0.5 })
    else
      cv:line(sx, cy, sx + size * 1.8, cy, { color = c, width = 2, dash = it.dash })
    end
    cv:text(sx + size * 2.2, cy, it.label, { valign = "middle", size = size, color = "black" })
  end
end

-- Place the labels: preferred above the point, then right, left, below; a label
-- that would overlap one already placed (or the legend) is dropped.
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
    local tries = {
      { px - tw / 2, py - th - 5 }, { px + 6, py - th / 2 }, { px - tw - 6, py - th / 2 },
      { px - tw / 2, py + 5 }, { px + 6, py - th - 4 }, { px - tw - 6, py - th - 4 },
    }
    local placed
    for _, t in ipairs(tries) do
      local box = { x = t[1], y = t[2], w = tw, h = th }
      local ok = box.x >= plot.x and box.y >= plot.y and box.x + box.w <= plot.x + plot.w
        and box.y + box.h <= plot.y + plot.h
      if ok then
        for _, o in ipairs(taken) do
          if intersects(box, o) then ok = false; break end
        end
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

local function fmt_values(ax, v)
  return M.format_number(v / ax.scale, 6) .. (ax.unit and ax.unit ~= "" and (" " .. ax.unit) or "")
end

--- Draw the plot into rect r of canvas cv; returns the plot (p:data() then tells
-- where everything went).
function Plot:draw(cv, r)
  local o = self.opts
  local size = o.size or 11
  local xa = resolve_axis(o.x or {}, values_of(self, "x"))
  local ya = resolve_axis(o.y or {}, values_of(self, "y"))
  self.ax, self.ay = xa, ya
  local notes = {}
  for _, n in ipairs(self.notes) do notes[#notes + 1] = n end
  for _, pair in ipairs({ { "x", xa }, { "y", ya } }) do
    local name, ax = pair[1], pair[2]
    if ax.constant then
      notes[#notes + 1] = string.format("%s is constant: %s (spread %s)", ax.label or name,
        fmt_values(ax, ax.constant), M.format_number(ax.spread, 2))
    end
  end
  -- vertical space: title, notes; horizontal: y tick labels, y title, colour bar
  local top = r.y + 6
  local title_h = o.title and size * 1.5 + 4 or 0
  local note_h = #notes * (size * 1.3)
  cv:save()
  cv:font(nil, size)
  local plot = { y = top + title_h + note_h + 4 }
  plot.h = r.y + r.h - plot.y - (size * 2 + (axis_title(xa) and size * 1.6 or 0)) - 4
  axis_ticks(ya, plot.h, 40)
  local ylabels = axis_tick_labels(ya)
  local ywidest = 0
  for _, s in ipairs(ylabels) do ywidest = math.max(ywidest, (cv:text_size(s))) end
  cv:restore()
  local left = ywidest + size * 0.8 + (axis_title(ya) and size * 1.8 or 0) + 4
  local right = size * 3
  if self.cb then right = right + 70 end
  plot.x, plot.w = r.x + left, r.w - left - right
  -- the legend: inside in a corner that covers no mark, else outside right
  local legend
  local lw, lh
  if #self.legend_items > 0 and o.legend ~= false then
    lw, lh = legend_size(cv, self.legend_items, size - 1)
  end
  local function set_mapping()
    self.sx = mapper(xa, plot.x, plot.x + plot.w)
    self.sy = mapper(ya, plot.y + plot.h, plot.y)
    self.plot_rect = plot
  end
  set_mapping()
  if lw then
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
      if besthits == 0 or o.legend == "inside" then legend = best end
    end
    if not legend then
      plot.w = plot.w - lw - 12
      set_mapping()
      legend = { x = plot.x + plot.w + 10, y = plot.y, w = lw, h = lh, where = "outside right" }
    end
  end
  axis_ticks(xa, plot.w, 90)
  local xlabels = axis_tick_labels(xa)
  -- frame, grid, ticks, labels
  local grid = o.grid == nil and "#e6e6e6" or o.grid
  cv:save()
  cv:rect(plot.x, plot.y, plot.w, plot.h, "white")
  if grid then
    for _, v in ipairs(xa.ticks) do cv:line(self.sx(v), plot.y, self.sx(v), plot.y + plot.h, { color = grid, width = 1 }) end
    for _, v in ipairs(ya.ticks) do cv:line(plot.x, self.sy(v), plot.x + plot.w, self.sy(v), { color = grid, width = 1 }) end
  end
  cv:rect(plot.x, plot.y, plot.w, plot.h, { stroke = "black", width = 1 })
  local tick = size * 0.35
  cv:font(nil, size)
  cv:color("black")
  local right_end = -math.huge
  local xdrawn = {}
  for i, v in ipairs(xa.ticks) do
    local px = self.sx(v)
    cv:line(px, plot.y + plot.h, px, plot.y + plot.h + tick, "black")
    local tw = cv:text_size(xlabels[i])
    if px - tw / 2 > right_end + size * 0.4 then
      cv:text(px, plot.y + plot.h + tick + 2, xlabels[i], { align = "center", valign = "top", size = size })
      right_end = px + tw / 2
      xdrawn[#xdrawn + 1] = xlabels[i]
    end
  end
  for i, v in ipairs(ya.ticks) do
    local py = self.sy(v)
    cv:line(plot.x - tick, py, plot.x, py, "black")
    cv:text(plot.x - tick - 3, py, ylabels[i], { align = "right", valign = "middle", size = size })
  end
  local xt, yt = axis_title(xa), axis_title(ya)
  if xt then
    cv:text(plot.x + plot.w / 2, r.y + r.h - 4, xt, { align = "center", valign = "bottom", size = size })
  end
  if yt then
    cv:text(r.x + 4, plot.y + plot.h / 2, yt, { align = "center", valign = "top", size = size, angle = -90 })
  end
  if o.title then
    cv:text(r.x + r.w / 2, top, o.title, { align = "center", valign = "top", size = size + 3, bold = true })
  end
  for i, n in ipairs(notes) do
    cv:text(r.x + r.w / 2, top + title_h + (i - 1) * size * 1.3, n,
      { align = "center", valign = "top", size = size - 1, color = "#404040" })
  end
  -- the series, clipped to the plot area
  cv:save()
  cv:clip_rect(plot.x, plot.y, plot.w, plot.h)
  for k, s in ipairs(self.series) do
    local c = colors.ink(s.color)
    local st = s.style
    if s.kind == "points" then
      local m = st.marker or "circle"
      for i = 1, #s.x do
        marker(cv, m, self.sx(s.x[i]), self.sy(s.y[i]), st.radius or 4,
          { fill = c, stroke = st.stroke or "black", width = 0.5 })
      end
    elseif s.kind == "bars" then
      local bw = st.width
      if not bw then
        bw = math.huge
        for i = 2, #s.x do bw = math.min(bw, math.abs(s.x[i] - s.x[i - 1])) end
        if bw == math.huge or bw == 0 then bw = (xa.hi - xa.lo) / 20 end
        bw = bw * 0.8
      end
      local base = self.sy(st.base or 0)
      for i = 1, #s.x do
        local x1, x2 = self.sx(s.x[i] - bw / 2), self.sx(s.x[i] + bw / 2)
        local y = self.sy(s.y[i])
        cv:rect(x1, math.min(y, base), math.max(1, x2 - x1), math.abs(base - y),
          { fill = c, stroke = st.stroke, width = 0.5 })
      end
    elseif s.kind == "columns" then
      local cols = s.cols
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
    else
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
          marker(cv, st.marker, self.sx(s.x[i]), self.sy(s.y[i]), st.markers, { fill = c })
        end
      end
    end
    s.index = k
  end
  cv:restore()
  -- labels, legend, colour bar
  local taken = {}
  if legend then taken[1] = legend end
  local ldrawn, ldropped = place_labels(cv, self, size - 1, taken)
  for _, l in ipairs(ldrawn) do
    cv:text(l.box.x, l.box.y, l.text, { valign = "top", size = size - 1,
      color = (self.label_style or {}).color or "black" })
  end
  if legend then draw_legend(cv, self, legend, size - 1) end
  local cbd
  if self.cb then
    local cb = self.cb
    local pal = cb.palette
    if type(pal) == "table" then pal = colors.palette(pal) end
    local bx, by, bw, bh = plot.x + plot.w + (legend and legend.where == "outside right" and lw + 16 or 14),
      plot.y, 14, plot.h
    local n = #pal
    local g = require("retrace.canvas").grid(1, n)
    for i = 0, n - 1 do g:set(0, n - 1 - i, i) end
    cv:grid(g, pal, bx, by, bw, bh)
    cv:rect(bx, by, bw, bh, { stroke = "black", width = 0.5 })
    local cax = resolve_axis({ lo = cb.lo, hi = cb.hi, log = cb.log, pad = 0 }, { cb.lo, cb.hi })
    cax.lo, cax.hi = cb.lo, cb.hi
    axis_ticks(cax, bh, 40)
    local cl = axis_tick_labels(cax)
    local cmap = mapper(cax, by + bh, by)
    for i, v in ipairs(cax.ticks) do
      cv:line(bx + bw, cmap(v), bx + bw + 3, cmap(v), "black")
      cv:text(bx + bw + 5, cmap(v), cl[i], { valign = "middle", size = size - 2 })
    end
    if cb.label then
      cv:text(bx + bw + 50, by + bh / 2, cb.label, { align = "center", valign = "top", size = size - 1, angle = -90 })
    end
    cbd = { x = bx, y = by, w = bw, h = bh, lo = cb.lo, hi = cb.hi, label = cb.label, ticks = cax.ticks }
  end
  cv:restore()
  -- what data() reports
  local series = {}
  for i, s in ipairs(self.series) do
    local e = { kind = s.kind, label = s.label, color = colors.ink(s.color) }
    if s.cols then
      e.columns = s.cols
    else
      e.x, e.y = s.x, s.y
    end
    if s.style.names then e.names = s.style.names end
    series[i] = e
  end
  local function axis_data(ax, labels)
    return { lo = ax.lo, hi = ax.hi, log = ax.log, scale = ax.scale, unit = ax.unit, label = ax.label,
             title = axis_title(ax), ticks = ax.ticks, tick_labels = labels, constant = ax.constant,
             spread = ax.spread }
  end
  self.result = {
    title = o.title, notes = notes,
    plot = { x = plot.x, y = plot.y, w = plot.w, h = plot.h },
    axes = { x = axis_data(xa, xlabels), y = axis_data(ya, ylabels) },
    series = series, legend = legend and { x = legend.x, y = legend.y, w = legend.w, h = legend.h,
      where = legend.where, items = self.legend_items } or nil,
    labels = { drawn = ldrawn, dropped = ldropped }, colorbar = cbd, xlabels_drawn = xdrawn,
  }
  return self
end

--- What the last draw showed and where (see the header); nil before draw.
function Plot:data() return self.result end

--- A plot as a display (retrace.display protocol): draw(cv, rect) and data().
function Plot:display() return self end

return M
