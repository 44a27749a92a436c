-- retrace memspy TRACE: MemSpy's memory stall time by code segment and data bin
-- on simulated private caches; retrace memspy compare A.json B.json ...: runs side by side.
local cli = require "retrace.cli"
local memspy = require "retrace.memspy"
local cache = require "retrace.cache"

local parse_bytes = cli.parse_bytes

local function count_opt(name, v, min, max)
  local n = math.tointeger(tonumber(v))
  if not n or n < min then
    cli.usage_error(("%s: '%s' is not an integer >= %d"):format(name, v, min))
  end
  if max and n > max then
    cli.usage_error(("%s: %s is more than %s"):format(name, v, cli.count(max)))
  end
  return n
end

-- cycles per miss or per reference: at most 2^32, so that cycles summed over 2^31
-- references still fit the 64-bit counts (2^62 cycles a miss made time negative)
local MAX_CYCLES = 1 << 32

-- --latency: one count, or a comma list (one per level below the first, and memory)
local function latencies(v)
  if not v:find(",", 1, true) then return count_opt("--latency", v, 0, MAX_CYCLES) end
  local list = {}
  for part in (v .. ","):gmatch("(.-),") do list[#list + 1] = count_opt("--latency", part, 0, MAX_CYCLES) end
  return list
end

local function split(s, sep)
  local t = {}
  for part in (s .. sep):gmatch("(.-)" .. sep:gsub("%p", "%%%0")) do t[#t + 1] = part end
  return t
end

local function read_json(path)
  local f, err = io.open(path, "rb")
  if not f then cli.input_error(err) end
  local text = f:read("a")
  f:close()
  local ok, v = pcall(require("cjson").decode, text)
  if not ok or type(v) ~= "table" then cli.input_error(path .. ": not JSON: " .. tostring(v):gsub("^.-: ", "")) end
  for _, k in ipairs({ "totals", "code", "data", "bins" }) do
    if type(v[k]) ~= "table" then cli.input_error(path .. ": " .. k .. ": missing (not a memspy run)") end
  end
  if type(v.totals.time) ~= "number" or type(v.totals.misses) ~= "number" then
    cli.input_error(path .. ": totals: time and misses are required")
  end
  for i, b in ipairs(v.bins) do
    if type(b.data) ~= "string" or type(b.code) ~= "string" or type(b.misses) ~= "number" then
      cli.input_error(("%s: bins[%d]: code, data and misses are required"):format(path, i))
    end
  end
  return memspy.from_table(v)
end

local function compare(files, args)
  if #files < 1 then cli.usage_error("compare: give at least one run (A.json B.json ...)") end
  local runs = {}
  for _, f in ipairs(files) do
    runs[#runs + 1] = { name = f:match("([^/]+)%.json$") or f, run = read_json(f) }
  end
  local c = memspy.compare(runs)
  if args.json then
    local rows = {}
    for _, r in ipairs(c.rows) do
      local bins = {}
      for j, n in ipairs(c.cols) do bins[n] = r.bins[j] or 0 end
      rows[#rows + 1] = { name = r.name, misses = r.misses, time = r.time, speedup = r.speedup, bins = bins }
    end
    cli.print_json({ cols = cli.array(c.cols), rows = rows })
  else
    io.stdout:write(memspy.format_compare(c), "\n")
  end
  return 0
end

local function ensure_dir(dir)
  local ok, err = require("retrace.fs").mkdir_p(dir)
  if not ok then cli.input_error(dir .. ": " .. tostring(err)) end
end

local function write_csv(dir, run, m)
  ensure_dir(dir)
  local function q(s)
    s = tostring(s)
    if s:find('[,"\n]') then return '"' .. s:gsub('"', '""') .. '"' end
    return s
  end
  local fs = require "retrace.fs"
  local f <close> = cli.check_input(fs.create(dir .. "/matrix.csv"))
  local head = { "code", "total" }
  for _, c in ipairs(m.cols) do head[#head + 1] = q(c) end
  f:write(table.concat(head, ","), "\n")
  for i, r in ipairs(m.rows) do
    local line = { q(r), ("%.4f"):format(m.row_total[i]) }
    for j = 1, #m.cols do line[#line + 1] = m.cell[i][j] and ("%.4f"):format(m.cell[i][j]) or "" end
    f:write(table.concat(line, ","), "\n")
  end
  cli.check_input(f:commit())
  local g <close> = cli.check_input(fs.create(dir .. "/bins.csv"))
  g:write("code,data,refs,reads,writes,misses,first,replacement,invalidation,stall\n")
  for _, b in ipairs(run:to_table().bins) do
    g:write(table.concat({ q(b.code), q(b.data), b.refs, b.reads, b.writes, b.misses, b.first,
      b.replacement, b.invalidation, b.stall }, ","), "\n")
  end
  cli.check_input(g:commit())
end

local function write_plots(dir, run, args)
  ensure_dir(dir)
  require "retrace"
  local display = require "retrace.display"
  if args.gray then require("retrace.colors").set_mode("gray") end
  local views = {
    { "matrix", require "retrace.displays.memspy.matrix" },
    { "causes", require "retrace.displays.memspy.causes" },
    { "replacements", require "retrace.displays.memspy.flow" },
  }
  -- the matrix picture as tall as its rows need (rows of at most 56 pixels)
  local rows = #run:matrix{ top = args.top }.rows
  local heights = { matrix = math.min(1400, math.max(320, 190 + 56 * (rows + 1))) }
  for _, v in ipairs(views) do
    local d = v[2].new(nil, { run = run, top = args.top })
    local path = dir .. "/" .. v[1] .. ".png"
    local data, err = display.render(d, path, 900, heights[v[1]] or 600)
    if not data then cli.input_error(err) end
    cli.check_input(require("retrace.fs").write_file(dir .. "/" .. v[1] .. ".json", cli.json(data) .. "\n"))
  end
end

-- --machines FILE: one machine per line (a hierarchy in the short form or Dinero IV's
-- options), every other option shared; one row of totals each, in file order. Under
-- mpirun the machines are spread over the ranks (retrace.par): the serial run's bytes.
local function run_study(args, opts)
  local list, lerr = cache.read_configs(args.machines, { cores = opts.procs })
  if not list then cli.input_error(lerr) end
  local rows = require("retrace.par").spread(#list, function(i)
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    o.hierarchy = list[i].text
    local run, err = memspy.run(o)
    if not run and (err:match("^caches: ") or err:match("^hierarchy: ")) then
      cli.input_error(string.format("%s:%d: %s", args.machines, list[i].line, err))
    end
    if not run then cli.input_error(err) end
    return run:to_table().totals
  end)
  if not rows then return 0 end -- another rank's share: rank 0 prints
  if args.json then
    local machines = {}
    for i, c in ipairs(list) do machines[i] = { line = c.line, machine = c.text, totals = rows[i] } end
    cli.print_json({ machines = cli.array(machines) })
    return 0
  end
  io.stdout:write(memspy.format_study(list, rows))
  return 0
end

return {
  parallel = true, -- under mpirun: the machines of --machines are spread over the ranks
  summary = "MemSpy: memory stall time by code segment and data bin on simulated caches",
  description = "TRACE is a .msp trace (see the README), a SHMAP trace, or a memory trace " ..
    "(din, xdin, lackey, bin) with its allocation log (--alloc). Defaults: one " ..
    "processor, 64 KiB direct-mapped private caches of 64-byte lines, LRU, write-back " ..
    "write-allocate, write-invalidate coherence, 50 cycles a miss, 1 busy cycle a reference. " ..
    "`retrace memspy compare A.json B.json ...` puts runs saved with --save side by side.",
  parser = function(p)
    p:argument("trace", "trace file (.msp, SHMAP, or a memory trace with --alloc), a capture folder, or 'compare'")
    p:argument("runs", "with compare: runs saved with --save"):args("*")
    p:option("--format", "msp, shmap, din, xdin, lackey or bin (detected when absent)")
    p:option("--alloc", "allocation log of a memory trace (din, xdin, lackey, bin): .msp records stamped @SEQ")
    p:option("--procs --pes", "processors (1; a capture folder: its threads)")
    p:option("--size", "cache size in bytes (per processor)", "65536")
    p:option("--line", "line size in bytes", "64")
    p:option("--ways", "associativity (0: fully associative)", "1")
    p:option("--policy", "lru, lfu, fifo, lifo, clock, random, a shipped Lua policy or FILE.lua", "lru")
    p:option("--seed", "seed of the random policy", "1")
    p:option("--hierarchy", "the processors' caches as a hierarchy in the short form of `retrace cache " ..
      "--hierarchy` (e.g. 'l1:32k/64:8 l2:256k/64:8 l3:8m/64:16', the last level shared), in place " ..
      "of --size, --line, --ways and --policy; misses are then also reported per level")
    p:option("--machines", "a parameter study: one machine per line of FILE (a hierarchy as --hierarchy " ..
      "takes it; '#' starts a comment), every other option shared; one row of totals each, in file order")
    p:option("--latency", "stall cycles of a miss; with --hierarchy, a list (10,40,200): a miss " ..
      "served by level 2, 3, ..., memory", "50")
    p:option("--remote-latency", "stall cycles of a miss on a line homed at another processor (line mod P)", "0")
    p:option("--ref-cycles", "busy cycles of every reference", "1")
    p:flag("--misses-only", "do not bin hits (faster; no per-bin references or miss rates)")
    p:option("--monitor", "only these procedures (F,G,...); the others are (other)")
    p:option("--top", "keep the first R rows and C columns of the matrix (R,C)")
    p:option("--detail", "print only the detail of CODE:DATA (either side may be A+B or empty for all)"):count("*")
    p:option("--threshold", "fold code segments and data bins under PCT% of the stall time into 'other' " ..
      "(0: show all)", "0.1")
    p:option("--interleave", "a capture folder of several threads: let them take turns, N data " ..
      "references each (an approximation of a parallel run; Valgrind ran them one at a time)")
    p:flag("--lines", "a capture folder: charge the program's code by source line (FUNCTION:LINE) " ..
      "rather than by function")
    p:flag("--startup", "a capture folder: keep the dynamic loader's and libc's start-up code apart " ..
      "(folded into '(startup)' by default)")
    p:flag("--fullname", "show data bins' full names (call path, site, type.variable)")
    p:option("--rename", "rename a data bin or code segment (OLD=NEW)"):count("*")
    p:option("--combine", "combine bins (NEW=A+B+...)"):count("*")
    p:flag("--json", "print the run as JSON")
    p:option("--csv", "write matrix.csv and bins.csv into DIR")
    p:option("--plots", "write the pictures (PNG + JSON) into DIR")
    p:flag("--gray", "pictures in gray levels")
    p:option("--save", "save the run as JSON for compare")
    p:flag("--incomplete", "read a capture folder marked incomplete (interrupted, or the program failed)")
  end,
  run = function(args)
    local par = require "retrace.par"
    if not args.machines then -- one run: rank 0 alone
      if not par.speaks() then return 0 end
      par.solo(true)
    end
    if args.trace == "compare" then return compare(args.runs, args) end
    if #args.runs > 0 then cli.usage_error("one trace at a time (extra argument '" .. args.runs[1] .. "')") end
    for _, k in ipairs({ "lines", "interleave" }) do
      if args[k] and not require("retrace.capture").is_folder(args.trace) then
        cli.usage_error("--" .. k .. " needs a capture folder (retrace capture)")
      end
    end
    local threshold = tonumber(args.threshold)
    if not threshold or threshold < 0 or threshold > 100 then
      cli.usage_error("--threshold: expected a percentage from 0 to 100, got '" .. args.threshold .. "'")
    end
    local capture = require "retrace.capture"
    local folder, cleanup
    if capture.is_folder(args.trace) then -- a capture folder: its trace and allocation log
      folder = args.trace
      local f, ferr = capture.open(args.trace, { allow_incomplete = args.incomplete })
      if not f then cli.input_error(ferr) end
      if not f.complete then io.stderr:write("retrace: memspy: warning: ", f.dir, ": incomplete capture (", tostring(f.why), ")\n") end
      if args.lines and not f.alloc_lines then
        cli.input_error(f.dir .. "/alloc.lines.msp: missing (captured before line-level code bins)")
      end
      args.trace, args.format, args.alloc = f.trace, "bin", args.alloc or (args.lines and f.alloc_lines or f.alloc)
      if args.interleave then
        local q = count_opt("--interleave", args.interleave, 1)
        local t, a, done = capture.interleave(args.trace, args.alloc, q)
        if not t then cli.input_error(a) end
        args.trace, args.alloc, cleanup = t, a, done
      end
      args.procs = args.procs or tostring(f.threads or 1) -- one processor per captured thread
    end
    local FORMATS = { msp = true, shmap = true, din = true, xdin = true, lackey = true, bin = true }
    if args.format and not FORMATS[args.format] then
      cli.usage_error("--format: expected msp, shmap, din, xdin, lackey or bin, got '" .. args.format .. "'")
    end
    local size = parse_bytes(args.size) or cli.usage_error("--size: '" .. args.size .. "' is not a byte count")
    local line = parse_bytes(args.line) or cli.usage_error("--line: '" .. args.line .. "' is not a byte count")
    local ways = count_opt("--ways", args.ways, 0)
    local ok, gerr = cache.check_geometry(size, line, ways)
    if not ok then cli.usage_error(gerr) end
    local procs = count_opt("--procs", args.procs or "1", 1)
    if procs > require("retrace.core").memspy.max_procs then
      cli.usage_error(("--procs: %d is more than %d"):format(procs, require("retrace.core").memspy.max_procs))
    end
    local policy, perr = cache.resolve_policy(args.policy)
    if not policy then cli.usage_error("--policy: " .. perr) end
    if args.machines then
      if args.hierarchy or args.save or args.csv or args.plots or #args.detail > 0 or #args.rename > 0
          or #args.combine > 0 or args.top or args.fullname then
        cli.usage_error("--machines: one row of totals per machine (not with --hierarchy, --save, --csv, "
          .. "--plots, --detail, --rename, --combine, --top or --fullname)")
      end
      for _, o in ipairs({ { "size", "65536" }, { "line", "64" }, { "ways", "1" }, { "policy", "lru" } }) do
        if args[o[1]] ~= o[2] then
          cli.usage_error("--" .. o[1] .. ": with --machines, give the caches on each line of the file")
        end
      end
    end
    if args.hierarchy then
      local okh, herr = cache.hierarchy{ spec = args.hierarchy, cores = procs }
      if not okh then cli.usage_error("--hierarchy: " .. herr) end
      for _, o in ipairs({ { "size", "65536" }, { "line", "64" }, { "ways", "1" }, { "policy", "lru" } }) do
        if args[o[1]] ~= o[2] then
          cli.usage_error("--" .. o[1] .. ": with --hierarchy, give the caches in its spec")
        end
      end
    end
    local top
    if args.top then
      local r, c = args.top:match("^(%d+),(%d+)$")
      if not r then cli.usage_error("--top: expected R,C, got '" .. args.top .. "'") end
      top = { tonumber(r), tonumber(c) }
      args.top = top
    end
    local opts = { trace = args.trace, format = args.format, alloc = args.alloc, procs = procs, size = size, line = line,
                   ways = ways, policy = policy, seed = count_opt("--seed", args.seed, 0),
                   hierarchy = args.hierarchy,
                   latency = latencies(args.latency),
                   remote_latency = count_opt("--remote-latency", args.remote_latency, 0, MAX_CYCLES),
                   ref_cycles = count_opt("--ref-cycles", args.ref_cycles, 0, MAX_CYCLES),
                   misses_only = args.misses_only,
                   monitor = args.monitor and split(args.monitor, ",") or nil }
    if args.machines then
      local code = run_study(args, opts)
      if cleanup then cleanup() end
      return code
    end
    local bar = cli.progress("memspy " .. args.trace, 0)
    opts.progress = function(done, total)
      bar.total = total
      bar:update(done)
    end
    local run, err = memspy.run(opts)
    bar:finish()
    if cleanup then cleanup() end
    if not run and args.hierarchy and err:match("^caches: ") then cli.usage_error("--hierarchy: " .. err) end
    if not run and err:match("^latency: ") then cli.usage_error("--" .. err) end
    if not run then cli.input_error(err) end
    for _, w in ipairs(run.warnings) do io.stderr:write(w, "\n") end
    if run.totals.warnings > 0 then
      io.stderr:write(("retrace: memspy: %d warning%s\n"):format(run.totals.warnings,
        run.totals.warnings == 1 and "" or "s"))
    end
    if folder and not args.startup then -- the loader's and libc's start-up code as one segment
      local present = {}
      for _, n in ipairs(run.code) do present[n] = true end
      local names = {}
      for _, n in ipairs(capture.startup_names(folder)) do
        if present[n] then names[#names + 1] = n end
      end
      if #names > 0 then assert(run:combine("(startup)", names)) end
    end
    for _, r in ipairs(args.rename) do
      local old, new = r:match("^(.-)=(.+)$")
      if not old or old == "" then cli.usage_error("--rename: expected OLD=NEW, got '" .. r .. "'") end
      local okr, rerr = run:rename(old, new)
      if not okr then cli.usage_error("--" .. rerr) end
    end
    for _, c in ipairs(args.combine) do
      local new, list = c:match("^(.-)=(.+)$")
      if not new or new == "" then cli.usage_error("--combine: expected NEW=A+B, got '" .. c .. "'") end
      local okc, cerr = run:combine(new, split(list, "+"))
      if not okc then cli.usage_error("--" .. cerr) end
    end
    local m = run:matrix{ top = top, threshold = threshold }
    if args.save then
      local t = run:to_table()
      t.code, t.data = cli.array(t.code), cli.array(t.data)
      t.bins = cli.array(t.bins)
      cli.check_input(require("retrace.fs").write_file(args.save, cli.json(t) .. "\n"))
    end
    if args.csv then write_csv(args.csv, run, m) end
    if args.plots then write_plots(args.plots, run, args) end
    local details = {}
    for _, spec in ipairs(args.detail) do
      local code, data = spec:match("^(.-):(.*)$")
      if not code then cli.usage_error("--detail: expected CODE:DATA, got '" .. spec .. "'") end
      local d, derr = run:detail{ code = code ~= "" and split(code, "+") or nil,
                                  data = data ~= "" and split(data, "+") or nil }
      if not d then cli.usage_error("--" .. derr) end
      details[#details + 1] = d
    end
    if args.json then
      local t = run:to_table()
      t.code, t.data, t.bins = cli.array(t.code), cli.array(t.data), cli.array(t.bins)
      cli.print_json(t)
      return 0
    end
    local out = {}
    if #details == 0 then
      out = { memspy.format_header(run), "", memspy.format_matrix(m, args.fullname and run.full) }
      local levels = memspy.format_levels(run)
      if levels then out[#out + 1] = "" out[#out + 1] = levels end
    end
    for i, d in ipairs(details) do
      if i > 1 then out[#out + 1] = "" end
      out[#out + 1] = memspy.format_detail(d, run)
    end
    io.stdout:write(table.concat(out, "\n"), "\n")
    return 0
  end,
}
