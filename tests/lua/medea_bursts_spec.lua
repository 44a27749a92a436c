-- Computation bursts between system events, clustered by k-means, and their
-- clusters written back into a Trace Event Format export as markers
-- (`retrace medea --bursts K [--bursts-trace FILE.json]`), on a hand-made trace.
require "retrace"
local h = require "helpers"
local medea = require "retrace.medea"
local cjson = require "cjson"

-- tests/fixtures/medea/slices.trf, two processors from 0 to 4 s, both in user event 0
-- throughout: P0 sends 0.5..1.5 and receives 3.0..3.5; P1 receives 0.5..2.5 and sends
-- 2.5..2.75. Bursts (outside every send / receive), with the user events entered in them:
local TRACE = h.fixtures .. "/medea/slices.trf"
local HAND = { -- proc, t0, t1, user events (sorted by proc, then t0); P1's 2.5..2.5 has no length
  { 0, 0, 0.5, 1 }, { 0, 1.5, 3.0, 0 }, { 0, 3.5, 4.0, 0 }, { 1, 0, 0.5, 1 }, { 1, 2.75, 4.0, 0 },
}

local function sorted_bursts(r)
  local out = {}
  for i = 1, r.n do out[i] = { r.proc[i], r.t0[i], r.t1[i], r.nuser[i], r.assign[i] } end
  table.sort(out, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  return out
end

-- The smallest within-cluster sum of squares over every partition of rows into two
-- non-empty groups (2^n / 2 of them): the reference for k-means at K = 2.
local function best_two(rows)
  local n, best, part = #rows, math.huge, nil
  for mask = 1, (1 << (n - 1)) - 1 do
    local groups = { {}, {} }
    for i = 1, n do table.insert(groups[((mask >> (i - 1)) & 1) + 1], rows[i]) end
    local w = 0
    for _, g in ipairs(groups) do
      local m = { 0, 0 }
      for _, r in ipairs(g) do m[1], m[2] = m[1] + r[1] / #g, m[2] + r[2] / #g end
      for _, r in ipairs(g) do w = w + (r[1] - m[1]) ^ 2 + (r[2] - m[2]) ^ 2 end
    end
    if w < best then best, part = w, mask end
  end
  return best, part
end

describe("medea.bursts", function()
  it("finds the bursts between system events, worked out by hand", function()
    local acc = assert(medea.accumulate(TRACE, false, false, true))
    local r = assert(medea.bursts.cluster(acc, 2))
    acc:close()
    assert.equals(5, r.n)
    local got = sorted_bursts(r)
    for i, want in ipairs(HAND) do
      for f = 1, 4 do assert.equals(want[f], got[i][f], "burst " .. i .. " field " .. f) end
    end
    -- two clusters: the first bursts with a user event in them, the others; shortest first
    assert.same({ 1, 2, 2, 1, 2 }, { got[1][5], got[2][5], got[3][5], got[4][5], got[5][5] })
    assert.equals(2, r.clusters[1].count)
    assert.near(0.5, r.clusters[1].mean_duration, 1e-12)
    assert.near(1, r.clusters[1].mean_nuser, 1e-12)
    assert.near(1.5 + 0.5 + 1.25, r.clusters[2].total, 1e-12)
  end)

  it("reaches the least within-cluster sum of squares of an exhaustive search", function()
    local acc = assert(medea.accumulate(TRACE, false, false, true))
    local r = assert(medea.bursts.cluster(acc, 2))
    acc:close()
    -- the features as the module scales them: ln duration and user events, each to [0, 1]
    local lo, hi = math.huge, -math.huge
    for i = 1, r.n do
      local l = math.log(r.duration[i])
      lo, hi = math.min(lo, l), math.max(hi, l)
    end
    local rows = {}
    for i = 1, r.n do rows[i] = { (math.log(r.duration[i]) - lo) / (hi - lo), r.nuser[i] } end
    local best, mask = best_two(rows)
    assert.near(best, r.w, 1e-9)
    -- the same partition (up to the cluster numbers)
    for i = 2, r.n do
      local same_ref = ((mask >> (i - 1)) & 1) == (mask & 1)
      assert.equals(same_ref, r.assign[i] == r.assign[1])
    end
  end)

  it("refuses more clusters than bursts, and accumulators without bursts", function()
    local acc = assert(medea.accumulate(TRACE, false, false, true))
    local r, err = medea.bursts.cluster(acc, 6)
    assert.is_nil(r)
    assert.equals("6 burst clusters asked for, 5 bursts", err)
    acc:close()
    acc = assert(medea.accumulate(TRACE, false, true, false))
    r, err = medea.bursts.cluster(acc, 2)
    assert.is_nil(r)
    assert.matches("no computation bursts", err)
    acc:close()
  end)
end)

describe("retrace medea --bursts", function()
  it("reports the clusters and writes each burst's cluster into the exported trace", function()
    local out_file = os.tmpname()
    local code, out, err = h.retrace("medea", TRACE, "--bursts", "2", "--bursts-trace", out_file, "--json")
    assert.equals(0, code, err)
    local j = cjson.decode(out).bursts[1]
    assert.equals(5, j.n)
    assert.equals(2, j.k)
    local ev = cjson.decode(h.slurp(out_file)).traceEvents
    os.remove(out_file)
    local markers = {}
    for _, e in ipairs(ev) do
      if e.ph == "i" then markers[#markers + 1] = e end
    end
    assert.equals(5, #markers)
    -- each marker sits at its burst's start on its processor, with the cluster of the JSON report
    for i = 1, j.n do
      local m = markers[i]
      assert.equals(j.proc[i] + 1, m.pid)
      assert.near(j.t0[i] * 1e6, m.ts, 1e-6)
      assert.equals(j.cluster[i], m.args.cluster)
      assert.equals("burst cluster " .. math.tointeger(j.cluster[i]), m.name)
      assert.near(j.t1[i] - j.t0[i], m.args.duration, 1e-12)
    end
    code, out = h.retrace("medea", TRACE, "--bursts", "2")
    assert.equals(0, code)
    assert.matches("computation bursts of [^\n]*slices%.trf: 5, in 2 clusters", out)
    assert.matches("\n%s+1%s+2%s+0%.5%s+1%s+1\n", out)
  end)

  it("refuses bad burst options with one line", function()
    local code, _, err = h.retrace("medea", TRACE, "--bursts-trace", "x.json")
    assert.equals(2, code)
    assert.matches("%-%-bursts%-trace needs %-%-bursts K", err)
    code, _, err = h.retrace("medea", TRACE, "--bursts", "0")
    assert.equals(2, code)
    assert.matches("%-%-bursts: must be an integer >= 1", err)
    code, _, err = h.retrace("medea", TRACE, TRACE, "--bursts", "2", "--bursts-trace", "x.json")
    assert.equals(2, code)
    assert.matches("give exactly one trace", err)
    code, _, err = h.retrace("medea", TRACE, "--bursts", "9")
    assert.equals(1, code)
    assert.matches("slices%.trf: %-%-bursts: 9 burst clusters asked for, 5 bursts", err)
  end)
end)
