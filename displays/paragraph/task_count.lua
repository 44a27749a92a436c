--- ParaGraph task count: per task, the number of processors in it now; at the
-- end of the run, the mean number of processors over the task's lifetime
-- (processor-time in the task / (last end - first start)).
local common = require "retrace.displays.paragraph.common"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(true)

function D:finish() self.ended = true end

function D:draw(cv, rect)
  local x = tc.tracker(self.ctx)
  local P = self.ctx.P
  local ids, vals, rows = {}, {}, {}
  if x then
    if self.ended then
      rows = x:mean_processors(self.ctx.info.span[2])
      for i, r in ipairs(rows) do ids[i], vals[i] = r.id, r.mean_processors end
    else
      for i, r in ipairs(x:counts()) do ids[i], vals[i], rows[i] = r.id, r.count, { id = r.id, count = r.count } end
    end
  end
  local xs = {}
  for i = 1, #ids do xs[i] = i end
  local labels = {}
  for i, id in ipairs(ids) do labels[i] = x and x.names and x.names[id] or tostring(id) end
  self.d = common.plot_with_strip(cv, rect, {
    x = { label = "task", lo = 0.4, hi = math.max(#ids, 1) + 0.6, labels = labels },
    y = { label = self.ended and "mean processors" or "processors in the task now",
          lo = 0, hi = math.max(P, 1) } }, nil, function(p)
      for i, id in ipairs(ids) do
        p:bars({ i }, { vals[i] }, { width = 0.7, color = tc.color(id), label = tc.label(id, x and x.names) })
      end
    end)
  self.d.tasks, self.d.ended = rows, self.ended or false
  for i, r in ipairs(rows) do r.x = i end
end

return M
