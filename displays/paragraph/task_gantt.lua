--- ParaGraph task Gantt chart: a row per processor over the scrolling time
-- window, coloured by the processor's current task (the task colour of the task
-- that held most of a column's time); blank outside tasks.
local common = require "retrace.displays.paragraph.common"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(true)
-- it draws its window from the view's task changes: the run keeps them for the window
M.keeps = "tasks"

function D:draw(cv, rect)
  local ctx = self.ctx
  local x = tc.tracker(ctx)
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local list, slot = common.slots(ctx)
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P, nil, list), tc.items(x and x.order or {}, 8, x and x.names))
  local pr = d.plot
  local W = math.max(1, math.floor(pr.w))
  if x and self.t then
    local g = common.grid(self, W, P)
    local view = x.model and x.model.view
    for p = 0, P - 1 do
      if view then
        -- the view's columns, computed in C: the main task mod 6 (the palette), or -1
        g:load(view:task_row(p, lo, hi, W, self.t, 6), (P - 1 - slot[p]) * W)
        goto next
      end
      local acc = {}
      x:raster(p, lo, hi, W, self.t, function(c, task, dt)
        local a = acc[c] or {}
        acc[c] = a
        a[task] = (a[task] or 0) + dt
      end)
      local row = {}
      for c = 1, W do
        local best, bt = -1, 0
        for task, dt in pairs(acc[c] or {}) do
          if dt > bt or (dt == bt and task < best) then best, bt = task, dt end
        end
        -- a column mostly outside every task stays blank
        row[c] = (best ~= -1 and bt * 2 >= (hi - lo) / W) and best % 6 or -1
      end
      g:load(string.pack(string.rep("i4", W), table.unpack(row)), (P - 1 - slot[p]) * W)
      ::next::
    end
    cv:grid(g, tc.palette(), pr.x, pr.y, W, pr.h)
  end
  d.rows = common.proc_rows(pr, P, slot)
  d.window = { lo, hi }
  self.d = d
end

return M
