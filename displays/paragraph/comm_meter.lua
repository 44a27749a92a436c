--- ParaGraph communication meter: one bar, the pending volume (count or bytes)
-- as a percent of the largest the pre-pass found (the legend says which).
local colors = require "retrace.colors"
local meter = require "retrace.displays.paragraph.utilization_meter"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:update(state, t)
  local bytes = self.ctx.volume == "bytes"
  local v = bytes and state.pending_bytes or state.pending_count
  local top = bytes and self.ctx.info.max_pending_bytes or self.ctx.info.max_pending
  self.value, self.percent = v, top > 0 and 100 * v / top or 0
end

function D:draw(cv, rect)
  local pct = self.percent or 0
  -- the axis title short enough for a small panel; the legend says what 100% is
  local what = self.ctx.volume == "bytes" and "bytes" or "messages"
  local d = meter.stacked_bar(cv, rect, { { pct, colors.ink("#1f4e9c"), what .. ", % of the most" } }, "pending")
  d.percent, d.value = pct, self.value or 0
  d.rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h }
  self.d = d
end

return M
