--- ParaGraph utilization summary (end of run): per processor, the percent of
-- the run spent busy, overhead and idle, stacked green / yellow / red.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:finish(state) self.rows = state:summary() end

function D:draw(cv, rect)
  if not self.rows then
    self.d = common.placeholder(cv, rect, "shown at the end of the run")
    return
  end
  local P = self.ctx.P
  -- a bar per processor at its place in the display order (--order)
  local list, slot = common.slots(self.ctx)
  local xs, b, o, i = {}, {}, {}, {}
  for k, r in ipairs(self.rows) do xs[k], b[k], o[k], i[k] = slot[r.id], r.busy, r.overhead, r.idle end
  -- stacked by overdrawing: the whole bar red, busy + overhead yellow, busy green
  local bo, all = {}, {}
  for k = 1, #xs do bo[k], all[k] = b[k] + o[k], b[k] + o[k] + i[k] end
  self.d = common.plot_with_strip(cv, rect, { x = common.proc_axis(P, nil, list),
    y = { label = "time", unit = "%", lo = 0, hi = 100 } }, common.state_items(), function(p)
      p:bars(xs, all, { width = 0.8, color = colors.state("idle"), label = "idle" })
      p:bars(xs, bo, { width = 0.8, color = colors.state("overhead"), label = "overhead" })
      p:bars(xs, b, { width = 0.8, color = colors.state("busy"), label = "busy" })
    end)
  self.d.processors = self.rows
  self.d.order, self.d.slot = list, slot
end

return M
