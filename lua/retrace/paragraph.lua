--- retrace.paragraph: the live state of a ParaGraph replay, shared by the
-- displays of `retrace paragraph` (displays/paragraph/).
--
--   local pg = require "retrace.paragraph"
--   local info = pg.prescan(path [, opts])       -- one pass before the replay (below)
--   local m = pg.model(info [, {from =, to =}])  -- the live state
--   local rp = replay.new(path, m:callbacks())   -- feeds m as the replay runs
--   rp:run_until(t); m:sync(rp, t)               -- every frame: bring m to time t
--   m:finish(rp)                                 -- at the end of the run
--   pg.gray_order(P) -> {0, 1, 3, 2, ...}        -- axis position i (1-based) -> processor
--
-- info = {P, span = {t0, t1}, procs = {[id + 1] = {id, first, last}}, max_pending,
-- max_pending_bytes, max_queue, max_queue_bytes, messages, records, unit, scale_width,
-- tasks = {...}}. Times are trace seconds.
--
-- The model keeps, per processor, its state now and its state changes since the
-- oldest time a display still shows (m:keep(t) lets older ones go), the time in
-- each state, how long exactly k processors were in each state (the concurrency
-- profile), the messages received (for lines drawn over time), the messages
-- pending now (from the replay), changes of the pending count and volume (deltas,
-- for traffic over time), the cumulative sender x receiver matrix and the
-- collective instances (the k-th occurrence of a collective region on each
-- participant is one instance).
--
-- States: 1 busy, 2 overhead, 3 idle (pg.BUSY, pg.OVERHEAD, pg.IDLE; pg.state_names).
-- A processor is idle before its first and after its last record (info.procs[].last).
local replay = require "retrace.replay"

local M = {}

M.BUSY, M.OVERHEAD, M.IDLE = 1, 2, 3
M.state_names = { "busy", "overhead", "idle" }
local code = { busy = 1, overhead = 2, idle = 3 }

--- Gray-code order of P processors: position i (1-based) holds (i-1) XOR ((i-1) >> 1),
-- values >= P skipped (P = 8: 0 1 3 2 6 7 5 4).
function M.gray_order(P)
  local out, i = {}, 0
  while #out < P do
    local g = i ~ (i >> 1)
    if g < P then out[#out + 1] = g end
    i = i + 1
  end
  return out
end

--- Natural order 0..P-1 (1-based list).
function M.natural_order(P)
  local out = {}
  for i = 1, P do out[i] = i - 1 end
  return out
end

--- A number rounded up to 1, 2 or 5 times a power of ten.
function M.nice_ceil(v)
  if v <= 0 then return 1 end
  local e = 10.0 ^ math.floor(math.log(v, 10))
  for _, k in ipairs({ 1, 2, 5, 10 }) do
    if k * e >= v * (1 - 1e-12) then return k * e end
  end
  return 10 * e
end

--- The pre-pass (replay.prescan: one streaming pass of the whole trace). opts: format,
-- compstats (false: old-format PICL compstats brackets are not overhead).
function M.prescan(path, opts)
  opts = opts or {}
  local ps, err = replay.prescan(path, { format = opts.format, compstats = opts.compstats })
  if not ps then return nil, err end
  if ps.t0 == nil or ps.t0 > ps.t1 then return nil, path .. ": no records" end
  local info = { ps = ps, P = ps.processors, span = { ps.t0, ps.t1 }, procs = {}, max_queue = ps.max_queue,
                 max_queue_bytes = ps.max_queue_bytes, messages = ps.messages, records = ps.records,
                 format = ps.format, tasks = ps.tasks or {}, max_pending = ps.max_pending,
                 max_pending_bytes = ps.max_pending_bytes, unit = ps.unit, scale_width = ps.scale_width }
  for i = 0, ps.processors - 1 do
    local p = ps.procs[i + 1]
    info.procs[i + 1] = { id = i, first = p and p.first or ps.t1, last = p and p.last or ps.t0 }
  end
  return info
end

local Model = {}
Model.__index = Model

--- The live model for a trace described by `info` (from prescan). opts.from / opts.to:
-- the window over which times, profiles and matrices accumulate.
function M.model(info, opts)
  opts = opts or {}
  local P = info.P
  local self = setmetatable({
    info = info, P = P, from = opts.from or -math.huge, to = opts.to or math.huge,
    now = info.span[1], cur = {}, ht = {}, hs = {}, acc = {}, finished = {},
    count = { 0, 0, P }, prof = { {}, {}, {} }, prof_t = info.span[1],
    done = {}, pending = {}, deltas = {}, base = { 0, 0 },
    cum_count = {}, cum_bytes = {}, coll_n = 0, coll_list = {}, received_from = {}, sent_to = {},
    used = {}, finishes = {}, fin_i = 1, ended = false,
  }, Model)
  for k = 1, 3 do for c = 0, P do self.prof[k][c] = 0 end end
  for i = 0, P - 1 do
    self.cur[i] = M.IDLE
    self.ht[i], self.hs[i] = { -math.huge }, { M.IDLE }
    self.acc[i] = { 0, 0, 0, t = info.span[1] }
    self.cum_count[i], self.cum_bytes[i] = {}, {}
    for j = 0, P - 1 do self.cum_count[i][j], self.cum_bytes[i][j] = 0, 0 end
    self.finishes[#self.finishes + 1] = { info.procs[i + 1].last, i }
    self.received_from[i], self.sent_to[i] = {}, {}
  end
  table.sort(self.finishes, function(a, b) return a[1] < b[1] end)
  return self
end

-- overlap of [a, b] with the accumulation window
local function clip(self, a, b)
  if a < self.from then a = self.from end
  if b > self.to then b = self.to end
  return b > a and b - a or 0
end

-- Profile time up to t at the current counts.
local function profile_to(self, t)
  local dt = clip(self, self.prof_t, t)
  if dt > 0 then
    local c, pr = self.count, self.prof
    pr[1][c[1]] = pr[1][c[1]] + dt
    pr[2][c[2]] = pr[2][c[2]] + dt
    pr[3][c[3]] = pr[3][c[3]] + dt
  end
  if t > self.prof_t then self.prof_t = t end
end

-- Processor p enters state s at time t.
local function set_state(self, p, t, s)
  local old = self.cur[p]
  local a = self.acc[p]
  if t > a.t then
    a[old] = a[old] + clip(self, a.t, t)
    a.t = t
  end
  if old == s then return end
  profile_to(self, t)
  self.count[old] = self.count[old] - 1
  self.count[s] = self.count[s] + 1
  self.cur[p] = s
  local ht, hs = self.ht[p], self.hs[p]
  if ht[#ht] == t then
    hs[#hs] = s -- a zero-length state: the later one wins
    if #hs > 1 and hs[#hs - 1] == s then ht[#ht], hs[#hs] = nil, nil end
  else
    ht[#ht + 1], hs[#hs + 1] = t, s
  end
end

-- Processors whose last record lies before t (at or before when `upto`) turn idle.
local function run_finishes(self, t, upto)
  local f = self.finishes
  while self.fin_i <= #f do
    local e = f[self.fin_i]
    if e[1] < t or (upto and e[1] <= t) then
      self.finished[e[2]] = true
      set_state(self, e[2], e[1], M.IDLE)
      self.fin_i = self.fin_i + 1
    else
      break
    end
  end
end

-- A change of the pending set: count dc and bytes db at time t, to processor dst.
local function delta(self, t, dc, db, dst)
  local d = self.deltas
  d[#d + 1] = { t, dc, db, dst }
end

--- The replay callbacks that feed the model (merged into `opts` when given).
function Model:callbacks(opts)
  opts = opts or {}
  opts.on_state = function(p, t, _, new)
    if p < 0 or p >= self.P then return end
    run_finishes(self, t, false)
    if self.finished[p] then return end
    set_state(self, p, t, code[new])
    if t > self.now then self.now = t end
  end
  opts.on_send = function(m)
    delta(self, m.send_time, 1, m.bytes, m.dst)
  end
  opts.on_message = function(m)
    self:message(m)
  end
  opts.on_collective = function(c)
    self:collective(c)
  end
  return opts
end

--- A message received (send_time, recv_time, src, dst, bytes, tag).
function Model:message(m)
  delta(self, m.recv_time, -1, -m.bytes, m.dst)
  local d = { src = m.src, dst = m.dst, bytes = m.bytes, tag = m.tag, send = m.send_time, recv = m.recv_time }
  self.done[#self.done + 1] = d
  if m.src >= 0 and m.src < self.P and m.dst >= 0 and m.dst < self.P and m.send_time >= self.from
    and m.send_time <= self.to then
    self.cum_count[m.src][m.dst] = self.cum_count[m.src][m.dst] + 1
    self.cum_bytes[m.src][m.dst] = self.cum_bytes[m.src][m.dst] + m.bytes
    self.used[m.src * self.P + m.dst] = true
    local rf, st = self.received_from[m.dst], self.sent_to[m.src]
    rf[#rf + 1] = d
    st[#st + 1] = d
  end
end

--- A collective instance completed (the engine's on_collective): kept as
-- {t0, t1, lo, hi (lowest and highest participant), n (participants), bytes}.
function Model:collective(c)
  local lo, hi = math.huge, -math.huge
  for _, part in ipairs(c.parts) do
    if part.proc < lo then lo = part.proc end
    if part.proc > hi then hi = part.proc end
  end
  self.coll_list[#self.coll_list + 1] = { t0 = c.first_begin, t1 = c.last_end, lo = lo, hi = hi,
    n = #c.parts, bytes = c.bytes, region = c.region }
  self.coll_n = self.coll_n + 1
end

--- Bring the model to time t after the replay has run up to t: processors past
-- their last record turn idle, the pending messages are read from the replay.
function Model:sync(rp, t)
  run_finishes(self, t, true)
  if t > self.now then self.now = t end
  for p = 0, self.P - 1 do
    local a = self.acc[p]
    if t > a.t then
      a[self.cur[p]] = a[self.cur[p]] + clip(self, a.t, t)
      a.t = t
    end
  end
  profile_to(self, t)
  local pend = rp:pending()
  self.pending = pend
  local q, qb = {}, {}
  for i = 0, self.P - 1 do q[i], qb[i] = 0, 0 end
  local pc, pb = 0, 0
  for _, m in ipairs(pend) do
    if m.dst >= 0 and m.dst < self.P then
      q[m.dst], qb[m.dst] = q[m.dst] + 1, qb[m.dst] + m.bytes
    end
    pc, pb = pc + 1, pb + m.bytes
  end
  self.queue, self.queue_bytes = q, qb
  self.pending_count, self.pending_bytes = pc, pb
  self.high = self.high or {}
  self.high_bytes = self.high_bytes or {}
  for i = 0, self.P - 1 do
    local pr = rp:proc(i)
    self.high[i] = pr and pr.max_queue or 0
    self.high_bytes[i] = pr and pr.max_queue_bytes or 0
  end
end

--- End of the run: every processor idle from its last record, accumulations closed at the end.
function Model:finish(rp, t)
  t = t or self.info.span[2]
  self:sync(rp, t)
  self.ended = true
end

--- Forget state changes, messages, deltas and collectives that end before t
-- (every display that draws over time shows nothing older).
function Model:keep(t)
  if t == -math.huge then return end
  for p = 0, self.P - 1 do
    local ht, hs = self.ht[p], self.hs[p]
    -- keep the last change at or before t
    local k = 1
    while k + 1 <= #ht and ht[k + 1] <= t do k = k + 1 end
    if k > 1 then
      table.move(ht, k, #ht, 1)
      table.move(hs, k, #hs, 1)
      for i = #ht - k + 2, #ht do ht[i], hs[i] = nil, nil end
    end
  end
  local function prune(list, alive)
    local j = 0
    for i = 1, #list do
      if alive(list[i]) then j = j + 1; list[j] = list[i] end
    end
    for i = j + 1, #list do list[i] = nil end
  end
  prune(self.done, function(d) return d.recv >= t end)
  local b = self.base
  prune(self.deltas, function(d)
    if d[1] < t then b[1], b[2] = b[1] + d[2], b[2] + d[3]; return false end
    return true
  end)
  prune(self.coll_list, function(c) return c.t1 >= t end)
end

--- The state of processor p at time t (from the changes kept).
function Model:state_at(p, t)
  local ht, hs = self.ht[p], self.hs[p]
  local s = M.IDLE
  for i = 1, #ht do
    if ht[i] <= t then s = hs[i] else break end
  end
  return s
end

--- Time per state per column: for processor p over [lo, hi] in W columns, up to
-- the model's time. Calls add(col, state, seconds) for every piece (col 1-based).
function Model:raster(p, lo, hi, W, add)
  local ht, hs = self.ht[p], self.hs[p]
  local now = math.min(self.now, hi)
  local dt = (hi - lo) / W
  for i = 1, #ht do
    local a, b = ht[i], ht[i + 1] or now
    if b > now then b = now end
    if a < lo then a = lo end
    if b > a then
      local s = hs[i]
      local c0 = math.floor((a - lo) / dt)
      local c1 = math.min(math.floor((b - lo) / dt), W - 1)
      if c0 == c1 then
        add(c0 + 1, s, b - a)
      else
        add(c0 + 1, s, lo + (c0 + 1) * dt - a)
        for c = c0 + 1, c1 - 1 do add(c + 1, s, dt) end
        add(c1 + 1, s, b - (lo + c1 * dt))
      end
    end
    if ht[i + 1] and ht[i + 1] >= now then break end
  end
end

--- Busy fraction of p over [a, b] (the changes kept must reach back to a).
function Model:busy_fraction(p, a, b)
  if b <= a then return self.cur[p] == M.BUSY and 1 or 0 end
  local ht, hs = self.ht[p], self.hs[p]
  -- the last change at or before a (binary search), then forward to b
  local i, j = 1, #ht
  while i < j do
    local k = (i + j + 1) // 2
    if ht[k] <= a then i = k else j = k - 1 end
  end
  local busy = 0
  while i <= #ht and ht[i] < b do
    local x, y = math.max(ht[i], a), math.min(ht[i + 1] or b, b)
    if y > x and hs[i] == M.BUSY then busy = busy + (y - x) end
    i = i + 1
  end
  return busy / (b - a)
end

--- Percent of the window each processor spent in each state:
-- {{id, busy, overhead, idle}, ...} (the window: [max(from, t0), min(to, t1)]).
function Model:summary()
  local t0, t1 = math.max(self.from, self.info.span[1]), math.min(self.to, self.info.span[2])
  local span = t1 - t0
  local out = {}
  for p = 0, self.P - 1 do
    local a = self.acc[p]
    local f = span > 0 and 100 / span or 0
    out[p + 1] = { id = p, busy = a[1] * f, overhead = a[2] * f, idle = a[3] * f }
  end
  return out
end

--- Concurrency profile: {busy = {[k + 1] = percent of the window with exactly k busy}, overhead, idle}.
function Model:profile()
  local t0, t1 = math.max(self.from, self.info.span[1]), math.min(self.to, self.info.span[2])
  local span = t1 - t0
  local out = {}
  for s = 1, 3 do
    local l = {}
    for k = 0, self.P do l[k + 1] = span > 0 and 100 * self.prof[s][k] / span or 0 end
    out[M.state_names[s]] = l
  end
  return out
end

--- Number of processors in each state now.
function Model:counts()
  return { busy = self.count[1], overhead = self.count[2], idle = self.count[3] }
end

return M
