-- Lua policies called on misses only (`recency`): the shipped lua_lru and plru, and a
-- FIFO reading `set.loaded`, give the figures of the same policy in C on random traces,
-- through both engines: one cache (access by access, and cache.run's batch loop, whose
-- hits never reach Lua) and the hierarchy (levels, inclusion, flushes). The tree PLRU
-- read from the engine's record also equals the tree kept in bits by hit and fill hooks
-- (the form a policy without recency still takes).
local cache = require "retrace.cache"
local h = require "helpers"

local lcg = h.lcg

-- tree PLRU with a bit per node, updated by a hook on every hit and fill
local function touch(set, way)
  local bits, node = set.state, set.ways + way - 1
  while node > 1 do
    local parent = node // 2
    bits[parent] = node % 2 == 0 and 1 or 0 -- away from the child the reference came from
    node = parent
  end
end
local plru_hooks = cache.policy {
  name = "plru_hooks",
  init = function(set) for k = 1, set.ways - 1 do set.state[k] = 0 end end,
  hit = touch,
  fill = touch,
  victim = function(set)
    local node = 1
    while node < set.ways do node = 2 * node + set.state[node] end
    return node - set.ways + 1
  end,
}

-- FIFO from the engine's load times
local lua_fifo = cache.policy {
  name = "lua_fifo",
  recency = "loaded",
  victim = function(set)
    local best = 1
    for w = 2, set.ways do
      if set.loaded[w] < set.loaded[best] then best = w end
    end
    return best
  end,
}

local shipped = { lua_lru = cache.resolve_policy("lua_lru"), plru = cache.resolve_policy("plru") }

-- a random data trace in din (loads and stores, now and then an instruction fetch):
-- a hot region, a walk, and far references, so sets fill and lines are evicted
local function din_trace(seed, n, span)
  local rnd, out, walk = lcg(seed), {}, 0
  for i = 1, n do
    local r, addr = rnd(16), nil
    if r < 9 then
      addr = rnd(span // 8)
    elseif r < 13 then
      walk = (walk + 8) % (span * 2)
      addr = walk
    else
      addr = rnd(span * 16)
    end
    local label = rnd(50) == 0 and 2 or (rnd(3) == 0 and 1 or 0)
    out[i] = string.format("%d %x\n", label, addr)
  end
  return h.temp_file(table.concat(out), ".din")
end

describe("Lua policies on misses only", function()
  it("one cache, access by access: plru equals the per-hit tree, lua_fifo the C fifo", function()
    for _, g in ipairs { { 256, 4, 2 }, { 1024, 16, 4 }, { 4096, 32, 8 }, { 8192, 16, 16 } } do
      local pairs_ = { { "plru", plru_hooks }, { lua_fifo, "fifo" }, { "lua_lru", "lru" } }
      for _, pp in ipairs(pairs_) do
        local a = cache.new { size = g[1], line = g[2], ways = g[3], policy = pp[1] }
        local b = cache.new { size = g[1], line = g[2], ways = g[3], policy = pp[2] }
        local rnd = lcg(g[1] + g[3])
        for i = 1, 20000 do
          local addr = rnd(4) > 0 and rnd(g[1] * 2) or rnd(g[1] * 16)
          local w = rnd(3) == 0
          local h1, w1, l1, e1 = a:access(addr, w)
          local h2, w2, l2, e2 = b:access(addr, w)
          if h1 ~= h2 or w1 ~= w2 or l1 ~= l2 or e1 ~= e2 then
            error(string.format("%s, geometry %d/%d/%d: differ at access %d", tostring(a), g[1], g[2], g[3], i))
          end
          if i % 7000 == 0 then -- emptied: the record starts again
            a:flush(true)
            b:flush(true)
          end
        end
        local sa = a:stats()
        assert.are.same(sa, b:stats())
        assert.is_true(sa.evictions > 1000, "evictions " .. sa.evictions)
      end
    end
  end)

  it("cache.run: the batch loop gives the C policy's figures", function()
    local path = din_trace(7, 60000, 65536)
    for _, ways in ipairs { 8, 4, 32 } do -- the unrolled loop, the general one, the indexed cache
      local function run(policy)
        local r = assert(cache.run(path, { format = "din", size = 16384, line = 32, ways = ways, policy = policy }))
        r.config = nil
        return r
      end
      local lru = run("lru")
      assert.is_true(lru.misses > 5000 and lru.evictions > 4000, "misses " .. lru.misses)
      assert.are.same(lru, run("lua_lru"))
      assert.are.same(run("fifo"), run(lua_fifo))
      assert.are.same(run(plru_hooks), run("plru"))
      assert.are_not.same(lru, run("fifo")) -- the trace tells the policies apart
    end
    os.remove(path)
  end)

  it("cache.run: a policy table failing in the middle of a batch, or returning no way: one line", function()
    local path = din_trace(11, 60000, 65536)
    local calls = 0
    local boom = cache.policy{ name = "boom", recency = true, victim = function(set)
      calls = calls + 1
      if calls == 777 then error("no luck at call 777") end
      return 1
    end }
    local r, err = cache.run(path, { format = "din", size = 16384, line = 32, ways = 8, policy = boom })
    assert.is_nil(r)
    assert.are.equal(777, calls)
    assert.truthy(err:find("policy boom: victim: ", 1, true), err)
    assert.truthy(err:find("no luck at call 777", 1, true), err)
    assert.is_nil(err:find("\n", 1, true), err) -- one line, no traceback
    local bad = cache.policy{ name = "bad", recency = true, victim = function() return 99 end }
    r, err = cache.run(path, { format = "din", size = 16384, line = 32, ways = 8, policy = bad })
    assert.is_nil(r)
    assert.are.equal("policy bad: victim: returned 99, not a way 1..8", err)
    os.remove(path)
  end)

  it("cache.run: a policy failing in the middle of a batch stops there, its file and line named", function()
    local path = din_trace(9, 60000, 65536)
    local file = h.temp_file([[
local cache = require "retrace.cache"
calls = 0
return cache.policy{ name = "tired", recency = true, victim = function(set)
  calls = calls + 1
  if calls == 3000 then error("too many victims") end
  local last, best = set.last, 1
  for w = 2, set.ways do if last[w] < last[best] then best = w end end
  return best
end }
]], ".lua")
    local r, err = cache.run(path, { format = "din", size = 16384, line = 32, ways = 8, policy = file })
    assert.is_nil(r)
    assert.are.equal("policy tired: victim: " .. file .. ":5: too many victims", err)
    assert.are.equal(3000, calls) -- no victim asked after the failure
    calls = nil
    os.remove(file)
    os.remove(path)
  end)

  it("hierarchy: the shipped Lua policies give the C policies' reports", function()
    -- xdin with flushes of ranges and of the whole cache among loads, stores and fetches
    local rnd, out = lcg(11), {}
    for i = 1, 40000 do
      local r = rnd(100)
      if r == 0 then
        out[i] = string.format("c %x %x\n", rnd(1 << 16), rnd(3) == 0 and 0 or 256)
      else
        local kind = r < 20 and "i" or (r < 45 and "w" or "r")
        out[i] = string.format("%s %x 4\n", kind, rnd(5) == 0 and rnd(1 << 20) or rnd(1 << 15))
      end
    end
    local path = h.temp_file(table.concat(out), ".xdin")
    local shapes = {
      function(p) return { { level = 1, kind = "instruction", size = 2048, block = 32, assoc = 4, policy = p },
        { level = 1, kind = "data", size = 4096, block = 32, assoc = 8, policy = p } } end,
      function(p) return { { level = 1, kind = "unified", size = 2048, block = 32, assoc = 2, policy = p },
        { level = 2, kind = "unified", size = 16384, block = 64, assoc = 4, policy = p, inclusive = true },
        { level = 3, kind = "unified", size = 65536, block = 64, assoc = 8, policy = p } } end,
    }
    for s, shape in ipairs(shapes) do
      for _, pp in ipairs { { "lru", shipped.lua_lru }, { "plru", shipped.plru }, { "fifo", lua_fifo } } do
        local c = assert(cache.simulate(path, { format = "xdin", caches = shape(pp[1]) }))
        local lua = assert(cache.simulate(path, { format = "xdin", caches = shape(pp[2]) }))
        assert.are.equal(c.report, lua.report, "shape " .. s .. ", " .. pp[1])
        assert.is_true(c.caches[1].misses.total > 1000)
      end
    end
    os.remove(path)
  end)

  it("a policy without recency sees no record; a bad recency is refused", function()
    local seen
    local p = cache.policy { name = "peek", victim = function(set) seen = set.last; return 1 end }
    local c = cache.new { size = 64, line = 16, ways = 4, policy = p }
    for a = 0, 64 * 3, 16 do c:access(a, false) end
    assert.is_nil(seen)
    local ok, err = pcall(cache.policy, { name = "odd", recency = "sometimes", victim = function() return 1 end })
    assert.is_false(ok)
    assert.is_truthy(err:find('recency must be true, "last", "loaded" or "both"', 1, true))
    -- both: the two records, each a clock value, 0 for no load yet
    local got
    local both = cache.policy { name = "both", recency = "both", victim = function(set)
      got = { last = { table.unpack(set.last) }, loaded = { table.unpack(set.loaded) } }
      return 1
    end }
    local d = cache.new { size = 32, line = 16, ways = 2, policy = both }
    d:access(0, false)  -- clock 1: way 1 loaded
    d:access(16, false) -- clock 2: way 2 loaded
    d:access(0, false)  -- clock 3: way 1 referenced
    d:access(32, false) -- clock 4: a victim asked for
    assert.are.same({ last = { 3, 2 }, loaded = { 1, 2 } }, got)
  end)
end)
