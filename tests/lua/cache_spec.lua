-- retrace.cache from Lua: built-in and Lua policies (worked out by hand), the
-- Lua LRU against the C LRU on a long random trace, Random per seed, policy
-- errors, and `retrace cache` (reports, JSON, conversion, every error).
local cache = require "retrace.cache"
local h = require "helpers"
local cjson = require "cjson"

-- the reference string 1 2 3 4 1 2 5 1 2 3 4 5 on 4 one-unit lines, fully associative
local BELADY = { 1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5 }

local function run_loads(c, trace)
  local out = {}
  for i, a in ipairs(trace) do
    out[i] = c:access(a, false) and "h" or "m"
  end
  return table.concat(out)
end

local function ways(c, n)
  local t = {}
  for w = 1, n do t[w] = c:line_at(0, w) or false end
  return t
end

local lcg = h.lcg

-- a din file of n references: one in every `wr` a store, addresses k * step for k < nlines
local function random_din(seed, n, wr, nlines, step)
  local lines, rnd = {}, lcg(seed)
  for i = 1, n do lines[i] = string.format("%d %x", rnd(wr) == 0 and 1 or 0, rnd(nlines) * step) end
  return h.temp_file(table.concat(lines, "\n") .. "\n")
end

describe("built-in policies from Lua", function()
  it("give the hand-computed hits and misses", function()
    local expect = {
      lru = "mmmmhhmhhmmm", fifo = "mmmmhhmmmmmm", lifo = "mmmmhhmhhhmm",
      lfu = "mmmmhhmhhmhm", clock = "mmmmhhmmmmmm",
    }
    for name, want in pairs(expect) do
      local c = cache.new{ size = 4, line = 1, policy = name }
      assert.are.equal(want, run_loads(c, BELADY), name)
    end
  end)

  it("report the access and the counters", function()
    local c = cache.new{ size = 8, line = 2, ways = 2, write_back = true }
    local hit, way, line, evicted = c:access(5, true)
    assert.are.same({ false, 1, 2 }, { hit, way, line })
    assert.is_nil(evicted)
    assert.is_true((c:access(4, false)))
    local s = c:stats()
    assert.are.same({ 2, 1, 1, 1, 1 }, { s.refs, s.hits, s.misses, s.reads, s.writes })
    assert.are.equal(0.5, s.hit_ratio)
    local cfg = c:config()
    assert.are.same({ 8, 2, 2, 2, "lru", true }, { cfg.size, cfg.line, cfg.ways, cfg.sets, cfg.policy, cfg.write_back })
    c:close()
    assert.has_error(function() c:stats() end)
  end)

  it("write-through stores do not look up", function()
    local c = cache.new{ size = 8, line = 1, write_back = false }
    assert.is_nil(c:access(3, true))
    assert.are.equal(0, c:stats().refs)
    assert.are.equal(1, c:stats().bypassed_writes)
  end)

  it("is write-back write-allocate by default, as retrace cache", function()
    local c = cache.new{ size = 8, line = 1 }
    assert.is_false(c:access(3, true)) -- a store looks up, misses and allocates
    assert.is_true(c:access(3, false))
    assert.are.equal(2, c:stats().refs)
    assert.is_true(c:config().write_back)
  end)

  it("refuse impossible geometries", function()
    assert.has_error(function() cache.new{ size = 48, line = 4 } end, "cache size: 48 is not a power of two")
    assert.has_error(function() cache.new{ size = 64, line = 4, ways = 3 } end,
      "ways: 3 does not divide the 16 lines of the cache")
    assert.has_error(function() cache.new{ size = 64, line = 4, policy = "nope" } end)
  end)
end)

describe("Lua policies", function()
  it("MRU by hand", function()
    -- fills t1-t4; 1 h (t5), 2 h (t6); 5 evicts the MRU line 2 (way 2);
    -- 1 h (t8); 2 evicts 1 (t8, way 1); 3 4 5 hit
    local c = cache.new{ size = 4, line = 1, policy = "mru" }
    assert.are.equal("mmmmhhmhmhhh", run_loads(c, BELADY))
    assert.are.same({ 2, 5, 3, 4 }, ways(c, 4))
  end)

  it("names are looked up once: built-ins by the core, Lua policies by retrace.cache", function()
    local core = require "retrace.core"
    -- the C side takes built-in names and policy tables only; its message lists the built-ins
    assert.are.equal("lfu", core.cache.lookup("lfu"))
    local none, why = core.cache.lookup("mru")
    assert.is_nil(none)
    assert.are.equal("policy: unknown 'mru' (built-ins: lru lfu fifo lifo clock random)", why)
    local ok, err = pcall(core.cache.new, { size = 4, line = 1, policy = "mru" })
    assert.is_false(ok)
    assert.truthy(err:find("policy: unknown 'mru' (built-ins: lru lfu fifo lifo clock random)", 1, true), err)
    -- retrace.cache turns a shipped name into its table, which the C side takes
    local c = core.cache.new{ size = 4, line = 1, policy = assert(cache.resolve_policy("mru")) }
    assert.are.equal("mmmmhhmhmhhh", run_loads(c, BELADY))
    local p, msg = cache.resolve_policy("nope")
    assert.is_nil(p)
    assert.are.equal("policy: unknown 'nope' (built-ins: lru lfu fifo lifo clock random); " ..
      "shipped Lua policies: lua_lru mru plru; or FILE.lua", msg)
  end)

  it("one geometry check and one hit ratio, the core's, for every front end", function()
    assert.is_true(cache.check_geometry(64, 4, 16))
    assert.is_true(cache.check_geometry(64, 4))
    local cases = {
      { { 48, 4, 0 }, "cache size: 48 is not a power of two" },
      { { 64, 3, 0 }, "line size: 3 is not a power of two" },
      { { 64, 128, 0 }, "line size: 128 is larger than the cache size 64" },
      { { 64, 4, 3 }, "ways: 3 does not divide the 16 lines of the cache" },
      { { 64, 4, 32 }, "ways: 32 does not divide the 16 lines of the cache" },
      { { 64, 4, -1 }, "ways: -1 is negative" },
      { { 12, 4, 0, "words" }, "cache size: 12 words is not a power of two" },
      { { 8, 16, 0, "bytes" }, "line size: 16 bytes is larger than the cache size 8 bytes" },
    }
    for _, c in ipairs(cases) do
      local ok, err = cache.check_geometry(table.unpack(c[1]))
      assert.is_nil(ok)
      assert.are.equal(c[2], err)
    end
    assert.are.equal(0, cache.hit_ratio(0, 0))
    assert.are.equal(0.75, cache.hit_ratio(3, 1))
    -- the statistics of a cache and of a sweep use the same definition
    local c = cache.new{ size = 4, line = 1 }
    for _, a in ipairs({ 1, 2, 1, 1, 3 }) do c:access(a, false) end
    local st = c:stats()
    assert.are.same({ 2, 3, 0.4 }, { st.hits, st.misses, st.hit_ratio })
  end)

  it("tree pseudo-LRU by hand", function()
    -- bits b1 (root), b2 (ways 1-2), b3 (ways 3-4); 0 points left.
    -- fills leave b = 000; 1 h -> 110; 2 h -> 100; 5: root right, b3 left:
    -- way 3 (line 3) -> 001; 1 h -> 111; 2 h -> 101; 3: right, right: way 4
    -- (line 4) -> 000; 4: left, left: way 1 (line 1) -> 110; 5 h (way 3).
    local c = cache.new{ size = 4, line = 1, policy = "plru" }
    assert.are.equal("mmmmhhmhhmmh", run_loads(c, BELADY))
    assert.are.same({ 4, 2, 5, 3 }, ways(c, 4))
  end)

  it("the Lua LRU equals the C LRU on a long random trace", function()
    for _, g in ipairs{ { 64, 1, 0 }, { 256, 4, 4 }, { 1024, 16, 8 }, { 512, 8, 1 }, { 4096, 64, 2 } } do
      local a = cache.new{ size = g[1], line = g[2], ways = g[3], policy = "lru", write_back = true }
      local b = cache.new{ size = g[1], line = g[2], ways = g[3], policy = "lua_lru", write_back = true }
      local rnd = lcg(g[1] + g[3])
      local span = g[1] * 4
      for _ = 1, 30000 do
        local addr = rnd(4) > 0 and rnd(span // 2) or rnd(span * 3)
        local w = rnd(3) == 0
        local h1, w1, l1, e1 = a:access(addr, w)
        local h2, w2, l2, e2 = b:access(addr, w)
        if h1 ~= h2 or w1 ~= w2 or l1 ~= l2 or e1 ~= e2 then
          error(string.format("geometry %d/%d/%d: differ at address %d", g[1], g[2], g[3], addr))
        end
      end
      local sa, sb = a:stats(), b:stats()
      assert.are.same(sa, sb)
      assert.is_true(sa.misses > 1000 and sa.hits > 1000, string.format("%d misses %d hits", sa.misses, sa.hits))
    end
  end)

  it("only calls the hooks a policy defines, with set tables that persist", function()
    local calls = { victim = 0 }
    local seen = {}
    local p = cache.policy{
      name = "first",
      init = function(set)
        set.state.born = set.index
        seen[#seen + 1] = set.ways
      end,
      victim = function(set, now)
        calls.victim = calls.victim + 1
        assert(set.state.born == set.index)
        return 1
      end,
    }
    local c = cache.new{ size = 16, line = 1, ways = 4, policy = p }
    assert.are.same({ 4, 4, 4, 4 }, seen)
    -- set 0 gets lines 0 4 8 12 then 16: one victim call, evicting way 1
    for _, a in ipairs{ 0, 4, 8, 12, 16, 4 } do c:access(a) end
    assert.are.equal(1, calls.victim)
    assert.are.same({ 16, 4, 8, 12 }, ways(c, 4))
  end)

  it("report a bad victim or a failing hook", function()
    local bad = cache.policy{ name = "bad", victim = function() return 0 end }
    local c = cache.new{ size = 4, line = 1, policy = bad }
    for a = 1, 4 do c:access(a) end
    assert.has_error(function() c:access(5) end, "policy bad: victim: returned 0, not a way 1..4")
    local boom = cache.policy{ name = "boom", hit = function() error("no luck") end, victim = function() return 1 end }
    c = cache.new{ size = 4, line = 1, policy = boom }
    c:access(1)
    local ok, err = pcall(c.access, c, 1)
    assert.is_false(ok)
    assert.truthy(err:find("policy boom: hit: ", 1, true))
    assert.truthy(err:find("no luck", 1, true))
    local ok1, e1 = pcall(cache.policy, { name = "x" })
    assert.is_false(ok1)
    assert.truthy(e1:find("cache.policy x: a victim function is required", 1, true))
    local ok2, e2 = pcall(cache.policy, { victim = function() end })
    assert.is_false(ok2)
    assert.truthy(e2:find("cache.policy: a name is required", 1, true))
  end)

  it("a hook cannot close, access, flush or reset its own cache (it is mid-access)", function()
    for _, what in ipairs({ "close", "access", "flush", "reset" }) do
      local c
      local evil = cache.policy{ name = "evil", victim = function()
        if what == "access" then c:access(99) else c[what](c) end
        return 1
      end }
      c = cache.new{ size = 2, line = 1, policy = evil }
      c:access(1)
      c:access(2)
      local ok, err = pcall(c.access, c, 3) -- needs a victim
      assert.is_false(ok)
      assert.truthy(err:find("policy evil: victim: ", 1, true), err)
      assert.truthy(err:find("cannot " .. what .. " a cache from its own policy", 1, true), err)
      -- the cache is intact and usable once the hook has returned (the failed
      -- reference is counted, its line not filled)
      assert.are.same({ refs = 3, misses = 3 }, { refs = c:stats().refs, misses = c:stats().misses })
      assert.is_false(c:probe(3))
      assert.is_true(c:probe(1))
      assert.is_true((c:access(1))) -- a hit
      c:close()
    end
  end)

  it("load from a file returning a policy table", function()
    local path = h.temp_file([[
      local n = 0
      return { name = "roundrobin", victim = function(set, now)
        set.state.next = (set.state.next or 0) % set.ways + 1
        return set.state.next
      end }
    ]], ".lua")
    local c = cache.new{ size = 4, line = 1, policy = path }
    -- evictions in order ways 1, 2, 3 (FIFO here, since fills went 1..4)
    assert.are.equal("mmmmhhmmmmmm", run_loads(c, BELADY))
    assert.are.equal("roundrobin", c:config().policy)
    os.remove(path)
    local broken = h.temp_file("return 42", ".lua")
    assert.is_nil((cache.resolve_policy(broken)))
    os.remove(broken)
  end)
end)

describe("retrace cache", function()
  local din = h.temp_file(table.concat({
    "0 1000", "1 1004", "2 400000", "0 1040", "0 2000 a comment", "3 0", "0 1000",
  }, "\n") .. "\n")
  teardown(function() os.remove(din) end)
  -- hand count, 128 bytes, 64-byte lines, 2 ways, LRU, write-back:
  -- 1000 m, 1004 h (dirty), ifetch ignored, 1040 m, 2000 m evicts 1000 (dirty:
  -- writeback), escape ignored, 1000 m evicts 1040 (capacity: the fully
  -- associative shadow of 2 lines misses too)

  it("reports JSON with the issue's keys", function()
    local code, out = h.retrace("cache", din, "--size", "128", "--line", "64", "--classify", "--sweep", "--json")
    assert.are.equal(0, code)
    local j = cjson.decode(out)
    assert.are.same({ 5, 4, 1, 4, 4, 0, 2 },
      { j.refs, j.reads, j.writes, j.misses, j.read_misses, j.write_misses, j.ignored })
    assert.are.equal(0.2, j.hit_ratio)
    assert.are.same({ 3, 1, 0 }, { j.compulsory, j.capacity, j.conflict })
    assert.are.equal(1, j.writebacks)
    assert.are.same({ 64, 128, 256 }, { j.sweep[1].size, j.sweep[2].size, j.sweep[3].size })
    assert.are.same({ 4, 4, 3 }, { j.sweep[1].misses, j.sweep[2].misses, j.sweep[3].misses })
  end)

  it("prints a readable report", function()
    local code, out = h.retrace("cache", din, "--size", "128", "--line", "64", "--classify")
    assert.are.equal(0, code)
    assert.truthy(out:find("(din): 7 records, 2 ignored", 1, true))
    assert.truthy(out:find("2-way (1 sets), lru, write-back write-allocate", 1, true))
    assert.truthy(out:find("compulsory 3, capacity 1, conflict 0", 1, true))
  end)

  it("--unified and --write-through change what is looked up", function()
    local _, out = h.retrace("cache", din, "--size", "128", "--line", "64", "--unified", "--json")
    local j = cjson.decode(out)
    assert.are.same({ 6, 1 }, { j.refs, j.ignored })
    _, out = h.retrace("cache", din, "--size", "128", "--line", "64", "--write-through", "--json")
    j = cjson.decode(out)
    assert.are.same({ 4, 0, 1 }, { j.refs, j.writes, j.bypassed_writes })
  end)

  it("converts to the binary format, detects it and gives the same counts", function()
    local bin = os.tmpname()
    local code, out = h.retrace("cache", din, "--convert", bin)
    assert.are.equal(0, code)
    assert.truthy(out:find("7 records written", 1, true))
    local _, a = h.retrace("cache", din, "--size", "128", "--line", "64", "--json", "--classify")
    local _, b = h.retrace("cache", bin, "--size", "128", "--line", "64", "--json", "--classify")
    local ja, jb = cjson.decode(a), cjson.decode(b)
    assert.are.equal("bin", jb.format)
    local _, info = h.retrace("info", bin, "--json")
    assert.are.equal("bin", cjson.decode(info)[1].format)
    jb.format = "din"
    assert.are.same(ja, jb)
    os.remove(bin)
  end)

  it("reads extended din and lackey logs", function()
    local x = h.temp_file("r 3e 4\nw 40 40\ni 1000 4\nm 0 1\nr 80 1\n")
    local _, out = h.retrace("cache", x, "--size", "1K", "--line", "64", "--ways", "4", "--json")
    local j = cjson.decode(out)
    assert.are.equal("xdin", j.format)
    assert.are.same({ 4, 3, 2 }, { j.refs, j.misses, j.ignored })
    local l = h.temp_file("==1== Lackey\nI  0400,3\n M 1ffe0,8\n L 1ffe0,8\n S 20000,8\n")
    _, out = h.retrace("cache", l, "--json")
    j = cjson.decode(out)
    assert.are.equal("lackey", j.format)
    assert.are.same({ 4, 2, 2, 2, 1 }, { j.refs, j.reads, j.writes, j.misses, j.ignored })
    -- valgrind's debug lines (--PID--, --trace-sched) and client output (**PID**, what
    -- libretrace_alloc.so writes) are skipped like its ==PID== messages
    local l2 = h.temp_file("==1== Lackey\n--1--   SCHED[1]:  acquired lock (x)\nI  0400,3\n M 1ffe0,8\n" ..
      "**1** rt A 4a000 64 400/500\n L 1ffe0,8\n S 20000,8\n")
    local _, out2 = h.retrace("cache", l2, "--json")
    local j2 = cjson.decode(out2)
    assert.are.same({ 4, 2, 2, 2, 1 }, { j2.refs, j2.reads, j2.writes, j2.misses, j2.ignored })
    os.remove(l2)
    os.remove(x)
    os.remove(l)
  end)

  it("the random policy is reproducible per seed", function()
    local t = random_din(5, 4000, 3, 64, 64)
    local function misses(seed)
      local code, out = h.retrace("cache", t, "--size", "1K", "--ways", "4", "--policy", "random", "--seed", seed, "--json")
      assert.are.equal(0, code)
      return cjson.decode(out).misses
    end
    local m7 = misses("7")
    assert.are.equal(m7, misses("7"))
    local differs = false
    for _, s in ipairs{ "8", "9", "10" } do
      if misses(s) ~= m7 then differs = true end
    end
    assert.is_true(differs)
    os.remove(t)
  end)

  it("the Lua LRU gives the C LRU's counts through the command", function()
    local t = random_din(11, 5000, 4, 200, 16)
    local _, a = h.retrace("cache", t, "--size", "1K", "--ways", "4", "--json", "--classify")
    local _, b = h.retrace("cache", t, "--size", "1K", "--ways", "4", "--json", "--classify",
      "--policy", h.source .. "/lua/retrace/policies/lua_lru.lua")
    local ja, jb = cjson.decode(a), cjson.decode(b)
    assert.are.equal("lua_lru", jb.config.policy)
    jb.config.policy = "lru"
    assert.are.same(ja, jb)
    os.remove(t)
  end)

  it("reports bad input with file, line and field (exit 1)", function()
    local bad = h.temp_file("0 10\n0 20\n9 30\n")
    local code, _, err = h.retrace("cache", bad, "--format", "din")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. bad .. ":3: label: '9' is not 0-4\n", err)
    code, _, err = h.retrace("cache", "/nonexistent/trace.din", "--format", "din")
    assert.are.equal(1, code)
    assert.are.equal("retrace: /nonexistent/trace.din: No such file or directory\n", err)
    code, _, err = h.retrace("cache", bad, "--format", "din", "--convert", "/nonexistent/dir/out.rtmb")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent/dir/out.rtmb: No such file or directory", 1, true))
    local shm = h.temp_file("0 1 4 4\n1 1 1 4 1 1 0.5\n")
    code, _, err = h.retrace("cache", shm)
    assert.are.equal(1, code)
    -- what the file is and the command that reads it
    assert.truthy(err:find("is a SHMAP memory-access trace", 1, true), err)
    assert.truthy(err:find("try 'retrace shmap " .. shm .. "'", 1, true), err)
    -- converting a trace onto itself: refused, the input left whole
    local text = "0 10\n0 20\n"
    local self = h.temp_file(text)
    local dir, base = self:match("^(.*)/([^/]+)$")
    code, _, err = h.retrace("cache", self, "--format", "din", "--convert", dir .. "/./" .. base)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. dir .. "/./" .. base .. ": is the input trace (it would be overwritten while read)\n", err)
    assert.are.equal(text, h.slurp(self))
    os.remove(self)
    -- a policy file whose hook fails: one line (no traceback), exit 1
    local boom = h.temp_file('return { name = "boom", victim = function() error("no luck") end }\n', ".lua")
    local din = h.temp_file("0 0\n0 10\n0 20\n")
    code, _, err = h.retrace("cache", din, "--format", "din", "--size", "16", "--line", "16", "--policy", boom)
    assert.are.equal(1, code)
    assert.are.equal("retrace: policy boom: victim: " .. boom .. ":1: no luck\n", err)
    os.remove(boom)
    os.remove(din)
    os.remove(bad)
    os.remove(shm)
  end)

  it("reports impossible options (exit 2)", function()
    local cases = {
      { { "--size", "48" }, "cache size: 48 is not a power of two" },
      { { "--size", "lots" }, "--size: 'lots' is not a byte count" },
      { { "--line", "128", "--size", "64" }, "line size: 128 is larger than the cache size 64" },
      { { "--ways", "3" }, "ways: 3 does not divide the 512 lines of the cache" },
      { { "--ways", "0" }, "--ways: '0' is not a positive integer" },
      { { "--format", "csv" }, "--format: expected din, xdin, lackey or bin, got 'csv'" },
      { { "--policy", "belady" }, "--policy: policy: unknown 'belady'" },
      { { "--seed", "x" }, "--seed: 'x' is not a non-negative integer" },
    }
    for _, c in ipairs(cases) do
      local code, _, err = h.retrace("cache", din, table.unpack(c[1]))
      assert.are.equal(2, code, table.concat(c[1], " "))
      assert.truthy(err:find(c[2], 1, true), err)
    end
  end)
end)

describe("retrace.cache.run", function()
  it("runs a whole trace in C, with a progress callback", function()
    local lines = {}
    for i = 1, 3000 do lines[i] = string.format("0 %x", (i % 100) * 64) end
    local t = h.temp_file(table.concat(lines, "\n") .. "\n")
    local calls = 0
    local r = assert(cache.run(t, { size = 4096, line = 64, progress = function() calls = calls + 1 end }))
    -- 100 lines cycle through a 64-line LRU cache: every reference misses
    assert.are.same({ 3000, 3000 }, { r.refs, r.misses })
    assert.is_true(calls >= 1)
    r = assert(cache.run(t, { size = 8192, line = 64 }))
    assert.are.equal(100, r.misses)
    local none, msg = cache.run("/nonexistent", { format = "din" })
    assert.is_nil(none)
    assert.truthy(msg:find("No such file", 1, true))
    os.remove(t)
  end)
end)

describe("the lackey example", function()
  it("shows the blocked transpose missing less than the naive one", function()
    if not os.execute("command -v valgrind >/dev/null 2>&1 && command -v cc >/dev/null 2>&1") then
      pending("valgrind or cc absent, skipped")
      return
    end
    local out = os.tmpname()
    local ok = os.execute(string.format("sh %s/examples/lackey/run.sh %s >%s 2>&1",
      h.quote(h.source), h.quote(h.bin), out))
    local text = h.slurp(out)
    os.remove(out)
    assert.is_true(ok, text)
    local writes = {}
    for m in text:gmatch("misses%s+[%d,]+%s+read [%d,]+%s+write ([%d,]+)") do
      writes[#writes + 1] = tonumber((m:gsub(",", "")))
    end
    assert.are.equal(2, #writes, text)
    -- naive: a store to a new line for most elements; blocked: one per 8
    assert.is_true(writes[2] * 3 < writes[1], text)
  end)
end)
