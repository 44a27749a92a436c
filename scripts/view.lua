-- retrace view TRACE: explore a trace in the web browser, served by retrace itself.
local cli = require "retrace.cli"
local viewer = require "retrace.viewer"

local function run(args)
  if args.port and (args.port < 0 or args.port > 65535 or args.port % 1 ~= 0) then
    cli.usage_error("--port " .. tostring(args.port) .. ": expected 0 .. 65535")
  end
  local format = viewer.format_of(args.trace, args.format)
  local path, info, built = cli.check_input(viewer.ensure(args.trace, { index = args.index, format = format,
    log = function(m) io.stderr:write("retrace: ", m, "\n") end }))
  if built then
    io.stderr:write(string.format("retrace: indexed %d events into %s\n", info.events, path))
  end
  local second
  if args.compare then -- a second trace, compared with the first: its own index beside it (or in the cache)
    local path2, info2, built2 = cli.check_input(viewer.ensure(args.compare, { format = viewer.format_of(args.compare, args.format),
      log = function(m) io.stderr:write("retrace: ", m, "\n") end }))
    if built2 then
      io.stderr:write(string.format("retrace: indexed %d events into %s\n", info2.events, path2))
    end
    second = { trace = args.compare, index = path2 }
  end
  local srv, err, status = viewer.serve(args.trace, path, { bind = args.bind, port = args.port, token = args.token,
    format = format, second = second })
  if not srv then
    if status == "usage" then cli.usage_error(err) end
    cli.input_error(err)
  end
  local host = args.bind or "127.0.0.1"
  local url = string.format("http://%s:%d/%s/", host, srv:port(), srv:token())
  io.stdout:write(url, "\n")
  io.stdout:flush()
  if args.open then
    os.execute("xdg-open '" .. url .. "' >/dev/null 2>&1 &")
  end
  -- the page's critical-path requests are answered here, between signals (rt_server.h)
  local cpath = viewer.critical_path(args.trace, { format = format })
  local unit = require("cjson").decode((select(2, srv:query("api/meta")))).unit
  srv:critpath_on()
  local sig
  repeat
    sig = srv:wait()
    if sig == "critpath" then
      for t0, t1 in function() return srv:critpath_take() end do
        local ans, err = cpath:window(t0 / unit, t1 / unit)
        if ans then
          ans.t0, ans.t1 = t0, t1
          srv:critpath_put(t0, t1, 200, require("retrace.json").encode(ans))
        else
          srv:critpath_put(t0, t1, 500, require("cjson").encode({ error = tostring(err) }))
        end
      end
    end
  until sig ~= "critpath"
  srv:close()
  io.stderr:write("retrace: view stopped (", sig, ")\n")
  return 0
end

return {
  summary = "explore a trace in the web browser (zoom, statistics, search)",
  description = "Index the trace when needed (see `retrace index`) and serve an interactive viewer on\n"
    .. "127.0.0.1: it prints the page's URL, which carries a random token (requests without it are\n"
    .. "refused), and runs until interrupted (Ctrl-C). --bind widens the address deliberately.\n"
    .. "With a second trace, the page shows both timelines, one above the other, on one time axis.",
  parser = function(p)
    p:argument("trace", "trace file (an OTF2 archive: its .otf2 anchor or its folder), or a Chitra PES")
    p:argument("compare", "a second trace, shown under the first with the same time axis"):args("?")
    p:option("--port", "port to listen on (default: any free port)"):convert(tonumber)
    p:option("--bind", "address to listen on (default 127.0.0.1)")
    p:option("--index", "index file (default TRACE.rtidx, or the cache folder)")
    p:option("--format", "trace format (picl, otf2, paraver, paje, pes); recognised by content by default")
    p:option("--token", "the URL's secret (16-64 hex digits; default random)")
    p:flag("--open", "open the page in the desktop's browser (xdg-open)")
  end,
  run = run,
}
