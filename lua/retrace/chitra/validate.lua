--- retrace.chitra.validate: does a chain reproduce the sequence it was built from?
--
-- chain:judge compares a simulated run with the chain's own statistics, which agree
-- by construction. Here the simulated trajectory is compared with the INPUT
-- sequence (the session's current symbols and times):
--   occupancy   per state, the two-sample Kolmogorov-Smirnov statistic D of the
--               occupancy times (input against simulated) and its asymptotic p-value;
--               the dominant states (largest time shares, together >= 80% of the time)
--               decide `passes`: each at the level alpha / m (Bonferroni over the m
--               dominant states; alpha 5% by default), on at most `sample` (1000)
--               occupancy times per side taken evenly through each sequence. A fixed
--               sample size fixes the test's power: on whole sequences of 10^5 states
--               every model failed, however close (the smallest D detected shrinks as
--               1 / sqrt(n)); `detectable` is the D the test rejects at its level.
--   ngrams      for n = 1, 2, 3, half the L1 distance between the relative
--               frequencies of the n-grams of the input and of the trajectory (0: the
--               same, 1: disjoint); n = 3 shows what a first-order chain forgets
--   periodogram half the L1 distance between the power spectra (event domain; the
--               signal is each event's state number in chain order; Welch averages of
--               Hann-windowed segments of 4 x bands samples, member 1 of the input)
--               summed into `bands` equal frequency bands, normalised to total power 1
--
--   local v = validate.compare(ses, chain, {steps = 20000, seed = 1})
--   v.passes, v.states.TE.ks_d, v.states.TE.ks_p, v.ngrams[3], v.periodogram

local M = {}

M.SAMPLE = 1000 -- occupancy times per side in each KS test

--- Asymptotic p-value of the two-sample KS statistic d for sample sizes n1, n2
-- (Kolmogorov's distribution with the small-sample correction of Stephens:
-- lambda = (sqrt(ne) + 0.12 + 0.11 / sqrt(ne)) d, ne = n1 n2 / (n1 + n2)).
function M.ks_p(d, n1, n2)
  if n1 == 0 or n2 == 0 then return nil end
  local ne = n1 * n2 / (n1 + n2)
  local lambda = (math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d
  if lambda < 1e-3 then return 1 end
  local sum, sign = 0, 1
  for j = 1, 100 do
    local term = sign * math.exp(-2 * j * j * lambda * lambda)
    sum = sum + term
    if math.abs(term) < 1e-12 * math.abs(sum) then break end
    sign = -sign
  end
  return math.max(0, math.min(1, 2 * sum))
end

--- At most m items of list, taken evenly through it (all of it when it is shorter):
-- the occupancy times of a state are in sequence order, so an even stride keeps the
-- start, middle and end of the run alike.
function M.even_sample(list, m)
  local n = #list
  if n <= m then return table.move(list, 1, n, 1, {}) end
  local out = {}
  for i = 1, m do out[i] = list[math.floor((i - 0.5) * n / m) + 1] end
  return out
end

--- The smallest D the two-sample KS test rejects at level alpha for samples of n1
-- and n2 (inverting M.ks_p by bisection).
function M.ks_critical(alpha, n1, n2)
  local lo, hi = 0, 1
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if M.ks_p(mid, n1, n2) >= alpha then lo = mid else hi = mid end
  end
  return hi
end

--- Two-sample Kolmogorov-Smirnov statistic: the largest distance between the two
-- empirical distribution functions (the lists are sorted in place).
function M.ks_d(a, b)
  table.sort(a)
  table.sort(b)
  local i, j, d, na, nb = 1, 1, 0, #a, #b
  while i <= na and j <= nb do
    local x = math.min(a[i], b[j])
    while i <= na and a[i] <= x do i = i + 1 end
    while j <= nb and b[j] <= x do j = j + 1 end
    d = math.max(d, math.abs((i - 1) / na - (j - 1) / nb))
  end
  return d
end

--- Compare the chain's simulated trajectory with the session's sequence, streamed in C
-- (core.seq.stream): the trajectory is never held, so memory is bounded by the chain
-- and the samples, whatever opts.steps is.
-- opts: steps (simulated states, default 10 x the input length, at least 1000),
-- seed (1), alpha (0.05), bands (32), sample (M.SAMPLE), out (a path: the trajectory
-- written there as a PES, with header as its comment line). Returns the table described
-- in the header plus steps, seed, alpha, level, test, dominant = {names}.
function M.compare(ses, chain, opts)
  opts = opts or {}
  local alpha, nb, sample = opts.alpha or 0.05, opts.bands or 32, opts.sample or M.SAMPLE
  local len = 0
  for k = 1, ses:members() do len = len + ses:length(k) end
  local steps = opts.steps or math.max(1000, 10 * len)

  -- the dominant states (largest time shares, together 80% of the time) are known
  -- from the input before simulating: only they are sampled for the KS tests
  local totals, T = ses:stats()
  local order = {}
  for name in pairs(totals) do order[#order + 1] = name end
  local share = function(name) return T > 0 and totals[name].h / T or 0 end
  table.sort(order, function(x, y)
    if share(x) ~= share(y) then return share(x) > share(y) end
    return x < y
  end)
  local dominant, acc = {}, 0
  for _, name in ipairs(order) do
    if acc >= 0.8 then break end
    dominant[#dominant + 1] = name
    acc = acc + share(name)
  end
  local ks = {}
  for j, name in ipairs(dominant) do ks[j] = chain.by_name[name] or 0 end
  local r, err = chain:stream(steps, opts.seed or 1, { ks = ks, sample = sample, bands = nb,
    session = ses.core, pes = opts.out, header = opts.header })
  if not r then return nil, err end

  local states = {}
  for _, name in ipairs(order) do
    local i = chain.by_name[name]
    states[name] = { n = totals[name].count, sim_n = i and r.visits[i] or 0, share = share(name) }
  end
  local level = alpha / math.max(1, #dominant) -- Bonferroni over the dominant states
  local passes = true
  for j, name in ipairs(dominant) do
    local st, smp = states[name], r.samples[j]
    st.dominant = true
    if smp and #smp.input > 0 and #smp.sim > 0 then
      st.ks_n, st.ks_sim_n = #smp.input, #smp.sim
      st.ks_d = M.ks_d(smp.input, smp.sim)
      st.ks_p = M.ks_p(st.ks_d, #smp.input, #smp.sim)
      st.detectable = M.ks_critical(level, st.ks_n, st.ks_sim_n)
    end
    st.passes = st.ks_p ~= nil and st.ks_p >= level
    passes = passes and st.passes
  end
  return { steps = steps, seed = opts.seed or 1, alpha = alpha, level = level, sample = sample,
           test = string.format("two-sample Kolmogorov-Smirnov per dominant state on at most %d occupancy "
             .. "times a side, each at %.3g%% (%g%% Bonferroni-corrected over %d state%s)", sample, 100 * level,
             100 * alpha, #dominant, #dominant == 1 and "" or "s"),
           states = states, dominant = dominant, passes = passes, ngrams = r.ngrams,
           periodogram = r.periodogram, bands = nb }
end

return M
