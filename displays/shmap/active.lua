--- SHMAP's sliding graph of active PEs: x is trace time (computation included) in
-- a window that scrolls with the current step's time (retrace.layout.time_window,
-- "jump" or "smooth"), each step a stacked bar of its active PEs in their colours,
-- lowest PE at the bottom.
local common = require "retrace.displays.shmap.common"
local canvas = require "retrace.canvas"
local layout = require "retrace.layout"

local M = { name = "active", title = "Active PEs" }

function M.view_opts() return { active = { keep = 1 << 16 } } end

local D = {}
D.__index = D

--- ctx.window: the window's width in trace time (default: a quarter of the
-- trace's span); ctx.scroll: "jump" (default) or "smooth".
function M.new(ctx)
  local span = ctx.info.time_last - math.min(ctx.info.time_first, ctx.info.time_last)
  local width = ctx.window or (span > 0 and span / 4 or 1)
  local start = math.min(ctx.info.time_first, 0)
  return setmetatable({ ctx = ctx, pack = canvas.pack(5),
                        win = layout.time_window(width, { mode = ctx.scroll or "jump", start = start }) }, D)
end

function D:update(state, t) self.win:update(t or self.ctx.view:info().time) end

-- The plot area inside the panel: room for PE counts on the left and times below.
local function plot_area(inner)
  return { x = inner.x + 26, y = inner.y + 4, w = math.max(1, inner.w - 32), h = math.max(1, inner.h - 4 - common.label_h - 2) }
end

function D:draw(cv, rect)
  local ctx = self.ctx
  local info = ctx.view:info()
  self.win:update(info.time)
  local lo, hi = self.win.lo, self.win.hi
  common.title(cv, rect, M.title, string.format("now %d of %d", #info.active, ctx.pes))
  local a = plot_area(common.inner(rect))
  cv:rect(a.x, a.y, a.w, a.h, common.canvas_bg)
  local n = ctx.view:active_rects(self.pack, lo, hi, a.x, a.y, a.w, a.h, ctx.pes, 1)
  cv:save()
  cv:clip_rect(a.x, a.y, a.w, a.h)
  cv:rects(self.pack, { palette = ctx.palette })
  cv:restore()
  -- y: PE counts at 0, the middle and P; x: the window's ends in trace time
  local marks = { 0, ctx.pes }
  if ctx.pes >= 4 then marks[3] = ctx.pes // 2 end
  for _, v in ipairs(marks) do
    local y = a.y + a.h - v * a.h / ctx.pes
    cv:text(a.x - 4, y, tostring(v), { align = "right", valign = "middle", size = common.text_size,
      color = common.ink })
  end
  local by = a.y + a.h + 2
  cv:text(a.x, by, common.time(lo), { valign = "top", size = common.text_size, color = common.ink })
  cv:text(a.x + a.w, by, common.time(hi), { align = "right", valign = "top", size = common.text_size,
    color = common.ink })
  if a.w >= 200 then
    cv:text(a.x + a.w / 2, by, "trace time", { align = "center", valign = "top", size = common.text_size,
      color = common.muted })
  end
  self.out = { plot = a, lo = lo, hi = hi, bars = n, active = info.active, pes = ctx.pes,
               axes = { x = { lo = lo, hi = hi }, y = { lo = 0, hi = ctx.pes } } }
  return self
end

function D:data() return self.out end

return M
