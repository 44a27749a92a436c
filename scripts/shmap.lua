-- retrace shmap TRACE: run a SHMAP trace on P PEs sharing C caches; report per
-- PE (loads, stores, flops), per cache (hits, misses, hit ratio), totals, steps.
local cli = require "retrace.cli"
local shmap = require "retrace.shmap"
local from_captures -- below
local shown_name = {} -- a trace made from a capture: the capture's folder, for titles
local M = { DEFAULT_FRAMES = 100 } -- frames of an animation when no pace is given

-- An integer option: nil when absent, usage error when not an integer.
local function int_opt(args, key, flag)
  local s = args[key]
  if s == nil then return nil end
  local v = math.tointeger(tonumber(s))
  if not v then cli.usage_error(("%s: '%s' is not an integer"):format(flag, s)) end
  return v
end

local function machine_of(args)
  local d = shmap.defaults
  local m = {
    pes = int_opt(args, "pes", "--pes") or d.pes,
    caches = int_opt(args, "caches", "--caches") or d.caches,
    cache_size = int_opt(args, "cache_size", "--cache-size") or d.cache_size,
    line = int_opt(args, "line", "--line") or d.line,
    ways = int_opt(args, "ways", "--ways") or d.ways,
    seed = int_opt(args, "seed", "--seed") or d.seed,
    policy = args.policy or d.policy,
    write_back = args.write_back or false,
    cache = not args.no_cache,
  }
  if m.pes < 1 or m.pes > 256 then
    cli.usage_error(("--pes: %d is outside 1..256"):format(m.pes))
  end
  if m.caches < 1 or m.caches > m.pes then
    cli.usage_error(("--caches: %d is outside 1..%d (the number of PEs)"):format(m.caches, m.pes))
  end
  local cache = require "retrace.cache"
  local ok, gerr = cache.check_geometry(m.cache_size, m.line, m.ways, "words")
  if not ok then
    -- the core names the field; the user typed the flag
    local field, what = gerr:match("^([^:]+): (.*)$")
    local flag = ({ ["cache size"] = "--cache-size", ["line size"] = "--line", ways = "--ways" })[field]
    cli.usage_error(flag and (flag .. ": " .. what) or gerr)
  end
  if args.write_back and args.no_cache then
    cli.usage_error("--write-back and --no-cache: choose one")
  end
  local pol = m.policy
  if pol:match("%.lua$") then
    local f = io.open(pol, "r")
    if not f then cli.usage_error(("--policy: cannot open '%s'"):format(pol)) end
    f:close()
  elseif not m.cache then
    m.policy = nil
  else
    local p, perr = cache.resolve_policy(pol)
    if not p then cli.usage_error("--policy: " .. perr) end
  end
  return m
end

-- The JSON document of the statistics (the caches list stays an array when empty).
local function json_of(stats)
  local pes, caches = {}, {}
  for i, p in ipairs(stats.pes) do
    pes[i] = { loads = p.loads, stores = p.stores, flops = p.flops, cache = p.cache,
               events = p.events, subroutine = p.subroutine, info = p.info }
  end
  for i, c in ipairs(stats.caches) do
    caches[i] = { hits = c.hits, misses = c.misses, hit_ratio = c.hit_ratio,
                  evictions = c.evictions, writebacks = c.writebacks }
  end
  return { pes = pes, caches = cli.array(caches), totals = stats.totals, steps = stats.steps,
           time = stats.time }
end

-- ---- animation: --frames, --state, --compare --------------------------------------

local function num_opt(args, key, flag)
  local s = args[key]
  if s == nil then return nil end
  local v = tonumber(s)
  if not v or v ~= v or v == math.huge or v == -math.huge then
    cli.usage_error(("%s: '%s' is not a number"):format(flag, s))
  end
  return v
end

-- The animation options, checked (usage errors exit 2).
local function anim_of(args)
  local a = {}
  a.every = int_opt(args, "every", "--every")
  if a.every and a.every < 1 then cli.usage_error(("--every: %d is not a positive number of steps"):format(a.every)) end
  a.every_time = num_opt(args, "every_time", "--every-time")
  if a.every_time and a.every_time <= 0 then
    cli.usage_error(("--every-time: %s is not a positive trace time"):format(args.every_time))
  end
  a.per_event = args.per_event or false
  local modes = (a.every and 1 or 0) + (a.every_time and 1 or 0) + (a.per_event and 1 or 0)
  if modes > 1 then cli.usage_error("--every, --every-time and --per-event: choose one") end
  a.fade = num_opt(args, "fade", "--fade")
  if a.fade and a.fade <= 0 then cli.usage_error(("--fade: %s is not a positive trace time"):format(args.fade)) end
  a.shades = int_opt(args, "shades", "--shades") or 4
  if a.shades < 0 or a.shades > 64 then cli.usage_error(("--shades: %d is outside 0..64"):format(a.shades)) end
  local frame = require "retrace.displays.shmap.frame"
  local panels, perr = frame.parse_panels(args.panels or "memory")
  if not panels then cli.usage_error("--panels: " .. perr) end
  a.panels = panels
  local size = args.size or "1280x720"
  local w, h = size:match("^(%d+)x(%d+)$")
  w, h = math.tointeger(tonumber(w)), math.tointeger(tonumber(h))
  if not w or w < 64 or h < 64 or w > 8192 or h > 8192 then
    cli.usage_error(("--size: '%s' is not WIDTHxHEIGHT with sides of 64 to 8192 pixels"):format(size))
  end
  a.width, a.height = w, h
  a.from = int_opt(args, "from", "--from") or 0
  a.to = int_opt(args, "to", "--to")
  if a.from < 0 then cli.usage_error(("--from: %d is negative"):format(a.from)) end
  if a.to and a.to < a.from then cli.usage_error(("--to: %d is before --from %d"):format(a.to, a.from)) end
  a.fps = num_opt(args, "fps", "--fps") or 10
  if a.fps <= 0 then cli.usage_error("--fps: must be positive") end
  a.scroll = args.scroll or "jump"
  if a.scroll ~= "jump" and a.scroll ~= "smooth" then cli.usage_error("--scroll: jump or smooth") end
  a.window = num_opt(args, "window", "--window")
  if a.window and a.window <= 0 then cli.usage_error("--window: must be a positive trace time") end
  if args.state then
    local st = args.state[1] == "last" and "last" or math.tointeger(tonumber(args.state[1]))
    if not st or (st ~= "last" and st < 0) then
      cli.usage_error(("--state: step '%s' is neither a whole number nor 'last'"):format(args.state[1]))
    end
    a.state_step, a.state_file = st, args.state[2]
  end
  return a
end

-- A fade period that suits the trace when none is given: 1/50 of its time span.
local function default_fade(info)
  local span = info.time_last - math.min(info.time_first, info.time_last)
  return span > 0 and span / 50 or 1
end

local function new_sim(path, m, args, trace)
  if not trace then
    local err
    trace, err = shmap.open(path)
    if not trace then cli.input_error(err) end
  end
  local opts = { trace = trace }
  for k, v in pairs(m) do opts[k] = v end
  opts.max_elements = math.tointeger(tonumber(args.max_elements))
  if not opts.max_elements or opts.max_elements < 1 then
    cli.usage_error(("--max-elements: '%s' is not a positive integer"):format(args.max_elements))
  end
  local sim, serr = shmap.sim(opts)
  if not sim then cli.input_error(serr) end
  return sim, trace
end

-- Step the simulation, turning a failure mid-run into an input error.
local function advance(sim, how, n)
  local ok, done, finished = pcall(how == "events" and sim.step_events or sim.step, sim, n)
  if not ok then cli.input_error(tostring(done)) end
  return done, finished
end

-- Empty lists of the state document stay JSON arrays.
local function state_json(st)
  st.active = cli.array(st.active)
  for _, m in ipairs(st.matrices) do
    for _, k in ipairs({ "loads", "stores" }) do
      if m[k] then for _, row in ipairs(m[k]) do cli.array(row) end end
    end
  end
  for _, r in ipairs(st.refs) do cli.array(r) end
  st.refs, st.caches, st.matrices = cli.array(st.refs), cli.array(st.caches), cli.array(st.matrices)
  st.layout.regions = st.layout.regions and cli.array(st.layout.regions)
  return st
end

-- --state STEP FILE: the view state at that step (or after the last: "last") as JSON.
local function write_state(path, m, args, a)
  local sim, trace = new_sim(path, m, args)
  local info = trace:info()
  local view, verr = shmap.view(sim, { shades = a.shades, fade = a.fade or default_fade(info),
                                       memory = { max_cells = 1 << 20 },
                                       cache = m.cache, active = { keep = 1 }, refs = { len = 256 } })
  if not view then cli.input_error(path .. ": " .. verr) end
  local done, last = 0, a.state_step == "last"
  local target = last and math.maxinteger or a.state_step
  while done < target do
    local n, finished = advance(sim, "steps", math.min(100000, target - done))
    done = done + n
    if finished and last then break end
    if finished and done < target then
      cli.input_error(("%s: --state: step %d is past the end of the trace (the last step is %d)")
        :format(path, a.state_step, done))
    end
  end
  local st = view:state(trace:matrices(), m.cache and m.cache_size or nil)
  local ok, werr = require("retrace.fs").write_file(a.state_file, cli.json(state_json(st)) .. "\n")
  if not ok then cli.input_error("--state: cannot write " .. werr) end
  view:close()
  sim:close()
end

-- --frames DIR (and --compare): the animation.
local function animate(paths, m, args, a)
  local frame = require "retrace.displays.shmap.frame"
  local frames = require "retrace.frames"
  local runs, total_events = {}, 0
  local n = #paths
  local title_h = n > 1 and 18 or 0
  for i, path in ipairs(paths) do
    local sim, trace = new_sim(path, m, args)
    local info = trace:info()
    total_events = total_events + info.events
    local x0 = math.floor((i - 1) * a.width / n)
    local rect = { x = x0, y = title_h, w = math.floor(i * a.width / n) - x0, h = a.height - title_h }
    local f, ferr = frame.new(sim, trace, {
      panels = a.panels, rect = rect, shades = a.shades, fade = a.fade or default_fade(info), gray = args.gray,
      per_event = a.per_event, window = a.window, scroll = a.scroll, machine = m })
    if not f then cli.input_error(path .. ": " .. ferr) end
    runs[i] = { path = path, sim = sim, trace = trace, frame = f, rect = rect, finished = false,
                next_time = nil, events = 0 }
  end
  -- no pace asked for: about DEFAULT_FRAMES frames over the steps shown (a dry run of
  -- each simulation counts its steps; a run of fewer steps gets a frame per step)
  if not (a.every or a.every_time or a.per_event) then
    local steps = 0
    for _, path in ipairs(paths) do
      local dry = new_sim(path, m, args)
      dry:run()
      steps = math.max(steps, dry:stats().steps)
    end
    local shown = math.min(steps, a.to or steps) - a.from + 1
    a.every = math.max(1, math.floor(shown / M.DEFAULT_FRAMES + 0.5))
  end
  local ok, fw, werr = pcall(frames.writer, args.frames, {
    width = a.width, height = a.height, fps = a.fps, pdf = args.pdf, background = "white",
    title = "retrace shmap " .. table.concat(paths, " ") })
  if not ok then cli.input_error(tostring(fw)) end
  if not fw then cli.input_error(werr) end
  local bar = cli.progress("animating", total_events)
  local function draw(cv)
    for _, r in ipairs(runs) do
      if n > 1 then
        cv:text(r.rect.x + 8, 2, (shown_name[r.path] or r.path):match("([^/]+)/?$"),
          { valign = "top", size = 13, bold = true })
      end
      r.frame:draw(cv)
    end
  end
  -- Advance one run by a frame's worth; returns whether it moved.
  local function step_run(r)
    if r.finished then return false end
    local done, finished, moved = 0, false, false
    if a.per_event then
      done, finished = advance(r.sim, "events", 1)
      moved = done > 0
    elseif a.every_time then
      -- frame k at origin + k * every: by multiplication, so a tiny period neither
      -- drifts nor loops once per period over a long gap (a step can jump far)
      r.origin = r.origin or math.min(r.trace:info().time_first, 0)
      r.next_time = r.next_time or (r.origin + a.every_time)
      repeat
        done, finished = advance(r.sim, "steps", 1)
        moved = moved or done > 0
      until finished or r.frame.view:info().time >= r.next_time
      local t = r.frame.view:info().time
      if r.next_time <= t then
        local k = math.floor((t - r.origin) / a.every_time) + 1
        r.next_time = r.origin + k * a.every_time
        -- a period below the resolution of t: the next step that moves the time
        if r.next_time <= t then r.next_time = t + math.max(a.every_time, math.abs(t) * 2 ^ -51) end
      end
    else
      done, finished = advance(r.sim, "steps", a.every or 1)
      moved = done > 0
    end
    r.finished = finished
    return moved
  end
  while true do
    local moved, step = false, 0
    for _, r in ipairs(runs) do
      moved = step_run(r) or moved
      step = math.max(step, r.frame.view:info().step)
    end
    if not moved then break end
    local events = 0
    for _, r in ipairs(runs) do
      for _, p in ipairs(r.sim:stats().pes) do events = events + p.events end
    end
    bar:update(events)
    if a.to and step > a.to then break end
    if step >= a.from then
      for _, r in ipairs(runs) do r.frame:update() end
      local okf, ferr = pcall(fw.frame, fw, draw)
      if not okf then cli.input_error(tostring(ferr)) end
    end
    for _, r in ipairs(runs) do r.frame.view:new_frame() end
  end
  bar:finish()
  local okf, result = pcall(fw.finish, fw, { html = args.html, mp4 = args.mp4 })
  if not okf then cli.input_error(tostring(result)) end
  io.stdout:write(string.format("%d frames (%d x %d) in %s/", result.frames, a.width, a.height, result.dir))
  if result.pdf then io.stdout:write(", PDF ", result.pdf) end
  if result.html then io.stdout:write(", player ", result.html) end
  if result.mp4 then io.stdout:write(", MP4 ", result.mp4) end
  io.stdout:write("\n")
  for _, r in ipairs(runs) do
    r.frame.view:close()
    r.sim:close()
  end
  if #result.errors > 0 then cli.input_error(table.concat(result.errors, "; ")) end
end

-- --from-capture: each capture folder of args.trace becomes a SHMAP trace (a
-- temporary, or --trace-out); returns the traces and the temporaries to remove.
from_captures = function(args)
  local sc = require "retrace.shmap_capture"
  local shapes, serr = sc.parse_shapes(args.shape)
  if not shapes then cli.usage_error("--shape: " .. serr) end
  local minel = math.tointeger(tonumber(args.min_elements))
  if not minel or minel < 1 then cli.usage_error(("--min-elements: '%s' is not a positive integer"):format(args.min_elements)) end
  if args.trace_out and #args.trace > 1 then cli.usage_error("--trace-out: one capture only") end
  local paths, made = {}, {}
  for i, dir in ipairs(args.trace) do
    local out = args.trace_out or os.tmpname()
    if not args.trace_out then made[#made + 1] = out end
    local res, err = sc.from_capture(dir, { out = out, shapes = shapes, min_elements = minel })
    if not res then
      for _, t in ipairs(made) do os.remove(t) end
      cli.input_error(err)
    end
    for _, n in ipairs(res.notes) do io.stderr:write("note: ", n, "\n") end
    paths[i] = out
    shown_name[out] = dir
  end
  return paths, made
end

return {
  summary = "simulate a SHMAP trace on P PEs and C caches; statistics, or an animation (--frames)",
  parser = function(p)
    p:argument("trace", "SHMAP trace file (several with --compare)"):args("+")
    p:option("--pes", "number of PEs, 1..256", tostring(shmap.defaults.pes))
    p:option("--caches", "number of caches, 1..PES (PE p uses cache floor(p*C/P))",
      tostring(shmap.defaults.caches))
    p:option("--cache-size", "cache size in words (power of two)", tostring(shmap.defaults.cache_size))
    p:option("--line", "line size in words (power of two, at most the cache size)",
      tostring(shmap.defaults.line))
    p:option("--ways", "associativity (default: fully associative)")
    p:option("--policy", "lru|lfu|fifo|lifo|clock|random, a shipped Lua policy (mru, plru) or FILE.lua",
      shmap.defaults.policy)
    p:option("--seed", "seed of the random policy", tostring(shmap.defaults.seed))
    p:flag("--write-back", "write-back-write-allocate (default: write-through-no-write-allocate)")
    p:flag("--no-cache", "no caches: count loads and stores only")
    p:option("--max-elements", "most distinct matrix elements counted (memory: 16 bytes each); "
      .. "a trace touching more is refused", tostring(shmap.defaults.max_elements))
    p:flag("--json", "print JSON on stdout")
    p:option("--paje", "also write the run as a Pajé trace for `retrace view` and `retrace stats`: "
      .. "a container per PE, one second per step"):argname("OUT")
    p:option("--frames", "animate into numbered PNGs in this folder")
    p:option("--every", "steps per frame (default: about " .. M.DEFAULT_FRAMES .. " frames over the steps shown)")
    p:flag("--per-event", "one frame per event (one PE's event)")
    p:option("--every-time", "a frame each time the step time passes a multiple of this trace time")
    p:option("--fade", "fade period in trace time (default: 1/50 of the trace's span)")
    p:option("--shades", "shades from full colour to black, 0..64", "4")
    p:option("--panels", "memory,cache,active,refs,timeline,stats,legend or all", "memory")
    p:option("--size", "frame size WIDTHxHEIGHT", "1280x720")
    p:option("--from", "first step drawn")
    p:option("--to", "last step drawn")
    p:option("--fps", "frames per second of the player and the MP4", "10")
    p:option("--window", "width of the active-PE graph's window in trace time (default: a quarter of the span)")
    p:option("--scroll", "active-PE graph scrolling: jump or smooth", "jump")
    p:flag("--html", "write an HTML player beside the frames")
    p:option("--mp4", "also encode the frames into this MP4 (ffmpeg)")
    p:option("--pdf", "also draw every frame as a page of this PDF")
    p:flag("--gray", "gray levels instead of colours")
    p:option("--state", "write the view state at step STEP (or 'last': after the last step) to FILE as JSON"):args(2):argname({ "STEP", "FILE" })
    p:flag("--compare", "several traces side by side, one step of each per frame")
    p:option("--blas", "run the program given after -- and record its CBLAS calls into this SHMAP trace")
    p:flag("--from-capture", "the arguments are `retrace capture` folders: animate their data bins as matrices")
    p:option("--shape", "with --from-capture: a bin's shape, NAME=ROWSxCOLS[,col]"):count("*")
    p:option("--trace-out", "with --from-capture: keep the SHMAP trace made from the capture here")
    p:option("--min-elements", "with --from-capture: smaller bins are left out", "4")
  end,
  run = function(args)
    if args.blas then
      for _, k in ipairs({ "frames", "state", "compare", "from_capture", "json", "paje" }) do
        if args[k] then
          cli.usage_error(("--blas records the trace only: run retrace shmap %s again with --%s"):format(args.blas,
            k:gsub("_", "-")))
        end
      end
      local sc = require "retrace.shmap_capture"
      local res, err, code = sc.run_blas { argv = args.trace, out = args.blas }
      if not res then
        io.stderr:write("retrace: shmap --blas: ", err, "\n")
        return code
      end
      io.stdout:write(string.format("%s: the CBLAS calls of %s (exit status %d)\n", args.blas, args.trace[1],
        res.exit_code))
      return res.exit_code == 0 and 0 or 1
    end
    local m = machine_of(args)
    local paths = args.trace
    local made = {}
    if args.from_capture then
      paths, made = from_captures(args)
    elseif #args.shape > 0 or args.trace_out then
      cli.usage_error("--shape and --trace-out: only with --from-capture")
    end
    if #paths > 1 and not args.compare then
      cli.usage_error("several traces: add --compare (and --frames) to animate them side by side")
    end
    if args.compare and not args.frames then cli.usage_error("--compare needs --frames DIR") end
    local animating = args.frames or args.state
    if not animating then
      for _, k in ipairs({ "every", "per_event", "every_time", "fade", "html", "mp4", "pdf", "gray", "from", "to" }) do
        if args[k] then
          cli.usage_error(("--%s: only with --frames or --state"):format(k:gsub("_", "-")))
        end
      end
    end
    if animating and args.paje then cli.usage_error("--paje: a run of its own, without --frames or --state") end
    if animating then
      local a = anim_of(args)
      if a.state_step then write_state(paths[1], m, args, a) end
      if args.frames then animate(paths, m, args, a) end
      for _, t in ipairs(made) do os.remove(t) end
      return 0
    end
    local trace, err = shmap.open(paths[1])
    if not trace then cli.input_error(err) end
    local opts = { trace = trace }
    for k, v in pairs(m) do opts[k] = v end
    opts.max_elements = math.tointeger(tonumber(args.max_elements))
    if not opts.max_elements or opts.max_elements < 1 then
      cli.usage_error(("--max-elements: '%s' is not a positive integer"):format(args.max_elements))
    end
    local sim, serr = shmap.sim(opts)
    if not sim then cli.input_error(serr) end
    local info = trace:info()
    if args.paje then
      -- the whole run is simulated while it is written (a failure: the input's, exit 1)
      local ok, done, werr = pcall(sim.write_paje, sim, args.paje)
      if not ok or not done then cli.input_error(tostring(ok and werr or done)) end
    end
    local bar = cli.progress("simulating", info.events)
    repeat
      -- a failure mid-run (a Lua policy's error) is the input's: exit 1
      local ok, steps_or_err, finished = pcall(sim.step, sim, 100000)
      if not ok then cli.input_error(tostring(steps_or_err)) end
      local events = 0
      for _, p in ipairs(sim:stats().pes) do events = events + p.events end
      bar:update(events)
    until finished
    bar:finish()
    local stats = sim:stats()
    if args.json then
      cli.print_json(json_of(stats))
    else
      io.stdout:write(shmap.report(stats, m, info))
    end
    sim:close()
    trace:close()
    for _, t in ipairs(made) do os.remove(t) end
    return 0
  end,
}
