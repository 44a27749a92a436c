--- ParaGraph critical path: the spacetime diagram drawn light (processor lines
-- while not idle, every message a line from its send to its receive) with the
-- critical path on top in red: its processor segments and the messages that
-- join them. The path comes from a first pass over the trace (ctx.path), so
-- the animation draws it as the replay reaches it. Messages and the parts of
-- the path already passed are drawn once, into pictures the display keeps
-- while the window stays; a frame adds what is new.
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(true)

local LIGHT = "#c8c8c8"

--- Path colour: red, black in gray mode.
function M.path_color()
  return colors.mode == "gray" and "#000000" or "#e00000"
end

-- A copy of the path's list sorted by the field `key` (when a part is complete).
local function by_end(list, key)
  local out = {}
  for i, x in ipairs(list) do out[i] = x end
  table.sort(out, function(a, b) return a[key] < b[key] end)
  return out
end

-- The messages received since the display last looked, drawn light into the layer of
-- the window [lo, hi] over the plot box pr (tachyons counted). Returns the layer, its offset.
local function add_messages(self, m, lo, hi, pr, slot)
  return common.message_layer(self, m, lo, hi, pr, slot, function(list, px, py, layer, ox, oy, new)
    if new then self.tachyons = 0 end
    local pk = canvas.pack(4)
    for _, x in ipairs(list) do
      if not (math.max(x.send, x.recv) < lo or math.min(x.send, x.recv) > hi) then
        pk:push(px(x.send) - ox, py(x.src) - oy, px(x.recv) - ox, py(x.dst) - oy)
        if x.recv < x.send then self.tachyons = self.tachyons + 1 end
      end
    end
    if #pk > 0 then layer:segments(pk, { color = LIGHT, width = 1 }) end
  end)
end

--- Between frames: take the messages new in the view into the kept picture.
D.absorb = common.absorber(add_messages)

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local list, slot = common.slots(ctx)
  local red = M.path_color()
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P, nil, list),
    { { "critical path", red }, { "other activity and messages", LIGHT } })
  local pr = d.plot
  self.pr = pr
  local W = math.max(1, math.floor(pr.w))
  local function px(t) return pr.x + (t - lo) / (hi - lo) * pr.w end
  local function py(p) return pr.y + (P - 1 - slot[p] + 0.5) * pr.h / P end
  local cp = ctx.path
  d.critical_path = cp and { length = cp.length, segments = cp.segments, messages = cp.messages } or nil
  d.drawn = { segments = {}, messages = {} }
  d.tachyons = 0
  self.tl = common.proc_timeline(ctx, W, pr.h)
  if not m then self.d = d; return end
  local now = self.t or m.now
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  local lw = math.max(1, math.min(3, pr.h / P / 4))
  d.rows_per_line = common.activity_lines(self, cv, self.tl, m, pr, lo, hi, W, LIGHT)
  -- messages received: drawn once into a layer that holds the window's
  local layer, ox, oy = add_messages(self, m, lo, hi, pr, slot)
  cv:draw_image(layer, ox, oy)
  d.tachyons = self.tachyons
  local dashed = canvas.pack(4)
  for _, x in ipairs(m.pending) do dashed:push(px(x.send_time), py(x.src), px(now), py(x.dst)) end
  cv:save()
  if #dashed > 300 then cv:antialias(false) end -- (many crossing antialiased lines stroke slowly)
  if #dashed > 0 then cv:segments(dashed, { color = LIGHT, width = 1, dash = { 3, 2 } }) end
  cv:restore()
  -- the path as far as the replay has come: the parts complete before now drawn once
  -- into a layer of their own, the part the replay is inside every frame
  if cp then
    local pl, px0, py0, pnew = common.layer(self, "path", lo .. " " .. hi, pr)
    if pnew or not self.segs then
      self.segs, self.msgs = by_end(cp.segments, "to"), by_end(cp.messages, "recv")
      self.si, self.mi, self.done_segs, self.done_msgs = 1, 1, {}, {}
    end
    local function segment(s, b, layer_x, layer_y, target)
      local x0, x1 = px(math.max(s.from, lo)), px(math.min(b, hi))
      target:line(x0 - layer_x, py(s.proc) - layer_y, math.max(x1, x0 + 1) - layer_x, py(s.proc) - layer_y,
        { color = red, width = lw + 2 })
      return { proc = s.proc, from = s.from, to = b, x0 = x0, x1 = x1, y = py(s.proc) }
    end
    local segs, msgs = self.segs, self.msgs
    while segs[self.si] and segs[self.si].to <= now do
      local s = segs[self.si]
      if s.to >= lo and s.from <= hi then self.done_segs[#self.done_segs + 1] = segment(s, s.to, px0, py0, pl) end
      self.si = self.si + 1
    end
    while msgs[self.mi] and msgs[self.mi].recv <= now do
      local x = msgs[self.mi]
      if x.recv >= lo and x.send <= hi then
        local x0, y0, x1, y1 = px(x.send), py(x.src), px(x.recv), py(x.dst)
        pl:line(x0 - px0, y0 - py0, x1 - px0, y1 - py0, { color = red, width = 2 })
        self.done_msgs[#self.done_msgs + 1] = { src = x.src, dst = x.dst, send = x.send, recv = x.recv,
                                                x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
      end
      self.mi = self.mi + 1
    end
    cv:draw_image(pl, px0, py0)
    for i, s in ipairs(self.done_segs) do d.drawn.segments[i] = s end
    for i, x in ipairs(self.done_msgs) do d.drawn.messages[i] = x end
    -- the segment the replay is inside (the path's parts follow each other in time)
    for i = self.si, #segs do
      local s = segs[i]
      if s.from > now then break end
      if now >= lo and s.from <= hi then
        d.drawn.segments[#d.drawn.segments + 1] = segment(s, now, 0, 0, cv)
      end
    end
  end
  cv:restore()
  d.window = { lo, hi }
  self.d = d
end

return M
