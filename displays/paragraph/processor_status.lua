--- ParaGraph processor status: four grids of processors, row by row: state
-- (traffic lights), current task (task colours), bytes being sent (sent by the
-- processor, not yet received) and bytes awaiting receipt (sent to it, not yet
-- received), both in the message-size colours; blank when none.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"
local tc = require "retrace.displays.paragraph.task_common"

local M, D = common.display(true)

local STATE = require("retrace.paragraph").state_names

--- Values of the four grids now: {state = {[p+1] = name}, task = {id|false}, sending = {bytes}, receiving = {bytes}}.
function M.values(ctx, model)
  local v = { state = {}, task = {}, sending = {}, receiving = {} }
  for p = 0, ctx.P - 1 do
    v.state[p + 1] = STATE[model.cur[p]]
    v.task[p + 1] = ctx.tasks and ctx.tasks.cur[p] or false
    v.sending[p + 1] = model.sending and model.sending[p] or 0
    v.receiving[p + 1] = model.queue_bytes and model.queue_bytes[p] or 0
  end
  return v
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local P = ctx.P
  local d = { grids = {} }
  if not m then self.d = common.placeholder(cv, rect, "waiting for the replay"); return end
  local v = M.values(ctx, m)
  local cols = math.ceil(math.sqrt(P))
  local rows = math.ceil(P / cols)
  local titles = { { "state", "state" }, { "task", "task" }, { "sending", "bytes being sent" },
                   { "receiving", "bytes awaiting receipt" } }
  local gw, gh = rect.w / 2, rect.h / 2
  for gi, tt in ipairs(titles) do
    local key = tt[1]
    local ox, oy = rect.x + ((gi - 1) % 2) * gw, rect.y + ((gi - 1) // 2) * gh
    cv:text(ox + gw / 2, oy + 2, tt[2], { align = "center", valign = "top", color = "black",
      size = math.max(6, math.min(10, (gw - 4) / (0.62 * #tt[2]))) })
    local side = math.max(2, math.min((gw - 8) / cols, (gh - 18) / rows))
    local x0, y0 = ox + (gw - cols * side) / 2, oy + 16
    local cells = {}
    for p = 0, P - 1 do
      local val = v[key][p + 1]
      local c
      if key == "state" then c = colors.state(val)
      elseif key == "task" then c = val and tc.color(val) or "#ffffff"
      else c = val > 0 and colors.message_size(val) or "#ffffff" end
      local cx, cy = x0 + (p % cols) * side, y0 + (p // cols) * side
      cv:rect(cx, cy, side, side, { fill = c, stroke = "#a0a0a0", width = side > 6 and 1 or 0.3 })
      if side >= 20 and P <= 64 then
        cv:text(cx + side / 2, cy + side / 2, tostring(p), { align = "center", valign = "middle",
          size = math.min(10, side / 2.5), color = colors.contrast(c) })
      end
      cells[p + 1] = { id = p, value = val, color = c, x = cx, y = cy, w = side, h = side }
    end
    d.grids[key] = cells
  end
  self.d = d
end

return M
