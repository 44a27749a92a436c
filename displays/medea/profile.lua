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

return M
