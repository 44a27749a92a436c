-- `retrace memspy --hierarchy`: MemSpy's processors on a hierarchy of `retrace
-- cache` (one engine). A one-level hierarchy is the default machine; on two
-- levels, one core or two over a shared level 2, the misses per level equal
-- `retrace.cache.simulate` on the same references; the command's table and
-- errors.
local H = require "helpers"
local memspy = require "retrace.memspy"
local cache = require "retrace.cache"
local cjson = require "cjson"

-- n random loads and stores of 8 aligned bytes over 16 KiB, on P processors in
-- runs: the same references as .msp, as .xdin and the core switches of simulate
local function traces(seed, n, P)
  local rand = H.lcg(seed)
  local msp, xdin, switches, proc = { "msp 1" }, {}, {}, 0
  for i = 1, n do
    if P > 1 and rand(20) == 0 then
      proc = (proc + 1 + rand(P - 1)) % P
      switches[#switches + 1] = i - 1
      switches[#switches + 1] = proc
    end
    local a, w = rand(2048) * 8, rand(3) == 0
    msp[#msp + 1] = ("%s %d %x 8"):format(w and "W" or "R", proc, a)
    xdin[#xdin + 1] = ("%s %x 8"):format(w and "w" or "r", a)
  end
  return H.temp_file(table.concat(msp, "\n") .. "\n", ".msp"),
         H.temp_file(table.concat(xdin, "\n") .. "\n", ".xdin"), switches
end

describe("memspy on a hierarchy", function()
  it("a one-level hierarchy is the default machine, figure for figure", function()
    local pm, px = traces(5, 20000, 2)
    local a = assert(memspy.run{ trace = pm, procs = 2, size = 4096, line = 64, ways = 2 })
    local b = assert(memspy.run{ trace = pm, procs = 2, hierarchy = "l1:4k/64:2" })
    assert.same(a:to_table(), b:to_table())
    assert.equal(1, b.totals.levels)
    assert.equal(b.totals.misses, b.totals.level_misses[1])
    assert.is_true(b.totals.invalidation > 0)
    os.remove(pm)
    os.remove(px)
  end)

  for _, P in ipairs({ 1, 2 }) do
    it(("counts misses per level as retrace cache does (%d core%s, level 2 %s)"):format(P,
      P > 1 and "s" or "", P > 1 and "shared" or "private"), function()
      local pm, px, switches = traces(11 + P, 30000, P)
      local spec = "l1:1k/64:2 l2:8k/64:4"
      local run = assert(memspy.run{ trace = pm, procs = P, hierarchy = spec })
      local sim = assert(cache.simulate(px, { format = "xdin", spec = ("cores=%d "):format(P) .. spec,
                                              switches = switches }))
      local l1, l2 = 0, 0
      for _, c in ipairs(sim.caches) do
        if c.level == 1 then l1 = l1 + c.misses.read + c.misses.write else l2 = l2 + c.misses.read end
      end
      assert.equal(2, run.totals.levels)
      assert.same({ l1, l2 }, run.totals.level_misses)
      assert.equal(l1, run.totals.misses)
      assert.is_true(l2 > 0 and l2 < l1)
      -- the bins add up to the totals
      local sum = { 0, 0 }
      for _, b in ipairs(run.bins) do
        for l = 1, 2 do sum[l] = sum[l] + b.level_misses[l] end
      end
      assert.same(run.totals.level_misses, sum)
      os.remove(pm)
      os.remove(px)
    end)
  end

  it("prints misses per level by data bin and code segment, and keeps them in --json", function()
    local p = H.temp_file(table.concat({
      "msp 1", "N 0 2000 A", "N 4000 2000 B", "E 0 f",
      "R 0 0 8", "R 0 40 8", "R 0 4000 8", "R 0 0 8", "R 0 4000 8",
    }, "\n") .. "\n", ".msp")
    -- a direct-mapped 64-byte L1 (every line change misses) over a 1 KiB L2:
    -- A's lines 0 and 1 miss L1 and L2, B's line 0x100 misses both, then line 0
    -- and B's line miss L1 and hit L2
    local code, out = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4")
    assert.equal(0, code)
    assert.truthy(out:find("Misses per level", 1, true))
    assert.truthy(out:find("\nA%s+3%s+2%s+66.7\n"), out)
    assert.truthy(out:find("\nB%s+2%s+1%s+50.0\n"), out)
    assert.truthy(out:find("\nf%s+5%s+3%s+60.0\n"), out)
    local code2, js = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4", "--json")
    assert.equal(0, code2)
    local j = cjson.decode(js)
    assert.same({ 5, 3 }, j.totals.level_misses)
    local d = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4", "--detail", ":A")
    assert.equal(0, d)
    local _, det = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4", "--detail", ":A")
    assert.truthy(det:find("Misses by level: L1 3, L2 2", 1, true), det)
    -- a latency per level: 3 misses served by memory at 50, 2 by level 2 at 10
    local _, lat = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4", "--latency", "10,50",
      "--ref-cycles", "0", "--json")
    assert.same({ 170, 170 }, { cjson.decode(lat).totals.stall, cjson.decode(lat).totals.time })
    local _, flat = H.retrace("memspy", p, "--hierarchy", "l1:64/64:1 l2:1k/64:4", "--ref-cycles", "0", "--json")
    assert.equal(250, cjson.decode(flat).totals.stall)
    -- one level: no table
    local _, one = H.retrace("memspy", p, "--size", "64", "--line", "64")
    assert.falsy(one:find("Misses per level", 1, true))
    os.remove(p)
  end)

  it("refuses a bad hierarchy and options it replaces (exit 2)", function()
    local p = H.temp_file("msp 1\nR 0 0 8\n", ".msp")
    for _, args in ipairs({
      { "--hierarchy", "l1:8k/63", "retrace: --hierarchy: l1-ucache: block size 63 is not a power of two" },
      { "--hierarchy", "l1:8k/64:1:wb=n",
        "retrace: --hierarchy: caches: the first data level must write back and allocate on writes" },
      { "--hierarchy", "l1:8k/64", "--size", "4K", "retrace: --size: with --hierarchy, give the caches in its spec" },
      { "--hierarchy", "l1:8k/64", "--policy", "fifo", "retrace: --policy: with --hierarchy, give the caches in its spec" },
      { "--hierarchy", "l1:8k/64 l2:64k/64:4", "--latency", "10,20,30",
        "retrace: --latency: 3 values for 2 levels (give 1, or one per level below the first and memory)" },
      { "--latency", "10,x", "retrace: --latency: 'x' is not an integer >= 0" },
    }) do
      local want = table.remove(args)
      local code, out, err = H.retrace("memspy", p, table.unpack(args))
      assert.equal(2, code)
      assert.equal("", out)
      assert.equal(want, (err:gsub("\n$", "")))
    end
    os.remove(p)
  end)
end)
