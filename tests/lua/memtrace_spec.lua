-- retrace.memtrace: every memory format read in batches from Lua (the same
-- references as the C readers), errors naming file and line; and the
-- hierarchy through `retrace cache` (Dinero IV options after --, --hierarchy).
local memtrace = require "retrace.memtrace"
local h = require "helpers"

local function all(t, n)
  local out = {}
  for b in t:batches(n) do
    assert.is_true(b.n >= 1 and b.n <= n)
    for i = 1, b.n do out[#out + 1] = { b.addr[i], b.size[i], b.kind[i] } end
  end
  return out
end

describe("retrace.memtrace", function()
  it("reads din, xdin and lackey in batches", function()
    local din = h.temp_file("0 1000\n1 7fff000b comment\n2 400\t i1\n4 20\n", ".din")
    local t = assert(memtrace.open(din, { format = "din" }))
    assert.are.same({ { 0x1000, 4, memtrace.READ }, { 0x7fff0008, 4, memtrace.WRITE },
      { 0x400, 4, memtrace.IFETCH }, { 0x20, 4, memtrace.FLUSH } }, all(t, 3))
    t:close()
    os.remove(din)
    local xdin = h.temp_file("r 0x10 0x8\nm 20 4\nv 0 0\n", ".xdin")
    t = assert(memtrace.open(xdin, { format = "xdin" }))
    assert.are.same({ { 0x10, 8, memtrace.READ }, { 0x20, 4, memtrace.MISC }, { 0, 0, memtrace.INVALIDATE } }, all(t, 2))
    t:close()
    os.remove(xdin)
    local lk = h.temp_file("==1== x\nI  0400d7d4,8\n M 0403a450,4\n", ".lackey")
    t = assert(memtrace.open(lk, { format = "lackey" }))
    -- a modify is a load then a store
    assert.are.same({ { 0x0400d7d4, 8, memtrace.IFETCH }, { 0x0403a450, 4, memtrace.READ },
      { 0x0403a450, 4, memtrace.WRITE } }, all(t, 1))
    assert.are.equal("read", memtrace.KIND_NAMES[memtrace.READ])
    t:close()
    os.remove(lk)
  end)

  it("reads the binary format, records in order, in batches of any size", function()
    local x = {}
    for i = 1, 5000 do x[#x + 1] = string.format("%s %x %x", ({ "r", "w", "i" })[i % 3 + 1], i * 24, 1 + i % 9) end
    local src = h.temp_file(table.concat(x, "\n") .. "\n", ".xdin")
    local bin = os.tmpname()
    assert(require("retrace.cache").convert(src, bin, "xdin"))
    local a = all(assert(memtrace.open(src, { format = "xdin" })), 4096)
    local b = all(assert(memtrace.open(bin)), 777) -- format detected
    assert.are.equal(5000, #a)
    assert.are.same(a, b)
    os.remove(src)
    os.remove(bin)
  end)

  it("names the file and line of a bad record, and refuses a closed trace", function()
    local p = h.temp_file("r 10 4\nq 10 4\n", ".xdin")
    local t = assert(memtrace.open(p, { format = "xdin" }))
    local ok, err = pcall(function() return t:read(10) end)
    -- the good record first, then the error
    if ok then ok, err = pcall(function() return t:read(10) end) end
    assert.is_false(ok)
    assert.is_truthy(tostring(err):find(":2: access type: 'q'", 1, true))
    t:close()
    assert.has_error(function() t:read() end)
    local r, msg = memtrace.open("/nonexistent/trace.din", { format = "din" })
    assert.is_nil(r)
    assert.is_truthy(msg:find("/nonexistent/trace.din", 1, true))
    os.remove(p)
  end)
end)

describe("retrace cache with a hierarchy", function()
  local trace = h.fixtures .. "/dinero/mixed.xdin"

  it("takes Dinero IV options after -- and prints the hierarchy, then the figures", function()
    local code, out = h.retrace("cache", trace, "--format", "xdin", "--", "-l1-usize", "8k",
      "-l1-ubsize", "32", "-l1-uassoc", "2", "-flushcount", "1000", "-l2-usize", "64k", "-l2-ubsize", "64",
      "-l2-uassoc", "4")
    assert.are.equal(0, code)
    assert.is_truthy(out:find("l1-unified: 8K, 32-byte blocks, 2-way, 128 sets", 1, true))
    assert.is_truthy(out:find("flush every 1000 records", 1, true))
    -- the same figures as Dinero IV's stored report of that command (case "flush")
    local cache = require "retrace.cache"
    local want = cache.parse_dinero_report(h.slurp(h.fixtures .. "/dinero/flush.out"))
    local got = cache.parse_dinero_report(out)
    assert.are.same(want["l2-ucache"]["Demand Misses"], got["l2-ucache"]["Demand Misses"])
    assert.are.same(want["l1-ucache"]["Bytes To Memory"], got["l1-ucache"]["Bytes To Memory"])
  end)

  it("gives JSON and refuses bad options with exit 2", function()
    local code, out = h.retrace("cache", trace, "--format", "xdin", "--hierarchy", "l1:4k/32:2", "--json")
    assert.are.equal(0, code)
    local j = require("cjson").decode(out)
    assert.are.equal(6000, j.records)
    assert.are.equal("l1-ucache", j.caches[1].name)
    assert.are.equal(j.caches[1].fetches.total, j.caches[1].fetches.read + j.caches[1].fetches.write
      + j.caches[1].fetches.instr + j.caches[1].fetches.misc)
    local c2, _, err = h.retrace("cache", trace, "--format", "xdin", "--hierarchy", "l1:4k/48:2")
    assert.are.equal(2, c2)
    assert.is_truthy(err:find("l1-ucache: block size 48 is not a power of two", 1, true))
    c2, _, err = h.retrace("cache", trace, "--format", "xdin", "--skip", "10")
    assert.are.equal(2, c2)
    assert.is_truthy(err:find("need a hierarchy", 1, true))
    c2, _, err = h.retrace("cache", trace, "--format", "xdin", "--", "-l1-usize", "8k", "-on-trigger", "10")
    assert.are.equal(2, c2)
    assert.is_truthy(err:find("-on-trigger", 1, true))
  end)
end)
