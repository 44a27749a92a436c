-- Semi-Markov models (retrace.chitra.model): holding-time laws per transition fitted
-- by maximum likelihood against a direct computation of each law's log-likelihood
-- (and its maximum: a small step of any parameter lowers it), the model's
-- log-likelihood, AIC and BIC against a direct sum over the sequence, the JSON round
-- trip, and scoring: the training run scores its own log-likelihood, a new run's
-- unseen transitions and where it departs.
local h = require "helpers"
require "retrace"
local chitra = require "retrace.chitra"
local model = require "retrace.chitra.model"

-- log Gamma(x) for x > 0 (Lanczos, g = 7, 9 terms: 1e-15 relative)
local LANCZOS = { 0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313,
                  -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
                  1.5056327351493116e-7 }
local function lgamma(x)
  if x < 0.5 then return math.log(math.pi / math.abs(math.sin(math.pi * x))) - lgamma(1 - x) end
  x = x - 1
  local a, t = LANCZOS[1], x + 7.5
  for i = 1, 8 do a = a + LANCZOS[i + 1] / (x + i) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(a)
end

local logpdf = {
  exponential = function(f, t) return math.log(f.rate) - f.rate * t end,
  gamma = function(f, t)
    return (f.shape - 1) * math.log(t) - t / f.scale - lgamma(f.shape) - f.shape * math.log(f.scale)
  end,
  weibull = function(f, t)
    return math.log(f.shape / f.scale) + (f.shape - 1) * math.log(t / f.scale) - (t / f.scale) ^ f.shape
  end,
}

local function direct_ll(fam, f, times, delta)
  local s = 0
  for _, t in ipairs(times) do s = s + logpdf[fam](f, t) + math.log(delta) end
  return s
end

-- a session of two states alternating, A's holding times given, B's always 1
local function session(times)
  local states, entries, t = {}, {}, 0
  for i, x in ipairs(times) do
    states[#states + 1], entries[#entries + 1] = "A", t
    t = t + x
    states[#states + 1], entries[#entries + 1] = "B", t
    t = t + 1
    if i == #times then states[#states + 1], entries[#entries + 1] = "A", t end
  end
  return assert(chitra.from_states { { states = states, times = entries } })
end

describe("holding-time fits by maximum likelihood", function()
  it("fit each law at its maximum, as a direct computation of the likelihood says", function()
    math.randomseed(28)
    local times = {}
    for i = 1, 300 do
      -- a gamma-like positive law with distinct values (sum of exponentials)
      times[i] = -math.log(math.random()) - math.log(math.random()) + 0.1 * math.random()
    end
    local ses = session(times)
    local m = model.build(ses, assert(ses:chain()))
    local arc
    for _, a in ipairs(m.arcs) do if a.from == "A" and a.to == "B" then arc = a end end
    assert.equal(300, arc.n)
    local delta = m.delta
    local sum = 0
    for _, t in ipairs(times) do sum = sum + t end
    assert.near(300 / sum, arc.fits.exponential.rate, 1e-12)
    for _, fam in ipairs { "exponential", "gamma", "weibull" } do
      local f = arc.fits[fam]
      local ll = direct_ll(fam, f, times, delta)
      assert.near(ll, f.ll, 1e-8 * math.abs(ll), fam)
      assert.near(2 * f.k - 2 * f.ll, f.aic, 1e-9 * math.abs(f.aic))
      -- a maximum: one parameter moved by 0.1% either way lowers the likelihood
      for _, key in ipairs { "rate", "shape", "scale" } do
        if f[key] then
          for _, step in ipairs { 0.999, 1.001 } do
            local g = {}
            for k2, v in pairs(f) do g[k2] = v end
            g[key] = f[key] * step
            assert.is_true(direct_ll(fam, g, times, delta) < ll, fam .. " " .. key)
          end
        end
      end
    end
    -- 300 distinct values: no empirical law (it would predict no new value)
    assert.is_nil(arc.fits.empirical.ll)
    assert.equal("values hardly repeat (more distinct values than half the times)", arc.fits.empirical.why)
    assert.equal(299, arc.fits.empirical.k)
    -- the choice is the smallest AIC
    local best, aic = nil, math.huge
    for fam, f in pairs(arc.fits) do if f.aic and f.aic < aic then best, aic = fam, f.aic end end
    assert.equal(best, arc.family)
    assert.equal("gamma", arc.family) -- a sum of two exponentials is a gamma law of shape 2
    assert.near(2, arc.fits.gamma.shape, 0.5) -- 300 draws (and a small shift)
  end)

  it("takes the empirical law for repeated values, and says why a law cannot fit", function()
    local ses = session { 2, 2, 2, 3, 3, 2, 2, 3, 2, 2 }
    local m = model.build(ses, assert(ses:chain()))
    for _, a in ipairs(m.arcs) do
      if a.from == "B" and a.to == "A" then
        -- B always lasts 1: only the empirical law (a point mass, log-likelihood 0)
        assert.equal("empirical", a.family)
        assert.equal(0, a.fits.empirical.ll)
        assert.equal("every holding time equal", a.fits.gamma.why)
      elseif a.to == "B" then
        -- A: 7 x 2 and 3 x 3, recorded to delta 1: 7 log 0.7 + 3 log 0.3
        assert.near(7 * math.log(0.7) + 3 * math.log(0.3), a.fits.empirical.ll, 1e-12)
        assert.equal("empirical", a.family)
        assert.same({ 2, 3 }, a.values)
        assert.same({ 0.7, 0.3 }, a.prob)
      end
    end
    assert.equal(1, m.delta)
  end)
end)

describe("the semi-Markov model", function()
  local X = h.source .. "/examples/chitra/phil2_x1000.pes"

  it("has the log-likelihood of a direct sum over the sequence, with AIC and BIC", function()
    local ses = assert(chitra.load(X))
    local chain = assert(ses:chain())
    local m = model.build(ses, chain)
    local by = {}
    for _, a in ipairs(m.arcs) do by[a.from .. ">" .. a.to] = a end
    local syms, times = ses:symbols(1), ses:times(1)
    local ll = 0
    for i = 1, #syms do
      local a = by[syms[i] .. ">" .. (syms[i + 1] or "OTHER")]
      local f = a.fits[a.family]
      local lh
      if a.family == "empirical" then
        for j, v in ipairs(a.values) do if v == times[i] then lh = math.log(a.prob[j]) end end
      else
        lh = logpdf[a.family](f, times[i]) + math.log(m.delta)
      end
      ll = ll + math.log(a.p) + lh
    end
    assert.near(ll, m.loglik, 1e-9 * math.abs(ll))
    local k = 0
    local out = {}
    for _, a in ipairs(chain.arcs) do out[a.from] = (out[a.from] or 0) + 1 end
    for _, d in pairs(out) do k = k + d - 1 end
    for _, a in ipairs(m.arcs) do k = k + a.fits[a.family].k end
    assert.equal(k, m.params)
    assert.equal(#syms, m.steps)
    assert.near(2 * k - 2 * ll, m.aic, 1e-9 * math.abs(m.aic))
    assert.near(k * math.log(#syms) - 2 * ll, m.bic, 1e-9 * math.abs(m.bic))
  end)

  it("survives the JSON round trip and scores its own run at its own log-likelihood", function()
    local ses = assert(chitra.load(X))
    local m = model.build(ses, assert(ses:chain()))
    local m2 = assert(model.decode(model.encode(m)))
    local r = model.score(ses, m2)
    assert.equal(m.steps, r.scored)
    assert.equal(0, #r.unseen)
    assert.is_nil(r.first)
    assert.near(m.loglik, r.ll, 1e-9 * math.abs(m.loglik))
    assert.same({}, r.low)
    local bad, why = model.decode('{"kind": "x"}')
    assert.is_nil(bad)
    assert.truthy(why:find("not a retrace chitra model", 1, true))
  end)

  it("names the transitions a new run takes that the model never saw, and where", function()
    local train = session { 2, 3, 2, 3, 2, 3 }
    local m = model.build(train, assert(train:chain()))
    -- the new run: A B A B C A ...: B -> C and C -> A are new; C first at element 5
    local new = assert(chitra.from_states { { states = { "A", "B", "A", "B", "C", "A", "B", "A" },
                                              times = { 0, 2, 3, 6, 7, 9, 11, 12 } } })
    local r = model.score(new, m)
    assert.equal(7, r.steps)
    assert.same({ "B", "C", 1, 4, 6 }, { r.unseen[1].from, r.unseen[1].to, r.unseen[1].count, r.unseen[1].index,
                                          r.unseen[1].time })
    assert.same({ "C", "A", 1, 5, 7 }, { r.unseen[2].from, r.unseen[2].to, r.unseen[2].count, r.unseen[2].index,
                                          r.unseen[2].time })
    assert.same({ member = 1, index = 4, time = 6 }, r.first)
    assert.equal(2, r.unseen_steps)
    assert.equal(5, r.scored)
  end)

  it("scores a new run from the command line", function()
    local saved = os.tmpname() .. ".json"
    local code, _, err = h.retrace("chitra", X, "--chain", saved)
    assert.equal(0, code, err)
    local out
    code, out, err = h.retrace("chitra", "--model", saved, h.source .. "/examples/chitra/phil2_x10.pes")
    assert.equal(0, code, err)
    assert.truthy(out:find("log-likelihood per step", 1, true), out)
    assert.truthy(out:find("transitions the model never saw", 1, true), out)
    code, out, err = h.retrace("chitra", "--model", saved, h.source .. "/examples/chitra/phil2_x10.pes", "--json")
    assert.equal(0, code, err)
    local doc = require("cjson").decode(out)
    assert.truthy(#doc.score.unseen > 0)
    assert.truthy(doc.score.first.index >= 1)
    local bad = h.temp_file("{}")
    code, _, err = h.retrace("chitra", "--model", bad, X)
    assert.equal(1, code)
    assert.truthy(err:find(bad, 1, true))
    os.remove(saved)
  end)
end)

describe("the steady-state test", function()
  local function run(list)
    local states, times = {}, {}
    for i, x in ipairs(list) do states[i], times[i] = x, i end
    return assert(chitra.from_states { { states = states, times = times } })
  end

  it("computes Pearson's chi-square of the two halves by hand", function()
    -- 21 PES states, 20 elements: elements 1-10 first half (transitions out of 1..10),
    -- 11-19 second. A goes to B, B to A or C, C to A.
    local seq = { "A", "B", "A", "B", "C", "A", "B", "A", "B", "A", "B", -- first half
                  "C", "A", "B", "C", "A", "B", "C", "A", "B", "C" }
    local st = model.steady(run(seq))
    local b
    for _, r in ipairs(st.states) do if r.state == "B" then b = r end end
    -- transitions i -> i+1 for element i = 1..19; first half i <= 9 (2 i < 19)
    local n = { { A = 0, C = 0 }, { A = 0, C = 0 } }
    for i = 1, 19 do
      if seq[i] == "B" then
        local h = (2 * (i - 1) >= 19) and 2 or 1
        n[h][seq[i + 1]] = n[h][seq[i + 1]] + 1
      end
    end
    local r1, r2 = n[1].A + n[1].C, n[2].A + n[2].C
    local chi2 = 0
    for _, to in ipairs { "A", "C" } do
      local col = n[1][to] + n[2][to]
      for hh, r in ipairs { r1, r2 } do
        local e = r * col / (r1 + r2)
        chi2 = chi2 + (n[hh][to] - e) ^ 2 / e
      end
    end
    assert.same({ r1, r2 }, b.n)
    assert.equal(1, b.df)
    assert.near(chi2, b.chi2, 1e-12)
    -- chi-square with 1 df: P(X > x) = erfc(sqrt(x / 2))
    local function erfc(x) -- Abramowitz-Stegun 7.1.26 is too coarse; integrate instead
      local s, steps = 0, 20000
      local hstep = 12 / steps
      for i = 0, steps - 1 do
        local t = x + (i + 0.5) * hstep
        s = s + math.exp(-t * t) * hstep
      end
      return 2 / math.sqrt(math.pi) * s
    end
    assert.near(erfc(math.sqrt(chi2 / 2)), b.p, 1e-6)
  end)

  it("finds a run whose transitions change halfway, and passes one that does not", function()
    math.randomseed(5)
    local steady, changing = {}, {}
    for i = 1, 2000 do
      steady[i] = ({ "A", "B", "C" })[math.random(3)]
      -- A is followed by B in the first half and by C in the second
      if i > 1 and changing[i - 1] == "A" then changing[i] = i < 1000 and "B" or "C"
      else changing[i] = ({ "A", "B", "C" })[math.random(3)] end
    end
    local ok = model.steady(run(steady))
    assert.is_true(ok.reached)
    local bad = model.steady(run(changing))
    assert.is_false(bad.reached)
    assert.same({ "A" }, bad.changed)
    assert.truthy(bad.test:find("Bonferroni", 1, true))
  end)
end)
