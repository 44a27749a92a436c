--- ParaGraph concurrency profile (end of run): for k = 0..P, the percent of the
-- run during which exactly k processors were busy, overhead, idle (three bars
-- side by side at each k). When the counts 0..P outnumber the room (a group of
-- three bars per 6 pixels), a group stands for a bin of b consecutive counts and
-- its bars for the percent summed over the bin; data() gives b (`bin`) and each
-- bin's first and last count (`bins`), beside the percent of every k.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:finish(state) self.prof = state:profile() end

function D:draw(cv, rect)
  if not self.prof then
    self.d = common.placeholder(cv, rect, "shown at the end of the run")
    return
  end
  local P = self.ctx.P
  local b = math.max(1, math.ceil((P + 1) / math.max(1, math.floor((rect.w - 60) / 6))))
  local nb = math.ceil((P + 1) / b)
  local bins, sums = {}, {}
  for name, l in pairs(self.prof) do
    local out = {}
    for i = 1, nb do
      local v = 0
      for k = (i - 1) * b, math.min(P, i * b - 1) do v = v + (l[k + 1] or 0) end
      out[i] = v
    end
    sums[name] = out
  end
  for i = 1, nb do bins[i] = { (i - 1) * b, math.min(P, i * b - 1) } end
  local label = b > 1 and string.format("processors in the state (bins of %d)", b) or "processors in the state"
  self.d = common.plot_with_strip(cv, rect, { x = { label = label, lo = -0.6 * b, hi = P + 0.6 * b },
    y = { label = "time", unit = "%", lo = 0, hi = 100 } }, common.state_items(), function(p)
      for s, name in ipairs({ "busy", "overhead", "idle" }) do
        local xs = {}
        for i = 1, nb do xs[i] = bins[i][1] + (b - 1) / 2 + (s - 2) * 0.28 * b end
        p:bars(xs, sums[name], { width = 0.28 * b, color = colors.state(name), label = name })
      end
    end)
  self.d.bin = b
  if b > 1 then self.d.bins, self.d.binned = bins, sums end
  self.d.busy, self.d.overhead, self.d.idle = self.prof.busy, self.prof.overhead, self.prof.idle
end

return M
