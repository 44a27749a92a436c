--- retrace.medea.metrics: parallel metrics across runs at several processor counts.
--
--   scaling(runs) with runs = { {p = processors, time = execution time}, ... }
--   -> { rows = { {p=, time=, speedup=, efficiency=, efficacy=, rate=}, ... },
--        signature = fit of T(p) = a + b/p (retrace.medea.fit "inverse"; its note says
--        what b < 0 means), base_p = the baseline processor count }
-- Speedup is T(p0) * p0 / T(p) relative to the smallest processor count p0
-- (T(1) / T(p) when a one-processor run is present); efficiency = speedup / p;
-- efficacy = speedup * efficiency; rate = 1 / T(p) (executions per second).
-- Several runs at one p are averaged.
local fit = require "retrace.medea.fit"

local M = {}

function M.scaling(runs)
  local byp, ps = {}, {}
  for _, r in ipairs(runs) do
    assert(math.type(r.p) == "integer" and r.p >= 1, "scaling: p must be a positive integer")
    if not byp[r.p] then byp[r.p] = { sum = 0, n = 0 }; ps[#ps + 1] = r.p end
    byp[r.p].sum = byp[r.p].sum + r.time
    byp[r.p].n = byp[r.p].n + 1
  end
  table.sort(ps)
  if #ps == 0 then return { rows = {} } end
  local p0 = ps[1]
  local t0 = byp[p0].sum / byp[p0].n
  local rows, xs, ys = {}, {}, {}
  for _, p in ipairs(ps) do
    local t = byp[p].sum / byp[p].n
    local s = t0 * p0 / t
    local e = s / p
    rows[#rows + 1] = { p = p, time = t, speedup = s, efficiency = e, efficacy = s * e, rate = 1 / t,
                        runs = byp[p].n }
    xs[#xs + 1], ys[#ys + 1] = p, t
  end
  local res = { rows = rows, base_p = p0 }
  if #ps >= 2 then
    local f = fit.fit(xs, ys, "inverse")
    if f then
      res.signature = { a = f.coef[1], b = f.coef[2], r2 = f.r2 }
      if f.coef[2] < 0 then
        -- T(p) = a + b/p with b < 0 grows with p: no parallel part to speak of
        res.signature.note = "b < 0: the time grows with p, so a + b/p does not split it into a serial " ..
          "and a parallel part (more processors cost more than they save)"
      end
    end
  end
  return res
end

return M
