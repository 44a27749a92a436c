--- ParaGraph processor status: four grids of processors, row by row: state
-- (traffic lights), current task (task colours), bytes being sent (sent by the
-- processor, not yet received) and bytes awaiting receipt (sent to it, not yet
-- received), both in the message-size colours; blank when none. Processors go
-- in the display order (--order), row by row.
--
-- When the processors outnumber the cells of at least MIN_SIDE pixels a grid
-- has room for, a cell holds a run of consecutive processors (in that order):
-- the state most of them are in (ties: busy, overhead, idle), the task most of
-- them are in, the bytes all of them are sending or awaiting; a note under
-- the grids says how many processors a cell holds.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"
local order = require "retrace.displays.paragraph.order"
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

M.MIN_SIDE = 3

--- The grid for n cells in a w x h area: cols, rows and the side of a square
-- cell, the largest side that fits.
function M.fit(n, w, h)
  local best = { cols = 1, rows = n, side = 0 }
  for cols = 1, n do
    local rows = math.ceil(n / cols)
    local side = math.min(w / cols, h / rows)
    if side > best.side then best = { cols = cols, rows = rows, side = side } end
    if w / cols < best.side then break end
  end
  return best
end

--- Processors per cell so that P processors fit a w x h area in cells of at
-- least MIN_SIDE pixels (1 when they fit one a cell).
function M.per_cell(P, w, h)
  if M.fit(P, w, h).side >= M.MIN_SIDE then return 1 end
  local room = math.max(1, math.floor(w / M.MIN_SIDE) * math.floor(h / M.MIN_SIDE))
  local k = math.ceil(P / room)
  while M.fit(math.ceil(P / k), w, h).side < M.MIN_SIDE do k = k + 1 end
  return k
end

local RANK = { busy = 3, overhead = 2, idle = 1 }

--- The value of a cell holding the processors at positions a..b of list in the
-- grid `key`: the state most hold (ties: busy, overhead, idle) with the counts,
-- the task most are in (ties: the lowest number; false when most are in none),
-- or the bytes summed.
function M.cell_value(v, key, list, a, b)
  if a == b then return v[key][list[a] + 1] end
  if key == "sending" or key == "receiving" then
    local sum = 0
    for i = a, b do sum = sum + v[key][list[i] + 1] end
    return sum
  end
  local n = {}
  for i = a, b do
    local x = v[key][list[i] + 1]
    n[x] = (n[x] or 0) + 1
  end
  local best, bn = nil, -1
  for x, c in pairs(n) do
    local better = c > bn
    if c == bn then
      if key == "state" then better = RANK[x] > RANK[best]
      else better = (x and (not best or x < best)) or false end
    end
    if better then best, bn = x, c end
  end
  if key == "state" then return best, { busy = n.busy or 0, overhead = n.overhead or 0, idle = n.idle or 0 } end
  return best
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local P = ctx.P
  if not m then self.d = common.placeholder(cv, rect, "waiting for the replay"); return end
  local v = M.values(ctx, m)
  local list = order.of(ctx)
  local titles = { { "state", "state" }, { "task", "task" }, { "sending", "bytes being sent" },
                   { "receiving", "bytes to receive" } }
  -- a line at the bottom for the note when cells hold several processors
  local k = M.per_cell(P, rect.w / 2 - 8, rect.h / 2 - 18)
  local note_h = k > 1 and 12 or 0
  local gw, gh = rect.w / 2, (rect.h - note_h) / 2
  local aw, ah = gw - 8, gh - 18
  k = M.per_cell(P, aw, ah)
  local n = math.ceil(P / k)
  local g = M.fit(n, aw, ah)
  local cols, rows, side = g.cols, g.rows, g.side
  local d = { grids = {}, per_cell = k, cells = n, cols = cols, rows = rows, side = side,
              order = order.name(ctx), rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h } }
  for gi, tt in ipairs(titles) do
    local key = tt[1]
    local ox, oy = rect.x + ((gi - 1) % 2) * gw, rect.y + ((gi - 1) // 2) * gh
    local title = tt[2]
    cv:text(ox + gw / 2, oy + 2, title, { align = "center", valign = "top", color = "black",
      size = math.max(6, math.min(10, (gw - 4) / (0.62 * #title))) })
    local x0, y0 = ox + (gw - cols * side) / 2, oy + 16
    local cells = {}
    local lines = side > 6 and 1 or side >= 4 and 0.3 or nil
    for c = 0, n - 1 do
      local a, b = c * k + 1, math.min(P, (c + 1) * k)
      local val, counts = M.cell_value(v, key, list, a, b)
      local col
      if key == "state" then col = colors.state(val)
      elseif key == "task" then col = val and tc.color(val) or "#ffffff"
      else col = val > 0 and colors.message_size(val) or "#ffffff" end
      local cx, cy = x0 + (c % cols) * side, y0 + (c // cols) * side
      if lines then
        cv:rect(cx, cy, side, side, { fill = col, stroke = "#a0a0a0", width = lines })
      else
        cv:rect(cx, cy, side, side, col)
      end
      local cell = { value = val, color = col, x = cx, y = cy, w = side, h = side }
      if k == 1 then
        cell.id = list[a]
        if side >= 20 and P <= 64 then
          cv:text(cx + side / 2, cy + side / 2, common.proc_label(list, list[a]), { align = "center", valign = "middle",
            size = math.min(10, side / 2.5), color = colors.contrast(col) })
        end
      else
        cell.procs = { table.unpack(list, a, b) }
        cell.counts = counts
      end
      cells[c + 1] = cell
    end
    if not lines then
      -- cells too small for lines of their own: a frame round the grid
      cv:rect(x0 - 0.5, y0 - 0.5, cols * side + 1, rows * side + 1, { stroke = "#a0a0a0", width = 0.5 })
    end
    d.grids[key] = cells
  end
  if k > 1 then
    d.note = string.format("%d processors a cell (%s order)", k, d.order)
    cv:text(rect.x + rect.w / 2, rect.y + rect.h - 1, d.note, { align = "center", valign = "bottom", size = 9,
      color = "dimgray" })
  end
  self.d = d
end

return M
