--- ParaGraph colour code: the message-size colours every communication display uses.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function M.new(ctx, opts) return setmetatable({ ctx = ctx }, D) end

function D:draw(cv, rect)
  local items = colors.message_size_legend()
  local n = #items
  local h = math.min(22, (rect.h - 20) / n)
  local y = rect.y + 16
  cv:text(rect.x + 6, rect.y + 2, "message size", { valign = "top", size = 10, bold = true, color = "black" })
  local boxes = {}
  for i, it in ipairs(items) do
    local yy = y + (i - 1) * h
    cv:rect(rect.x + 8, yy + 2, 28, h - 4, it[2])
    local size = math.min(10, h - 2)
    cv:text(rect.x + 44, yy + h / 2, it[1], { valign = "middle", size = size, color = "black" })
    boxes[i] = { label = it[1], color = it[2], x = rect.x + 8, y = yy + 2, w = 28, h = h - 4, size = size }
  end
  self.d = { items = boxes, rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h } }
end

return M
