--- ParaGraph critical path: the spacetime diagram drawn light (processor lines
-- while not idle, every message a line from its send to its receive) with the
-- critical path on top in red: its processor segments and the messages that
-- join them. The path comes from a first pass over the trace (ctx.path), so
-- the animation draws it as the replay reaches it.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(true)

local LIGHT = "#c8c8c8"

--- Path colour: red, black in gray mode.
function M.path_color()
  return colors.mode == "gray" and "#000000" or "#e00000"
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local red = M.path_color()
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P),
    { { "critical path", red }, { "other activity and messages", LIGHT } })
  local pr = d.plot
  local W = math.max(1, math.floor(pr.w))
  local function px(t) return pr.x + (t - lo) / (hi - lo) * pr.w end
  local function py(p) return pr.y + (P - 1 - p + 0.5) * pr.h / P end
  local cp = ctx.path
  d.critical_path = cp and { length = cp.length, segments = cp.segments, messages = cp.messages } or nil
  d.drawn = { segments = {}, messages = {} }
  d.tachyons = 0
  if not m then self.d = d; return end
  local now = self.t or m.now
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  local lw = math.max(1, math.min(3, pr.h / P / 4))
  for p = 0, P - 1 do
    for a, b in common.active_runs(m, p, lo, hi, W) do
      cv:line(pr.x + a - 1, py(p), pr.x + b, py(p), { color = LIGHT, width = lw })
    end
  end
  for _, x in ipairs(m.done) do
    if not (math.max(x.send, x.recv) < lo or math.min(x.send, x.recv) > hi) then
      cv:line(px(x.send), py(x.src), px(x.recv), py(x.dst), { color = LIGHT, width = 1 })
      if x.recv < x.send then d.tachyons = d.tachyons + 1 end
    end
  end
  for _, x in ipairs(m.pending) do
    cv:line(px(x.send_time), py(x.src), px(now), py(x.dst), { color = LIGHT, width = 1, dash = { 3, 2 } })
  end
  -- the path as far as the replay has come
  if cp then
    for _, s in ipairs(cp.segments) do
      local b = math.min(s.to, now)
      if s.from <= now and b >= lo and s.from <= hi then
        local x0, x1 = px(math.max(s.from, lo)), px(math.min(b, hi))
        cv:line(x0, py(s.proc), math.max(x1, x0 + 1), py(s.proc), { color = red, width = lw + 2 })
        d.drawn.segments[#d.drawn.segments + 1] = { proc = s.proc, from = s.from, to = b, x0 = x0, x1 = x1,
                                                     y = py(s.proc) }
      end
    end
    for _, x in ipairs(cp.messages) do
      if x.recv <= now and x.recv >= lo and x.send <= hi then
        local x0, y0, x1, y1 = px(x.send), py(x.src), px(x.recv), py(x.dst)
        cv:line(x0, y0, x1, y1, { color = red, width = 2 })
        d.drawn.messages[#d.drawn.messages + 1] = { src = x.src, dst = x.dst, send = x.send, recv = x.recv,
                                                     x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
      end
    end
  end
  cv:restore()
  d.window = { lo, hi }
  self.d = d
end

return M
