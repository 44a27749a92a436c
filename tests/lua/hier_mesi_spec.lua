-- Multi-core hierarchies against a slow model written here with plain lists
-- per set (most recent first): P cores, each with split level-1 caches and a
-- unified level 2 of its own, over a shared level 3; LRU, write-back
-- write-allocate, demand fetch; non-inclusive, an inclusive level 3
-- (back-invalidating every core's caches), inclusive private levels 2, and
-- exclusive (victim) levels 2 or 3, on one core and several; MESI
-- among the private caches as rt_hier.h states it. Random traces whose cores
-- change in runs; every counter of every cache must be equal. After each
-- reference the model checks inclusion and that a block dirty in one core is in
-- no other core's caches.
local cache = require "retrace.cache"
local h = require "helpers"

local READ, WRITE, INSTR = 0, 1, 2
local FILL = 6 -- a clean line evicted into the exclusive level below

local function new_cache(name, core, size, bsize, ways, inclusive)
  local c = { name = name, core = core, bsize = bsize, ways = ways, sets = size // bsize // ways,
    inclusive = inclusive == "inclusive", exclusive = inclusive == "exclusive", lists = {}, ups = {}, lost = core and {} or nil,
    fetch = { [0] = 0, 0, 0 }, miss = { [0] = 0, 0, 0 }, from = 0, to = 0, back = 0,
    sent = 0, recv = 0, coh = 0, snoop = 0, fills = 0 }
  for s = 0, c.sets - 1 do c.lists[s] = {} end
  return c
end

local function find(list, blk)
  for i, e in ipairs(list) do if e.blk == blk then return i end end
end

local memory

local function holds(c, addr)
  local b = addr // c.bsize
  local i = find(c.lists[b % c.sets], b)
  return i and c.lists[b % c.sets][i]
end

local function back_invalidate(from, lo, len, queue)
  for _, u in ipairs(from.ups) do
    for b = lo // u.bsize, (lo + len - 1) // u.bsize do
      local list = u.lists[b % u.sets]
      local i = find(list, b)
      if i then
        if list[i].dirty then queue[#queue + 1] = { addr = b * u.bsize, size = u.bsize, t = WRITE } end
        table.remove(list, i)
        u.back = u.back + 1
      end
    end
    back_invalidate(u, lo, len, queue)
  end
end

local ref

local function drain(c, queue)
  for i = #queue, 1, -1 do
    local q = queue[i]
    if q.t == WRITE or q.t == FILL then c.to = c.to + q.size else c.from = c.from + q.size end
    ref(c.down, q.addr, q.size, q.t)
  end
end

function ref(c, addr, size, t)
  if c == memory then
    memory.fetch[t] = memory.fetch[t] + 1
    return
  end
  local blk = addr // c.bsize
  local list = c.lists[blk % c.sets]
  local queue = {}
  local i = find(list, blk)
  if not i and t ~= FILL and c.lost and c.lost[blk] then
    c.coh = c.coh + 1
    c.lost[blk] = nil
  end
  local function evict(victim)
    if victim and victim.dirty then
      queue[#queue + 1] = { addr = victim.blk * c.bsize, size = c.bsize, t = WRITE }
    elseif victim and c.down ~= memory and c.down.exclusive then
      queue[#queue + 1] = { addr = victim.blk * c.bsize, size = c.bsize, t = FILL }
    end
    if victim and c.inclusive then back_invalidate(c, victim.blk * c.bsize, c.bsize, queue) end
  end
  if c.exclusive and t == FILL then -- a clean victim from above
    if c.down ~= memory and c.down.inclusive and not holds(c.down, addr) then
      return -- the inclusive level below evicted it while it was queued
    end
    c.fills = c.fills + 1
    if i then
      table.insert(list, 1, table.remove(list, i))
    else
      local victim
      if #list == c.ways then victim = table.remove(list) end
      table.insert(list, 1, { blk = blk })
      evict(victim)
    end
    drain(c, queue)
    return
  end
  c.fetch[t] = c.fetch[t] + 1
  if c.exclusive and t ~= WRITE then -- a fetch: the line goes up, or the fetch goes below
    if i then
      if list[i].dirty then queue[#queue + 1] = { addr = blk * c.bsize, size = c.bsize, t = WRITE } end
      table.remove(list, i)
    else
      c.miss[t] = c.miss[t] + 1
      queue[#queue + 1] = { addr = blk * c.bsize, size = c.bsize, t = t }
    end
    drain(c, queue)
    return
  end
  if i then
    local e = table.remove(list, i)
    table.insert(list, 1, e)
    if t == WRITE then e.dirty = true end
  else
    c.miss[t] = c.miss[t] + 1
    local victim
    if #list == c.ways then victim = table.remove(list) end
    table.insert(list, 1, { blk = blk, dirty = t == WRITE })
    evict(victim)
    -- a write filling the block fetches nothing, unless the level below is inclusive
    if t ~= WRITE or size ~= c.bsize or (c.down ~= memory and c.down.inclusive) then
      queue[#queue + 1] = { addr = blk * c.bsize, size = c.bsize, t = t == WRITE and READ or t }
    end
  end
  drain(c, queue)
end

-- the machine: m.cores[p] = { l1i, l1d, l2, private = { l1i, l1d, l2 } } (the
-- order in which the engine asks them), m.l3
local function machine(ncores, l2_inclusive, l3_inclusive, l3_block)
  memory = { fetch = { [0] = 0, 0, 0 } }
  local m = { cores = {}, all = {} }
  m.l3 = new_cache("l3-ucache", nil, 2048, l3_block, 4, l3_inclusive)
  m.l3.down = memory
  for p = 0, ncores - 1 do
    local l1i = new_cache("l1-icache", p, 256, 32, 2)
    local l1d = new_cache("l1-dcache", p, 512, 32, 2)
    local l2 = new_cache("l2-ucache", ncores > 1 and p or nil, 1024, 32, 2, l2_inclusive)
    if ncores == 1 then l1i.core, l1d.core, l1i.lost, l1d.lost = nil, nil, nil, nil end
    l1i.down, l1d.down, l2.down = l2, l2, m.l3
    l2.ups = { l1i, l1d }
    m.l3.ups[#m.l3.ups + 1] = l2
    m.cores[p] = { l1i = l1i, l1d = l1d, private = { l1i, l1d, l2 } }
    for _, c in ipairs { l1i, l1d, l2 } do m.all[#m.all + 1] = c end
  end
  m.all[#m.all + 1] = m.l3
  return m
end

-- the other cores answer core p's reference to blk (write: a store)
local function snoop(m, p, blk_addr, write)
  local holders = 0
  for q = 0, #m.cores do
    if q ~= p then
      local held = false
      for _, c in ipairs(m.cores[q].private) do
        local b = blk_addr // c.bsize
        local list = c.lists[b % c.sets]
        local i = find(list, b)
        if i then
          held = true
          if list[i].dirty then
            c.snoop = c.snoop + 1
            list[i].dirty = false
            drain(c, { { addr = b * c.bsize, size = c.bsize, t = WRITE } })
            i = find(list, b) -- an inclusive level below may have taken it
          end
          if write and i then
            table.remove(list, i)
            c.recv = c.recv + 1
            c.lost[b] = true
          end
        end
      end
      if held then holders = holders + 1 end
    end
  end
  if write then m.cores[p].l1d.sent = m.cores[p].l1d.sent + holders end
end

local function access(m, p, addr, t)
  local core = m.cores[p]
  local e = t == INSTR and core.l1i or core.l1d
  local b = addr // e.bsize
  local list = e.lists[b % e.sets]
  local i = find(list, b)
  if not (i and (t ~= WRITE or list[i].dirty)) then snoop(m, p, b * e.bsize, t == WRITE) end
  ref(e, addr, 4, t)
end

local function copyback(c)
  if c == memory then return end
  local queue = {}
  for s = 0, c.sets - 1 do
    for _, e in ipairs(c.lists[s]) do
      if e.dirty then
        queue[#queue + 1] = { addr = e.blk * c.bsize, size = c.bsize, t = WRITE }
        e.dirty = false
      end
    end
  end
  drain(c, queue)
  copyback(c.down)
end


local function check(m)
  for _, c in ipairs(m.all) do
    for _, below in ipairs { c.down } do
      if below ~= memory and below.inclusive then
        for s = 0, c.sets - 1 do
          for _, e in ipairs(c.lists[s]) do
            assert(holds(below, e.blk * c.bsize), c.name .. " holds a line the inclusive level below does not")
          end
        end
      end
    end
    -- a dirty private line is in no other core's caches
    if c.core then
      for s = 0, c.sets - 1 do
        for _, e in ipairs(c.lists[s]) do
          if e.dirty then
            for q = 0, #m.cores do
              if q ~= c.core then
                for _, o in ipairs(m.cores[q].private) do
                  assert(not holds(o, e.blk * c.bsize), "a dirty line of core " .. c.core .. " is in core " .. q)
                end
              end
            end
          end
        end
      end
    end
  end
end

local function random_trace(seed, n, ncores)
  local x = seed
  local function rnd(k)
    x = (x * 1103515245 + 12345) % 2147483648
    return (x >> 8) % k
  end
  -- switches are stamped as a capture stamps them: by the data references (not
  -- instruction fetches) before them; a switch right after a data reference
  -- takes every record up to the next data reference with it
  local t, switches, core, data = {}, {}, 0, 0
  for i = 1, n do
    local k = ({ READ, READ, WRITE, INSTR })[rnd(4) + 1]
    -- data: a hot region every core shares and a colder one
    local addr = k == INSTR and 0x10000 + rnd(512) * 4 or (rnd(3) == 0 and rnd(64) * 4 or 0x1000 + rnd(1024) * 4)
    t[i] = { t = k, addr = addr, core = core }
    if k ~= INSTR then
      data = data + 1
      local c = rnd(8) == 0 and rnd(ncores) or core
      if c ~= core then
        core = c
        switches[#switches + 1] = data
        switches[#switches + 1] = c
      end
    end
  end
  return t, switches
end

describe("multi-core hierarchy against a slow model (lists per set, MESI)", function()
  local I, E = "inclusive", "exclusive"
  local cases = {
    { cores = 2, l2 = false, l3 = false },
    { cores = 3, l2 = false, l3 = I },
    { cores = 2, l2 = I, l3 = false },
    { cores = 4, l2 = I, l3 = I },
    { cores = 1, l2 = E, l3 = false },
    { cores = 1, l2 = false, l3 = E },
    { cores = 2, l2 = E, l3 = I },
    { cores = 3, l2 = false, l3 = E },
    { cores = 2, l2 = E, l3 = E },
  }
  for _, cs in ipairs(cases) do
    for seed = 1, 2 do
      local what = string.format("%d cores, level 2 %s, level 3 %s, trace %d", cs.cores,
        cs.l2 or "non-inclusive", cs.l3 or "non-inclusive", seed)
      it(what, function()
        local trace, switches = random_trace(seed * 7 + cs.cores, 2000, cs.cores)
        local lines = {}
        for i, r in ipairs(trace) do
          lines[i] = string.format("%s %x 4", ({ [0] = "r", "w", "i" })[r.t], r.addr)
        end
        local path = h.temp_file(table.concat(lines, "\n") .. "\n", ".xdin")
        local l3_block = cs.l3 == E and 32 or 64
        local m = machine(cs.cores, cs.l2, cs.l3, l3_block)
        for _, r in ipairs(trace) do
          access(m, r.core, r.addr, r.t)
          check(m)
        end
        for p = 0, cs.cores - 1 do copyback(m.cores[p].l1d) end
        local spec = string.format("cores=%d l1i:256/32:2 l1d:512/32:2 l2:1k/32:2%s l3:2k/%d:4%s", cs.cores,
          cs.l2 and ":" .. cs.l2 or "", l3_block, cs.l3 and ":" .. cs.l3 or "")
        local r = assert(cache.simulate(path, { format = "xdin", spec = spec, switches = switches }))
        os.remove(path)
        assert.are.equal(cs.cores, r.cores)
        local want = {}
        for _, c in ipairs(m.all) do want[c.name .. (c.core or "")] = c end
        local checked, totals = 0, { sent = 0, recv = 0, coh = 0, snoop = 0, back = 0, fills = 0 }
        for _, got in ipairs(r.caches) do
          local c = assert(want[got.name .. (got.core or "")], got.name)
          local who = got.name .. " core " .. tostring(got.core)
          for t, key in pairs { [0] = "read", "write", "instr" } do
            assert.are.equal(c.fetch[t], got.fetches[key], who .. " fetches " .. key)
            assert.are.equal(c.miss[t], got.misses[key], who .. " misses " .. key)
          end
          assert.are.equal(c.from, got.bytes_from_memory, who .. " bytes from")
          assert.are.equal(c.to, got.bytes_to_memory, who .. " bytes to")
          assert.are.equal(c.back, got.back_invalidations, who .. " back-invalidations")
          assert.are.equal(c.sent, got.invalidations_sent, who .. " invalidations sent")
          assert.are.equal(c.recv, got.invalidations_received, who .. " invalidations received")
          assert.are.equal(c.coh, got.coherence_misses, who .. " coherence misses")
          assert.are.equal(c.snoop, got.snoop_writebacks, who .. " snoop write-backs")
          assert.are.equal(c.fills, got.victim_fills, who .. " clean victims in")
          assert.are.equal(cs.cores > 1 and c.core == nil, got.shared)
          for k in pairs(totals) do totals[k] = totals[k] + c[k] end
          checked = checked + 1
        end
        assert.are.equal(#m.all, checked)
        assert.are.equal(memory.fetch[READ], r.memory.fetches.read)
        assert.are.equal(memory.fetch[WRITE], r.memory.fetches.write)
        -- the traces exercise what they are meant to
        assert.are.equal(cs.cores > 1, totals.sent > 30 and totals.recv >= totals.sent and totals.coh > 10
          and totals.snoop > 10, "coherence traffic")
        assert.are.equal(cs.l2 == I or cs.l3 == I, totals.back > 0)
        assert.are.equal(cs.l2 == E or cs.l3 == E, totals.fills > 50)
      end)
    end
  end

  it("gives the core of each record by switches; one core is the single-core hierarchy", function()
    local path = h.temp_file("w 1000 4\nr 1000 4\nw 1000 4\nr 1000 4\n", ".xdin")
    local spec = "l1:1k/64:2 l2:8k/64:4"
    local one = assert(cache.simulate(path, { format = "xdin", spec = spec }))
    local c1 = assert(cache.simulate(path, { format = "xdin", spec = "cores=2 " .. spec }))
    assert.are.equal(1, one.cores)
    -- every record on core 0: the same figures as one core
    assert.are.equal(one.caches[1].misses.total, c1.caches[1].misses.total)
    assert.are.equal(0, c1.caches[2].fetches.total)
    assert.are.equal(one.memory.fetches.total, c1.memory.fetches.total)
    -- alternate: 0 1 0 1, each record after the first moves the line
    local alt = assert(cache.simulate(path, { format = "xdin", spec = spec, cores = 2, switches = { 0, 0, 1, 1, 2, 0, 3, 1 } }))
    -- (w0 M; r1: 0 writes back, S S; w0: 1's copy goes; r1: coherence miss, 0 writes back)
    assert.are.same({ 0, 1 }, { alt.caches[1].core, alt.caches[2].core })
    assert.is_true(alt.caches[3].shared)
    local c0, c1c = alt.caches[1], alt.caches[2]
    assert.are.same({ 1, 0, 0, 2 }, { c0.invalidations_sent, c0.invalidations_received, c0.coherence_misses,
      c0.snoop_writebacks })
    assert.are.same({ 0, 1, 1, 0 }, { c1c.invalidations_sent, c1c.invalidations_received, c1c.coherence_misses,
      c1c.snoop_writebacks })
    local bad, err = cache.simulate(path, { format = "xdin", spec = spec, cores = 2, switches = { 3, 0, 1, 1 } })
    assert.is_nil(bad)
    assert.matches("switch at 1 comes after one at 3", err)
    os.remove(path)
  end)
end)

describe("retrace cache --cores", function()
  local cjson = require "cjson"
  local spec = "l1i:1k/64:2 l1d:1k/64:2 l2:8k/64:4"
  -- a capture folder made by hand: six references on one block, threads from the log
  local function folder()
    local dir = h.temp_dir()
    local x = h.temp_file("w 1000 4\nr 1000 4\nw 1000 4\nr 1000 4\nr 1000 4\nw 1004 4\n", ".xdin")
    local code, _, err = h.retrace("cache", x, "--format", "xdin", "--convert", dir .. "/trace.rtmb")
    assert.are.equal(0, code, err)
    os.remove(x)
    local function put(name, text)
      local f = assert(io.open(dir .. "/" .. name, "w"))
      f:write(text)
      f:close()
    end
    -- records 0, 3, 5 on thread 0; 1, 2, 4 on thread 1
    put("alloc.msp", "@0 S 0\n@0 A 5000 16 400000\n@1 S 1\n@3 S 0\n@4 S 1\n@5 S 0\n")
    put("loadmap", "")
    put("cmdline", "prog\n")
    put("status", "complete\n")
    return dir
  end

  local function l1d(j, core)
    for _, c in ipairs(j.caches) do
      if c.name == "l1-dcache" and c.core == core then return c end
    end
  end

  local function figures(c)
    return { c.misses.total, c.invalidations_sent, c.invalidations_received, c.coherence_misses, c.snoop_writebacks }
  end

  it("runs each thread on its core, by hand: w0 r1 w1 r0 r1 w0", function()
    local dir = folder()
    local code, out, err = h.retrace("cache", dir, "--hierarchy", spec, "--cores", "2", "--json")
    assert.are.equal(0, code, err)
    local j = cjson.decode(out)
    assert.are.equal(2, j.cores)
    assert.are.equal(6, j.records)
    -- w0 M; r1 0 writes back (S S); w1 0's copy goes; r0 coherence miss, 1 writes
    -- back; r1 hit; w0 1's copy goes
    assert.are.same({ 2, 1, 1, 1, 1 }, figures(l1d(j, 0)))
    assert.are.same({ 1, 1, 1, 0, 1 }, figures(l1d(j, 1)))
    code, out = h.retrace("cache", dir, "--hierarchy", spec, "--cores", "2")
    assert.are.equal(0, code)
    assert.matches("2 cores, MESI among their private caches", out, 1, true)
    assert.matches("l1%-dcache core 1", out)
    assert.matches("l1%-dcache +1 +1 +1 +1 +0 +1\n", out)
    h.remove_tree(dir)
  end)

  it("interleaves the threads, N references each", function()
    local dir = folder()
    -- turns of one: w0 r1 r0 w1 w0 r1
    local code, out, err = h.retrace("cache", dir, "--hierarchy", spec, "--cores", "2", "--interleave", "1", "--json")
    assert.are.equal(0, code, err)
    local j = cjson.decode(out)
    assert.are.same({ 2, 1, 1, 1, 2 }, figures(l1d(j, 0)))
    assert.are.same({ 2, 1, 1, 1, 1 }, figures(l1d(j, 1)))
    h.remove_tree(dir)
  end)

  it("says what is wrong", function()
    local dir = folder()
    local x = h.temp_file("r 1000 4\n", ".xdin")
    for _, c in ipairs {
      { { x, "--hierarchy", spec, "--cores", "2" }, "needs a capture folder" },
      { { dir, "--hierarchy", spec, "--cores", "0" }, "--cores: '0' is not a count" },
      { { dir, "--hierarchy", spec, "--interleave", "2" }, "--interleave needs --cores" },
      { { dir, "--cores", "2" }, "need a hierarchy" },
      { { dir, "--hierarchy", "l1:1k/64:2 l2:8k/64:4:shared l3:64k/64:8:shared=0", "--cores", "2" }, "private below a shared level" },
    } do
      local code, _, err = h.retrace("cache", table.unpack(c[1]))
      assert.are.equal(2, code, err)
      assert.matches(c[2], err, 1, true)
      assert.is_nil(err:find("traceback"))
    end
    os.remove(x)
    h.remove_tree(dir)
  end)
end)
