--- retrace.picl: PICL traces (old ParaGraph format and new MPICL format).
--
--   local t = picl.open(path [, {format = "old"|"new", strict = true}])  -- or nil, message
--   for rec in t:records() do print(rec.time, rec.proc, rec.kind, rec.name) end
--   picl.convert(old, new)              -- old-format trace rewritten in the new format
--   picl.summary(path [, opts])         -- the statistics `retrace stats --json` prints
--                                          (any message-passing format, see M.summary)
--   picl.describe(rec)                  -- a record in words (the Trace view)
--
-- Record fields: format, line, time (seconds), proc, task, data (array), kind;
-- new format: rectype, event, name, family, ndata, desc or fmt, and for sends /
-- receives bytes, tag, dest / src; old format: code, and to|from, type, length
-- (send, recv, recv_waking) or block (block_begin / block_end).
local core = require "retrace.core"

local M = {}

M.open = core.picl.open
M.convert = core.picl.convert
M.parse_line = core.picl.parse_line
M.event_words = core.picl.event_words
M.event_family = core.picl.event_family

local function num(v)
  if math.type(v) == "integer" then return tostring(v) end
  return string.format("%.6f", v)
end

local function data_words(rec, from)
  local out = {}
  for i = from or 1, #rec.data do out[#out + 1] = num(rec.data[i]) end
  return table.concat(out, " ")
end

local stat_unit = { [-101] = " s", [-102] = "", [-103] = " bytes", [-104] = " bytes", [-105] = "" }

--- One record in words.
function M.describe(rec)
  local what
  if rec.format == "old" then
    local k = rec.kind
    if k == "send" then
      what = string.format("send to node %s, type %s, %s bytes", num(rec.to), num(rec.type), num(rec.length))
    elseif k == "recv" then
      what = string.format("receive from node %s, type %s, %s bytes", num(rec.from), num(rec.type), num(rec.length))
    elseif k == "recv_blocking" then
      what = "blocks waiting for a message"
    elseif k == "recv_waking" then
      what = string.format("wakes with a message from node %s, type %s, %s bytes", num(rec.from),
        num(rec.type), num(rec.length))
    elseif k == "block_begin" then
      what = "begins task " .. num(rec.block)
    elseif k == "block_end" then
      what = "ends task " .. num(rec.block)
    elseif k == "trace_start" then
      what = "starts tracing"
    elseif k == "trace_exit" then
      what = "stops tracing"
    elseif k == "close" then
      what = "closes"
    elseif k == "trace_marks" then
      what = "marks: " .. data_words(rec)
    else
      what = k .. (#rec.data > 0 and (": " .. data_words(rec)) or "")
    end
    return string.format("%12.6f  node %-3d %s", rec.time, rec.proc, what)
  end
  local k = rec.kind
  if k == "entry" or k == "exit" then
    what = (k == "entry" and "enters " or "leaves ") .. rec.name
    if rec.dest then
      what = what .. string.format(": %s bytes, tag %d, to processor %d", num(rec.bytes), rec.tag, rec.dest)
    elseif rec.src then
      what = what .. string.format(": %s bytes, tag %d, from processor %d", num(rec.bytes), rec.tag, rec.src)
    elseif #rec.data > 0 then
      what = what .. " [" .. data_words(rec) .. "]"
    end
  elseif k == "mark" then
    what = "mark " .. rec.name .. (#rec.data > 0 and (" [" .. data_words(rec) .. "]") or "")
  elseif k == "statistics" then
    local words = { "statistics:" }
    local unit = stat_unit[rec.rectype] or ""
    local label = ({ [-101] = "time", [-102] = "count", [-103] = "send volume",
      [-104] = "receive volume", [-105] = "size volume" })[rec.rectype] or "?"
    words[1] = "statistics (" .. label .. "):"
    for i = 1, #rec.data - 1, 2 do
      words[#words + 1] = string.format("%s %s%s", M.event_words(rec.data[i]), num(rec.data[i + 1]), unit)
      if i + 2 < #rec.data then words[#words] = words[#words] .. ";" end
    end
    what = table.concat(words, " ")
  elseif rec.text then
    what = k .. " of " .. M.event_words(rec.event) .. ": " .. rec.text
  else
    what = k .. " (record type " .. rec.rectype .. ", event " .. rec.event .. ")"
      .. (#rec.data > 0 and (": " .. data_words(rec)) or "")
  end
  return string.format("%12.6f  proc %-3d %s", rec.time, rec.proc, what)
end

-- The statistics of a replay run to its end: the table M.summary returns,
-- without its `trace` part.
local function replay_stats(rp, opts, step)
  local ok, perr = pcall(function()
    repeat
      local _, ended = rp:step(200000)
      if opts.progress then step() end
    until ended
  end)
  if not ok then return nil, tostring(perr) end
  local t0, t1 = rp:span()
  local out = {
    span = { t0 or 0, t1 or 0 },
    processors = {},
    messages = 0,
    tachyons = 0,
    critical_path = { length = 0 },
    warnings = rp:warnings(),
  }
  if opts.start or opts.stop then
    out.window = { opts.start or out.span[1], opts.stop or out.span[2] }
  end
  for id = 0, rp:nprocs() - 1 do
    local p = rp:proc(id)
    if p then
      local events = {}
      for ev, row in pairs(rp:events(id)) do
        events[tostring(ev)] = { count = row.count, time = row.time, bytes = row.bytes }
      end
      out.processors[#out.processors + 1] = {
        id = id, busy = p.busy, overhead = p.overhead, idle = p.idle,
        sent = p.sent, sent_bytes = p.sent_bytes, received = p.received,
        received_bytes = p.received_bytes, max_queue = p.max_queue, events = events,
      }
    end
  end
  out.tasks = rp:tasks()
  local tot = rp:totals()
  out.messages, out.tachyons = tot.messages, tot.tachyons
  out.totals = tot
  out.warnings_total = tot.warnings -- all of them; out.warnings keeps the first ones
  local cp = rp:critical_path()
  if cp then
    out.critical_path = { length = cp.length, start = cp.start, stop = cp.stop,
      segments = cp.segments, messages = cp.messages }
  end
  return out
end

-- Any other format through the format-neutral source: regions named by its definitions.
local function neutral_summary(path, opts)
  local replay = require "retrace.replay"
  local rp, err = replay.open(path, { critical_path = true, start = opts.start, stop = opts.stop,
    format = opts.format, compstats = opts.compstats })
  if not rp then return nil, err end
  local out, serr = replay_stats(rp, opts, function() opts.progress(rp:progress()) end)
  if not out then
    rp:close()
    return nil, serr
  end
  local defs = rp:defs()
  out.regions = {}
  for id, r in pairs(defs.regions) do out.regions[tostring(id)] = { name = r.name, class = r.class } end
  out.procs = defs.procs
  local skipped = rp:skipped()
  out.trace = { file = path, format = defs.format, records = rp:records(), events = rp:nevents(),
    skipped = 0, skipped_lines = {}, records_skipped = skipped, pending = out.totals.pending,
    unmatched_receives = out.totals.unmatched_receives }
  rp:close()
  return out
end

--- Replay a whole trace and return the statistics table
-- {span, processors = {{id, busy, overhead, idle, sent, ..., events}}, messages,
--  tachyons, critical_path = {length, ...}, warnings}, plus the trace's format,
-- record count and skipped lines under `trace`. nil, message on bad input.
-- opts: format, strict, start, stop, progress (function(done, total)),
-- compstats = false (old PICL: no communication-call brackets, see rt_picl_source.h).
-- PICL traces go through the PICL reader (strict, skipped lines); any other
-- format the dispatcher reads (OTF2, Paraver, Pajé) through its source, with
-- `regions` (id -> {name, class}) and `procs` (names) added.
function M.summary(path, opts)
  opts = opts or {}
  local replay = require "retrace.replay"
  if not replay.is_picl(path, opts.format) then return neutral_summary(path, opts) end
  local fmt = opts.format and opts.format:gsub("^picl%-", "")
  if fmt == "picl" then fmt = nil end
  local trace, err = M.open(path, { format = fmt, strict = opts.strict })
  if not trace then return nil, err end
  local rp = replay.new(trace, { critical_path = true, start = opts.start, stop = opts.stop,
    compstats = opts.compstats })
  local out, serr = replay_stats(rp, opts, function() opts.progress(trace:progress()) end)
  if not out then
    trace:close()
    return nil, serr
  end
  local nskip, skips = trace:skipped()
  if nskip > 0 then
    local w = {}
    for i, m in ipairs(skips) do w[i] = "malformed line skipped: " .. m end
    if nskip > #skips then w[#w + 1] = string.format("%d more malformed lines skipped", nskip - #skips) end
    table.move(out.warnings, 1, #out.warnings, #w + 1, w)
    out.warnings = w
    out.warnings_total = out.warnings_total + nskip
  end
  out.trace = { file = path, format = trace:format(), records = trace:count(), skipped = nskip,
    skipped_lines = skips, pending = out.totals.pending, unmatched_receives = out.totals.unmatched_receives }
  -- regions the source names itself (old-format compstats brackets), where the event words differ
  for id, r in pairs(rp:defs().regions) do
    if r.name ~= M.event_words(id) then
      out.region_names = out.region_names or {}
      out.region_names[id] = r.name
    end
  end
  rp:close()
  trace:close()
  return out
end

return M
