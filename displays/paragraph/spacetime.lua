--- ParaGraph spacetime diagram: a horizontal line per processor drawn while it
-- is busy or in overhead, blank while idle; every message a line from (send
-- time, sender) to (receive time, receiver) in its size colour; collective
-- instances as translucent bands across their participants.
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(true)

-- colours of message sizes met (the mode is fixed for a run; reset in init)
local size_colour = {}

function D:init() size_colour = {} end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P), colors.message_size_legend())
  local pr = d.plot
  local W = math.max(1, math.floor(pr.w))
  local function px(t) return pr.x + (t - lo) / (hi - lo) * pr.w end
  local function py(p) return pr.y + (P - 1 - p + 0.5) * pr.h / P end
  d.messages, d.bands = {}, 0
  local tl = common.timeline(ctx, W, P)
  if not m then self.d = d; return end
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  -- collective bands: per pixel column the rows covered, drawn as runs
  local cover = {}
  for _, c in ipairs(m.coll_list) do
    if c.t1 >= lo and c.t0 <= hi then
      local c0 = math.max(1, math.floor((c.t0 - lo) / (hi - lo) * W) + 1)
      local c1 = math.min(W, math.floor((c.t1 - lo) / (hi - lo) * W) + 1)
      for k = c0, c1 do
        local e = cover[k]
        if not e then cover[k] = { c.lo, c.hi, c.bytes / math.max(1, c.n) }
        else
          if c.lo < e[1] then e[1] = c.lo end
          if c.hi > e[2] then e[2] = c.hi end
          if c.bytes / math.max(1, c.n) > e[3] then e[3] = c.bytes / math.max(1, c.n) end
        end
      end
      d.bands = d.bands + 1
    end
  end
  local k = 1
  while k <= W do
    local e = cover[k]
    if e then
      local j = k
      while cover[j + 1] and cover[j + 1][1] == e[1] and cover[j + 1][2] == e[2] do j = j + 1 end
      local col = colors.message_size(e[3])
      local y0, y1 = py(e[2]) - pr.h / P / 2, py(e[1]) + pr.h / P / 2
      local r, g, b = colors.parse(col)
      cv:rect(pr.x + k - 1, y0, j - k + 1, y1 - y0, { fill = { r, g, b, 0.25 } })
      k = j + 1
    else
      k = k + 1
    end
  end
  -- processor lines: runs of columns where the processor is not idle most of the time
  local seg = canvas.pack(4)
  local rows -- the raster's dominant state per cell, a byte per cell (0 idle, 1 overhead, 2 busy, 255 empty)
  if tl then
    rows = tl:grid("state"):dump():gsub("(.)...", "%1")
  end
  for p = 0, P - 1 do
    if rows then
      -- runs of cells where the processor was mostly busy or in overhead
      local base = tl:row_of(p) * W
      local row = rows:sub(base + 1, base + W)
      local c = 1
      while true do
        local a, b = row:find("[\1\2]+", c)
        if not a then break end
        seg:push(pr.x + a - 1, py(p), pr.x + b, py(p))
        c = b + 1
      end
    else
      for a, b in common.active_runs(m, p, lo, hi, W) do seg:push(pr.x + a - 1, py(p), pr.x + b, py(p)) end
    end
  end
  cv:segments(seg, { color = "black", width = math.max(1, math.min(3, pr.h / P / 4)) })
  -- messages, each one line: received ones batched by size colour (one segment
  -- pack per colour), those in flight dashed from their send to now
  local packs, order = {}, {}
  local function msg(src, dst, t0, t1, bytes, pending)
    if t1 < lo or t0 > hi then return end
    local col = size_colour[bytes]
    if not col then col = colors.message_size(bytes); size_colour[bytes] = col end
    local x0, y0, x1, y1 = px(t0), py(src), px(t1), py(dst)
    if pending then
      cv:line(x0, y0, x1, y1, { color = col, width = 1.5, dash = { 3, 2 } })
    else
      local pk = packs[col]
      if not pk then pk = canvas.pack(4); packs[col] = pk; order[#order + 1] = col end
      pk:push(x0, y0, x1, y1)
    end
    if #d.messages < 500 then
      d.messages[#d.messages + 1] = { src = src, dst = dst, send = t0, recv = (not pending) and t1 or nil,
        bytes = bytes, color = col, x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
    end
  end
  for _, x in ipairs(m.done) do msg(x.src, x.dst, x.send, x.recv, x.bytes, false) end
  -- Cairo strokes many long crossing lines in one path slowly when it antialiases
  -- (2500 lines: 60 ms against 4.5 ms): past a few hundred, crisp lines
  local nlines = 0
  for _, col in ipairs(order) do nlines = nlines + packs[col]:len() end
  cv:save()
  if nlines > 300 then cv:antialias(false) end
  for _, col in ipairs(order) do cv:segments(packs[col], { color = col, width = nlines > 300 and 1 or 1.5 }) end
  cv:restore()
  for _, x in ipairs(m.pending) do msg(x.src, x.dst, x.send_time, m.now, x.bytes, true) end
  cv:restore()
  d.window = { lo, hi }
  self.d = d
end

return M
