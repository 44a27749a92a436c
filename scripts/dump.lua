-- retrace dump TRACE: every event of a message-passing trace, one line each, as the
-- replay reads it (PICL old and new, OTF2, Paraver, Pajé): what otf2-print or pj_dump
-- print, in one form for every format.
local cli = require "retrace.cli"

return {
  summary = "print every event of a message-passing trace, one line each (any format the replay reads)",
  description = "Reads a trace of any format retrace replays - PICL (old and new), OTF2, Paraver, Paje; "
    .. "recognised by content, '-' for standard input - and prints each event as the replay sees it: "
    .. "TIME (seconds from the trace's start)  Pprocessor  kind (enter, leave, send, receive, collective "
    .. "begin/end, marker, counter)  region or event name, then bytes, peer and tag for messages, the data "
    .. "of markers and a counter's name and value. The events stream through; memory does not grow with the trace. "
    .. "`retrace picl dump` prints PICL records in PICL's own words.",
  parser = function(p)
    p:argument("trace", "trace file (an OTF2 archive: its .otf2 anchor or its directory; '-': standard input)")
    p:option("--format", "trace format: picl, old, new, otf2, paraver or paje; recognised by content by default")
    p:option("--from", "first time printed (seconds)"):convert(tonumber)
    p:option("--to", "last time printed (seconds)"):convert(tonumber)
    p:option("--procs", "the processors printed, e.g. 0-3,8 (default: all)")
  end,
  run = function(args)
    if args.from and args.to and args.from > args.to then
      cli.usage_error(string.format("--from %g is after --to %g", args.from, args.to))
    end
    local fmt = args.format
    if fmt == "old" or fmt == "new" then fmt = "picl-" .. fmt end
    local dump <close>, err = require("retrace.core").dump.open(args.trace, fmt)
    if not dump then cli.input_error(err) end
    local procs
    if args.procs then
      local info = dump:info()
      -- traces whose processors appear while they are read (Pajé, PICL): any id is allowed
      local P = (info.format == "paje" or info.nprocs == 0) and math.huge or info.nprocs
      local e
      procs, e = require("retrace.pgscale").parse_procs(args.procs, P)
      if not procs then cli.usage_error("--procs " .. e) end
    end
    io.stdout:flush()
    local lines, werr = dump:write{ from = args.from, to = args.to, procs = procs }
    if not lines then cli.input_error(werr) end
    return 0
  end,
}
