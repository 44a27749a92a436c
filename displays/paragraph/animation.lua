--- ParaGraph animation: processors on a circle (natural or Gray-code order),
-- each a disc coloured by its state (busy, overhead, idle) with a ring when it
-- has messages of its own pending (sending) or waiting for it (receiving); a
-- line per pending message in its size colour. At the end of the run: a line
-- for every pair that ever exchanged a message.
--
-- When the processors outnumber the circle's room (a disc per 4 pixels of
-- circumference), a disc stands for a group of g processors consecutive in the
-- order: coloured by the state most of them are in, ringed when one of them is
-- sending or receiving, a line between two groups when a message is pending
-- between them (the size colour of the largest). A note on the picture says so;
-- data() gives g (`group`) and per disc its processors (`procs`, first and last
-- position in `order`, and the ids) and how many are in each state (`counts`).
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)
M.class = D

M.sending, M.receiving = "#1f4e9c", "#c000c0"

-- Ring colours of sending and receiving processors (in gray mode black and a
-- light grey: their own greys would be too close).
local function rings()
  if colors.mode == "gray" then return "#000000", "#9a9a9a" end
  return M.sending, M.receiving
end

function D:update(state, t)
  self.state = state
  self.final = false
  local st = {}
  for p = 0, self.ctx.P - 1 do st[p + 1] = require("retrace.paragraph").state_names[state.cur[p]] end
  self.states = st
  local lines = {}
  local snd, rcv = {}, {}
  for _, m in ipairs(state.pending) do
    lines[#lines + 1] = { m.src, m.dst, m.bytes }
    snd[m.src], rcv[m.dst] = true, true
  end
  self.lines, self.snd, self.rcv = lines, snd, rcv
end

function D:finish(state)
  self:update(state, state.now)
  local lines = {}
  for k in pairs(state.used) do
    lines[#lines + 1] = { k // self.ctx.P, k % self.ctx.P, nil }
  end
  table.sort(lines, function(a, b) return a[1] * 1e6 + a[2] < b[1] * 1e6 + b[2] end)
  self.lines, self.final = lines, true
end

--- Positions {[proc] = {x, y}} of processors on a circle in `order`.
function M.circle(order, rect, margin)
  local cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2
  local R = math.max(4, math.min(rect.w, rect.h) / 2 - margin)
  local pos = {}
  for k, p in ipairs(order) do
    local a = -math.pi / 2 + 2 * math.pi * (k - 1) / #order
    pos[p] = { cx + R * math.cos(a), cy + R * math.sin(a) }
  end
  return pos, R
end

--- Draw nodes and lines at positions pos; link_style(src, dst) -> style or nil.
function M.draw_graph(self, cv, rect, pos, r, link_style)
  local P = self.ctx.P
  local lines = {}
  for _, l in ipairs(self.lines or {}) do
    local a, b = pos[l[1]], pos[l[2]]
    if a and b and l[1] ~= l[2] then
      local style = link_style and link_style(l[1], l[2], l[3]) or
        { color = l[3] and colors.message_size(l[3]) or colors.ink("#606060"), width = 1.5 }
      if style.bend then
        cv:curve(a[1], a[2], b[1], b[2], style.bend, style)
      else
        cv:line(a[1], a[2], b[1], b[2], style)
      end
      lines[#lines + 1] = { src = l[1], dst = l[2], bytes = l[3], color = style.color }
    end
  end
  local nodes = {}
  local slots = common.slots(self.ctx)
  for p = 0, P - 1 do
    local xy = pos[p]
    local s = (self.states and self.states[p + 1]) or "idle"
    local fill = colors.state(s)
    cv:circle(xy[1], xy[2], r, { fill = fill })
    local ring
    local snd_c, rcv_c = rings()
    if not self.final and self.snd and self.snd[p] then ring = snd_c
    elseif not self.final and self.rcv and self.rcv[p] then ring = rcv_c end
    cv:circle(xy[1], xy[2], r, { stroke = ring or "black", width = ring and 2.5 or 0.8 })
    if r >= 6 then
      cv:text(xy[1], xy[2], common.proc_label(slots, p), { align = "center", valign = "middle", size = math.min(10, r),
        color = colors.contrast(fill) })
    end
    nodes[p + 1] = { id = p, x = xy[1], y = xy[2], r = r, state = s, color = fill, ring = ring }
  end
  local items = { { "busy", colors.state("busy") }, { "overhead", colors.state("overhead") },
    { "idle", colors.state("idle") } }
  if not self.final then
    local snd_c, rcv_c = rings()
    items[4] = { "sending", snd_c }
    items[5] = { "receiving", rcv_c }
  end
  local y = rect.y + 2
  for _, it in ipairs(items) do
    cv:rect(rect.x + 2, y + 2, 8, 8, it[2])
    cv:text(rect.x + 13, y + 6, it[1], { valign = "middle", size = 8, color = "black" })
    y = y + 11
  end
  if self.final then
    cv:text(rect.x + 2, y + 2, "every pair used", { valign = "top", size = 8, color = "dimgray" })
  end
  return { nodes = nodes, lines = lines, final = self.final or false }
end

-- The frame's processors gathered into n discs of g consecutive positions of order.
local function grouped(self, order, g)
  local P = self.ctx.P
  local n = math.ceil(P / g)
  local of = {}
  for i, p in ipairs(order) do of[p] = (i - 1) // g end
  local names = { "busy", "overhead", "idle" }
  local counts, states, snd, rcv = {}, {}, {}, {}
  for k = 0, n - 1 do counts[k + 1] = { busy = 0, overhead = 0, idle = 0 } end
  for p = 0, P - 1 do
    local c = counts[of[p] + 1]
    local st = (self.states and self.states[p + 1]) or "idle"
    c[st] = c[st] + 1
    if self.snd and self.snd[p] then snd[of[p]] = true end
    if self.rcv and self.rcv[p] then rcv[of[p]] = true end
  end
  for k = 1, n do
    local best = "idle"
    for _, name in ipairs(names) do if counts[k][name] > counts[k][best] then best = name end end
    states[k] = best
  end
  local lines, seen = {}, {}
  for _, l in ipairs(self.lines or {}) do
    local a, b = of[l[1]], of[l[2]]
    if a and b and a ~= b then
      local key = a * n + b
      local e = seen[key]
      if not e then
        e = { a, b, l[3] }
        seen[key] = e
        lines[#lines + 1] = e
      elseif l[3] and (not e[3] or l[3] > e[3]) then
        e[3] = l[3]
      end
    end
  end
  local gorder = {}
  for k = 1, n do gorder[k] = k - 1 end
  local proxy = { ctx = { P = n }, states = states, snd = snd, rcv = rcv, lines = lines, final = self.final }
  return proxy, gorder, counts
end

function D:draw(cv, rect)
  local inner = { x = rect.x + 70, y = rect.y, w = rect.w - 70, h = rect.h }
  local order, P = (common.slots(self.ctx)), self.ctx.P
  local _, R0 = M.circle(order, inner, 14)
  local g = math.max(1, math.ceil(P / math.max(1, math.floor(2 * math.pi * R0 / 4))))
  if g == 1 then
    local pos, R = M.circle(order, inner, 14)
    local r = math.max(2, math.min(12, math.pi * R / P * 0.6))
    self.d = M.draw_graph(self, cv, rect, pos, r)
    self.d.order = order
    return
  end
  local proxy, gorder, counts = grouped(self, order, g)
  local pos, R = M.circle(gorder, inner, 14)
  local r = math.max(1.5, math.min(12, math.pi * R / #gorder * 0.6))
  local d = M.draw_graph(proxy, cv, rect, pos, r)
  for k, node in ipairs(d.nodes) do
    local a, b = (k - 1) * g, math.min(P, k * g) - 1
    node.procs = { a, b }
    node.ids = { table.unpack(order, a + 1, b + 1) }
    node.counts = counts[k]
  end
  cv:text(rect.x + rect.w - 2, rect.y + rect.h - 2,
    string.format("a disc per %d processors (the state most are in)", g),
    { align = "right", valign = "bottom", size = 8, color = "dimgray" })
  d.group, d.order = g, order
  self.d = d
end

return M
