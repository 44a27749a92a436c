--- ParaGraph concurrency profile (end of run): for k = 0..P, the percent of the
-- run during which exactly k processors were busy, overhead, idle (three bars
-- side by side at each k).
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
  self.d = common.plot_with_strip(cv, rect, { x = { label = "processors in the state", lo = -0.6, hi = P + 0.6 },
    y = { label = "time", unit = "%", lo = 0, hi = 100 } }, common.state_items(), function(p)
      for s, name in ipairs({ "busy", "overhead", "idle" }) do
        local xs = {}
        for k = 0, P do xs[k + 1] = k + (s - 2) * 0.28 end
        p:bars(xs, self.prof[name], { width = 0.28, color = colors.state(name), label = name })
      end
    end)
  self.d.busy, self.d.overhead, self.d.idle = self.prof.busy, self.prof.overhead, self.prof.idle
end

return M
