-- The one-level engine (rt_cache: `retrace cache` without a hierarchy, cache.new, rt_memsim)
-- against a one-level hierarchy (rt_hier: hierarchies, MemSpy, SHMAP) on random traces:
-- every built-in policy and two Lua ones, four geometries, the same references, hits and
-- misses (reads and writes). Write-back write-allocate is one level of rt_hier as it is;
-- write-through no-write-allocate (stores bypass the cache) is one level of rt_hier fed the
-- loads alone. This pins the rules the two engines share, so that one can be made a view
-- of the other without a figure moving.
local h = require "helpers"
local cache = require "retrace.cache"

-- n references (reads, writes, instruction fetches) of 1 to 8 bytes over 64 KiB, as xdin;
-- and the same without the writes
local function traces(seed, n)
  local rand, all, loads = h.lcg(seed), {}, {}
  for i = 1, n do
    local k = ({ "r", "w", "i" })[rand(3) + 1]
    all[i] = ("%s %x %x"):format(k, rand(1 << 16), 1 + rand(8))
    if k ~= "w" then loads[#loads + 1] = all[i] end
  end
  return h.temp_file(table.concat(all, "\n") .. "\n", ".xdin"), h.temp_file(table.concat(loads, "\n") .. "\n", ".xdin")
end

local POLICIES = { "lru", "lfu", "fifo", "lifo", "clock", "random", "lua_lru", "mru" }
local GEOMETRIES = { { 4096, 32, 2 }, { 8192, 64, 8 }, { 2048, 64, 0 }, { 16384, 16, 1 } }

local function one_level(path, g, pol)
  local r = assert(cache.simulate(path, { format = "xdin", caches = { { level = 1, kind = "unified",
    size = g[1], block = g[2], assoc = g[3] == 0 and g[1] // g[2] or g[3], policy = pol } } }))
  return r.caches[1]
end

describe("rt_cache and one level of rt_hier", function()
  local all, loads = traces(21, 12000)

  it("count the same references, hits and misses under write-back write-allocate", function()
    for _, pol in ipairs(POLICIES) do
      for _, g in ipairs(GEOMETRIES) do
        local a = assert(cache.run(all, { format = "xdin", size = g[1], line = g[2], ways = g[3], policy = pol,
          unified = true }))
        local c = one_level(all, g, pol)
        local what = pol .. " " .. table.concat(g, "/")
        assert.are.equal(a.refs, c.fetches.total, what)
        assert.are.equal(a.misses, c.misses.total, what)
        assert.are.equal(a.write_misses, c.misses.write, what)
        assert.are.equal(a.read_misses, c.misses.read + c.misses.instr, what)
        assert.is_true(a.misses > 0 and a.hits > 0, what)
      end
    end
  end)

  it("count the same loads under write-through no-write-allocate (the stores bypass)", function()
    for _, pol in ipairs(POLICIES) do
      for _, g in ipairs(GEOMETRIES) do
        local a = assert(cache.run(all, { format = "xdin", size = g[1], line = g[2], ways = g[3], policy = pol,
          unified = true, write_back = false }))
        local c = one_level(loads, g, pol)
        local what = pol .. " " .. table.concat(g, "/")
        assert.are.equal(a.refs, c.fetches.total, what)
        assert.are.equal(a.misses, c.misses.total, what)
        assert.are.equal(0, a.write_misses, what)
        assert.is_true(a.bypassed_writes > 0, what)
      end
    end
  end)

  teardown(function()
    os.remove(all)
    os.remove(loads)
  end)
end)
