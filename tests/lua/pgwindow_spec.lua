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
  end)

  it("gives the statistics rows of `retrace stats --from --to`", function()
    local rows = s.displays.stats.stats.processors
    for p = 1, 4 do
      for _, k in ipairs({ "busy", "overhead", "idle", "sent", "sent_bytes", "received", "received_bytes",
                           "max_queue" }) do
        assert.is_true(math.abs(st.processors[p][k] - rows[p][k]) < 1e-9,
          string.format("P%d %s: paragraph %s, stats %s", p - 1, k, rows[p][k], st.processors[p][k]))
      end
      -- time in the three states adds up to the window
      assert.is_true(math.abs(rows[p].busy + rows[p].overhead + rows[p].idle - (B - A)) < 1e-9)
    end
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
    -- messages touching [3, 7]: 0->1 (sent 1, received 3), 0->2 (3, 6), 1->3 (4, 9), 2->3 (7, 11)
    assert.are.equal(4, #msgs)
    for _, m in ipairs(msgs) do assert.is_true(m.recv >= A and m.send <= B) end
    for _, k in ipairs(csv_rows(data .. "/tasks.csv")) do
      assert.is_true(k.start >= A and k["end"] <= B, k.task .. ": " .. k.start .. " .. " .. k["end"])
    end
  end)

  it("draws task bars and the critical path inside the window", function()
    local tasks = s.displays.task_summary.tasks
    assert.is_true(#tasks > 0)
    for _, k in ipairs(tasks) do assert.is_true(k.start >= A and k["end"] <= B) end
    local cp = s.displays.critical_path.critical_path
    for _, g in ipairs(cp and cp.segments or {}) do assert.is_true(g.from >= A and g.to <= B) end
  end)
end)
