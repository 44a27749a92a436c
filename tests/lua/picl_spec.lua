-- PICL readers, the replay engine and `retrace picl`, on hand-made traces whose
-- expected values are worked out in each fixture's comments, and on the real
-- sample traces when ../shared/data is present.
local h = require "helpers"
local picl = require "retrace.picl"
local replay = require "retrace.replay"
local cjson = require "cjson"

local function fixture(name) return h.fixtures .. "/picl/" .. name end

local function near(a, b, tol)
  return math.abs(a - b) <= (tol or 1e-9)
end

local function assert_near(expected, got, tol, what)
  assert(near(expected, got, tol), string.format("%s: expected %.9g, got %.9g", what or "value", expected, got))
end

-- expect[id] = {busy, overhead, idle} seconds
local function assert_states(rp, expect)
  for id, e in pairs(expect) do
    local p = rp:proc(id)
    assert_near(e[1], p.busy, 1e-9, "busy of " .. id)
    assert_near(e[2], p.overhead, 1e-9, "overhead of " .. id)
    assert_near(e[3], p.idle, 1e-9, "idle of " .. id)
  end
end

-- Replay a whole file; returns the replay (finished) and its trace.
local function run(path, opts)
  local t = assert(picl.open(path, opts and { format = opts.format }))
  local rp = replay.new(t, opts)
  rp:run()
  return rp, t
end

describe("PICL reader", function()
  it("gives records with fields by name (new format, quoted descriptor)", function()
    local rec = assert(picl.parse_line("new",
      '-101 -1 0.115758 0 0 2 "%d%lf" -22 0.000060 -27 0.000330 '))
    assert.are.equal("statistics", rec.kind)
    assert.are.equal("%d%lf", rec.fmt)
    assert.are.equal(2, rec.ndata)
    assert.are.same({ -22, 0.00006, -27, 0.00033 }, rec.data)
    local send = assert(picl.parse_line("new", "-3 -21 0.001665 6 0 3 2 8 1 7"))
    assert.are.same({ "entry", -21, 6, 8, 1, 7 }, { send.kind, send.event, send.proc, send.bytes, send.tag, send.dest })
    local recv = assert(picl.parse_line("new", "-4 -52 0.001643 6 0 3 2 8 1 5"))
    assert.are.same({ "exit", "receive (blocked)", 5 }, { recv.kind, recv.name, recv.src })
    -- NDATA 0 with and without a descriptor
    assert.are.same({}, assert(picl.parse_line("new", "-4 -21 0.001711 6 0 0")).data)
    assert.are.same({}, assert(picl.parse_line("new", "-3 1 0.000057 0 0 0 2")).data)
    -- a label keeps its text
    local label = assert(picl.parse_line("new", '-5 3 0.5 0 0 1 "%s" solve'))
    assert.are.same({ "label", "solve" }, { label.kind, label.text })
    assert.are.equal("    0.500000  proc 0   label of user event 3: solve", picl.describe(label))
    -- negative clock-synchronised times
    assert.are.equal(-0.000001, assert(picl.parse_line("new", "-3 -901 -0.000001 2 0 0")).time)
  end)

  it("reads old-format records with their fields named", function()
    local rec = assert(picl.parse_line("old", "4 0 480 0 8 30008 1"))
    assert.are.same({ "send", 8, 30008, 1, 0 }, { rec.kind, rec.to, rec.type, rec.length, rec.proc })
    assert_near(0.00048, rec.time)
    rec = assert(picl.parse_line("old", "20 0 358 0 3 0 0"))
    assert.are.same({ "block_begin", 3 }, { rec.kind, rec.block })
  end)

  it("says which field of a malformed line is wrong", function()
    local cases = {
      { "new", "-3 -21 abc 0 0 0", "time: 'abc' is not a number" },
      { "new", "-3 -21 1.0 0 0 3 2 8 1", "data: 3 values expected, found 2" },
      { "new", "-3 -21 1.0 0 0 1", "descriptor: missing before 1 data values" },
      { "new", "-3 -21 1.0 x 0 0", "processor: 'x' is not an integer" },
      { "new", "-3 -21 1.0", "processor: missing" },
      { "new", '-101 -1 1.0 0 0 1 "%d%lf" -22', "data: 2 values expected, found 1" },
      { "old", "4 0 480 0 8 30008", "fields: 2 found, send needs to, type, length" },
      { "old", "4 0 x 0", "microseconds: 'x' is not an integer" },
      -- integer fields past 32 bits are out of range, never cut (4294967275 would replay as -21, a send)
      { "new", "-3 4294967275 0.1 0 0 3 2 8 1 1", "event type: 4294967275 out of range (-2147483648..2147483647)" },
      { "new", "-3 99999999999 0.1 0 0 0", "event type: 99999999999 out of range" },
      { "new", "-9999999999 -21 0.1 0 0 0", "record type: -9999999999 out of range" },
      { "new", "-3 5 0.1 0 4294967296 0", "task: 4294967296 out of range" },
      { "old", "2147483648 1 0 0 1 9 32", "code: 2147483648 out of range (1..2147483647)" },
      { "old", "20 0 100 0 1e12", "block type: 1e+12 is not an integer in -2147483648..2147483647" },
      -- a negative message length is malformed, not taken as 0
      { "new", "-3 -21 0.1 0 0 3 2 -8 1 1", "data: message length -8 is negative" },
      { "new", "-4 -52 0.1 0 0 3 2 -8 1 1", "data: message length -8 is negative" },
      { "old", "4 0 100 0 1 9 -32", "length: -32 is negative" },
      { "old", "8 0 100 0 1 9 -32", "length: -32 is negative" },
    }
    for _, c in ipairs(cases) do
      local rec, why = picl.parse_line(c[1], c[2])
      assert.is_nil(rec)
      assert.truthy(why:find(c[3], 1, true), c[2] .. " -> " .. tostring(why))
    end
  end)

  it("reports the 2^31 old-format code of a fuzzed trace as a skipped line (UBSan found it negated as an int)", function()
    local f = h.temp_file("1 0 0 0 0 0 0\n1 0 0 1 0 0 0\n2147483648 1 0 0 1 9 32\n4 1 0 0 1 9 32\n")
    local code, _, err = h.retrace("picl", "stats", "--strict", f)
    assert.are.equal(1, code)
    assert.are.equal(("retrace: %s:3: code: 2147483648 out of range (1..2147483647)\n"):format(f), err)
    code = h.retrace("picl", "stats", f)
    assert.are.equal(0, code)
    os.remove(f)
  end)

  it("detects the format, and --format overrides it", function()
    local t = assert(picl.open(fixture("old.trf")))
    assert.are.equal("old", t:format())
    t:close()
    t = assert(picl.open(fixture("fifo.trf")))
    assert.are.equal("new", t:format())
    t:close()
    -- forced to the old format, the new-format file is all malformed lines
    t = assert(picl.open(fixture("fifo.trf"), { format = "old" }))
    for _ in t:records() do end
    local n = t:skipped()
    assert.are.equal(13, n)
    t:close()
    local bad = h.temp_file("hello world\n")
    local none, err = picl.open(bad)
    assert.is_nil(none)
    assert.truthy(err:find(bad .. ":1: not a PICL trace", 1, true))
    os.remove(bad)
  end)

  it("skips and counts malformed lines, or stops on the first one when strict", function()
    local t = assert(picl.open(fixture("malformed.trf")))
    local n = 0
    for _ in t:records() do n = n + 1 end
    local skipped, lines = t:skipped()
    assert.are.equal(4, n)
    assert.are.equal(2, skipped)
    assert.are.equal(fixture("malformed.trf") .. ":3: time: 'x' is not a number", lines[1])
    assert.are.equal(fixture("malformed.trf") .. ":4: data: 2 values expected, found 1", lines[2])
    t:close()
    t = assert(picl.open(fixture("malformed.trf"), { strict = true }))
    local ok, err = pcall(function() for _ in t:records() do end end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("malformed.trf:3: time: 'x' is not a number", 1, true))
    t:close()
  end)
end)

describe("replay: processor states", function()
  it("follows every state rule (fixture states.trf)", function()
    local rp = run(fixture("states.trf"))
    local expect = {
      [0] = { 2, 0, 1 }, [1] = { 2, 0, 1 }, [2] = { 2, 0, 1 }, [3] = { 2, 0, 1 }, [4] = { 2, 0, 1 },
      [5] = { 2, 0, 1 }, [6] = { 2, 0, 1 }, [7] = { 2.3, 0.7, 0 }, [8] = { 3, 0, 0 },
      [9] = { 2, 0.5, 0.5 }, [10] = { 2.9, 0.1, 0 }, [11] = { 1, 0, 2 },
    }
    assert_states(rp, expect)
  end)

  it("is idle between recv_blocking and recv_waking in the old format", function()
    local rp = run(fixture("old.trf"))
    local p1 = rp:proc(1)
    assert_near(2.0, p1.idle, 1e-9, "idle")
    assert_near(3.0, p1.busy, 1e-9, "busy")
    local p0 = rp:proc(0)
    assert_near(5.0, p0.busy, 1e-9, "busy of 0")
  end)

  it("reports state changes as they happen (profiles over time)", function()
    local changes = {}
    local t = assert(picl.open(fixture("states.trf")))
    local rp = replay.new(t, { on_state = function(p, time, old, new)
      if p == 9 then changes[#changes + 1] = string.format("%.2f %s>%s", time, old, new) end
    end })
    rp:run()
    assert.are.same({ "0.00 idle>busy", "1.00 busy>overhead", "1.25 overhead>idle", "1.75 idle>overhead",
      "2.00 overhead>busy", "3.00 busy>idle" }, changes)
  end)
end)

describe("replay: messages", function()
  it("pairs first-in first-out per (source, destination, tag)", function()
    local msgs = {}
    local t = assert(picl.open(fixture("fifo.trf")))
    local rp = replay.new(t, { on_message = function(m) msgs[#msgs + 1] = m end })
    rp:run_until(3.0)
    local p1 = rp:proc(1)
    assert.are.same({ 3, 60 }, { p1.queue, p1.queue_bytes })
    assert.are.equal(3, #rp:pending())
    rp:run()
    assert.are.equal(3, #msgs)
    local got = {}
    for i, m in ipairs(msgs) do got[i] = { m.tag, m.bytes, m.send_time, m.recv_time } end
    assert.are.same({ { 2, 20, 2.0, 4.0 }, { 1, 10, 1.0, 5.0 }, { 1, 30, 3.0, 6.0 } }, got)
    p1 = rp:proc(1)
    assert.are.same({ 0, 3, 60, 3, 60 }, { p1.queue, p1.max_queue, p1.max_queue_bytes, p1.received,
      p1.received_bytes })
    assert.are.same({ 3, 60 }, { rp:proc(0).sent, rp:proc(0).sent_bytes })
    assert.are.same({ 3, 0, 0 }, { rp:totals().messages, rp:totals().tachyons, rp:totals().pending })
  end)

  it("warns when records are out of time order, holding a processor's clock", function()
    local rp = run(fixture("unordered.trf"))
    local w = rp:warnings()
    assert.are.equal("records are not in time order (line 6: 2.000000 after 3.000000); the replay follows the file's order", w[1])
    assert.are.equal("processor 0: record at 2.500000 (line 7) is earlier than its previous one at 3.000000; held there", w[2])
    assert.are.same({ 1, 3 }, { rp:proc(0).first, rp:proc(0).last })
  end)

  it("counts and warns about tachyons without failing", function()
    local rp = run(fixture("tachyon.trf"))
    local tot = rp:totals()
    assert.are.same({ 1, 1, 0, 0 }, { tot.messages, tot.tachyons, tot.pending, tot.unmatched_receives })
    assert.truthy(rp:warnings()[1]:find("tachyon: message from processor 0 to 1 (tag 3)", 1, true))
  end)
end)

describe("replay: tasks", function()
  it("tracks nested tasks, the current task and task lifetimes", function()
    local t = assert(picl.open(fixture("tasks.trf")))
    local rp = replay.new(t)
    rp:run_until(1.6)
    assert.are.equal(2, rp:proc(0).task)
    assert.are.equal(2, rp:proc(1).task)
    assert.are.same({ 1, 2 }, rp:stack(0))
    rp:run_until(2.5)
    assert.are.equal(1, rp:proc(0).task)
    rp:run()
    local tasks = {}
    for _, k in ipairs(rp:tasks()) do tasks[k.task] = k end
    assert.are.same({ 0, 4, 2 }, { tasks[1].first_start, tasks[1].last_end, tasks[1].count })
    assert.are.same({ 1, 3, 2 }, { tasks[2].first_start, tasks[2].last_end, tasks[2].count })
    local w = table.concat(rp:warnings(), "\n")
    assert.truthy(w:find("processor 1: exit of user event 7 at 3.800000 (line 13) closes no open event", 1, true))
    assert.truthy(w:find("processor 2: user event 9 opened at 1.000000 is still open at the end", 1, true))
  end)

  it("reports intervals with nesting: MEDEA's worked example (Table 5)", function()
    local ivs = {}
    local t = assert(picl.open(fixture("medea-table5.trf")))
    local rp = replay.new(t, { on_interval = function(iv) ivs[iv.id] = iv end })
    rp:run()
    -- user-event parameters of type 0, computed from the intervals
    local function ancestors_user(iv)
      local p, n = ivs[iv.parent], 0
      while p do
        if p.event >= 0 then n = n + 1 end
        p = ivs[p.parent]
      end
      return n
    end
    local top
    for _, iv in pairs(ivs) do if iv.event == 0 then top = iv end end
    local stime, utime, hstime, snum, unum, hsnum, hunum = 0, 0, 0, 0, 0, 0, 0
    for _, iv in pairs(ivs) do
      if iv.parent == top.id then
        if iv.event < -10 then stime, snum = stime + iv.exit - iv.entry, snum + 1
        else utime, unum = utime + iv.exit - iv.entry, unum + 1 end
      elseif iv.id ~= top.id then
        if iv.event < -10 and ancestors_user(iv) >= 2 then hstime, hsnum = hstime + iv.exit - iv.entry, hsnum + 1 end
        if iv.event >= 0 and ancestors_user(iv) >= 2 then hunum = hunum + 1 end
      end
    end
    assert_near(0.002051, top.exit - top.entry, 1e-12, "ctime")
    assert_near(0.000388, stime, 1e-12, "stime")
    assert_near(0.001302, utime, 1e-12, "utime")
    assert_near(0.000871, hstime, 1e-12, "hstime")
    assert.are.same({ 1, 1, 2, 1 }, { snum, unum, hsnum, hunum })
    -- depths and bytes
    local send
    for _, iv in pairs(ivs) do if iv.event == -21 then send = iv end end
    assert.are.same({ 2, 2, 0, 8, 1 }, { send.depth, send.user_depth, send.sys_depth, send.bytes_out, send.parent_event })
    assert.are.same({ 8, 1, 7 }, send.entry_data)
    assert.is_nil(send.exit_data)
    assert.are.same({ 0, 0 }, ivs[top.id].entry_data)
  end)
end)

describe("replay: event table, window, stepping, critical path", function()
  it("keeps count, time and bytes per processor and event type", function()
    local rp = run(fixture("critical.trf"))
    local ev = rp:events(1)
    assert.are.equal(2, ev[-52].count)
    assert_near(2.1, ev[-52].time, 1e-9, "-52 time")
    assert.are.equal(24, ev[-52].bytes)
    assert.are.same({ 1, 32 }, { ev[-21].count, ev[-21].bytes })
    assert_near(0.2, ev[-21].time, 1e-9, "-21 time")
  end)

  it("finds the critical path worked out by hand", function()
    local rp = run(fixture("critical.trf"), { critical_path = true })
    local cp = assert(rp:critical_path())
    assert_near(9.0, cp.length, 1e-12, "length")
    local segs = {}
    for i, s in ipairs(cp.segments) do segs[i] = { s.proc, s.from, s.to } end
    assert.are.same({ { 0, 0.0, 0.1 }, { 1, 3.6, 4.0 }, { 2, 5.0, 9.0 } }, segs)
    local msgs = {}
    for i, m in ipairs(cp.messages) do msgs[i] = { m.src, m.dst, m.send_time, m.recv_time } end
    assert.are.same({ { 0, 1, 0.1, 3.6 }, { 1, 2, 4.0, 5.0 } }, msgs)
    -- states of the same trace (worked out in the fixture)
    local want = { [0] = { 5.5, 0.5, 3.0 }, [1] = { 2.7, 0.2, 6.1 }, [2] = { 4.5, 0, 4.5 } }
    assert_states(rp, want)
  end)

  it("accumulates only inside a time window", function()
    local rp = run(fixture("critical.trf"), { start = 1.0, stop = 4.0 })
    local p1, p2 = rp:proc(1), rp:proc(2)
    assert_near(0.9, p1.busy, 1e-9, "busy")
    assert_near(2.1, p1.idle, 1e-9, "idle")
    assert_near(3.0, p2.idle, 1e-9, "idle 2")
    for id = 0, 2 do
      local p = rp:proc(id)
      assert_near(3.0, p.busy + p.overhead + p.idle, 1e-9, "window sum " .. id)
    end
    -- sends inside the window: only P0's tag-1 send at 2.0 and P1's at 4.0
    assert.are.same({ 1, 1 }, { rp:proc(0).sent, rp:proc(1).sent })
  end)

  it("steps by records and by trace time", function()
    local t = assert(picl.open(fixture("critical.trf")))
    local rp = replay.new(t)
    local n, ended = rp:step(5)
    assert.are.same({ 5, false }, { n, ended })
    assert_near(0.1, rp:now(), 1e-12)
    rp:run_until(2.0)
    assert.are.equal(12, rp:records())
    assert.are.equal(2.5, rp:next_time())
    n, ended = rp:step(1000)
    assert.are.same({ 10, true }, { n, ended })
    -- frames every 4 records, and every 2 seconds of trace time
    local frames = {}
    t = assert(picl.open(fixture("critical.trf")))
    replay.new(t):play({ every_records = 4 }, function(r) frames[#frames + 1] = r:records() end)
    assert.are.same({ 4, 8, 12, 16, 20, 22 }, frames)
    frames = {}
    t = assert(picl.open(fixture("critical.trf")))
    replay.new(t):play({ every_time = 2, from = 0, to = 7 }, function(r, at)
      frames[#frames + 1] = string.format("%g:%d", at, r:records())
    end)
    assert.are.same({ "2:12", "4:17", "6:21", "7:21" }, frames)
    -- a time unit of milliseconds: every 2000 units is every 2 seconds
    frames = {}
    t = assert(picl.open(fixture("critical.trf")))
    replay.new(t):play({ every_time = 2000, unit = 1e-3, to = 4 }, function(r, at) frames[#frames + 1] = at end)
    assert.are.same({ 2, 4 }, frames)
    assert.are.equal(1e-3, replay.time_unit(9.0))
  end)

  it("raises the error of a failing callback and stops", function()
    local t = assert(picl.open(fixture("critical.trf")))
    local rp = replay.new(t, { on_state = function(_, time) if time >= 2 then error("stop here") end end })
    local ok, err = pcall(rp.run, rp)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("stop here", 1, true))
    -- stopped at the first record at 2 s or later that changes a state
    assert.is_true(rp:now() >= 2)
    local n, stop = 0, nil
    for rec in assert(picl.open(fixture("critical.trf"))):records() do
      n = n + 1
      if rec.time >= 2 and not stop then stop = n end
    end
    assert.is_true(rp:records() >= stop and rp:records() < n)
  end)

  it("has no per-record Lua callback (records reach Lua in batches)", function()
    local t = assert(picl.open(fixture("critical.trf")))
    local ok, err = pcall(replay.new, t, { on_record = function() end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("on_record", 1, true))
  end)

  it("a callback cannot close, step, run or finish its own replay", function()
    local full = replay.new(assert(picl.open(fixture("critical.trf"))))
    full:run()
    local all = full:records()
    for _, what in ipairs({ "close", "step", "run", "finish" }) do
      local rp, states = nil, 0
      rp = replay.new(assert(picl.open(fixture("critical.trf"))), { on_state = function()
        states = states + 1
        if states == 1 then rp[what](rp) end
      end })
      local ok, err = pcall(rp.run, rp)
      assert.is_false(ok)
      local verb = (what == "close" or what == "finish") and what or "step"
      assert.truthy(tostring(err):find("cannot " .. verb .. " a replay from its own callback", 1, true), err)
      -- still open, and usable: the rest of the trace replays with its callbacks
      assert.is_true(rp:records() < all)
      rp:run()
      assert.are.equal(all, rp:records())
      assert.is_true(states > 1)
      rp:close()
    end
  end)

  it("a callback cannot close, read or rewind the trace its replay reads", function()
    for _, what in ipairs({ "close", "next", "records", "rewind" }) do
      local t = assert(picl.open(fixture("critical.trf")))
      local rp = replay.new(t, { on_state = function() t[what](t) end })
      local ok, err = pcall(rp.run, rp)
      assert.is_false(ok)
      local verb = ({ close = "close", next = "read", records = "read", rewind = "rewind" })[what]
      assert.truthy(tostring(err):find("cannot " .. verb .. " a PICL trace while a replay reads it", 1, true), err)
      assert.are.equal(1, rp:records()) -- stopped at the first record
      assert.is_table(t:next()) -- once the replay has returned, the trace is the script's again
      rp:close()
      t:close()
    end
  end)

  it("refuses a closed trace", function()
    local t = assert(picl.open(fixture("critical.trf")))
    local rp = replay.new(t)
    t:close()
    assert.has_error(function() rp:step(1) end)
  end)
end)

describe("retrace picl", function()
  it("stats --json has the documented shape", function()
    local code, out, err = h.retrace("picl", "stats", "--json", fixture("critical.trf"))
    assert.are.equal(0, code, err)
    local s = cjson.decode(out)
    assert.are.same({ 0, 9 }, s.span)
    assert.are.equal(3, #s.processors)
    local p1 = s.processors[2]
    assert.are.same({ 1, 1, 32, 2, 24, 2 }, { p1.id, p1.sent, p1.sent_bytes, p1.received, p1.received_bytes,
      p1.max_queue })
    assert_near(2.7, p1.busy, 1e-9)
    assert.are.same({ count = 2, bytes = 24 }, { count = p1.events["-52"].count, bytes = p1.events["-52"].bytes })
    assert.are.same({ 4, 0 }, { s.messages, s.tachyons })
    assert_near(9, s.critical_path.length, 1e-12)
    assert.are.equal("table", type(s.warnings))
    assert.truthy(out:find('"warnings":[]', 1, true))
  end)

  it("stats prints a readable summary", function()
    local code, out = h.retrace("picl", "stats", fixture("fifo.trf"))
    assert.are.equal(0, code)
    assert.truthy(out:find("new format, 13 records, 2 processors", 1, true))
    assert.truthy(out:find("messages 3, tachyons 0", 1, true))
    assert.truthy(out:find("-21 send", 1, true))
    code, out = h.retrace("picl", "stats", fixture("critical.trf"))
    assert.are.equal(0, code)
    assert.truthy(out:find("processor 0   0.000000 .. 0.100000  -> message to 1 sent 0.100000, received 3.600000",
      1, true))
    assert.truthy(out:find("processor 2   5.000000 .. 9.000000\n", 1, true))
  end)

  it("reads a trace from standard input", function()
    local f = io.popen("cat " .. h.quote(fixture("critical.trf")) .. " | " .. h.quote(h.bin) .. " picl stats --json -")
    local out = f:read("a")
    assert.is_true(f:close())
    assert.are.equal(9, cjson.decode(out).critical_path.length)
  end)

  it("dump annotates records in words within --from/--to", function()
    local code, out = h.retrace("picl", "dump", "--from", "1", "--to", "2", fixture("fifo.trf"))
    assert.are.equal(0, code)
    assert.are.equal(table.concat({
      "    1.000000  proc 0   enters send: 10 bytes, tag 1, to processor 1",
      "    1.000000  proc 0   leaves send",
      "    2.000000  proc 0   enters send: 20 bytes, tag 2, to processor 1",
      "    2.000000  proc 0   leaves send",
    }, "\n") .. "\n", out)
    code, out = h.retrace("picl", "dump", fixture("old.trf"))
    assert.truthy(out:find("node 1   blocks waiting for a message", 1, true))
    assert.truthy(out:find("node 0   send to node 1, type 77, 64 bytes", 1, true))
  end)

  it("convert writes an old trace in the new format, replaying the same", function()
    local out = os.tmpname()
    local code, _, err = h.retrace("picl", "convert", fixture("old.trf"), out)
    assert.are.equal(0, code, err)
    local a, b = run(fixture("old.trf")), run(out)
    assert.are.equal(a:totals().messages, b:totals().messages)
    assert.are.equal(2, b:totals().messages)
    for id = 0, 1 do
      for _, k in ipairs { "busy", "overhead", "idle", "sent", "received" } do
        assert.are.equal(a:proc(id)[k], b:proc(id)[k], k)
      end
    end
    local t = assert(picl.open(out))
    assert.are.equal("new", t:format())
    t:close()
    os.remove(out)
    -- onto itself (under another spelling): refused, the input left whole
    local copy = h.temp_file(h.slurp(fixture("old.trf")), ".trf")
    local dir, base = copy:match("^(.*)/([^/]+)$")
    local other = dir .. "/./" .. base
    local ccode, _, cerr = h.retrace("picl", "convert", copy, other)
    assert.are.equal(1, ccode)
    assert.are.equal("retrace: " .. other .. ": is the input trace (it would be overwritten while read)\n", cerr)
    assert.are.equal(h.slurp(fixture("old.trf")), h.slurp(copy))
    os.remove(copy)
  end)

  it("warns about skipped lines, and --strict makes them errors", function()
    local code, out, err = h.retrace("picl", "stats", fixture("malformed.trf"))
    assert.are.equal(0, code)
    assert.truthy(err:find("malformed.trf:3: time: 'x' is not a number", 1, true))
    assert.truthy(err:find("malformed.trf: 2 malformed lines skipped", 1, true))
    assert.truthy(out:find("messages 1", 1, true))
    code, out = h.retrace("picl", "stats", "--json", fixture("malformed.trf"))
    assert.are.equal(0, code)
    local s = cjson.decode(out)
    assert.are.equal("malformed line skipped: " .. fixture("malformed.trf") .. ":3: time: 'x' is not a number",
      s.warnings[1])
    code, _, err = h.retrace("picl", "stats", "--strict", fixture("malformed.trf"))
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. fixture("malformed.trf") .. ":3: time: 'x' is not a number\n", err)
    code, _, err = h.retrace("picl", "dump", "--strict", fixture("malformed.trf"))
    assert.are.equal(1, code)
    assert.truthy(err:find("malformed.trf:3: time", 1, true))
  end)

  it("reports bad input and bad usage", function()
    local code, _, err = h.retrace("picl", "stats", "/nonexistent.trf")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent.trf: No such file or directory", 1, true))
    code, _, err = h.retrace("picl", "stats", "--from", "3", "--to", "1", fixture("fifo.trf"))
    assert.are.equal(2, code)
    assert.truthy(err:find("--from 3 is after --to 1", 1, true))
    code = h.retrace("picl", "stats", "--format", "middle", fixture("fifo.trf"))
    assert.are.equal(2, code)
    local tmp = os.tmpname()
    code, _, err = h.retrace("picl", "convert", fixture("fifo.trf"), tmp)
    os.remove(tmp)
    assert.are.equal(1, code)
    assert.truthy(err:find("fifo.trf: already in the new PICL format", 1, true))
    code, _, err = h.retrace("picl", "convert", fixture("old.trf"), "/nonexistent/dir/out.trf")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent/dir/out.trf: No such file or directory", 1, true))
  end)
end)

describe("real PICL traces", function()
  local files = { "picl/fft-16.trf", "picl/mpicl-8a.trf", "picl/mpicl-8b.trf", "picl/mpicl-10.trf" }
  for _, rel in ipairs(files) do
    it(rel .. " loads strictly, every message pairs, states add up to the span", function()
      local path = h.shared_file(rel)
      if not path then
        pending(rel .. ": ../shared/data absent, skipped")
        return
      end
      local t = assert(picl.open(path, { strict = true }))
      local rp = replay.new(t, { critical_path = true })
      rp:run()
      assert.are.equal(0, (t:skipped()))
      local tot = rp:totals()
      assert.are.equal(0, tot.pending)
      assert.are.equal(0, tot.unmatched_receives)
      assert.are.equal(0, tot.tachyons)
      assert.is_true(tot.messages > 0)
      local t0, t1 = rp:span()
      for id = 0, rp:nprocs() - 1 do
        local p = rp:proc(id)
        assert_near(t1 - t0, p.busy + p.overhead + p.idle, 1e-9, rel .. " processor " .. id)
      end
      assert.is_true(rp:critical_path().length > 0)
    end)
  end

  it("agrees with the statistics records the new-format traces carry", function()
    for _, rel in ipairs { "picl/mpicl-8a.trf", "picl/mpicl-10.trf" } do
      local path = h.shared_file(rel)
      if not path then
        pending(rel .. ": ../shared/data absent, skipped")
        return
      end
      -- the trace's own -101 (time), -102 (count), -103 / -104 (bytes) records
      local stats = {}
      local t = assert(picl.open(path))
      for rec in t:records() do
        if rec.kind == "statistics" then
          for i = 1, #rec.data, 2 do
            local key = rec.proc .. "/" .. rec.data[i]
            stats[key] = stats[key] or {}
            stats[key][rec.rectype] = rec.data[i + 1]
          end
        end
      end
      t:close()
      local rp = run(path)
      local checked = 0
      for key, s in pairs(stats) do
        local proc, ev = key:match("^(%d+)/(%-?%d+)$")
        local row = rp:events(tonumber(proc))[tonumber(ev)]
        if row and tonumber(ev) ~= -901 then
          if s[-102] then assert.are.equal(s[-102], row.count, key .. " count") end
          if s[-101] then assert_near(s[-101], row.time, 2e-5 + 1e-5 * row.count, key .. " time") end
          if s[-103] then assert.are.equal(s[-103], row.bytes_out, key .. " sent bytes") end
          if s[-104] then assert.are.equal(s[-104], row.bytes_in, key .. " received bytes") end
          checked = checked + 1
        end
      end
      assert.is_true(checked > 10)
    end
  end)

  it("stats --json runs on fft-16 (old format)", function()
    local path = h.shared_file("picl/fft-16.trf")
    if not path then
      pending("picl/fft-16.trf: ../shared/data absent, skipped")
      return
    end
    local code, out = h.retrace("picl", "stats", "--json", path)
    assert.are.equal(0, code)
    local s = cjson.decode(out)
    assert.are.equal(16, #s.processors)
    assert.are.equal(64, s.messages)
  end)
end)
