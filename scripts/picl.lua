-- retrace picl stats|dump|convert: PICL message-passing traces.
local cli = require "retrace.cli"
local picl = require "retrace.picl"

local function common(c)
  c:option("--format", "trace format (detected from the first record by default)"):choices { "old", "new" }
  c:flag("--strict", "a malformed line is an error (exit 1) instead of skipped")
end

-- Report skipped lines on stderr: each (up to 10) then a count.
local function report_skips(path, n, lines)
  if not n or n == 0 then return end
  for i = 1, math.min(#lines, 10) do io.stderr:write("retrace: warning: ", lines[i], "\n") end
  io.stderr:write(string.format("retrace: %s: %d malformed line%s skipped\n", path, n, n == 1 and "" or "s"))
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
  w("messages %d, tachyons %d, critical path %.6f s (%d segments, %d messages on it)", s.messages,
    s.tachyons, s.critical_path.length, type(s.critical_path.segments) == "table" and #s.critical_path.segments or 0,
    type(s.critical_path.messages) == "table" and #s.critical_path.messages or 0)
  local cp = s.critical_path
  if type(cp.segments) == "table" then
    for i, seg in ipairs(cp.segments) do
      if i > 12 then w("  ... %d more segments", #cp.segments - 12) break end
      local m = cp.messages[i]
      w("  processor %-3d %.6f .. %.6f%s", seg.proc, seg.from, seg.to,
        m and string.format("  -> message to %d sent %.6f, received %.6f", m.dst, m.send_time, m.recv_time) or "")
    end
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
  w("%-28s %10s %14s %14s", "event type (all processors)", "count", "time (s)", "bytes")
  local keys = {}
  for ev in pairs(events) do keys[#keys + 1] = tonumber(ev) end
  table.sort(keys)
  for _, ev in ipairs(keys) do
    local e = events[tostring(ev)]
    w("%-28s %10d %14.6f %14.0f", string.format("%d %s", ev, picl.event_words(ev)), e.count, e.time, e.bytes)
  end
  if #s.warnings > 0 then
    w("")
    w("%d warning%s:", #s.warnings, #s.warnings == 1 and "" or "s")
    for i = 1, math.min(#s.warnings, 20) do w("  %s", s.warnings[i]) end
    if #s.warnings > 20 then w("  ...") end
  end
  return table.concat(out, "\n") .. "\n"
end

local function stats(args)
  if args.from and args.to and args.from > args.to then
    cli.usage_error("--from " .. args.from .. " is after --to " .. args.to)
  end
  local bar = cli.progress("replay", 1)
  local s, err = picl.summary(args.trace, { format = args.format, strict = args.strict, start = args.from,
    stop = args.to, progress = function(done, total) bar.total = total; bar:update(done) end })
  bar:finish()
  if not s then cli.input_error(err) end
  report_skips(args.trace, s.trace.skipped, s.trace.skipped_lines)
  if args.json then
    cli.print_json {
      span = s.span, processors = cli.array(s.processors), messages = s.messages, tachyons = s.tachyons,
      critical_path = { length = s.critical_path.length }, warnings = cli.array(s.warnings),
    }
  else
    io.stdout:write(stats_text(s))
  end
  return 0
end

local function dump(args)
  local t, err = picl.open(args.trace, { format = args.format, strict = args.strict })
  if not t then cli.input_error(err) end
  local from, to = args.from or -math.huge, args.to or math.huge
  local ok, perr = pcall(function()
    for rec in t:records() do
      if rec.time > to then break end
      if rec.time >= from then io.stdout:write(picl.describe(rec), "\n") end
    end
  end)
  local n, lines = t:skipped()
  t:close()
  if not ok then cli.input_error((tostring(perr):gsub("^%[C%]: ", "", 1))) end
  report_skips(args.trace, n, lines)
  return 0
end

local function convert(args)
  local n, skipped = picl.convert(args.old, args.new, { strict = args.strict })
  if not n then cli.input_error(skipped) end
  if skipped > 0 then
    io.stderr:write(string.format("retrace: %s: %d malformed line%s skipped\n", args.old, skipped,
      skipped == 1 and "" or "s"))
  end
  io.stderr:write(string.format("retrace: wrote %d new-format records to %s\n", n, args.new))
  return 0
end

return {
  summary = "PICL traces: statistics, annotated dump, old -> new conversion",
  description = "Read PICL traces of message-passing programs (old ParaGraph format or new MPICL format),\n"
    .. "replay them and report processor states, messages, queues and event tables.",
  parser = function(p)
    p:command_target("command")
    local s = p:command("stats", "replay a trace and print its statistical summary")
    s:argument("trace", "PICL trace file")
    common(s)
    s:flag("--json", "print JSON on stdout")
    s:option("--from", "start of the time window (seconds)"):convert(tonumber)
    s:option("--to", "end of the time window (seconds)"):convert(tonumber)
    local d = p:command("dump", "print each record annotated in words")
    d:argument("trace", "PICL trace file")
    common(d)
    d:option("--from", "first time to print (seconds)"):convert(tonumber)
    d:option("--to", "last time to print (seconds)"):convert(tonumber)
    local c = p:command("convert", "write an old-format trace in the new format")
    c:argument("old", "old-format PICL trace")
    c:argument("new", "new-format trace to write")
    c:flag("--strict", "a malformed line is an error (exit 1) instead of skipped")
  end,
  run = function(args)
    if args.command == "stats" then return stats(args) end
    if args.command == "dump" then return dump(args) end
    return convert(args)
  end,
}
