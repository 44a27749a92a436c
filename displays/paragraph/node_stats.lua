--- ParaGraph node statistics: one processor's (ctx.proc, default 0) incoming and
-- outgoing messages over the scrolling time window, by peer (or tag, length,
-- distance: ctx.node_stat), each a point in its size colour.
local colors = require "retrace.colors"
local plot = require "retrace.plot"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

M.stats = { peer = "peer", tag = "tag", length = "length", distance = "distance" }

function M.new(ctx, opts)
  return setmetatable({ ctx = ctx, opts = opts or {}, proc = ctx.proc or 0, stat = ctx.node_stat or "peer" }, D)
end

function D:update(state, t) self.model = state end

local function hamming(a, b)
  local x, n = a ~ b, 0
  while x > 0 do n = n + (x & 1); x = x >> 1 end
  return n
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local me = self.proc
  local halves = { { title = "incoming to " .. me, list = m and m.received_from[me] or {}, peer = "src", t = "recv" },
                   { title = "outgoing from " .. me, list = m and m.sent_to[me] or {}, peer = "dst", t = "send" } }
  local out = { proc = me, stat = self.stat }
  local h = rect.h / 2
  for k, half in ipairs(halves) do
    local y
    if self.stat == "peer" then y = { label = "peer", lo = -0.5, hi = ctx.P - 0.5 }
    elseif self.stat == "distance" then y = { label = "hops", lo = 0, zero = true }
    elseif self.stat == "length" then y = { label = "length", unit = "B", log = "auto", zero = true }
    else y = { label = "tag", zero = true } end
    local p = plot.new{ title = half.title, x = { label = "time", unit = "s", time = true, lo = lo, hi = hi },
                        y = y, size = 9, legend = false }
    local bycol = {}
    local n = 0
    for _, x in ipairs(half.list) do
      local t = x[half.t]
      if t >= lo and t <= hi then
        local v
        if self.stat == "peer" then v = x[half.peer]
        elseif self.stat == "tag" then v = x.tag or 0
        elseif self.stat == "length" then v = x.bytes
        else v = hamming(x.src, x.dst) end
        local col = colors.message_size(x.bytes)
        local s = bycol[col] or { {}, {} }
        bycol[col] = s
        s[1][#s[1] + 1], s[2][#s[2] + 1] = t, v
        n = n + 1
      end
    end
    for col, s in pairs(bycol) do p:points(s[1], s[2], { color = col, radius = 2.5 }) end
    p:draw(cv, { x = rect.x, y = rect.y + (k - 1) * h, w = rect.w, h = h })
    out[k == 1 and "incoming" or "outgoing"] = p:data()
    out[k == 1 and "incoming_count" or "outgoing_count"] = n
  end
  self.d = out
end

return M
