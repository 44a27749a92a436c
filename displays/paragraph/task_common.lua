--- Pieces the ParaGraph task displays share: task colours (six, by task number
-- mod 6, from retrace.colors), their light tints, the legend and the palette.
local colors = require "retrace.colors"

local M = {}

--- The colour of task id, light = true for its tint (in progress).
function M.color(id, light)
  local c = colors.task(id)
  if not light then return c end
  local r, g, b = colors.parse(c)
  local k = 0.6
  return string.format("#%02x%02x%02x", math.floor((r + (1 - r) * k) * 255 + 0.5),
    math.floor((g + (1 - g) * k) * 255 + 0.5), math.floor((b + (1 - b) * k) * 255 + 0.5))
end

--- A task's label: its region's name where the format names its tasks (OTF2, Paraver,
-- Pajé: names = the tracker's names), "task N" otherwise (PICL user events).
function M.label(id, names)
  return names and names[id] or ("task " .. id)
end

--- Legend items of the tasks (at most `max`, then "..."); names as in M.label.
function M.items(order, max, names)
  local out = {}
  for i, id in ipairs(order) do
    if i > (max or 12) then out[#out + 1] = { "...", "#ffffff" } break end
    out[#out + 1] = { M.label(id, names), M.color(id) }
  end
  return out
end

--- Palette: entry k (0..5) is the colour of tasks with number mod 6 = k.
function M.palette()
  local l = {}
  for k = 0, 5 do l[k + 1] = colors.task(k) end
  return colors.palette(l)
end

--- The tracker of the shared context (nil before the command made one).
function M.tracker(ctx)
  return ctx and ctx.tasks
end

return M
