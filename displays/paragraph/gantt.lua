--- ParaGraph Gantt chart: a row per processor, coloured busy / overhead / idle
-- (traffic lights) over the scrolling time window; a column shows the state
-- the processor spent most of that column's time in.
local common = require "retrace.displays.paragraph.common"
local pg = require "retrace.paragraph"

local M, D = common.display(true)

-- Per processor, per column, the state with the most time (0-based palette index).
function M.columns(model, p, lo, hi, W)
  local best = {}
  local tb, to, ti = {}, {}, {}
  local acc = { [pg.BUSY] = tb, [pg.OVERHEAD] = to, [pg.IDLE] = ti }
  model:raster(p, lo, hi, W, function(c, s, dt) acc[s][c] = (acc[s][c] or 0) + dt end)
  for c = 1, W do
    local b, o, i = tb[c] or 0, to[c] or 0, ti[c] or 0
    if b + o + i > 0 then
      if b >= o and b >= i then best[c] = 0 elseif o >= i then best[c] = 1 else best[c] = 2 end
    else
      best[c] = -1
    end
  end
  return best
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local list, slot = common.slots(ctx)
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P, nil, list), common.state_items())
  local pr = d.plot
  local W = math.max(1, math.floor(pr.w))
  local tl = common.proc_timeline(ctx, W, pr.h)
  if tl then
    -- the C raster in the display order: a row per processor (several when they outnumber the pixel rows)
    local _, R = tl:size()
    common.timeline_rows(cv, tl:grid("state"), R, common.timeline_palette(), pr, W)
  elseif m then
    local g = common.grid(self, W, P)
    for p = 0, P - 1 do
      local row = M.columns(m, p, lo, hi, W)
      g:load(string.pack(string.rep("i4", W), table.unpack(row)), (P - 1 - slot[p]) * W)
    end
    cv:grid(g, self.pal or common.state_palette(), pr.x, pr.y, W, pr.h)
  end
  d.rows = common.proc_rows(pr, P, slot)
  d.window = { lo, hi }
  self.d = d
end

return M
