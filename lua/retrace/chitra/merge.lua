--- Merging per-processor (per-thread) runs into one sequence whose state is the
-- tuple of every run's current state, and correcting the runs' clocks first.
--
-- Clock drift: each run k's clock is taken as t_k = a + b * t_1 against run 1's;
-- a (offset) and b (drift) are fitted by least squares (GSL's gsl_fit_linear) on the
-- times every run enters a synchronisation state (its i-th entry matched with run
-- 1's i-th), and run k's times are mapped onto run 1's clock: t_1 = (t_k - a) / b.
--
--   local merge = require "retrace.chitra.merge"
--   local runs = merge.runs(ses)                  -- {{label, states, times}} (entry times,
--                                                 --  the last a final "end" entry)
--   local fits = assert(merge.drift(runs, "S"))   -- fits[k] = {offset, drift, n, residual}
--   merge.apply(runs, fits)                       -- times onto run 1's clock
--   local m = merge.merge(runs, "")               -- {states, times}: the tuples, joined
local M = {}

--- The runs of a session as entry-time lists; the last entry of each run (its end:
-- the entry of its last symbol plus that symbol's occupancy) carries the last symbol.
function M.runs(ses)
  local out = {}
  for k = 1, ses:members() do
    local syms, entries, times = ses:symbols(k), ses:entries(k), ses:times(k)
    local n = #syms
    local st, tt = {}, {}
    for i = 1, n do st[i], tt[i] = syms[i], entries[i] end
    if n > 0 then st[n + 1], tt[n + 1] = syms[n], entries[n] + times[n] end
    out[k] = { label = ses.files and ses.files[k] or ("run " .. k), states = st, times = tt }
  end
  return out
end

--- Fit each run's clock against run 1's on the entries of state `sync`:
-- fits[k] = {offset = a, drift = b, n = points, residual = rms of t_k - (a + b t_1)}
-- (fits[1] = {offset 0, drift 1}); nil, message when a run enters sync fewer than twice.
function M.drift(runs, sync)
  local linalg = require("retrace.core").linalg
  local function entries(run)
    local list = {}
    -- the final "end" entry repeats the last state: not an entry
    for i = 1, #run.states - 1 do
      if run.states[i] == sync then list[#list + 1] = run.times[i] end
    end
    return list
  end
  local ref = entries(runs[1])
  local fits = { { offset = 0, drift = 1, n = #ref, residual = 0 } }
  for k = 2, #runs do
    local mine = entries(runs[k])
    local n = math.min(#ref, #mine)
    if n < 2 then
      return nil, string.format("drift: %s enters the synchronisation state %s %d times and %s %d: at least 2 "
        .. "in each are needed", runs[1].label, sync, #ref, runs[k].label, #mine)
    end
    local xs, ys = {}, {}
    for i = 1, n do xs[i], ys[i] = ref[i], mine[i] end
    local f, why = linalg.fit_linear(xs, ys)
    if not f then return nil, "drift: " .. runs[k].label .. ": " .. why end
    if not (f.b > 0) then
      return nil, string.format("drift: %s: the fitted drift %g is not positive (the synchronisation points do "
        .. "not advance together)", runs[k].label, f.b)
    end
    fits[k] = { offset = f.a, drift = f.b, n = n, residual = math.sqrt(f.sumsq / n),
                unmatched = math.max(#ref, #mine) - n }
  end
  return fits
end

--- Map every run's times onto run 1's clock (in place).
function M.apply(runs, fits)
  for k = 2, #runs do
    local a, b, t = fits[k].offset, fits[k].drift, runs[k].times
    for i = 1, #t do t[i] = (t[i] - a) / b end
  end
  return runs
end

--- One sequence from the runs: at every entry of any run (in time order, ties in run
-- order) the state is the tuple of each run's current state, joined by `sep`. It
-- begins when every run has entered a state and ends when the first run ends.
function M.merge(runs, sep)
  sep = sep or ""
  local begin, finish = -math.huge, math.huge
  local pos = {} -- run k's next entry (a k-way merge: no list of every event)
  for k, r in ipairs(runs) do
    local n = #r.states
    if n == 0 then return nil, "merge: " .. r.label .. " is empty" end
    if r.times[1] > begin then begin = r.times[1] end
    if r.times[n] < finish then finish = r.times[n] end
    pos[k] = 1
  end
  if not (finish > begin) then
    return nil, "merge: the runs do not overlap in time (one ends before another begins)"
  end
  local P = #runs
  -- the earliest next entry (ties: the lowest run), or nil when every run is done
  local function earliest()
    local bk, bt
    for k = 1, P do
      local r, i = runs[k], pos[k]
      if i < #r.states then
        local t = r.times[i]
        if not bt or t < bt then bk, bt = k, t end
      end
    end
    return bk, bt
  end
  local cur, states, times = {}, {}, {}
  local k, t = earliest()
  while k and t < finish do
    -- every entry at time t first, then one state
    while k and runs[k].times[pos[k]] == t do
      cur[k] = runs[k].states[pos[k]]
      pos[k] = pos[k] + 1
      k = earliest()
    end
    if t >= begin then states[#states + 1], times[#times + 1] = table.concat(cur, sep), t end
    k, t = earliest()
  end
  if #states == 0 then return nil, "merge: no time at which every run is in a state" end
  states[#states + 1], times[#times + 1] = table.concat(cur, sep), finish -- the end: closes the state before
  return { states = states, times = times }
end

return M
