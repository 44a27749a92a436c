-- Example workload for `retrace medea`: new-format PICL traces of the two ring
-- algorithms of a spectral-transform benchmark's forward Legendre transform,
-- on P = 16 processors, under several protocol and buffering options, with
-- modelled compute and message costs. One file per run, named
--   pstswm.ALG.PROT.BUF
-- ALG  ringpipe 00 calc/sum/send/recv, 01 the same with odd processors sending
--      first and even ones receiving first, 02 calc/recv/sum/send;
--      ringsum 10 send/recv/sum, 11 conservative order (as 01), 12 and 13 as 10
--      and 11 with receives posted early.
-- PROT 0 blocking send / blocking receive, 1 nonblocking send / blocking
--      receive, 2 blocking send / nonblocking receive, 3 nonblocking both,
--      4 and 5 as 2 and 3 with forcetypes (cheaper, no buffer copy), 6
--      synchronous (a ready message before every send; algorithms 01, 11, 13).
-- BUF  0 no extra buffers; x extra buffers: nonblocking receives of a phase
--      are all posted at its start and nonblocking sends complete at its end.
--
-- Usage: retrace examples/medea/pstswm.lua OUTDIR [STEPS]
-- Each processor runs as a coroutine with its own clock; a receive waits for
-- the matching send's arrival time, so the traces are causally consistent.
local outdir = arg and arg[1] or "pstswm-traces"
local steps = tonumber(arg and arg[2]) or 1

local P = 16
local BYTES = 4096                -- one message of the ring sum / broadcast
local FFT = 0.012                 -- sequential FFTs per step
local CALC = 0.008                -- local contribution to the Legendre sums
local USE = 0.004                 -- computation that uses the broadcast result
local ADD = 0.00015               -- summing one received vector
local LATENCY, WIRE = 80e-6, 1 / 25e6   -- network: start-up, seconds per byte
local COPY = 1 / 60e6             -- system-buffer copy, seconds per byte
local O_SEND, O_ISEND, O_RECV, O_IRECV, O_WAIT = 50e-6, 20e-6, 40e-6, 15e-6, 8e-6

-- a small deterministic generator for compute-time jitter
local seed = 12345
local function jitter()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return 1 + 0.03 * (seed / 2147483648 - 0.5)
end

local function fmt(t) return string.format("%.6f", t) end

-- Simulate one run; returns the trace's lines sorted by time.
local function simulate(alg, prot, buf)
  local nb_send = prot == 1 or prot == 3 or prot == 5
  local nb_recv = prot == 2 or prot == 3 or prot == 4 or prot == 5
  local force = prot == 4 or prot == 5
  local sync = prot == 6
  local extra = buf == "x"
  local conservative = alg == "01" or alg == "11" or alg == "13"
  local early = alg == "12" or alg == "13"
  local pipe = alg:sub(1, 1) == "0"
  local mail = {}      -- mail[dst][src .. ":" .. tag] = queue of {arrival, bytes}
  local records = {}   -- {time, seq, line}
  local seq = 0

  local function proc(me)
    local self = { clock = 0, waits = {}, posted = {} }
    local function rec(kind, ev, t, data)
      seq = seq + 1
      local line = string.format("%d %d %s %d 0 %d", kind, ev, fmt(t), me, data and #data or 0)
      if data then line = line .. " 2 " .. table.concat(data, " ") end
      records[#records + 1] = { t, seq, line }
    end
    local function compute(d) self.clock = self.clock + d * jitter() end
    local function enter(ev) rec(-3, ev, self.clock) end
    local function leave(ev) rec(-4, ev, self.clock) end
    local function deliver(dst, tag, bytes, t)
      mail[dst] = mail[dst] or {}
      local key = me .. ":" .. tag
      mail[dst][key] = mail[dst][key] or {}
      table.insert(mail[dst][key], { arrival = t + LATENCY + bytes * WIRE, bytes = bytes })
    end
    local function take(src, tag)
      local key = src .. ":" .. tag
      while true do
        local q = mail[me] and mail[me][key]
        if q and #q > 0 then return table.remove(q, 1) end
        coroutine.yield()
      end
    end
    local recv_now
    local function send(dst, tag, bytes, ready)
      if sync and not ready then recv_now(dst, tag + 1000, 0, true) end -- wait for "ready"
      local t0 = self.clock
      if nb_send and bytes > 0 then
        rec(-3, -22, t0, { bytes, tag, dst })
        self.clock = t0 + O_ISEND
        deliver(dst, tag, bytes, self.clock)
        rec(-4, -22, self.clock)
        local done = self.clock + bytes * WIRE
        if extra then self.waits[#self.waits + 1] = done
        else
          rec(-3, -31, self.clock)
          self.clock = math.max(self.clock + O_WAIT, done)
          rec(-4, -31, self.clock)
        end
      else
        rec(-3, -21, t0, { bytes, tag, dst })
        self.clock = t0 + O_SEND + (force and 0 or bytes * COPY)
        deliver(dst, tag, bytes, t0 + O_SEND)
        rec(-4, -21, self.clock)
      end
    end
    local function post(src, tag)
      rec(-3, -51, self.clock)
      self.clock = self.clock + O_IRECV
      rec(-4, -51, self.clock)
      self.posted[src .. ":" .. tag] = self.clock
    end
    function recv_now(src, tag, bytes, blocking)
      if sync and not blocking then send(src, tag + 1000, 0, true) end -- tell the sender we are ready
      local key = src .. ":" .. tag
      if nb_recv and not blocking then
        local posted = self.posted[key]
        if not posted then post(src, tag); posted = self.posted[key] end
        self.posted[key] = nil
        rec(-3, -61, self.clock)
        local m = take(src, tag)
        local copy = (m.arrival < posted and not force) and m.bytes * COPY or 0
        self.clock = math.max(self.clock + O_WAIT, m.arrival) + copy
        rec(-4, -61, self.clock, { m.bytes, tag, src })
      else
        local t0 = self.clock
        rec(-3, -52, t0)
        local m = take(src, tag)
        local copy = (m.arrival < t0 and not force) and m.bytes * COPY or 0
        self.clock = math.max(t0, m.arrival) + O_RECV + copy
        rec(-4, -52, self.clock, { m.bytes, tag, src })
      end
    end
    local function finish_sends()
      if #self.waits == 0 then return end
      rec(-3, -31, self.clock)
      for _, d in ipairs(self.waits) do self.clock = math.max(self.clock, d) end
      self.clock = self.clock + O_WAIT
      rec(-4, -31, self.clock)
      self.waits = {}
    end
    local right, left = (me + 1) % P, (me - 1) % P
    local odd = me % 2 == 1

    -- one phase of P-1 exchanges: send to `to`, receive from `from`, work between
    local function phase(to, from, tag0, work_before, work_after)
      if nb_recv and extra then
        for s = 1, P - 1 do post(from, tag0 + s) end
      end
      for s = 1, P - 1 do
        local tag = tag0 + s
        if work_before then work_before(s) end
        if nb_recv and early and not self.posted[from .. ":" .. tag] then post(from, tag) end
        if alg == "02" and s > 1 then
          recv_now(from, tag - 1, BYTES)
          compute(ADD)
          send(to, tag, BYTES)
        elseif alg == "02" then
          send(to, tag, BYTES)
        elseif conservative and not odd then
          recv_now(from, tag, BYTES)
          send(to, tag, BYTES)
        else
          send(to, tag, BYTES)
          recv_now(from, tag, BYTES)
        end
        if work_after then work_after(s) end
      end
      if alg == "02" then
        recv_now(from, tag0 + P - 1, BYTES)
        compute(ADD)
      end
      finish_sends()
    end

    return function()
      rec(-3, -901, 0)
      for step = 1, steps do
        local base = (step - 1) * 10000
        enter(0)
        enter(1); compute(FFT); leave(1)
        enter(2)
        if pipe then
          -- ringpipe: a piece of the local contribution before every stage
          phase(right, left, base, function() enter(3); compute(CALC / P); leave(3) end,
            alg ~= "02" and function() compute(ADD) end or nil)
          enter(3); compute(CALC / P); leave(3)
          -- broadcast interleaved with the use of the result
          phase(left, right, base + 100, function() compute(USE / P) end, nil)
          compute(USE / P)
        else
          enter(3); compute(CALC); leave(3)
          phase(right, left, base, nil, function() compute(ADD) end)
          phase(left, right, base + 100, nil, nil)
          compute(USE)
        end
        leave(2)
        leave(0)
      end
      rec(-4, -901, self.clock)
    end
  end

  local cos = {}
  for p = 0, P - 1 do cos[p] = coroutine.create(proc(p)) end
  local live = P
  while live > 0 do
    local before = seq
    live = 0
    for p = 0, P - 1 do
      if coroutine.status(cos[p]) ~= "dead" then
        local ok, err = coroutine.resume(cos[p])
        if not ok then error(err) end
        if coroutine.status(cos[p]) ~= "dead" then live = live + 1 end
      end
    end
    if live > 0 and seq == before then error("pstswm." .. alg .. "." .. prot .. "." .. buf .. ": deadlock") end
  end
  table.sort(records, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    return a[2] < b[2]
  end)
  return records
end

do -- the output folder, with its parents
  local ok, err = require("retrace.fs").mkdir_p(outdir)
  if not ok then io.stderr:write("pstswm.lua: ", tostring(err), "\n"); os.exit(1) end
end

local n = 0
for _, alg in ipairs({ "00", "01", "02", "10", "11", "12", "13" }) do
  local prots = { 0, 1, 2, 3, 4, 5 }
  if alg == "01" or alg == "11" or alg == "13" then prots[#prots + 1] = 6 end
  for _, prot in ipairs(prots) do
    for _, buf in ipairs({ "0", "x" }) do
      local name = string.format("%s/pstswm.%s.%d.%s", outdir, alg, prot, buf)
      local f = assert(io.open(name, "w"))
      for _, r in ipairs(simulate(alg, prot, buf)) do f:write(r[3], "\n") end
      f:close()
      n = n + 1
    end
  end
end
io.stderr:write(string.format("wrote %d traces of %d processors in %s\n", n, P, outdir))
