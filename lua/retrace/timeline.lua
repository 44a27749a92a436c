--- retrace.timeline: a raster of processor states and tasks over time, fed by
-- a replay in C (core/msg/rt_timeline.h), for time-by-processor displays.
--
--   local tl = timeline.new{cols = W, rows = R, procs = P, t0 = a, t1 = b, tasks = {ids}}
--   local tl = timeline.for_replay(rp, ps, W, R [, t0, t1]) -- over the prescan's span, attached
--   tl:advance(rp:now()) before reading; tl:cell(c, r), tl:times(state), tl:grid("state" | "task")
-- Rows: one per processor while P <= R, else processor p in row p * R // P.
-- Cell values are processor-seconds in each state ("idle", "overhead", "busy")
-- and in each task slot (tasks in the order given, then "other").
local core = require "retrace.core"

local M = {}

M.new = core.timeline.new

--- A raster over [t0, t1] (default: the prescan's span) with the prescan's
-- processors and tasks (the first 32), attached to rp.
function M.for_replay(rp, ps, cols, rows, t0, t1)
  t0 = t0 or ps.t0
  t1 = t1 or ps.t1
  if not (t0 and t1) or t1 <= t0 then
    error(string.format("timeline: empty window %s .. %s", tostring(t0), tostring(t1)), 2)
  end
  local tl = M.new { cols = cols, rows = rows, procs = math.max(ps.processors, 1), t0 = t0, t1 = t1,
                     tasks = ps.tasks }
  tl:attach(rp)
  return tl
end

return M
