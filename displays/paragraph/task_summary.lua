--- ParaGraph task summary (end of run): each task's span, from its first start
-- to its last end, as a bar placed within the run, and its duration as a
-- percent of the run.
local common = require "retrace.displays.paragraph.common"
local plot = require "retrace.plot"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(false)

function D:finish() self.ended = true end

function D:draw(cv, rect)
  local x = tc.tracker(self.ctx)
  if not self.ended or not x then
    self.d = common.placeholder(cv, rect, "shown at the end of the run")
    return
  end
  -- the bars over the --from / --to window (the whole run without one)
  local t0, t1 = self.ctx.window_lo or self.ctx.info.span[1], self.ctx.window_hi or self.ctx.info.span[2]
  local rows = x:task_summary(t0, t1)
  local labels = {}
  for i, r in ipairs(rows) do labels[i] = tostring(r.id) end
  local p = plot.new{ x = { label = "time", unit = "s", time = true, lo = t0, hi = t1 },
                      y = { label = "task", lo = 0.4, hi = math.max(#rows, 1) + 0.6, labels = labels },
                      size = 10, legend = false }
  p:draw(cv, rect)
  local d = p:data()
  local pr = d.plot
  local bh = pr.h / math.max(#rows, 1) * 0.6
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  for i, r in ipairs(rows) do
    local xa = plot.to_pixel(d, r.start, i)
    local xb, yc = plot.to_pixel(d, r["end"], i)
    cv:rect(xa, yc - bh / 2, math.max(1, xb - xa), bh, tc.color(r.id))
    local txt = string.format("%.1f%%", r.percent)
    local inside = xb - xa > 44
    -- outside: right of the bar, or left of it when the bar ends near the right edge
    local right = xb + 48 < pr.x + pr.w
    cv:text(inside and (xa + xb) / 2 or right and xb + 3 or xa - 3, yc, txt,
      { align = inside and "center" or right and "left" or "right",
      valign = "middle", size = 9, color = inside and require("retrace.colors").contrast(tc.color(r.id)) or "black" })
    r.x0, r.x1, r.y = xa, xb, yc
  end
  cv:restore()
  d.tasks = rows
  self.d = d
end

return M
