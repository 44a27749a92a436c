--- retrace.replay: replay a message-passing trace - PICL, or any format the
-- dispatcher reads (OTF2, Paraver, Pajé when built in): processor states,
-- messages, queues, tasks, per-region tables, critical path.
--
--   local rp = replay.new(trace_or_path [, opts])
--     opts: start, stop (window over which times and counts accumulate),
--           critical_path = true, format / strict (when given a path),
--           compstats = false (old-format PICL: an option of the PICL source), and
--           callbacks on_state(proc, t, old, new), on_interval(iv),
--           on_message(m), on_warning(msg). Records reach Lua in batches, through
--           the ParaGraph view's events() (retrace.paragraph), never one call each.
--   replay.open(path [, opts]) -- any trace, through the format-neutral source
--   replay.detect(path) -> format name (false when not a trace), why
--   rp:defs() -> {format, procs, regions = {[id] = {name, class, group}}, comms}
--   rp:step(n) -> replayed, ended      rp:run_until(t) -> ended      rp:run()
--   rp:play{every_records = N | every_time = T, from = t, to = t, unit = u}, fn
--       calls fn(rp, t) every N records or every T units of trace time
--   views: rp:proc(id), rp:events(id), rp:stack(id), rp:tasks(), rp:totals(),
--          rp:pending(), rp:warnings(), rp:span(), rp:now(), rp:critical_path(),
--          rp:matrix("pending" | "cumulative")
--
-- Intervals (on_interval) come once per event occurrence when it closes,
-- children before parents: {proc, event, entry, exit, depth, id, parent,
-- parent_event, user_depth, sys_depth, bytes_in, bytes_out, closed, task}.
local core = require "retrace.core"

local M = {}

--- A time unit for a span of trace time: the power of ten (in seconds) that
-- makes the span between 1000 and 10000 units, at most 1 s (rt_prescan_unit).
M.time_unit = core.replay.time_unit
--- The default scale width (units across a scrolling display) for a span:
-- a quarter of it rounded up to 1, 2 or 5 times a power of ten.
M.scale_width = core.replay.scale_width
--- The pre-pass: replay.prescan(path | picl trace [, {format, compstats}]) ->
-- {format, processors, t0, t1, records, events, messages, collectives,
--  max_pending, max_pending_bytes, max_queue, max_queue_bytes, max_queue_proc,
--  tasks = {ids}, unit, scale_width, procs = {{id, first, last, records, events,
--  max_queue, max_queue_bytes}}} (procs[i + 1] is processor i). Give it to
-- replay.new / replay.open as opts.prescan (or pass prescan = true).
M.prescan = core.replay.prescan
--- replay.check_window(ps, from, to [, path]) -> true | nil, message: a window
-- (nil ends are open) must overlap the prescan's span; the message names the span.
M.check_window = core.replay.check_window

M.open = core.replay.open
--- Distributed replays (opts.parallel under mpirun): rp:part() -> rank, size; rp:owns(id);
-- rp:warning_keys(); replay.unpaired_warning(which, n) the end-of-replay warning's words;
-- replay.PEER_FAILED the error of the ranks that stop because another failed;
-- replay.KEEP_WARNINGS the warnings a replay keeps.
M.unpaired_warning = core.replay.unpaired_warning
M.PEER_FAILED = core.replay.PEER_FAILED
M.KEEP_WARNINGS = core.replay.KEEP_WARNINGS
--- replay.reads() -> passes over trace files this process has begun (every source
-- counts one when it gives its first event after opening or rewinding).
M.reads = core.replay.reads
M.detect = core.replay.detect
M.formats = core.replay.formats

local picl_formats = { old = true, new = true, picl = true, ["picl-old"] = true, ["picl-new"] = true }

--- True when path is to be read by the PICL reader: format names it, or
-- (format absent) the content says PICL or no format at all (the PICL reader
-- then gives its own message; "-" is standard input).
function M.is_picl(path, format)
  if format then return picl_formats[format] or false end
  if path == "-" then return true end
  local name = core.replay.detect(path)
  return not name or name == "picl-old" or name == "picl-new"
end

function M.new(trace, opts)
  if type(trace) == "string" then
    local fmt = opts and opts.format
    if not M.is_picl(trace, fmt) then return core.replay.open(trace, opts) end
    fmt = fmt and fmt:gsub("^picl%-", "")
    if fmt == "picl" then fmt = nil end
    local t, err = core.picl.open(trace, opts and { format = fmt, strict = opts.strict })
    if not t then return nil, err end
    trace = t
  end
  return core.replay.new(trace, opts)
end

--- Replay with a frame callback. opts: every_records = N, or every_time = T
-- (in units of opts.unit seconds, default 1); from / to (seconds) bound the
-- frames (records before `from` are replayed without frames, replay stops
-- after `to`). fn(rp, t) gets the frame time (seconds); returning false stops.
-- Returns the number of frames.
function M.play(rp, opts, fn)
  opts = opts or {}
  local frames = 0
  local from, to = opts.from, opts.to
  if from then
    if rp:run_until(from) then return frames end
  end
  local function frame(t)
    frames = frames + 1
    return fn(rp, t) ~= false
  end
  if opts.every_time then
    local dt = opts.every_time * (opts.unit or 1)
    assert(dt > 0, "play: every_time must be positive")
    local t = from or select(1, rp:span()) or rp:now()
    if t == nil or t == -math.huge then
      rp:step(1)
      t = rp:now()
    end
    while true do
      t = t + dt
      if to and t > to then t = to end
      local ended = rp:run_until(t)
      if not frame(t) then break end
      if ended or (to and t >= to) then break end
    end
  else
    local n = opts.every_records or 1
    assert(n >= 1, "play: every_records must be >= 1")
    while true do
      local done, ended
      if to then
        done = 0
        while done < n do
          local nt = rp:next_time()
          if not nt or nt > to then ended = true break end
          local k = rp:step(1)
          done = done + k
        end
      else
        done, ended = rp:step(n)
      end
      if done > 0 and not frame(rp:now()) then break end
      if ended then break end
    end
  end
  return frames
end

-- rp:play(...) as a method of every replay
local reg = debug.getregistry()["retrace.Replay"]
if reg and reg.__index and not reg.__index.play then
  reg.__index.play = M.play
end

return M
