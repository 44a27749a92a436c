--- cache_policy: a replacement policy written in Lua against the same policy in C.
--
--   build/retrace bench/cache_policy.lua [N] [ROUNDS]
--
-- Writes hier_bench's data trace (hot stack, 8 MiB walk, hot heap, 1/64 random into
-- 16 MiB; 30% stores) of N references (2*10^7 by default) and of N/10 as RTMB under
-- /tmp (kept for the next run), then times, in CPU seconds (best of ROUNDS, 3), one
-- 32 KiB 8-way cache of 64-byte lines with write-back:
--   one cache   cache.run: the C "lru" and the shipped Lua "lua_lru";
--   hierarchy   cache.simulate (a unified level 1): "lru" and "lua_lru", the C tree
--               "plru" and the shipped Lua "plru".
-- The Lua policies take `recency` (the engine keeps each way's last reference, the
-- policy is asked only for victims), so the figures and miss counts must agree with
-- C's (the bench exits 1 if not). With /usr/bin/time present it also reports the
-- peak memory of a fresh process per row at N/10 and N.
local cache = require "retrace.cache"

local child = arg[1] == "--child"
local N = math.tointeger(tonumber(not child and arg[1] or nil) or 2e7)
local ROUNDS = math.tointeger(tonumber(not child and arg[2] or nil) or 3)

-- the trace of bench/hier_bench.c (same generator, same references)
local function generate(n, out)
  if io.open(out, "rb") then return end
  io.stderr:write(string.format("generating %d references into %s ...\n", n, out))
  local din = out .. ".din.tmp"
  local f = assert(io.open(din, "wb"))
  local state, walk = 0x9E3779B97F4A7C15, 0x10000000
  local buf, nb = {}, 0
  for _ = 1, n do
    state = state ~ (state << 13)
    state = state ~ (state >> 7)
    state = state ~ (state << 17)
    local x = state
    local pick, addr = x & 63, nil
    local kind = ((x >> 8) % 10 < 3) and 1 or 0
    if pick < 38 then
      addr = (0x7ff000000000 - ((x >> 16) & 4095)) & ~7
    elseif pick < 58 then
      walk = walk + 8
      if walk >= 0x10000000 + (8 << 20) then walk = 0x10000000 end
      addr = walk
    elseif pick < 63 then
      addr = 0x50000000 + ((x >> 24) & 16383 & ~7)
    else
      addr = 0x40000000 + ((x >> 20) & ((16 << 20) - 1) & ~7)
    end
    nb = nb + 1
    buf[nb] = string.format("%d %x\n", kind, addr)
    if nb == 4096 then
      f:write(table.concat(buf))
      buf, nb = {}, 0
    end
  end
  f:write(table.concat(buf, "", 1, nb))
  f:close()
  assert(cache.convert(din, out, "din"))
  os.remove(din)
end

local ROWS = {
  { engine = "one cache", c = "lru", lua = "lua_lru" },
  { engine = "hierarchy", c = "lru", lua = "lua_lru" },
  { engine = "hierarchy", c = "plru", lua = "plru" },
}

-- one run: CPU seconds and the level-1 misses
local function run(path, engine, policy, is_lua)
  local p = is_lua and assert(cache.resolve_policy(policy)) or policy
  local t0 = os.clock()
  local misses
  if engine == "one cache" then
    local r = assert(cache.run(path, { format = "bin", size = 32768, line = 64, ways = 8, policy = p }))
    misses = r.misses
  else
    local r = assert(cache.simulate(path, { format = "bin", caches = {
      { level = 1, kind = "unified", size = 32768, block = 64, assoc = 8, policy = p } } }))
    misses = r.caches[1].misses.total
  end
  return os.clock() - t0, misses
end

if child then -- one run in a fresh process, for its peak memory
  run(arg[2], arg[3], arg[4], arg[5] == "lua")
  os.exit(0)
end

local function best(path, engine, policy, is_lua)
  local secs, misses = math.huge, nil
  for _ = 1, ROUNDS do
    local s, m = run(path, engine, policy, is_lua)
    if misses and m ~= misses then error("runs disagree") end
    secs, misses = math.min(secs, s), m
  end
  return secs, misses
end

local function peak_kib(path, row, is_lua)
  local bin = os.getenv("RETRACE_BIN") or "build/retrace"
  local src = debug.getinfo(1, "S").source:sub(2)
  local cmd = string.format("/usr/bin/time -v %s %s --child %s '%s' %s %s 2>&1 >/dev/null", bin, src, path,
    row.engine, is_lua and row.lua or row.c, is_lua and "lua" or "c")
  local p = io.popen(cmd)
  local out = p and p:read("a") or ""
  if p then p:close() end
  return tonumber(out:match("Maximum resident set size %(kbytes%): (%d+)"))
end

local sizes = { N // 10, N }
local paths = {}
for i, n in ipairs(sizes) do
  paths[i] = string.format("/tmp/retrace-policy-v1-%d.rtmb", n)
  generate(n, paths[i])
end
local have_time = io.open("/usr/bin/time", "rb") ~= nil
local failed = false
print(string.format("%-10s %-8s %10s %10s %7s %12s   %s", "engine", "policy", "C s", "Lua s", "Lua/C",
  "misses", have_time and "peak KiB C / Lua at N/10 and N" or ""))
for _, row in ipairs(ROWS) do
  for i, n in ipairs(sizes) do
    local cs, cm = best(paths[i], row.engine, row.c, false)
    local ls, lm = best(paths[i], row.engine, row.lua, true)
    if cm ~= lm then
      failed = true
      print(string.format("MISMATCH: %s %s: C %d misses, Lua %d", row.engine, row.c, cm, lm))
    end
    local mem = ""
    if have_time then
      mem = string.format("%s / %s", peak_kib(paths[i], row, false) or "?", peak_kib(paths[i], row, true) or "?")
    end
    print(string.format("%-10s %-8s %10.3f %10.3f %6.2fx %12d   %s  (%d refs)", row.engine, row.c, cs, ls, ls / cs,
      cm, mem, n))
  end
end
if failed then os.exit(1) end
