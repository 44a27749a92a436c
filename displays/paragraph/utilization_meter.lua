--- ParaGraph utilization meter: one bar, the share of processors busy,
-- overhead and idle now (green bottom, yellow, red top).
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:update(state, t)
  self.model, self.t = state, t
  self.now = state:counts()
end

--- A stacked single bar: parts {{value, colour, label}} in percent, into rect.
function M.stacked_bar(cv, rect, parts, ylabel)
  -- stacked by overdrawing, top part first
  local tops, base = {}, 0
  local items = {}
  for k, part in ipairs(parts) do base = base + part[1]; tops[k] = base; items[k] = { part[3], part[2] } end
  local r = { x = rect.x + rect.w / 2 - math.min(rect.w / 2, 90), y = rect.y, w = math.min(rect.w, 180), h = rect.h }
  return common.plot_with_strip(cv, r, { x = { lo = 0, hi = 1, labels = { [0.5] = "" } },
    y = { label = ylabel, unit = "%", lo = 0, hi = 100 } }, items, function(p)
      for k = #parts, 1, -1 do
        p:bars({ 0.5 }, { tops[k] }, { width = 0.6, color = parts[k][2], label = parts[k][3] })
      end
    end)
end

function D:draw(cv, rect)
  local P = self.ctx.P
  local n = self.now or { busy = 0, overhead = 0, idle = P }
  local d = M.stacked_bar(cv, rect, {
    { 100 * n.busy / P, colors.state("busy"), "busy" },
    { 100 * n.overhead / P, colors.state("overhead"), "overhead" },
    { 100 * n.idle / P, colors.state("idle"), "idle" } }, "processors")
  d.busy, d.overhead, d.idle = n.busy, n.overhead, n.idle
  d.rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h }
  self.d = d
end

return M
