--- ParaGraph communication matrix: sender (rows) x receiver (columns), in natural
-- or Gray-code order; a square is coloured by the size of what that pair has
-- pending and erased on receipt. At the end of the run: the cumulative volume
-- of every pair on a colour scale.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

local function matrix(P)
  local m = {}
  for i = 1, P do m[i] = {}; for j = 1, P do m[i][j] = 0 end end
  return m
end

function D:update(state, t)
  local P = self.ctx.P
  local b, c = matrix(P), matrix(P)
  for _, x in ipairs(state.pending) do
    if x.src >= 0 and x.src < P and x.dst >= 0 and x.dst < P then
      b[x.src + 1][x.dst + 1] = b[x.src + 1][x.dst + 1] + x.bytes
      c[x.src + 1][x.dst + 1] = c[x.src + 1][x.dst + 1] + 1
    end
  end
  self.bytes, self.count, self.final = b, c, false
end

function D:finish(state)
  local P = self.ctx.P
  local b, c = matrix(P), matrix(P)
  for i = 0, P - 1 do
    for j = 0, P - 1 do b[i + 1][j + 1], c[i + 1][j + 1] = state.cum_bytes[i][j], state.cum_count[i][j] end
  end
  self.bytes, self.count, self.final = b, c, true
end

function D:draw(cv, rect)
  local P, order = self.ctx.P, self.ctx.order
  local bytes = self.bytes or matrix(P)
  local count = self.count or matrix(P)
  local legend_w = self.final and 70 or 0
  local side = math.max(1, math.min(rect.w - 40 - legend_w, rect.h - 40))
  local cell = side / P
  local x0, y0 = rect.x + 34, rect.y + 8
  cv:rect(x0, y0, cell * P, cell * P, { fill = "white" })
  cv:rect(x0 + 0.5, y0 + 0.5, cell * P - 1, cell * P - 1, { stroke = "gray", width = 1 })
  local vmax = 0
  for i = 1, P do for j = 1, P do if bytes[i][j] > vmax then vmax = bytes[i][j] end end end
  -- on white paper: in gray mode small volumes light, large ones dark
  local ramp = self.final and colors.ramp(64, colors.mode == "gray" and { "#d0d0d0", "#000000" } or nil)
  local function colour(v)
    if not self.final then return (colors.message_size(v)) end
    local f = vmax > 1 and math.log(math.max(v, 1)) / math.log(vmax) or 1
    return ramp:hex(math.max(0, math.min(63, math.floor(f * 63 + 0.5))))
  end
  local cells = {}
  local pos = {}
  for k, p in ipairs(order) do pos[p] = k - 1 end
  for i = 0, P - 1 do
    for j = 0, P - 1 do
      if count[i + 1][j + 1] > 0 then
        local col = colour(bytes[i + 1][j + 1])
        local x, y = x0 + pos[j] * cell, y0 + pos[i] * cell
        cv:rect(x, y, cell, cell, col)
        cells[#cells + 1] = { src = i, dst = j, x = x, y = y, w = cell, h = cell, color = col }
      end
    end
  end
  -- a label every `step` positions: room for the widest number along the bottom
  local step = require("retrace.paragraph").nice_ceil(math.max(1, P * (#tostring(P - 1) * 6 + 6) / side))
  if step < 1.5 then step = 1 end
  for k, p in ipairs(order) do
    if (k - 1) % step == 0 then
      cv:text(x0 + (k - 0.5) * cell, y0 + side + 3, tostring(p), { align = "center", valign = "top", size = 9, color = "black" })
      cv:text(x0 - 3, y0 + (k - 0.5) * cell, tostring(p), { align = "right", valign = "middle", size = 9, color = "black" })
    end
  end
  cv:text(x0 + side / 2, y0 + side + 14, "receiver", { align = "center", valign = "top", size = 9, color = "black" })
  cv:text(rect.x + 6, y0 + side / 2, "sender", { align = "center", valign = "middle", size = 9, angle = -90, color = "black" })
  if self.final and vmax > 0 then
    local plot = require "retrace.plot"
    cv:text(x0 + side + 8, y0, "bytes (log)", { valign = "top", size = 9, color = "black" })
    plot.colorbar(cv, x0 + side + 8, y0 + 14, 60, 10, ramp, vmax > 1 and 1 or 0, vmax, { size = 9, color = "black" })
  end
  self.d = { bytes = bytes, count = count, final = self.final or false, order = order,
    grid = { x = x0, y = y0, cell = cell }, cells = cells }
end

return M
