-- retrace.shmap from Lua and `retrace shmap` on the command line, on traces
-- worked out by hand (see tests/c/test_shmap_sim.c for the derivations).
local h = require "helpers"
local shmap = require "retrace.shmap"
local cjson = require "cjson"

local function fixture(name) return h.fixtures .. "/shmap/" .. name end

describe("retrace.shmap.open", function()
  it("reads matrices and totals in a first pass", function()
    local t = assert(shmap.open(fixture("machine.shm")))
    local info = t:info()
    assert.are.equal(1, info.matrices)
    assert.are.equal(24, info.records)
    -- the message and 4 x (flops, 2 loads); the definition is no event
    assert.are.equal(13, info.events)
    assert.are.equal(8, info.loads)
    assert.are.equal(32, info.load_elements)
    assert.are.equal(50, info.flops)
    assert.are.equal(1, info.sections)
    assert.are.equal(4, info.groups)
    assert.are.equal(2.0, info.time_last)
    assert.are.equal(1.0, info.min_step)
    assert.are.same({ { id = 1, rows = 4, cols = 4, line = 1 } }, t:matrices())
    local ops, n = {}, 0
    for rec in t:records() do
      n = n + 1
      ops[rec.op] = (ops[rec.op] or 0) + 1
      if n == 2 then
        assert.are.same({ op = "info", line = 2, matrix = 1, text = "four groups on two caches" }, rec)
      end
    end
    assert.are.equal(info.records, n)
    assert.are.equal(4, ops.group_start)
    assert.are.equal(4, ops.flops)
    t:close()
    assert.has_error(function() t:info() end)
  end)

  it("returns nil and FILE:LINE: field for a malformed trace", function()
    local p = h.temp_file("0 1 4 4\n1 1 1 5 1 1 0.0\n")
    local t, err = shmap.open(p)
    assert.is_nil(t)
    assert.are.equal(p .. ":2: load event: row 5 outside matrix 1 (4 x 4)", err)
    os.remove(p)
    t, err = shmap.open("/nonexistent.shm")
    assert.is_nil(t)
    assert.matches("No such file", err)
  end)
end)

describe("retrace.shmap.sim", function()
  local machine = { trace = fixture("machine.shm"), pes = 4, caches = 2, cache_size = 16, line = 4 }

  it("gives the hand-computed counts of 4 PEs on 2 caches", function()
    local sim = assert(shmap.sim(machine))
    -- the definition is no step: step 1 the message on PE 0, step 2 the flops
    local steps, finished = sim:step(1)
    assert.are.equal(1, steps)
    local act = sim:active()
    assert.are.equal(1, act.count)
    assert.are.equal("info", act[1].op)
    assert.are.equal(0, act[1].task)
    assert.is_false(act[2])
    steps, finished = sim:step(1)
    assert.are.equal(1, steps)
    assert.is_false(finished)
    act = sim:active()
    assert.are.equal(4, act.count)
    assert.are.equal(2, act.step)
    for p = 1, 4 do
      assert.are.equal("flops", act[p].op)
      assert.are.equal(p, act[p].task) -- task 0 is the message, then the groups
    end
    assert.are.equal("sgemm", act[4].name)
    assert.are.equal(2, sim:run())
    local s = sim:stats()
    assert.are.equal(4, s.steps)
    assert.is_true(s.finished)
    assert.are.same({ 14, 2 }, { s.caches[1].hits, s.caches[1].misses })
    assert.are.same({ 13, 3 }, { s.caches[2].hits, s.caches[2].misses })
    assert.are.equal(13 / 16, s.caches[2].hit_ratio)
    assert.are.same({ loads = 32, stores = 0, flops = 50, hits = 27, misses = 5, hit_ratio = 27 / 32 },
      s.totals)
    for p = 1, 4 do
      assert.are.equal(8, s.pes[p].loads)
      assert.are.equal((p - 1) // 2, s.pes[p].cache)
    end
    assert.are.equal("four groups on two caches", s.pes[1].info)
    assert.are.equal("sgemv", s.pes[1].subroutine)
    -- the last step: only... every PE loaded column 1
    local e = sim:elements(1)
    assert.are.equal(4, e.rows)
    assert.are.same({ 5, 5, 5, 5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 }, e.loads)
    assert.are.equal(0, e.stores[1])
    assert.are.same({ 1, 2, 3 }, { sim:locate(9) })
    sim:close()
  end)

  it("delivers access events in PE order within a step", function()
    local sim = assert(shmap.sim(machine))
    local seen = {}
    sim:on_access(function(a) seen[#seen + 1] = a end)
    sim:run()
    assert.are.equal(32, #seen)
    -- step 3: PE 0 loads column 1 (miss, words 0..3), then PE 1 column 2, ...
    assert.are.same({ step = 3, pe = 0, cache = 0, matrix = 1, row = 1, col = 1, kind = "load",
                      addr = 0, time = 1.0, hit = false, set = 0, way = 0,
                      line_first = 0, line_last = 3 }, seen[1])
    assert.is_true(seen[2].hit)
    assert.are.equal(0, seen[4].pe)
    assert.are.equal(1, seen[5].pe)
    assert.are.equal(2, seen[5].col)
    -- step 4: PE 2 misses column 1 in cache 1
    local s5 = {}
    for _, a in ipairs(seen) do if a.step == 4 then s5[#s5 + 1] = a end end
    assert.are.equal(16, #s5)
    assert.are.equal(2, s5[9].pe)
    assert.is_false(s5[9].hit)
    assert.are.equal(1, s5[9].cache)
    local misses = 0
    for _, a in ipairs(seen) do if a.hit == false then misses = misses + 1 end end
    assert.are.equal(sim:stats().totals.misses, misses)
  end)

  it("stops delivering when unsubscribed, and an error in the callback propagates", function()
    local sim = assert(shmap.sim(machine))
    local n = 0
    sim:on_access(function() n = n + 1 end)
    sim:step(3) -- message, flops, then the 16 loads of the own columns
    assert.are.equal(16, n)
    sim:on_access(nil)
    sim:run()
    assert.are.equal(16, n)
    local sim2 = assert(shmap.sim(machine))
    sim2:on_access(function() error("boom") end)
    assert.has_error(function() sim2:run() end)
    local sim3 = assert(shmap.sim(machine))
    sim3:on_access(function() sim3:step(1) end)
    local ok, err = pcall(sim3.run, sim3)
    assert.is_false(ok)
    assert.matches("cannot step a SHMAP simulation from its own callback", err)
    sim3:on_access(function() sim3:close() end)
    ok, err = pcall(sim3.run, sim3)
    assert.is_false(ok)
    assert.matches("cannot close a SHMAP simulation from its own callback", err)
    sim3:on_access(nil)
    sim3:run()
    assert.are.equal(4, sim3:stats().steps)
  end)

  it("runs without a cache and with write-back", function()
    local s = assert(shmap.sim{ trace = fixture("machine.shm"), pes = 4, cache = false }):run()
    assert.are.equal(4, s) -- steps
    local sim = assert(shmap.sim{ trace = fixture("machine.shm"), pes = 4, cache = false })
    sim:run()
    local st = sim:stats()
    assert.are.equal(0, #st.caches)
    assert.are.equal(0, st.totals.hits)
    assert.are.equal(-1, st.pes[1].cache)
  end)

  it("refuses bad machines with nil, message and bad options with an error", function()
    local cases = {
      { { pes = 0 }, "pes: 0 is outside 1..256" },
      { { pes = 2, caches = 3 }, "caches: 3 is outside 1..2 (the number of PEs)" },
      { { cache_size = 12 }, "cache size: 12 words is not a power of two" },
      { { line = 3 }, "line size: 3 words is not a power of two" },
      { { cache_size = 4, line = 8 }, "line size: 8 words is larger than the cache size 4 words" },
      { { cache_size = 16, line = 4, ways = -1 }, "cache geometry: sizes and ways must not be negative" },
      { { cache_size = 16, line = 4, ways = 8 }, "ways: 8 does not divide the 4 lines of the cache" },
      { { policy = "mru-ish" }, "policy: unknown 'mru-ish' (built-ins: lru lfu fifo lifo clock random); shipped Lua policies: lua_lru mru plru; or FILE.lua" },
    }
    for _, c in ipairs(cases) do
      c[1].trace = fixture("machine.shm")
      local sim, err = shmap.sim(c[1])
      assert.is_nil(sim)
      assert.are.equal(c[2], err)
    end
    assert.has_error(function() shmap.sim{ trace = fixture("machine.shm"), colour = 1 } end)
    assert.has_error(function() shmap.sim{ trace = fixture("machine.shm"), pes = "four" } end)
    local sim, err = shmap.sim{ trace = "/nonexistent.shm" }
    assert.is_nil(sim)
    assert.matches("nonexistent", err)
  end)

  it("runs Lua policies through the same engine", function()
    local function counts(policy, pes, caches)
      local sim = assert(shmap.sim{ trace = fixture("policy.shm"), cache_size = 4, line = 1,
                                    policy = policy, pes = pes, caches = caches })
      sim:run()
      local c = sim:stats().caches[1]
      return { c.hits, c.misses }
    end
    -- the Lua LRU gives the C LRU's counts (3 hits, 11 misses by hand)
    assert.are.same({ 3, 11 }, counts("lua_lru"))
    -- MRU by hand: 5 evicts 1 (used at 6), 2 hits, 6 evicts 2, 1 evicts 6,
    -- 3 5 4 hit, 2 evicts 4: 6 hits, 8 misses
    assert.are.same({ 6, 8 }, counts("mru"))
    -- a policy value made in the script: always evict way 1 (ways count from 1)
    local cache = require "retrace.cache"
    local first = cache.policy{ name = "first", victim = function() return 1 end }
    -- fills 1 2 3 4; 1 1 hit; 5 6 1 3 5 4 2 then replace way 1 except 2 (way 2), 3 (way 3), 4 (way 4)
    -- 5 m, 2 h, 6 m, 1 m, 3 h, 5 m, 4 h, 2 h: 6 hits, 8 misses
    assert.are.same({ 6, 8 }, counts(first))
    -- the machine trace with a Lua LRU on two caches equals the C LRU
    local a = assert(shmap.sim{ trace = fixture("machine.shm"), pes = 4, caches = 2, cache_size = 16,
                                line = 4, policy = "lua_lru" })
    a:run()
    assert.are.same({ 14, 2 }, { a:stats().caches[1].hits, a:stats().caches[1].misses })
    assert.are.same({ 13, 3 }, { a:stats().caches[2].hits, a:stats().caches[2].misses })
  end)

  it("a Lua policy cannot close or step its own simulation (it runs inside a step)", function()
    local cache = require "retrace.cache"
    for _, what in ipairs({ "close", "step", "run" }) do
      local sim
      local evil = cache.policy{ name = "evil", victim = function()
        sim[what](sim)
        return 1
      end }
      sim = assert(shmap.sim{ trace = fixture("policy.shm"), cache_size = 4, line = 1, policy = evil })
      local ok, err = pcall(sim.run, sim)
      assert.is_false(ok)
      local verb = what == "close" and "close" or "step"
      assert.truthy(err:find("policy evil: victim: ", 1, true), err)
      assert.truthy(err:find("cannot " .. verb .. " a SHMAP simulation from its own callback", 1, true), err)
      assert.is_table(sim:stats()) -- still open
      sim:close()
    end
  end)

  it("keeps the trace alive and closed objects refuse use", function()
    local t = assert(shmap.open(fixture("machine.shm")))
    local sim = assert(shmap.sim{ trace = t, pes = 2 })
    t:close() -- the simulation still reads it
    assert.are.equal(7, sim:run()) -- the message, then 2 x 3 steps of groups
    sim:close()
    assert.has_error(function() sim:run() end)
    sim:close() -- idempotent
  end)
end)

describe("retrace shmap", function()
  local function json(...)
    local code, out, err = h.retrace("shmap", ...)
    assert.are.equal(0, code, err)
    return cjson.decode(out)
  end

  it("prints the JSON of the hand-computed 4-PE run", function()
    local j = json(fixture("machine.shm"), "--pes", "4", "--caches", "2", "--cache-size", "16",
      "--line", "4", "--json")
    assert.are.equal(4, j.steps)
    assert.are.equal(4, #j.pes)
    assert.are.same({ 10, 10, 10, 20 }, { j.pes[1].flops, j.pes[2].flops, j.pes[3].flops, j.pes[4].flops })
    assert.are.same({ 14, 2, 0.875 }, { j.caches[1].hits, j.caches[1].misses, j.caches[1].hit_ratio })
    assert.are.same({ 13, 3 }, { j.caches[2].hits, j.caches[2].misses })
    assert.are.equal(32, j.totals.loads)
    assert.are.equal(27, j.totals.hits)
  end)

  it("runs three parallel groups of column updates on 3 PEs and on 2", function()
    -- 100 x 100 matrix: column c starts at word 100(c-1), so rows 17..32 of
    -- column 1 are line 1 (words 16..31) but of column 2 words 116..131, lines 7
    -- and 8 (lines of 16). One shared cache of 8 lines, 3 PEs, the definition
    -- no step: step 1 flops; step 2 PE 0 misses line 0 then 15 hits, PEs 1 and
    -- 2 hit 16 times; step 3 PE 0 line 1 (1 miss), PE 1 lines 7-8 and PE 2
    -- lines 13-14 (2 misses each); step 4 the stores
    local j = json(fixture("three_groups.shm"), "--pes", "3", "--caches", "1", "--cache-size", "128",
      "--line", "16", "--json")
    assert.are.equal(4, j.steps)
    assert.are.same({ 90, 6 }, { j.caches[1].hits, j.caches[1].misses })
    for i = 1, 3 do
      assert.are.same({ 32, 16, 16 }, { j.pes[i].loads, j.pes[i].stores, j.pes[i].flops })
    end
    -- 2 PEs: the third group waits for PE 0: 4 + 4 steps; PE 1 idle at the end
    local j2 = json(fixture("three_groups.shm"), "--pes", "2", "--no-cache", "--json")
    assert.are.equal(8, j2.steps)
    assert.are.same({ 64, 32 }, { j2.pes[1].loads, j2.pes[2].loads })
  end)

  it("gives every built-in policy's hand-computed counts", function()
    local want = { lru = { 3, 11 }, lfu = { 5, 9 }, fifo = { 4, 10 }, lifo = { 6, 8 }, clock = { 4, 10 } }
    for pol, hm in pairs(want) do
      local j = json(fixture("policy.shm"), "--cache-size", "4", "--line", "1", "--policy", pol, "--json")
      assert.are.same(hm, { j.caches[1].hits, j.caches[1].misses }, pol)
      assert.are.equal(14, j.steps) -- one per load; the definition is no step
    end
    local a = json(fixture("policy.shm"), "--cache-size", "4", "--line", "1", "--policy", "random",
      "--seed", "42", "--json")
    local b = json(fixture("policy.shm"), "--cache-size", "4", "--line", "1", "--policy", "random",
      "--seed", "42", "--json")
    assert.are.same(a, b)
    assert.are.equal(14, a.caches[1].hits + a.caches[1].misses)
  end)

  it("takes a policy from a FILE.lua", function()
    local pf = h.temp_file([[
local cache = require "retrace.cache"
return cache.policy{ name = "first", victim = function() return 1 end }
]], ".lua")
    local j = json(fixture("policy.shm"), "--cache-size", "4", "--line", "1", "--policy", pf, "--json")
    assert.are.same({ 6, 8 }, { j.caches[1].hits, j.caches[1].misses })
    local j2 = json(fixture("policy.shm"), "--cache-size", "4", "--line", "1", "--policy", "mru", "--json")
    assert.are.same({ 6, 8 }, { j2.caches[1].hits, j2.caches[1].misses })
    local bad = h.temp_file("return 42\n", ".lua")
    local code, _, err = h.retrace("shmap", fixture("policy.shm"), "--policy", bad)
    assert.are.equal(1, code)
    assert.matches("a policy file must return a policy table", err, 1, true)
    -- a policy failing mid-run: its one-line message, exit 1, no traceback
    local boom = h.temp_file('return { name = "boom", victim = function() error("no luck") end }\n', ".lua")
    local bcode, _, berr = h.retrace("shmap", fixture("policy.shm"), "--cache-size", "4", "--line", "1",
      "--policy", boom)
    assert.are.equal(1, bcode)
    assert.are.equal("retrace: policy boom: victim: " .. boom .. ":1: no luck\n", berr)
    local far = h.temp_file('return { name = "far", victim = function() return 77 end }\n', ".lua")
    local fcode, _, ferr = h.retrace("shmap", fixture("policy.shm"), "--cache-size", "4", "--line", "1",
      "--policy", far)
    assert.are.equal(1, fcode)
    assert.are.equal("retrace: policy far: victim: returned 77, not a way 1..4\n", ferr)
    os.remove(pf)
    os.remove(bad)
    os.remove(boom)
    os.remove(far)
  end)

  it("counts stores under write-back and nothing without a cache", function()
    local p = h.temp_file("0 1 8 1\n1 1 1 8 1 1 1.0\n2 1 1 8 1 1 2.0\n")
    local wt = json(p, "--cache-size", "16", "--line", "4", "--json")
    assert.are.same({ 6, 2 }, { wt.caches[1].hits, wt.caches[1].misses })
    local wb = json(p, "--cache-size", "16", "--line", "4", "--write-back", "--json")
    assert.are.same({ 14, 2 }, { wb.caches[1].hits, wb.caches[1].misses })
    local code, out = h.retrace("shmap", p, "--no-cache", "--json")
    assert.are.equal(0, code)
    assert.matches('"caches":%[%]', out)
    os.remove(p)
  end)

  it("prints a readable report", function()
    local code, out = h.retrace("shmap", fixture("machine.shm"), "--pes", "4", "--caches", "2",
      "--cache-size", "16", "--line", "4")
    assert.are.equal(0, code)
    assert.matches("machine: 4 PEs, 2 caches of 16 words, lines of 4 words, fully associative, lru, write%-through", out)
    assert.matches("\n +3 +1 +8 +0 +20  sgemm", out)
    assert.matches("\n +1 +13 +3 +81%.25%%", out)
    assert.matches("1 matrix, 13 events %(8 loads, 0 stores%)", out)
    assert.matches("steps: 4\n", out)
  end)

  it("checks its options (exit 2) and its input (exit 1)", function()
    local f = fixture("machine.shm")
    local usage = {
      { { "--pes", "0" }, "--pes: 0 is outside 1..256" },
      { { "--pes", "300" }, "--pes: 300 is outside 1..256" },
      { { "--pes", "2", "--caches", "4" }, "--caches: 4 is outside 1..2 (the number of PEs)" },
      { { "--cache-size", "100" }, "--cache-size: 100 words is not a power of two" },
      { { "--line", "6" }, "--line: 6 words is not a power of two" },
      { { "--cache-size", "8", "--line", "16" }, "--line: 16 words is larger than the cache size 8 words" },
      { { "--ways", "3" }, "--ways: 3 does not divide the 256 lines of the cache" },
      { { "--policy", "belady" }, "--policy: policy: unknown 'belady' (built-ins: lru lfu fifo lifo clock random); shipped Lua policies: lua_lru mru plru; or FILE.lua" },
      { { "--policy", "mru-ish" }, "--policy: policy: unknown 'mru-ish' (built-ins:" },
      { { "--policy", "/nonexistent.lua" }, "--policy: cannot open '/nonexistent.lua'" },
      { { "--pes", "two" }, "--pes: 'two' is not an integer" },
      { { "--write-back", "--no-cache" }, "--write-back and --no-cache: choose one" },
    }
    for _, c in ipairs(usage) do
      local code, _, err = h.retrace("shmap", f, table.unpack(c[1]))
      assert.are.equal(2, code, table.concat(c[1], " "))
      assert.matches(c[2], err, 1, true)
    end
    local p = h.temp_file("0 1 4 4\n6 open\n1 1 1 1 1 1 0.0\n")
    local code, _, err = h.retrace("shmap", p)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. p .. ":2: parallel start: parallel section never closed (end of file at line 3)\n", err)
    os.remove(p)
    code, _, err = h.retrace("shmap", "/nonexistent.shm")
    assert.are.equal(1, code)
    assert.matches("nonexistent.shm: No such file", err)
  end)
end)
