-- The hierarchy engine against Dinero IV: every case of tests/fixtures/dinero/cases.txt
-- (each fetch policy, each write-allocate / write-back pair, sub-blocks, split I/D,
-- three levels, replacement policies, flush, skip/max, din traces as p2d writes them)
-- gives the figures of Dinero IV's stored report, line by line; with DINERO set to
-- a dineroIV binary, also those of the live binary.
local cache = require "retrace.cache"
local h = require "helpers"

local dir = h.fixtures .. "/dinero"

local function cases()
  local t = {}
  for line in io.lines(dir .. "/cases.txt") do
    if not line:match("^#") and line:match("%S") then
      local name, trace, format, opts = line:match("^%s*(%S+)%s*|%s*(%S+)%s*|%s*(%S+)%s*|(.*)$")
      t[#t + 1] = { name = name, trace = dir .. "/" .. trace, format = format, opts = opts }
    end
  end
  return t
end

-- every count line of Dinero IV's report equal in retrace's; returns the number compared
local function compare(expected_text, mine_text, label)
  local want, got = cache.parse_dinero_report(expected_text), cache.parse_dinero_report(mine_text)
  local n = 0
  for name, lines in pairs(want) do
    assert.is_truthy(got[name], label .. ": no " .. name .. " in retrace's report")
    for metric, v in pairs(lines) do
      local mine = got[name][metric]
      assert.is_truthy(mine, label .. ": " .. name .. " " .. metric .. " missing")
      assert.are.same(v, mine, label .. ": " .. name .. " " .. metric)
      n = n + 1
    end
  end
  return n
end

describe("hierarchy against Dinero IV", function()
  local all = cases()

  it("has the cases the acceptance asks for", function()
    local names = {}
    for _, c in ipairs(all) do names[c.name] = c.opts end
    for _, f in ipairs { "demand", "always", "miss", "tagged", "loadforward", "subblock" } do
      assert.is_truthy(names["fetch_" .. f], f)
    end
    for _, wa in ipairs { "a", "n", "f" } do
      for _, wb in ipairs { "a", "n", "f" } do assert.is_truthy(names["write_" .. wa .. wb]) end
    end
    assert.is_truthy(names.three_levels:find("-l3-", 1, true))
    assert.is_truthy(names.split_l2:find("-l1-isize", 1, true))
    assert.is_truthy(names.flush:find("-flushcount", 1, true))
    assert.is_truthy(names.skip_max:find("-skipcount", 1, true) and names.skip_max:find("-maxcount", 1, true))
    assert.is_truthy(names.fetch_subblock:find("sbsize"))
  end)

  for _, c in ipairs(cases()) do
    it(c.name .. " equals Dinero IV's stored report", function()
      local r, err = cache.simulate(c.trace, { format = c.format, dinero = c.opts })
      assert.is_truthy(r, err)
      local n = compare(h.slurp(dir .. "/" .. c.name .. ".out"), r.report, c.name)
      assert.is_true(n >= 6, c.name .. ": only " .. n .. " lines compared")
    end)
  end

  local dinero = os.getenv("DINERO")
  if dinero and dinero ~= "" then
    for _, c in ipairs(cases()) do
      it(c.name .. " equals the live Dinero IV", function()
        local inf = c.format == "din" and "d" or "D"
        local p = io.popen(h.quote(dinero) .. " " .. c.opts .. " -informat " .. inf .. " < " .. h.quote(c.trace))
        local text = p:read("a")
        p:close()
        local r = assert(cache.simulate(c.trace, { format = c.format, dinero = c.opts }))
        assert.is_true(compare(text, r.report, c.name .. " (live)") >= 6)
      end)
    end
  else
    pending("DINERO not set: the live dineroIV comparison is skipped (stored reports are compared)")
  end
end)

describe("hierarchy figures worked by hand", function()
  local function trace(lines)
    return h.temp_file(table.concat(lines, "\n") .. "\n", ".xdin")
  end

  it("counts dirty lines copied back at the end in bytes to memory", function()
    -- two 16-byte writes in two 64-byte blocks of an 8 MiB cache that never evicts:
    -- the end of run copies back the two dirty sub-blocks (16 bytes each)
    local p = trace { "w 1000 4", "w 2000 4", "r 1000 4" }
    local r = assert(cache.simulate(p, { format = "xdin", spec = "l1d:8m/64/16:full l1i:1k/64" }))
    local d = r.caches[2]
    assert.are.equal("l1-dcache", d.name)
    assert.are.equal(2, d.misses.write)
    assert.are.equal(0, d.misses.read)
    assert.are.equal(32, d.bytes_to_memory)
    -- a write miss with write-allocate fetches the sub-block it does not fill
    assert.are.equal(32, d.bytes_from_memory)
    os.remove(p)
  end)

  it("sends misc references (din type 3) through the data cache", function()
    local p = trace { "m 40 4", "m 44 4", "r 80 4" }
    local r = assert(cache.simulate(p, { format = "xdin", spec = "l1:1k/64:1" }))
    local u = r.caches[1]
    assert.are.equal(2, u.fetches.misc)
    assert.are.equal(1, u.misses.misc)
    assert.are.equal(1, u.misses.read)
    assert.are.equal(128, u.bytes_from_memory)
    os.remove(p)
  end)

  it("splits a reference crossing a block", function()
    local p = trace { "r 3c 8" }
    local r = assert(cache.simulate(p, { format = "xdin", spec = "l1:1k/64:2" }))
    assert.are.equal(1, r.caches[1].multiblock)
    assert.are.equal(2, r.caches[1].fetches.read)
    os.remove(p)
  end)

  it("reads the same hierarchy from Dinero options, the short form and a Lua table", function()
    local a = assert(cache.hierarchy { dinero = "-l1-dsize 32k -l1-dbsize 64 -l1-dassoc 8 -l1-isize 32k -l1-ibsize 64 -l1-iassoc 8 -l2-usize 1m -l2-ubsize 64 -l2-uassoc 16" })
    local b = assert(cache.hierarchy { spec = "l1d:32k/64:8 l1i:32k/64:8 l2:1m/64:16" })
    local c = assert(cache.hierarchy { caches = {
      { level = 1, kind = "data", size = "32k", block = 64, assoc = 8 },
      { level = 1, kind = "instruction", size = 32768, block = 64, assoc = 8 },
      { level = 2, size = "1m", block = 64, assoc = 16 } } })
    assert.are.equal(a, b)
    assert.are.equal(a, c)
    assert.is_truthy(a:find("l1%-data: 32K, 64%-byte blocks, 8%-way, 64 sets, lru, fetch demand"))
    assert.is_truthy(a:find("l2%-unified: 1M, 64%-byte blocks, 16%-way, 1024 sets"))
  end)

  it("takes a Lua policy: the shipped lua_lru gives the C LRU's figures", function()
    local trace = h.fixtures .. "/dinero/mixed.xdin"
    local function run(policy)
      return assert(cache.simulate(trace, { format = "xdin", caches = {
        { level = 1, kind = "unified", size = "4k", block = 32, assoc = 4, policy = policy },
        { level = 2, kind = "unified", size = "32k", block = 64, assoc = 8, policy = policy } } })).report
    end
    local c, lua = run("lru"), run("lua_lru")
    assert.are.equal(c, lua)
    assert.is_truthy(lua:find("Demand Misses", 1, true))
    -- a policy that fails names itself; one that always evicts way 1 differs from LRU
    local first = cache.policy { name = "first", victim = function() return 1 end }
    local r = assert(cache.simulate(trace, { format = "xdin", caches = {
      { level = 1, kind = "unified", size = "4k", block = 32, assoc = 4, policy = first } } }))
    assert.are_not.equal(r.report, c)
    local bad = cache.policy { name = "bad", victim = function() error("no victim today") end }
    local ok, err = cache.simulate(trace, { format = "xdin", caches = {
      { level = 1, kind = "unified", size = "4k", block = 32, assoc = 4, policy = bad } } })
    assert.is_nil(ok)
    assert.is_truthy(err:find("no victim today", 1, true))
  end)

  it("names the bad option", function()
    local r, err = cache.hierarchy { dinero = "-l1-dsize 32k -l1-dbsize 48 -l1-isize 1k -l1-ibsize 32" }
    assert.is_nil(r)
    assert.is_truthy(err:find("l1%-dcache: block size 48 is not a power of two"))
    r, err = cache.hierarchy { dinero = "-l1-dsize 32k -l1-dbsize 64 -l1-dfetch z" }
    assert.is_nil(r)
    assert.is_truthy(err:find("%-l1%-dfetch: fetch: bad value 'z'"))
    r, err = cache.hierarchy { dinero = "-l1-dsize 32k -l1-dbsize 64 -on-trigger 1000" }
    assert.is_nil(r)
    assert.is_truthy(err:find("on%-trigger"))
    r, err = cache.hierarchy { dinero = "-l1-dsize 32k -l1-dbsize 64" }
    assert.is_nil(r)
    assert.is_truthy(err:find("level 1: no cache"))
  end)
end)
