--- ParaGraph communication matrix: sender (rows) x receiver (columns), in natural
-- or Gray-code order; a square is coloured by the size of what that pair has
-- pending and erased on receipt. At the end of the run: the cumulative volume
-- of every pair on a logarithmic colour scale from the smallest nonzero square
-- to the largest (data() `scale`).
--
-- Only the pairs that communicate are kept (sparse). When the processors
-- outnumber the pixels of the matrix's side, a square stands for a block of k x k
-- positions (k consecutive processors in the display's order on each axis) and
-- sums their volumes; data() gives k (`block`) and, per square, the positions it
-- holds (`src_pos`, `dst_pos`: first and last, 0-based, in `order`). The dense
-- `bytes` and `count` tables of data() are given only up to 64 processors.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

local DENSE = 64

-- {[src * P + dst] = {src, dst, bytes, count}} from a list of records with src, dst and bytes (count 1 each)
local function sparse(P, list, count_field)
  local m = {}
  for _, x in ipairs(list) do
    if x.src >= 0 and x.src < P and x.dst >= 0 and x.dst < P then
      local k = x.src * P + x.dst
      local e = m[k]
      if not e then
        e = { src = x.src, dst = x.dst, bytes = 0, count = 0 }
        m[k] = e
      end
      e.bytes = e.bytes + x.bytes
      e.count = e.count + (count_field and x[count_field] or 1)
    end
  end
  return m
end

function D:update(state, t)
  self.pairs, self.final = sparse(self.ctx.P, state.pending), false
end

function D:finish(state)
  self.pairs, self.final = sparse(self.ctx.P, state.pairs, "count"), true
end

-- Dense P x P tables (1-based) of the pairs, for data() of small runs.
local function dense(P, pairs, field)
  local m = {}
  for i = 1, P do m[i] = {}; for j = 1, P do m[i][j] = 0 end end
  for _, e in next, pairs do m[e.src + 1][e.dst + 1] = e[field] end
  return m
end

function D:draw(cv, rect)
  local P, order = self.ctx.P, (common.slots(self.ctx))
  local legend_w = self.final and 70 or 0
  local side = math.max(1, math.min(rect.w - 40 - legend_w, rect.h - 40 - (P > rect.h - 40 and 10 or 0)))
  -- k processors per square when they outnumber the side's pixels
  local k = math.max(1, math.ceil(P / math.floor(side)))
  local nb = math.ceil(P / k)
  local cell = side / nb
  local x0, y0 = rect.x + 34, rect.y + 8
  cv:rect(x0, y0, cell * nb, cell * nb, { fill = "white" })
  cv:rect(x0 + 0.5, y0 + 0.5, cell * nb - 1, cell * nb - 1, { stroke = "gray", width = 1 })
  local pos = {}
  for i, p in ipairs(order) do pos[p] = i - 1 end
  -- squares: the pairs summed by block
  local squares = {}
  for _, e in pairs(self.pairs or {}) do
    local bi, bj = pos[e.src] // k, pos[e.dst] // k
    local key = bi * nb + bj
    local s = squares[key]
    if not s then
      s = { bi = bi, bj = bj, bytes = 0, count = 0, src = e.src, dst = e.dst }
      squares[key] = s
    end
    s.bytes, s.count = s.bytes + e.bytes, s.count + e.count
  end
  local list = {}
  for _, s in pairs(squares) do list[#list + 1] = s end
  table.sort(list, function(a, b) return a.bi < b.bi or (a.bi == b.bi and a.bj < b.bj) end)
  -- the end-of-run scale: logarithmic from the smallest nonzero square to the largest
  local vmax, vmin = 0, math.huge
  for _, s in ipairs(list) do
    if s.bytes > vmax then vmax = s.bytes end
    if s.bytes > 0 and s.bytes < vmin then vmin = s.bytes end
  end
  if vmin == math.huge then vmin = vmax end
  -- on white paper: in gray mode small volumes light, large ones dark
  local ramp = self.final and colors.ramp(64, colors.mode == "gray" and { "#d0d0d0", "#000000" } or nil)
  local function colour(v)
    if not self.final then return (colors.message_size(v)) end
    local f = vmax > vmin and math.log(math.max(v, vmin) / vmin) / math.log(vmax / vmin) or 1
    return ramp:hex(math.max(0, math.min(63, math.floor(f * 63 + 0.5))))
  end
  local cells = {}
  for _, s in ipairs(list) do
    if s.count > 0 then
      local col = colour(s.bytes)
      local x, y = x0 + s.bj * cell, y0 + s.bi * cell
      cv:rect(x, y, cell, cell, col)
      local c = { x = x, y = y, w = cell, h = cell, color = col, bytes = s.bytes, count = s.count }
      if k == 1 then
        c.src, c.dst = s.src, s.dst
      else
        c.src_pos = { s.bi * k, math.min(P, (s.bi + 1) * k) - 1 }
        c.dst_pos = { s.bj * k, math.min(P, (s.bj + 1) * k) - 1 }
      end
      cells[#cells + 1] = c
    end
  end
  -- a label every `step` squares: room for the widest number along the bottom
  local step = require("retrace.paragraph").nice_ceil(math.max(1, nb * (#tostring(P - 1) * 6 + 6) / side))
  if step < 1.5 then step = 1 end
  for b = 0, nb - 1 do
    if b % step == 0 then
      local p = order[b * k + 1]
      cv:text(x0 + (b + 0.5) * cell, y0 + side + 3, common.proc_label(order, p), { align = "center", valign = "top", size = 9, color = "black" })
      cv:text(x0 - 3, y0 + (b + 0.5) * cell, common.proc_label(order, p), { align = "right", valign = "middle", size = 9, color = "black" })
    end
  end
  cv:text(x0 + side / 2, y0 + side + 14, "receiver", { align = "center", valign = "top", size = 9, color = "black" })
  if k > 1 then
    cv:text(rect.x + 2, y0 + side + 25, string.format("a square per %d x %d processors", k, k),
      { valign = "top", size = 8, color = "dimgray" })
  end
  cv:text(rect.x + 6, y0 + side / 2, "sender", { align = "center", valign = "middle", size = 9, angle = -90, color = "black" })
  if self.final and vmax > 0 then
    local plot = require "retrace.plot"
    cv:text(x0 + side + 8, y0, "bytes (log)", { valign = "top", size = 9, color = "black" })
    -- the bar, its two ends as lines of their own under it (long numbers would overlap side by side)
    local bx, by = x0 + side + 8, y0 + 14
    local g = require("retrace.canvas").grid(64, 1)
    for i = 0, 63 do g:set(i, 0, i) end
    cv:grid(g, ramp, bx, by, 60, 10)
    cv:rect(bx, by, 60, 10, { stroke = "black", width = 0.5 })
    local fmt = plot.format_tick
    if vmax > vmin then
      cv:text(bx, by + 12, "min " .. fmt(vmin), { valign = "top", size = 9, color = "black" })
      cv:text(bx, by + 23, "max " .. fmt(vmax), { valign = "top", size = 9, color = "black" })
    else
      cv:text(bx, by + 12, "all " .. fmt(vmax), { valign = "top", size = 9, color = "black" })
    end
  end
  local d = { final = self.final or false, order = order, block = k, grid = { x = x0, y = y0, cell = cell },
              cells = cells, scale = self.final and vmax > 0 and { lo = vmin, hi = vmax, log = true } or nil }
  if P <= DENSE then
    d.bytes, d.count = dense(P, self.pairs or {}, "bytes"), dense(P, self.pairs or {}, "count")
  end
  self.d = d
end

return M
