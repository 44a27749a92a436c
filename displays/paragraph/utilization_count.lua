--- ParaGraph utilization count: how many processors are busy (green, bottom),
-- overhead (yellow, middle) and idle (red, top) over the scrolling time window;
-- each pixel column shows the column's average counts.
local canvas = require "retrace.canvas"
local common = require "retrace.displays.paragraph.common"
local pg = require "retrace.paragraph"

local M, D = common.display(true)

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local d = common.time_frame(cv, rect, lo, hi, { label = "processors", lo = 0, hi = P },
    common.state_items())
  local pr = d.plot
  local W = math.max(1, math.floor(pr.w))
  local dt = (hi - lo) / W
  local sum = { {}, {}, {} }
  -- one raster row holds every processor: only the column sums are drawn
  local tl = common.timeline(ctx, W, 1)
  if tl then
    local R = 1
    for s, name in ipairs({ "busy", "overhead", "idle" }) do
      local cells, col = tl:times(name), sum[s]
      for r = 0, R - 1 do
        local base = r * W
        for c = 1, W do
          local v = cells[base + c]
          if v and v > 0 then col[c] = (col[c] or 0) + v end
        end
      end
    end
  elseif m then
    local slot = { [pg.BUSY] = 1, [pg.OVERHEAD] = 2, [pg.IDLE] = 3 }
    local add = function(c, s, x) local l = sum[slot[s]]; l[c] = (l[c] or 0) + x end
    for p = 0, P - 1 do m:raster(p, lo, hi, W, add) end
  end
  local pack = canvas.pack(5)
  local scale = pr.h / P
  local counts = {}
  for c = 1, W do
    local b, o, i = (sum[1][c] or 0) / dt, (sum[2][c] or 0) / dt, (sum[3][c] or 0) / dt
    if b + o + i > 0 then
      local x = pr.x + c - 1
      local y0 = pr.y + pr.h
      if b > 0 then pack:push(x, y0 - b * scale, 1, b * scale, 0) end
      if o > 0 then pack:push(x, y0 - (b + o) * scale, 1, o * scale, 1) end
      if i > 0 then pack:push(x, y0 - (b + o + i) * scale, 1, i * scale, 2) end
      counts[#counts + 1] = { c, b, o, i }
    end
  end
  cv:rects(pack, { palette = common.state_palette() })
  d.window = { lo, hi }
  d.columns = #counts
  d.last = counts[#counts] and { busy = counts[#counts][2], overhead = counts[#counts][3],
    idle = counts[#counts][4] } or nil
  self.d = d
end

return M
