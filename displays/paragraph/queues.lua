--- ParaGraph message queues: a bar per processor, its incoming queue (messages
-- sent to it and not yet received; count or bytes) now in dark, the highest it
-- has been in light.
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
  local xs = {}
  for p = 0, P - 1 do xs[p + 1] = p; self.cur[p + 1] = self.cur[p + 1] or 0; self.hi[p + 1] = self.hi[p + 1] or 0 end
  local light, dark = colors.ink("#9fc3e6"), colors.ink("#1f4e9c")
  self.d = common.plot_with_strip(cv, rect, { x = common.proc_axis(P), y = { label = bytes and "queued bytes"
    or "queued messages", unit = bytes and "B" or nil, lo = 0, hi = math.max(top, 1) } },
    { { "now", dark }, { "highest", light } }, function(p)
      p:bars(xs, self.hi, { width = 0.7, color = light, label = "highest" })
      p:bars(xs, self.cur, { width = 0.7, color = dark, label = "now" })
    end)
  self.d.current, self.d.high = self.cur, self.hi
end

return M
