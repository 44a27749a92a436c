--- retrace.cache: cache simulation from scripts.
--
--   local cache = require "retrace.cache"
--   local c = cache.new{ size = 32768, line = 64, ways = 8, policy = "lru", write_back = true }
--   local hit = c:access(0x1000, false)          -- hit, way, line, evicted line
--   print(c:stats().misses)
--   local r = cache.run("prog.din", { size = 32768, line = 64, ways = 8, sweep = true })
--
-- A cache object's methods (addresses in the cache's units; ways count from 1):
--   c:access(addr, write) -> hit, way, line, evicted line (nil when none); nil alone when a
--     write bypasses a write-through no-write-allocate cache
--   c:access_range(addr, size, write) -> misses among the lines of [addr, addr + size)
--   c:probe(addr) -> whether the line of addr is present (counts nothing, moves no policy)
--   c:stats() -> {refs, hits, misses, reads, writes, ..., hit_ratio}
--   c:config() -> {size, line, ways, sets, seed, policy, write_back}
--   c:flush(invalidate) -> writes every dirty line back; empties the cache when invalidate
--   c:reset() -> empties the cache and zeroes the counters and the clock
--   c:line_at(set, way) -> the line held in that way of that set (from 0), or nil
--   c:close() -> frees the cache at once (also done when it is collected)
--
-- Policies: the built-in names (cache.builtin), a shipped Lua policy by name
-- ("mru", "plru", "lua_lru": lua/retrace/policies/), a FILE.lua returning a
-- policy table, or a table made by cache.policy{...}:
--   cache.policy{ name = "mine", init = function(set) ... end,
--                 hit = function(set, way, now) ... end, fill = function(set, way, now) ... end,
--                 victim = function(set, now) return way end }
-- Ways count from 1; `set.state` is a table for the policy's own data;
-- `set.index` is the set number (from 0) and `set.ways` the associativity.
-- With `recency = true` (or "last") the engine records each way's last
-- reference and hands it to victim as `set.last[w]` (the clock, 0 for an empty
-- way); "loaded" gives `set.loaded[w]`, the clock at the way's load, and "both"
-- gives both. A policy that orders lines by them needs no hit hook, and is
-- then called on misses in full sets only (hits stay in C). In a hierarchy,
-- `stack = "last"` orders each set as Dinero IV orders LRU's (by last
-- reference: the order in which a whole-cache copy-back writes lines out);
-- the default is by load, as for Dinero's other policies.
local core = require "retrace.core"
local formats = require "retrace.formats"

local M = {}

M.builtin = core.cache.policies

local HOOKS = { "init", "hit", "fill", "victim" }

--- Make a policy table (checked): name and victim are required.
function M.policy(t)
  if type(t) ~= "table" then error("cache.policy: expected a table", 2) end
  if type(t.name) ~= "string" or t.name == "" then error("cache.policy: a name is required", 2) end
  if type(t.victim) ~= "function" then
    error("cache.policy " .. t.name .. ": a victim function is required", 2)
  end
  local r = t.recency
  if not (r == nil or type(r) == "boolean" or r == "last" or r == "loaded" or r == "both") then
    error("cache.policy " .. t.name .. ': recency must be true, "last", "loaded" or "both"', 2)
  end
  if not (t.stack == nil or t.stack == "last" or t.stack == "loaded") then
    error("cache.policy " .. t.name .. ': stack must be "last" or "loaded"', 2)
  end
  local p = { name = t.name, recency = t.recency, stack = t.stack }
  for _, h in ipairs(HOOKS) do
    if t[h] ~= nil and type(t[h]) ~= "function" then
      error("cache.policy " .. t.name .. ": " .. h .. " must be a function", 2)
    end
    p[h] = t[h]
  end
  return p
end

-- Names of the Lua policies shipped in lua/retrace/policies/ (for messages).
local function shipped()
  local names = {}
  local ok, lfs = pcall(require, "lfs")
  local dir = require("retrace").root .. "/lua/retrace/policies"
  if ok and lfs.attributes(dir, "mode") == "directory" then
    for f in lfs.dir(dir) do
      local n = f:match("^([%w_]+)%.lua$")
      if n then names[#names + 1] = n end
    end
  end
  table.sort(names)
  return names
end

--- Resolve a policy given by the user: built-in name (the core's list), shipped
-- Lua policy name, FILE.lua, or a policy table. Returns the value to pass as
-- `policy`, or nil and a one-line message naming the valid choices.
function M.resolve_policy(v)
  if v == nil then return "lru" end
  if type(v) == "table" then return v end
  if type(v) ~= "string" then return nil, "policy: expected a name, FILE.lua or a table" end
  local builtin, unknown = core.cache.lookup(v)
  if builtin then return builtin end
  if v:match("%.lua$") then
    local chunk, err = loadfile(v, "t")
    if not chunk then return nil, err end
    local ok, p = pcall(chunk)
    if not ok then return nil, v .. ": " .. tostring(p) end
    if type(p) ~= "table" or type(p.victim) ~= "function" then
      return nil, v .. ": a policy file must return a policy table with a victim function"
    end
    return p
  end
  if v:match("^[%w_]+$") then
    -- a user's policies/NAME.lua (retrace.userdirs) before a shipped one
    local mine = require("retrace.userdirs").find("policies", v)
    if mine then return M.resolve_policy(mine) end
    local ok, p = pcall(require, "retrace.policies." .. v)
    if ok and type(p) == "table" then return p end
  end
  local mine = require("retrace.userdirs").names("policies")
  table.sort(mine)
  return nil, unknown .. "; shipped Lua policies: " .. table.concat(shipped(), " ") ..
    (#mine > 0 and ("; yours: " .. table.concat(mine, " ")) or "") .. "; or FILE.lua"
end

--- Check a cache geometry by the core's rules (see rt_cache_check_geometry):
-- true, or nil and a message. unit ("words", "bytes") is printed after sizes.
function M.check_geometry(size, line, ways, unit)
  return core.cache.check_geometry(size, line, ways or 0, unit)
end

--- The hit ratio hits / (hits + misses), 0 for no lookups (the core's definition).
M.hit_ratio = core.cache.hit_ratio

local function with_policy(opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  local p, err = M.resolve_policy(o.policy)
  if not p then error(err, 3) end
  o.policy = p
  return o
end

--- A cache object (see the header). Options: size, line (units), ways (0 or
-- nil: fully associative), policy, write_back (default true: write-back
-- write-allocate, as `retrace cache`; false: write-through no-write-allocate), seed.
function M.new(opts)
  return core.cache.new(with_policy(opts))
end

--- Format of a memory trace file: din, xdin, lackey or bin; nil, message otherwise.
function M.detect(path)
  local fmt, why = formats.detect(path)
  if not fmt then return nil, why end
  if fmt == "din" or fmt == "xdin" or fmt == "lackey" or fmt == "bin" then return fmt end
  return nil, path .. ": not a memory trace (" .. fmt .. "); give --format din|xdin|lackey|bin"
end

--- Run a whole trace through a cache in C. opts: format (detected when nil),
-- size, line (bytes), ways, policy, seed, write_back (default true), unified,
-- classify, sweep, progress = function(done_bytes, total_bytes).
-- Returns the statistics table, or nil and a message.
function M.run(path, opts)
  local o = with_policy(opts)
  if not o.format then
    local fmt, err = M.detect(path)
    if not fmt then return nil, err end
    o.format = fmt
  end
  return core.cache.run(path, o)
end

--- Convert a memory trace to the binary format; returns the record count or nil, message.
function M.convert(path, out, format)
  if not format then
    local fmt, err = M.detect(path)
    if not fmt then return nil, err end
    format = fmt
  end
  return core.cache.convert(path, format, out)
end

-- ---- hierarchies: Dinero IV's model (core/cache/rt_hier.c) ----

local KIND = { unified = "u", u = "u", instruction = "i", instr = "i", i = "i", data = "d", d = "d" }
local CACHE_KEYS = { size = "size", block = "bsize", line = "bsize", subblock = "sbsize",
  assoc = "assoc", ways = "assoc", policy = "repl", repl = "repl", fetch = "fetch", pfdist = "pfdist",
  pfabort = "pfabort", walloc = "walloc", write_allocate = "walloc", wback = "wback",
  write_back = "wback", ccc = "ccc", classify = "ccc", inclusive = "inclusive", exclusive = "exclusive",
  shared = "shared" }

--- Dinero IV options from a Lua description of the caches:
--   { { level = 1, kind = "data", size = 32768, block = 64, assoc = 8, policy = "lru",
--       fetch = "demand", walloc = "always", wback = "always", ccc = true }, ... }
-- (kind: unified, instruction, data or u, i, d; write policies: always, never,
-- nofetch or a, n, f; booleans for the write policies read as always / never).
-- `policy` may also be a Lua policy (a table, a shipped name such as "plru" or
-- "lua_lru", FILE.lua). Returns an array of option strings and a table of the
-- Lua policies by cache ("l1-d" = policy), or nil and a message.
function M.dinero_options(caches)
  local out, policies = {}, nil
  for i, c in ipairs(caches) do
    if type(c) ~= "table" then return nil, "cache " .. i .. ": expected a table" end
    local lev = math.tointeger(c.level or 1)
    local kind = KIND[c.kind or "unified"]
    if not lev or lev < 1 then return nil, "cache " .. i .. ": level: expected a positive integer" end
    if not kind then return nil, "cache " .. i .. ": kind: expected unified, instruction or data" end
    local prefix = string.format("-l%d-%s", lev, kind)
    local keys = {}
    for k in pairs(c) do
      if k ~= "level" and k ~= "kind" then
        if not CACHE_KEYS[k] then return nil, "cache " .. i .. ": unknown key '" .. tostring(k) .. "'" end
        keys[#keys + 1] = k
      end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v, opt = c[k], CACHE_KEYS[k]
      if opt == "repl" and (type(v) == "table" or not core.cache.hier_policy_known(v)) then
        -- a Lua policy (a table, a shipped name, FILE.lua): given to the core apart
        local p, perr = M.resolve_policy(v)
        if not p then return nil, "cache " .. i .. ": " .. perr end
        policies = policies or {}
        policies[string.format("l%d-%s", lev, kind)] = p
      elseif opt == "ccc" or opt == "inclusive" or opt == "exclusive" then
        if v then out[#out + 1] = prefix .. opt end
      elseif opt == "shared" then
        out[#out + 1] = prefix .. (v and "shared" or "private")
      else
        if type(v) == "boolean" then v = v and "a" or "n" end
        out[#out + 1] = prefix .. opt
        out[#out + 1] = tostring(v)
      end
    end
  end
  return out, policies
end

-- Dinero IV options from a string ("-l1-dsize 32k -l1-dbsize 64 ...").
local function split_words(s)
  local t = {}
  for w in s:gmatch("%S+") do t[#t + 1] = w end
  return t
end

-- the core's options: dinero (a string or an array of Dinero IV options),
-- spec (the short form), caches (a Lua description), skipcount, flushcount, maxcount
local function hier_opts(opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  local dinero = {}
  if type(o.dinero) == "string" then o.dinero = split_words(o.dinero) end
  for _, w in ipairs(o.dinero or {}) do dinero[#dinero + 1] = w end
  if o.caches then
    local more, pol = M.dinero_options(o.caches)
    if not more then return nil, pol end
    for _, w in ipairs(more) do dinero[#dinero + 1] = w end
    if pol then
      o.policies = o.policies or {}
      for k, v in pairs(pol) do o.policies[k] = v end
    end
  end
  o.dinero, o.caches = dinero, nil
  return o
end

--- The hierarchy described by opts (see hier_opts above) as retrace understands
-- it, one line per cache; or nil and a message naming the bad option.
function M.hierarchy(opts)
  local o, err = hier_opts(opts)
  if not o then return nil, err end
  return core.cache.hier_describe(o)
end

--- Run a whole trace through a hierarchy with Dinero IV's model. opts: format
-- (detected when nil), dinero, spec or caches (see M.hierarchy), skipcount,
-- flushcount, maxcount. Returns { records, simulated, maxed, caches = { {name,
-- level, kind, fetches, misses, block_misses, compulsory, capacity, conflict,
-- ..._block, multiblock, bytes_from_memory, bytes_to_memory}, ... }, memory,
-- report (Dinero IV's figures as text), hierarchy (the text of M.hierarchy) };
-- each figure is { read, write, instr, misc, total, prefetch = {...} }.
-- Several cores (opts.cores, or "cores=N" in spec): switches = { k, core, ... }
-- says which core runs which records: from the record after the first k data
-- references (instruction fetches not counted) on (core 0 before the first);
-- each private cache appears once per core (its `core` field), with the
-- coherence figures invalidations_sent, invalidations_received,
-- coherence_misses and snoop_writebacks; shared ones once (shared = true).
function M.simulate(path, opts)
  local o, err = hier_opts(opts)
  if not o then return nil, err end
  if not o.format then
    local fmt, derr = M.detect(path)
    if not fmt then return nil, derr end
    o.format = fmt
  end
  return core.cache.hier_run(path, o)
end

-- ---- parameter studies: a list of hierarchies, one result row each ----

--- The configurations of a study file: one hierarchy per line, in the short form or
-- Dinero IV's options (a line starting with '-'); '#' starts a comment, blank lines are
-- skipped. Each is checked with M.hierarchy(base + {spec = line}) (base: cores, counts);
-- returns { {line = n, text = s}, ... } or nil and "FILE:LINE: message".
function M.read_configs(path, base)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local list, no = {}, 0
  for line in f:lines() do
    no = no + 1
    local text = line:gsub("#.*$", ""):gsub("^%s+", ""):gsub("%s+$", "")
    if text ~= "" then
      local o = {}
      for k, v in pairs(base or {}) do o[k] = v end
      o.spec = text
      local ok, why = M.hierarchy(o)
      if not ok then
        f:close()
        return nil, string.format("%s:%d: %s", path, no, why)
      end
      list[#list + 1] = { line = no, text = text }
    end
  end
  f:close()
  if #list == 0 then return nil, path .. ": no configuration (one hierarchy per line)" end
  return list
end

local function rate(m, f) return f > 0 and m / f or 0 end

--- One summary per run of M.simulate: the first level's data side (l1-d or l1-u, every
-- core's copy added up: `l1_fetches`, `l1_misses` and `l1_rate`, data references only)
-- and the last level (every cache of the deepest level: `last_fetches`, `last_misses`,
-- `last_rate`, all references; `bytes_from_memory`, `bytes_to_memory`).
function M.study_summary(r)
  local deepest = 1
  for _, c in ipairs(r.caches) do deepest = math.max(deepest, c.level) end
  local s = { l1_fetches = 0, l1_misses = 0, last_fetches = 0, last_misses = 0,
    bytes_from_memory = 0, bytes_to_memory = 0, levels = deepest }
  for _, c in ipairs(r.caches) do
    if c.level == 1 and c.kind ~= "instruction" then
      -- Dinero IV's data column: reads, writes and misc
      s.l1_fetches = s.l1_fetches + c.fetches.total - c.fetches.instr
      s.l1_misses = s.l1_misses + c.misses.total - c.misses.instr
    end
    if c.level == deepest then
      s.last_fetches, s.last_misses = s.last_fetches + c.fetches.total, s.last_misses + c.misses.total
      s.bytes_from_memory = s.bytes_from_memory + c.bytes_from_memory
      s.bytes_to_memory = s.bytes_to_memory + c.bytes_to_memory
    end
  end
  s.l1_rate, s.last_rate = rate(s.l1_misses, s.l1_fetches), rate(s.last_misses, s.last_fetches)
  return s
end

--- A parameter study: the trace at path run through every configuration of list, each
-- a string (a line of `--configs`: the short form or Dinero IV's options) or a table of
-- M.simulate's cache options ({spec = ...}, {dinero = ...} or {caches = {...}}, policies);
-- opts (format, cores, switches, skipcount, maxcount, flushcount) are shared. Under mpirun
-- the configurations are spread over the ranks (retrace.par.spread; every rank must call):
-- rank 0 gets the results in list order, the other ranks nil. Each result is M.simulate's
-- table without `report`, plus `summary` (M.study_summary). A configuration that fails
-- raises its message (every rank raises).
function M.study(path, list, opts)
  local base = {}
  for k, v in pairs(opts or {}) do base[k] = v end
  if not base.format then base.format = assert(M.detect(path)) end
  return require("retrace.par").spread(#list, function(i)
    local o = {}
    for k, v in pairs(base) do o[k] = v end
    local c = list[i]
    if type(c) == "string" then o.spec = c else for k, v in pairs(c) do o[k] = v end end
    local r, err = M.simulate(path, o)
    if not r then error(err, 0) end
    r.report = nil
    r.summary = M.study_summary(r)
    return r
  end)
end

--- The study's table: one row per configuration (list as M.read_configs, summaries as
-- M.study_summary), in file order.
function M.format_study(list, summaries)
  local count = require("retrace.cli").count
  local out = { string.format("%6s %14s %8s %14s %8s %16s %16s  %s", "line", "L1 data misses", "rate",
    "last misses", "rate", "bytes from mem", "bytes to mem", "configuration") }
  for i, c in ipairs(list) do
    local s = summaries[i]
    out[#out + 1] = string.format("%6d %14s %8.4f %14s %8.4f %16s %16s  %s", c.line, count(s.l1_misses),
      s.l1_rate, count(s.last_misses), s.last_rate, count(s.bytes_from_memory), count(s.bytes_to_memory), c.text)
  end
  return table.concat(out, "\n") .. "\n"
end

--- Read the count lines of a Dinero IV report (or of `report` above):
-- { ["l1-dcache"] = { ["Demand Misses"] = { total, instr, data, read, write, misc }, ... } }.
function M.parse_dinero_report(text)
  local r, cur = {}, nil
  for line in text:gmatch("[^\n]*") do
    local name = line:match("^(l%d+%-[uid]cache)%s*$")
    if name then
      cur = {}
      r[name] = cur
    elseif cur then
      local label, rest = line:match("^%s*(%a[%a%-%s/%(%)]-)%s+([%d%s%.]+)$")
      if label and not rest:find("%.") then
        local v = {}
        for x in rest:gmatch("%d+") do v[#v + 1] = math.tointeger(tonumber(x)) end
        cur[(label:gsub("%s+$", ""))] = v
      end
    end
  end
  return r
end

return M
