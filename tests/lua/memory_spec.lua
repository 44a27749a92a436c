-- Memory bounded on the paths that used to grow with the trace: peak memory
-- (max RSS from /usr/bin/time -v) of a run on a trace ten times longer stays
-- within a margin of the short run's; and the bounded readers give the numbers
-- the unbounded ones gave (a PES counted against a Chitra session on random
-- input; overlapping Paraver states against a hand-worked case).
-- bench/memory.lua measures every command at 10^6 and 10^7 events.
local h = require "helpers"
local json = require "cjson"
local core = require "retrace.core"

local function write(path, head, n, line)
  local f = assert(io.open(path, "w"))
  f:write(head)
  local buf = {}
  for k = 0, n - 1 do
    buf[#buf + 1] = line(k)
    if #buf == 8192 then f:write(table.concat(buf)); buf = {} end
  end
  f:write(table.concat(buf))
  f:close()
  return path
end

-- Peak RSS in KiB of `retrace ARGS FILE`, and its exit code.
local function peak(args, file)
  local log = os.tmpname()
  local q = {}
  for i, a in ipairs(args) do q[i] = h.quote(a) end
  local _, _, code = os.execute("/usr/bin/time -v " .. h.quote(h.bin) .. " " .. table.concat(q, " ") .. " " ..
    h.quote(file) .. " >/dev/null 2>" .. log)
  local text = h.slurp(log)
  os.remove(log)
  return tonumber(text:match("Maximum resident set size %(kbytes%): (%d+)")), code
end

local function pes(p, n)
  local names = { "compute", "send", "wait", "recv", "compute", "io", "idle" }
  return write(p, "", n, function(k) return names[k % 7 + 1] .. " " .. k .. "\n" end)
end

-- PICL ping-pong between two processors (4 records a round trip): every message ends a wait,
-- so the critical path goes through all of them (a part per 4 records: 66 MB at 400 000
-- records while the summary held the path whole).
local function pingpong(p, n)
  return write(p, "", n // 4, function(k)
    local a, b, t = k % 2, 1 - k % 2, k * 4e-6
    return ("-3 -52 %.6f %d 0 2 2 7 %d\n-3 -21 %.6f %d 0 3 2 1024 7 %d\n-4 -21 %.6f %d 0 0\n" ..
      "-4 -52 %.6f %d 0 3 2 1024 7 %d\n"):format(t, b, a, t + 1e-6, a, b, t + 2e-6, a, t + 3e-6, b, a)
  end)
end

local PROFILES_OUT = os.tmpname()

local inputs = {
  { "stats on PICL whose critical path passes every message", { "stats" }, pingpong },
  { "stats --json on PICL whose critical path passes every message", { "stats", "--json" }, pingpong },
  { "info on PICL whose critical path passes every message", { "info" }, pingpong },
  -- (the profiles' change points, 16 bytes each, two or three a record, were held whole)
  { "medea --profiles on PICL", { "medea", "--profiles", PROFILES_OUT }, pingpong },
  -- (the sequence it held took 16 bytes a state: 14 MB more here)
  { "chitra on a PES (its chain)", { "chitra" }, pes, { 100000, 1000000 } },
  -- (a clip is applied while the file is read: only the last 1000 states are held back)
  { "chitra --clip on a PES", { "chitra", "--clip", "10:1000" }, pes, { 100000, 1000000 } },
  -- (projections and aggregates are applied while the file is read: 24 bytes a state held before)
  { "chitra --project --aggregate --clip on a PES",
    { "chitra", "--project", "send,recv=comm", "--aggregate", "comm,wait=cw", "--clip", "3:300" }, pes,
    { 100000, 1000000 } },
  -- (the filters, a component projection and an undo read the file once more each: 23 bytes
  -- a state held before)
  { "chitra --filter-time --filter-event on a PES", { "chitra", "--filter-time", "0.2", "--filter-event", "3" }, pes,
    { 100000, 1000000 } },
  { "chitra --components --undo --filter-time on a PES",
    { "chitra", "--component-pattern", "%l+", "--components", "send=comm,recv=comm", "--project", "wait,io=wio",
      "--undo", "--filter-time", "0.2" }, pes, { 100000, 1000000 } },
  { "info on a PES", { "info" }, function(p, n)
    local names = { "a", "b", "c", "d", "e" }
    return write(p, "", n, function(k) return names[k % 5 + 1] .. " " .. k .. "\n" end)
  end },
  { "stats on Paraver states that overlap and come out of order", { "stats" }, function(p, n)
    return write(p, ("#Paraver (01/01/20 at 10:00):%d_ns:1(2):1:2(1:1,1:1),0\n"):format(100 * n), n, function(k)
      if k % 2 == 0 then return ("1:1:1:1:1:%d:%d:1\n"):format(k, 50 * n) end -- each ends far ahead
      return ("1:2:1:2:1:%d:%d:2\n"):format(n - k, n - k + 1)                    -- decreasing begins
    end)
  end },
  { "stats on a Paje trace with a link key per message", { "stats" }, function(p, n)
    local head = h.slurp(h.fixtures .. "/paje/small.trace"):match("^(.*%%EndEventDef\n)") ..
      '1 "Machine" 0 M\n1 "Process" M P\n2 S "MPI state" P\n4 "message" P P M L\n' ..
      '5 "MPI_Recv" S recv "1 0 0"\n5 "user code" S comp "0 1 0"\n6 "node" 0.0 n1 0 M\n' ..
      '6 "rank 0" 0.0 p0 n1 P\n6 "rank 1" 0.0 p1 n1 P\n'
    return write(p, head, n, function(k)
      local step, i = k // 4, k % 4
      local t = step * 1e-3 + i * 1e-4
      if i == 0 then return ("10 comp p0 S %.4f\n"):format(t) end
      if i == 1 then return ("15 k%d p0 1024 n1 L %.4f\n"):format(step, t) end
      if i == 2 then return ("16 %.4f k%d p1 L 1024 n1\n"):format(t, step) end
      return ("10 recv p1 S %.4f\n"):format(t)
    end)
  end },
}

describe("peak memory", function()
  if not io.open("/usr/bin/time") then
    pending("/usr/bin/time is absent (Debian package time): cannot measure peak memory")
    return
  end
  if os.getenv("ASAN_OPTIONS") then
    -- AddressSanitizer keeps freed memory in quarantine: peaks measure the sanitizer there
    pending("the sanitizer build's peak memory is its quarantine's; measured in the plain build")
    return
  end
  teardown(function() os.remove(PROFILES_OUT) end)
  for _, c in ipairs(inputs) do
    local n1, n2 = table.unpack(c[4] or { 40000, 400000 })
    it(("%s is flat from %d to %d records"):format(c[1], n1, n2), function()
      local small, large = c[3](os.tmpname(), n1), c[3](os.tmpname(), n2)
      local a, ca = peak(c[2], small)
      local b, cb = peak(c[2], large)
      os.remove(small)
      os.remove(large)
      assert.are.equal(0, ca)
      assert.are.equal(0, cb)
      -- a reader holding 50 bytes a record would add 18 MB here
      assert.is_true(b < a * 1.25 + 2048, ("%d KiB then %d KiB"):format(a, b))
    end)
  end
end)


-- A PES of n states with names drawn from the first k of names (k random), times that
-- sometimes repeat (zero-length states); returns its path.
local function random_pes(names, n)
  local t, lines = 0, {}
  local k = math.random(1, #names)
  for i = 1, n do
    t = t + (math.random() < 0.2 and 0 or math.random() * 5)
    lines[i] = ("%s %.6g"):format(names[math.random(k)], t)
  end
  return h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
end

describe("the bounded readers give the same numbers", function()
  it("a PES counted (info) as a Chitra session sees it, on random input", function()
    math.randomseed(25)
    for trial = 1, 20 do
      local n = math.random(2, 300)
      local t, lines = 0, {}
      for i = 1, n do
        t = t + math.random(0, 3) * (math.random() < 0.5 and 1 or 0.25)
        lines[i] = ("s%d %s"):format(math.random(1, trial % 6 + 1), t)
      end
      local p = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
      local s = assert(core.seq.pes_scan(p))
      local ses = assert(require("retrace.chitra").load(p))
      local symbols = 0
      for _ in pairs(ses:stats()) do symbols = symbols + 1 end
      local len, entries, times = ses:length(1), ses:entries(1), ses:times(1)
      assert.are.equal(len, s.states)
      assert.are.equal(symbols, s.symbols)
      assert.are.equal(entries[1], s.first)
      assert.are.equal(entries[len] + times[len], s.last)
      ses:close()
      os.remove(p)
    end
  end)

  it("a PES's chain read as a stream is the chain of the PES loaded, on random input", function()
    local chitra = require "retrace.chitra"
    math.randomseed(26)
    -- "OTHER" among the names: the sentinel must take another name then
    local names = { "A", "B", "OTHER", "C1T", "x", "B" }
    for trial = 1, 30 do
      local n = math.random(2, 300)
      local p = random_pes(names, n)
      local ses = assert(chitra.load(p))
      local st = assert(chitra.stream(p))
      local a, b = ses:chain(), st:chain()
      assert.are.equal(a.other, b.other)
      assert.are.same(a.states, b.states) -- names, counts, means, variances, totals: bit for bit
      assert.are.same(a.arcs, b.arcs)
      assert.are.equal(ses:length(1), st:length(1))
      ses:close()
      os.remove(p)
    end
  end)

  it("a PES's chain clipped as a stream is the loaded session's after clip, on random input", function()
    local chitra = require "retrace.chitra"
    math.randomseed(27)
    local names = { "A", "B", "OTHER", "C1T", "x" }
    local tried = 0
    for trial = 1, 60 do
      local n = math.random(2, 120)
      local p = random_pes(names, n)
      -- clips from none to past the end (n - 1 elements): the refusals must agree too
      local ni, nf = math.random(0, n // 2), math.random(0, n // 2)
      if trial % 7 == 0 then ni, nf = 0, n - 1 end
      local ses = assert(chitra.load(p))
      local ok, why = ses:clip(ni, nf)
      local st, serr, empty = chitra.stream(p, { clip = { ni, nf } })
      if not ok then
        assert.is_nil(st)
        assert.are.equal(why, serr)
      elseif ses:length(1) == 0 then
        assert.is_nil(st)
        assert.are.equal("empty", empty)
      else
        tried = tried + 1
        assert.is_truthy(st, serr)
        local a, b = ses:chain(), st:chain()
        assert.are.equal(a.other, b.other)
        assert.are.same(a.states, b.states)
        assert.are.same(a.arcs, b.arcs)
        assert.are.equal(ses:length(1), st:length(1))
        assert.are.same(ses:history(), st:history())
        assert.are.same(ses.notes, st.notes)
      end
      ses:close()
      os.remove(p)
    end
    assert.is_true(tried > 30)
  end)

  it("retrace chitra on one PES prints what the loaded session gives (the table of a hand case)", function()
    local p = h.temp_file("A 0\nB 1\nA 3\nC 4\nA 4.5\nEND 6\n", ".pes")
    local code, out = h.retrace("chitra", p)
    assert.are.equal(0, code, out)
    -- A held 1, 1, 1.5 (mean 7/6); B 2; C 0.5; A -> B, C, OTHER a third each
    assert.truthy(out:find("5 symbols after 0 transforms", 1, true), out)
    assert.truthy(out:find("  A                       3    58.3%        1.167       0.2887      0.08333", 1, true), out)
    assert.truthy(out:find("  A -> OTHER  33.3%", 1, true), out)
    assert.truthy(out:find("  C -> A  100%", 1, true), out)
    os.remove(p)
  end)

  it("overlapping Paraver states: the earlier one ends where the later begins, once warned", function()
    local dir = h.temp_dir()
    local p = dir .. "/o.prv"
    -- thread 1: state 1 over [0, 100), state 2 over [40, 70), state 1 again over [80, 90)
    write(p, "#Paraver (01/01/20 at 10:00):100_ns:1(1):1:1(1:1),0\n", 3, function(k)
      return ({ "1:1:1:1:1:0:100:1\n", "1:1:1:1:1:40:70:2\n", "1:1:1:1:1:80:90:1\n" })[k + 1]
    end)
    local code, out = h.retrace("stats", "--json", p)
    assert.are.equal(0, code, out)
    local s = json.decode(out)
    -- state 1: [0, 40) and [80, 90) = 50 ns in 2 entries; state 2: [40, 70) = 30 ns
    local function row(name)
      for id, r in pairs(s.regions) do
        if r.name == name then return s.processors[1].events[id] end
      end
    end
    assert.is_near(50e-9, row("state 1").time, 1e-15)
    assert.are.equal(2, row("state 1").count)
    assert.is_near(30e-9, row("state 2").time, 1e-15)
    local w = table.concat(s.warnings, "\n")
    assert.truthy(w:find(p .. ":3: begin: 40, before the end (100) of the thread's state of line 2", 1, true), w)
    os.execute("rm -rf " .. h.quote(dir))
  end)
end)
