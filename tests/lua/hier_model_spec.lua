-- The hierarchy engine against a slow model written here with plain lists per
-- set (most recent first): split level-1 caches over a unified level 2, LRU,
-- write-back write-allocate, demand fetch, non-inclusive (Dinero IV's) and
-- inclusive with back-invalidation, on random traces. The model keeps the
-- order in which Dinero IV sends references below (the last queued first) and
-- checks, after every reference, that an inclusive level holds every line of
-- the caches above it.
local cache = require "retrace.cache"
local h = require "helpers"

local READ, WRITE, INSTR = 0, 1, 2

local function new_cache(name, size, bsize, ways, inclusive)
  local c = { name = name, bsize = bsize, ways = ways, sets = size // bsize // ways,
    inclusive = inclusive, lists = {}, ups = {},
    fetch = { [0] = 0, 0, 0 }, miss = { [0] = 0, 0, 0 }, from = 0, to = 0, back = 0 }
  for s = 0, c.sets - 1 do c.lists[s] = {} end
  return c
end

local function find(list, blk)
  for i, e in ipairs(list) do if e.blk == blk then return i end end
end

local memory = { fetch = { [0] = 0, 0, 0 } }

-- the lines of [lo, lo + len) leave every cache above `from`; dirty ones are
-- queued (on the inclusive cache's queue) as writes to the level below it
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
    if q.t == WRITE then c.to = c.to + q.size else c.from = c.from + q.size end
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
  c.fetch[t] = c.fetch[t] + 1
  local i = find(list, blk)
  if i then
    local e = table.remove(list, i)
    table.insert(list, 1, e)
    if t == WRITE then e.dirty = true end
  else
    c.miss[t] = c.miss[t] + 1
    local victim
    if #list == c.ways then victim = table.remove(list) end
    table.insert(list, 1, { blk = blk, dirty = t == WRITE })
    if victim and victim.dirty then
      queue[#queue + 1] = { addr = victim.blk * c.bsize, size = c.bsize, t = WRITE }
    end
    if victim and c.inclusive then back_invalidate(c, victim.blk * c.bsize, c.bsize, queue) end
    if t ~= WRITE or size ~= c.bsize then -- a write filling the whole block fetches nothing
      queue[#queue + 1] = { addr = blk * c.bsize, size = c.bsize, t = t == WRITE and READ or t }
    end
  end
  drain(c, queue)
end

-- the end of run: the data side's dirty lines, set by set, most recent first
-- (sent below last-queued first), then the same one level down
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

-- every line of the caches above an inclusive cache is in it
local function check_inclusion(l2)
  for _, u in ipairs(l2.ups) do
    for s = 0, u.sets - 1 do
      for _, e in ipairs(u.lists[s]) do
        local b = e.blk * u.bsize // l2.bsize
        assert(find(l2.lists[b % l2.sets], b), u.name .. " holds a line level 2 does not")
      end
    end
  end
end

local function random_trace(seed, n)
  local x = seed
  local function rnd(k)
    x = (x * 1103515245 + 12345) % 2147483648
    return (x >> 8) % k
  end
  local t = {}
  for i = 1, n do
    local k = ({ READ, READ, WRITE, INSTR })[rnd(4) + 1]
    local base = k == INSTR and 0x10000 or 0
    t[i] = { t = k, addr = base + rnd(2048) * 4 }
  end
  return t
end

local function model_run(trace, inclusive)
  for k in pairs(memory.fetch) do memory.fetch[k] = 0 end
  local l1i = new_cache("l1-icache", 512, 32, 2)
  local l1d = new_cache("l1-dcache", 1024, 32, 2)
  local l2 = new_cache("l2-ucache", 2048, 64, 2, inclusive)
  l1i.down, l1d.down, l2.down = l2, l2, memory
  l2.ups = { l1i, l1d }
  for _, r in ipairs(trace) do
    ref(r.t == INSTR and l1i or l1d, r.addr, 4, r.t)
    if inclusive then check_inclusion(l2) end
  end
  copyback(l1d)
  return { ["l1-icache"] = l1i, ["l1-dcache"] = l1d, ["l2-ucache"] = l2 }
end

describe("hierarchy against a slow model (lists per set)", function()
  for _, inclusive in ipairs { false, true } do
    for seed = 1, 4 do
      it(string.format("%s, random trace %d", inclusive and "inclusive" or "non-inclusive", seed), function()
        local trace = random_trace(seed, 4000)
        local lines = {}
        for i, r in ipairs(trace) do
          lines[i] = string.format("%s %x 4", ({ [0] = "r", "w", "i" })[r.t], r.addr)
        end
        local path = h.temp_file(table.concat(lines, "\n") .. "\n", ".xdin")
        local want = model_run(trace, inclusive)
        local r = assert(cache.simulate(path, { format = "xdin",
          spec = "l1i:512/32:2 l1d:1k/32:2 l2:2k/64:2" .. (inclusive and ":inclusive=1" or "") }))
        os.remove(path)
        local checked = 0
        for _, got in ipairs(r.caches) do
          local m = want[got.name]
          for t, key in pairs { [0] = "read", "write", "instr" } do
            assert.are.equal(m.fetch[t], got.fetches[key], got.name .. " fetches " .. key)
            assert.are.equal(m.miss[t], got.misses[key], got.name .. " misses " .. key)
          end
          assert.are.equal(m.from, got.bytes_from_memory, got.name .. " bytes from")
          assert.are.equal(m.to, got.bytes_to_memory, got.name .. " bytes to")
          assert.are.equal(m.back, got.back_invalidations, got.name .. " back-invalidations")
          checked = checked + 1
        end
        assert.are.equal(3, checked)
        assert.are.equal(memory.fetch[READ], r.memory.fetches.read)
        assert.are.equal(memory.fetch[WRITE], r.memory.fetches.write)
        if inclusive then
          assert.is_true(want["l1-dcache"].back + want["l1-icache"].back > 0, "the trace back-invalidates")
        else
          assert.are.equal(0, want["l1-dcache"].back)
        end
      end)
    end
  end
end)
