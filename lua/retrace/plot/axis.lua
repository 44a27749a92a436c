--- retrace.plot.axis: the scales of retrace.plot: nice ticks (1-2-5, powers of
-- ten), the resolution of an axis from its options and values (padding, log
-- "auto", constants, time units), tick labels and the data -> pixel mapping.
--
--   axis.ticks(lo, hi [, n]) -> values, step      axis.log_ticks(lo, hi [, fine])
--   axis.resolve(opts, values) -> ax               axis.place_ticks(ax, pixels, per)
--   axis.labels(ax) -> tick labels                 axis.title(ax) -> "label (unit)"
--   axis.mapper(ax, from, to) -> function(v)      axis.to_pixel(data, x, y)
local numbers = require "retrace.numbers"

local M = {}

-- Log ticks with 2 and 5 times the powers of ten added when [lo, hi] spans fewer
-- than three decades (plot.log_ticks(lo, hi, true)).
local function log_ticks_fine(lo, hi)
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

--- The powers of ten in [lo, hi] (lo > 0); fine = true adds 2 and 5 times them
-- when the range spans fewer than three decades.
function M.log_ticks(lo, hi, fine)
  if not (lo > 0) then error("log axis: lower end " .. tostring(lo) .. " must be positive", 2) end
  if fine then return log_ticks_fine(lo, hi) end
  local out = {}
  for e = math.ceil(math.log(lo, 10) - 1e-9), math.floor(math.log(hi, 10) + 1e-9) do
    out[#out + 1] = 10.0 ^ e
  end
  return out
end

local TIME_UNITS = { { 1, "s" }, { 1e-3, "ms" }, { 1e-6, "us" }, { 1e-9, "ns" } }

-- Resolve an axis: range, log or not, scale (for time), constant; from the options and values.
function M.resolve(o, values)
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

function M.place_ticks(ax, npix, per, label_px)
  if ax.ticks then return end
  if ax.labels then
    local t = {}
    for v in pairs(ax.labels) do if v >= ax.lo and v <= ax.hi then t[#t + 1] = v end end
    table.sort(t)
    -- labels that would not get label_px pixels each: every k-th is kept, from the first
    local room = math.max(1, math.floor(npix / (label_px or 1)))
    if #t > room then
      local k, kept = math.ceil(#t / room), {}
      for i = 1, #t, k do kept[#kept + 1] = t[i] end
      t = kept
    end
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

function M.labels(ax)
  if ax.labels then
    local out = {}
    for i, v in ipairs(ax.ticks) do out[i] = tostring(ax.labels[v]) end
    return out
  end
  local vals = {}
  for i, v in ipairs(ax.ticks) do vals[i] = v / ax.scale end
  if ax.constant then
    return { numbers.format_number(ax.constant / ax.scale, 6) }
  end
  if ax.log then
    local out = {}
    for i, v in ipairs(vals) do
      local e = math.floor(math.log(v, 10) + 0.5)
      out[i] = (e >= -3 and e <= 5) and numbers.format_number(v) or ("1e" .. e)
    end
    return out
  end
  return numbers.tick_labels(vals, ax.step and ax.step / ax.scale)
end

function M.title(ax)
  if not ax.label and not ax.unit then return nil end
  if ax.unit and ax.unit ~= "" then return (ax.label or "") .. " (" .. ax.unit .. ")" end
  return ax.label
end

-- Data -> pixel along one axis.
function M.mapper(ax, from, to)
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
  local fx = M.mapper(d.axes.x, p.x, p.x + p.w)
  local fy = M.mapper(d.axes.y, p.y + p.h, p.y)
  return fx(x), fy(y)
end

return M
