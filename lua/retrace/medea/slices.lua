--- retrace.medea.slices: a time parameter of one run, slice by slice, and its
-- fit against time (how the run's behaviour drifts within it, where
-- --fit relates parameters across runs).
--
--   local slices = require "retrace.medea.slices"
--   local s = slices.values(acc, "cmtime", 10)     -- acc: an accumulator keeping profiles
--     -> {param =, start =, stop =, width =, nprocs =, t = {slice mid-times since start},
--         values = {per slice}, total =} | nil, message
--   local r = slices.fit_time(acc, "cmtime", 10, "linear")   -- s plus fit = medea.fit's result
--
-- The value of a parameter in a slice is what the program approach gives for
-- the whole run, restricted to the slice: the time the processors spend in the
-- activity during it (the integral of the activity profile over the slice, in
-- C), divided by the processors (the program approach's mean over them). The
-- slices are equal and cover the run, from its first record to its last, so the
-- values add up to the run's parameter.
local fitmod = require "retrace.medea.fit"

local M = {}

--- The time parameters that have a value per slice, and the profile behind each.
M.profile_of = { cptime = "comp", cmtime = "comm", rctime = "recv", trtime = "send", iotime = "io" }
M.params = { "cptime", "cmtime", "rctime", "trtime", "iotime" }

function M.values(acc, param, n)
  local which = M.profile_of[param]
  if not which then
    return nil, string.format("'%s' has no value per time slice (%s do)", tostring(param),
      table.concat(M.params, ", "))
  end
  if math.type(n) ~= "integer" or n < 2 then return nil, "the number of slices must be an integer >= 2" end
  if acc:from_stats() then return nil, "statistics records only: no events to slice" end
  local t0, t1 = acc:profile_span("exec")
  if not t0 or not (t1 > t0) then return nil, "the run has no extent in time (one time stamp)" end
  local nprocs = #acc:processors()
  local integrals = acc:profile_slices(which, n, t0, t1)
  local width = (t1 - t0) / n
  local t, values, total = {}, {}, 0
  for j = 1, n do
    t[j] = (j - 0.5) * width
    values[j] = integrals[j] / nprocs
    total = total + values[j]
  end
  return { param = param, start = t0, stop = t1, width = width, nprocs = nprocs, t = t, values = values,
           total = total }
end

function M.fit_time(acc, param, n, model, degree)
  local s, err = M.values(acc, param, n)
  if not s then return nil, err end
  local f, ferr = fitmod.fit(s.t, s.values, model or "linear", degree)
  if not f then return nil, ferr end
  s.fit = f
  s.formula = fitmod.formula(f)
  return s
end

return M
