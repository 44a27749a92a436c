-- retrace paragraph TRACE -o DIR: replay a message-passing trace (PICL, OTF2,
-- Paraver, Paje) as ParaGraph's animated displays. A pre-pass finds the span,
-- processors and the largest pending and queued volumes; then every frame
-- brings the replay and all chosen displays to the same time and composes them
-- in titled panels (PNG frames; PDF pages, MP4, HTML player on request). The
-- last frame shows the end-of-run displays.
local cli = require "retrace.cli"
local colors = require "retrace.colors"
local display = require "retrace.display"
local frames = require "retrace.frames"
local fs = require "retrace.fs"
local pg = require "retrace.paragraph"
local pgscale = require "retrace.pgscale"
local pgapp = require "retrace.paragraph_app"
local replay = require "retrace.replay"

local GROUPS = {
  utilization = { "utilization_count", "gantt", "utilization_summary", "utilization_meter",
                  "concurrency_profile", "kiviat" },
  communication = { "traffic", "spacetime", "queues", "comm_matrix", "comm_meter", "animation",
                    "hypercube", "node_stats", "color_code" },
  task = { "task_count", "task_gantt", "task_status", "task_summary" },
  other = { "phase_portrait", "critical_path", "processor_status", "clock", "trace", "stats" },
}
local TITLES = {
  utilization_count = "Utilization count", gantt = "Gantt chart", utilization_summary = "Utilization summary",
  utilization_meter = "Utilization meter", concurrency_profile = "Concurrency profile", kiviat = "Kiviat diagram",
  traffic = "Communication traffic", spacetime = "Spacetime diagram", queues = "Message queues",
  comm_matrix = "Communication matrix", comm_meter = "Communication meter", animation = "Animation",
  hypercube = "Hypercube", node_stats = "Node statistics", color_code = "Color code",
  task_count = "Task count", task_gantt = "Task Gantt chart", task_status = "Task status",
  task_summary = "Task summary", phase_portrait = "Phase portrait", critical_path = "Critical path",
  processor_status = "Processor status", clock = "Clock", trace = "Trace", stats = "Statistical summary",
}
local ALL = {}
for _, g in ipairs({ "utilization", "communication", "task", "other" }) do
  for _, id in ipairs(GROUPS[g]) do ALL[#ALL + 1] = id end
end

local UNITS = { s = 1, ms = 1e-3, us = 1e-6, ns = 1e-9 }

-- "1280x720" -> 1280, 720 (usage error when malformed)
local function pair(s, what, max)
  local a, b = tostring(s):match("^(%d+)x(%d+)$")
  a, b = tonumber(a), tonumber(b)
  if not a or a < 1 or b < 1 then cli.usage_error(what .. " '" .. tostring(s) .. "': use WxH, e.g. 1280x720") end
  if max and (a > max or b > max) then
    cli.usage_error(string.format("%s '%s': sides of at most %d pixels", what, s, max))
  end
  return math.tointeger(a), math.tointeger(b)
end

-- a picture's sides (a 16384 x 16384 frame is 1 GiB of pixels; Cairo stops at 32767)
local MAX_SIDE = 16384

local function number(s, what)
  local v = tonumber(s)
  if not v then cli.usage_error(what .. " '" .. tostring(s) .. "': a number expected") end
  return v
end

--- The chosen display ids from the options (usage errors for unknown names).
local function chosen(args)
  local ids = {}
  if args.all then return ALL end
  if args.group then
    for g in args.group:gmatch("[^,]+") do
      local list = GROUPS[g]
      if not list then
        cli.usage_error("--group: unknown group '" .. g .. "' (utilization, communication, task, other)")
      end
      if #list == 0 then cli.usage_error("--group " .. g .. ": no displays in this group yet") end
      for _, id in ipairs(list) do ids[#ids + 1] = id end
    end
  end
  if args.display then
    for id in args.display:gmatch("[^,]+") do
      if not TITLES[id] then
        cli.usage_error("--display: unknown display '" .. id .. "' (" .. table.concat(ALL, ", ") .. ")")
      end
      ids[#ids + 1] = id
    end
  end
  if #ids == 0 and not args.app then ids = GROUPS.utilization end
  return ids
end

-- A scrolling window of `width` seconds: smooth, or jumps of J widths.
local function scroller(mode, width, start)
  local kind, j = mode:match("^(%a+):?([%d.]*)$")
  if kind ~= "smooth" and kind ~= "jump" then
    cli.usage_error("--scroll '" .. mode .. "': use smooth or jump[:J]")
  end
  j = tonumber(j) or 1
  if j <= 0 or j > 1 then cli.usage_error("--scroll jump:J: J must lie in (0, 1]") end
  local w = { lo = start, hi = start + width }
  function w.update(self, t)
    if kind == "smooth" then
      self.lo = math.max(start, t - width)
    elseif t > self.hi then
      local step = j * width
      self.lo = self.lo + math.ceil((t - self.hi) / step) * step
    end
    self.hi = self.lo + width
    return self.lo, self.hi
  end
  return w
end

-- JSON-ready copy: numbers only finite (a NaN or infinity in a list becomes null, so
-- the list keeps its length), tables as they are otherwise.
local function clean(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return nil end
    return v
  elseif t == "table" then
    if depth > 12 then return nil end
    local out = {}
    for k, x in pairs(v) do
      if type(k) == "number" or type(k) == "string" then
        local c = clean(x, depth + 1)
        if c == nil and type(x) == "number" and math.type(k) == "integer" then c = require("cjson").null end
        out[k] = c
      end
    end
    return out
  elseif t == "userdata" or t == "function" then
    return nil
  end
  return v
end

-- The most frames one run draws by --pace time:T (a million frames at 25 per second
-- is eleven hours of animation)
local MAX_FRAMES = 1000000
-- records replayed at most between two looks of the displays at the view (between frames;
-- RETRACE_PG_CHUNK sets it, for tests)
local CHUNK = math.tointeger(tonumber(os.getenv("RETRACE_PG_CHUNK") or "")) or 65536
-- records the Trace display keeps: more than the lines of the tallest panel
local TRACE_LINES = 256

local function run(args)
  -- under mpirun only the rasters (--static, --timeline-html) are shared out; the rest is rank 0's alone
  local par = require "retrace.par"
  if par.size() > 1 and not (args.static or args.timeline_html) then
    if par.rank() ~= 0 then return 0 end
    par.solo(true)
  end
  local ids = { table.unpack(chosen(args)) }
  local W, H = pair(args.size or "1280x720", "--size", MAX_SIDE)
  local appmod
  if args.app then
    local aerr
    appmod, aerr = pgapp.load(args.app)
    if not appmod then cli.input_error(aerr) end
  end
  local n = #ids + (appmod and 1 or 0)
  local cols, rows
  if args.grid then
    cols, rows = pair(args.grid, "--grid")
    if cols * rows < n then
      cli.usage_error(string.format("--grid %dx%d has %d cells for %d displays", cols, rows, cols * rows, n))
    end
  else
    cols = math.ceil(math.sqrt(n * W / H / 1.4))
    cols = math.max(1, math.min(cols, n))
    rows = math.ceil(n / cols)
  end
  local from = args.from and number(args.from, "--from")
  local to = args.to and number(args.to, "--to")
  if from and to and from > to then cli.usage_error("--from " .. args.from .. " is after --to " .. args.to) end
  local order_kind = args.order or "natural"
  if order_kind ~= "natural" and order_kind ~= "gray" then
    cli.usage_error("--order '" .. order_kind .. "': use natural or gray")
  end
  local volume = args.volume or "count"
  if volume ~= "count" and volume ~= "bytes" then cli.usage_error("--volume '" .. volume .. "': use count or bytes") end
  local pace_kind, pace_v = "time", nil
  if args.pace then
    pace_kind, pace_v = args.pace:match("^(%a+):(.+)$")
    pace_v = tonumber(pace_v)
    if (pace_kind ~= "time" and pace_kind ~= "records") or not pace_v or pace_v <= 0 then
      cli.usage_error("--pace '" .. args.pace .. "': use time:T or records:N (positive)")
    end
  end
  if args.unit and not UNITS[args.unit] and not tonumber(args.unit) then
    cli.usage_error("--unit '" .. args.unit .. "': use s, ms, us, ns or seconds as a number")
  end
  if args.gray then colors.set_mode("gray") end
  if args.layout then
    local known = require("retrace.displays.paragraph.hypercube").layouts
    local found = false
    for _, l in ipairs(known) do found = found or l == args.layout end
    if not found then
      cli.usage_error("--layout '" .. args.layout .. "': use " .. table.concat(known, ", "))
    end
  end

  local compstats = not args.no_compstats
  local reads0 = replay.reads()
  -- the pre-pass is a replay: span, counts and (for the displays that show it) the critical path
  local want_cp = false
  for _, id in ipairs(ids) do want_cp = want_cp or id == "critical_path" or id == "stats" end
  -- (under mpirun, --static and --timeline-html: each rank reads its part, the ranks combine)
  local info, err = pg.prescan(args.trace, { format = args.format, compstats = compstats,
                                             critical_path = want_cp and not (args.static or args.export or args.timeline_html),
                                             parallel = par.size() > 1 })
  if not info and err == false then error({ exit = cli.EXIT_INPUT }, 0) end -- (the failing rank says why)
  if not info then cli.input_error(err) end
  if args.static or args.export or args.timeline_html then
    local res, msg, kind = require("retrace.displays.paragraph.scale_run").run(args, info)
    if not res and msg == false then error({ exit = cli.EXIT_INPUT }, 0) end -- (the failing rank says why)
    if not res then
      if kind == "usage" then cli.usage_error(msg) end
      cli.input_error(msg)
    end
    if res.rank then return 0 end -- (another rank of an MPI job: rank 0 writes)
    -- the passes over the trace (a serial run's: under mpirun each rank reads its part)
    if par.size() <= 1 then res.reads = replay.reads() - reads0 end
    if args.json then cli.print_json(res) else io.stdout:write(res.text, "\n") end
    return 0
  end
  if not args.output then cli.usage_error("-o DIR is needed (or --static, --export, --timeline-html)") end
  if args.zoom then
    cli.usage_error("--zoom applies to --static and --timeline-html pictures; animated runs use --from / --to")
  end
  -- the processors drawn: the rule of the whole-run pictures (--procs, --all-threads); the
  -- animation's displays, model and statistics see those only, numbered in order
  local sel, note = pgscale.select_procs(info, { procs = args.procs, all_threads = args.all_threads,
    skip_stateless = true, trace = args.trace })
  if not sel then cli.usage_error(note) end
  if note then io.stderr:write("retrace: ", note, "\n") end
  local full = info
  info = pg.shown(full, sel)
  local t0, t1 = info.span[1], info.span[2]
  if (from and from > t1) or (to and to < t0) then
    cli.input_error(string.format("%s: the window %s .. %s lies outside the trace, which spans %.9g .. %.9g s",
      args.trace, args.from or "start", args.to or "end", t0, t1))
  end
  local proc
  if args.proc then
    local p = math.tointeger(tonumber(args.proc))
    if not p or p < 0 or p >= full.P then
      cli.usage_error("--proc " .. args.proc .. ": the trace has processors 0.." .. (full.P - 1))
    end
    proc = p
    if info.at then proc = info.at[p] end
    if not proc then cli.usage_error("--proc " .. args.proc .. ": not among the processors drawn") end
  end
  local unit = args.unit and (UNITS[args.unit] or tonumber(args.unit)) or info.unit
  local lo_t, hi_t = math.max(from or t0, t0), math.min(to or t1, t1)
  -- --stop-at N | record:N | time:T: the replay stops there, the last frame shows that moment
  local stop_rec, stop_t
  if args.stop_at then
    local kind, v = args.stop_at:match("^(%a+):(.+)$")
    if not kind then kind, v = "record", args.stop_at end
    if kind == "record" then
      stop_rec = math.tointeger(tonumber(v))
      if not stop_rec or stop_rec < 1 then
        cli.usage_error("--stop-at '" .. args.stop_at .. "': a record number from 1 (N or record:N), or time:T")
      end
      if stop_rec > info.records then
        cli.input_error(string.format("%s: --stop-at record %d: the trace has %d records", args.trace, stop_rec,
          info.records))
      end
    elseif kind == "time" and tonumber(v) then
      stop_t = tonumber(v)
      if stop_t < lo_t or stop_t > hi_t then
        cli.input_error(string.format("%s: --stop-at time %s lies outside the window %.9g .. %.9g s", args.trace, v,
          lo_t, hi_t))
      end
      hi_t = stop_t
    else
      cli.usage_error("--stop-at '" .. args.stop_at .. "': use N or record:N (a record number), or time:T (seconds)")
    end
  end
  -- the scrolling window: the pre-pass's width (a quarter of the window, rounded up to 1, 2
  -- or 5 times a power of ten of the pre-pass's unit), so displays scroll by default
  local width = args.scale_width and number(args.scale_width, "--scale-width") * unit
    or replay.scale_width(hi_t - lo_t, info.unit) * info.unit
  if width <= 0 then width = unit end
  local ctx = {
    P = info.P, info = info, volume = volume, proc = proc,
    order = order_kind == "gray" and pg.gray_order(info.P) or pg.natural_order(info.P),
    smoothing = args.smoothing and number(args.smoothing, "--smoothing") * unit or width / 20,
    layout = args.layout, unit = unit, window_lo = lo_t, window_hi = hi_t, trace = args.trace, format = args.format,
    node_stat = args.node_stat,
  }
  local model = pg.model(info, { from = from, to = to })
  -- with the pre-pass, the engine turns a processor idle at its own last record
  -- tasks and records (task, trace and application displays), the critical path from a first pass
  local tracker = pgapp.tracker(info, { keep = TRACE_LINES })
  ctx.tasks = tracker
  ctx.path = (from or to) and require("retrace.critpath").clip(info.cp, lo_t, hi_t) or info.cp
  -- records for the trace and application displays: the view's, taken in batches every
  -- frame (any format; PICL's own records, numbered as in the file)
  local records = appmod ~= nil
  for _, id in ipairs(ids) do records = records or id == "trace" end
  -- --from / --to: the live pass counts, times, tasks and queues over that window only
  local ropts = { format = args.format, prescan = info.ps, compstats = compstats,
                  start = (from or to) and lo_t or nil, stop = (from or to) and hi_t or nil }
  local rp, rerr = replay.new(args.trace, ropts)
  if not rp then cli.input_error(rerr) end
  -- (an application display sees every record: a batch per frame; the Trace display
  -- shows the last ones: a ring of them, whatever the records between two frames)
  local ok_view, verr = model:attach(rp, { batch = appmod ~= nil, records = TRACE_LINES })
  if not ok_view then cli.input_error(verr) end
  tracker:attach(model, { events = records })
  tracker:name_tasks(rp)
  ctx.rp = rp
  -- the C rasters restart empty when their window moves: fine for whole-page jumps,
  -- not when the new window overlaps the old one (smooth, jump:J with J < 1)
  local sc = args.scroll or "jump"
  ctx.no_timeline = not (sc == "jump" or tonumber(sc:match("^jump:(.*)$") or "") == 1)
  local list, panels = {}, {}
  local task_history = false -- a display draws its window from the view's task changes
  for i, id in ipairs(ids) do
    local mod = require("retrace.displays.paragraph." .. id)
    list[i] = mod.new(ctx, {})
    panels[i] = { title = TITLES[id], display = list[i] }
    task_history = task_history or mod.keeps == "tasks"
  end
  if appmod then
    local ok, a = pcall(appmod.new, ctx, {})
    if not ok or type(a) ~= "table" then
      cli.input_error(args.app .. ": new(ctx, opts) " .. (ok and "returned no display" or tostring(a):gsub("\n.*", "")))
    end
    a = pgapp.guard(a, cli.input_error)
    if a.record then tracker:listen(function(rec) a:record(rec) end) end
    list[#list + 1], panels[#panels + 1] = a, { title = appmod.title or "Application", display = a }
    ids[#ids + 1] = appmod.id or "app"
  end
  local incremental = not ctx.no_timeline and not (info and info.ids) and not appmod
  local frame = display.compose(panels, { cols = cols, rows = rows, gap = 4, size = 11 })
  local scroll = scroller(args.scroll or "jump", width, lo_t)
  local bar = cli.progress("paragraph", 100)
  -- args.writer (from Lua, e.g. bench/paragraph_frames.lua): frames drawn but not encoded
  local fw, ferr = args.writer, nil
  if not fw then
    fw, ferr = frames.writer(args.output, { width = W, height = H, pdf = args.pdf, fps = 12,
                                            title = "retrace paragraph " .. args.trace })
  end
  if not fw then cli.input_error(ferr) end
  if args.data then
    local ok, derr = fs.mkdir_p(args.data)
    if not ok then cli.input_error(derr) end
    -- the live pass writes the state segments and messages as it runs (in C)
    ok, derr = rp:write_csv(args.data, full.P, lo_t, hi_t)
    if not ok then cli.input_error(derr) end
  end
  local function write_data(i, t)
    if not args.data then return end
    local out = { frame = i, time = t, displays = {} }
    for k, id in ipairs(ids) do out.displays[id] = clean(list[k]:data()) end
    local ok, werr = fs.write_file(string.format("%s/frame_%06d.json", args.data, i), cli.json(out))
    if not ok then cli.input_error(werr) end
  end
  local advance -- (below)
  -- what the view still keeps. Whole-page jumps with the C rasters ("incremental"): the
  -- displays that draw over time add only what is new to pictures and sums they keep, and a
  -- jump starts the next window at or after the last frame, so once they took something the
  -- view lets it go - after each frame, and every CHUNK records between frames (absorb) -
  -- and memory stays bounded whatever the length of the run. Otherwise (smooth scrolling,
  -- jumps by part of a page, only some processors drawn, an application display) the
  -- displays draw their window from the view, which keeps it. The task Gantt chart draws
  -- its window from the task changes: kept for the window. (Kiviat without a smoothing
  -- window samples the view's history: nothing is let go then.)
  local absorbers = {}
  for _, d in ipairs(list) do if d.absorb then absorbers[#absorbers + 1] = d end end
  local function let_go(t)
    if ctx.smoothing == math.huge then return end
    model:keep(t, task_history and math.min(ctx.lo, t) or t)
  end
  local function draw_frame(t)
    ctx.lo, ctx.hi = scroll:update(t)
    if not incremental then
      local keep = math.min(ctx.lo, t - ctx.smoothing)
      model:keep(keep, keep)
    end
    local i = fw:frame(function(cv) frame:draw(cv, { x = 0, y = 0, w = W, h = H }) end)
    if incremental then let_go(t) end
    write_data(i, t)
    bar:update(math.floor(100 * (t - lo_t) / math.max(hi_t - lo_t, 1e-300)))
    return i
  end
  -- lay the frame out once before the replay runs: displays that draw over time
  -- get their C rasters (attached to the replay) at their plots' sizes
  ctx.lo, ctx.hi = scroll:update(lo_t)
  frame:draw(require("retrace.canvas").image(W, H), { x = 0, y = 0, w = W, h = H })
  ctx.started = true
  -- replay to time t, or to the --stop-at record if it comes first (then true: the run ends there)
  local stopped = false
  function advance(t)
    if not stop_rec then
      if not incremental then return rp:run_until(t) end
      while true do
        local ended, more = rp:run_until(t, CHUNK)
        if not more then return ended end
        for _, d in ipairs(absorbers) do d:absorb() end
        let_go(rp:now())
      end
    end
    while rp:records() < stop_rec do
      local nt = rp:next_time()
      if not nt then return true end
      if nt > t then return false end
      rp:step(1)
    end
    stopped = true
    return true
  end
  -- bring everything to time t (stepped: the replay already stands where it should)
  local function to_time(t, stepped)
    local lo, hi = ctx.lo, ctx.hi
    ctx.lo, ctx.hi = scroll:update(t)
    for _, tl in pairs(ctx.timelines or {}) do
      if ctx.lo ~= lo or ctx.hi ~= hi then tl:set_window(ctx.lo, ctx.hi) end
    end
    local ended = false
    if not stepped then ended = advance(t) end
    model:sync(rp, t)
    tracker:sync(t)
    for _, tl in pairs(ctx.timelines or {}) do tl:advance(math.min(t, ctx.hi)) end
    return ended
  end
  local nframes = 0
  -- records before the window replay without frames
  if from and from > t0 then
    rp:run_until(from)
    -- time in tasks before the window, so the statistics count only the part inside it
    if model.view then
      model.task_time_before = {}
      for p = 0, info.P - 1 do model.task_time_before[p] = model.view:proc_task_time(p, from) end
      model.task_ptime_before = {}
      for _, k in ipairs(model.view:tasks()) do model.task_ptime_before[k.id] = model.view:task_time(k.id, from) end
    end
  end
  local ended = false
  local t = lo_t
  if pace_kind == "time" then
    local dt = (pace_v or 0) * unit
    if dt <= 0 then dt = (hi_t - lo_t) / 100 end
    if dt <= 0 then dt = unit end
    -- a step that makes more frames than anyone renders is a mistake in the option
    local want = (hi_t - lo_t) / dt
    if want > MAX_FRAMES then
      cli.usage_error(string.format("--pace %s makes %.3g frames over the window %.9g .. %.9g s (at most %s); " ..
        "give a larger step", args.pace, want, lo_t, hi_t, cli.count(MAX_FRAMES)))
    end
    -- frame k at lo_t + k * dt (a product: no drift from repeated addition)
    local k = 0
    while not ended do
      k = k + 1
      t = math.min(lo_t + k * dt, hi_t)
      ended = to_time(t)
      if stopped then t, hi_t = rp:now(), rp:now() end
      if t >= hi_t then ended = true end
      display.update_all(list, model, t)
      if not ended then draw_frame(t); nframes = nframes + 1 end
    end
  else
    local nrec = math.tointeger(pace_v) or math.ceil(pace_v)
    while not ended do
      local done = 0
      while done < nrec do
        local nt = rp:next_time()
        if not nt or nt > hi_t or (stop_rec and rp:records() >= stop_rec) then ended = true break end
        -- the window jumps when the replay crosses its end, not at the next frame: the C rasters
        -- then count every state in the new window from its left edge (frames far apart included)
        if nt > ctx.hi then
          local lo, hi = ctx.lo, ctx.hi
          ctx.lo, ctx.hi = scroll:update(nt)
          if ctx.lo ~= lo or ctx.hi ~= hi then
            for _, tl in pairs(ctx.timelines or {}) do tl:set_window(ctx.lo, ctx.hi) end
          end
        end
        done = done + rp:step(1)
      end
      if stop_rec and rp:records() >= stop_rec then stopped, hi_t = true, rp:now() end
      t = ended and hi_t or math.max(t, rp:now())
      to_time(t, not ended)
      display.update_all(list, model, t)
      if not ended then draw_frame(t); nframes = nframes + 1 end
    end
  end
  -- the last frame: the end of the window, end-of-run displays (at a --stop-at: that moment,
  -- the displays as they stand there)
  if stopped then
    to_time(hi_t, true)
  else
    to_time(hi_t)
    if hi_t >= t1 and not stop_t then rp:run() end
  end
  model:finish(rp, hi_t)
  tracker:sync(hi_t)
  display.update_all(list, model, hi_t)
  if not (stopped or stop_t) then display.finish_all(list, model) end
  draw_frame(hi_t)
  nframes = nframes + 1
  local okf, res = pcall(fw.finish, fw, { html = args.html, mp4 = args.mp4 })
  if not okf then cli.input_error(tostring(res)) end
  for _, e in ipairs(res.errors) do io.stderr:write("retrace: ", e, "\n") end
  local summary = {
    trace = args.trace, format = info.format, processors = full.P, drawn = info.P, procs = cli.array(sel),
    span = info.span, records = info.records,
    messages = info.messages, max_pending = info.max_pending, max_pending_bytes = info.max_pending_bytes,
    max_queue = info.max_queue, max_queue_bytes = info.max_queue_bytes, unit = unit,
    scale_width = width, frames = nframes, window = { lo_t, hi_t },
    first = {}, last = {},
    options = { displays = ids, grid = { cols, rows }, size = { W, H }, order = order_kind, volume = volume,
                proc = ctx.proc, smoothing = ctx.smoothing, pace = args.pace, gray = args.gray or false,
                scroll = args.scroll or "jump", compstats = compstats },
    displays = {}, output = args.output, html = res.html, mp4 = res.mp4, pdf = res.pdf,
    -- calls into Lua the replay made (none: records reach Lua in batches) and events replayed
    lua_calls = rp:totals().lua_calls, events = model.view:info().events,
    -- the most state changes, messages, deltas and collectives the view held at once
    -- for the displays (bounded by the records between two frames with jump scrolling)
    view_kept = model.view:info().kept_peak,
    -- passes over the trace this run made (the pre-pass and the live pass)
    reads = replay.reads() - reads0,
    stopped_at = (stop_rec or stop_t) and { record = rp:records(), time = rp:now() } or nil,
  }
  for i, p in ipairs(info.procs) do summary.first[i], summary.last[i] = p.first, p.last end
  for k, id in ipairs(ids) do summary.displays[id] = clean(list[k]:data()) end
  if args.data then
    local ok, werr = fs.write_file(args.data .. "/summary.json", cli.json(summary))
    if not ok then cli.input_error(werr) end
    local st = summary.displays.stats and summary.displays.stats.stats
    if st then
      ok, werr = fs.write_file(args.data .. "/stats.json", cli.json(st))
      if ok then ok, werr = fs.write_file(args.data .. "/stats.csv", pgapp.stats_csv(st)) end
      if not ok then cli.input_error(werr) end
    end
    -- and the whole run as CSV (state intervals, messages, tasks, concurrency, matrix)
    local csv, cerr = require("retrace.pgscale").write_csv(args.trace, args.data, { info = info, format = args.format,
      view = model.view, rp = rp, t0 = lo_t, t1 = hi_t })
    if not csv then cli.input_error(cerr) end
  end
  if args.json then
    cli.print_json(summary)
  else
    io.write(string.format("%s: %s processors, %d frames of %d displays in %s%s%s%s\n", args.trace,
      info.P < full.P and string.format("%d of %d", info.P, full.P) or tostring(full.P), nframes, #ids, args.output, res.html and (", player " .. res.html) or "", res.pdf and (", " .. res.pdf) or "",
      res.mp4 and (", " .. res.mp4) or ""))
  end
  -- an output asked for and not made (the PDF on a full disk, the MP4 without ffmpeg),
  -- said above, fails the run as shmap and render do
  return #res.errors > 0 and cli.EXIT_INPUT or 0
end

return {
  parallel = true, -- --static, --timeline-html: each rank draws its processors' rows, rank 0 the picture; else rank 0 alone
  summary = "replay a message-passing trace as ParaGraph's animated displays (frames, PDF, MP4, HTML)",
  description = "Replay a message-passing trace (PICL, OTF2, Paraver, Paje) and draw ParaGraph's\n"
    .. "utilization, communication, task and other displays frame by frame, all at the same trace time, in\n"
    .. "titled panels. Displays: " .. table.concat(ALL, ", ") .. ".",
  groups = GROUPS, titles = TITLES, all = ALL,
  parser = function(p)
    p:argument("trace", "trace file (an OTF2 archive: its .otf2 anchor or its directory)")
    p:option("-o --output", "folder of the frames (with --static: the picture F.png, .pdf or .svg)")
    p:flag("--static", "one whole-window picture of the --display views gantt, spacetime (default both)")
    p:option("--zoom", "with --static / --timeline-html: the window T0:T1 in seconds (default the whole run)")
    p:option("--procs", "the processors drawn (pictures and animations), e.g. 0-63,128")
    p:flag("--all-threads", "also draw processors with no state record (Paraver "
      .. "threads carrying only events, idle the whole run), left out by default")
    p:flag("--mix", "with --static: a row's colour mixes the states by their time (default: the state that held most)")
    p:option("--timeline-html", "write a self-contained zoomable HTML timeline (Gantt and spacetime) to this file")
    p:option("--export", "export FORMAT FILE: chrome-json (Trace Event Format, for Perfetto / chrome://tracing)")
      :args(2):argname({ "<format>", "<file>" })
    p:option("--display", "displays, comma-separated")
    p:option("--group", "utilization | communication | task | other")
    p:option("--app", "an application display: a Lua file returning a display module that sees every record")
    p:flag("--all", "every display")
    p:option("--grid", "panels CxR (default: fitted to the size)")
    p:option("--size", "frame size WxH (default 1280x720)")
    p:flag("--html", "also write index.html, a player")
    p:option("--mp4", "also encode an MP4 (needs ffmpeg)")
    p:option("--pdf", "also write every frame as a PDF page")
    p:option("--pace", "a frame every time:T units or records:N records (default: 100 frames)")
    p:option("--unit", "time unit of --pace, --scale-width, --smoothing: s, ms, us, ns or seconds (default: by the span)")
    p:option("--scale-width", "width of the scrolling time window, in units (default: the pre-pass's width, "
      .. "about a quarter of the window)")
    p:option("--scroll", "smooth | jump[:J] (jump by J widths, default 1)")
    p:option("--stop-at", "stop the replay at record N (N or record:N, counted from 1 as in the file) or at "
      .. "time:T (seconds); the last frame shows that moment")
    p:option("--from", "start of the window (seconds; may be negative)")
    p:option("--to", "end of the window (seconds)")
    p:option("--order", "processor order of the displays that lay processors out: natural | gray (Gray code)")
    p:option("--smoothing", "Kiviat: busy fraction over the last S units (default: a twentieth of the width)")
    p:option("--volume", "count | bytes (traffic, queues, meter)")
    p:option("--proc", "processor for node statistics and one processor's incoming traffic")
    p:option("--node-stat", "node statistics by peer, tag, length or distance (Hamming, hops)")
      :choices({ "peer", "tag", "length", "distance" })
    p:option("--layout", "hypercube layout: cube, tesseract, polytope, mesh, ring, linear, tree, rings (ring of rings), "
      .. "web, lateral (lateral cubes), nested (nested cubes)")
    p:flag("--gray", "gray levels instead of colours")
    p:option("--data", "folder for frame_NNNNNN.json (each display's data), summary.json and the CSV files "
      .. "states, messages, tasks, concurrency, matrix")
    p:option("--format", "trace format (recognised by content by default)")
    p:flag("--no-compstats", "old-format PICL: communication calls bracketed by compstats records are not overhead")
    p:flag("--json", "print the summary as JSON on stdout")
  end,
  run = run,
}
