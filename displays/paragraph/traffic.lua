--- ParaGraph communication traffic: messages pending (sent, not yet received),
-- by count or bytes, over the scrolling time window; all processors, or one
-- processor's incoming (ctx.proc). Collective instances in progress are a
-- second series.
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:update(state, t)
  self.model, self.t = state, t
  local only = self.ctx.proc
  if only then
    self.pending_count, self.pending_bytes = state.queue[only] or 0, state.queue_bytes[only] or 0
  else
    self.pending_count, self.pending_bytes = state.pending_count, state.pending_bytes
  end
end

-- Add deltas to the display's column sums (out of order is fine) or, before lo, to its base.
local function add_deltas(self, list, lo, hi, dt, W, bytes, only)
  local sum = self.sum
  for _, e in ipairs(list) do
    if not only or e[4] == only then
      local v = bytes and e[3] or e[2]
      if e[1] < lo then self.base = self.base + v
      elseif e[1] <= hi then
        local c = math.min(W, math.floor((e[1] - lo) / dt) + 1)
        sum[c] = (sum[c] or 0) + v
      end
    end
  end
end

-- The pending changes and collectives new since the display last looked, into its
-- per-column sums over the window [lo, hi] in W columns (kept while the window stays:
-- a frame reads only what is new; out of order is fine).
local function take(self, m, lo, hi, W)
  local ctx = self.ctx
  local bytes = ctx.volume == "bytes"
  local only = ctx.proc
  local dt = (hi - lo) / W
  local key = string.format("%.17g %.17g %d %s", lo, hi, W, tostring(bytes))
  if m.view and m.view.deltas_after then
    if self.key ~= key then
      self.key, self.seq, self.sum = key, 0, {}
      local _, _, bc, bb = m.view:deltas_after(math.maxinteger)
      self.base = only and 0 or (bytes and bb or bc)
    end
    local list
    list, self.seq = m.view:deltas_after(self.seq)
    add_deltas(self, list, lo, hi, dt, W, bytes, only)
  else
    self.base, self.sum = only and 0 or (bytes and m.base[2] or m.base[1]), {}
    add_deltas(self, m.deltas, lo, hi, dt, W, bytes, only)
  end
  if only then return end
  -- collectives active at a column's end: +1 from its start's column, -1 from its end's
  local colls, cseq, reset = common.new_collectives(m, self.ckey == key and self.cseq or 0)
  if reset or self.ckey ~= key then self.ckey, self.csum, self.cbase = key, {}, 0 end
  self.cseq = cseq
  for _, c in ipairs(colls) do
    if c.t1 >= lo and c.t0 <= hi then
      local v = bytes and c.bytes or 1
      local c0 = math.floor((c.t0 - lo) / dt) + 1
      local c1 = math.floor((c.t1 - lo) / dt) + 1
      if c0 < 1 then self.cbase = self.cbase + v else self.csum[c0] = (self.csum[c0] or 0) + v end
      if c1 < 1 then self.cbase = self.cbase - v elseif c1 <= W then self.csum[c1] = (self.csum[c1] or 0) - v end
    end
  end
end

--- Between frames: take the view's new pending changes and collectives into the sums,
-- so that the view can let them go (the columns of the last drawing).
function D:absorb()
  if not (self.model and self.W) then return end
  local lo, hi = common.window(self.ctx)
  take(self, self.model, lo, hi, self.W)
end

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local bytes = ctx.volume == "bytes"
  local only = ctx.proc
  local W
  -- per column: value at the column's end (deltas summed in place: out of order is fine)
  local sum, csum = {}, {}
  local base = 0
  local top = bytes and ctx.info.max_pending_bytes or ctx.info.max_pending
  local pp = only and ctx.info.ps and ctx.info.ps.procs[require("retrace.paragraph").source_id(ctx.info, only) + 1]
  if pp then top = bytes and pp.max_queue_bytes or pp.max_queue end -- the most ever queued for it
  local collmax, cbase = 0, 0
  W = math.max(1, math.floor(rect.w)) -- at least the plot's pixel columns
  self.W = W
  local dt = (hi - lo) / W
  local now = m and math.min(m.now, hi) or lo
  local ncols = math.max(0, math.min(W, math.ceil((now - lo) / dt)))
  if m then
    take(self, m, lo, hi, W)
    base, sum = self.base, self.sum
    if not only then csum, cbase = self.csum, self.cbase end
  end
  local vals, cvals = {}, {}
  local v = base
  local vmax = 0
  for c = 1, ncols do
    v = v + (sum[c] or 0)
    vals[c] = v
    if v > vmax then vmax = v end
    cbase = cbase + (csum[c] or 0)
    cvals[c] = cbase
    if cvals[c] > collmax then collmax = cvals[c] end
  end
  local yhi = math.max(top or 0, vmax, collmax, 1)
  local legend = { { "point-to-point", colors.ink("#1f4e9c") } }
  if collmax > 0 then legend[2] = { "collectives", colors.ink("#c05000") } end
  local d = common.time_frame(cv, rect, lo, hi, { label = (bytes and "pending bytes" or "pending messages") .. (only and (" to " .. only) or ""),
    unit = bytes and "B" or nil, lo = 0, hi = yhi }, legend)
  local pr = d.plot
  local pack = canvas.pack(5)
  local cw = pr.w / W
  for c = 1, ncols do
    local h = vals[c] / yhi * pr.h
    if h > 0 then pack:push(pr.x + (c - 1) * cw, pr.y + pr.h - h, math.max(cw, 1), h, 0) end
  end
  cv:rects(pack, { palette = colors.palette({ legend[1][2] }) })
  if collmax > 0 then
    local xy = canvas.pack(2)
    for c = 1, ncols do
      xy:push(pr.x + (c - 0.5) * cw, pr.y + pr.h - cvals[c] / yhi * pr.h)
    end
    cv:path(xy, { color = legend[2][2], width = 1.2 })
  end
  d.window = { lo, hi }
  -- per pixel column up to now: pending at its end, collectives in progress
  d.series, d.collective_series = vals, cvals
  d.pending_count, d.pending_bytes = self.pending_count or 0, self.pending_bytes or 0
  d.proc = only
  self.d = d
end

return M
