-- retrace cache TRACE: run a real program's memory trace through a cache.
local cli = require "retrace.cli"
local cache = require "retrace.cache"

local FORMATS = { din = true, xdin = true, lackey = true, bin = true }

local parse_bytes = cli.parse_bytes

local count = cli.count

local function report(path, fmt, r, args)
  local c = r.config
  local out = {}
  local function say(...) out[#out + 1] = string.format(...) end
  say("%s (%s): %s records, %s ignored%s", path, fmt, count(r.records), count(r.ignored),
    r.ifetches > 0 and string.format(" (%s instruction fetches%s)", count(r.ifetches),
      args.unified and ", simulated" or "") or "")
  say("cache: %d bytes, %d-byte lines, %d-way (%d sets), %s, %s", c.size, c.line, c.ways, c.sets,
    c.policy, c.write_back and "write-back write-allocate" or "write-through no-write-allocate")
  say("  references %14s   reads %s   writes %s", count(r.refs), count(r.reads), count(r.writes))
  say("  misses     %14s   read %s   write %s", count(r.misses), count(r.read_misses),
    count(r.write_misses))
  say("  hit ratio  %14.4f   miss ratio %.4f", r.hit_ratio, r.refs > 0 and r.misses / r.refs or 0)
  say("  evictions  %14s   writebacks %s", count(r.evictions), count(r.writebacks))
  if r.bypassed_writes > 0 then say("  stores written through %s", count(r.bypassed_writes)) end
  if r.compulsory then
    say("misses by cause: compulsory %s, capacity %s, conflict %s",
      count(r.compulsory), count(r.capacity), count(r.conflict))
  end
  if r.sweep then
    say("fully associative LRU at every size (one pass):")
    say("  %12s %14s %9s", "size", "misses", "hit ratio")
    for _, s in ipairs(r.sweep) do
      say("  %12d %14s %9.4f", s.size, count(s.misses), s.hit_ratio)
    end
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
end

-- Misses per function or per data bin of a capture folder: MemSpy's engine on one
-- processor with the same cache (its totals are this cache's), folded by one axis.
local function by_table(folder, axis, opts)
  if opts.write_back == false or opts.unified then
    return nil, "--by: not with --write-through or --unified (MemSpy's caches are write-back, data only)"
  end
  local memspy = require "retrace.memspy"
  local run, err = memspy.run{ trace = folder.trace, format = "bin", alloc = folder.alloc, procs = 1,
    size = opts.size, line = opts.line, ways = opts.ways, policy = opts.policy, seed = opts.seed,
    latency = 1, ref_cycles = 0 }
  if not run then return nil, err end
  local rows, index = {}, {}
  for _, b in ipairs(run:to_table().bins) do
    local key = axis == "function" and b.code or b.data
    local row = index[key]
    if not row then
      row = { name = key, refs = 0, misses = 0, first = 0, replacement = 0 }
      index[key] = row
      rows[#rows + 1] = row
    end
    row.refs = row.refs + b.refs
    row.misses = row.misses + b.misses
    row.first = row.first + b.first
    row.replacement = row.replacement + b.replacement
  end
  table.sort(rows, function(a, b)
    if a.misses ~= b.misses then return a.misses > b.misses end
    return a.name < b.name
  end)
  return rows
end

local function report_by(rows, axis)
  local out = { string.format("misses by %s (first reference = compulsory, replacement = capacity + conflict):", axis),
    string.format("  %-40s %12s %12s %8s %12s %12s", axis == "function" and "function" or "data bin",
      "references", "misses", "rate", "first", "replacement") }
  for _, r in ipairs(rows) do
    out[#out + 1] = string.format("  %-40s %12s %12s %7.2f%% %12s %12s", r.name, count(r.refs), count(r.misses),
      r.refs > 0 and 100 * r.misses / r.refs or 0, count(r.first), count(r.replacement))
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
end

-- Which core runs which records: the thread switches ("@SEQ S THREAD") of a capture's
-- allocation log, as { record, thread, ... }.
local function thread_switches(alloc)
  local f, err = io.open(alloc)
  if not f then return nil, err end
  local sw, no = {}, 0
  for line in f:lines() do
    no = no + 1
    local seq, t = line:match("^@(%d+) S (%d+)$")
    if seq then
      sw[#sw + 1] = math.tointeger(tonumber(seq))
      sw[#sw + 1] = math.tointeger(tonumber(t))
    end
  end
  f:close()
  return sw
end

-- the coherence figures of a multi-core run, one row per private cache
local function coherence_table(r)
  local out = { string.format("coherence (MESI among the %d cores' private caches):", r.cores),
    string.format("  %-12s %5s %14s %14s %14s %14s %14s", "cache", "core", "misses", "inval. sent",
      "inval. recv", "coherence miss", "snoop wb") }
  for _, c in ipairs(r.caches) do
    if c.core then
      out[#out + 1] = string.format("  %-12s %5d %14s %14s %14s %14s %14s", c.name, c.core, count(c.misses.total),
        count(c.invalidations_sent), count(c.invalidations_received), count(c.coherence_misses),
        count(c.snoop_writebacks))
    end
  end
  return table.concat(out, "\n") .. "\n"
end

-- what every hierarchy run shares: the format, --cores (a capture folder's threads),
-- --interleave, --skip, --max and --flush-every; returns the options of cache.simulate
-- (without the caches) and a function that removes the interleaved copy (or nil)
local function hierarchy_base(args, fmt, folder)
  local opts = { format = fmt }
  local cleanup
  if args.cores then
    local n = math.tointeger(tonumber(args.cores))
    if not n or n < 1 or n > 64 then cli.usage_error("--cores: '" .. args.cores .. "' is not a count from 1 to 64") end
    opts.cores = n
  end
  if args.interleave and not opts.cores then cli.usage_error("--interleave needs --cores") end
  if opts.cores and opts.cores > 1 then
    if not folder then cli.usage_error("--cores needs a capture folder (retrace capture): its threads give the cores") end
    local alloc = folder.alloc
    if args.interleave then
      local q = math.tointeger(tonumber(args.interleave))
      if not q or q < 1 then cli.usage_error("--interleave: '" .. args.interleave .. "' is not a positive count") end
      local t, a, c = require("retrace.capture").interleave(folder.trace, folder.alloc, q)
      if not t then cli.input_error(a) end
      args.trace, alloc, cleanup = t, a, c
    end
    local sw, serr = thread_switches(alloc)
    if not sw then
      if cleanup then cleanup() end
      cli.input_error(serr)
    end
    opts.switches = sw
  end
  for _, k in ipairs { { "skip", "skipcount" }, { "max", "maxcount" }, { "flush_every", "flushcount" } } do
    local v = args[k[1]]
    if v then
      local n = math.tointeger(tonumber(v))
      if not n or n < 0 then cli.usage_error("--" .. k[1]:gsub("_", "-") .. ": '" .. v .. "' is not a count") end
      opts[k[2]] = n
    end
  end
  return opts, cleanup
end

-- a hierarchy (Dinero IV's model): the caches as understood, then Dinero IV's figures
local function run_hierarchy(args, fmt, folder)
  local opts, cleanup = hierarchy_base(args, fmt, folder)
  opts.dinero, opts.spec = args.dinero, args.hierarchy
  local desc, derr = cache.hierarchy(opts)
  if not desc then
    if cleanup then cleanup() end
    cli.usage_error(derr)
  end
  local name = folder and folder.dir or args.trace
  local r, err = cache.simulate(args.trace, opts)
  if cleanup then cleanup() end
  if not r then cli.input_error(err) end
  if args.json then
    cli.print_json({ format = fmt, records = r.records, simulated = r.simulated, maxed = r.maxed,
      hierarchy = r.hierarchy, cores = r.cores, caches = cli.array(r.caches), memory = r.memory })
  else
    io.stdout:write(string.format("%s (%s): %s records, %s simulated%s\n", name, fmt,
      count(r.records), count(r.simulated), r.maxed and " (stopped at --max)" or ""))
    io.stdout:write(r.hierarchy, "\n", r.report)
    if r.cores > 1 then io.stdout:write(coherence_table(r)) end
  end
  return 0
end

-- --configs FILE: one hierarchy per line, each run over the whole trace; under mpirun
-- the configurations are spread over the ranks (retrace.par) and rank 0 prints them in
-- file order, the serial run's bytes
local function run_study(args, fmt, folder)
  local opts, cleanup = hierarchy_base(args, fmt, folder)
  local list, lerr = cache.read_configs(args.configs, opts)
  if not list then
    if cleanup then cleanup() end
    cli.input_error(lerr)
  end
  local texts = {}
  for i, c in ipairs(list) do texts[i] = c.text end
  local ok, rows = pcall(cache.study, args.trace, texts, opts)
  if cleanup then cleanup() end
  if not ok then
    if type(rows) == "string" then cli.input_error(rows) end
    error(rows, 0) -- another rank's failure (the job reports rank 0's)
  end
  if not rows then return 0 end -- another rank's share: rank 0 prints
  local name = folder and folder.dir or args.trace
  local study = {}
  for i, r in ipairs(rows) do study[i] = r.summary end
  if args.json then
    for _, r in ipairs(rows) do r.caches = cli.array(r.caches) end
    local configs = {}
    for i, c in ipairs(list) do
      local r = rows[i]
      configs[i] = { line = c.line, config = c.text, hierarchy = r.hierarchy, simulated = r.simulated,
        maxed = r.maxed, cores = r.cores, caches = r.caches, memory = r.memory, summary = study[i] }
    end
    cli.print_json({ format = fmt, records = rows[1] and rows[1].records or 0, configs = cli.array(configs) })
  else
    io.stdout:write(string.format("%s (%s): %s records, %d configurations (%s)\n", name, fmt,
      count(rows[1] and rows[1].records or 0), #list, args.configs))
    io.stdout:write(cache.format_study(list, study))
  end
  return 0
end

return {
  parallel = true, -- under mpirun: the configurations of --configs are spread over the ranks
  summary = "simulate a cache on a real program's memory trace (din, xdin, lackey, bin)",
  description = "Sizes in bytes (suffixes K, KiB, M, MiB accepted). Defaults: 32 KiB, " ..
    "64-byte lines, fully associative, LRU, write-back write-allocate, data references only.",
  parser = function(p)
    p:argument("trace", "memory trace file, or a capture folder (retrace capture)")
    p:argument("dinero", "Dinero IV options after --, as written for dineroIV " ..
      "(-- -l1-dsize 32k -l1-dbsize 64 -l1-dassoc 8 ...): simulate that hierarchy"):args("*")
    p:option("--format", "din, xdin, lackey or bin (detected when absent)")
    p:option("--size", "cache size in bytes", "32768")
    p:option("--line", "line size in bytes", "64")
    p:option("--ways", "associativity (default: fully associative)")
    p:option("--policy", "lru, lfu, fifo, lifo, clock, random, mru, plru, lua_lru or FILE.lua", "lru")
    p:option("--seed", "seed of the random policy", "1")
    p:flag("--unified", "send instruction fetches through the same cache")
    p:flag("--write-through", "write-through no-write-allocate instead of write-back")
    p:flag("--classify", "split misses into compulsory, capacity and conflict")
    p:flag("--sweep", "misses of a fully associative LRU cache at every power-of-two size")
    p:option("--hierarchy", "a hierarchy in the short form, e.g. 'l1i:32k/64:8 l1d:32k/64:8 l2:1m/64:16'")
    p:option("--configs", "a parameter study: one hierarchy per line of FILE (the short form or Dinero IV's "
      .. "options; '#' starts a comment), one result row each, in file order")
    p:option("--skip", "hierarchy: skip the first N records")
    p:option("--max", "hierarchy: simulate at most N records")
    p:option("--flush-every", "hierarchy: copy back and invalidate every cache every N records")
    p:option("--cores", "hierarchy: cores of the machine (private levels per core, MESI among them; "
      .. "thread T of a capture folder runs on core T mod N)")
    p:option("--interleave", "with --cores: the capture's threads take turns, N data references each "
      .. "(an approximation: valgrind ran them one at a time)")
    p:option("--convert", "write the trace in the binary format to this file instead")
    p:flag("--json", "print JSON on stdout")
    p:option("--by", "with a capture folder: misses per function or per data bin (function|data)")
    p:flag("--incomplete", "read a capture folder marked incomplete")
  end,
  run = function(args)
    if args.by and args.by ~= "function" and args.by ~= "data" then
      cli.usage_error("--by: expected function or data, got '" .. args.by .. "'")
    end
    local capture = require "retrace.capture"
    local folder
    if capture.is_folder(args.trace) then -- a capture folder: its RTMB trace (and allocation log for --by)
      local f, ferr = capture.open(args.trace, { allow_incomplete = args.incomplete })
      if not f then cli.input_error(ferr) end
      if not f.complete then io.stderr:write("retrace: cache: warning: ", f.dir, ": incomplete capture (", tostring(f.why), ")\n") end
      folder = f
      args.trace, args.format = f.trace, "bin"
    end
    if args.by and not folder then cli.usage_error("--by needs a capture folder (retrace capture)") end
    local fmt = args.format
    if fmt and not FORMATS[fmt] then
      cli.usage_error("--format: expected din, xdin, lackey or bin, got '" .. fmt .. "'")
    end
    if not fmt then
      local f, err = cache.detect(args.trace)
      if not f then cli.input_error(err) end
      fmt = f
    end
    if args.configs then
      if #args.dinero > 0 or args.hierarchy or args.convert or args.by or args.sweep or args.classify
          or args.unified or args.write_through or args.ways or args.size ~= "32768" or args.line ~= "64"
          or args.policy ~= "lru" then
        cli.usage_error("--configs: give the caches on each line of the file (not with --hierarchy, options "
          .. "after --, --convert, --by or the one-cache options)")
      end
      return run_study(args, fmt, folder)
    end
    local par = require "retrace.par"
    if not par.speaks() then return 0 end -- one run: rank 0 alone
    par.solo(true)
    if #args.dinero > 0 or args.hierarchy then return run_hierarchy(args, fmt, folder) end
    if args.skip or args.max or args.flush_every or args.cores or args.interleave then
      cli.usage_error("--skip, --max, --flush-every, --cores and --interleave need a hierarchy (--hierarchy or Dinero IV options after --)")
    end
    if args.convert then
      local n, err = cache.convert(args.trace, args.convert, fmt)
      if not n then cli.input_error(err) end
      if args.json then
        cli.print_json({ records = n, output = args.convert })
      else
        io.stdout:write(string.format("%s: %s records written to %s\n", args.trace, count(n), args.convert))
      end
      return 0
    end
    local size = parse_bytes(args.size)
    if not size then cli.usage_error("--size: '" .. args.size .. "' is not a byte count") end
    local line = parse_bytes(args.line)
    if not line then cli.usage_error("--line: '" .. args.line .. "' is not a byte count") end
    local ways = 0
    if args.ways then
      ways = math.tointeger(tonumber(args.ways))
      if not ways or ways < 1 then cli.usage_error("--ways: '" .. args.ways .. "' is not a positive integer") end
    end
    local seed = math.tointeger(tonumber(args.seed))
    if not seed or seed < 0 then cli.usage_error("--seed: '" .. args.seed .. "' is not a non-negative integer") end
    local policy, perr = cache.resolve_policy(args.policy)
    if not policy then cli.usage_error("--policy: " .. perr) end
    local opts = { format = fmt, size = size, line = line, ways = ways, policy = policy,
                   seed = seed, write_back = not args.write_through, unified = args.unified,
                   classify = args.classify, sweep = args.sweep }
    -- geometry and policy problems are usage errors, found before reading the trace
    local ok, gerr = cache.check_geometry(size, line, ways)
    if not ok then cli.usage_error(gerr) end
    local bar = cli.progress("cache " .. args.trace, 0)
    opts.progress = function(done, total)
      bar.total = total
      bar:update(done)
    end
    local r, rerr = cache.run(args.trace, opts)
    bar:finish()
    if not r then cli.input_error(rerr) end
    local by
    if args.by then
      local t, berr = by_table(folder, args.by, opts)
      if not t then cli.input_error(berr) end
      by = t
    end
    if args.json then
      local j = {
        refs = r.refs, reads = r.reads, writes = r.writes, misses = r.misses,
        read_misses = r.read_misses, write_misses = r.write_misses, hit_ratio = r.hit_ratio,
        ignored = r.ignored, hits = r.hits, evictions = r.evictions, writebacks = r.writebacks,
        records = r.records, bypassed_writes = r.bypassed_writes, format = fmt,
        compulsory = r.compulsory, capacity = r.capacity, conflict = r.conflict, sweep = r.sweep,
        config = r.config, by = by and cli.array(by) or nil,
      }
      cli.print_json(j)
    else
      report(args.trace, fmt, r, args)
      if by then report_by(by, args.by) end
    end
    return 0
  end,
}
