--- ParaGraph phase portrait: the trajectory of (pending communication volume as
-- a percent of the pre-pass maximum, percent of processors busy), each a mean
-- over the last S time units (--smoothing), coloured by the task most recently
-- entered on any processor.
local common = require "retrace.displays.paragraph.common"
local plot = require "retrace.plot"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(false)

function M.new(ctx, opts)
  return setmetatable({ ctx = ctx, opts = opts or {}, raw = {}, pts = {} }, D)
end

function D:update(state, t)
  local ctx = self.ctx
  local bytes = ctx.volume == "bytes"
  local top = bytes and ctx.info.max_pending_bytes or ctx.info.max_pending
  local v = bytes and state.pending_bytes or state.pending_count
  local x = top and top > 0 and 100 * (v or 0) / top or 0
  local y = 100 * state:counts().busy / math.max(ctx.P, 1)
  local raw = self.raw
  raw[#raw + 1] = { t, x, y }
  -- the mean of the samples over the last S units
  local S = ctx.smoothing or 0
  local sx, sy, n = 0, 0, 0
  for i = #raw, 1, -1 do
    if raw[i][1] < t - S and n > 0 then break end
    sx, sy, n = sx + raw[i][2], sy + raw[i][3], n + 1
  end
  local tr = ctx.tasks
  self.pts[#self.pts + 1] = { t = t, x = sx / n, y = sy / n, task = tr and tr.latest or nil }
end

function D:draw(cv, rect)
  local p = plot.new{ x = { label = "pending volume", unit = "% of max", lo = 0, hi = 100 },
                      y = { label = "processors busy", unit = "%", lo = 0, hi = 100 }, size = 10, legend = false }
  p:draw(cv, rect)
  local d = p:data()
  local pr = d.plot
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  local prev
  for _, q in ipairs(self.pts) do
    local x, y = plot.to_pixel(d, q.x, q.y)
    q.px, q.py = x, y
    local c = q.task and tc.color(q.task) or "#808080"
    if prev then cv:line(prev[1], prev[2], x, y, { color = c, width = 1.5 }) end
    prev = { x, y }
  end
  if prev then
    local last = self.pts[#self.pts]
    cv:circle(prev[1], prev[2], 4, { fill = last.task and tc.color(last.task) or "#808080", stroke = "black" })
  end
  cv:restore()
  d.points = self.pts
  d.current = self.pts[#self.pts]
  self.d = d
end

return M
