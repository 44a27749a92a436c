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

-- Parts of the critical path a summary holds (the rest is read from its path).
M.CRITICAL_PATH_HEAD = 12

--- The critical path of a summary (its critical_path: path, nsegments, window) in batches
-- of at most n parts, in time order: fn(segments, messages) for each, the tables
-- rp:critical_path() gives, cut to the window when there is one (retrace.critpath.clip's
-- rule: a segment cut to it or dropped, a message kept when its span meets it); which =
-- "segments" or "messages" passes only that list (the other empty) and reads no further
-- than needed for it. Returns true, or nil and a message when the path's temporary file
-- cannot be read back.
function M.critical_path_batches(cp, n, fn, which)
  local clip = cp.window and require("retrace.critpath").clip
  for i = 1, cp.path and cp.path:info().segments or 0, n do
    local segs, msgs = cp.path:read(i, n)
    if not segs then return nil, "critical path: " .. tostring(msgs) end
    if clip then
      local c = clip({ segments = which ~= "messages" and segs or {}, messages = which ~= "segments" and msgs or {} },
        cp.window[1], cp.window[2])
      segs, msgs = c.segments, c.messages
    end
    fn(which == "messages" and {} or segs, which == "segments" and {} or msgs)
  end
  return true
end

-- Fill cp.head (the first CRITICAL_PATH_HEAD segments and messages) and, with a window, the
-- counts and the length inside it (the sum in retrace.critpath.clip's order: the segments'
-- parts, then the messages' flights).
function M.critical_path_head(cp)
  local head, keep = { segments = {}, messages = {} }, M.CRITICAL_PATH_HEAD
  if not cp.window then
    local segs, msgs = cp.path:read(1, keep)
    if not segs then return nil, "critical path: " .. tostring(msgs) end
    cp.head = { segments = segs, messages = msgs }
    return true
  end
  local lo, hi = cp.window[1], cp.window[2]
  local length, nseg, nmsg = 0, 0, 0
  local ok, err = M.critical_path_batches(cp, 4096, function(segs)
    for _, g in ipairs(segs) do
      length = length + (g.to - g.from)
      nseg = nseg + 1
      if nseg <= keep then head.segments[nseg] = g end
    end
  end, "segments")
  if not ok then return nil, err end
  ok, err = M.critical_path_batches(cp, 4096, function(_, msgs)
    for _, m in ipairs(msgs) do
      local s, r = m.send_time, m.recv_time
      length = length + math.max(0, math.min(r, hi) - math.max(s, lo))
      nmsg = nmsg + 1
      if nmsg <= keep then head.messages[nmsg] = m end
    end
  end, "messages")
  if not ok then return nil, err end
  cp.length, cp.nsegments, cp.nmessages, cp.head = length, nseg, nmsg, head
  return true
end

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
    local p = rp:owns(id) and rp:proc(id)
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
  -- the path stays in its temporary file (it can pass through every message of a long run):
  -- counts, the first parts for reports, and the path to read the rest from (M.critical_path_batches)
  local path = rp:critical_path_walk()
  if path then
    local info = path:info()
    local cp = { length = info.length, start = info.start, stop = info.stop, nsegments = info.segments,
      nmessages = info.messages, path = path }
    if out.window then
      -- with a window: the run's path cut to it (the rule of retrace.critpath), batch by batch
      local w = require("retrace.critpath").clip({ start = info.start, stop = info.stop }, out.window[1],
        out.window[2])
      cp.start, cp.stop, cp.window = w.start, w.stop, { out.window[1], out.window[2] }
    end
    local ok, err = M.critical_path_head(cp)
    if not ok then return nil, err end -- (its temporary file could not be read back)
    out.critical_path = cp
  end
  return out
end

-- a before b in the serial order of warning keys {a, b, c} (b, c unsigned)
local function key_before(x, y)
  if x[1] ~= y[1] then return x[1] < y[1] end
  if x[2] ~= y[2] then return math.ult(x[2], y[2]) end
  return math.ult(x[3], y[3])
end

-- The regions a PICL replay's source names itself (old-format compstats brackets), where the
-- event words differ: id -> name, or nil when there are none.
local function region_names(rp)
  local names
  for id, r in pairs(rp:defs().regions) do
    if r.name ~= M.event_words(id) then
      names = names or {}
      names[id] = r.name
    end
  end
  return names
end

-- The PICL reader's skipped lines in front of out's warnings, as the serial run tells them.
local function add_skips(out, nskip, skips)
  if nskip == 0 then return end
  local w = {}
  for i, m in ipairs(skips) do w[i] = "malformed line skipped: " .. m end
  if nskip > #skips then w[#w + 1] = string.format("%d more malformed lines skipped", nskip - #skips) end
  table.move(out.warnings, 1, #out.warnings, #w + 1, w)
  out.warnings = w
  out.warnings_total = out.warnings_total + nskip
end

-- A distributed replay's parts (rp:part()) merged on rank 0 into the serial run's statistics:
-- processors from their owners in id order, tasks (first start min, last end max, counts summed),
-- message counts summed, warnings merged by key (the first ones kept, as the serial replay keeps
-- them) and the end-of-replay warnings told once with the job's sums. nil on other ranks.
-- opts.processors_json: each rank writes its processors as JSON text (retrace.json, in parallel)
-- and rank 0 joins the texts in id order into out.processors_json (a JSON array), leaving
-- out.processors empty.
local function merge_parts(rp, out, opts)
  local par = require "retrace.par"
  local replay = require "retrace.replay"
  local tot = out.totals
  local texts
  if opts.processors_json then
    local json = require "retrace.json"
    texts = {}
    for i, p in ipairs(out.processors) do texts[i] = { p.id, json.encode(p) } end
  end
  local mine = { processors = texts or out.processors, tasks = out.tasks, warnings = out.warnings,
    keys = rp:warning_keys(), warnings_total = tot.warnings, messages = tot.messages,
    tachyons = tot.tachyons, pending = tot.pending, unmatched_receives = tot.unmatched_receives,
    unnested_exits = tot.unnested_exits, records = rp:records(), events = rp:nevents(),
    skipped = rp:skipped(), region_names = opts.picl_lines and region_names(rp) or nil }
  local parts = par.gather(mine)
  if not parts then return nil end
  local procs, tasks, warns = {}, {}, {}
  local sum = { warnings_total = 0, messages = 0, tachyons = 0, pending = 0, unmatched_receives = 0,
    unnested_exits = 0, records = 0, events = 0, skipped = 0 }
  for r, part in ipairs(parts) do
    for _, p in ipairs(part.processors) do procs[#procs + 1] = p end
    for _, k in ipairs(part.tasks) do
      local t = tasks[k.task]
      if not t then
        tasks[k.task] = { task = k.task, first_start = k.first_start, last_end = k.last_end, count = k.count,
          active = k.active }
      else
        t.first_start = math.min(t.first_start, k.first_start)
        if k.last_end and (not t.last_end or k.last_end > t.last_end) then t.last_end = k.last_end end
        t.count, t.active = t.count + k.count, t.active + k.active
      end
    end
    for i, w in ipairs(part.warnings) do warns[#warns + 1] = { text = w, key = part.keys[i], rank = r, i = i } end
    for k in pairs(sum) do sum[k] = sum[k] + part[k] end
    for id, name in pairs(part.region_names or {}) do
      out.region_names = out.region_names or {}
      out.region_names[id] = name
    end
  end
  if texts then
    table.sort(procs, function(a, b) return a[1] < b[1] end)
    for i, p in ipairs(procs) do procs[i] = p[2] end
    out.processors_json = "[" .. table.concat(procs, ",") .. "]"
    procs = {}
  else
    table.sort(procs, function(a, b) return a.id < b.id end)
  end
  local tlist = {}
  for _, t in pairs(tasks) do tlist[#tlist + 1] = t end
  table.sort(tlist, function(a, b) return a.task < b.task end)
  table.sort(warns, function(a, b)
    if key_before(a.key, b.key) then return true end
    if key_before(b.key, a.key) then return false end
    if a.rank ~= b.rank then return a.rank < b.rank end
    return a.i < b.i
  end)
  local keep = replay.KEEP_WARNINGS
  local list = {}
  for i = 1, math.min(#warns, keep) do list[i] = warns[i].text end
  for which, n in ipairs({ sum.pending, sum.unmatched_receives }) do
    if n > 0 then
      sum.warnings_total = sum.warnings_total + 1
      if #list < keep then list[#list + 1] = replay.unpaired_warning(which - 1, n) end
    end
  end
  out.processors, out.tasks, out.warnings = procs, tlist, list
  out.warnings_total = sum.warnings_total
  out.messages, out.tachyons = sum.messages, sum.tachyons
  for _, k in ipairs({ "messages", "tachyons", "pending", "unmatched_receives", "unnested_exits" }) do
    tot[k] = sum[k]
  end
  tot.warnings = sum.warnings_total
  out.part_sums = sum
  return out
end

-- Any other format through the format-neutral source: regions named by its definitions.
-- opts.parallel: under mpirun every rank replays its part; rank 0 gets the merged statistics,
-- the other ranks { rank = r }. opts.picl_lines: a PICL trace read in byte ranges over the ranks,
-- summed up as the PICL reader's serial path does (its records, skipped lines and region names).
local function neutral_summary(path, opts)
  local replay = require "retrace.replay"
  local rp, err = replay.open(path, { critical_path = true, start = opts.start, stop = opts.stop,
    format = opts.format, compstats = opts.compstats, parallel = opts.parallel,
    strict = opts.picl_lines and opts.strict })
  if not rp then return nil, err end
  local out, serr = replay_stats(rp, opts, function() opts.progress(rp:progress()) end)
  if not out then
    rp:close()
    return nil, serr
  end
  if rp:part() then
    local merged = merge_parts(rp, out, opts)
    if not merged then
      rp:close()
      return { rank = require("retrace.par").rank() }
    end
    out = merged
  end
  local defs = rp:defs()
  if opts.picl_lines then
    local records, nskip, skips = rp:picl_lines()
    add_skips(out, nskip, skips)
    out.trace = { file = path, format = (defs.format:gsub("^picl%-", "")), records = records, skipped = nskip,
      skipped_lines = skips, pending = out.totals.pending, unmatched_receives = out.totals.unmatched_receives }
    if not rp:part() then out.region_names = region_names(rp) end
    rp:close()
    return out
  end
  out.regions = {}
  for id, r in pairs(defs.regions) do out.regions[tostring(id)] = { name = r.name, class = r.class } end
  out.procs = defs.procs
  local skipped = rp:skipped()
  local sums = out.part_sums or { records = rp:records(), events = rp:nevents() }
  out.part_sums = nil
  out.trace = { file = path, format = defs.format, records = sums.records, events = sums.events,
    skipped = 0, skipped_lines = {}, records_skipped = sums.skipped or skipped, pending = out.totals.pending,
    unmatched_receives = out.totals.unmatched_receives }
  rp:close()
  return out
end

--- Replay a whole trace and return the statistics table
-- {span, processors = {{id, busy, overhead, idle, sent, ..., events}}, messages,
--  tachyons, critical_path = {length, start, stop, nsegments, nmessages, head =
--  {segments, messages} (the first CRITICAL_PATH_HEAD of each), path (all of it:
--  path:read(first, n), rp:critical_path_walk)}, warnings}, plus the trace's format,
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
  -- PICL under mpirun (opts.parallel): read in byte ranges over the ranks (strict: the first
  -- malformed line in the file is every rank's error, as the serial reader's)
  local par = require "retrace.par"
  if opts.parallel and par.size() > 1 then
    local detected = path ~= "-" and replay.detect(path)
    local want = opts.format and opts.format:gsub("^picl%-", "")
    if (detected == "picl-old" or detected == "picl-new")
        and (not want or want == "picl" or "picl-" .. want == detected) then
      local o = setmetatable({ format = detected, picl_lines = true }, { __index = opts })
      return neutral_summary(path, o)
    end
    if par.rank() ~= 0 then return { rank = par.rank() } end
  end
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
  add_skips(out, nskip, skips)
  out.trace = { file = path, format = trace:format(), records = trace:count(), skipped = nskip,
    skipped_lines = skips, pending = out.totals.pending, unmatched_receives = out.totals.unmatched_receives }
  out.region_names = region_names(rp)
  rp:close()
  trace:close()
  return out
end

return M
