--- ParaGraph node statistics: one processor's (ctx.proc, default 0) incoming and
-- outgoing messages over the scrolling time window, by peer, tag, length or
-- distance (the Hamming distance of the two processor numbers: hops on a
-- hypercube) as --node-stat says (ctx.node_stat, default peer), each a point
-- in its size colour. The messages are the last ones the view in C keeps for
-- the processor (a ring per direction).
--
-- The two plots sit side by side when the panel is wider than tall, one above
-- the other otherwise, so neither is squashed. data() gives the points drawn
-- (per half: the plot's data and the count) and, for each of the four
-- statistics, how many messages of the window had each value (`by`). By peer,
-- a peer's points lie at its place in the display order (`slot`, --order).
local colors = require "retrace.colors"
local plot = require "retrace.plot"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

M.stats = { peer = "peer", tag = "tag", length = "length", distance = "distance" }

function D:init()
  self.proc = self.ctx.proc or 0
  self.stat = self.ctx.node_stat or "peer"
end

function D:update(state, t) self.model = state end

local function hamming(a, b)
  local x, n = a ~ b, 0
  while x > 0 do n = n + (x & 1); x = x >> 1 end
  return n
end

-- A message's value under each statistic (peer: the other processor of the half).
local function value(stat, x, peer)
  if stat == "peer" then return x[peer] end
  if stat == "tag" then return x.tag or 0 end
  if stat == "length" then return x.bytes end
  return hamming(x.src, x.dst)
end

local AXES = {
  -- peers at their places in the display order (--order), labelled by number
  peer = function(P, list) return common.proc_axis(P, "peer", list) end,
  distance = function() return { label = "hops", lo = 0, zero = true } end,
  length = function() return { label = "length", unit = "B", log = "auto", zero = true } end,
  tag = function() return { label = "tag", zero = true } end,
}

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local me = self.proc
  local halves = { { title = "received by " .. me, list = m and m.received_from[me] or {}, peer = "src", t = "recv" },
                   { title = "sent by " .. me, list = m and m.sent_to[me] or {}, peer = "dst", t = "send" } }
  local out = { proc = me, stat = self.stat, by = {} }
  local side = rect.w > rect.h
  local list, slot = common.slots(ctx)
  for k, half in ipairs(halves) do
    local p = plot.new{ x = { label = "time", unit = "s", time = true, lo = lo, hi = hi },
                        y = AXES[self.stat](ctx.P, list), size = 9, legend = false }
    local bycol, by = {}, { peer = {}, tag = {}, length = {}, distance = {} }
    local n = 0
    for _, x in ipairs(half.list) do
      local t = x[half.t]
      if t >= lo and t <= hi then
        for name, counts in pairs(by) do
          local v = value(name, x, half.peer)
          counts[v] = (counts[v] or 0) + 1
        end
        local col = colors.message_size(x.bytes)
        local s = bycol[col] or { {}, {} }
        bycol[col] = s
        local v = value(self.stat, x, half.peer)
        s[1][#s[1] + 1], s[2][#s[2] + 1] = t, self.stat == "peer" and slot[v] or v
        n = n + 1
      end
    end
    for col, s in pairs(bycol) do p:points(s[1], s[2], { color = col, radius = 2.5 }) end
    local box
    if side then
      box = { x = rect.x + (k - 1) * rect.w / 2, y = rect.y, w = rect.w / 2, h = rect.h }
    else
      box = { x = rect.x, y = rect.y + (k - 1) * rect.h / 2, w = rect.w, h = rect.h / 2 }
    end
    -- a one-line heading in small type (a plot title would take the plot's room)
    cv:text(box.x + box.w / 2, box.y + 1, half.title, { align = "center", valign = "top", size = 9, color = "black" })
    p:draw(cv, { x = box.x, y = box.y + 12, w = box.w, h = box.h - 12 })
    local name = k == 1 and "incoming" or "outgoing"
    out[name] = p:data()
    out[name .. "_count"] = n
    -- counts by value as lists of {value, count} (value order) for every statistic
    local lists = {}
    for stat, counts in pairs(by) do
      local l = {}
      for v, c in pairs(counts) do l[#l + 1] = { value = v, count = c } end
      table.sort(l, function(a, b) return a.value < b.value end)
      lists[stat] = l
    end
    out.by[name] = lists
  end
  out.layout = side and "side by side" or "stacked"
  out.order, out.slot = list, slot
  self.d = out
end

return M
