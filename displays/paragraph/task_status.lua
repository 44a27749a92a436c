--- ParaGraph task status: a square per task in rows of squares: not begun
-- (background), in progress (the task's light colour), done (its colour); a
-- task begun again goes back to in progress.
local common = require "retrace.displays.paragraph.common"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(true)

function D:draw(cv, rect)
  local x = tc.tracker(self.ctx)
  local order = x and x.order or {}
  -- the legend speaks of every task: neutral swatches, the words say which colour
  local items = { { "not begun", "#ffffff" }, { "in progress: the task's tint", "#d9d9d9" },
                  { "done: the task's colour", "#707070" } }
  local r = common.strip_legend(cv, rect, items)
  local n = math.max(#order, 1)
  local cols = math.max(1, math.ceil(math.sqrt(n * r.w / math.max(r.h, 1))))
  local rows = math.ceil(n / cols)
  local side = math.max(4, math.min((r.w - 8) / cols, (r.h - 8) / rows))
  local x0, y0 = r.x + (r.w - cols * side) / 2, r.y + 4
  local d = { tasks = {} }
  cv:save()
  for i, id in ipairs(order) do
    local k = x.tasks[id]
    local st = k.status == "waiting" and "not begun" or k.status == "progress" and "in progress" or "done"
    local c = st == "not begun" and "#ffffff" or tc.color(id, st == "in progress")
    local cx = x0 + ((i - 1) % cols) * side
    local cy = y0 + ((i - 1) // cols) * side
    cv:rect(cx + 1, cy + 1, side - 2, side - 2, { fill = c, stroke = "#808080", width = 1 })
    if side >= 18 then
      cv:text(cx + side / 2, cy + side / 2, tostring(id), { align = "center", valign = "middle",
        size = math.min(12, side / 3), color = require("retrace.colors").contrast(c) })
    end
    d.tasks[i] = { id = id, name = tc.label(id, x.names), status = st, color = c, x = cx + 1, y = cy + 1,
                   w = side - 2, h = side - 2 }
  end
  cv:restore()
  self.d = d
end

return M
