-- retrace paragraph --from A --to B: statistics, task bars, critical path and the
-- --data CSV files all lie within [A, B], and the statistics rows equal those of
-- `retrace stats --from A --to B` (values read off hand4.trf by hand).
local h = require "helpers"
local cjson = require "cjson"

local hand4 = h.fixtures .. "/paragraph/hand4.trf"
local A, B = 3, 7

local function csv_rows(path)
  local rows, header = {}, nil
  for line in io.lines(path) do
    local f = {}
    for v in line:gmatch("[^,]+") do f[#f + 1] = v end
    if not header then header = f else
      local r = {}
      for i, k in ipairs(header) do r[k] = tonumber(f[i]) or f[i] end
      rows[#rows + 1] = r
    end
  end
  return rows
end

describe("paragraph --from / --to", function()
  local out, data, s, st
  setup(function()
    out, data = h.temp_dir(), h.temp_dir()
    local code, stdout, err = h.retrace("paragraph", hand4, "-o", out, "--data", data, "--json", "--unit", "s",
      "--display", "stats,task_summary,critical_path", "--from", tostring(A), "--to", tostring(B))
    assert.are.equal(0, code, err)
    s = cjson.decode(stdout)
    local c2, o2, e2 = h.retrace("stats", hand4, "--json", "--from", tostring(A), "--to", tostring(B))
    assert.are.equal(0, c2, e2)
    st = cjson.decode(o2)
  end)
  teardown(function() h.remove_tree(out); h.remove_tree(data) end)

  it("counts messages and bytes inside the window only (hand-checked)", function()
    -- in [3, 7]: sends P0 at 3 (200 B), P1 at 4 (300 B), P2 at 7 (400 B);
    -- receives P1 at 3 (100 B), P2 at 6 (200 B); the whole run has P0 and P2 sending twice, P3 receiving 3
    local want_sent, want_recv = { 1, 1, 1, 0 }, { 0, 1, 1, 0 }
    local want_sb, want_rb = { 200, 300, 400, 0 }, { 0, 100, 200, 0 }
    local rows = s.displays.stats.stats.processors
    for p = 1, 4 do
      assert.are.equal(want_sent[p], rows[p].sent, "sent P" .. (p - 1))
      assert.are.equal(want_sb[p], rows[p].sent_bytes, "sent bytes P" .. (p - 1))
      assert.are.equal(want_recv[p], rows[p].received, "received P" .. (p - 1))
      assert.are.equal(want_rb[p], rows[p].received_bytes, "received bytes P" .. (p - 1))
    end
    assert.are.equal(B - A, s.displays.stats.stats.span)
    -- processor-time in tasks inside [3, 7]: every processor but P2 (in task 2 only 1..2) is in one
    -- all along (P1 leaves task 1 at 6 for task 2)
    local tt = {}
    for p = 1, 4 do tt[p] = rows[p].task_time end
    assert.are.same({ 4, 4, 0, 4 }, tt)
    -- mean processors over [3, 7], one task per processor at a time (the innermost): task 1
    -- P0 3..5 + P1 3..6 + P3 4..7 = 8 s, task 2 P3 3..4 + P0 5..7 + P1 6..7 = 4 s; over 4 s
    local mp = {}
    for _, k in ipairs(s.displays.stats.stats.tasks) do mp[k.id] = { k.start, k["end"], k.mean_processors } end
    assert.are.same({ [1] = { 3, 7, 8 / 4 }, [2] = { 3, 7, 4 / 4 } }, mp)
  end)

  it("gives the statistics rows of `retrace stats --from --to`", function()
    local rows = s.displays.stats.stats.processors
    for p = 1, 4 do
      for _, k in ipairs({ "busy", "overhead", "idle", "sent", "sent_bytes", "received", "received_bytes",
                           "max_queue" }) do
        -- the display gives the states in percent of the window, stats in seconds
        local v = (k == "busy" or k == "overhead" or k == "idle") and rows[p][k] * (B - A) / 100 or rows[p][k]
        assert.is_true(math.abs(st.processors[p][k] - v) < 1e-9,
          string.format("P%d %s: paragraph %s, stats %s", p - 1, k, rows[p][k], st.processors[p][k]))
      end
      -- time in the three states adds up to the window
      assert.is_true(math.abs(rows[p].busy + rows[p].overhead + rows[p].idle - 100) < 1e-9)
    end
  end)

  it("takes queue high-water marks and task occurrences inside the window (hand-checked)", function()
    -- P3's queue: 300 B sent at 4, 400 B at 7, 50 B at 9 before any is received: 3 over the run,
    -- 1 over [3, 5]; P1's single message (sent at 1) is outside [3, 5]
    local o = h.temp_dir()
    local code, stdout, err = h.retrace("paragraph", hand4, "-o", o, "--json", "--unit", "s", "--display", "stats",
      "--from", "3", "--to", "5")
    h.remove_tree(o)
    assert.are.equal(0, code, err)
    local q = {}
    for p, r in ipairs(cjson.decode(stdout).displays.stats.stats.processors) do q[p] = r.max_queue end
    assert.are.same({ 0, 0, 1, 1 }, q)
    local c2, o2, e2 = h.retrace("stats", hand4, "--json", "--from", "3", "--to", "5")
    assert.are.equal(0, c2, e2)
    local w = cjson.decode(o2)
    q = {}
    for p, r in ipairs(w.processors) do q[p] = r.max_queue end
    assert.are.same({ 0, 0, 1, 1 }, q)
    -- task 1 held by P0, P1, P3 across [3, 5]; task 2 by P3 (2..4) and P0 (5..7)
    local k = {}
    for _, t in ipairs(w.tasks) do k[t.id] = { t.start, t["end"], t.count } end
    assert.are.same({ [1] = { 3, 5, 3 }, [2] = { 3, 5, 2 } }, k)
  end)

  it("writes states, messages and tasks CSVs inside the window", function()
    local states = csv_rows(data .. "/states.csv")
    assert.is_true(#states > 0)
    local per = {}
    for _, r in ipairs(states) do
      assert.is_true(r.start >= A and r["end"] <= B and r["end"] > r.start, r.start .. " .. " .. r["end"])
      per[r.proc] = (per[r.proc] or 0) + (r["end"] - r.start)
    end
    for p = 0, 3 do assert.is_true(math.abs(per[p] - (B - A)) < 1e-9, "P" .. p .. " covers the window") end
    local msgs = csv_rows(data .. "/messages.csv")
    -- messages received in [3, 7]: 0->1 (sent 1, received 3), 0->2 (3, 6); the whole run has 5
    assert.are.same({ { 0, 1, 1, 3 }, { 0, 2, 3, 6 } },
      { { msgs[1].src, msgs[1].dst, msgs[1].send, msgs[1].recv }, { msgs[2].src, msgs[2].dst, msgs[2].send, msgs[2].recv } })
    assert.are.equal(2, #msgs)
    -- states: P3 busy over the whole window (its first receive begins at 8)
    local p3 = {}
    for _, r in ipairs(states) do if r.proc == 3 then p3[#p3 + 1] = { r.state, r.start, r["end"] } end end
    assert.are.same({ { "busy", 3, 7 } }, p3)
    -- tasks 1 (P0 0..8, P1 0..6, P3 0..12) and 2 (P2 1..2, P3 2..4, P0 5..7, P1 6..9) cut to [3, 7]
    local tasks = csv_rows(data .. "/tasks.csv")
    assert.are.equal(2, #tasks)
    -- occurrences reaching into the window: task 1 on P0, P1, P3; task 2 on P3, P0, P1
    -- (the live pass stops at 7 with P0, P1 and P3 still inside; the same counts as `retrace stats`)
    for _, k in ipairs(tasks) do
      assert.are.same({ A, B, 100, 3 }, { k.start, k["end"], k.percent, k.count }, "task " .. k.task)
    end
    for _, k in ipairs(st.tasks) do assert.are.equal(3, k.count, "stats task " .. k.id) end
  end)

  it("draws task bars and the critical path inside the window", function()
    local tasks = s.displays.task_summary.tasks
    assert.is_true(#tasks > 0)
    for _, k in ipairs(tasks) do assert.is_true(k.start >= A and k["end"] <= B) end
    local cp = s.displays.critical_path.critical_path
    for _, g in ipairs(cp and cp.segments or {}) do assert.is_true(g.from >= A and g.to <= B) end
    -- hand4's path: P0 0..3, its message to P2 3..6, P2 6..9, the message to P3 9..12 (12 s);
    -- inside [3, 7]: the flight 3..6 and P2 6..7, 4 s; stats --from --to says the same
    assert.are.equal(4, cp.length)
    assert.are.same({ { proc = 2, from = 6, to = 7 } }, cp.segments)
    assert.are.equal(4, st.critical_path.length)
    assert.are.same({ { proc = 2, from = 6, to = 7 } }, st.critical_path.segments)
    assert.are.equal(1, #st.critical_path.messages)
  end)

  it("stats --json gives task percents of the window", function()
    -- hand4 over [8, 12]: task 1 runs to the end (4 of 4 s), task 2 from 8 to 9 (1 of 4 s)
    local code, out, err = h.retrace("stats", hand4, "--from", "8", "--to", "12", "--json")
    assert.are.equal(0, code, err)
    local tasks = require("cjson").decode(out).tasks
    assert.are.same({ 1, 8, 12, 100 }, { tasks[1].id, tasks[1].start, tasks[1]["end"], tasks[1].percent })
    assert.are.same({ 2, 8, 9, 25 }, { tasks[2].id, tasks[2].start, tasks[2]["end"], tasks[2].percent })
  end)
end)
