--- retrace.pgscale: ParaGraph views of whole runs at scale, and exports.
--
--   local pgscale = require "retrace.pgscale"
--   pgscale.parse_procs("0-63,128", P) -> {0, 1, ..., 63, 128} | nil, message
--   pgscale.parse_zoom("0.5:2") -> 0.5, 2 | nil, message
--   pgscale.raster(path, info, {cols =, rows =, t0 =, t1 =, sel =, max_lines =, levels =, format =, mix =})
--     -> r | nil, message: a replay run in C into a state raster of rows x cols
--        (several processors per row when they outnumber the rows) and the
--        messages between the chosen processors, one by one up to max_lines
--        (default 10^4), else as per-pixel density levels. r.sel = the processor
--        ids drawn (position -> id), r:cell(c, r) -> dominant state name or nil,
--        r:row_procs(row) -> {ids}. Memory does not grow with the trace.
--
-- info is retrace.paragraph.prescan's result (its processors' event counts make
-- a processor idle from its own last record on).
local core = require "retrace.core"

local fs = require "retrace.fs"
local M = {}

-- An error of the replay, as the message a caller reports; Ctrl-C is raised again,
-- so the command ends as interrupted (exit 130) and the output's temporary goes.
local function pass_error(err)
  if require("retrace").interrupted(err) then error(err, 0) end
  return tostring(err)
end

local STATE = { [0] = "idle", [1] = "overhead", [2] = "busy" }

--- "0-63,128" -> sorted distinct processor ids; nil, message on a bad list or an id >= P.
function M.parse_procs(s, P)
  local seen, out = {}, {}
  for part in tostring(s):gmatch("[^,]+") do
    local a, b = part:match("^%s*(%d+)%s*%-%s*(%d+)%s*$")
    if not a then a = part:match("^%s*(%d+)%s*$"); b = a end
    a, b = tonumber(a), tonumber(b)
    if not a then return nil, "'" .. part .. "': use ids and ranges, e.g. 0-63,128" end
    if a > b then return nil, "'" .. part .. "': the range runs backwards" end
    if b >= P then
      return nil, string.format("'%s': the trace has processors 0..%d", part, P - 1)
    end
    for p = math.tointeger(a), math.tointeger(b) do
      if not seen[p] then seen[p] = true; out[#out + 1] = p end
    end
  end
  if #out == 0 then return nil, "no processors chosen" end
  table.sort(out)
  return out
end

--- The processors a ParaGraph picture shows, the one rule of --procs and
-- --all-threads for the whole-run pictures and the animation: the ids listed by
-- opts.procs ("0-63,128"), else every processor but those with no state record
-- (info.stateless: idle the whole run, a Paraver thread that carries only events)
-- when opts.skip_stateless and not opts.all_threads; all of them when none has a
-- state record. Returns the ids (ascending) and a note saying what was left out (nil
-- when nothing was), or nil and a message about opts.procs.
function M.select_procs(info, opts)
  if opts.procs then
    local sel, e = M.parse_procs(opts.procs, info.P)
    if not sel then return nil, "--procs " .. e end
    return sel
  end
  local skip = {}
  if opts.skip_stateless and not opts.all_threads then
    for _, p in ipairs(info.stateless or {}) do skip[p] = true end
  end
  local sel = {}
  for p = 0, info.P - 1 do
    if not skip[p] then sel[#sel + 1] = p end
  end
  local left = info.P - #sel
  if left == 0 then return sel end
  if #sel == 0 then -- none has a state record: all drawn
    for p = 0, info.P - 1 do sel[p + 1] = p end
    return sel
  end
  return sel, string.format("%s: %d processor%s with no state record (idle the whole run) left out; "
    .. "--all-threads keeps them", opts.trace or "trace", left, left == 1 and "" or "s")
end

--- "T0:T1" -> T0, T1 (seconds, T0 < T1).
function M.parse_zoom(s)
  local a, b = tostring(s):match("^%s*([^:]+):([^:]+)%s*$")
  a, b = tonumber(a), tonumber(b)
  if not a or not b then return nil, "'" .. tostring(s) .. "': use T0:T1 in seconds" end
  if a >= b then return nil, "'" .. tostring(s) .. "': T0 must be before T1" end
  return a, b
end

local R = {}
R.__index = R

--- The dominant state of cell (c, row) (0-based, row 0 = the first chosen processors), or nil;
-- with opts.mix = q: busy, overhead and idle shares in q-ths.
function R:cell(c, row)
  local v = string.unpack("i4", self.state, 1 + 4 * (row * self.cols + c))
  if self.mix then
    if v < 0 then return nil end
    local q = self.mix
    local nb, no = v // (q + 1), v % (q + 1)
    return nb, no, q - nb - no
  end
  return STATE[v]
end

--- The processor ids of a row (0-based).
function R:row_procs(row)
  local out = {}
  local first, n = self.row_first[row + 1], self.row_count[row + 1]
  for i = first, first + n - 1 do out[#out + 1] = self.sel[i + 1] end
  return out
end

--- Lines kept one by one: {{src =, dst =, send =, recv =}, ...} (src / dst processor ids), or nil.
function R:line_list()
  if not self.lines then return nil end
  local out = {}
  for i = 0, #self.lines // 32 - 1 do
    local a, b, s, r = string.unpack("dddd", self.lines, 1 + 32 * i)
    out[#out + 1] = { src = self.sel[math.tointeger(a) + 1], dst = self.sel[math.tointeger(b) + 1],
                      src_pos = math.tointeger(a), dst_pos = math.tointeger(b), send = s, recv = r }
  end
  return out
end

-- The options of core.paragraph's rasters from raster()'s opts.
local function raster_opts(info, opts)
  return { cols = opts.cols, rows = opts.rows, procs = math.max(info.P, 1), t0 = opts.t0, t1 = opts.t1,
           sel = opts.sel, max_lines = opts.max_lines or 10000, levels = opts.levels or 8,
           times = opts.times, mix = opts.mix }
end

local function raster_of(r, info, opts)
  local sel = opts.sel
  if not sel then
    sel = {}
    for p = 0, info.P - 1 do sel[p + 1] = p end
  end
  r.sel = sel
  r.t0, r.t1, r.mix = opts.t0, opts.t1, opts.mix
  return setmetatable(r, R)
end

--- One replay of the trace feeding every whole-run output at once (so the trace is read
-- once, whatever is asked): wants = {format =, rasters = {[key] = raster()'s opts, ...},
-- chrome = {file =, markers =} (chrome_json's)}. Returns {rasters = {[key] = r}, chrome =
-- counts} | nil, message. The replay and the outputs run in C: no Lua call per record.
function M.pass(path, info, wants)
  local replay = require "retrace.replay"
  local x, err
  if wants.chrome then
    local ok0, inerr = fs.not_an_input(wants.chrome.file, { path })
    if not ok0 then return nil, inerr end
    x, err = core.paragraph.chrome(wants.chrome.file, info and info.span[1] or 0)
    if not x then return nil, err end
  end
  local _ <close> = x -- a pass that ends early (an error, Ctrl-C) leaves no export behind
  local rp
  rp, err = replay.open(path, { format = wants.format, prescan = info and info.ps or nil })
  if not rp then return nil, err end
  local dens = {}
  for k, o in pairs(wants.rasters or {}) do
    local d, derr = core.paragraph.density(raster_opts(info, o))
    if not d then return nil, derr end
    dens[k] = d:attach(rp)
  end
  if x then x:attach(rp) end
  local ok, rerr = pcall(rp.run, rp)
  if not ok then return nil, pass_error(rerr) end
  local out = { rasters = {} }
  for k, d in pairs(dens) do out.rasters[k] = raster_of(d:result(), info, wants.rasters[k]) end
  if x then
    local _, t1 = rp:span()
    x:close(t1)
    local json = require "retrace.json"
    for _, m in ipairs(wants.chrome.markers or {}) do
      x:marker(m.proc, m.time, tostring(m.name), json.encode(m.args or {}))
    end
    local n, ferr = x:finish(rp)
    if not n then return nil, ferr end
    out.chrome = n
  end
  return out
end

function M.raster(path, info, opts)
  if not (opts.split and require("retrace.par").size() > 1) then
    local res, err = M.pass(path, info, { format = opts.format, rasters = { opts } })
    if not res then return nil, err end
    return res.rasters[1]
  end
  -- under mpirun, each rank its own processors' part (rank 0's r is the whole picture)
  local events
  if info.ps and info.ps.procs then
    events = {}
    for i, p in ipairs(info.ps.procs) do events[i] = p.events end
  end
  local ro = raster_opts(info, opts)
  ro.format, ro.events, ro.split = opts.format, events, true
  local r, err = core.paragraph.static_raster(path, ro)
  if not r then return nil, err end
  return raster_of(r, info, opts)
end


--- Per processor, its state segments from on_state changes: emit(p, state, from, to)
-- once per maximal segment of one state (zero-length changes in between merged),
-- first(p) when a processor is first seen. A processor is idle from t0 until its
-- first change. Returns {touch = fn(p), change = fn(p, t, old, new), finish = fn(t1)}.
function M.state_tracker(t0, emit, first)
  local cur, buf = {}, {}
  local function flush(p)
    local b = buf[p]
    if b then emit(p, b[1], b[2], b[3]); buf[p] = nil end
  end
  local function close(p, st, from, to)
    if to <= from then return end
    local b = buf[p]
    if b and b[1] == st and b[3] == from then b[3] = to return end
    flush(p)
    buf[p] = { st, from, to }
  end
  local tr = {}
  function tr.touch(p)
    local c = cur[p]
    if not c then
      c = { "idle", t0 }
      cur[p] = c
      if first then first(p) end
    end
    return c
  end
  function tr.change(p, t, _, new)
    local c = tr.touch(p)
    close(p, c[1], c[2], t)
    c[1], c[2] = new, t
  end
  function tr.finish(t1)
    local ps = {}
    for p in pairs(cur) do ps[#ps + 1] = p end
    table.sort(ps)
    for _, p in ipairs(ps) do
      local c = cur[p]
      close(p, c[1], c[2], math.max(t1 or c[2], c[2]))
      flush(p)
    end
  end
  return tr
end

--- Write the trace in the Trace Event Format (Perfetto, chrome://tracing) to
-- file: one process per processor (pid = processor + 1, named by the trace's
-- definitions), with its own tracks (threads): "states" (busy / overhead /
-- idle as complete events "X", one per maximal segment), "regions" (the user
-- regions, properly nested: every region that closed after all the regions
-- opened inside it), and, when the trace has regions that do not nest (a
-- region closed while regions opened inside it were open, rt_replay.h's rule),
-- "regions, not nested N" tracks holding those, each track kept nested (a region
-- goes to the first such track where it nests). Each message is a flow from its
-- send ("s", on the sender's states track) to its receive ("f"). Times in
-- microseconds of trace time, from whole nanoseconds.
-- Streams: one state segment per processor, and the not-nested regions only, are kept.
-- opts: format, info (the pre-pass: a processor idle from its own last record),
-- markers ({{proc =, time =, name =, args = {...}}, ...}: instant events "i" on the
-- processor's states track, e.g. the cluster of each computation burst).
-- Returns {complete =, states =, user =, unnested =, flow =, threads =, markers =} | nil, message.
function M.chrome_json(path, file, opts)
  opts = opts or {}
  local res, err = M.pass(path, opts.info, { format = opts.format, chrome = { file = file, markers = opts.markers } })
  if not res then return nil, err end
  return res.chrome
end

local function num(v) return string.format("%.17g", v) end

-- tasks.csv: each task's first start, last end (t1 while open), percent of [t0, t1], count
local function write_tasks(open, rp, t0, t1)
  local ft, err = open("tasks.csv", "task,start,end,percent,count")
  if not ft then return nil, err end
  for _, k in ipairs(rp:tasks()) do -- clipped to [t0, t1] (a live pass's window)
    local open_ = (k.active or 0) > 0 or not k.last_end -- still running at t1
    local start, stop = math.max(k.first_start, t0), open_ and t1 or math.min(k.last_end, t1)
    ft:write(k.task, ",", num(start), ",", num(stop), ",",
      num(t1 > t0 and 100 * (stop - start) / (t1 - t0) or 0), ",", k.count, "\n")
  end
  return true
end

--- CSV files of a whole run in folder dir (numbers written so they read back
-- exactly; times in seconds):
--   states.csv       proc,state,start,end         every maximal state segment
--   messages.csv     src,dst,tag,bytes,send,recv  every message, at its receive
--   tasks.csv        task,start,end,percent,count first start, last end, % of the span
--   concurrency.csv  processors,busy,overhead,idle  seconds with exactly k processors in each state
--   matrix.csv       src,dst,count,bytes          the cumulative sender x receiver matrix (non-zero cells)
-- One replay, streamed (state segments and messages go to disk as they come).
-- opts: format, info (the pre-pass), view (retrace.core.pgview of the live pass, synced
-- to the end: the matrix and the concurrency profile come from it, over its window),
-- rp (that live pass, which wrote states.csv and messages.csv in C as it ran:
-- rp:write_csv(dir, P, t0) before it ran; no replay of its own then).
-- Returns {files = {...}, states =, messages =} | nil, message.
function M.write_csv(path, dir, opts)
  local replay = require "retrace.replay"
  local info = opts.info
  local P = info.P
  local files, fh = {}, {}
  -- each CSV written whole (fs.create); all are committed at the end, or none
  local function open(name, header)
    local f, err = fs.create(dir .. "/" .. name)
    if not f then return nil, err end
    f:write(header, "\n")
    fh[#fh + 1] = f
    files[#files + 1] = dir .. "/" .. name
    return f
  end
  local function close_all() for _, f in ipairs(fh) do f:abort() end end
  local function commit_all()
    for _, f in ipairs(fh) do
      local ok, err = f:commit()
      if not ok then close_all() return nil, err end
    end
    return true
  end
  local t0 = info.span[1]
  if opts.rp then return M.finish_csv(dir, opts, open, close_all, commit_all, files) end
  local fs_, e1 = open("states.csv", "proc,state,start,end")
  local fm, e2 = fs_ and open("messages.csv", "src,dst,tag,bytes,send,recv")
  if not fs_ or not fm then close_all() return nil, e1 or e2 end
  local nstates, nmsg = 0, 0
  local track = M.state_tracker(t0, function(p, st, from, to)
    fs_:write(p, ",", st, ",", num(from), ",", num(to), "\n")
    nstates = nstates + 1
  end)
  -- concurrency: how many processors are in each state, and for how long
  local count = { busy = 0, overhead = 0, idle = P }
  local prof = { busy = {}, overhead = {}, idle = {} }
  local last = t0
  local function account(t)
    if t > last then
      for st, k in pairs(count) do prof[st][k] = (prof[st][k] or 0) + (t - last) end
      last = t
    end
  end
  for p = 0, P - 1 do track.touch(p) end
  local rp, err = replay.open(path, {
    format = opts.format, prescan = info.ps, matrix = not opts.view,
    on_state = function(p, t, old, new)
      track.change(p, t, old, new)
      account(t)
      count[old] = count[old] - 1
      count[new] = count[new] + 1
    end,
    on_message = function(m)
      fm:write(m.src, ",", m.dst, ",", m.tag or 0, ",", num(m.bytes), ",", num(m.send_time), ",",
        num(m.recv_time), "\n")
      nmsg = nmsg + 1
    end,
  })
  if not rp then close_all() return nil, err end
  local ok, rerr = pcall(rp.run, rp)
  if not ok then close_all() return nil, pass_error(rerr) end
  local t1 = info.span[2]
  account(t1)
  track.finish(t1)
  local tok, e3 = write_tasks(open, rp, t0, t1)
  if not tok then close_all() return nil, e3 end
  local fc, e4 = open("concurrency.csv", "processors,busy,overhead,idle")
  if not fc then close_all() return nil, e4 end
  if opts.view then -- states 0 idle, 1 overhead, 2 busy
    local vp = opts.view:profile()
    prof = { busy = {}, overhead = {}, idle = {} }
    for k = 0, P do prof.idle[k], prof.overhead[k], prof.busy[k] = vp[0][k + 1], vp[1][k + 1], vp[2][k + 1] end
  end
  for k = 0, P do
    fc:write(k, ",", num(prof.busy[k] or 0), ",", num(prof.overhead[k] or 0), ",", num(prof.idle[k] or 0), "\n")
  end
  local fx, e5 = open("matrix.csv", "src,dst,count,bytes")
  if not fx then close_all() return nil, e5 end
  if opts.view then -- sparse: the pairs used, by sender then receiver
    for _, q in ipairs(opts.view:matrix()) do
      fx:write(q.src, ",", q.dst, ",", q.count, ",", num(q.bytes), "\n")
    end
    local cok, cerr = commit_all()
    if not cok then return nil, cerr end
    return { files = files, states = nstates, messages = nmsg }
  end
  local m = rp:matrix("cumulative")
  for a = 1, #m.count do
    for b = 1, #m.count[a] do
      if m.count[a][b] ~= 0 then fx:write(a - 1, ",", b - 1, ",", m.count[a][b], ",", num(m.bytes[a][b]), "\n") end
    end
  end
  local cok, cerr = commit_all()
  if not cok then return nil, cerr end
  return { files = files, states = nstates, messages = nmsg }
end

-- The CSV files of a live pass (opts.rp, opts.view) that ran to the end of its window:
-- its states and messages committed, tasks, concurrency and matrix from it.
function M.finish_csv(dir, opts, open, close_all, commit_all, files)
  local info, rp, view = opts.info, opts.rp, opts.view
  local t0, t1 = opts.t0 or info.span[1], opts.t1 or info.span[2]
  local res, err = rp:commit_csv(t1)
  if not res then return nil, err end
  table.insert(files, 1, dir .. "/messages.csv")
  table.insert(files, 1, dir .. "/states.csv")
  local tok, e3 = write_tasks(open, rp, t0, t1)
  if not tok then close_all() return nil, e3 end
  local fc, e4 = open("concurrency.csv", "processors,busy,overhead,idle")
  if not fc then close_all() return nil, e4 end
  local vp = view:profile() -- states 0 idle, 1 overhead, 2 busy
  for k = 0, info.P do
    fc:write(k, ",", num(vp[2][k + 1] or 0), ",", num(vp[1][k + 1] or 0), ",", num(vp[0][k + 1] or 0), "\n")
  end
  local fx, e5 = open("matrix.csv", "src,dst,count,bytes")
  if not fx then close_all() return nil, e5 end
  -- the replay's processor ids (a view of some processors numbers them 0 .. n-1: info.ids)
  local ids = info.ids or setmetatable({}, { __index = function(_, i) return i - 1 end })
  for _, q in ipairs(view:matrix()) do
    fx:write(ids[q.src + 1], ",", ids[q.dst + 1], ",", q.count, ",", num(q.bytes), "\n")
  end
  local cok, cerr = commit_all()
  if not cok then return nil, cerr end
  return { files = files, states = res.states, messages = res.messages }
end

--- Write one self-contained HTML file (no server: it opens from disk) with the
-- Gantt chart and the spacetime diagram as a level-of-detail pyramid: level 0
-- has opts.cols (default 8192) columns over [t0, t1], each next level half the
-- columns of the one before (time summed over pairs, then the state that held
-- most), down to 16; rows = min(processors, opts.rows or 128). The levels are
-- embedded as base64 bytes; messages as base64 doubles up to 10^4, else as a
-- density per level. The page zooms with the wheel, pans by dragging, and
-- tells the processors, time and state (or message) under the pointer.
-- opts: info (required), sel, t0, t1, cols, rows, format, title, split (under mpirun: every
-- rank calls it, draws its own processors' rows and rank 0 the combined raster writes the
-- page; the other ranks return {rank = r}).
-- Returns {levels =, cols =, rows =, messages =, bytes =} | nil, message.
--- The raster a timeline page is drawn from (raster()'s opts): 8192 columns, at most 128 rows.
function M.timeline_raster(info, sel, t0, t1, opts)
  local n = sel and #sel or info.P
  return { cols = opts and opts.cols or 8192, rows = math.min(n, opts and opts.rows or 128), t0 = t0, t1 = t1,
           sel = sel, format = opts and opts.format, times = true }
end

function M.timeline_html(path, file, opts)
  local colors = require "retrace.colors"
  local info = opts.info
  local sel = opts.sel
  local n = sel and #sel or info.P
  local t0, t1 = opts.t0 or info.span[1], opts.t1 or info.span[2]
  if t1 <= t0 then t1 = t0 + 1 end
  local r, err = opts.raster
  if not r then
    local ro = M.timeline_raster(info, sel, t0, t1, opts)
    ro.split = opts.split
    r, err = M.raster(path, info, ro)
    if not r then return nil, err end
  end
  local par = require "retrace.par"
  if opts.split and par.rank() ~= 0 then return { rank = par.rank() } end
  local pyr = core.paragraph.pyramid(r, 16, 8)
  local b64 = core.paragraph.base64
  local levels = {}
  for i, l in ipairs(pyr) do
    levels[i] = { cols = l.cols, states = b64(l.states), density = l.density and b64(l.density) or nil }
  end
  local dens = {}
  local ramp = colors.ramp(8, { "#c6dbef", "#2171b5", "#08306b" })
  for i = 0, 7 do dens[i + 1] = ramp:hex(i) end
  local data = {
    t0 = t0, t1 = t1, rows = r.rows, nsel = #r.sel, sel = r.sel, row_first = r.row_first, row_count = r.row_count,
    levels = levels, lines = r.lines and b64(r.lines) or nil, messages = r.messages,
    states = { colors.hex(colors.state("busy")), colors.hex(colors.state("overhead")), colors.hex(colors.state("idle")) },
    state_names = { "busy", "overhead", "idle" }, density_colors = dens,
  }
  local root = require("retrace").root
  local tf, terr = io.open(root .. "/lua/retrace/pg_timeline.html", "rb")
  if not tf then return nil, terr end
  local template = tf:read("a")
  tf:close()
  local title = (opts.title or ("retrace paragraph " .. path)):gsub("[&<>\"]",
    { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" })
  -- "</" never appears inside the script: the JSON's slashes are escaped
  local json = require("retrace.json").encode(data):gsub("</", "<\\/")
  local page = template:gsub("{{(%u+)}}", function(k)
    if k == "TITLE" then return title elseif k == "DATA" then return json end
  end)
  local ok0, inerr = fs.not_an_input(file, { path })
  if not ok0 then return nil, inerr end
  local wok, werr = fs.write_file(file, page)
  if not wok then return nil, werr end
  return { levels = #levels, cols = r.cols, rows = r.rows, messages = r.messages, bytes = #page }
end

return M
