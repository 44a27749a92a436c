--- displays/medea/profile: how many processors are in each activity over time
-- (executing, computing, communicating, receiving, transmitting, doing I/O), one
-- panel per activity. Profiles are reduced per pixel column in C first
-- (retrace.reduce, acc:profile_columns): each column shows the range of the
-- count within it and its time average, so a trace of 10^7 records draws as
-- fast and reads as clearly as one of ten.
--
--   local d = profile.new(ctx, {trace = "name", nprocs =, tmin =, tmax =,
--                               profiles = {exec = cols, comp = cols, ...}})
--     cols: reduced columns (retrace.reduce) or {times =, counts =} (reduced here)
--   d:draw(cv, rect); d:data() -> {trace, tmin, tmax, panels = {{name, label, plot data
--     with the reduced columns}}, empty = {names of activities with no time in them}}
--   profile.draw(cv, rect, opts) -> data; profile.columns_for(width) the column count used
-- An activity that never happens (no I/O in most traces) gets no panel; the
-- data and a line at the bottom say so.
--
-- The zoomed profile (a detailed view of one phase of a run):
--   local z = profile.zoom(ctx, {trace =, activity = "recv", nprocs =, tmin =, tmax =,
--                                t0 =, t1 =, whole = cols, detail = cols})
--     whole: the activity's profile over the run [tmin, tmax]; detail: over [t0, t1]
--     (reduced columns, or {times =, counts =} reduced here, every pixel column)
--   z:draw(cv, rect): the whole run on top with [t0, t1] shaded, the window below
--   z:data() -> {trace, activity, label, t0, t1, tmin, tmax, band = {x, y, w, h} (the
--     shaded interval in pixels), whole = {plot, axes, columns}, detail = {...}}
--   profile.draw_zoom(cv, rect, opts) -> data
local plot = require "retrace.plot"
local display = require "retrace.display"
local reduce = require "retrace.reduce"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.medea.Profile(" .. tostring(d.o.trace) .. ")" end

M.names = { { "exec", "executing" }, { "comp", "computing" }, { "comm", "communicating" },
            { "recv", "receiving" }, { "send", "transmitting" }, { "io", "doing I/O" } }

--- Pixel columns of a plot drawn `width` wide (the plot area is narrower than the picture).
function M.columns_for(width) return math.max(16, math.floor(width - 110)) end

function M.new(_, o) return setmetatable({ o = o }, D) end

local function is_empty(cols)
  for i = 1, #cols.count do
    if cols.count[i] > 0 and cols.max[i] > 0 then return false end
  end
  return true
end

--- The number of panels the profiles will get (for sizing the picture).
function M.panels(o)
  local n = 0
  for _, pn in ipairs(M.names) do
    local c = o.profiles[pn[1]]
    if c and (pn[1] == "exec" or not is_empty(M.reduced(c, o))) then n = n + 1 end
  end
  return n
end

--- Reduced columns of a profile given either way.
function M.reduced(c, o)
  if c.count then return c end
  if c._cols then return c._cols end
  local tmin, tmax = o.tmin or c.times[1] or 0, o.tmax or c.times[#c.times] or 1
  if not (tmax > tmin) then tmax = tmin + 1 end
  c._cols = reduce.series(c.times, c.counts, o.columns or 800, tmin, tmax, { step = true, x_end = tmax })
  return c._cols
end

function D:draw(cv, rect)
  local o = self.o
  local list, empty = {}, {}
  local plots = {}
  for _, pn in ipairs(M.names) do
    local c = o.profiles[pn[1]]
    if c then
      local cols = M.reduced(c, o)
      if pn[1] ~= "exec" and is_empty(cols) then
        empty[#empty + 1] = pn[2]
      else
        local p = plot.new{ legend = pn[1] == "exec" and "auto" or false,
          x = { label = "time", time = true, lo = cols.x0, hi = cols.x1 },
          y = { label = "processors", lo = 0, hi = math.max(o.nprocs or 1, 1) * 1.1 } }
        p:columns(cols, { color = "#6baed6", mean_color = "#08306b", width = 1,
          label = "range within a pixel column" })
        if pn[1] == "exec" then
          -- a legend entry for the mean line (drawn by columns)
          p:line({}, {}, { color = "#08306b", width = 1, label = "time average" })
        end
        list[#list + 1] = { title = pn[2], display = p }
        plots[#plots + 1] = { name = pn[1], label = pn[2], plot = p, columns = cols }
      end
    end
  end
  local top = 0
  if o.trace then
    cv:text(rect.x + rect.w / 2, rect.y + 6, "activity profiles of " .. o.trace, { align = "center",
      valign = "top", size = 14, bold = true })
    top = 28
  end
  local bottom = #empty > 0 and 22 or 0
  self.c = display.compose(list, { cols = 1, gap = 6 })
  self.c:draw(cv, { x = rect.x + 4, y = rect.y + top, w = rect.w - 8, h = rect.h - top - bottom - 4 })
  if #empty > 0 then
    self.empty_note = "no time spent " .. table.concat(empty, ", ") .. ": not drawn"
    cv:text(rect.x + 8, rect.y + rect.h - 6, self.empty_note, { valign = "bottom", size = 11, color = "#404040" })
  end
  self.plots, self.empty = plots, empty
  return self
end

function D:data()
  local panels = {}
  local cd = self.c:data().panels
  for i, p in ipairs(self.plots) do
    local d = cd[i].data
    panels[i] = { name = p.name, label = p.label, plot = d.plot, axes = d.axes, legend = d.legend,
                  columns = p.columns }
  end
  return { trace = self.o.trace, panels = panels, empty = self.empty, note = self.empty_note }
end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

-- The label of an activity ("recv" -> "receiving"), nil for an unknown name.
function M.label(name)
  for _, pn in ipairs(M.names) do
    if pn[1] == name then return pn[2] end
  end
  return nil
end

M.band_color = "#ff7f0e"
M.band_gray = "#707070" -- in gray mode: a mid gray, apart from the black profile lines

local function band_color()
  return require("retrace.colors").mode == "gray" and M.band_gray or M.band_color
end

local Z = {}
Z.__index = Z
Z.__tostring = function(z)
  return string.format("retrace.medea.ProfileZoom(%s, %s, %.9g:%.9g)", tostring(z.o.trace), z.o.activity,
    z.o.t0, z.o.t1)
end

function M.zoom(_, o)
  assert(o.t0 and o.t1 and o.t1 > o.t0, "profile.zoom: t0 < t1 needed")
  assert(M.label(o.activity or "recv"), "profile.zoom: unknown activity " .. tostring(o.activity))
  return setmetatable({ o = o }, Z)
end

-- Columns of c over [lo, hi] (c reduced already, or {times, counts} reduced here).
local function over(c, lo, hi, w)
  if c.count then return c end
  return reduce.series(c.times, c.counts, w, lo, hi, { step = true, x_end = math.max(hi, c.times[#c.times] or hi) })
end

local function panel(cols, label, nprocs, title)
  local p = plot.new{ title = title, legend = false,
    x = { label = "time", time = true, lo = cols.x0, hi = cols.x1, pad = 0 },
    y = { label = "processors " .. label, lo = 0, hi = math.max(nprocs or 1, 1) * 1.1 } }
  p:columns(cols, { color = "#6baed6", mean_color = "#08306b", width = 1 })
  return p
end

function Z:draw(cv, rect)
  local o = self.o
  local act = o.activity or "recv"
  local label = M.label(act)
  local width = M.columns_for(rect.w)
  local whole = over(o.whole, o.tmin, o.tmax, width)
  local detail = over(o.detail, o.t0, o.t1, width)
  local nprocs = o.nprocs
  if not nprocs then
    nprocs = 1
    for i = 1, #whole.count do nprocs = math.max(nprocs, whole.max[i]) end
  end
  local top = 30
  local h = rect.h - top - 8
  local hw = math.floor(h * 0.36)
  local wp = panel(whole, label, nprocs, "the whole run (the detailed interval shaded)")
  wp:draw(cv, { x = rect.x + 4, y = rect.y + top, w = rect.w - 8, h = hw })
  local wd = wp:data()
  -- the interval, shaded on the whole run (clipped to the plot area)
  local pr = wd.plot
  local x0 = math.max(pr.x, math.min(pr.x + pr.w, (plot.to_pixel(wd, o.t0, 0))))
  local x1 = math.max(pr.x, math.min(pr.x + pr.w, (plot.to_pixel(wd, o.t1, 0))))
  local bw = math.max(x1 - x0, 2)
  local bc = band_color()
  cv:rect(x0, pr.y, bw, pr.h, bc .. "40")
  cv:line(x0, pr.y, x0, pr.y + pr.h, { color = bc, width = 1.5 })
  cv:line(x0 + bw, pr.y, x0 + bw, pr.y + pr.h, { color = bc, width = 1.5 })
  -- the interval in the unit of the detail's time axis (ms for a few ms)
  local probe = panel(detail, label, nprocs)
  local unit = require("retrace.plot.axis").resolve(probe.opts.x, { detail.x0, detail.x1 })
  local sc = unit.scale or 1
  local span = string.format("%s to %s %s", plot.format_number(o.t0 / sc), plot.format_number(o.t1 / sc),
    unit.unit or "s")
  local dp = panel(detail, label, nprocs, "in detail: " .. span)
  if is_empty(detail) then
    self.note = string.format("no processor is %s in this interval", label)
    dp:note(self.note)
  end
  dp:draw(cv, { x = rect.x + 4, y = rect.y + top + hw + 8, w = rect.w - 8, h = h - hw - 8 })
  -- the detail's frame in the band's colour: the two belong together
  local dr = dp:data().plot
  cv:rect(dr.x - 1.5, dr.y - 1.5, dr.w + 3, dr.h + 3, { stroke = band_color(), width = 1.5 })
  cv:text(rect.x + rect.w / 2, rect.y + 6, string.format("%s profile%s, %s", label,
    o.trace and " of " .. o.trace or "", span), { align = "center", valign = "top", size = 14, bold = true,
    color = "black" })
  self.span = span
  self.whole, self.detail = { plot = wd.plot, axes = wd.axes, columns = whole },
    { plot = dr, axes = dp:data().axes, columns = detail }
  self.band = { x = x0, y = pr.y, w = bw, h = pr.h }
  self.label = label
  return self
end

function Z:data()
  local o = self.o
  return { trace = o.trace, activity = o.activity or "recv", label = self.label, t0 = o.t0, t1 = o.t1,
           tmin = self.whole.columns.x0, tmax = self.whole.columns.x1, band = self.band, span = self.span, note = self.note,
           whole = self.whole, detail = self.detail }
end

function M.draw_zoom(cv, rect, o) return M.zoom(nil, o):draw(cv, rect):data() end

return M
