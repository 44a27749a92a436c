--- Merging per-processor (per-thread) runs into one sequence whose state is the
-- tuple of every run's current state, their clocks corrected first (the work is in C,
-- core/seq/rt_seq_merge.c).
--
-- Clock drift: each run k's clock is taken as t_k = a + b * t_1 against run 1's;
-- a (offset) and b (drift) are fitted by least squares (GSL's gsl_fit_linear) on the
-- times the runs enter a synchronisation state (run k's i-th entry matched with run
-- 1's i-th), and run k's times are mapped onto run 1's clock: t_1 = (t_k - a) / b.
--
--   local merge = require "retrace.chitra.merge"
--   local fits = assert(merge.drift(ses, "S"))   -- fits[k] = {run, offset, drift, n, residual, unmatched}
--   local one = assert(merge.merge(ses, fits))   -- a new session of one run (fits: nil for none)
local chitra = require "retrace.chitra"
local core = require("retrace.core").seq

local M = {}

local function label(ses, k) return ses.files and ses.files[k] or ("run " .. k) end

--- Each run's clock fitted against run 1's on the entries of state `sync`;
-- nil, message when a run enters it fewer than twice.
function M.drift(ses, sync)
  local fits = {}
  for k = 1, ses:members() do
    if k == 1 then
      fits[1] = { run = label(ses, 1), offset = 0, drift = 1, residual = 0, unmatched = 0 }
    else
      local f, why = ses.core:sync_fit(k, sync)
      if not f then return nil, why end
      f.run, f.unmatched = label(ses, k), math.max(f.n_ref, f.n_member) - f.n
      f.n_ref, f.n_member = nil, nil
      fits[k] = f
    end
  end
  fits[1].n = fits[2] and fits[2].n or 0
  return fits
end

--- One session of one run: the runs merged (times mapped by fits when given), each
-- state the tuple of the runs' states joined by opts.separator (default nothing).
function M.merge(ses, fits, opts)
  opts = opts or {}
  local offs, drifts
  if fits then
    offs, drifts = {}, {}
    for k, f in ipairs(fits) do offs[k], drifts[k] = f.offset, f.drift end
  end
  local files = {}
  for k = 1, ses:members() do files[k] = label(ses, k) end
  local name = "merged " .. table.concat(files, "+")
  local dst = core.new()
  local ok, why = dst:merge_from(ses.core, offs, drifts, opts.separator or "", name)
  if not ok then dst:close() return nil, why end
  return chitra.wrap(dst, { name }, { components = ses.components, separator = ses.separator })
end

return M
