--- displays/memspy/causes: misses of each data bin stacked by cause (first
-- reference, replacement, invalidation), data bins by their misses
-- (descending, ties by name), at most `top` of them (12).
--
--   local d = causes.new(ctx, {run = run [, top = n] [, code = name]})
--   d:draw(cv, rect); d:data() -> the plot's data() plus bins = {{name, x,
--     first, replacement, invalidation, misses}} (x: the bar's centre on the x axis)
-- Stacking draws the three totals from the bottom, largest first, so each cause
-- shows as its own segment; data().series holds those cumulative heights.
local plot = require "retrace.plot"
local style = require "retrace.displays.memspy.style"

local M = {}
local D = {}
D.__index = D
D.__tostring = function() return "retrace.memspy.Causes" end

function M.new(_, o) return setmetatable({ o = o }, D) end

local function per_bin(run, code)
  local t, list = {}, {}
  for _, b in ipairs(run.bins) do
    if not code or b.code == code then
      local e = t[b.data]
      if not e then
        e = { name = b.data, first = 0, replacement = 0, invalidation = 0, misses = 0 }
        t[b.data] = e
        list[#list + 1] = e
      end
      e.first = e.first + b.first
      e.replacement = e.replacement + b.replacement
      e.invalidation = e.invalidation + b.invalidation
      e.misses = e.misses + b.misses
    end
  end
  local out = {}
  for _, e in ipairs(list) do if e.misses > 0 then out[#out + 1] = e end end
  table.sort(out, function(a, b)
    if a.misses ~= b.misses then return a.misses > b.misses end
    return a.name < b.name
  end)
  return out
end
M.per_bin = per_bin

function D:draw(cv, rect)
  local o = self.o
  local bins = per_bin(o.run, o.code)
  local top = o.top or 12
  while #bins > top do bins[#bins] = nil end
  local xs, labels = {}, {}
  for i, b in ipairs(bins) do
    xs[i] = i
    labels[i] = b.name
    b.x = i
  end
  local p = plot.new{ title = o.title or ("Misses by cause per data bin" .. (o.code and (" in " .. o.code) or "")),
    x = { label = "data bin", labels = labels, lo = 0.4, hi = #bins + 0.6, ticks = #bins },
    y = { label = "misses", zero = true } }
  -- cumulative heights: all three causes, then first + replacement, then first
  local sums = { {}, {}, {} }
  for i, b in ipairs(bins) do
    sums[1][i] = b.first + b.replacement + b.invalidation
    sums[2][i] = b.first + b.replacement
    sums[3][i] = b.first
  end
  for k = 3, 1, -1 do
    local c = style.causes[k]
    p:bars(xs, sums[4 - k], { width = 0.7, color = style.cause_color(k), stroke = "#303030", label = c.label,
                              legend = true })
  end
  if #bins == 0 then p:note("no misses") end
  p:draw(cv, rect)
  self.p, self.bins = p, bins
  return self
end

function D:data()
  local d = self.p:data()
  d.bins = {}
  for i, b in ipairs(self.bins) do
    d.bins[i] = { name = b.name, x = b.x, first = b.first, replacement = b.replacement,
                  invalidation = b.invalidation, misses = b.misses }
  end
  return d
end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

return M
