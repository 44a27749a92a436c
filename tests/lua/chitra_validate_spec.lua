-- retrace chitra: a chain's simulated trajectory against its INPUT sequence (issue 18
-- validation): the KS statistic and p-value against hand-computed values, n-gram
-- distances, the philosophers acceptance (the recipe's chain passes on the dominant
-- states, a projection of every state to two fails), --out as a PES.
local h = require "helpers"
local chitra = require "retrace.chitra"
local validate = require "retrace.chitra.validate"
local cjson = require "cjson"

local X1000 = h.source .. "/examples/chitra/phil2_x1000.pes"

describe("chitra validation statistics", function()
  it("computes the two-sample KS statistic and its p-value", function()
    -- F_a jumps 1/3 at 1, 2, 3; F_b 1/4 at 1.5, 2.5, 3.5, 4.5: largest gap 1 - 1/2 at x = 3
    assert.near(0.5, validate.ks_d({ 3, 1, 2 }, { 4.5, 1.5, 3.5, 2.5 }), 1e-12)
    assert.near(1, validate.ks_d({ 1, 2 }, { 3, 4 }), 1e-12)
    assert.near(0, validate.ks_d({ 1, 2 }, { 1, 2 }), 1e-12)
    -- Kolmogorov's Q(1.36) = 2 (e^-3.6992 - e^-14.797 + ...) = 2 (0.0247432 - 3.75e-7) = 0.0494859
    local n = 1000000
    local ne = n / 2
    local d = 1.36 / (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne))
    assert.near(0.0494859, validate.ks_p(d, n, n), 1e-7)
    assert.near(1, validate.ks_p(0, 10, 10), 1e-12)
  end)

  it("measures n-gram distances as half the L1 distance of the frequencies", function()
    -- by hand: input A B C A B C ... (300 elements: 100 each; 2-grams AB 100, BC 100,
    -- CA 99), a chain that alternates A B exactly (1000 steps: A 500, B 500; AB 500, BA 499)
    local cyc, at = {}, {}
    for i = 1, 301 do cyc[i], at[i] = ({ "A", "B", "C" })[(i - 1) % 3 + 1], i end
    local input = assert(chitra.from_states { { states = cyc, times = at } })
    local alt = assert(require("retrace.chitra.chain").from_table {
      states = { A = { n = 1, mean = 1, var = 0 }, B = { n = 1, mean = 1, var = 0 } },
      transitions = { A = { B = 1 }, B = { A = 1 } }, initial = "A" })
    local r = assert(alt:stream(1000, 1, { session = input.core }))
    assert.same({ 500, 500 }, r.visits)
    assert.near(0.5 * (math.abs(1 / 3 - 0.5) * 2 + 1 / 3), r.ngrams[1], 1e-12)
    assert.near(0.5 * (math.abs(100 / 299 - 500 / 999) + 100 / 299 + 99 / 299 + 499 / 999), r.ngrams[2], 1e-12)
    -- an alternating input and a chain of it: 1- and 2-grams agree, and so do 3-grams
    local syms, entry, t = {}, {}, 0
    for i = 1, 401 do
      syms[i], entry[i] = i % 2 == 0 and "A" or "B", t
      t = t + 1 + i % 3
    end
    local ses = assert(chitra.from_states { { states = syms, times = entry } })
    local v = assert(validate.compare(ses, assert(ses:chain()), { steps = 4000, seed = 3 }))
    assert.is_true(v.ngrams[1] < 0.01)
    assert.is_true(v.ngrams[3] < 0.01)
  end)
end)

describe("chitra validation acceptance", function()
  it("passes the philosophers recipe's chain and fails a projection to two states", function()
    local code, out, err = h.retrace("chitra", X1000, "--recipe", "philosophers", "--clip", "20:20",
      "--simulate", "20000", "--json")
    assert.equals(0, code, err)
    local v = cjson.decode(out).validation
    assert.same({ "input", "recipe philosophers", "clip 20 20" }, { v[1].step, v[2].step, v[3].step })
    local last = v[3]
    assert.is_true(last.passes)
    assert.same({ "ET", "TE" }, last.dominant)
    for _, name in ipairs(last.dominant) do assert.is_true(last.states[name].ks_p >= 0.05) end
    -- the start-up (a 19-unit TE) is not like the steady state: the unclipped chain fails
    assert.is_false(v[2].passes)
    code, out = h.retrace("chitra", X1000, "--recipe", "philosophers", "--clip", "20:20",
      "--project", "TT,TA,TE,AE,AR,AT=X", "--project", "ET,RT,EA,RA,TR=Y", "--simulate", "20000", "--json")
    assert.equals(0, code)
    v = cjson.decode(out).validation
    assert.is_false(v[#v].passes)
    assert.is_true(v[#v].states.X.ks_p < 0.05)
    assert.is_true(v[#v].states.Y.ks_p < 0.05)
  end)

  it("writes the simulated trajectory as a PES", function()
    local out = os.tmpname() .. ".pes"
    local code, _, err = h.retrace("chitra", X1000, "--recipe", "philosophers", "--simulate", "500",
      "--out", out)
    assert.equals(0, code, err)
    local ses = assert(chitra.load(out))
    local n = ses:length(1)
    assert.is_true(n >= 495 and n <= 500) -- the chain's end marker OTHER left out
    local names = {}
    for _, s in ipairs(ses:symbols(1)) do names[s] = true end
    assert.is_nil(names.OTHER)
    assert.is_true(names.TE and names.ET)
    os.remove(out)
    code, _, err = h.retrace("chitra", X1000, "--out", out)
    assert.equals(2, code)
    assert.equals("retrace: --out needs --simulate N (it writes the simulated trajectory)\n", err)
  end)
end)

describe("--simulate's test at large n", function()
  local chitra = require "retrace.chitra"
  local validate = require "retrace.chitra.validate"
  -- A and B alternate; A lasts uniform(lo, hi), B uniform(1, 3)
  local function alternating(n, a_time)
    math.randomseed(17)
    local states, times, t = {}, {}, 0
    for i = 1, n do
      states[i] = i % 2 == 1 and "A" or "B"
      times[i] = t
      t = t + (i % 2 == 1 and a_time() or 1 + 2 * math.random())
    end
    return assert(chitra.from_states { { states = states, times = times } })
  end

  it("passes a close model on 10^5 states, where KS on every state rejected it", function()
    -- A: 8 plus three uniforms (Irwin-Hall), within D = 0.02 of its fitted gamma
    local ses = alternating(100000, function() return 8 + math.random() + math.random() + math.random() end)
    local chain = assert(ses:chain())
    local v = assert(validate.compare(ses, chain, { steps = 100000, seed = 3 }))
    assert.is_true(v.passes)
    assert.equal(0.05 / #v.dominant, v.level)
    assert.equal("two-sample Kolmogorov-Smirnov per dominant state on at most 1000 occupancy times a side, "
      .. "each at 5% (5% Bonferroni-corrected over 1 state)", v.test)
    assert.equal(1000, v.states.A.ks_n)
    -- on all 50000 times a side the same gamma model is rejected: the power grew with n
    local all = assert(validate.compare(ses, chain, { steps = 100000, seed = 3, sample = 60000 }))
    assert.is_false(all.passes)
    -- the detectable D at the level for 1000 a side: 1.36-ish x sqrt(2 / 1000) region
    assert.near(validate.ks_critical(0.05, 1000, 1000), v.states.A.detectable, 1e-12)
    assert.near(0.0608, v.states.A.detectable, 0.002) -- 1.358 x sqrt(2 / 1000)
    assert.near(0.05, validate.ks_p(v.states.A.detectable, 1000, 1000), 1e-9)
  end)

  it("still fails a model that is wrong (two-valued holding times fitted by one gamma)", function()
    local ses = alternating(20000, function() return math.random() < 0.5 and 1 or 19 end)
    local v = assert(validate.compare(ses, assert(ses:chain()), { steps = 20000, seed = 3 }))
    assert.is_false(v.passes)
    assert.is_false(v.states.A.passes)
  end)
end)

describe("the streamed simulation", function()
  local chitra = require "retrace.chitra"
  local validate = require "retrace.chitra.validate"
  it("samples the input's holding times evenly, as the direct even sample does", function()
    local ses = assert(chitra.load(X1000))
    local chain = assert(ses:chain())
    local names = { "TE", "ET", "A1E", "TA1" }
    local ks = {}
    for j, n in ipairs(names) do ks[j] = chain.by_name[n] end
    for _, m in ipairs { 1, 7, 50, 1000 } do
      local r = assert(chain:stream(10, 1, { ks = ks, sample = m, session = ses.core }))
      for j, n in ipairs(names) do
        assert.same(validate.even_sample(ses:occupancy(n), m), r.samples[j].input)
      end
    end
  end)

  it("keeps the per-state sums and arc counts of the trajectory it does not hold", function()
    local ses = assert(chitra.load(X1000))
    local chain = assert(ses:chain())
    local tr = assert(chain:simulate(5000, 9))
    local r = assert(chain:stream(5000, 9))
    local visits, sums = {}, {}
    for i, s in ipairs(tr.symbols) do
      visits[s] = (visits[s] or 0) + 1
      sums[s] = (sums[s] or 0) + tr.times[i]
    end
    for i, s in ipairs(chain.states) do
      assert.equal(visits[s.name] or 0, r.visits[i])
      assert.near(sums[s.name] or 0, r.sum[i], 1e-9 * (1 + (sums[s.name] or 0)))
    end
  end)
end)
