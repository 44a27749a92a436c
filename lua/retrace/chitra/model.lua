--- retrace.chitra.model: a semi-Markov model with a holding-time law per transition,
-- its log-likelihood, AIC and BIC, saved and loaded as JSON, and the scoring of a new
-- run against a saved model.
--
--   local model = require "retrace.chitra.model"
--   local m = model.build(ses, chain)     -- fits in C (core/seq/rt_seq_fit.c)
--   m.loglik, m.aic, m.bic, m.params, m.steps; m.arcs[i] = {from, to, n, p, family, fits}
--   local text = model.encode(m)          -- JSON (retrace.json)
--   local m2 = assert(model.decode(text)) -- checked
--   local s = model.score(new_ses, m2)    -- {ll, per_step, states, unseen, windows, first}
--
-- The model: each step from state a to b (b the end marker OTHER after the last
-- element of a run) has probability p(a -> b) times the probability of its holding
-- time under the law fitted to the a -> b transitions: exponential, gamma, Weibull
-- (maximum likelihood) or the empirical distribution, whichever has the smallest AIC.
-- Times are recorded to a resolution delta (the smallest gap between distinct values),
-- so a density f gives a recorded time t the probability f(t) delta and the four laws
-- compare as probabilities of the same data.
local M = {}

M.KIND, M.VERSION = "retrace.chitra.model", 1

--- The semi-Markov model of a session and its chain (ses:chain()).
function M.build(ses, chain)
  local h = assert(ses.core:holding(chain.other))
  local p, outdeg = {}, {}
  for _, a in ipairs(chain.arcs) do
    p[a.from .. "\0" .. a.to] = a.p
    outdeg[a.from] = (outdeg[a.from] or 0) + 1
  end
  local m = { kind = M.KIND, version = M.VERSION, other = chain.other, delta = h.delta, arcs = {},
              states = chain:to_table().states }
  local ll, k, steps = 0, 0, 0
  for _, d in pairs(outdeg) do k = k + d - 1 end
  for i, a in ipairs(h.arcs) do
    local pa = p[a.from .. "\0" .. a.to] or 0
    local fit = a.fits[a.best]
    a.p, a.family = pa, a.best
    a.best = nil
    m.arcs[i] = a
    ll = ll + a.n * math.log(pa) + fit.ll
    k = k + fit.k
    steps = steps + a.n
  end
  m.loglik, m.params, m.steps = ll, k, steps
  m.aic = 2 * k - 2 * ll
  m.bic = k * math.log(math.max(steps, 1)) - 2 * ll
  return m
end

--- JSON text of a model.
function M.encode(m)
  return require("retrace.json").encode(m) .. "\n"
end

--- Check a decoded model; returns it or nil, message.
function M.check(m)
  if type(m) ~= "table" or m.kind ~= M.KIND then
    return nil, "not a retrace chitra model (kind is not \"" .. M.KIND .. "\"; write one with --chain FILE.json)"
  end
  if type(m.arcs) ~= "table" or type(m.delta) ~= "number" or not (m.delta > 0) then
    return nil, "chitra model: 'arcs' and a positive 'delta' are needed"
  end
  for i, a in ipairs(m.arcs) do
    if type(a.from) ~= "string" or type(a.to) ~= "string" or type(a.p) ~= "number"
        or type(a.family) ~= "string" or type(a.fits) ~= "table" then
      return nil, string.format("chitra model: transition %d needs from, to, p, family and fits", i)
    end
    local f = a.fits[a.family]
    if type(f) ~= "table" or (a.family ~= "empirical" and type(f.ll) ~= "number") then
      return nil, string.format("chitra model: transition %s -> %s: no parameters for its family %s",
        a.from, a.to, a.family)
    end
    if a.family == "empirical" and (type(a.values) ~= "table" or type(a.prob) ~= "table") then
      return nil, string.format("chitra model: transition %s -> %s: the empirical law needs values and prob",
        a.from, a.to)
    end
  end
  return m
end

--- Decode and check JSON text; nil, message on failure.
function M.decode(text)
  local ok, doc = pcall(require("cjson").decode, text)
  if not ok then return nil, "not JSON (" .. tostring(doc) .. ")" end
  return M.check(doc)
end

--- Score every member of ses against model m: {ll (of the steps scored), steps,
-- scored, per_step = ll / scored, model_per_step = the model's own loglik / steps,
-- states = {name = {ll, n, per_step}}, unseen = {{from, to, count, member, index,
-- time}} (transitions the model never saw, first seen first; index 1-based),
-- unseen_steps, odd_times (holding times no law of their transition gives), windows =
-- {{from, to (element range), ll, n, per_step}} over member 1, first = {member, index,
-- time} (the first unseen step) or nil, low = {window numbers whose per-step
-- log-likelihood is below the model's own by more than `margin` (default 2 nats)}}.
function M.score(ses, m, opts)
  opts = opts or {}
  local nw = opts.windows or 20
  local r = ses.core:score(m, nw)
  r.per_step = r.scored > 0 and r.ll / r.scored or nil
  r.model_per_step = m.steps and m.steps > 0 and m.loglik / m.steps or nil
  for _, st in pairs(r.states) do st.per_step = st.ll / st.n end
  -- the entry time of element i of member k, from C (no list of the run's times)
  local function entry(k, i) return ses:view_slice(k, "time", i, 1)[1] end
  for _, u in ipairs(r.unseen) do u.time = entry(u.member, u.index) end
  if r.first then r.first.time = entry(r.first.member, r.first.index) end
  local n1 = ses:length(1)
  r.low = {}
  for w, win in ipairs(r.windows) do
    win.from = math.floor((w - 1) * n1 / nw) + 1
    win.to = math.floor(w * n1 / nw)
    win.time = win.to >= win.from and entry(1, win.from) or nil
    win.per_step = win.n > 0 and win.ll / win.n or nil
    if win.per_step and r.model_per_step and win.per_step < r.model_per_step - (opts.margin or 2) then
      r.low[#r.low + 1] = w
    end
  end
  return r
end

--- The steady-state test (Chitra: a run reaches steady state when its transition
-- rates converge): each run cut in two halves by position, and for every state the
-- counts of its transitions in the halves compared by Pearson's chi-square test of
-- homogeneity, each state at alpha / m (Bonferroni over the m states tested; alpha
-- 0.05). Returns {reached = bool, level, alpha, test = a sentence, states = {{state,
-- n = {first, second}, arcs, chi2, df, p, max_diff, sparse, changed}} (least p first),
-- changed = {names}}.
function M.steady(ses, alpha)
  alpha = alpha or 0.05
  local list = ses.core:steady()
  local tested = 0
  for _, r in ipairs(list) do if r.df > 0 then tested = tested + 1 end end
  local level = alpha / math.max(1, tested)
  table.sort(list, function(a, b)
    if a.p ~= b.p then return a.p < b.p end
    return a.state < b.state
  end)
  local changed = {}
  for _, r in ipairs(list) do
    r.changed = r.df > 0 and r.p < level
    if r.changed then changed[#changed + 1] = r.state end
  end
  return { reached = #changed == 0, level = level, alpha = alpha, states = list, changed = changed,
           test = string.format("transition counts of the first and second half of each run, per state "
             .. "(Pearson's chi-square test of homogeneity), each of %d state%s at %.3g%% (%g%% Bonferroni-corrected)",
             tested, tested == 1 and "" or "s", 100 * level, 100 * alpha) }
end

return M
