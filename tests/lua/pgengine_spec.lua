-- The Lua face of the replay additions the ParaGraph displays use: prescan,
-- hooks, the matrix, collective instances, the raster and the window check,
-- on the hand-made trace tests/fixtures/paragraph/hand4.trf (values by hand:
-- see the tables in tests/c/test_pgengine.c) and the shared fft-16 trace.
local h = require "helpers"
local replay = require "retrace.replay"
local picl = require "retrace.picl"
local timeline = require "retrace.timeline"

local hand4 = h.fixtures .. "/paragraph/hand4.trf"

describe("replay.prescan", function()
  it("reports processors, span, maxima, tasks and the default unit of hand4", function()
    local ps = assert(replay.prescan(hand4))
    assert.are.equal(4, ps.processors)
    assert.are.equal(0, ps.t0)
    assert.are.equal(12, ps.t1)
    assert.are.equal(34, ps.records)
    assert.are.same({ 0, 0, 1, 0 }, { ps.procs[1].first, ps.procs[2].first, ps.procs[3].first, ps.procs[4].first })
    assert.are.same({ 8, 9, 10, 12 }, { ps.procs[1].last, ps.procs[2].last, ps.procs[3].last, ps.procs[4].last })
    assert.are.equal(3, ps.max_pending)
    assert.are.equal(750, ps.max_pending_bytes)
    assert.are.equal(3, ps.max_queue)
    assert.are.equal(3, ps.max_queue_proc)
    assert.are.same({ 1, 2 }, ps.tasks)
    assert.is_true(math.abs(ps.unit - 0.01) < 1e-15)
    assert.are.equal(500, ps.scale_width)
    assert.are.equal(replay.time_unit(12), ps.unit)
  end)

  it("takes an open PICL trace and leaves it readable from the start", function()
    local t = assert(picl.open(hand4))
    local ps = assert(replay.prescan(t))
    assert.are.equal(34, ps.records)
    local rp = replay.new(t, { prescan = ps })
    rp:run()
    assert.are.equal(34, rp:records())
    assert.is_true(rp:proc(0).ended)
  end)

  it("fails with the reader's message on a missing file", function()
    local ps, err = replay.prescan("/nonexistent/trace.trf")
    assert.is_nil(ps)
    assert.truthy(err:find("/nonexistent/trace.trf", 1, true))
  end)

  it("checks a window against the span, naming it", function()
    local ps = assert(replay.prescan(hand4))
    assert.is_true(replay.check_window(ps, 2, 3))
    assert.is_true(replay.check_window(ps, nil, 0))
    local ok, err = replay.check_window(ps, 12.5, 20, "hand4.trf")
    assert.is_nil(ok)
    assert.are.equal("hand4.trf: window 12.5 .. 20 s lies outside the trace's span 0 .. 12 s", err)
    ok, err = replay.check_window(ps, -1e-6, -1e-7, "hand4.trf")
    assert.is_nil(ok)
    assert.truthy(err:find("outside the trace's span 0 .. 12 s", 1, true))
  end)
end)

describe("replay hooks", function()
  it("turns processors idle at their own last record, in time order", function()
    local idle = {}
    local rp = replay.open(hand4, { prescan = true, on_state = function(p, t, _, new)
      if new == "idle" and t >= 8 then idle[#idle + 1] = { p, t } end
    end })
    assert.is_false(rp:run_until(8.5))
    assert.are.equal("idle", rp:proc(0).state)
    assert.are.equal("busy", rp:proc(1).state)
    rp:run()
    -- P3 also waits in receives at 8 and 10 before its end at 12
    assert.are.same({ { 0, 8 }, { 3, 8 }, { 1, 9 }, { 2, 10 }, { 3, 10 }, { 3, 11 }, { 3, 12 } }, idle)
  end)

  it("calls on_send at the send and on_task on task changes; keeps the matrix", function()
    local sends, tasks = {}, {}
    local rp = replay.open(hand4, { matrix = true,
      on_send = function(m) sends[#sends + 1] = string.format("%d>%d@%g:%g", m.src, m.dst, m.send_time, m.bytes) end,
      on_task = function(p, t, old, new)
        if p == 3 then tasks[#tasks + 1] = string.format("%g:%s>%s", t, tostring(old), tostring(new)) end
      end })
    rp:run_until(8)
    assert.are.same({ count = { { 0, 0, 0, 0 }, { 0, 0, 0, 1 }, { 0, 0, 0, 1 }, { 0, 0, 0, 0 } },
                      bytes = { { 0, 0, 0, 0 }, { 0, 0, 0, 300 }, { 0, 0, 0, 400 }, { 0, 0, 0, 0 } } },
                    rp:matrix())
    assert.are.equal(1, rp:proc(2).pending_out)
    assert.are.equal(400, rp:proc(2).pending_out_bytes)
    rp:run()
    assert.are.same({ "0>1@1:100", "0>2@3:200", "1>3@4:300", "2>3@7:400", "2>3@9:50" }, sends)
    assert.are.same({ "0:nil>1", "2:1>2", "4:2>1", "12:1>nil" }, tasks)
    assert.are.same({ count = { { 0, 1, 1, 0 }, { 0, 0, 0, 1 }, { 0, 0, 0, 2 }, { 0, 0, 0, 0 } },
                      bytes = { { 0, 100, 200, 0 }, { 0, 0, 0, 300 }, { 0, 0, 0, 450 }, { 0, 0, 0, 0 } } },
                    rp:matrix("cumulative"))
    local tot = rp:totals()
    assert.are.equal(3, tot.max_pending)
    assert.are.equal(750, tot.max_pending_bytes)
  end)

  it("refuses rp:matrix() on a replay opened without it", function()
    local rp = replay.open(hand4)
    assert.has_error(function() rp:matrix() end,
      "rp:matrix(): the replay keeps no matrix (open it with matrix = true)")
  end)
end)

describe("retrace.timeline", function()
  it("rasters hand4 one second per cell, one processor per row", function()
    local ps = assert(replay.prescan(hand4))
    local rp = replay.open(hand4, { prescan = ps })
    local tl = timeline.for_replay(rp, ps, 12, 4)
    rp:run()
    tl:advance(12)
    local want = { "bobobbbbiiii", "bbibobbbbiii", "ibbbbiboboii", "bbbbbbbbibii" }
    for r = 0, 3 do
      local row = {}
      for c = 0, 11 do row[#row + 1] = tl:cell(c, r).dominant:sub(1, 1) end
      assert.are.equal(want[r + 1], table.concat(row))
    end
    local cell = tl:cell(5, 0) -- P0 5..6 s: busy, in task 2
    assert.are.same({ idle = 0, overhead = 0, busy = 1, tasks = { 0, 1, 0 }, dominant = "busy" }, cell)
    assert.are.equal(4, tl:times("idle")[0 * 12 + 11 + 1] + tl:times("idle")[1 * 12 + 11 + 1] * 3)
    local g = tl:grid("state")
    assert.are.equal("retrace.Grid: 12 x 4 cells", tostring(g))
    assert.has_error(function() tl:cell(12, 0) end, "timeline:cell(12, 0): outside the 12x4 raster")
    -- scrolling by two columns keeps the cells still inside: P0's 5..6 s is now column 3
    tl:scroll(2)
    assert.are.same({ 2, 14 }, { tl:window() })
    assert.are.equal(1, tl:cell(3, 0).busy)
    assert.are.equal(0, tl:cell(10, 0).busy + tl:cell(10, 0).idle)
  end)

  it("puts two processors in a row when there are more processors than rows", function()
    local ps = assert(replay.prescan(hand4))
    local rp = replay.open(hand4, { prescan = ps })
    local tl = timeline.for_replay(rp, ps, 4, 2)
    rp:run()
    tl:advance(12)
    assert.are.same({ 0, 2 }, { tl:row_procs(0) })
    assert.are.equal(1, tl:row_of(3))
    -- row 0 (P0, P1) over 0..3 s: P0 busy 2 overhead 1, P1 busy 2 idle 1
    local c = tl:cell(0, 0)
    -- (cells count whole 2^-32-ths of a column: the seconds within a few of them)
    for i, v in ipairs({ c.idle, c.overhead, c.busy }) do assert.is_true(math.abs(v - ({ 1, 1, 4 })[i]) < 1e-8) end
  end)

  it("rejects bad sizes and windows", function()
    assert.has_error(function() timeline.new { cols = 0, rows = 2, procs = 2, t0 = 0, t1 = 1 } end,
      "timeline: columns 0 (1..65536)")
    assert.has_error(function() timeline.new { cols = 2, rows = 2, procs = 2, t0 = 1, t1 = 1 } end,
      "timeline: window 1 .. 1 (start before end)")
  end)
end)

describe("old-format compstats", function()
  it("fft-16 shows overhead on every processor, none with compstats = false", function()
    local path = h.shared_file and h.shared_file("picl/fft-16.trf")
    if not path then
      pending("picl/fft-16.trf: ../shared/data absent, skipped")
      return
    end
    for _, on in ipairs { true, false } do
      local rp = replay.open(path, { compstats = on })
      rp:run()
      for id = 0, 15 do
        local ovh = rp:proc(id).overhead
        if on then assert.is_true(ovh > 0.0015, "processor " .. id) else assert.are.equal(0, ovh) end
      end
    end
  end)
end)

describe("retrace stats on fft-16", function()
  it("shows the compstats overhead; --no-compstats gives the counters-blind split back", function()
    local path = h.shared_file("picl/fft-16.trf")
    if not path then
      pending("picl/fft-16.trf: ../shared/data absent, skipped")
      return
    end
    local cjson = require "cjson"
    local code, out = h.retrace("stats", path)
    assert.are.equal(0, code)
    assert.truthy(out:find("-11 communication call              128       0.042776", 1, true))
    code, out = h.retrace("stats", "--json", path)
    assert.are.equal(0, code)
    local s = cjson.decode(out)
    assert.are.equal(16, #s.processors)
    for _, p in ipairs(s.processors) do
      assert.is_true(p.overhead > 0.0015, "processor " .. p.id)
      assert.is_near(s.span[2] - s.span[1], p.busy + p.overhead + p.idle, 1e-12)
    end
    code, out = h.retrace("picl", "stats", "--json", "--no-compstats", path)
    assert.are.equal(0, code)
    s = cjson.decode(out)
    for _, p in ipairs(s.processors) do assert.are.equal(0, p.overhead) end
    assert.are.equal(s.span[2] - s.span[1], s.processors[1].busy) -- processor 0 never waits
  end)
end)
