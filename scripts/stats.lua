-- retrace stats TRACE: replay a message-passing trace of any format retrace
-- reads (PICL old and new, and OTF2, Paraver, Paje when their readers are
-- built in) and print its statistical summary: per-processor states, messages,
-- queues, the critical path, tasks and the per-region table.
-- `retrace picl stats` is this command under its historical name.
local cli = require "retrace.cli"
local picl = require "retrace.picl"
local replay = require "retrace.replay"

-- Report skipped lines on stderr: each (up to 10) then a count.
local function report_skips(path, n, lines)
  if not n or n == 0 then return end
  for i = 1, math.min(#lines, 10) do io.stderr:write("retrace: warning: ", lines[i], "\n") end
  io.stderr:write(string.format("retrace: %s: %d malformed line%s skipped\n", path, n, n == 1 and "" or "s"))
end

-- The format names --format accepts.
local function format_names()
  local names = { "picl", "old", "new", "picl-old", "picl-new" }
  for _, f in ipairs(replay.formats(true)) do
    if f ~= "picl" then names[#names + 1] = f end
  end
  return names
end

local function check_format(f)
  if not f then return end
  for _, n in ipairs(format_names()) do
    if n == f then return end
  end
  cli.usage_error("--format: unknown format '" .. f .. "' (" .. table.concat(format_names(), ", ") .. ")")
end

local function pct(x, span)
  if span <= 0 then return 0 end
  return 100 * x / span
end

local function stats_text(s)
  local out = {}
  local function w(...) out[#out + 1] = string.format(...) end
  local t0, t1 = s.span[1], s.span[2]
  local span = t1 - t0
  if s.window then span = math.min(t1, s.window[2]) - math.max(t0, s.window[1]) end
  w("trace %s: %s format, %d records, %d processors", s.trace.file, s.trace.format, s.trace.records,
    #s.processors)
  if s.trace.records_skipped and s.trace.records_skipped > 0 then
    w("%d records of kinds the replay does not model counted and skipped", s.trace.records_skipped)
  end
  w("span %.6f .. %.6f s (%.6f s)%s", t0, t1, t1 - t0,
    s.window and string.format("; window %.6f .. %.6f s", s.window[1], s.window[2]) or "")
  w("")
  w("%5s %8s %9s %8s %8s %12s %8s %12s %6s", "proc", "busy%", "overhead%", "idle%", "sent", "sent bytes",
    "received", "recv bytes", "maxq")
  local all = { busy = 0, overhead = 0, idle = 0, sent = 0, sent_bytes = 0, received = 0, received_bytes = 0,
    max_queue = 0 }
  local events = {}
  for _, p in ipairs(s.processors) do
    w("%5d %8.2f %9.2f %8.2f %8d %12.0f %8d %12.0f %6d", p.id, pct(p.busy, span), pct(p.overhead, span),
      pct(p.idle, span), p.sent, p.sent_bytes, p.received, p.received_bytes, p.max_queue)
    for k in pairs(all) do
      if k == "max_queue" then all[k] = math.max(all[k], p[k]) else all[k] = all[k] + p[k] end
    end
    for ev, row in pairs(p.events) do
      local e = events[ev] or { count = 0, time = 0, bytes = 0 }
      e.count, e.time, e.bytes = e.count + row.count, e.time + row.time, e.bytes + row.bytes
      events[ev] = e
    end
  end
  local n = math.max(#s.processors, 1)
  w("%5s %8.2f %9.2f %8.2f %8d %12.0f %8d %12.0f %6d", "all", pct(all.busy / n, span),
    pct(all.overhead / n, span), pct(all.idle / n, span), all.sent, all.sent_bytes, all.received,
    all.received_bytes, all.max_queue)
  w("")
  local cp = s.critical_path
  w("messages %d, tachyons %d, critical path %.6f s (%d segments, %d messages on it)", s.messages,
    s.tachyons, cp.length, cp.nsegments or 0, cp.nmessages or 0)
  if cp.head then
    for i, seg in ipairs(cp.head.segments) do
      if i > 12 then break end
      local m = cp.head.messages[i]
      w("  processor %-3d %.6f .. %.6f%s", seg.proc, seg.from, seg.to,
        m and string.format("  -> message to %d sent %.6f, received %.6f", m.dst, m.send_time, m.recv_time) or "")
    end
    if cp.nsegments > 12 then w("  ... %d more segments", cp.nsegments - 12) end
  end
  if #s.tasks > 0 then
    w("")
    w("%-6s %12s %12s %10s %8s", "task", "first start", "last end", "% of span", "count")
    for i, k in ipairs(s.tasks) do
      if i > 40 then w("  ... %d more tasks", #s.tasks - 40) break end
      local stop = k.last_end or t1
      w("%-6d %12.6f %12.6f %10.2f %8d", k.task, k.first_start, stop, pct(stop - k.first_start, t1 - t0), k.count)
    end
  end
  w("")
  w("%-28s %10s %14s %14s", s.regions and "region (all processors)" or "event type (all processors)", "count",
    "time (s)", "bytes")
  local keys = {}
  for ev in pairs(events) do keys[#keys + 1] = tonumber(ev) end
  table.sort(keys)
  for _, ev in ipairs(keys) do
    local e = events[tostring(ev)]
    local r = s.regions and s.regions[tostring(ev)]
    local name = r and r.name or (s.region_names and s.region_names[ev]) or picl.event_words(ev)
    w("%-28s %10d %14.6f %14.0f", string.format("%d %s", ev, name), e.count, e.time, e.bytes)
  end
  local unnested = s.totals and s.totals.unnested_exits or 0
  if unnested > 0 then
    w("")
    w("%d exit%s closed a region while regions of its group opened inside it were open (those stay open "
      .. "until their own exits)", unnested, unnested == 1 and "" or "s")
  end
  local total = math.max(s.warnings_total or 0, #s.warnings)
  if total > 0 then
    w("")
    w("%d warning%s%s:", total, total == 1 and "" or "s",
      total > #s.warnings and string.format(" (the first %d kept)", #s.warnings) or "")
    for i = 1, math.min(#s.warnings, 20) do w("  %s", s.warnings[i]) end
    if #s.warnings > 20 then w("  ...") end
  end
  return table.concat(out, "\n") .. "\n"
end

-- The critical path with the data keys of the displays: segments {proc, from, to}, messages
-- {src, dst, send, recv, bytes} (seconds). The document is encoded with a mark in place of each
-- list; write(text) is called with its pieces, the lists read from the path in batches (a
-- long run's path is not held whole).
local CP_MARKS = { segments = "\1critical path segments\1", messages = "\1critical path messages\1",
  processors = "\1processors\1" }

local function critical_path_json(cp)
  return { length = cp.length, segments = CP_MARKS.segments, messages = CP_MARKS.messages }
end

local function write_json_streaming(doc, cp, write, processors_json)
  local json = require "retrace.json"
  local text = cli.json(doc)
  local function list(which)
    if which == "processors" then return write(processors_json) end -- written by the ranks (picl.summary)
    write("[")
    local first = true
    local ok, err = picl.critical_path_batches(cp, 4096, function(segs, msgs)
      local items = {}
      if which == "segments" then
        for j, g in ipairs(segs) do items[j] = { proc = g.proc, from = g.from, to = g.to } end
      else
        for j, m in ipairs(msgs) do
          items[j] = { src = m.src, dst = m.dst, send = m.send_time, recv = m.recv_time, bytes = m.bytes }
        end
      end
      if #items > 0 then
        local part = json.encode(items)
        write(first and "" or ",", part:sub(2, -2))
        first = false
      end
    end, which)
    if not ok then cli.input_error(err) end
    write("]")
  end
  local from = 1
  while true do
    local a, which, b = nil, nil, nil
    for k, mark in pairs(CP_MARKS) do
      local x, y = text:find(require("cjson").encode(mark), from, true)
      if x and (not a or x < a) then a, b, which = x, y, k end
    end
    if not a then break end
    write(text:sub(from, a - 1))
    list(which)
    from = b + 1
  end
  write(text:sub(from), "\n")
end

-- Tasks: id, first start, last end (the span's end while open), percent of the span (of the
-- window with --from/--to: the replay cuts occurrences to it), occurrences.
local function tasks_json(s)
  local t0, t1 = s.span[1], s.span[2]
  if s.window then t0, t1 = math.max(t0, s.window[1]), math.min(t1, s.window[2]) end
  local out = {}
  for i, k in ipairs(s.tasks or {}) do
    local stop = k.last_end or t1
    out[i] = { id = k.task, start = k.first_start, ["end"] = stop, count = k.count,
               percent = t1 > t0 and 100 * (stop - k.first_start) / (t1 - t0) or 0 }
  end
  return cli.array(out)
end

local function run(args)
  if args.from and args.to and args.from > args.to then
    cli.usage_error("--from " .. args.from .. " is after --to " .. args.to)
  end
  check_format(args.format)
  local bar = cli.progress("replay", 1)
  local s, err = picl.summary(args.trace, { format = args.format, strict = args.strict, start = args.from,
    stop = args.to, compstats = not args.no_compstats, parallel = true, processors_json = args.json,
    progress = function(done, total) bar.total = total; bar:update(done) end })
  bar:finish()
  if not s and err and err:find(replay.PEER_FAILED, 1, true) then
    error({ exit = 1 }, 0) -- another rank failed and tells why
  end
  if not s then cli.input_error(err) end
  if s.rank then return 0 end -- a distributed run: rank 0 prints the merged statistics
  if (args.from or args.to) and s.span then -- a window outside the trace is bad input, as for paragraph
    local ok, werr = require("retrace.replay").check_window({ t0 = s.span[1], t1 = s.span[2] }, args.from, args.to,
      args.trace)
    if not ok then cli.input_error(werr) end
  end
  report_skips(args.trace, s.trace.skipped, s.trace.skipped_lines)
  if args.json then
    write_json_streaming({
      span = s.span, processors = s.processors_json and CP_MARKS.processors or cli.array(s.processors), messages = s.messages, tachyons = s.tachyons,
      critical_path = critical_path_json(s.critical_path), tasks = tasks_json(s),
      warnings = cli.array(s.warnings), warnings_total = math.max(s.warnings_total or 0, #s.warnings),
      unnested_exits = s.totals and s.totals.unnested_exits or 0,
      regions = s.regions, format = s.regions and s.trace.format or nil,
    }, s.critical_path, function(...) io.stdout:write(...) end, s.processors_json)
  else
    io.stdout:write(stats_text(s))
  end
  return 0
end

return {
  summary = "replay a message-passing trace (PICL, OTF2, Paraver, Paje) and print its statistics",
  description = "Replay a message-passing trace of any format retrace reads - PICL (old and new), and\n"
    .. "OTF2, Paraver and Paje when their readers are built in; the format is recognised by content -\n"
    .. "and print per-processor busy / overhead / idle time, messages, queues, the critical path,\n"
    .. "tasks and the per-region table. `retrace picl stats` is the same command under its PICL name.",
  report_skips = report_skips,
  parser = function(p)
    p:argument("trace", "trace file (an OTF2 archive: its .otf2 anchor or its directory)")
    p:option("--format", "trace format: picl, old, new, or a reader's name (otf2, paraver, paje); "
      .. "recognised by content by default")
    p:flag("--strict", "PICL: a malformed line is an error (exit 1) instead of skipped")
    p:flag("--no-compstats", "old-format PICL: leave compstats records as marks (no communication-call "
      .. "overhead; the numbers of ParaGraph, which ignores them)")
    p:flag("--json", "print JSON on stdout")
    p:option("--from", "start of the time window (seconds)"):convert(tonumber)
    p:option("--to", "end of the time window (seconds)"):convert(tonumber)
  end,
  run = run,
  parallel = true, -- under mpirun every rank replays its part (retrace.picl summary, opts.parallel)
}
