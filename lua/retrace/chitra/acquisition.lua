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

local function summary(t)
  local n = #t.all
  local sum, sq, lo, hi = 0, 0, math.huge, -math.huge
  for _, d in ipairs(t.all) do
    sum = sum + d
    if d < lo then lo = d end
    if d > hi then hi = d end
  end
  local mean = n > 0 and sum / n or nil
  if n > 1 then
    for _, d in ipairs(t.all) do sq = sq + (d - mean) ^ 2 end
  end
  t.n, t.mean, t.total = n, mean, sum
  t.sd = n > 1 and math.sqrt(sq / (n - 1)) or nil
  t.min, t.max = n > 0 and lo or nil, n > 0 and hi or nil
  -- the picture's points: at most M.SHOWN, evenly spaced
  local step = math.max(1, n / M.SHOWN)
  local starts, durs = {}, {}
  local i = 1.0
  while math.floor(i) <= n do
    local k = math.floor(i)
    starts[#starts + 1], durs[#durs + 1] = t.all_starts[k], t.all[k]
    i = i + step
  end
  t.starts, t.durations, t.shown = starts, durs, #starts
  t.all, t.all_starts = nil, nil
  for _, r in ipairs(t.runs) do r.mean = r.n > 0 and r.sum / r.n or nil; r.sum = nil end
end

--- Acquisitions per thread of the states in `set` (a list or "A1,A2"); nil, message
-- when no state of the sequence has such a component.
function M.compute(ses, set)
  if type(set) == "string" then set = require("retrace.chitra").split_list(set) end
  if #set == 0 then return nil, "acquisition: no states given" end
  local want = {}
  for _, s in ipairs(set) do want[s] = true end
  local members = ses:members()
  local cache = {} -- symbol -> its components (a symbol is split once)
  local function parts(sym)
    local p = cache[sym]
    if p == nil then p = ses:split(sym) or { sym }; cache[sym] = p end
    return p
  end
  -- one component everywhere and several runs: each run is a thread
  local single = true
  for k = 1, members do
    for _, sym in ipairs(ses:symbols(k)) do
      if #parts(sym) > 1 then single = false break end
    end
    if not single then break end
  end
  local threads, found = {}, false
  local function thread(j)
    local t = threads[j]
    if not t then
      t = { label = single and members > 1 and (ses.files[j] and ("thread " .. j .. " (" .. ses.files[j]:match("[^/]*$")
        .. ")") or ("thread " .. j)) or ("thread " .. j), all = {}, all_starts = {}, cut = 0, runs = {} }
      for k = 1, members do t.runs[k] = { n = 0, sum = 0 } end
      threads[j] = t
    end
    return t
  end
  for k = 1, members do
    local syms, entries, times = ses:symbols(k), ses:entries(k), ses:times(k)
    local open = {} -- thread -> {start, duration, from_start}
    local n = #syms
    for i = 1, n do
      local p = parts(syms[i])
      for c = 1, single and 1 or #p do
        local j = single and k or c
        local inside = want[p[c]] or false
        if inside then found = true end
        local o = open[j]
        if inside then
          if o then o.dur = o.dur + times[i]
          else open[j] = { start = entries[i], dur = times[i], cut = (i == 1) } end
        elseif o then
          local t = thread(j)
          if o.cut then t.cut = t.cut + 1
          else
            t.all[#t.all + 1], t.all_starts[#t.all_starts + 1] = o.dur, o.start
            t.runs[k].n, t.runs[k].sum = t.runs[k].n + 1, t.runs[k].sum + o.dur
          end
          open[j] = nil
        else
          thread(j)
        end
      end
    end
    for j in pairs(open) do thread(j).cut = thread(j).cut + 1 end
  end
  if not found then
    return nil, "acquisition: no thread is ever in " .. table.concat(set, " or ")
  end
  local list = {}
  for j in pairs(threads) do list[#list + 1] = j end
  table.sort(list)
  local out = { states = set, threads = {}, per_run = single and members > 1 and "thread" or "run" }
  for _, j in ipairs(list) do
    summary(threads[j])
    threads[j].thread = j
    out.threads[#out.threads + 1] = threads[j]
  end
  return out
end

return M
