-- retrace picl stats|dump|convert: PICL message-passing traces (stats is
-- `retrace stats`, the format-neutral name, and accepts every format it reads).
local cli = require "retrace.cli"
local picl = require "retrace.picl"

local function common(c)
  c:option("--format", "trace format (detected from the first record by default)"):choices { "old", "new" }
  c:flag("--strict", "a malformed line is an error (exit 1) instead of skipped")
end

-- `retrace picl stats` is `retrace stats` (scripts/stats.lua), which reads every format.
local function stats(args)
  return cli.load("stats").run(args)
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
  cli.load("stats").report_skips(args.trace, n, lines)
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
    local s = p:command("stats", "replay a trace and print its statistical summary (the same as "
      .. "`retrace stats`, which reads OTF2, Paraver and Paje traces too)")
    s:argument("trace", "PICL trace file (or any trace `retrace stats` reads)")
    common(s)
    s:flag("--json", "print JSON on stdout")
    s:flag("--no-compstats", "old format: leave compstats records as marks (no communication-call overhead)")
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
