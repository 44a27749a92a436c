-- The critical path on hand-made PICL traces (new format, times in seconds),
-- each expectation worked out by hand below its trace, and against a slow
-- model on random traces large enough that the waits go through the
-- temporary file.
--
-- The rule (README, "The critical path"): walking back from the processor
-- whose last record is latest, at the end of a receive that waited - it
-- completes a waiting region (PICL -52) that began before the receive - the
-- path goes back along the message to its sender at the send time; otherwise
-- it stays on the processor, down to its first record.
-- Record lines: "-3 EV T P 0 ..." enters event EV at T on processor P, "-4 EV
-- T P 0 ..." leaves it; a send -21 enters with "3 2 BYTES TAG DEST", a receive
-- -51/-52 leaves with "3 2 BYTES TAG SRC"; -901 is the tracer (brackets the run).
require "retrace"
local h = require "helpers"
local cjson = require "cjson"
local replay = require "retrace.replay"
local canvas = require "retrace.canvas"

local function trace(lines) return h.temp_file(table.concat(lines, "\n") .. "\n", ".trf") end

local function path_of(file)
  local rp = assert(replay.open(file, { critical_path = true }))
  rp:run()
  return assert(rp:critical_path())
end

local function segs(cp)
  local out = {}
  for i, s in ipairs(cp.segments) do out[i] = { s.proc, s.from, s.to } end
  return out
end

local function msgs(cp)
  local out = {}
  for i, m in ipairs(cp.messages) do out[i] = { m.src, m.dst, m.send_time, m.recv_time } end
  return out
end

local function near_list(want, got)
  assert.are.equal(#want, #got)
  for i = 1, #want do
    for j = 1, #want[i] do
      assert.is_true(math.abs(want[i][j] - got[i][j]) < 1e-9,
        string.format("[%d][%d]: %s expected, got %s", i, j, want[i][j], got[i][j]))
    end
  end
end

-- A ping-pong whose last message is large: P0 enters the send of 1 MB at 4 and
-- leaves it at 9 (a blocking send lasting the transfer); P1 starts waiting for
-- it at 5, after it was sent, and gets it at 9.
local pingpong = {
  "-3 -901 0 0 0 0", "-3 -901 0 1 0 0",
  "-3 -52 0.5 1 0 0",
  "-3 -21 1 0 0 3 2 8 1 1", "-4 -21 1.2 0 0 0",
  "-3 -52 1.2 0 0 0",
  "-4 -52 1.5 1 0 3 2 8 1 0",
  "-3 -21 2.5 1 0 3 2 8 1 0", "-4 -21 2.6 1 0 0",
  "-4 -52 3 0 0 3 2 8 1 1",
  "-3 -21 4 0 0 3 2 1048576 2 1",
  "-3 -52 5 1 0 0",
  "-4 -21 9 0 0 0",
  "-4 -52 9 1 0 3 2 1048576 2 0",
  "-4 -901 10 0 0 0", "-4 -901 11 1 0 0",
}
-- Back from P1 (last record 11): its receive at 9 ended the wait 5..9 -> P0 at
-- the send time 4 (sent before the wait began: followed all the same). On P0
-- back from 4: the wait 1.2..3 ended at 3 by P1's message -> P1 at 2.5. On P1
-- back from 2.5: the wait 0.5..1.5 ended at 1.5 by P0's message -> P0 at 1; P0
-- has no earlier wait: down to its first record 0.
-- Segments P0 [0,1], P1 [1.5,2.5], P0 [3,4], P1 [9,11]: 1 + 1 + 1 + 2 = 5 s;
-- messages 1 -> 1.5, 2.5 -> 3, 4 -> 9: 0.5 + 0.5 + 5 = 6 s of transfer;
-- length 5 + 6 = 11 = 11 - 0.
-- (Following only messages sent after the wait began would leave P1 on
-- [1.5, 11]: its idle 5..9 charged to it.)

-- Receives that did not wait: P1 gets P0's tag-3 message with -51 (a receive
-- that does not block: the message was there) and the tag-4 message with a
-- -52 that ends at the time it began (no time spent waiting).
local nowait = {
  "-3 -901 0 0 0 0", "-3 -901 0 1 0 0",
  "-3 -52 0.5 1 0 0",
  "-3 -21 1 0 0 3 2 8 1 1", "-4 -21 1.1 0 0 0",
  "-4 -52 1.5 1 0 3 2 8 1 0",
  "-3 -21 2 0 0 3 2 16 3 1", "-4 -21 2.1 0 0 0",
  "-3 -21 3 0 0 3 2 16 4 1", "-4 -21 3.1 0 0 0",
  "-4 -901 4 0 0 0",
  "-3 -51 5 1 0 0", "-4 -51 5.1 1 0 3 2 16 3 0",
  "-3 -52 6 1 0 0", "-4 -52 6 1 0 3 2 16 4 0",
  "-4 -901 8 1 0 0",
}
-- Back from P1 (last 8): the -52 at 6 lasted no time and the -51 at 5.1 is no
-- wait: the path stays on P1 down to the wait 0.5..1.5, ended at 1.5 by P0's
-- message sent at 1 -> P0 at 1, down to 0.
-- Segments P0 [0,1], P1 [1.5,8]: 1 + 6.5 = 7.5; message 1 -> 1.5: 0.5;
-- length 7.5 + 0.5 = 8.

-- A chain across three processors. P2 sends to P1 early (2); P1 waits for it
-- 7..7.5, later than the path passes P1.
local chain = {
  "-3 -901 0 0 0 0", "-3 -901 0 1 0 0", "-3 -901 0 2 0 0",
  "-3 -52 1 1 0 0",
  "-3 -21 2 2 0 3 2 8 5 1", "-4 -21 2.1 2 0 0",
  "-3 -21 3 0 0 3 2 64 5 1", "-4 -21 3.2 0 0 0",
  "-4 -52 4 1 0 3 2 64 5 0",
  "-4 -901 5 0 0 0",
  "-3 -52 5 2 0 0",
  "-3 -21 6 1 0 3 2 4096 6 2", "-4 -21 6.5 1 0 0",
  "-3 -52 7 1 0 0", "-4 -52 7.5 1 0 3 2 8 5 2",
  "-4 -901 8 1 0 0",
  "-4 -52 9 2 0 3 2 4096 6 1",
  "-4 -901 12 2 0 0",
}
-- FIFO per (source, destination, tag): P1's first receive (tag 5, from P0, at
-- 4) pairs with P0's send at 3; P1's second (tag 5, from P2, at 7.5) with
-- P2's send at 2. Back from P2 (last 12): the wait 5..9 ended at 9 by P1's
-- message sent at 6 -> P1 at 6. On P1 back from 6: the latest wait ended by 6
-- is 1..4 (the one ending at 7.5 is later), ended by P0's message sent at 3 ->
-- P0 at 3, down to 0.
-- Segments P0 [0,3], P1 [4,6], P2 [9,12]: 3 + 2 + 3 = 8; messages 3 -> 4 and
-- 6 -> 9: 1 + 3 = 4; length 12.

-- A gather to P0 and a broadcast back, made of messages (a collective as
-- message-passing libraries build it). P1, P2, P3 send to P0 at 1, 3, 2; P0
-- waits for P1's (0.5..1.2), then P2's (1.2..3.4), then takes P3's with a -51
-- (already there), works, and sends to P1, P2, P3 at 4, 4.5, 5.
local gather = {
  "-3 -901 0 0 0 0", "-3 -901 0 1 0 0", "-3 -901 0 2 0 0", "-3 -901 0 3 0 0",
  "-3 -52 0.5 0 0 0",
  "-3 -21 1 1 0 3 2 8 1 0", "-4 -21 1.1 1 0 0",
  "-3 -52 1.1 1 0 0",
  "-4 -52 1.2 0 0 3 2 8 1 1",
  "-3 -52 1.2 0 0 0",
  "-3 -21 2 3 0 3 2 8 1 0", "-4 -21 2.2 3 0 0",
  "-3 -52 2.2 3 0 0",
  "-3 -21 3 2 0 3 2 8 1 0", "-4 -21 3.1 2 0 0",
  "-3 -52 3.1 2 0 0",
  "-4 -52 3.4 0 0 3 2 8 1 2",
  "-3 -51 3.4 0 0 0", "-4 -51 3.5 0 0 3 2 8 1 3",
  "-3 -21 4 0 0 3 2 8 2 1", "-4 -21 4.5 0 0 0",
  "-4 -52 4.2 1 0 3 2 8 2 0",
  "-3 -21 4.5 0 0 3 2 8 2 2", "-4 -21 5 0 0 0",
  "-4 -52 4.6 2 0 3 2 8 2 0",
  "-3 -21 5 0 0 3 2 8 2 3", "-4 -21 5.5 0 0 0",
  "-4 -52 5.3 3 0 3 2 8 2 0",
  "-4 -901 6 0 0 0", "-4 -901 6 1 0 0", "-4 -901 6 2 0 0", "-4 -901 7 3 0 0",
}
-- Back from P3 (last 7): the wait 2.2..5.3 ended at 5.3 by P0's message sent
-- at 5 -> P0 at 5. On P0 back from 5: the -51 at 3.5 is no wait; the wait
-- 1.2..3.4 ended at 3.4 by P2's message sent at 3 -> P2 at 3; P2's only wait
-- ends at 4.6, later: down to its first record 0.
-- Segments P2 [0,3], P0 [3.4,5], P3 [5.3,7]: 3 + 1.6 + 1.7 = 6.3; messages
-- 3 -> 3.4 and 5 -> 5.3: 0.4 + 0.3 = 0.7; length 7.

describe("critical path on hand-made traces", function()
  local cases = {
    { "a ping-pong ending with a late large message", pingpong,
      { { 0, 0, 1 }, { 1, 1.5, 2.5 }, { 0, 3, 4 }, { 1, 9, 11 } },
      { { 0, 1, 1, 1.5 }, { 1, 0, 2.5, 3 }, { 0, 1, 4, 9 } }, 11 },
    { "receives that did not wait", nowait,
      { { 0, 0, 1 }, { 1, 1.5, 8 } }, { { 0, 1, 1, 1.5 } }, 8 },
    { "a chain across three processors", chain,
      { { 0, 0, 3 }, { 1, 4, 6 }, { 2, 9, 12 } }, { { 0, 1, 3, 4 }, { 1, 2, 6, 9 } }, 12 },
    { "a gather and broadcast made of messages", gather,
      { { 2, 0, 3 }, { 0, 3.4, 5 }, { 3, 5.3, 7 } }, { { 2, 0, 3, 3.4 }, { 0, 3, 5, 5.3 } }, 7 },
  }
  for _, c in ipairs(cases) do
    it(c[1], function()
      local file = trace(c[2])
      local cp = path_of(file)
      near_list(c[3], segs(cp))
      near_list(c[4], msgs(cp))
      assert.is_true(math.abs(c[5] - cp.length) < 1e-9)
      -- the length is the segments plus the messages' transfer times
      local sum = 0
      for _, s in ipairs(cp.segments) do sum = sum + (s.to - s.from) end
      for _, m in ipairs(cp.messages) do sum = sum + (m.recv_time - m.send_time) end
      assert.is_true(math.abs(sum - cp.length) < 1e-9)
      os.remove(file)
    end)
  end

  it("is the same at three --pace values of retrace paragraph, and is the replay's", function()
    local file = trace(pingpong)
    local got = {}
    for i, pace in ipairs({ "time:0.25", "time:1.5", "time:4" }) do
      local out, data = h.temp_dir(), h.temp_dir()
      local code, _, err = h.retrace("paragraph", file, "-o", out, "--display", "critical_path", "--pace", pace,
        "--unit", "s", "--scale-width", "11", "--data", data) -- the whole run in the window at the end
      assert.are.equal(0, code, err)
      local d = cjson.decode(h.slurp(data .. "/summary.json")).displays.critical_path
      local cp = d.critical_path
      local s = {}
      for j, g in ipairs(cp.segments) do s[j] = { g.proc, g.from, g.to } end
      got[i] = s
      assert.are.equal(11, cp.length)
      -- the last frame draws all of it: the segments, and the late large message in red
      local drawn = {}
      for j, g in ipairs(d.drawn.segments) do drawn[j] = { g.proc, g.from, g.to } end
      assert.are.same(s, drawn)
      assert.are.equal(3, #d.drawn.messages)
      local m = d.drawn.messages[3]
      assert.are.same({ 0, 1, 4, 9 }, { m.src, m.dst, m.send, m.recv })
      local names = {}
      for n in io.popen("ls " .. h.quote(out)):lines() do if n:match("%.png$") then names[#names + 1] = n end end
      table.sort(names)
      local img = assert(canvas.load_png(out .. "/" .. names[#names]))
      assert.are.equal("#e00000", h.pixel_hex(img, (m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2))
      h.remove_tree(out)
      h.remove_tree(data)
    end
    near_list({ { 0, 0, 1 }, { 1, 1.5, 2.5 }, { 0, 3, 4 }, { 1, 9, 11 } }, got[1])
    assert.are.same(got[1], got[2])
    assert.are.same(got[1], got[3])
    os.remove(file)
  end)
end)

-- The slow model: every receive's wait kept in a list per processor, the
-- rule applied directly.
local function model_path(P, waits, first, last)
  local p = 0
  for q = 1, P - 1 do if last[q] > last[p] then p = q end end
  local t, segments, upto = last[p], {}, {}
  for q = 0, P - 1 do upto[q] = #waits[q] end
  while true do
    local k = upto[p]
    while k > 0 and waits[p][k].recv > t do k = k - 1 end
    if k == 0 then
      table.insert(segments, 1, { p, first[p], t })
      break
    end
    local w = waits[p][k]
    upto[p] = k - 1
    table.insert(segments, 1, { p, w.recv, t })
    t, p = w.send, w.src
  end
  return segments
end

describe("critical path against a slow model", function()
  -- Random traces: each step a random processor sends to another, who waits
  -- for it (entering the wait before or after the send, or not waiting: a -51).
  -- About 10 000 waits: more than 4096, so most go through the temporary file.
  for _, P in ipairs({ 3, 40 }) do
    it(string.format("random trace, %d processors", P), function()
      math.randomseed(P * 7919)
      local lines, t = {}, 0
      local busy_until, waits, first, last = {}, {}, {}, {}
      for q = 0, P - 1 do
        lines[#lines + 1] = string.format("-3 -901 0 %d 0 0", q)
        busy_until[q], waits[q], first[q], last[q] = 0, {}, 0, 0
      end
      for step = 1, 20000 do
        local s = math.random(0, P - 1)
        local d = (s + math.random(1, P - 1)) % P
        local ts = math.max(busy_until[s], busy_until[d] - math.random(0, 3)) + math.random(1, 3)
        local kind = math.random(1, 4) -- 1: waits from before the send; 2: after; 3: no wait (-51); 4: zero wait
        local we = kind == 1 and math.max(busy_until[d], ts - math.random(1, 2))
          or math.max(busy_until[d], ts + math.random(0, 2))
        local tr = math.max(we, ts) + math.random(1, 3)
        if kind == 4 then we = math.max(busy_until[d], ts + 1); tr = we end
        -- sender: enter and leave the send at ts (a zero-length send keeps the order simple)
        lines[#lines + 1] = { ts, string.format("-3 -21 %d %d 0 3 2 8 1 %d", ts, s, d) }
        lines[#lines + 1] = { ts, string.format("-4 -21 %d %d 0 0", ts, s) }
        local ev = kind == 3 and -51 or -52
        lines[#lines + 1] = { we, string.format("-3 %d %d %d 0 0", ev, we, d) }
        lines[#lines + 1] = { tr, string.format("-4 %d %d %d 0 3 2 8 1 %d", ev, tr, d, s) }
        busy_until[s] = math.max(busy_until[s], ts)
        busy_until[d] = tr
        if ev == -52 and tr > we then waits[d][#waits[d] + 1] = { recv = tr, send = ts, src = s } end
        last[s], last[d] = math.max(last[s], ts), math.max(last[d], tr)
        t = math.max(t, tr)
      end
      -- sort the records by time, keeping each processor's order (stable on ties)
      local head, body = {}, {}
      for i, l in ipairs(lines) do
        if type(l) == "string" then head[#head + 1] = l else body[#body + 1] = { l[1], i, l[2] } end
      end
      table.sort(body, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
      for _, b in ipairs(body) do head[#head + 1] = b[3] end
      for q = 0, P - 1 do
        last[q] = last[q] + 1
        head[#head + 1] = string.format("-4 -901 %d %d 0 0", last[q], q)
      end
      local file = trace(head)
      local cp = path_of(file)
      local want = model_path(P, waits, first, last)
      assert.is_true(#want > 10)
      near_list(want, segs(cp))
      -- the same path read part by part from its temporary file, in batches of random sizes
      local rp = assert(replay.open(file, { critical_path = true }))
      rp:run()
      local path = assert(rp:critical_path_walk())
      local info = path:info()
      assert.are.equal(#want, info.segments)
      assert.are.equal(#want - 1, info.messages)
      assert.are.equal(cp.length, info.length)
      local got = { segments = {}, messages = {} }
      local i = 1
      while i <= info.segments do
        local n = math.random(0, 700)
        local sg, ms = path:read(i, n)
        assert.are.equal(math.min(n, info.segments - i + 1), #sg)
        table.move(sg, 1, #sg, #got.segments + 1, got.segments)
        table.move(ms, 1, #ms, #got.messages + 1, got.messages)
        i = i + n
      end
      assert.are.same(cp.segments, got.segments)
      assert.are.same(cp.messages, got.messages)
      assert.are.same({}, (path:read(info.segments + 1, 10)))
      path:close()
      rp:close()
      os.remove(file)
    end)
  end

  -- A ring of 64 processors, 200 steps: each step every processor sends to its
  -- right neighbour, then waits for its left neighbour's message (entering
  -- before or after that message was sent). The path goes back one step and
  -- one processor per message, so it reaches each processor up to 63 steps
  -- before that processor's last wait and walks its waits back that far
  -- (anchor skips and windows of the temporary file).
  it("a ring of 64 processors, the path reaching each one long before its last wait", function()
    math.randomseed(64)
    local P, lines, body = 64, {}, {}
    local waits, first, last = {}, {}, {}
    for q = 0, P - 1 do
      lines[#lines + 1] = string.format("-3 -901 0 %d 0 0", q)
      waits[q], first[q], last[q] = {}, 0, 0
    end
    local t0 = 1
    for _ = 1, 200 do
      local ts, we, tr = {}, {}, {}
      for q = 0, P - 1 do
        ts[q] = t0 + math.random(0, 3)
        we[q] = ts[q] + math.random(0, 4)
      end
      local top = t0
      for q = 0, P - 1 do
        local l = (q + P - 1) % P
        tr[q] = math.max(we[q], ts[l]) + math.random(1, 2)
        top = math.max(top, tr[q])
        body[#body + 1] = { ts[q], string.format("-3 -21 %d %d 0 3 2 8 1 %d", ts[q], q, (q + 1) % P) }
        body[#body + 1] = { ts[q], string.format("-4 -21 %d %d 0 0", ts[q], q) }
        body[#body + 1] = { we[q], string.format("-3 -52 %d %d 0 0", we[q], q) }
        body[#body + 1] = { tr[q], string.format("-4 -52 %d %d 0 3 2 8 1 %d", tr[q], q, l) }
        waits[q][#waits[q] + 1] = { recv = tr[q], send = ts[l], src = l }
        last[q] = tr[q]
      end
      t0 = top + 1
    end
    for i, b in ipairs(body) do body[i] = { b[1], i, b[2] } end
    table.sort(body, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
    for _, b in ipairs(body) do lines[#lines + 1] = b[3] end
    for q = 0, P - 1 do
      last[q] = t0 + q
      lines[#lines + 1] = string.format("-4 -901 %d %d 0 0", last[q], q)
    end
    local file = trace(lines)
    local cp = path_of(file)
    local want = model_path(P, waits, first, last)
    assert.is_true(#want > 150)
    near_list(want, segs(cp))
    os.remove(file)
  end)
end)

describe("critical path on the OTF2 ping-pong sample", function()
  local dir = h.shared_file("otf2/pingpong")
  if not dir then
    pending("../shared/data is absent: the OTF2 ping-pong is skipped")
    return
  end
  it("follows every message whose receive waited in MPI_Recv, the large late ones too", function()
    -- the model from the replay's own intervals and messages: a receive waited when the
    -- MPI_Recv around it began before it
    local recvs, messages = {}, {}
    local rp = assert(replay.open(dir .. "/traces.otf2", { critical_path = true,
      on_interval = function(iv) recvs[#recvs + 1] = iv end,
      on_message = function(m) messages[#messages + 1] = m end }))
    rp:run()
    local names = rp:defs().regions
    local waits, first, last = { [0] = {}, [1] = {} }, {}, {}
    for _, m in ipairs(messages) do
      for _, iv in ipairs(recvs) do
        if names[iv.event].name == "MPI_Recv" and iv.proc == m.dst and iv.entry < m.recv_time
          and m.recv_time <= iv.exit then
          local w = waits[m.dst]
          w[#w + 1] = { recv = m.recv_time, send = m.send_time, src = m.src }
        end
      end
    end
    for q = 0, 1 do
      local p = rp:proc(q)
      first[q], last[q] = p.first, p.last
      table.sort(waits[q], function(a, b) return a.recv < b.recv end)
    end
    assert.are.equal(8, #waits[0])
    assert.are.equal(8, #waits[1])
    local cp = rp:critical_path()
    near_list(model_path(2, waits, first, last), segs(cp))
    -- 8 rounds: the path ends on P1 after the last 2 MiB message from P0 and runs along the 15
    -- messages before it; the last segment starts at that message's receive
    assert.are.equal(15, #cp.messages)
    local m = cp.messages[15]
    assert.are.same({ 0, 1, 2097152 }, { m.src, m.dst, m.bytes })
    assert.are.equal(m.recv_time, cp.segments[16].from)
    assert.are.equal(1, cp.segments[16].proc)
  end)
end)

-- A ping-pong of R round trips: in round k the receiver (1 - k % 2) enters its wait at 4k us,
-- the sender (k % 2) sends at 4k + 1 and the receive ends at 4k + 3. Every message ends a
-- wait, so the path goes through all of them: from processor 0's first record (its first send,
-- at 1 us), then in round k's receiver from 4k + 3 to the next send at 4k + 5 (to the end of
-- the run, 4R - 1, for the last). With R = 20 000 the path's parts (20 001) go through the
-- temporary file and `stats --json` writes them in several batches.
describe("the critical path of a long run, streamed", function()
  it("stats --json lists every segment and message of a ping-pong's path", function()
    local R = 20000
    local lines = {}
    for k = 0, R - 1 do
      local a, b, t = k % 2, 1 - k % 2, k * 4e-6
      lines[#lines + 1] = ("-3 -52 %.6f %d 0 2 2 7 %d\n-3 -21 %.6f %d 0 3 2 1024 7 %d\n-4 -21 %.6f %d 0 0\n" ..
        "-4 -52 %.6f %d 0 3 2 1024 7 %d"):format(t, b, a, t + 1e-6, a, b, t + 2e-6, a, t + 3e-6, b, a)
    end
    local file = trace(lines)
    local code, out = h.retrace("stats", "--json", file)
    assert.are.equal(0, code, out)
    local cp = cjson.decode(out).critical_path
    assert.are.equal(R + 1, #cp.segments)
    assert.are.equal(R, #cp.messages)
    local function near(a, b) return math.abs(a - b) < 1e-12 end
    assert.are.equal(0, cp.segments[1].proc)
    assert.is_true(near(1e-6, cp.segments[1].from) and near(1e-6, cp.segments[1].to))
    for k = 0, R - 1 do
      local g, m = cp.segments[k + 2], cp.messages[k + 1]
      assert.are.equal(1 - k % 2, g.proc)
      assert.is_true(near((4 * k + 3) * 1e-6, g.from), "segment " .. k + 2)
      assert.is_true(near(k == R - 1 and (4 * k + 3) * 1e-6 or (4 * k + 5) * 1e-6, g.to), "segment " .. k + 2)
      assert.are.equal(k % 2, m.src)
      assert.are.equal(1 - k % 2, m.dst)
      assert.is_true(near((4 * k + 1) * 1e-6, m.send) and near((4 * k + 3) * 1e-6, m.recv), "message " .. k + 1)
      assert.are.equal(1024, m.bytes)
    end
    assert.is_true(near((4 * R - 1) * 1e-6 - 1e-6, cp.length))
    -- the text report: the counts, the first 12 segments, and how many more
    code, out = h.retrace("stats", file)
    assert.are.equal(0, code, out)
    assert.truthy(out:find(("critical path %.6f s (%d segments, %d messages on it)"):format(cp.length, R + 1, R),
      1, true))
    assert.truthy(out:find(("... %d more segments"):format(R + 1 - 12), 1, true))
    assert.truthy(out:find("processor 1   0.000003 .. 0.000005  -> message to 0 sent 0.000005, received 0.000007",
      1, true))
    -- a window: the run's path cut to it (retrace.critpath.clip) read batch by batch is the
    -- whole path cut at once, the length summed in the same order
    local lo, hi = 0.0100005, 0.0700015
    local rp = assert(replay.open(file, { critical_path = true, start = lo, stop = hi }))
    rp:run()
    local want = require("retrace.critpath").clip(rp:critical_path(), lo, hi)
    rp:close()
    local s = assert(require("retrace.picl").summary(file, { start = lo, stop = hi }))
    assert.are.equal(want.length, s.critical_path.length)
    assert.are.equal(#want.segments, s.critical_path.nsegments)
    assert.are.equal(#want.messages, s.critical_path.nmessages)
    assert.is_true(#want.segments > 4096 * 3)
    code, out = h.retrace("stats", "--json", "--from", tostring(lo), "--to", tostring(hi), file)
    assert.are.equal(0, code, out)
    local got = cjson.decode(out).critical_path
    assert.are.equal(#want.segments, #got.segments)
    assert.are.equal(#want.messages, #got.messages)
    for i, g in ipairs(want.segments) do
      assert.are.same({ g.proc, g.from, g.to }, { got.segments[i].proc, got.segments[i].from, got.segments[i].to })
    end
    for i, m in ipairs(want.messages) do
      assert.are.same({ m.src, m.dst, m.send_time, m.recv_time },
        { got.messages[i].src, got.messages[i].dst, got.messages[i].send, got.messages[i].recv })
    end
    os.remove(file)
  end)
end)
