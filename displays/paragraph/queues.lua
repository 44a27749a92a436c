--- ParaGraph message queues: a bar per processor, its incoming queue (messages
-- sent to it and not yet received; count or bytes) now in dark, the highest it
-- has been in light. When the processors outnumber the room (a bar per 3
-- pixels), a bar stands for b consecutive processors and shows the largest of
-- their queues now and the highest of their marks; data() gives b (`bin`) and
-- each bar's first and last processor (`bins`; bars follow --order, whose list
-- and places are `order` and `slot`), beside the per-processor lists.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function M.new(ctx, opts) return setmetatable({ ctx = ctx, opts = opts or {}, cur = {}, hi = {} }, D) end

function D:update(state, t)
  local bytes = self.ctx.volume == "bytes"
  for p = 0, self.ctx.P - 1 do
    self.cur[p + 1] = (bytes and state.queue_bytes or state.queue)[p] or 0
    self.hi[p + 1] = (bytes and state.high_bytes or state.high)[p] or 0
  end
end

function D:draw(cv, rect)
  local P, bytes = self.ctx.P, self.ctx.volume == "bytes"
  local top = bytes and self.ctx.info.max_queue_bytes or self.ctx.info.max_queue
  for p = 1, P do self.cur[p] = self.cur[p] or 0; self.hi[p] = self.hi[p] or 0 end
  local b = math.max(1, math.ceil(P / math.max(1, math.floor((rect.w - 50) / 3))))
  -- bars in the display order (--order): a bar holds b consecutive places of it
  local list, slot = common.slots(self.ctx)
  local xs, cur, hi, bins = {}, {}, {}, {}
  for i = 1, math.ceil(P / b) do
    local a, z = (i - 1) * b, math.min(P, i * b) - 1
    local c, h = 0, 0
    for s = a + 1, z + 1 do
      local p = list[s] + 1
      if self.cur[p] > c then c = self.cur[p] end
      if self.hi[p] > h then h = self.hi[p] end
    end
    xs[i], cur[i], hi[i], bins[i] = (a + z) / 2, c, h, { list[a + 1], list[z + 1] }
  end
  local light, dark = colors.ink("#9fc3e6"), colors.ink("#1f4e9c")
  local x = common.proc_axis(P, nil, list)
  if b > 1 then x.label = string.format("%s (bars of %d: the largest)", x.label, b) end
  self.d = common.plot_with_strip(cv, rect, { x = x, y = { label = bytes and "queued bytes"
    or "queued messages", unit = bytes and "B" or nil, lo = 0, hi = math.max(top, 1) } },
    { { "now", dark }, { "highest", light } }, function(p)
      p:bars(xs, hi, { width = 0.7 * b, color = light, label = "highest" })
      p:bars(xs, cur, { width = 0.7 * b, color = dark, label = "now" })
    end)
  self.d.current, self.d.high = self.cur, self.hi
  self.d.bin = b
  self.d.order, self.d.slot = list, slot
  if b > 1 then self.d.bins = bins end
end

return M
