-- retrace index TRACE: write the index `retrace view` reads (one streaming pass).
local cli = require "retrace.cli"
local viewer = require "retrace.viewer"

local function run(args)
  local t0 = os.clock()
  local path, info = cli.check_input(viewer.ensure(args.trace, { index = args.output, format = viewer.format_of(args.trace, args.format),
    rebuild = not args.keep, log = function(m) io.stderr:write("retrace: ", m, "\n") end }))
  local secs = os.clock() - t0
  if args.json then
    cli.print_json { index = path, events = info.events, processors = info.procs, regions = info.regions,
      levels = info.levels, bytes = info.bytes, trace_bytes = info.trace_bytes, seconds = secs }
  else
    io.stdout:write(string.format("%s: %d events, %d processors, %d regions, %d summary levels", path,
      info.events, info.procs, info.regions, info.levels))
    if info.bytes and info.trace_bytes and info.trace_bytes > 0 then
      io.stdout:write(string.format(", %.1f%% of the trace's size", 100 * info.bytes / info.trace_bytes))
    end
    io.stdout:write("\n")
  end
  return 0
end

return {
  summary = "write the index that `retrace view` reads (intervals, messages, summaries)",
  description = "Read a message-passing trace (PICL, OTF2, Paraver, Paje) once and write its index: each\n"
    .. "processor's intervals and messages in time buckets, and per-column summaries at power-of-two\n"
    .. "resolutions. By default the index is TRACE.rtidx beside the trace, or in ~/.cache/retrace when\n"
    .. "that folder is not writable. It is checked against the trace (sizes, times, head and tail)\n"
    .. "whenever it is used, and rebuilt when stale or damaged.",
  parser = function(p)
    p:argument("trace", "trace file (an OTF2 archive: its .otf2 anchor or its folder)")
    p:option("-o --output", "index file (default TRACE.rtidx, or the cache folder)")
    p:option("--format", "trace format (picl, otf2, paraver, paje, pes); recognised by content by default")
    p:flag("--keep", "keep an index that still matches the trace instead of writing it again")
    p:flag("--json", "print JSON on stdout")
  end,
  run = run,
}
