--- SHMAP's references histogram: every element of every matrix on its own row
-- (matrices in ID order, each row after row, top to bottom; rows share a pixel
-- when there are more elements than pixels), each access a dot in its PE's colour
-- to the right of the element's previous ones. Dots past the right edge are
-- counted and their rows marked red at the edge. Axes: the matrices' IDs down the
-- left, where each one's rows begin; the count of accesses along the bottom.
local common = require "retrace.displays.shmap.common"

local M = { name = "refs", title = "References" }

local OVER_W = 4
local LEFT = 30      -- room for the matrix IDs
M.dot_w = 2          -- pixels per access along a row

local function area(inner)
  local w = math.max(1, inner.w - LEFT - OVER_W - 2)
  w = math.max(M.dot_w, w - w % M.dot_w)
  return { x = inner.x + LEFT, y = inner.y + 2, w = w, h = math.max(1, inner.h - 4 - common.label_h) }
end

function M.view_opts(rect)
  local a = area(common.inner(rect))
  return { refs = { rows = a.h, len = a.w // M.dot_w } }
end

local D = {}
D.__index = D

function M.new(ctx)
  local red = require("retrace.canvas").palette({ "#ff2020" })
  return setmetatable({ ctx = ctx, red = red }, D)
end

function D:update() end

local AXIS = "#808080"

function D:draw(cv, rect)
  local ctx = self.ctx
  local g, info = ctx.view:grids(), ctx.view:info()
  local a = area(common.inner(rect))
  local rows = g.refs and select(2, g.refs:size()) or 0
  local len = g.refs and g.refs:size() or 0
  local over = info.refs_overflowed
  common.title(cv, rect, M.title, over > 0 and (common.count(over) .. " dots past the edge")
    or string.format("%d px per access", M.dot_w))
  cv:rect(a.x, a.y, a.w, a.h, common.canvas_bg)
  if g.refs then
    cv:grid(g.refs, ctx.palette, a.x, a.y, a.w, a.h)
    cv:grid(g.refs_overflow, self.red, a.x + a.w + 2, a.y, OVER_W, a.h)
  end
  -- y axis: a tick and the ID where each matrix's elements begin (labels that
  -- would overlap the previous one are left out); x axis: accesses 0 .. len
  local size = common.text_size
  local elements, at, ticks, last_y = info.elements, 0, {}, -math.huge
  cv:rect(a.x - 1, a.y, 1, a.h, AXIS)
  cv:rect(a.x - 1, a.y + a.h, a.w + 1, 1, AXIS)
  for _, m in ipairs(ctx.matrices) do
    local y = a.y + (elements > 0 and at / elements or 0) * a.h
    cv:rect(a.x - 5, math.floor(y), 4, 1, AXIS)
    local labelled = y - last_y >= size
    if labelled then
      cv:text(a.x - 7, y, tostring(m.id), { align = "right", valign = "top", size = size, color = common.ink })
      last_y = y
    end
    ticks[#ticks + 1] = { id = m.id, y = y, labelled = labelled }
    at = at + m.rows * m.cols
  end
  local by = a.y + a.h + 2
  cv:text(a.x, by, "0", { valign = "top", size = size, color = common.ink })
  cv:text(a.x + a.w, by, tostring(len), { align = "right", valign = "top", size = size, color = common.ink })
  local label = a.w >= 340 and "accesses per element (rows: matrix ID)" or a.w >= 120 and "accesses" or nil
  if label then
    cv:text(a.x + a.w / 2, by, label, { align = "center", valign = "top", size = size, color = common.muted })
  end
  self.out = { plot = a, rows = rows, elements = info.elements, overflowed = over,
               row_h = rows > 0 and a.h / rows or 0, dot_w = len > 0 and a.w / len or 0,
               axes = { x = { lo = 0, hi = len }, y = ticks } }
  return self
end

function D:data() return self.out end

return M
