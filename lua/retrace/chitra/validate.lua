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
--               signal is each event's state number in chain order) summed into
--               `bands` equal frequency bands and normalised to total power 1
--
--   local v = validate.compare(ses, chain, {steps = 20000, seed = 1})
--   v.passes, v.states.TE.ks_d, v.states.TE.ks_p, v.ngrams[3], v.periodogram
local core = require("retrace.core").seq

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

-- relative frequencies of the n-grams of a list of symbol lists
local function ngram_freq(seqs, n)
  local count, total = {}, 0
  for _, s in ipairs(seqs) do
    for i = 1, #s - n + 1 do
      local key = table.concat(s, "\0", i, i + n - 1)
      count[key] = (count[key] or 0) + 1
      total = total + 1
    end
  end
  if total > 0 then
    for k, c in pairs(count) do count[k] = c / total end
  end
  return count
end

--- Half the L1 distance between two frequency tables {key = share}.
function M.tv_distance(p, q)
  local d = 0
  for k, v in pairs(p) do d = d + math.abs(v - (q[k] or 0)) end
  for k, v in pairs(q) do if p[k] == nil then d = d + v end end
  return d / 2
end

-- band powers of the periodogram of x (mean removed, k = 0 left out), normalised
local function bands_of(x, nb)
  local out = {}
  for b = 1, nb do out[b] = 0 end
  if #x < 4 then return out end
  local f, p = core.periodogram(x, 1)
  if not f then return out end
  local total = 0
  for k = 2, #f do -- f runs from 0 to 0.5 cycles per event
    local b = math.min(nb, 1 + math.floor(f[k] / 0.5 * nb))
    out[b] = out[b] + p[k]
    total = total + p[k]
  end
  if total > 0 then for b = 1, nb do out[b] = out[b] / total end end
  return out
end

--- Compare the chain's simulated trajectory with the session's sequence.
-- opts: steps (simulated states, default 10 x the input length, at least 1000),
-- seed (1), alpha (0.05), bands (32), trajectory (a trajectory {symbols=, times=}
-- already simulated: used instead of simulating). Returns the table described in
-- the header plus steps, seed, alpha, dominant = {names}, and trajectory (the
-- simulated states, the chain's end marker OTHER left out).
function M.compare(ses, chain, opts)
  opts = opts or {}
  local alpha, nb, sample = opts.alpha or 0.05, opts.bands or 32, opts.sample or M.SAMPLE
  local input, len = {}, 0
  for k = 1, ses:members() do
    input[k] = ses:symbols(k)
    len = len + #input[k]
  end
  local steps = opts.steps or math.max(1000, 10 * len)
  local tr = opts.trajectory
  if not tr then
    local err
    tr, err = chain:simulate(steps, opts.seed or 1)
    if not tr then return nil, err end
  end
  -- the end marker separates members in the chain; it is no state of the program
  local other = chain.other
  local syms, times = {}, {}
  for i, s in ipairs(tr.symbols) do
    if s ~= other then syms[#syms + 1], times[#times + 1] = s, tr.times[i] end
  end

  local totals, T = ses:stats()
  local simocc = {}
  for i, s in ipairs(syms) do
    local o = simocc[s]
    if not o then o = {}; simocc[s] = o end
    o[#o + 1] = times[i]
  end
  local states, order = {}, {}
  for name, t in pairs(totals) do
    local a = ses:occupancy(name)
    local b = simocc[name] or {}
    local r = { n = #a, sim_n = #b, share = T > 0 and t.h / T or 0 }
    if #a > 0 and #b > 0 then
      a, b = M.even_sample(a, sample), M.even_sample(b, sample)
      r.ks_d = M.ks_d(a, b)
      r.ks_p = M.ks_p(r.ks_d, #a, #b)
      r.ks_n, r.ks_sim_n = #a, #b
    end
    states[name] = r
    order[#order + 1] = name
  end
  table.sort(order, function(x, y)
    if states[x].share ~= states[y].share then return states[x].share > states[y].share end
    return x < y
  end)
  local dominant, acc, passes = {}, 0, true
  for _, name in ipairs(order) do
    if acc >= 0.8 then break end
    dominant[#dominant + 1] = name
    acc = acc + states[name].share
  end
  local level = alpha / math.max(1, #dominant) -- Bonferroni over the dominant states
  for _, name in ipairs(dominant) do
    local r = states[name]
    r.dominant = true
    r.passes = r.ks_p ~= nil and r.ks_p >= level
    if r.ks_n then r.detectable = M.ks_critical(level, r.ks_n, r.ks_sim_n) end
    passes = passes and r.passes
  end

  local ngrams = {}
  for n = 1, 3 do ngrams[n] = M.tv_distance(ngram_freq(input, n), ngram_freq({ syms }, n)) end

  -- periodogram of member 1 against the trajectory, states numbered in chain order
  local num = {}
  for i, s in ipairs(chain.states) do num[s.name] = i end
  local x1, x2 = {}, {}
  for i, s in ipairs(input[1] or {}) do x1[i] = num[s] or 0 end
  for i, s in ipairs(syms) do x2[i] = num[s] or 0 end
  local b1, b2 = bands_of(x1, nb), bands_of(x2, nb)
  local pd = 0
  for b = 1, nb do pd = pd + math.abs(b1[b] - b2[b]) end

  return { steps = #tr.symbols, seed = opts.seed or 1, alpha = alpha, level = level, sample = sample,
           test = string.format("two-sample Kolmogorov-Smirnov per dominant state on at most %d occupancy "
             .. "times a side, each at %.3g%% (%g%% Bonferroni-corrected over %d state%s)", sample, 100 * level,
             100 * alpha, #dominant, #dominant == 1 and "" or "s"),
           states = states,
           dominant = dominant, passes = passes, ngrams = ngrams, periodogram = pd / 2,
           bands = nb, trajectory = { symbols = syms, times = times } }
end

--- A trajectory as PES text: one "STATE ENTRY-TIME" line per state, then an END
-- line at the time the last state is left (a PES has one more line than states).
function M.pes_text(tr, header)
  local out, t = {}, 0
  if header then out[1] = "# " .. header end
  for i, s in ipairs(tr.symbols) do
    out[#out + 1] = s .. " " .. string.format("%.17g", t)
    t = t + tr.times[i]
  end
  out[#out + 1] = "END " .. string.format("%.17g", t)
  return table.concat(out, "\n") .. "\n"
end

return M
