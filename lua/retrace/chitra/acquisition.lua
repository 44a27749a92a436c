--- Resource acquisition per thread (Chitra's Figure 15): an acquisition is a maximal
-- stretch of consecutive states in which one thread's local state is one of the
-- given states (A1, A2 for the dining philosophers); its time is the time from
-- entering the first of them to leaving the last.
--
-- Threads: with states of several components (A2T = thread 1 in A2, thread 2 in
-- T) thread j is component j, pooled over every run; with one-component states
-- (an ensemble of per-thread runs, e.g. --states processor:P) thread k is run k.
-- Stretches open at the start or end of a run are not measured (their entry or
-- exit was not seen) and are counted as `cut`.
--
--   local acq = require "retrace.chitra.acquisition"
--   local r = acq.compute(ses, {"A1", "A2"})
--   -- r.threads[j] = {label, n, mean, sd, min, max, total, cut, runs = {{n, mean}},
--   --                 starts = {...}, durations = {...}, shown}
local M = {}

M.SHOWN = 2000 -- acquisitions listed per thread (evenly spaced over the run) for the picture

--- Acquisitions per thread of the states in `set` (a list or "A1,A2"); nil, message
-- when no state of the sequence has such a component. The pass over the sequence is
-- in C (rt_ses_acquire); Lua splits each distinct symbol into its components once.
function M.compute(ses, set)
  if type(set) == "string" then set = require("retrace.chitra").split_list(set) end
  if #set == 0 then return nil, "acquisition: no states given" end
  local want = {}
  for _, s in ipairs(set) do want[s] = true end
  local members = ses:members()
  local parts, width = {}, 1
  for sym in pairs(ses.core:totals()) do
    local p = ses:split(sym) or { sym }
    parts[sym] = p
    if #p > width then width = #p end
  end
  -- one component everywhere and several runs: each run is a thread
  local single = width == 1 and members > 1
  local T = single and members or width
  local flags, found = {}, false
  for sym, p in pairs(parts) do
    local f = {}
    for j = 1, T do
      local c = single and p[1] or p[j]
      f[j] = c and want[c] and "1" or "0"
      if f[j] == "1" then found = true end
    end
    local id = ses.core:lookup(sym)
    if id and id >= 0 then flags[id] = table.concat(f) end
  end
  if not found then
    return nil, "acquisition: no thread is ever in " .. table.concat(set, " or ")
  end
  local res = assert(ses.core:acquire(flags, T, single, M.SHOWN))
  local out = { states = set, threads = {}, per_run = single and "thread" or "run" }
  for j, r in ipairs(res) do
    local n = r.n
    local t = { thread = j, n = n, cut = r.cut, total = r.sum, starts = r.starts, durations = r.durations,
                shown = #r.starts, runs = {} }
    t.label = single and ses.files[j] and ("thread " .. j .. " (" .. tostring(ses.files[j]):match("[^/]*$") .. ")")
      or ("thread " .. j)
    if n > 0 then
      t.mean, t.min, t.max = r.sum / n, r.min, r.max
      if n > 1 then t.sd = math.sqrt(math.max(0, (r.sumsq - r.sum * r.sum / n) / (n - 1))) end
    end
    for k = 1, members do
      t.runs[k] = { n = r.run_n[k], mean = r.run_n[k] > 0 and r.run_sum[k] / r.run_n[k] or nil }
    end
    out.threads[j] = t
  end
  return out
end

return M
