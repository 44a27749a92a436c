-- retrace shmap TRACE: run a SHMAP trace on P PEs sharing C caches; report per
-- PE (loads, stores, flops), per cache (hits, misses, hit ratio), totals, steps.
local cli = require "retrace.cli"
local shmap = require "retrace.shmap"

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

return {
  summary = "simulate a SHMAP trace on P PEs and C caches; per-PE and per-cache statistics",
  parser = function(p)
    p:argument("trace", "SHMAP trace file")
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
  end,
  run = function(args)
    local m = machine_of(args)
    local trace, err = shmap.open(args.trace)
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
    return 0
  end,
}
