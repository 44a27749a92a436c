--- retrace.paragraph: the live state of a ParaGraph replay, shared by the
-- displays of `retrace paragraph` (displays/paragraph/).
--
--   local pg = require "retrace.paragraph"
--   local info = pg.prescan(path [, opts])       -- one pass before the replay (below)
--   local m = pg.model(info [, {from =, to =}])  -- the live state
--   local rp = replay.new(path, opts)
--   m:attach(rp [, {batch =, records =}])        -- fed by the replay in C (retrace.core.pgview)
--   rp:run_until(t); m:sync(rp, t)               -- every frame: bring m to time t
--   m:finish(rp)                                 -- at the end of the run
--   pg.gray_order(P) -> {0, 1, 3, 2, ...}        -- axis position i (1-based) -> processor
--
-- info = {P, span = {t0, t1}, procs = {[id + 1] = {id, first, last}}, max_pending,
-- max_pending_bytes, max_queue, max_queue_bytes, messages, records, unit, scale_width,
-- tasks = {...}, stateless = {ids idle the whole run: no state record on a Paraver thread}}.
-- Times are trace seconds.
--
-- The model is a face of ParaGraph's view in C (core/view/rt_pg_view.h), which the
-- replay feeds without calling Lua: per processor its state now and its state
-- changes since the oldest time a display still shows (m:keep(t) lets older ones
-- go), the time in each state, how long exactly k processors were in each state
-- (the concurrency profile), the messages received since then (for lines drawn
-- over time), changes of the pending count and volume (deltas, for traffic over
-- time), the sparse sender x receiver matrix, the last messages of each processor
-- and the collective instances (the k-th occurrence of a collective region on each
-- participant is one instance). Fields the displays read (done, deltas, base,
-- coll_list, pending, queue, queue_bytes, high, high_bytes, sending, pending_count,
-- pending_bytes, used, cum_count, cum_bytes, received_from, sent_to) are pulled
-- from the view when first read after a sync, so a frame costs what its displays read.
--
-- States: 0 idle, 1 overhead, 2 busy, as in C (pg.IDLE, pg.OVERHEAD, pg.BUSY;
-- pg.state_names[s]).
-- A processor is idle before its first and after its last record (info.procs[].last).
local replay = require "retrace.replay"
local core = require "retrace.core"

local M = {}

M.IDLE, M.OVERHEAD, M.BUSY = 0, 1, 2
M.state_names = { [0] = "idle", "overhead", "busy" }

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

--- The pre-pass (replay.prescan: one replay of the whole trace). opts: format,
-- compstats (false: old-format PICL compstats brackets are not overhead),
-- critical_path (true: info.cp = the critical path from the same pass,
-- {length, start, stop, segments = {{proc, from, to}}, messages = {{src, dst, send,
-- recv, bytes}}, tachyons}), parallel (under mpirun, without critical_path: each rank
-- reads its part and the ranks combine; collective; nil, false on the ranks that did
-- not fail when another did).
function M.prescan(path, opts)
  opts = opts or {}
  local ps, err = replay.prescan(path, { format = opts.format, compstats = opts.compstats,
                                         critical_path = opts.critical_path, parallel = opts.parallel })
  if not ps then return nil, err end
  if ps.t0 == nil or ps.t0 > ps.t1 then return nil, path .. ": no records" end
  local info = { ps = ps, P = ps.processors, span = { ps.t0, ps.t1 }, procs = {}, max_queue = ps.max_queue,
                 max_queue_bytes = ps.max_queue_bytes, messages = ps.messages, records = ps.records,
                 format = ps.format, tasks = ps.tasks or {}, max_pending = ps.max_pending,
                 max_pending_bytes = ps.max_pending_bytes, unit = ps.unit, scale_width = ps.scale_width }
  -- stateless: processors idle the whole run, having no region entry where the time
  -- outside every region is idle (a Paraver thread with no state record)
  info.stateless = {}
  for i = 0, ps.processors - 1 do
    local p = ps.procs[i + 1]
    info.procs[i + 1] = { id = i, first = p and p.first or ps.t1, last = p and p.last or ps.t0,
                          enters = p and p.enters or 0 }
    if ps.outside_idle and info.procs[i + 1].enters == 0 then info.stateless[#info.stateless + 1] = i end
  end
  local cp = ps.critical_path
  if cp then
    info.cp = { length = cp.length, start = cp.start, stop = cp.stop, segments = cp.segments, messages = {},
                tachyons = cp.tachyons }
    for i, m in ipairs(cp.messages) do
      info.cp.messages[i] = { src = m.src, dst = m.dst, send = m.send_time, recv = m.recv_time, bytes = m.bytes }
    end
  end
  return info
end

--- The trace as an animation shows it when only the processors sel (the replay's
-- ids, ascending: retrace.pgscale.select_procs) are drawn: an info like prescan's
-- whose processors are those, numbered 0 .. #sel-1 in that order (info.ids[p + 1]:
-- the replay's id of processor p, info.at[id] the reverse; info.nsource: the replay's
-- count), the critical
-- path kept on them (segments on others and messages with an end among them go).
-- The model, the tracker and the displays made from it see that machine only. The
-- same info back when sel is every processor.
function M.shown(info, sel)
  if #sel == info.P then return info end
  local at = {}
  for i, p in ipairs(sel) do at[p] = i - 1 end
  local out = setmetatable({ P = #sel, ids = sel, at = at, nsource = info.P, procs = {}, stateless = {} },
                           { __index = info })
  for i, p in ipairs(sel) do
    local src = info.procs[p + 1]
    out.procs[i] = { id = i - 1, first = src.first, last = src.last, enters = src.enters }
  end
  local cp = info.cp
  if cp then
    local segs, msgs = {}, {}
    for _, sg in ipairs(cp.segments or {}) do
      local v = at[sg.proc]
      if v then
        local c = {}
        for k, x in pairs(sg) do c[k] = x end
        c.proc = v
        segs[#segs + 1] = c
      end
    end
    for _, m in ipairs(cp.messages or {}) do
      if at[m.src] and at[m.dst] then
        msgs[#msgs + 1] = { src = at[m.src], dst = at[m.dst], send = m.send, recv = m.recv, bytes = m.bytes }
      end
    end
    out.cp = { length = cp.length, start = cp.start, stop = cp.stop, segments = segs, messages = msgs,
               tachyons = cp.tachyons }
  end
  return out
end

--- The replay's id of processor p of info (M.shown's numbering; p itself when all are shown).
function M.source_id(info, p)
  local ids = info.ids
  return ids and ids[p + 1] or p
end

local Model = {}

-- Fields pulled from the view (or the replay's totals) on first read after a sync.
local lazy = {}

function lazy.done(self) return self.view:messages() end
function lazy.deltas(self)
  local d, bc, bb = self.view:deltas()
  rawset(self, "base", { bc, bb })
  return d
end
function lazy.base(self)
  local _ = self.deltas
  return rawget(self, "base")
end
function lazy.coll_list(self) return self.view:collectives() end
function lazy.pending(self)
  local list = self.rp and self.rp:pending() or {}
  local at = self.info.at
  if not at then return list end
  -- only the processors shown, in the view's numbers
  local out = {}
  for _, m in ipairs(list) do
    local s, d = at[m.src], at[m.dst]
    if s and d then
      local c = {}
      for k, x in pairs(m) do c[k] = x end
      c.src, c.dst = s, d
      out[#out + 1] = c
    end
  end
  return out
end
local function queues(self)
  local q, qb, hq, hb, snd = {}, {}, {}, {}, {}
  for i = 0, self.P - 1 do
    local pr = self.rp and self.rp:proc(M.source_id(self.info, i))
    q[i], qb[i] = pr and pr.queue or 0, pr and pr.queue_bytes or 0
    hq[i], hb[i] = pr and pr.max_queue or 0, pr and pr.max_queue_bytes or 0
    snd[i] = pr and pr.pending_out_bytes or 0
  end
  rawset(self, "queue", q)
  rawset(self, "queue_bytes", qb)
  rawset(self, "high", hq)
  rawset(self, "high_bytes", hb)
  rawset(self, "sending", snd)
end
for _, k in ipairs({ "queue", "queue_bytes", "high", "high_bytes", "sending" }) do
  lazy[k] = function(self)
    queues(self)
    return rawget(self, k)
  end
end
local function totals(self)
  local t = self.rp and self.rp:totals() or {}
  rawset(self, "pending_count", t.pending or 0)
  rawset(self, "pending_bytes", t.pending_bytes or 0)
end
for _, k in ipairs({ "pending_count", "pending_bytes" }) do
  lazy[k] = function(self)
    totals(self)
    return rawget(self, k)
  end
end
function lazy.pairs(self) return self.view:matrix() end
function lazy.used(self)
  local u, P = {}, self.P
  for _, q in ipairs(self.pairs) do u[q.src * P + q.dst] = true end
  return u
end
-- cum_count[i][j] / cum_bytes[i][j]: zero where the pair never communicated
local zero_row = setmetatable({}, { __index = function() return 0 end })
local function dense(self, field)
  local rows = {}
  for _, q in ipairs(self.pairs) do
    local r = rows[q.src]
    if not r then
      r = setmetatable({}, { __index = function() return 0 end })
      rows[q.src] = r
    end
    r[q.dst] = q[field]
  end
  return setmetatable(rows, { __index = function() return zero_row end })
end
function lazy.cum_count(self) return dense(self, "count") end
function lazy.cum_bytes(self) return dense(self, "bytes") end
local function recent(self, dir)
  local view = self.view
  return setmetatable({}, { __index = function(t, p)
    if type(p) ~= "number" or p < 0 or p >= self.P then return nil end
    local l = view:recent(p, dir)
    rawset(t, p, l)
    return l
  end })
end
function lazy.received_from(self) return recent(self, "in") end
function lazy.sent_to(self) return recent(self, "out") end
function lazy.cur(self) return self.view:states() end

Model.__index = function(self, k)
  local f = lazy[k]
  if f and rawget(self, "view") then
    local v = f(self)
    rawset(self, k, v)
    return v
  end
  return Model[k]
end

--- The live model for a trace described by `info` (from prescan). opts.from / opts.to:
-- the window over which times, profiles and matrices accumulate.
function M.model(info, opts)
  opts = opts or {}
  return setmetatable({ info = info, P = info.P, from = opts.from or -math.huge, to = opts.to or math.huge,
                        now = info.span[1], ended = false }, Model)
end

--- Feed the model from replay rp (before it runs). opts.batch: keep every event
-- until taken (application displays); opts.records: events kept otherwise (default 64).
function Model:attach(rp, opts)
  opts = opts or {}
  local last, tasks = {}, {}
  for i = 1, self.P do last[i] = self.info.procs[i].last end
  for i, id in ipairs(self.info.tasks or {}) do tasks[i] = id end
  local view, err = core.pgview.new(rp, { procs = self.P, t0 = self.info.span[1], from = self.from, to = self.to,
    last = last, tasks = tasks, batch = opts.batch, records = opts.records, ring = opts.ring or 64,
    source = self.info.ids, nsource = self.info.nsource })
  if not view then return nil, err end
  self.view, self.rp = view, rp
  return self
end

-- Forget what was pulled from the view (the next read pulls it again).
local function refresh(self)
  for k in pairs(lazy) do rawset(self, k, nil) end
  rawset(self, "base", nil)
end

--- Bring the model to time t after the replay has run up to t: processors past
-- their last record turn idle, times are accounted up to t.
function Model:sync(rp, t)
  self.rp = rp or self.rp
  self.view:sync(t)
  if t > self.now then self.now = t end
  refresh(self)
end

--- End of the run: every processor idle from its last record, accumulations closed at the end.
function Model:finish(rp, t)
  t = t or self.info.span[2]
  self:sync(rp, t)
  self.ended = true
end

--- Forget state changes, messages, deltas and collectives that end before t
-- (every display that draws over time shows nothing older), task changes before
-- task_t (default t).
function Model:keep(t, task_t)
  if t == -math.huge and (task_t or t) == -math.huge then return end
  self.view:keep(t, task_t or t)
  refresh(self)
end

--- Time per state per column: for processor p over [lo, hi] in W columns, up to
-- the model's time. Calls add(col, state, seconds) per column and state with time (col 1-based).
function Model:raster(p, lo, hi, W, add)
  if not (hi > lo) then return end
  local r = self.view:raster(p, lo, hi, W)
  for c = 0, W - 1 do
    for s = 0, 2 do
      local x = r[c * 3 + s + 1]
      if x > 0 then add(c + 1, s, x) end
    end
  end
end

--- Busy fraction of p over [a, b] (the changes kept must reach back to a).
function Model:busy_fraction(p, a, b)
  return self.view:busy_fraction(p, a, b)
end

--- Percent of the window each processor spent in each state:
-- {{id, busy, overhead, idle}, ...} (the window: [max(from, t0), min(to, t1)]).
function Model:summary()
  local t0, t1 = math.max(self.from, self.info.span[1]), math.min(self.to, self.info.span[2])
  local span = t1 - t0
  local f = span > 0 and 100 / span or 0
  local out = {}
  for p, a in pairs(self.view:time_in()) do
    out[p + 1] = { id = p, busy = a[M.BUSY] * f, overhead = a[M.OVERHEAD] * f, idle = a[M.IDLE] * f }
  end
  return out
end

--- Concurrency profile: {busy = {[k + 1] = percent of the window with exactly k busy}, overhead, idle}.
function Model:profile()
  local t0, t1 = math.max(self.from, self.info.span[1]), math.min(self.to, self.info.span[2])
  local span = t1 - t0
  local out = {}
  for s, l in pairs(self.view:profile()) do
    local pct = {}
    for k = 1, #l do pct[k] = span > 0 and 100 * l[k] / span or 0 end
    out[M.state_names[s]] = pct
  end
  return out
end

--- Number of processors in each state now.
function Model:counts()
  return self.view:info().counts
end

return M
