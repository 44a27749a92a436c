-- bench/gen_otf2_mpi: the generated archive holds what its summary line says it wrote
-- (otf2-print's record counts, retrace's message count), every message is received
-- after it was sent (checked on otf2-print's records, independently of retrace), and
-- the archive is a function of the seed.
local h = require "helpers"
local cjson = require "cjson"

local gen = (h.bin:match("^(.*)/[^/]*$") or ".") .. "/bench/gen_otf2_mpi"

local function run(...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
  local out, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute(h.quote(gen) .. " " .. table.concat(args, " ") .. " >" .. out .. " 2>" .. err)
  local o, e = h.slurp(out), h.slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

local function has_otf2_print()
  return os.execute("command -v otf2-print >/dev/null 2>&1") == true
end

-- otf2-print's event lines: {kind, loc, t, fields} in the order printed
local function otf2_records(anchor)
  local p = io.popen("otf2-print " .. h.quote(anchor) .. " 2>&1")
  local recs = {}
  for l in p:lines() do
    local kind, loc, t, rest = l:match("^([A-Z_]+)%s+(%d+)%s+(%d+)%s*(.*)$")
    if kind then recs[#recs + 1] = { kind = kind, loc = tonumber(loc), t = tonumber(t), rest = rest } end
  end
  p:close()
  return recs
end

describe("gen_otf2_mpi", function()
  local dir, sum, anchor

  setup(function()
    dir = h.temp_dir()
    local code, o, e = run(dir .. "/a", "16", "10000", "3")
    assert.are.equal(0, code, e)
    assert.are.equal("", e)
    sum = cjson.decode(o)
    anchor = dir .. "/a/traces.otf2"
  end)

  teardown(function()
    h.remove_tree(dir)
  end)

  it("writes about EVENTS events, the same number on every location", function()
    assert.are.equal(anchor, sum.archive)
    assert.are.equal(16, sum.locations)
    local total = 0
    for _, n in pairs(sum.records) do total = total + n end
    assert.are.equal(sum.events, total)
    assert.is_true(sum.events <= 10000 and sum.events > 10000 - 16 * 14, tostring(sum.events))
    assert.are.equal(0, sum.events % 16)
    -- every send has its receive; every collective has a begin and an end on every rank
    assert.are.equal(sum.messages, sum.records.MPI_SEND + sum.records.MPI_ISEND)
    assert.are.equal(sum.messages, sum.records.MPI_RECV + sum.records.MPI_IRECV)
    assert.are.equal(sum.records.MPI_ISEND, sum.records.MPI_ISEND_COMPLETE)
    assert.are.equal(sum.records.MPI_IRECV, sum.records.MPI_IRECV_REQUEST)
    assert.are.equal(16 * sum.collectives, sum.records.MPI_COLLECTIVE_BEGIN)
    assert.are.equal(16 * sum.collectives, sum.records.MPI_COLLECTIVE_END)
    assert.is_true(sum.records.MPI_SEND > 0 and sum.records.MPI_ISEND > 0 and sum.collectives > 0)
  end)

  it("has the record counts otf2-print finds, no warnings from it, in time order per location", function()
    if not has_otf2_print() then
      pending("otf2-print missing (make deps installs otf2-tools): reference count skipped")
      return
    end
    local recs = otf2_records(anchor)
    local kinds, per_loc, last = {}, {}, {}
    for _, r in ipairs(recs) do
      kinds[r.kind] = (kinds[r.kind] or 0) + 1
      per_loc[r.loc] = (per_loc[r.loc] or 0) + 1
      assert.is_true((last[r.loc] or 0) <= r.t, "location " .. r.loc .. " goes back in time")
      last[r.loc] = r.t
    end
    assert.are.same(sum.records, kinds)
    for loc = 0, 15 do assert.are.equal(sum.events // 16, per_loc[loc]) end
    local out = io.popen("otf2-print " .. h.quote(anchor) .. " 2>&1 >/dev/null"):read("a")
    assert.are.equal("", out)
  end)

  it("receives every message after its send (FIFO per sender, receiver and tag)", function()
    if not has_otf2_print() then
      pending("otf2-print missing (make deps installs otf2-tools): reference check skipped")
      return
    end
    local queues, matched, waits = {}, 0, 0
    local recs = otf2_records(anchor)
    -- otf2-print merges the locations in time order: a send is printed before its receive
    for _, r in ipairs(recs) do
      local peer, tag, len = r.rest:match("^%a+: (%d+) .-Tag: (%d+), Length: (%d+)")
      if r.kind == "MPI_SEND" or r.kind == "MPI_ISEND" then
        local key = r.loc .. ">" .. peer .. "#" .. tag
        queues[key] = queues[key] or {}
        table.insert(queues[key], { t = r.t, len = len })
      elseif r.kind == "MPI_RECV" or r.kind == "MPI_IRECV" then
        local q = queues[peer .. ">" .. r.loc .. "#" .. tag]
        assert.is_truthy(q and #q > 0, "a receive at " .. r.t .. " on " .. r.loc .. " without its send")
        local s = table.remove(q, 1)
        assert.are.equal(s.len, len)
        -- the arrival: 1 us + 1 ns per 8 bytes after the send
        assert.is_true(r.t >= s.t + 1000 + tonumber(len) // 8)
        if r.t == s.t + 1000 + tonumber(len) // 8 then waits = waits + 1 end
        matched = matched + 1
      end
    end
    for k, q in pairs(queues) do assert.are.equal(0, #q, k .. " has unreceived sends") end
    assert.are.equal(sum.messages, matched)
    assert.is_true(waits > 0, "no receive waited for its message")
  end)

  it("is read by retrace stats with every message paired, no tachyon, no warning", function()
    local code, o, e = h.retrace("stats", "--json", anchor)
    assert.are.equal(0, code, e)
    local st = cjson.decode(o)
    assert.are.equal(sum.messages, st.messages)
    assert.are.equal(0, st.tachyons)
    assert.are.equal(0, st.warnings_total)
    assert.are.equal(16, #st.processors)
  end)

  it("writes locations longer than the writer's chunk whole (each flushed many times)", function()
    if not has_otf2_print() then
      pending("otf2-print missing (make deps installs otf2-tools): reference count skipped")
      return
    end
    -- 2 ranks x 10^5 events: about 1.3 MB per location, five chunks of 256 KiB
    local code, o, e = run(dir .. "/long", "2", "200000", "9")
    assert.are.equal(0, code, e)
    local s = cjson.decode(o)
    local kinds = {}
    for _, r in ipairs(otf2_records(s.archive)) do kinds[r.kind] = (kinds[r.kind] or 0) + 1 end
    assert.are.same(s.records, kinds)
    local st
    code, o, e = h.retrace("stats", "--json", s.archive)
    assert.are.equal(0, code, e)
    st = cjson.decode(o)
    assert.are.equal(s.messages, st.messages)
    assert.are.equal(0, st.tachyons)
    assert.are.equal(0, st.warnings_total)
  end)

  it("--metrics: a METRIC record per computation, read as counters equal to otf2-print's values", function()
    local code, o, e = run("--metrics", dir .. "/m", "4", "2000", "5")
    assert.are.equal(0, code, e)
    local s = cjson.decode(o)
    local total = 0
    for _, n in pairs(s.records) do total = total + n end
    assert.are.equal(s.events, total)
    assert.is_true(s.records.METRIC > 0)
    -- one computation (enter, leave of a user region, then the METRIC) per rank and step
    assert.are.equal(4 * s.steps, s.records.METRIC)
    if not has_otf2_print() then
      pending("otf2-print missing (make deps installs otf2-tools): reference values skipped")
      return
    end
    -- otf2-print: per location, the members' names and values in order
    local want = {}
    for _, r in ipairs(otf2_records(s.archive)) do
      if r.kind == "METRIC" then
        want[r.loc] = want[r.loc] or {}
        for name, v in r.rest:gmatch('%("([^"]+)" <%d+>; %u+%d*; ([^)]+)%)') do
          table.insert(want[r.loc], { name = name, v = tonumber(v) })
        end
      end
    end
    -- retrace dump: "TIME  Pp  counter  NAME = VALUE UNIT"
    code, o, e = h.retrace("dump", s.archive)
    assert.are.equal(0, code, e)
    local got, units = {}, {}
    for p, name, v, unit in o:gmatch("\n[%d.]+%s+P(%d+)%s+counter%s+(%S+) = (%S+) (%S*)") do
      p = tonumber(p)
      got[p] = got[p] or {}
      table.insert(got[p], { name = name, v = tonumber(v) })
      units[name] = unit
    end
    assert.are.same({ PAPI_TOT_INS = "#", power = "W" }, units)
    for loc = 0, 3 do
      assert.are.equal(2 * s.records.METRIC // 4, #want[loc])
      assert.are.equal(#want[loc], #got[loc])
      for i, w in ipairs(want[loc]) do
        local g = got[loc][i]
        assert.are.equal(w.name, g.name)
        -- otf2-print prints 6 significant digits
        assert.is_true(math.abs(w.v - g.v) <= 1e-5 * math.abs(w.v), w.name .. " " .. w.v .. " vs " .. g.v)
      end
    end
  end)

  it("is a function of the seed", function()
    local code, o = run(dir .. "/b", "16", "10000", "3")
    assert.are.equal(0, code)
    assert.are.same(sum, (cjson.decode((o:gsub(dir .. "/b", dir .. "/a", 1)))))
    assert.are.equal(h.slurp(dir .. "/a/traces/5.evt"), h.slurp(dir .. "/b/traces/5.evt"))
    code = run(dir .. "/c", "16", "10000", "4")
    assert.are.equal(0, code)
    assert.are_not.equal(h.slurp(dir .. "/a/traces/5.evt"), h.slurp(dir .. "/c/traces/5.evt"))
  end)

  it("refuses bad usage (exit 2) and a folder in use (exit 1), leaving nothing behind", function()
    local code, _, e = run(dir .. "/d", "16")
    assert.are.equal(2, code)
    assert.truthy(e:find("usage", 1, true), e)
    code, _, e = run(dir .. "/d", "0", "100")
    assert.are.equal(2, code)
    assert.truthy(e:find("LOCATIONS", 1, true), e)
    code, _, e = run(dir .. "/d", "4", "1.5")
    assert.are.equal(2, code)
    assert.truthy(e:find("EVENTS", 1, true), e)
    code, _, e = run(dir .. "/a", "4", "100")
    assert.are.equal(1, code)
    assert.truthy(e:find(dir .. "/a: exists and is not empty", 1, true), e)
    assert.are.equal(1, select(2, e:gsub("\n", "")))
    local lfs = require "lfs"
    for f in lfs.dir(dir) do assert.is_nil(f:find("partial", 1, true), f) end
  end)
end)
