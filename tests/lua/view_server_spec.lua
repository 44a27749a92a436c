-- The viewer's server queries for the page's filters and its critical path, without a browser:
-- procs= against the same processor asked as a range, comm= against the halo run's messages
-- (all on MPI_COMM_WORLD), malformed lists answered 400,
-- and the critical path on demand (api/critpath: pending, taken by the owner, answered) against
-- `retrace stats --from --to`. (The page itself: tests/browser/test_view.py.)
local h = require "helpers"
local cjson = require "cjson"
local viewer = require "retrace.viewer"

local HALO = h.fixtures .. "/mpi/halo2.otf2/traces.otf2"

local function stats_cli(trace, a, b) -- retrace stats --json [--from a --to b]
  local args = { "stats", "--json" }
  if a then for _, x in ipairs({ "--from", string.format("%.17g", a), "--to", string.format("%.17g", b) }) do args[#args + 1] = x end end
  args[#args + 1] = trace
  local code, out, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  return cjson.decode(out)
end

local function close(a, b, tol) return math.abs(a - b) <= tol * math.max(1, math.abs(a), math.abs(b)) end

describe("retrace view's queries", function()
  local dir, srv, meta
  before_each(function()
    dir = h.temp_dir()
    local path = assert(viewer.ensure(HALO, { index = dir .. "/halo.rtidx" }))
    srv = assert(viewer.serve(HALO, path, {}))
    local st, body = srv:query("api/meta")
    assert.are.equal(200, st)
    meta = cjson.decode(body)
  end)
  after_each(function()
    if srv then srv:close() end
    h.remove_tree(dir)
  end)

  local function q(url, args)
    local st, body = srv:query(url, args)
    return st, cjson.decode(body)
  end

  it("procs= keeps the processors listed: the numbers of the range of that processor alone", function()
    local a, b = meta.tmin + (meta.tmax - meta.tmin) // 4, meta.tmax - (meta.tmax - meta.tmin) // 4
    local st, s = q("api/stats", string.format("t0=%d&t1=%d&procs=1", a, b))
    assert.are.equal(200, st)
    assert.are.equal(1, #s.procs)
    assert.are.equal(1, s.procs[1].proc)
    local _, ref = q("api/stats", string.format("t0=%d&t1=%d&p0=1&p1=2", a, b))
    ref.p0, ref.p1, s.p0, s.p1 = nil, nil, nil, nil
    assert.are.same(ref, s)
    assert.is_true(#s.functions > 0 and s.busy + s.overhead + s.idle > 0)
    -- "0,1" and "1,0-0" are the whole range
    local _, all = q("api/stats", string.format("t0=%d&t1=%d", a, b))
    local _, both = q("api/stats", string.format("t0=%d&t1=%d&procs=1,0-0", a, b))
    assert.are.same(all, both)
    -- none listed: nothing counted
    local _, none = q("api/stats", "procs=")
    assert.are.same({}, none.procs)
    assert.are.equal(0, none.busy)
    local _, p = q("api/profile", "w=4&procs=1")
    assert.are.equal(1, p.shown)
  end)

  it("refuses a malformed list of processors with 400 and a message", function()
    for _, bad in ipairs({ "x", "1-0", "-1", "1,,2", "1-", "2;3", "1-2-3" }) do
      local st, v = q("api/stats", "procs=" .. bad)
      assert.are.equal(400, st, bad)
      assert.matches("argument procs", v.error)
    end
  end)

  it("comm= keeps the messages of that communicator (meta lists the communicators and members)", function()
    assert.are.same({ { id = 0, name = "MPI_COMM_WORLD", members = { 0, 1 } } }, meta.comms or {})
  end)

  it("comm= counts only that communicator's messages", function()
    local _, all = q("api/stats", "")
    assert.is_true(all.messages.count > 0)
    local _, w = q("api/stats", "comm=0")
    assert.are.equal(all.messages.count, w.messages.count) -- every message of the halo run is on WORLD
    local _, other = q("api/stats", "comm=7")
    assert.are.equal(0, other.messages.count)
    assert.are.same(all.functions, other.functions)
    local _, v = q("api/view", "w=100&h=10&comm=7")
    assert.are.same({}, v.messages)
    assert.are.equal(400, (q("api/stats", "comm=x")))
  end)

  it("asks a second trace with trace=1; without one, trace=1 is a 400", function()
    assert.are.equal(400, (q("api/meta", "trace=1")))
    local path2 = assert(viewer.ensure(HALO, { index = dir .. "/halo-b.rtidx" }))
    local two = assert(viewer.serve(HALO, path2, { second = { trace = HALO, index = path2 } }))
    local st, m = two:query("api/meta", "trace=1")
    assert.are.equal(200, st)
    m = cjson.decode(m)
    assert.are.same({ 1, 2, HALO }, { m.trace, m.traces, m.title })
    local _, s0 = two:query("api/stats", "")
    local _, s1 = two:query("api/stats", "trace=1")
    assert.are.equal(s0, s1) -- the same run behind both
    assert.are.equal(400, (two:query("api/critpath", "trace=1")))
    assert.are.equal(400, (two:query("api/view", "trace=2&w=10&h=10")))
    local page = select(2, two:query(""))
    assert.matches("compare", page)
    two:close()
  end)

  it("answers the critical path on demand: pending, taken by the owner, then its answer", function()
    assert.are.equal(501, (q("api/critpath", "")))
    srv:critpath_on()
    local a, b = meta.tmin + (meta.tmax - meta.tmin) // 3, meta.tmax
    local st, v = q("api/critpath", string.format("t0=%d&t1=%d", a, b))
    assert.are.equal(202, st)
    assert.is_true(v.pending)
    local t0, t1 = srv:critpath_take()
    assert.are.same({ a, b }, { t0, t1 })
    assert.is_nil(srv:critpath_take())
    -- asked again while being computed: not queued twice
    assert.are.equal(202, (q("api/critpath", string.format("t0=%d&t1=%d", a, b))))
    assert.is_nil(srv:critpath_take())
    local ans = assert(viewer.critical_path(HALO):window(a / meta.unit, b / meta.unit))
    srv:critpath_put(t0, t1, 200, cjson.encode(ans))
    local st2, got = q("api/critpath", string.format("t0=%d&t1=%d", a, b))
    assert.are.equal(200, st2)
    local ref = stats_cli(HALO, a / meta.unit, b / meta.unit).critical_path
    assert.is_true(close(got.length, ref.length, 1e-9))
    assert.are.equal(#ref.segments, got.nsegments)
    assert.are.equal(#ref.messages, got.nmessages)
    for i, g in ipairs(ref.segments) do
      assert.are.equal(g.proc, got.segments[i][1])
      assert.is_true(close(g.from, got.segments[i][2], 1e-12) and close(g.to, got.segments[i][3], 1e-12))
    end
    local sum = got.flight
    for _, p in ipairs(got.procs) do sum = sum + p.time end
    assert.is_true(close(sum, ref.length, 1e-9))
  end)
end)

-- One rule for idle time (rt_replay.h): a processor is idle from the run's first event to its own
-- first and from its own last to the run's last. The viewer's summary of the whole run gives each
-- processor the idle, overhead and busy times `retrace stats --json` gives, on every shared sample.
describe("retrace view's time per state", function()
  local samples = { "otf2/pingpong/traces.otf2", "paraver/qsort_beo3.prv", "paje/g5k.trace", "paje/ms.trace",
    "paje/simu-mardi.trace", "picl/fft-16.trf", "picl/mpicl-10.trf", "picl/mpicl-8a.trf", "picl/mpicl-8b.trf" }
  local function check(trace)
    local ref = stats_cli(trace)
    local span = ref.span[2] - ref.span[1]
    if span <= 0 then -- all events at one time (g5k: a platform's definition): no time, and the viewer says so
      for _, rp in ipairs(ref.processors) do assert.are.equal(0, rp.idle + rp.overhead + rp.busy) end
      local dir = h.temp_dir()
      local srv = assert(viewer.serve(trace, assert(viewer.ensure(trace, { index = dir .. "/t.rtidx" })), {}))
      local st, body = srv:query("api/stats", "")
      srv:close()
      h.remove_tree(dir)
      assert.are.equal(400, st)
      assert.matches("empty time window", cjson.decode(body).error)
      return
    end
    local dir = h.temp_dir()
    local path = assert(viewer.ensure(trace, { index = dir .. "/t.rtidx" }))
    local srv = assert(viewer.serve(trace, path, {}))
    local st, body = srv:query("api/stats", "")
    srv:close()
    h.remove_tree(dir)
    assert.are.equal(200, st)
    local s = cjson.decode(body)
    local by = {}
    for _, p in ipairs(s.procs) do by[p.proc] = p end
    local n = 0
    for _, rp in ipairs(ref.processors) do
      local p = by[rp.id]
      assert.is_not_nil(p, trace .. ": processor " .. rp.id)
      for _, k in ipairs({ "idle", "overhead", "busy" }) do
        if math.abs(p[k] - rp[k]) > 1e-6 * span + 1e-9 then
          error(string.format("%s: processor %d: %s %.9g in the viewer, %.9g in stats", trace, rp.id, k, p[k], rp[k]))
        end
      end
      n = n + 1
    end
    assert.is_true(n > 0)
  end
  it("equals retrace stats per processor on the halo run (idle at the run's ends counted)", function()
    check(HALO)
  end)
  for _, rel in ipairs(samples) do
    local trace = h.shared_file(rel)
    if trace then
      it("equals retrace stats per processor on " .. rel, function() check(trace) end)
    else
      pending("../shared absent: " .. rel .. " skipped")
    end
  end
end)

-- Counters: api/counters on the Paraver sample against its event records read here from the .prv
-- (2:cpu:appl:task:thread:time:type:value...), the step function's mean computed by hand.
describe("retrace view's counters", function()
  local trace = h.shared_file("paraver/qsort_beo3.prv")
  if not trace then
    pending("../shared absent: paraver/qsort_beo3.prv skipped")
    return
  end
  local CYCLES = 42000060
  local function records(task) -- {time, value} of Total cycles on task (thread 1), in file order
    local out = {}
    for line in io.lines(trace) do
      if line:sub(1, 2) == "2:" then
        local f = {}
        for x in line:gmatch("[^:]+") do f[#f + 1] = x end
        if tonumber(f[4]) == task then
          for i = 7, #f - 1, 2 do
            if tonumber(f[i]) == CYCLES then out[#out + 1] = { tonumber(f[6]), tonumber(f[i + 1]) } end
          end
        end
      end
    end
    return out
  end
  local dir, srv, meta, c
  before_each(function()
    dir = h.temp_dir()
    srv = assert(viewer.serve(trace, assert(viewer.ensure(trace, { index = dir .. "/q.rtidx" })), {}))
    local _, body = srv:query("api/meta")
    meta = cjson.decode(body)
    for i, k in ipairs(meta.counters) do if k.name == "Total cycles (Total cycles)" then c = i - 1 end end
  end)
  after_each(function()
    srv:close()
    h.remove_tree(dir)
  end)

  it("lists the counters: the .pcf's event types without values", function()
    local names = {}
    for _, k in ipairs(meta.counters) do names[#names + 1] = k.name end
    assert.are.same({ "I/O Size", "Instructions completed (Instr completed)", "Level 2 cache misses (L2 cache misses)",
      "Total cycles (Total cycles)" }, names)
  end)

  it("gives each processor's samples and the mean of its steps over a window", function()
    for task = 1, 4 do
      local want = records(task)
      assert.is_true(#want > 2)
      local st, body = srv:query("api/counters", string.format("c=%d&p0=%d&p1=%d&w=4", c, task - 1, task)) -- 16 samples at most: exact
      assert.are.equal(200, st, body)
      local s = cjson.decode(body).series[1]
      assert.are.equal(task - 1, s.proc)
      assert.are.same(want, s.samples)
      -- one column from the first sample to the run's end: each value held until the next
      local a, b = want[1][1], meta.tmax
      local _, b2 = srv:query("api/counters", string.format("c=%d&p0=%d&p1=%d&w=1&t0=%d&t1=%d", c, task - 1, task, a, b))
      local s2 = cjson.decode(b2).series[1]
      local area, lo, hi = 0, math.huge, -math.huge
      for i, x in ipairs(want) do
        local e = want[i + 1] and want[i + 1][1] or b
        area = area + x[2] * (e - x[1])
        lo, hi = math.min(lo, x[2]), math.max(hi, x[2])
      end
      assert.is_true(close(area / (b - a), s2.mean[1], 1e-7), string.format("mean %g, by hand %g", s2.mean[1], area / (b - a)))
      assert.are.equal(lo, s2.min[1])
      assert.are.equal(hi, s2.max[1])
    end
  end)

  it("sums the processors: the mean of the sum is the sum of the means", function()
    local _, all = srv:query("api/counters", string.format("c=%d&w=8&sum=1", c))
    all = cjson.decode(all)
    assert.are.equal(1, #all.series)
    assert.is_nil(all.series[1].samples)
    local means = {}
    for p = 0, 3 do
      local _, one = srv:query("api/counters", string.format("c=%d&w=8&p0=%d&p1=%d", c, p, p + 1))
      for k, v in ipairs(cjson.decode(one).series[1].mean) do
        if v ~= cjson.null then means[k] = (means[k] or 0) + v end
      end
    end
    -- a column where every processor has a value throughout
    local k = 8
    assert.is_true(close(means[k], all.series[1].mean[k], 1e-6), string.format("%g %g", means[k], all.series[1].mean[k]))
  end)

  it("refuses a malformed query with 400 and a message", function()
    for _, bad in ipairs({ "w=4", "c=99&w=4", "c=0", "c=0&w=0", "c=0&w=4&sum=2", "c=x&w=4" }) do
      local st, body = srv:query("api/counters", bad)
      assert.are.equal(400, st, bad)
      assert.is_string(cjson.decode(body).error)
    end
  end)
end)

-- OTF2 metrics: api/counters on an archive of bench/gen_otf2_mpi --metrics against otf2-print's METRIC
-- records (each member a counter; values to otf2-print's 6 digits, times one constant shift apart).
describe("retrace view's OTF2 metrics", function()
  local gen = (h.bin:match("^(.*)/[^/]*$") or ".") .. "/bench/gen_otf2_mpi"

  -- a server on a fresh archive of gen_otf2_mpi --metrics ARGS (removed with the server after the test)
  local function metrics_server(args)
    local dir = h.temp_dir()
    finally(function() h.remove_tree(dir) end)
    local anchor = dir .. "/m/traces.otf2"
    assert.is_true(os.execute(h.quote(gen) .. " --metrics " .. h.quote(dir .. "/m") .. " " .. args .. " >/dev/null"))
    local srv = assert(viewer.serve(anchor, assert(viewer.ensure(anchor, { index = dir .. "/m.rtidx" })), {}))
    finally(function() srv:close() end)
    return srv, anchor
  end

  it("serves each member's samples as otf2-print gives them", function()
    local srv, anchor = metrics_server("4 3000 7")
    local _, body = srv:query("api/meta")
    local meta = cjson.decode(body)
    assert.are.same({ { name = "PAPI_TOT_INS", unit = "#" }, { name = "power", unit = "W" } }, meta.counters)
    if os.execute("command -v otf2-print >/dev/null 2>&1") ~= true then
      pending("otf2-print missing (make deps installs otf2-tools): reference values skipped")
      return
    end
    local want = { [0] = {}, [1] = {} } -- by counter, by location: {t, value}
    local p = io.popen("otf2-print " .. h.quote(anchor) .. " 2>/dev/null")
    for l in p:lines() do
      local loc, t, rest = l:match("^METRIC%s+(%d+)%s+(%d+)%s+(.*)$")
      if loc then
        local k = 0
        for v in rest:gmatch('%("[^"]+" <%d+>; %u+%d*; ([^)]+)%)') do
          local byloc = want[k]
          byloc[tonumber(loc)] = byloc[tonumber(loc)] or {}
          table.insert(byloc[tonumber(loc)], { tonumber(t), tonumber(v) })
          k = k + 1
        end
      end
    end
    p:close()
    local shift
    for c = 0, 1 do
      for proc = 0, 3 do
        local st, body = srv:query("api/counters", string.format("c=%d&p0=%d&p1=%d&w=4096", c, proc, proc + 1))
        assert.are.equal(200, st, body)
        local r = cjson.decode(body)
        assert.is_true(r.exact)
        local got, w = r.series[1].samples, want[c][proc]
        assert.are.equal(#w, #got)
        assert.is_true(#w > 10)
        shift = shift or (w[1][1] - got[1][1])
        for i = 1, #w do
          assert.are.equal(w[i][1] - shift, got[i][1])
          assert.is_true(math.abs(w[i][2] - got[i][2]) <= 1e-5 * math.abs(w[i][2]), w[i][2] .. " vs " .. got[i][2])
        end
      end
    end
  end)

  it("answers from the per-column summaries what the samples give on the summaries' own columns", function()
    local srv = metrics_server("3 20000 11")
    local _, mb = srv:query("api/meta")
    local meta = cjson.decode(mb)
    local function get(args)
      local st, body = srv:query("api/counters", args)
      assert.are.equal(200, st, body)
      return cjson.decode(body)
    end
    -- the whole run from the summaries: where the level's columns start and how wide they are
    local whole = get("c=1&w=64&lod=1")
    assert.is_false(whole.exact)
    assert.is_true(whole.level >= 1, tostring(whole.level))
    for _, n in ipairs({ 16, 64 }) do
      -- n pixel columns of exactly the level's width from its origin: a summary column each
      local t0 = whole.origin
      local args = string.format("c=1&w=%d&t0=%d&t1=%d&p0=0&p1=3", n, t0, t0 + n * whole.colw)
      local s, r = get(args .. "&lod=1"), get(args .. "&lod=0")
      assert.are.equal(whole.level, s.level)
      assert.are.equal(-1, r.level)
      local compared = 0
      for k = 1, 3 do
        local a, b = s.series[k], r.series[k]
        assert.are.equal(a.proc, b.proc)
        for i = 1, n do
          local ends = t0 + i * whole.colw
          if b.mean[i] ~= cjson.null and a.mean[i] ~= cjson.null then
            assert.are.equal(b.min[i], a.min[i])
            assert.are.equal(b.max[i], a.max[i])
            -- (past the run's last event the samples' last value holds on to the window's end, the summaries' stops)
            if ends <= meta.tmax then
              assert.is_true(close(b.mean[i], a.mean[i], 1e-8), string.format("column %d: %.9g %.9g", i, a.mean[i], b.mean[i]))
              compared = compared + 1
            end
          else
            assert.is_true(a.mean[i] == cjson.null and (b.mean[i] == cjson.null or ends > meta.tmax + whole.colw))
          end
        end
      end
      assert.is_true(compared >= n, tostring(compared))
    end
    -- lod is 0 or 1
    assert.are.equal(400, (srv:query("api/counters", "c=1&w=4&lod=2")))
  end)
end)
