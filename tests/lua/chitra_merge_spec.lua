-- Chitra: clock drift between runs fitted on synchronisation points (GSL least squares)
-- and the runs merged into one sequence of state tuples, on hand-made runs.
local h = require "helpers"
require "retrace"
local chitra = require "retrace.chitra"
local merge = require "retrace.chitra.merge"

-- Run 1 on the true clock; run 2's events at true times, read on a clock t * 1.001 + 0.5.
local ONE = { states = { "S", "A", "B", "C", "S", "A", "S", "T" }, times = { 0, 10, 20.4, 30, 50, 60, 100, 110 } }
local TWO_TRUE = { 0, 10.2, 20.2, 29.9, 50, 55, 100, 110 }
local TWO_STATES = { "S", "X", "Y", "Z", "S", "X", "S", "T" }

local function two_clock()
  local t = {}
  for i, v in ipairs(TWO_TRUE) do t[i] = v * 1.001 + 0.5 end
  return t
end

local function session()
  return assert(chitra.from_states({
    { label = "p0", states = ONE.states, times = ONE.times },
    { label = "p1", states = TWO_STATES, times = two_clock() },
  }))
end

describe("chitra clock drift and merge", function()
  it("fits run 2's offset and drift against run 1 on the sync state", function()
    local fits = assert(merge.drift(session(), "S"))
    assert.same({ 0, 1 }, { fits[1].offset, fits[1].drift })
    assert.near(0.5, fits[2].offset, 1e-9)
    assert.near(1.001, fits[2].drift, 1e-12)
    assert.same({ 3, 0, "p1" }, { fits[2].n, fits[2].unmatched, fits[2].run })
    assert.near(0, fits[2].residual, 1e-9)
  end)

  it("fits by least squares when the sync points are noisy", function()
    -- sync entries of run 2 at 1.002 t + 3 plus residuals +0.1, -0.2, +0.1 (sum 0, orthogonal to t)
    local t1 = { 0, 100, 200 }
    local res = { 0.1, -0.2, 0.1 }
    local s1, s2, tt1, tt2 = {}, {}, {}, {}
    for i, t in ipairs(t1) do
      s1[#s1 + 1], tt1[#tt1 + 1] = "S", t
      s1[#s1 + 1], tt1[#tt1 + 1] = "W", t + 10
      s2[#s2 + 1], tt2[#tt2 + 1] = "S", 1.002 * t + 3 + res[i]
      s2[#s2 + 1], tt2[#tt2 + 1] = "W", 1.002 * t + 3 + res[i] + 10
    end
    -- one more S in run 1: matched entries are the first three, one unmatched
    s1[#s1 + 1], tt1[#tt1 + 1] = "S", 300
    s1[#s1 + 1], tt1[#tt1 + 1] = "W", 310
    local ses = assert(chitra.from_states({ { states = s1, times = tt1 }, { states = s2, times = tt2 } }))
    local fits = assert(merge.drift(ses, "S"))
    -- residuals summing to 0 and orthogonal to t leave the line as it is
    assert.near(3, fits[2].offset, 1e-9)
    assert.near(1.002, fits[2].drift, 1e-12)
    assert.near(math.sqrt((0.01 + 0.04 + 0.01) / 3), fits[2].residual, 1e-9)
    assert.same({ 3, 1 }, { fits[2].n, fits[2].unmatched })
  end)

  it("merges in true order only after the correction", function()
    local ses = session()
    local plain = assert(merge.merge(ses))
    -- uncorrected, run 2 lags by 0.5 + 0.001 t: B (20.4) comes before Y (20.2 true)
    assert.same({ "SS", "AS", "AX", "BX", "BY", "CY", "CZ", "SZ", "SS", "SX", "AX", "SX", "SS" }, plain:symbols(1))
    local m = assert(merge.merge(ses, assert(merge.drift(ses, "S"))))
    assert.same({ "SS", "AS", "AX", "AY", "BY", "BZ", "CZ", "SS", "SX", "AX", "SS" }, m:symbols(1))
    -- entry times on run 1's clock; the last state ends at 110, when both runs end
    local want = { 0, 10, 10.2, 20.2, 20.4, 29.9, 30, 50, 55, 60, 100 }
    local got = m:entries(1)
    for i, v in ipairs(want) do assert.near(v, got[i], 1e-9) end
    assert.near(10, m:times(1)[11], 1e-9)
  end)

  it("joins the states with a separator and starts when every run has a state", function()
    local ses = assert(chitra.from_states({
      { states = { "a", "b", "c" }, times = { 0, 5, 9 } },
      { states = { "x", "y", "z" }, times = { 2, 5, 12 } },
    }))
    local m = assert(merge.merge(ses, nil, { separator = "|" }))
    -- begins at 2 (run 2's first entry); b and y enter together at 5; ends at 9 (run 1's end)
    assert.same({ "a|x", "b|y" }, m:symbols(1))
    assert.same({ 2, 5 }, m:entries(1))
    assert.same({ 3, 4 }, m:times(1))
  end)

  it("refuses a sync state a run does not enter twice", function()
    local f, why = merge.drift(session(), "X")
    assert.is_nil(f)
    assert.matches("p0 enters the synchronisation state X 0 times", why)
  end)

  it("retrace chitra --drift linear --sync S --merge reports the fit and merges", function()
    local function pes(states, times)
      local lines = {}
      for i, s in ipairs(states) do lines[i] = string.format("%s %.9f", s, times[i]) end
      return h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
    end
    local a, b = pes(ONE.states, ONE.times), pes(TWO_STATES, two_clock())
    local code, out, err = h.retrace("chitra", a, b, "--drift", "linear", "--sync", "S", "--merge")
    assert.equal(0, code, err)
    assert.matches("%.pes%s+0%.5%s+1%.001%s+1000%s+3%s+", out)
    assert.matches("merged .*: 11 symbols", out)
    code, out = h.retrace("chitra", a, b, "--drift", "linear", "--sync", "S", "--merge", "--json")
    local d = require("cjson").decode(out)
    assert.same({ "SS", "AS", "AX", "AY", "BY", "BZ", "CZ", "SS", "SX", "AX", "SS" }, d.symbols)
    assert.near(1.001, d.drift.runs[2].drift, 1e-9)
    code, _, err = h.retrace("chitra", a, b, "--drift", "linear", "--merge")
    assert.equal(2, code)
    assert.matches("needs %-%-sync", err)
    code, _, err = h.retrace("chitra", a, b, "--drift", "linear", "--sync", "Q", "--merge")
    assert.equal(1, code)
    assert.equal("retrace: drift: no state 'Q' in the runs\n", err)
    -- X only in run 2: run 1 enters it 0 times
    code, _, err = h.retrace("chitra", a, b, "--drift", "linear", "--sync", "X", "--merge")
    assert.equal(1, code)
    assert.matches("enters the synchronisation state X 0 times", err)
    code, _, err = h.retrace("chitra", a, b, "--drift", "linear", "--sync", "S")
    assert.equal(2, code)
    assert.matches("add %-%-merge", err)
    os.remove(a); os.remove(b)
  end)

  it("--states processor:0,1 makes one run per processor, and --merge joins them", function()
    local trf = h.fixtures .. "/picl/states.trf"
    -- processor 0: busy, receive_blocked, busy; processor 1: busy, probe_blocking, busy
    -- (one time unit each, at the same moments)
    local code, out, err = h.retrace("chitra", trf, "--states", "processor:0,1", "--merge",
      "--component-separator", "|", "--json")
    assert.equal(0, code, err)
    local d = require("cjson").decode(out)
    assert.same({ "busy|busy", "receive_blocked|probe_blocking", "busy|busy" }, d.symbols)
    assert.same({ 1, 1, 1 }, d.times)
    code, out, err = h.retrace("chitra", trf, "--states", "processor:0,1", "--acquisition",
      "receive_blocked,probe_blocking")
    assert.equal(0, code, err)
    assert.matches("thread 1 %(states.trf:processor 0%)%s+1%s+1%s", out)
    assert.matches("thread 2 %(states.trf:processor 1%)%s+1%s+1%s", out)
  end)
end)
