-- retrace.memspy and `retrace memspy`: the seed's Figures 2 and 3 from a
-- constructed trace, a slow reference model on random traces, P = 1 against
-- `retrace cache --classify`, the command's outputs and its errors.
local H = require "helpers"
local memspy = require "retrace.memspy"
local cjson = require "cjson"

local function figure2_trace()
  local gen = assert(loadfile(H.source .. "/examples/memspy/figure2.lua"))("--module")
  local path = os.tmpname() .. ".msp"
  gen.write(path)
  return path
end

local function r1(v) return tonumber(string.format("%.1f", v)) end

describe("memspy: the seed's Figure 2 from a constructed trace", function()
  local path, run
  setup(function()
    path = figure2_trace()
    run = assert(memspy.run{ trace = path, size = 32768, line = 64, ways = 1, ref_cycles = 0, latency = 50 })
  end)
  teardown(function() os.remove(path) end)

  it("orders rows and columns by their totals and leaves empty cells blank", function()
    local m = run:matrix()
    assert.same({ "BlkMultiply", "main", "ClearProduct" }, m.rows)
    assert.same({ "Matrix.Y", "Matrix.Z", "Matrix.X" }, m.cols)
    local cells = {}
    for i = 1, 3 do
      cells[i] = {}
      for j = 1, 3 do cells[i][j] = m.cell[i][j] and r1(m.cell[i][j]) or false end
    end
    assert.same({ { 85.5, 7.7, 4.3 }, { 0.9, false, 0.8 }, { false, 0.8, false } }, cells)
    assert.same({ 97.5, 1.7, 0.8 }, { r1(m.row_total[1]), r1(m.row_total[2]), r1(m.row_total[3]) })
    assert.same({ 86.4, 8.5, 5.1 }, { r1(m.col_total[1]), r1(m.col_total[2]), r1(m.col_total[3]) })
  end)

  it("prints the header and the matrix with its margins", function()
    local t = run.totals
    assert.equal(649000, t.time)
    assert.equal(509500, t.stall)
    assert.equal(26930, t.refs)
    assert.equal(19990, t.reads)
    assert.equal(10190, t.misses)
    local text = memspy.format_header(run) .. "\n" .. memspy.format_matrix(run:matrix())
    assert.truthy(text:find("Execution Time: 649.0K cycles", 1, true))
    assert.truthy(text:find("Overall Miss Rate: 37.8%", 1, true))
    assert.truthy(text:find("Reads: 19.99K (74.2%)  Writes: 6940 (25.8%)", 1, true))
    assert.truthy(text:find("Tot.%      100.0   86.4    8.5    5.1\n" ..
                            "   0        97.5   85.5    7.7    4.3\n" ..
                            "   1         1.7    0.9           0.8\n" ..
                            "   2         0.8           0.8", 1, true))
    assert.truthy(text:find("   0 : Matrix.Y      0 : BlkMultiply", 1, true))
  end)

  it("gives Figure 3's detail fields for Matrix.Y in BlkMultiply", function()
    local d = assert(run:detail{ code = "BlkMultiply", data = "Matrix.Y" })
    assert.equal(627600, d.elapsed)
    assert.equal(435500, d.stall)
    assert.equal(85.5, r1(d.stall_pct))
    assert.equal(85.5, r1(d.misses_pct))
    assert.equal(67.6, r1(d.miss_rate))
    assert.equal(47.8, r1(d.refs_pct))
    assert.equal(12880, d.refs)
    assert.equal(12880, d.reads)
    assert.equal(0, d.writes)
    assert.equal(8710, d.misses)
    assert.equal(8710, d.read_misses)
    assert.equal(0, d.first)
    assert.equal(0, d.invalidation)
    assert.equal(8710, d.replacement)
    assert.equal(33.8, r1(d.avg_stall))
    assert.equal(33.8, r1(d.avg_read_stall))
    assert.equal(3, #d.causes)
    assert.same({ "Matrix.Y", 7839, 90.0 }, { d.causes[1].name, d.causes[1].count, r1(d.causes[1].pct) })
    assert.same({ "Matrix.Z", 601, 6.9 }, { d.causes[2].name, d.causes[2].count, r1(d.causes[2].pct) })
    assert.same({ "Matrix.X", 270, 3.1 }, { d.causes[3].name, d.causes[3].count, r1(d.causes[3].pct) })
    local text = memspy.format_detail(d)
    assert.truthy(text:find("Causes of Replacements:\n  bin Matrix.Y: 90.0%\n  bin Matrix.Z: 6.9%\n" ..
                            "  bin Matrix.X: 3.1%", 1, true))
  end)

  it("renames and combines bins, causes following the names", function()
    local r = assert(memspy.run{ trace = path, size = 32768, ref_cycles = 0 })
    assert(r:rename("Matrix.Y", "Y"))
    assert(r:combine("XZ", { "Matrix.X", "Matrix.Z" }))
    local m = r:matrix()
    assert.same({ "Y", "XZ" }, m.cols)
    assert.equal(13.6, r1(m.col_total[2]))
    local d = r:detail{ code = "BlkMultiply", data = "Y" }
    assert.same({ "Y", "XZ" }, { d.causes[1].name, d.causes[2].name })
    assert.equal(871, d.causes[2].count)
    assert.is_nil((r:rename("nothing", "x")))
    assert.is_nil((r:combine("Y", { "XZ" })))
  end)
end)

-- ---- a slow reference model, written from the rules (plain tables) ----

local function model(trace, P, size, line, ways, latency)
  local sets = size // (line * ways)
  local cache, why, dirty = {}, {}, {}
  for p = 1, P do
    cache[p] = {}
    for s = 0, sets - 1 do cache[p][s] = {} end -- lines, most recent last
    why[p] = {}
  end
  local function find(p, ln)
    local s = cache[p][ln % sets]
    for i, v in ipairs(s) do if v == ln then return s, i end end
    return s, nil
  end
  local ranges, stacks = {}, {}
  for p = 1, P do stacks[p] = {} end
  local bins, tot, order = {}, { refs = 0, misses = 0, first = 0, replacement = 0, invalidation = 0 }, {}
  local function data_of(a)
    for _, r in ipairs(ranges) do if a >= r.lo and a < r.hi then return r.name end end
    return "(unmapped)"
  end
  local function bin(c, d)
    local k = c .. "|" .. d
    if not bins[k] then
      bins[k] = { refs = 0, reads = 0, writes = 0, misses = 0, first = 0, replacement = 0,
                  invalidation = 0, stall = 0, causes = {} }
      order[#order + 1] = k
    end
    return bins[k]
  end
  for _, ev in ipairs(trace) do
    if ev[1] == "N" then
      ranges[#ranges + 1] = { lo = ev.addr, hi = ev.addr + ev.size, name = ev.name }
    elseif ev[1] == "A" then
      -- a heap bin is its allocation site reached by one call path
      local full = table.concat(stacks[ev.p], ">") .. "/site/" .. ev.name
      ranges[#ranges + 1] = { lo = ev.addr, hi = ev.addr + ev.size, name = full }
    elseif ev[1] == "F" then
      for i, r in ipairs(ranges) do if r.lo == ev.addr then table.remove(ranges, i) break end end
    elseif ev[1] == "E" then
      table.insert(stacks[ev.p], ev.name)
    elseif ev[1] == "X" then
      table.remove(stacks[ev.p])
    else
      local p, write = ev.p, ev[1] == "W"
      local code = stacks[p][#stacks[p]] or "(unknown)"
      local first_ln, last_ln = ev.addr // line, (ev.addr + ev.size - 1) // line
      for ln = first_ln, last_ln do
        local a = ln == first_ln and ev.addr or ln * line
        local d = data_of(a)
        local b = bin(code, d)
        b.refs = b.refs + 1
        tot.refs = tot.refs + 1
        if write then b.writes = b.writes + 1 else b.reads = b.reads + 1 end
        local s, i = find(p, ln)
        if i then
          table.remove(s, i)
          s[#s + 1] = ln
        else
          b.misses = b.misses + 1
          b.stall = b.stall + latency
          tot.misses = tot.misses + 1
          local w = why[p][ln]
          if not w then
            b.first = b.first + 1
            tot.first = tot.first + 1
          elseif w.kind == "repl" then
            b.replacement = b.replacement + 1
            tot.replacement = tot.replacement + 1
            b.causes[w.who] = (b.causes[w.who] or 0) + 1
          else
            b.invalidation = b.invalidation + 1
            tot.invalidation = tot.invalidation + 1
          end
          if #s == ways then
            local victim = table.remove(s, 1)
            why[p][victim] = { kind = "repl", who = d }
            if dirty[victim] == p then dirty[victim] = nil end
          end
          s[#s + 1] = ln
          why[p][ln] = { kind = "held" }
          if not write and dirty[ln] and dirty[ln] ~= p then dirty[ln] = nil end
        end
        if write then
          for q = 1, P do
            if q ~= p then
              local sq, iq = find(q, ln)
              if iq then
                table.remove(sq, iq)
                why[q][ln] = { kind = "inval", who = p - 1 }
              end
            end
          end
          dirty[ln] = p
        end
      end
    end
  end
  return bins, tot, order
end

local function random_trace(seed, P)
  local rnd = seed
  local function rand(n)
    rnd = (rnd * 1103515245 + 12345) % 2147483648
    return (rnd >> 16) % n
  end
  local ev = {}
  -- static ranges in [0, 1024), heap slots of 64 bytes from 2048 (some gaps stay unmapped)
  local lo = 0
  for i = 1, 6 do
    local sz = 48 + rand(100)
    ev[#ev + 1] = { "N", addr = lo, size = sz, name = "s" .. i }
    lo = lo + sz + rand(40)
  end
  local slots = {}
  local procs = { "main", "f", "g", "h" }
  for _ = 1, 3000 do
    local k, p = rand(20), rand(P) + 1
    if k == 0 then
      ev[#ev + 1] = { "E", p = p, name = procs[rand(#procs) + 1] }
    elseif k == 1 then
      ev[#ev + 1] = { "X", p = p }
    elseif k == 2 then
      local sl = rand(8)
      if slots[sl] then
        ev[#ev + 1] = { "F", p = p, addr = 2048 + sl * 64 }
        slots[sl] = nil
      else
        slots[sl] = true
        ev[#ev + 1] = { "A", p = p, addr = 2048 + sl * 64, size = 40 + rand(24), name = "T.h" .. sl }
      end
    else
      local k2 = rand(6)
      local addr = k2 == 0 and 2048 + rand(512) or k2 <= 2 and rand(96) or rand(1100)
      ev[#ev + 1] = { rand(3) == 0 and "W" or "R", p = p, addr = addr, size = 1 + rand(40) }
    end
  end
  -- drop exits without entries (the engine warns; the model need not)
  local depth, out = {}, {}
  for _, e in ipairs(ev) do
    if e[1] == "E" then depth[e.p] = (depth[e.p] or 0) + 1 end
    if e[1] == "X" then
      if (depth[e.p] or 0) == 0 then goto skip end
      depth[e.p] = depth[e.p] - 1
    end
    out[#out + 1] = e
    ::skip::
  end
  return out
end

local function write_msp(trace)
  local L = { "msp 1" }
  for _, e in ipairs(trace) do
    local k = e[1]
    if k == "N" then L[#L + 1] = ("N %x %d %s"):format(e.addr, e.size, e.name)
    elseif k == "A" then L[#L + 1] = ("A %d %x %d %s site"):format(e.p - 1, e.addr, e.size, e.name)
    elseif k == "F" then L[#L + 1] = ("F %d %x"):format(e.p - 1, e.addr)
    elseif k == "E" then L[#L + 1] = ("E %d %s"):format(e.p - 1, e.name)
    elseif k == "X" then L[#L + 1] = ("X %d"):format(e.p - 1)
    else L[#L + 1] = ("%s %d %x %d"):format(k, e.p - 1, e.addr, e.size) end
  end
  return H.temp_file(table.concat(L, "\n") .. "\n", ".msp")
end

describe("memspy: engine against a slow reference model on random traces", function()
  for _, case in ipairs({ { seed = 7, P = 1 }, { seed = 11, P = 2 }, { seed = 23, P = 3 }, { seed = 5, P = 4 } }) do
    it(("agrees on bins, causes and coherence (P = %d)"):format(case.P), function()
      local trace = random_trace(case.seed, case.P)
      local path = write_msp(trace)
      local run = assert(memspy.run{ trace = path, procs = case.P, size = 256, line = 32, ways = 2,
                                     latency = 7 })
      os.remove(path)
      assert.equal(0, run.totals.warnings)
      local bins, tot = model(trace, case.P, 256, 32, 2, 7)
      for _, k in ipairs({ "refs", "misses", "first", "replacement", "invalidation" }) do
        assert.equal(tot[k], run.totals[k], k)
      end
      if case.P > 1 then assert.is_true(tot.invalidation > 0) end
      assert.is_true(tot.replacement > 0)
      local seen = 0
      for _, b in ipairs(run.bins) do
        if b.refs > 0 then
          -- the engine's short names (T.h4, T.h4#2) stand for full names
          local full = run.full[b.data]
          local mb = bins[b.code .. "|" .. full]
          assert.is_not_nil(mb, b.code .. "|" .. full)
          seen = seen + 1
          for _, k in ipairs({ "refs", "reads", "writes", "misses", "first", "replacement", "invalidation", "stall" }) do
            assert.equal(mb[k], b[k], b.code .. "|" .. full .. " " .. k)
          end
          local causes = {}
          for c, n in pairs(b.causes) do causes[run.full[c]] = n end
          assert.same(mb.causes, causes)
        end
      end
      local n = 0
      for _ in pairs(bins) do n = n + 1 end
      assert.equal(n, seen)
    end)
  end
end)

describe("memspy: P = 1 against retrace cache --classify", function()
  it("first reference = compulsory, replacement = capacity + conflict", function()
    local rnd = 99
    local function rand(n)
      rnd = (rnd * 1103515245 + 12345) % 2147483648
      return (rnd >> 16) % n
    end
    local msp, xdin = { "msp 1" }, {}
    for _ = 1, 20000 do
      local a = rand(3) == 0 and rand(1 << 16) or 4096 + rand(3000)
      local sz = 1 + rand(16)
      local w = rand(4) == 0
      msp[#msp + 1] = ("%s 0 %x %d"):format(w and "W" or "R", a, sz)
      xdin[#xdin + 1] = ("%s %x %x"):format(w and "w" or "r", a, sz)
    end
    local pm = H.temp_file(table.concat(msp, "\n") .. "\n", ".msp")
    local px = H.temp_file(table.concat(xdin, "\n") .. "\n", ".xdin")
    for _, geo in ipairs({ { 4096, 64, 1 }, { 8192, 32, 4 } }) do
      local run = assert(memspy.run{ trace = pm, size = geo[1], line = geo[2], ways = geo[3] })
      local c = assert(require("retrace.cache").run(px, { format = "xdin", size = geo[1], line = geo[2],
        ways = geo[3], policy = "lru", write_back = true, classify = true }))
      assert.equal(c.refs, run.totals.refs)
      assert.equal(c.misses, run.totals.misses)
      assert.equal(c.compulsory, run.totals.first)
      assert.equal(c.capacity + c.conflict, run.totals.replacement)
      assert.equal(c.writebacks, run.totals.writebacks)
      assert.is_true(run.totals.replacement > 0)
    end
    os.remove(pm)
    os.remove(px)
  end)
end)

describe("memspy: SHMAP traces as input", function()
  it("bins matrices by name and PEs' subroutines as code, hand-computed", function()
    -- two 8 x 1 matrices (64 bytes each, back to back) and a one-line cache
    local p = H.temp_file(table.concat({
      "0 1 8 1", "0 2 8 1",
      "5 1 10 init", "1 1 1 8 1 1 1.0", "1 2 1 8 1 1 2.0",
      "5 1 10 work", "1 1 1 8 1 1 3.0", "2 2 1 1 1 1 4.0" }, "\n") .. "\n", ".shm")
    local run = assert(memspy.run{ trace = p, format = "shmap", size = 64, line = 64 })
    os.remove(p)
    local by = {}
    for _, b in ipairs(run.bins) do by[b.code .. "|" .. b.data] = b end
    local i1, i2, w1, w2 = by["init|matrix 1"], by["init|matrix 2"], by["work|matrix 1"], by["work|matrix 2"]
    assert.same({ 8, 1, 1, 0 }, { i1.refs, i1.misses, i1.first, i1.replacement })
    assert.same({ 8, 1, 1, 0 }, { i2.refs, i2.misses, i2.first, i2.replacement })
    -- matrix 1 again: evicted by matrix 2's load; then the store to matrix 2 misses, evicted by matrix 1
    assert.same({ 8, 1, 0, 1 }, { w1.refs, w1.misses, w1.first, w1.replacement })
    assert.same({ ["matrix 2"] = 1 }, w1.causes)
    assert.same({ 1, 1, 1, 1 }, { w2.refs, w2.writes, w2.misses, w2.replacement })
    assert.same({ ["matrix 1"] = 1 }, w2.causes)
  end)

  it("runs a SHMAP example on 4 PEs (retrace memspy TRACE --pes 4)", function()
    local p = os.tmpname() .. ".shm"
    local code = H.retrace(H.source .. "/examples/shmap/matmul.lua", "8", p, "par")
    assert.equal(0, code)
    local c2, out = H.retrace("memspy", p, "--pes", "4", "--size", "256", "--json")
    os.remove(p)
    assert.equal(0, c2)
    local j = cjson.decode(out)
    -- 8 columns of C = A * B(:,j): A (64), B(:,j) (8), C(:,j) (8) loaded, C(:,j) stored
    assert.equal(8 * (64 + 8 + 8 + 8), j.totals.refs)
    assert.equal(8 * 8, j.totals.writes)
    assert.same({ "sgemv" }, j.code)
  end)
end)

describe("memspy: memory traces with an allocation log", function()
  it("applies each log record before the reference its stamp names", function()
    local tr = H.temp_file("r 1000 8\nr 2000 8\nw 1008 8\ni 400 4\nr 1000 8\nr 2000 4\nr 1000 8\n", ".xdin")
    local log = H.temp_file("msp 1\n@0 E 0 main\n@0 A 0 1000 64 double*.a m.c:3\n@1 N 2000 64 table\n" ..
                            "@4 F 0 1000\n@9 X 0\n", ".log")
    local run = assert(memspy.run{ trace = tr, alloc = log })
    local by = {}
    for _, b in ipairs(run.bins) do by[b.data] = b end
    -- references 0, 2, 3 in a (the fetch is not counted); 1 and 4 in table; 5 after the free
    assert.same({ 3, 2, 1 }, { by["double*.a"].refs, by["double*.a"].reads, by["double*.a"].writes })
    assert.equal(2, by.table.refs)
    assert.equal(1, by["(unmapped)"].refs)
    assert.equal(0, run.totals.warnings)
    -- time: 6 references and 1 instruction fetch, one busy cycle each, and 50 for each
    -- of the 2 misses (the first touches of lines 0x1000 and 0x2000; the rest hit)
    assert.equal(2, run.totals.misses)
    assert.equal(6 + 1 + 2 * 50, run.totals.time)
    local bad = H.temp_file("msp 1\n@5 E 0 main\n@2 X 0\n", ".log")
    local r2, err = memspy.run{ trace = tr, alloc = bad }
    assert.is_nil(r2)
    assert.equal(bad .. ":3: stamp: @2 comes after @5", err)
    local bad2 = H.temp_file("msp 1\n@1 R 0 10\n", ".log")
    r2, err = memspy.run{ trace = tr, alloc = bad2 }
    assert.equal(bad2 .. ":2: record: R is a reference; an allocation log holds E X A F N C B S only", err)
    for _, f in ipairs({ tr, log, bad, bad2 }) do os.remove(f) end
  end)
end)

describe("retrace memspy (command)", function()
  local path
  setup(function() path = figure2_trace() end)
  teardown(function() os.remove(path) end)

  it("writes the JSON keys of the issue", function()
    local code, out = H.retrace("memspy", path, "--size", "32K", "--ref-cycles", "0", "--json")
    assert.equal(0, code)
    local j = cjson.decode(out)
    local keys = {}
    for k in pairs(j) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.same({ "bins", "code", "data", "totals" }, keys)
    keys = {}
    for k in pairs(j.totals) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.same({ "misses", "reads", "refs", "stall", "time", "writes" }, keys)
    keys = {}
    for k in pairs(j.bins[1]) do keys[#keys + 1] = k end
    table.sort(keys)
    assert.same({ "causes", "code", "data", "first", "invalidation", "misses", "reads", "refs",
                  "replacement", "stall", "writes" }, keys)
    assert.same({ code = "BlkMultiply", data = "Matrix.Y", misses = 8710 },
                { code = j.bins[1].code, data = j.bins[1].data, misses = j.bins[1].misses })
    assert.equal(7839, j.bins[1].causes["Matrix.Y"])
  end)

  it("saves runs and compares them (speedup relative to the first)", function()
    local d = H.temp_dir()
    assert.equal(0, (H.retrace("memspy", path, "--size", "32K", "--ref-cycles", "0", "--save", d .. "/small.json")))
    assert.equal(0, (H.retrace("memspy", path, "--size", "64K", "--ways", "0", "--ref-cycles", "0",
                               "--save", d .. "/big.json")))
    local code, out = H.retrace("memspy", "compare", d .. "/small.json", d .. "/big.json")
    assert.equal(0, code)
    assert.truthy(out:find("small%s+10%.2%s+8%.8 %(86%.4%%%)"))
    local c2, j = H.retrace("memspy", "compare", d .. "/small.json", d .. "/big.json", "--json")
    assert.equal(0, c2)
    j = cjson.decode(j)
    assert.equal(1, j.rows[1].speedup)
    -- the fully associative cache keeps all 256 lines: first references only
    assert.equal(256, j.rows[2].misses)
    assert.near(649000 / (139500 + 256 * 50), j.rows[2].speedup, 1e-9)
    H.remove_tree(d)
  end)

  it("reports warnings with file and line, and counts them", function()
    local p = H.temp_file("msp 1\nX 0\nA 0 100 64 T.a s\nA 0 120 8 T.b s\nF 0 999\nR 0 100\n", ".msp")
    local code, out, err = H.retrace("memspy", p)
    assert.equal(0, code)
    assert.truthy(err:find(p .. ":2: warning: exit on processor 0 without an entry", 1, true))
    assert.truthy(err:find(p .. ":4: warning: allocation 0x120..0x127 overlaps 1 live range (dropped)", 1, true))
    assert.truthy(err:find(p .. ":5: warning: free of 0x999", 1, true))
    assert.truthy(err:find("memspy: 3 warnings", 1, true))
    assert.truthy(out:find("TOTAL APPLICATION STATISTICS", 1, true))
    os.remove(p)
  end)

  it("refuses malformed records (exit 1) and bad options (exit 2)", function()
    local p = H.temp_file("msp 1\nR 0 10\nW 0 zz\n", ".msp")
    local code, _, err = H.retrace("memspy", p)
    assert.equal(1, code)
    assert.equal("retrace: " .. p .. ":3: address: 'zz' is not a hexadecimal number\n", err)
    code, _, err = H.retrace("memspy", p, "--procs", "0")
    assert.equal(2, code)
    assert.truthy(err:find("--procs: '0' is not an integer >= 1", 1, true))
    code, _, err = H.retrace("memspy", p, "--size", "48")
    assert.equal(2, code)
    assert.truthy(err:find("cache size: 48 is not a power of two", 1, true))
    code, _, err = H.retrace("memspy", path, "--size", "32K", "--detail", "Nope:Matrix.Y")
    assert.equal(2, code)
    assert.truthy(err:find("no code segment called 'Nope'", 1, true))
    code, _, err = H.retrace("memspy", path, "--rename", "X")
    assert.equal(2, code)
    assert.truthy(err:find("--rename: expected OLD=NEW", 1, true))
    local q = H.temp_file("msp 1\nR 3 10\n", ".msp")
    code, _, err = H.retrace("memspy", q, "--procs", "2")
    assert.equal(1, code)
    assert.equal("retrace: " .. q .. ":2: processor: 3 is not in 0..1\n", err)
    local bad = H.temp_file("{\"totals\": {}}", ".json")
    code, _, err = H.retrace("memspy", "compare", bad)
    assert.equal(1, code)
    assert.truthy(err:find(bad .. ": code: missing (not a memspy run)", 1, true))
    os.remove(p)
    os.remove(q)
    os.remove(bad)
  end)

  it("--top, --fullname, --monitor, --misses-only and --csv", function()
    local code, out = H.retrace("memspy", path, "--size", "32K", "--ref-cycles", "0", "--top", "2,1")
    assert.equal(0, code)
    assert.truthy(out:find("Tot.%%      100.0   86.4\n   0        97.5   85.5\n   1         1.7    0.9\n"))
    code, out = H.retrace("memspy", path, "--size", "32K", "--fullname")
    assert.truthy(out:find("0 : main/mm.c:40/Matrix.Y", 1, true))
    code, out = H.retrace("memspy", path, "--size", "32K", "--monitor", "BlkMultiply", "--json")
    local j = cjson.decode(out)
    table.sort(j.code)
    assert.same({ "(other)", "BlkMultiply" }, j.code)
    local _, all = H.retrace("memspy", path, "--size", "32K", "--json")
    local _, mo = H.retrace("memspy", path, "--size", "32K", "--json", "--misses-only")
    all, mo = cjson.decode(all), cjson.decode(mo)
    assert.equal(all.totals.misses, mo.totals.misses)
    assert.equal(all.totals.refs, mo.totals.refs)
    assert.equal(all.bins[1].misses, mo.bins[1].misses)
    assert.equal(0, mo.bins[1].refs) -- neither hits nor references are binned
    local d = H.temp_dir()
    assert.equal(0, (H.retrace("memspy", path, "--size", "32K", "--csv", d)))
    local csv = H.slurp(d .. "/matrix.csv")
    assert.equal("code,total,Matrix.Y,Matrix.Z,Matrix.X", csv:match("^[^\n]+"))
    assert.truthy(csv:find("\nClearProduct,0.8047,,0.8047,\n", 1, true))
    assert.truthy(H.slurp(d .. "/bins.csv"):find("BlkMultiply,Matrix.Y,12880,12880,0,8710,0,8710,0,435500", 1, true))
    H.remove_tree(d)
  end)

  it("takes any cache policy, Lua ones included", function()
    local lua_lru = require("retrace.cache").resolve_policy("lua_lru")
    local a = assert(memspy.run{ trace = path, size = 4096, ways = 4, policy = "lru" })
    local b = assert(memspy.run{ trace = path, size = 4096, ways = 4, policy = lua_lru })
    assert.equal(a.totals.misses, b.totals.misses)
    assert.equal(a.totals.replacement, b.totals.replacement)
    local c = assert(memspy.run{ trace = path, size = 4096, ways = 4, policy = "fifo", procs = 2 })
    assert.is_true(c.totals.misses > 0)
    assert.truthy(tostring(a):find("retrace.memspy.Run: ", 1, true))
  end)

  it("is recognised by retrace info", function()
    local code, out = H.retrace("info", path)
    assert.equal(0, code)
    assert.truthy(out:find(": msp (MemSpy trace", 1, true))
    assert.truthy(out:find("26930 references (19990 reads, 6940 writes)", 1, true))
  end)
end)
