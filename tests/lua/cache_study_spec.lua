-- Parameter studies: `retrace cache TRACE --configs FILE` and `retrace memspy TRACE
-- --machines FILE` give one row per line of the file, in file order; each row equals a run
-- of that one configuration; under mpirun (N = 1..4, oversubscribed) the output is the serial
-- run's, byte for byte; a bad line is one message naming the file, the line and the option,
-- exit 1 on every rank. Also: `memspy --hierarchy` takes Dinero IV's option names (the one
-- parser of the short form, rt_hier_parse_short).
local h = require "helpers"
local cjson = require "cjson"

-- n random references (reads, writes, instruction fetches, misc) of 1 to 16 bytes over
-- 64 KiB, as xdin
local function xdin(seed, n)
  local rand, out = h.lcg(seed), {}
  for i = 1, n do
    local k = ({ "r", "w", "i", "r", "w", "m" })[rand(6) + 1]
    out[i] = ("%s %x %x"):format(k, rand(1 << 16), 1 + rand(16))
  end
  return h.temp_file(table.concat(out, "\n") .. "\n", ".xdin")
end

-- the lines of the study (with a comment, a blank line and Dinero IV's option names), and
-- how each one runs alone (the hierarchy as --hierarchy, or the options after --)
local STUDY = {
  { "l1:8k/32:2", { "--hierarchy", "l1:8k/32:2" } },
  { "l1i:8k/32:2 l1d:16k/64/16:4:fetch=t:wa=f l2:128k/64:8   # two levels",
    { "--hierarchy", "l1i:8k/32:2 l1d:16k/64/16:4:fetch=t:wa=f l2:128k/64:8" } },
  { "" },
  { "  -l1-dsize 32k -l1-dbsize 64 -l1-dassoc 8 -l1-isize 16k -l1-ibsize 64 -l1-iassoc 4 -l1-drepl f",
    { "--", "-l1-dsize", "32k", "-l1-dbsize", "64", "-l1-dassoc", "8", "-l1-isize", "16k", "-l1-ibsize", "64",
      "-l1-iassoc", "4", "-l1-drepl", "f" } },
  { "# a fully associative one" },
  { "l1:4k/64:full:repl=fifo l2:32k/64:4:exclusive=1", { "--hierarchy", "l1:4k/64:full:repl=fifo l2:32k/64:4:exclusive=1" } },
}

local function study_file()
  local lines = {}
  for i, s in ipairs(STUDY) do lines[i] = s[1] end
  return h.temp_file(table.concat(lines, "\n") .. "\n", ".txt")
end

-- the command's output with --json and without it, under mpirun -np 1..4, equals the
-- serial run's byte for byte (exit code, stdout, stderr)
local function same_under_mpirun(...)
  for _, json in ipairs({ false, true }) do
    local args = { ... }
    if json then args[#args + 1] = "--json" end
    local c0, o0, e0 = h.retrace(table.unpack(args))
    assert.are.equal(0, c0, e0)
    for n = 1, 4 do
      local c, o, e = h.mpirun(n, table.unpack(args))
      assert.are.equal(0, c, "-np " .. n .. ": " .. e)
      assert.are.equal(o0, o, "-np " .. n)
      assert.are.equal(e0, e, "-np " .. n)
    end
  end
end

local function lines_of(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

describe("retrace cache --configs", function()
  it("gives one row per configuration, each the run of that configuration alone", function()
    local trace, file = xdin(3, 20000), study_file()
    local code, out, err = h.retrace("cache", trace, "--configs", file, "--json")
    assert.are.equal(0, code, err)
    local j = cjson.decode(out)
    assert.are.equal(20000, j.records)
    local rows, text = {}, nil
    for i, s in ipairs(STUDY) do if s[2] then rows[#rows + 1] = { i, s } end end
    assert.are.equal(#rows, #j.configs)
    local c2, o2, e2 = h.retrace("cache", trace, "--configs", file)
    assert.are.equal(0, c2, e2)
    text = lines_of(o2)
    assert.are.equal(2 + #rows, #text) -- the title, the head, one row each
    for k, r in ipairs(rows) do
      local got = j.configs[k]
      assert.are.equal(r[1], got.line)
      local c1, o1, e1 = h.retrace("cache", trace, "--json", table.unpack(r[2][2])) -- options after -- last
      assert.are.equal(0, c1, e1)
      local one = cjson.decode(o1)
      assert.are.same(one.caches, got.caches)
      assert.are.same(one.memory, got.memory)
      assert.are.equal(one.hierarchy, got.hierarchy)
      assert.are.equal(one.simulated, got.simulated)
      -- the row's figures, added up by hand from the run alone
      local l1f, l1m, deepest = 0, 0, 1
      for _, c in ipairs(one.caches) do deepest = math.max(deepest, c.level) end
      local lastm, from, to = 0, 0, 0
      for _, c in ipairs(one.caches) do
        if c.level == 1 and c.kind ~= "instruction" then
          l1f = l1f + c.fetches.read + c.fetches.write + c.fetches.misc
          l1m = l1m + c.misses.read + c.misses.write + c.misses.misc
        end
        if c.level == deepest then
          lastm, from, to = lastm + c.misses.total, from + c.bytes_from_memory, to + c.bytes_to_memory
        end
      end
      assert.are.equal(l1m, got.summary.l1_misses)
      assert.are.equal(l1f, got.summary.l1_fetches)
      assert.are.equal(lastm, got.summary.last_misses)
      assert.are.equal(from, got.summary.bytes_from_memory)
      assert.are.equal(to, got.summary.bytes_to_memory)
      assert.is_true(l1m > 0 and l1m < l1f)
      -- the text row: line, L1 data misses, rate, last misses, ..., the configuration as written
      local f = {}
      for w in text[2 + k]:gmatch("%S+") do f[#f + 1] = w end
      assert.are.equal(tostring(r[1]), f[1])
      assert.are.equal(l1m, math.tointeger(tonumber((f[2]:gsub(",", "")))))
      assert.are.equal(string.format("%.4f", l1m / l1f), f[3])
      assert.are.equal(lastm, math.tointeger(tonumber((f[4]:gsub(",", "")))))
      assert.truthy(text[2 + k]:find(got.config, 1, true))
    end
    os.remove(trace)
    os.remove(file)
  end)

  it("cache.study from Lua: strings and tables of caches, each equal to cache.simulate", function()
    local cache = require "retrace.cache"
    local trace = xdin(12, 5000)
    local list = { "l1:8k/32:2", { caches = { { level = 1, kind = "unified", size = "8k", block = 32, assoc = 2 } } },
      { caches = { { level = 1, kind = "unified", size = "2k", block = 16, assoc = 1, policy = "lua_lru" } } },
      { dinero = "-l1-usize 2k -l1-ubsize 16 -l1-uassoc 1" } }
    local rows = cache.study(trace, list, { format = "xdin" })
    assert.are.equal(4, #rows)
    assert.are.same(rows[1].caches, rows[2].caches)
    assert.are.same(rows[1].summary, rows[2].summary)
    assert.are.same(rows[3].caches, rows[4].caches) -- direct-mapped: every policy is the same
    local one = assert(cache.simulate(trace, { format = "xdin", spec = "l1:8k/32:2" }))
    assert.are.same(one.caches, rows[1].caches)
    assert.are.equal(one.caches[1].misses.total, rows[1].summary.last_misses)
    assert.has_error(function() cache.study(trace, { "l1:8k/32:2", "l1:2k/3:1" }) end)
    os.remove(trace)
  end)

  it("names the file, the line and the option of a bad line (exit 1)", function()
    local trace = xdin(4, 100)
    for _, case in ipairs({
      { "l1:8k/32:2\n# fine\nl1:8x/32:2\n", ":3: l1: size: bad value '8x'" },
      { "l1:8k/32:2\n-l1-usize 8k -l1-ubsize 32 -l1-uassoc two\n", ":2: -l1-uassoc: assoc: bad value 'two'" },
      { "l1:8k/32:2\nl1:8k/32:2:what=1\n", ":2: l1: unknown option 'what'" },
      { "# nothing\n\n", ": no configuration (one hierarchy per line)" },
    }) do
      local file = h.temp_file(case[1], ".txt")
      local code, out, err = h.retrace("cache", trace, "--configs", file)
      assert.are.equal(1, code)
      assert.are.equal("", out)
      assert.are.equal("retrace: " .. file .. case[2] .. "\n", err)
      os.remove(file)
    end
    local c, _, e = h.retrace("cache", trace, "--configs", "/tmp/cache6-no-such-file")
    assert.are.equal(1, c)
    assert.truthy(e:find("cache6-no-such-file", 1, true))
    c, _, e = h.retrace("cache", trace, "--configs", trace, "--size", "8k")
    assert.are.equal(2, c)
    assert.truthy(e:find("--configs: give the caches on each line", 1, true))
    os.remove(trace)
  end)

  describe("under mpirun", function()
    local ok, why = h.have_mpi()
    if not ok then
      pending(why)
      return
    end

    it("prints the serial run's bytes with 1 to 4 ranks", function()
      local trace, file = xdin(5, 20000), study_file()
      same_under_mpirun("cache", trace, "--configs", file)
      os.remove(trace)
      os.remove(file)
    end)

    it("ends every rank with exit 1 and one message on a bad line or a bad trace", function()
      local trace = xdin(6, 100)
      local file = h.temp_file("l1:8k/32:2\nl1:8k/32:2\nl1:8k/32:2\nl1:8k/3x:2\n", ".txt")
      local c, o, e = h.mpirun(3, "cache", trace, "--configs", file)
      assert.are.equal(1, c)
      assert.are.equal("", o)
      assert.are.equal("retrace: " .. file .. ":4: l1: bsize: bad value '3x'\n", e)
      -- the trace fails on every configuration: the serial run's message (the first one's)
      local bad = h.temp_file("r 100 4\nw 1zz 4\n", ".xdin")
      local good = h.temp_file("l1:8k/32:2\nl1:4k/32:2\nl1:2k/32:2\n", ".txt")
      local c0, o0, e0 = h.retrace("cache", bad, "--format", "xdin", "--configs", good)
      assert.are.equal(1, c0)
      c, o, e = h.mpirun(3, "cache", bad, "--format", "xdin", "--configs", good)
      assert.are.equal(c0, c)
      assert.are.equal(o0, o)
      assert.are.equal(e0, e)
      local _, n = e:gsub("\n", "")
      assert.are.equal(1, n, e)
      for _, f in ipairs({ trace, file, bad, good }) do os.remove(f) end
    end)

    it("runs one plain run on rank 0 alone, as without mpirun", function()
      local trace = xdin(7, 5000)
      local c0, o0 = h.retrace("cache", trace, "--size", "4k", "--ways", "2")
      local c, o, e = h.mpirun(2, "cache", trace, "--size", "4k", "--ways", "2")
      assert.are.equal(c0, c, e)
      assert.are.equal(o0, o)
      os.remove(trace)
    end)
  end)
end)

-- a .msp trace of P processors: n random loads and stores of 8 aligned bytes over 32 KiB
local function msp(seed, n, P)
  local rand, out, proc = h.lcg(seed), { "msp 1" }, 0
  for _ = 1, n do
    if rand(20) == 0 then proc = rand(P) end
    out[#out + 1] = ("%s %d %x 8"):format(rand(3) == 0 and "W" or "R", proc, rand(4096) * 8)
  end
  return h.temp_file(table.concat(out, "\n") .. "\n", ".msp")
end

local MACHINES = {
  "l1:8k/64:1",
  "l1:4k/64:2 l2:64k/64:4    # two levels, the last shared",
  "-l1-usize 16k -l1-ubsize 64 -l1-uassoc 2",
}

describe("retrace memspy --machines", function()
  it("gives one row per machine, each the run of that machine alone", function()
    local trace = msp(8, 30000, 2)
    local file = h.temp_file(table.concat(MACHINES, "\n") .. "\n", ".txt")
    local code, out, err = h.retrace("memspy", trace, "--procs", "2", "--latency", "20", "--machines", file, "--json")
    assert.are.equal(0, code, err)
    local j = cjson.decode(out)
    assert.are.equal(#MACHINES, #j.machines)
    local _, text = h.retrace("memspy", trace, "--procs", "2", "--latency", "20", "--machines", file)
    local rows = lines_of(text)
    assert.are.equal(1 + #MACHINES, #rows)
    for i, m in ipairs(MACHINES) do
      local spec = m:gsub("%s*#.*$", ""):gsub("^%s+", "")
      assert.are.equal(i, j.machines[i].line)
      assert.are.equal(spec, j.machines[i].machine)
      local c1, o1, e1 = h.retrace("memspy", trace, "--procs", "2", "--latency", "20", "--hierarchy=" .. spec, "--json")
      assert.are.equal(0, c1, e1)
      local one = cjson.decode(o1).totals
      assert.are.same(one, j.machines[i].totals)
      assert.is_true(one.misses > 0)
      assert.truthy(rows[1 + i]:find(spec, 1, true))
      assert.truthy(rows[1 + i]:match("^%s+" .. i .. "%s"))
    end
    os.remove(trace)
    os.remove(file)
  end)

  it("takes Dinero IV's option names in --hierarchy: the same machine as the short form", function()
    local trace = msp(9, 20000, 2)
    local a = { h.retrace("memspy", trace, "--procs", "2", "--hierarchy", "l1:8k/64:2 l2:64k/64:8:repl=f", "--json") }
    local b = { h.retrace("memspy", trace, "--procs", "2", "--hierarchy=-l1-usize 8k -l1-ubsize 64 -l1-uassoc 2 "
      .. "-l2-usize 64k -l2-ubsize 64 -l2-uassoc 8 -l2-urepl f", "--json") }
    assert.are.equal(0, a[1], a[3])
    assert.are.same(a, b)
    assert.are.same({ 2, 2 }, { cjson.decode(a[2]).totals.levels, #cjson.decode(a[2]).totals.level_misses })
    local c, _, e = h.retrace("memspy", trace, "--hierarchy=-l1-usize 8k -l1-ubsize 64 -maxcount 10")
    assert.are.equal(2, c)
    assert.truthy(e:find("-maxcount", 1, true))
    c, _, e = h.retrace("memspy", trace, "--hierarchy=-l1-usize 8k -l1-ubsize 64 -l1-uassoc x")
    assert.are.equal(2, c)
    assert.truthy(e:find("-l1-uassoc: assoc: bad value 'x'", 1, true), e)
    os.remove(trace)
  end)

  it("names the file, the line and the option of a bad machine (exit 1)", function()
    local trace = msp(10, 100, 1)
    local file = h.temp_file("l1:8k/64:1\nl1:8k/64:1 l2:64k/64:4:fetch=q\n", ".txt")
    local code, out, err = h.retrace("memspy", trace, "--machines", file)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("retrace: " .. file .. ":2: l2: fetch: bad value 'q'\n", err)
    os.remove(file)
    os.remove(trace)
  end)

  describe("under mpirun", function()
    local ok, why = h.have_mpi()
    if not ok then
      pending(why)
      return
    end
    it("prints the serial run's bytes with 1 to 4 ranks, and fails alike", function()
      local trace = msp(11, 20000, 2)
      local file = h.temp_file(table.concat(MACHINES, "\n") .. "\nl1:4k/64:4\n", ".txt")
      same_under_mpirun("memspy", trace, "--procs", "2", "--machines", file)
      local bad = h.temp_file("l1:8k/64:1\nl1:8k/64:1\nl1:8k/64:1\nl7:1k/64:1\n", ".txt")
      local c0, o0, e0 = h.retrace("memspy", trace, "--machines", bad)
      assert.are.equal(1, c0)
      local c, o, e = h.mpirun(3, "memspy", trace, "--machines", bad)
      assert.are.same({ c0, o0, e0 }, { c, o, e })
      for _, f in ipairs({ trace, file, bad }) do os.remove(f) end
    end)
  end)
end)
