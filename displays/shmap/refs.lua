--- SHMAP's references histogram: every element of every matrix on its own row
-- (matrices in ID order, each row after row, top to bottom; rows share a pixel
-- when there are more elements than pixels), each access a dot in its PE's colour
-- to the right of the element's previous ones. Dots past the right edge are
-- counted and their rows marked red at the edge.
local common = require "retrace.displays.shmap.common"

local M = { name = "refs", title = "References" }

local OVER_W = 4

local function area(inner)
  return { x = inner.x, y = inner.y + 2, w = math.max(1, inner.w - OVER_W - 2), h = math.max(1, inner.h - 2) }
end

function M.view_opts(rect)
  local a = area(common.inner(rect))
  return { refs = { rows = a.h, len = a.w } }
end

local D = {}
D.__index = D

function M.new(ctx)
  local red = require("retrace.canvas").palette({ "#ff2020" })
  return setmetatable({ ctx = ctx, red = red }, D)
end

function D:update() end

function D:draw(cv, rect)
  local ctx = self.ctx
  local g, info = ctx.view:grids(), ctx.view:info()
  local a = area(common.inner(rect))
  local rows = g.refs and select(2, g.refs:size()) or 0
  local over = info.refs_overflowed
  common.title(cv, rect, M.title, over > 0 and (common.count(over) .. " dots past the edge")
    or "1 px per access")
  cv:rect(a.x, a.y, a.w, a.h, common.canvas_bg)
  if g.refs then
    cv:grid(g.refs, ctx.palette, a.x, a.y, a.w, a.h)
    cv:grid(g.refs_overflow, self.red, a.x + a.w + 2, a.y, OVER_W, a.h)
  end
  self.out = { plot = a, rows = rows, elements = info.elements, overflowed = over,
               row_h = rows > 0 and a.h / rows or 0, dot_w = g.refs and a.w / g.refs:size() or 0 }
  return self
end

function D:data() return self.out end

return M
