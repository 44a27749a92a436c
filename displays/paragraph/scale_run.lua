--- `retrace paragraph --static / --export / --timeline-html`: whole-run views
-- and exports (called by scripts/paragraph.lua after the pre-pass).
-- run(args, info) -> summary {text = one line, ...} | nil, message, "usage" | "input"
-- Under mpirun every rank draws the --static raster of its own processors and
-- rank 0 draws the combined picture and writes every file; the other ranks
-- return {rank = r} and write nothing.
local display = require "retrace.display"
local pgscale = require "retrace.pgscale"
local whole_run = require "retrace.displays.paragraph.whole_run"
local par = require "retrace.par"

local M = {}

local function window(args, info)
  local t0, t1 = info.span[1], info.span[2]
  if args.zoom then
    local a, b = pgscale.parse_zoom(args.zoom)
    if not a then return nil, "--zoom " .. b end
    if b < t0 or a > t1 then
      return nil, string.format("--zoom %s lies outside the trace, which spans %.9g .. %.9g s", args.zoom, t0, t1)
    end
    return a, b
  end
  if t1 <= t0 then t1 = t0 + 1 end
  return t0, t1
end

local function size(s, def)
  local w, h = tostring(s or def):match("^(%d+)x(%d+)$")
  return math.tointeger(tonumber(w)), math.tointeger(tonumber(h))
end

function M.run(args, info)
  local t0, t1 = window(args, info)
  if not t0 then return nil, t1, "usage" end
  -- processors idle the whole run for want of any state record get no row unless
  -- --all-threads (the export has no rows)
  local sel, note = pgscale.select_procs(info, { procs = args.procs, all_threads = args.all_threads,
    skip_stateless = args.static or args.timeline_html, trace = args.trace })
  if not sel then return nil, note, "usage" end
  if note and par.rank() == 0 then io.stderr:write("retrace: ", note, "\n") end
  local subset = args.procs or #sel < info.P
  -- --order gray: the rows in Gray-code order (the chosen processors in that sequence)
  if args.order and args.order ~= "natural" then
    local list, oerr = require("retrace.displays.paragraph.order").list(args.order, info.P)
    if not list then return nil, "--" .. oerr, "usage" end
    local chosen, ordered = {}, {}
    for _, p in ipairs(sel) do chosen[p] = true end
    for _, p in ipairs(list) do if chosen[p] then ordered[#ordered + 1] = p end end
    sel, subset = ordered, true
  end
  local out = { trace = args.trace, processors = info.P, window = { t0, t1 }, drawn = #sel, procs = sel,
                order = args.order or "natural" }
  local text = {}
  local kinds, W, H
  if args.static then
    if not args.output or not (args.output:match("%.png$") or args.output:match("%.pdf$")
                                or args.output:match("%.svg$")) then
      return nil, "--static needs -o F.png, F.pdf or F.svg", "usage"
    end
    kinds = {}
    for k in (args.display or "gantt,spacetime"):gmatch("[^,]+") do
      if k ~= "gantt" and k ~= "spacetime" then
        return nil, "--static draws gantt and spacetime, not '" .. k .. "'", "usage"
      end
      kinds[#kinds + 1] = k
    end
    W, H = size(args.size, "1920x1080")
    if not W then return nil, "--size '" .. tostring(args.size) .. "': use WxH", "usage" end
  end
  if args.export and args.export[1] ~= "chrome-json" then
    return nil, "--export '" .. tostring(args.export[1]) .. "': use chrome-json", "usage"
  end
  local order_name = (args.order and args.order ~= "natural") and (args.order == "gray" and "Gray-code" or args.order)
    or nil
  local static_opts = function(cols, rows)
    return { cols = cols, rows = rows, t0 = t0, t1 = t1, sel = subset and sel or nil, format = args.format,
             mix = args.mix and 8 or nil, split = true }
  end
  -- a serial run reads the trace once more after the pre-pass, whatever it writes: one
  -- replay feeds the picture's raster, the timeline's and the export (under mpirun each
  -- output is drawn on the ranks as it needs)
  local pass
  if par.size() <= 1 then
    local wants = { format = args.format, rasters = {} }
    if args.timeline_html then
      wants.rasters.timeline = pgscale.timeline_raster(info, subset and sel or nil, t0, t1, { format = args.format })
    end
    if args.static then
      wants.rasters.static = static_opts(whole_run.geometry(kinds, sel, t0, t1, W, H, order_name))
    end
    if args.export then wants.chrome = { file = args.export[2] } end
    local err
    pass, err = pgscale.pass(args.trace, info, wants)
    if not pass then return nil, err, "input" end
  end
  -- the timeline's raster, like the --static one, is drawn by every rank (its own processors'
  -- rows) and written by rank 0; first, so that every rank takes part before the others return
  if args.timeline_html then
    local res, err = pgscale.timeline_html(args.trace, args.timeline_html,
      { format = args.format, info = info, sel = subset and sel or nil, t0 = t0, t1 = t1, split = true,
        raster = pass and pass.rasters.timeline })
    if res == nil and err == false then return nil, false end -- (another rank failed and says why)
    if not res then return nil, err, "input" end
    if not res.rank then out.timeline_html = res end
  end
  if args.static then
    local d, r = whole_run.picture(kinds, sel, t0, t1, W, H, function(cols, rows)
      if pass then return pass.rasters.static end
      return pgscale.raster(args.trace, info, static_opts(cols, rows))
    end, order_name)
    if not d then return nil, r, "input" end
    if par.rank() ~= 0 then return { rank = par.rank() } end
    local dir = args.output:match("^(.*)/[^/]*$")
    if dir and dir ~= "" then
      local okd, derr = require("retrace.fs").mkdir_p(dir)
      if not okd then return nil, derr, "input" end
    end
    local data, err = display.render(d, args.output, W, H)
    if not data then return nil, err, "input" end
    out.static = { file = args.output, cols = r.cols, rows = r.rows, messages = r.messages,
                   tachyons = r.tachyons, mode = r.lines and "lines" or "density", panels = {} }
    -- where each view was drawn and which processors each of its rows holds
    for i, pnl in ipairs(data.panels or {}) do
      local pd = pnl.data
      out.static.panels[i] = { title = pnl.title, plot = pd.plot, rows = pd.rows, window = pd.window,
                               mode = pd.mode, max_count = pd.max_count }
    end
    text[#text + 1] = string.format("%s: %d of %d processors in %d rows, %d messages (%s) in %s", args.trace,
      #sel, info.P, r.rows, r.messages, out.static.mode, args.output)
  end
  if par.rank() ~= 0 then return { rank = par.rank() } end
  if args.export then
    local file = args.export[2]
    local res, err = pass and pass.chrome
    if not res then res, err = pgscale.chrome_json(args.trace, file, { format = args.format, info = info }) end
    if not res then return nil, err, "input" end
    out.export = res
    text[#text + 1] = string.format("%s: %d complete and %d flow events in %s", args.trace, res.complete,
      res.flow, file)
  end
  if out.timeline_html then
    local res = out.timeline_html
    text[#text + 1] = string.format("%s: timeline of %d levels in %s", args.trace, res.levels, args.timeline_html)
  end
  out.text = table.concat(text, "\n")
  return out
end

return M
