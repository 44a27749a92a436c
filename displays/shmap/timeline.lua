--- SHMAP's time-line histogram: the rows of the references histogram, x the time
-- of each access across the whole trace; a later access overwrites an earlier one
-- in the same pixel.
local common = require "retrace.displays.shmap.common"

local M = { name = "timeline", title = "Time line" }

local function area(inner)
  return { x = inner.x, y = inner.y + 2, w = math.max(1, inner.w), h = math.max(1, inner.h - 2 - common.label_h) }
end

function M.view_opts(rect)
  local a = area(common.inner(rect))
  return { timeline = { w = a.w, h = a.h } }
end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx }, D) end

function D:update() end

function D:draw(cv, rect)
  local ctx = self.ctx
  local g = ctx.view:grids()
  local a = area(common.inner(rect))
  local t0 = math.min(ctx.info.time_first, ctx.info.time_last)
  local t1 = ctx.info.time_last
  common.title(cv, rect, M.title, "whole trace")
  cv:rect(a.x, a.y, a.w, a.h, common.canvas_bg)
  if g.timeline then cv:grid(g.timeline, ctx.palette, a.x, a.y, a.w, a.h) end
  -- the current time as a thin grey line
  local now = ctx.view:info().time
  if t1 > t0 then
    local x = a.x + (now - t0) / (t1 - t0) * a.w
    cv:rect(math.floor(x), a.y, 1, a.h, "#808080")
  end
  local by = a.y + a.h + 2
  cv:text(a.x, by, common.time(t0), { valign = "top", size = common.text_size, color = common.ink })
  cv:text(a.x + a.w, by, common.time(t1), { align = "right", valign = "top", size = common.text_size,
    color = common.ink })
  if a.w >= 200 then
    cv:text(a.x + a.w / 2, by, "trace time", { align = "center", valign = "top", size = common.text_size,
      color = common.muted })
  end
  self.out = { plot = a, axes = { x = { lo = t0, hi = t1 } }, now = now }
  return self
end

function D:data() return self.out end

return M
