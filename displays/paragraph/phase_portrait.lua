--- ParaGraph phase portrait: the trajectory of (pending communication volume as
-- a percent of the pre-pass maximum, percent of processors busy), each a mean
-- over the last S time units (--smoothing), coloured by the task most recently
-- entered on any processor.
--
-- ParaGraph's view in C follows both means through the whole replay: they are
-- piecewise linear in time, so the view evaluates them at every corner (event
-- times and event times + S) and draws the straight runs between corners into
-- a raster of the plot's pixels. The picture does not depend on --pace and
-- costs its pixels, not the trace's length; the frames only add the point now.
local common = require "retrace.displays.paragraph.common"
local plot = require "retrace.plot"
local colors = require "retrace.colors"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(false)

local NO_TASK = "#808080"

function D:init()
  self.raw, self.pts = {}, {}
end

-- Palette of the raster: 0 no task yet, 1 + k tasks of colour k (mod 6).
local function palette()
  local l = { NO_TASK }
  for k = 0, 5 do l[k + 2] = tc.color(k) end
  return colors.palette(l)
end

function D:update(state, t)
  local ctx = self.ctx
  local tr = ctx.tasks
  local task = tr and tr.latest or nil
  if self.view then
    local x, y, corners = self.view:trend_point()
    self.corners = corners
    self.pts[#self.pts + 1] = { t = t, x = x, y = y, task = task }
    return
  end
  -- no view in C: the mean of the samples at frame times over the last S units
  local bytes = ctx.volume == "bytes"
  local top = bytes and ctx.info.max_pending_bytes or ctx.info.max_pending
  local v = bytes and state.pending_bytes or state.pending_count
  local x = top and top > 0 and 100 * (v or 0) / top or 0
  local y = 100 * state:counts().busy / math.max(ctx.P, 1)
  local raw = self.raw
  raw[#raw + 1] = { t, x, y }
  local S = ctx.smoothing or 0
  local sx, sy, n = 0, 0, 0
  for i = #raw, 1, -1 do
    if raw[i][1] < t - S and n > 0 then break end
    sx, sy, n = sx + raw[i][2], sy + raw[i][3], n + 1
  end
  self.pts[#self.pts + 1] = { t = t, x = sx / n, y = sy / n, task = task }
end

function D:draw(cv, rect)
  local p = plot.new{ x = { label = "pending volume", unit = "% of max", lo = 0, hi = 100 },
                      y = { label = "processors busy", unit = "%", lo = 0, hi = 100 }, size = 10, legend = false }
  p:draw(cv, rect)
  local d = p:data()
  local pr = d.plot
  local cols, rows = math.max(1, math.floor(pr.w)), math.max(1, math.floor(pr.h))
  if not self.started then
    -- the first drawing (laid out before the replay runs): the raster at the plot's size
    self.started = true
    self.view = common.trend(self.ctx, math.min(cols, 4096), math.min(rows, 4096))
  end
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  local last = self.pts[#self.pts]
  local grid
  if self.view then
    local _, _, _, g, lx, ly = self.view:trend_point()
    grid = g
    if g then
      self.pal = self.pal or palette()
      local gw, gh = g:size()
      cv:grid(g, self.pal, pr.x, pr.y, gw, gh)
    end
    if last then
      -- the run from the last corner to the point now
      local x0, y0 = plot.to_pixel(d, lx, ly)
      local x1, y1 = plot.to_pixel(d, last.x, last.y)
      cv:line(x0, y0, x1, y1, { color = last.task and tc.color(last.task) or NO_TASK, width = 1 })
    end
  else
    local prev
    for _, q in ipairs(self.pts) do
      local x, y = plot.to_pixel(d, q.x, q.y)
      local c = q.task and tc.color(q.task) or NO_TASK
      if prev then cv:line(prev[1], prev[2], x, y, { color = c, width = 1.5 }) end
      prev = { x, y }
    end
  end
  for _, q in ipairs(self.pts) do q.px, q.py = plot.to_pixel(d, q.x, q.y) end
  if last then
    cv:circle(last.px, last.py, 4, { fill = last.task and tc.color(last.task) or NO_TASK, stroke = "black" })
  end
  cv:restore()
  d.points = self.pts
  d.current = last
  d.continuous = self.view ~= nil
  d.corners = self.corners
  if grid then
    local gw, gh = grid:size()
    d.raster = { x = pr.x, y = pr.y, cols = gw, rows = gh }
  end
  self.d = d
end

return M
