-- `retrace info`: the format of each file and what its reader counts in it.
-- The fixtures in tests/fixtures/info are small enough to count by hand; the
-- comments give the counting.
local h = require "helpers"
local cjson = require "cjson"
local formats = require "retrace.formats"

local function fixture(name)
  return h.fixtures .. "/info/" .. name
end

-- `retrace info --json ARGS...` -> exit code, decoded list, stderr
local function info_json(...)
  local code, out, err = h.retrace("info", "--json", ...)
  local ok, v = pcall(cjson.decode, out)
  assert(ok, "not JSON: " .. out .. err)
  return code, v, err
end

-- one test per shared trace {path, ...}: body(path, case); pending when ../shared/data is absent
local function each_shared(cases, title, body)
  for _, c in ipairs(cases) do
    local path = h.shared_file(c[1])
    if path then
      it(c[1] .. title, function() body(path, c) end)
    else
      pending(c[1] .. ": ../shared/data absent, skipped")
    end
  end
end

local function event_counts(kinds)
  local t = {}
  for _, e in ipairs(kinds) do t[e.name] = e.count end
  return t
end

-- formats whose readers this build has (issue 17: OTF2, Paraver, Paje join when merged)
local has_reader = {}
for _, f in ipairs(require("retrace.core").replay.formats()) do has_reader[f] = true end

describe("retrace info on a SHMAP trace", function()
  it("counts matrices, events by kind, time, sections and groups", function()
    -- two.shm: matrices 1 (3x2) and 2 (4x4); loads 1..3 x 1..2 (6 elements) at 1.0 and
    -- 3..4 x 4 (2) at 3.0, a store 1..2 x 1..4 (8) at 2.5; two info records and a flops
    -- record (10); times 1, 2.5, 3: steps 1.5 and 0.5; one section, two groups
    local code, v = info_json(fixture("two.shm"))
    assert.are.equal(0, code)
    local r = v[1]
    assert.are.equal("shmap", r.format)
    assert.are.equal(14, r.lines)
    local s = r.summary
    assert.are.same({ { id = 1, rows = 3, cols = 2 }, { id = 2, rows = 4, cols = 4 } }, s.matrices)
    assert.are.same({ total = 6, loads = 2, stores = 1, other = 3 }, s.events)
    assert.are.same({ loaded = 8, stored = 8 }, s.elements)
    assert.are.equal(10, s.flops)
    assert.are.same({ first = 1, last = 3, min_step = 0.5 }, s.time)
    assert.are.equal(1, s.sections)
    assert.are.equal(2, s.groups)
  end)

  it("says the same in words", function()
    local code, out = h.retrace("info", fixture("two.shm"))
    assert.are.equal(0, code)
    assert.truthy(out:find("2 matrices: 1 (3x2), 2 (4x4)", 1, true))
    assert.truthy(out:find("6 events: 2 loads, 1 store, 3 info/flops; 8 elements loaded, 8 stored; 10 flops",
      1, true))
    assert.truthy(out:find("trace time 3 (first stamp 1, smallest step 0.5)", 1, true))
    assert.truthy(out:find("1 parallel section, 2 groups", 1, true))
  end)
end)

describe("retrace info on PICL traces", function()
  -- the summary with event_kinds turned into {name = count}
  local function picl_summary(name)
    local code, v = info_json(fixture(name))
    assert.are.equal(0, code)
    local s = v[1].summary
    s.event_kinds = event_counts(s.event_kinds)
    return v[1].format, s
  end

  it("new format: processors, records, span, event kinds and the skipped line", function()
    -- new.trf: 9 records, one with a bad time skipped -> 8; P0 and P1; times 0 .. 4;
    -- entry/exit pairs: a send (P0), a receive (P1), user event 3 (P0); one message
    local fmt, s = picl_summary("new.trf")
    assert.are.equal("picl-new", fmt)
    assert.are.same({ picl_format = "new", processors = 2, records = 8, span = { 0, 4 }, messages = 1,
      events = 3, event_kinds = { send = 1, receive = 1, ["user event 3"] = 1 }, skipped = 1, warnings = 1 }, s)
  end)

  it("old format: block, blocked receive and the tracing spans", function()
    -- old.trf: 10 records on nodes 0 and 1 from 0 to 3; node 0 sends 32 bytes at 1.0
    -- inside block 3 (0.5 .. 1.5); node 1 blocks from 1.0 to 2.0 for it; codes 1 .. 19
    -- make one tracing span per node
    local fmt, s = picl_summary("old.trf")
    assert.are.equal("picl-old", fmt)
    assert.are.same({ picl_format = "old", processors = 2, records = 10, span = { 0, 3 }, messages = 1,
      events = 5, event_kinds = { tracing = 2, send = 1, ["receive (blocked)"] = 1, ["user event 3"] = 1 },
      skipped = 0, warnings = 0 }, s)
    local _, out = h.retrace("info", fixture("old.trf"))
    assert.truthy(out:find("old format: 2 processors, 10 records, time 0 s .. 3 s", 1, true))
    assert.truthy(out:find("1 message, 5 events: tracing 2, ", 1, true))
    assert.truthy(out:find("0 warnings", 1, true))
  end)

  local shared = {
    { "picl/fft-16.trf", "picl-old", 16 },
    { "picl/mpicl-8a.trf", "picl-new", 8 },
    { "picl/mpicl-10.trf", "picl-new", 10 },
  }
  each_shared(shared, ": every line a record, processors as named, messages as sends counted", function(path, c)
    local lines, sends = 0, 0
    for line in io.lines(path) do
      lines = lines + 1
      local a, b = line:match("^%s*(%-?%d+)%s+(%-?%d+)")
      if c[2] == "picl-old" and a == "4" then sends = sends + 1 end
      -- sends pair at their entries: -3 with an event in -21 .. -50
      local ev = tonumber(b)
      if c[2] == "picl-new" and a == "-3" and ev <= -21 and ev >= -50 then sends = sends + 1 end
    end
    local code, v = info_json(path)
    assert.are.equal(0, code)
    local s = v[1].summary
    assert.are.equal(c[2], v[1].format)
    assert.are.equal(c[3], s.processors)
    assert.are.equal(lines, s.records)
    assert.are.equal(sends, s.messages)
    local total = 0
    for _, e in ipairs(s.event_kinds) do total = total + e.count end
    assert.are.equal(s.events, total)
    assert.is_true(s.span[2] > s.span[1])
  end)
end)

describe("retrace info on memory traces", function()
  -- `retrace info --json FILE` of a memory trace -> its format and summary
  local function memory_summary(path)
    local code, v = info_json(path)
    assert.are.equal(0, code)
    return v[1].format, v[1].summary
  end

  -- {records, reads, writes, ifetches, flushes, other, distinct lines} as a summary of 64-byte lines
  local function counts(t)
    return { records = t[1], reads = t[2], writes = t[3], ifetches = t[4], flushes = t[5], other = t[6],
             distinct_lines = t[7], line = 64 }
  end

  local cases = {
    -- refs.din: reads 1000, 1004, 107c (107e rounded down), 1000; writes 1040, 2000;
    -- an instruction fetch and a flush; lines of 64: 0x40, 0x41, 0x80
    { "din", "refs.din", { 8, 4, 2, 1, 1, 0, 3 } },
    -- refs.xdin: r 1000+8 (line 0x40), w 103c+8 (0x40 and 0x41: an access across a line
    -- boundary is one write per line), i 400, m (other), r 5000+64 (0x140)
    { "xdin", "refs.xdin", { 5, 2, 2, 1, 0, 1, 3 } },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": references by kind and distinct lines of 64 bytes", function()
      local fmt, s = memory_summary(fixture(c[2]))
      assert.are.equal(c[1], fmt)
      assert.are.same(counts(c[3]), s)
    end)
  end

  it("--line changes the line size the distinct lines are counted in", function()
    -- lines of 16: 0x100 (1000, 1004), 0x104 (1040), 0x107 (107c), 0x200 (2000)
    local code, v = info_json("--line", "16", fixture("refs.din"))
    assert.are.equal(0, code)
    assert.are.equal(16, v[1].summary.line)
    assert.are.equal(4, v[1].summary.distinct_lines)
    local _, out = h.retrace("info", "--line", "16", fixture("refs.din"))
    assert.truthy(out:find("4 distinct data lines of 16 bytes", 1, true))
  end)

  it("lackey and its RTMB conversion give the same counts", function()
    -- refs.lackey: I, L 7ff000, S 7ff008, M 7ff040 (a load and a store): 5 records,
    -- 2 reads, 2 writes; lines 0x1ffc0 and 0x1ffc1
    local fmt, s = memory_summary(fixture("refs.lackey"))
    assert.are.equal("lackey", fmt)
    assert.are.same(counts { 5, 2, 2, 1, 0, 0, 2 }, s)
    local bin = os.tmpname()
    assert.are.equal(5, assert(require("retrace.cache").convert(fixture("refs.lackey"), bin, "lackey")))
    local bfmt, bs = memory_summary(bin)
    os.remove(bin)
    assert.are.equal("bin", bfmt)
    assert.are.same(s, bs)
  end)

  it("refuses a line size that is not a power of two (usage, exit 2)", function()
    for _, bad in ipairs { "3", "0", "96", "x" } do
      local code, out, err = h.retrace("info", "--line", bad, fixture("refs.din"))
      assert.are.equal(2, code)
      assert.are.equal("", out)
      assert.are.equal("retrace: --line: expected a power of two (bytes), got '" .. bad .. "'\n", err)
    end
  end)
end)

describe("retrace info on other formats", function()
  it("PES: states, distinct symbols and time span", function()
    -- run.pes: entries A 0, B 2, A 5, C 6 and the end at 10 (D names no state)
    local code, v = info_json(fixture("run.pes"))
    assert.are.equal(0, code)
    assert.are.equal("pes", v[1].format)
    assert.are.same({ states = 4, symbols = 3, span = { 0, 10 } }, v[1].summary)
    local _, out = h.retrace("info", fixture("run.pes"))
    assert.truthy(out:find("4 states, 3 distinct symbols, time 0 .. 10", 1, true))
  end)

  it("PES: the bundled philosophers run", function()
    -- 21 entries from 1550 to 1760: 20 states over 12 symbols
    local code, v = info_json(h.fixtures .. "/chitra/philosophers2.pes")
    assert.are.equal(0, code)
    assert.are.same({ states = 20, symbols = 12, span = { 1550, 1760 } }, v[1].summary)
  end)

  it("Paje is recognised, with no reader yet", function()
    if has_reader.paje then return pending("this build has a Paje reader: see its own tests") end
    local code, out = h.retrace("info", fixture("head.paje"))
    assert.are.equal(0, code)
    assert.truthy(out:find("head.paje: paje (Paje trace)", 1, true))
    assert.truthy(out:find("recognised; no reader for this format yet", 1, true))
    local _, v = info_json(fixture("head.paje"))
    assert.is_nil(v[1].summary)
    assert.are.equal("recognised; no reader for this format yet", v[1].note)
  end)

  each_shared({ { "paje/ms.trace", "paje" }, { "paraver/qsort_beo3.prv", "paraver" },
                { "otf2/pingpong/traces.otf2", "otf2" } }, " is recognised, without a summary", function(path, c)
    local code, v = info_json(path)
    assert.are.equal(0, code)
    assert.are.equal(c[2], v[1].format)
    if has_reader[c[2]] then -- the reader's summary through the replay
      assert.truthy(v[1].summary.processors > 0 and v[1].summary.events > 0)
      return
    end
    assert.is_nil(v[1].summary)
    assert.truthy(v[1].note:find("no reader", 1, true))
  end)
end)

describe("retrace info with several files and errors", function()
  it("reports every file, one JSON object each, in order", function()
    local code, v = info_json(fixture("two.shm"), fixture("refs.din"), fixture("run.pes"))
    assert.are.equal(0, code)
    assert.are.equal(3, #v)
    assert.are.same({ "shmap", "din", "pes" }, { v[1].format, v[2].format, v[3].format })
    assert.are.equal(fixture("refs.din"), v[2].file)
  end)

  it("a malformed file gives the reader's one-line error and exit 1 after the others", function()
    -- bad.din line 2: address zz12
    local code, out, err = h.retrace("info", fixture("bad.din"), fixture("run.pes"))
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. fixture("bad.din") .. ":2: address: 'zz12' is not hexadecimal\n", err)
    assert.truthy(out:find("4 states, 3 distinct symbols", 1, true))
    local jcode, v, jerr = info_json(fixture("run.pes"), fixture("bad.din"))
    assert.are.equal(1, jcode)
    assert.are.equal(err, jerr)
    assert.are.equal(4, v[1].summary.states)
    assert.are.equal(fixture("bad.din") .. ":2: address: 'zz12' is not hexadecimal", v[2].error)
    assert.is_nil(v[2].summary)
  end)

  it("a SHMAP trace using an undefined matrix is refused by its reader", function()
    local p = h.temp_file("0 1 2 2\n1 1 1 2 1 2 0.0\n2 7 1 1 1 1 1.0\n")
    local code, _, err = h.retrace("info", p)
    os.remove(p)
    assert.are.equal(1, code)
    assert.truthy(err:match("^retrace: " .. p:gsub("%p", "%%%0") .. ":3: [^\n]*\n$"), err)
  end)

  it("a time of inf or 1e309 is not a number: the reader refuses it, --json never meets it", function()
    local shm = h.temp_file("0 1 2 2\n1 1 1 2 1 2 inf\n", ".shm")
    local code, v, err = info_json(shm)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. shm .. ":2: load event: field TIME: not a number 'inf'\n", err)
    assert.are.equal(shm .. ":2: load event: field TIME: not a number 'inf'", v[1].error)
    local trf = h.temp_file("-3 -901 0.5 0 0 0\n-4 -901 1e309 0 0 0\n", ".trf")
    local tcode, tv = info_json(trf)
    assert.are.equal(0, tcode)
    assert.are.equal(1, tv[1].summary.skipped)
    assert.are.same({ 0.5, 0.5 }, tv[1].summary.span)
    local scode, _, serr = h.retrace("picl", "stats", "--strict", trf)
    os.remove(shm)
    os.remove(trf)
    assert.are.equal(1, scode)
    assert.are.equal("retrace: " .. trf .. ":2: time: '1e309' is not a number\n", serr)
  end)

  it("an endless line (/dev/zero) is refused past 64 MiB, in bounded memory", function()
    for _, cmd in ipairs({ { "info" }, { "picl", "stats" }, { "shmap" }, { "chitra" }, { "cache", "--format", "din" } }) do
      local argv = { table.unpack(cmd) }
      argv[#argv + 1] = "/dev/zero"
      local code, _, err = h.retrace(table.unpack(argv))
      assert.are.equal(1, code, table.concat(cmd, " "))
      assert.are.equal("retrace: /dev/zero:1: line longer than 64 MiB\n", err)
    end
  end)

  it("a missing file is an error while the others are still reported", function()
    local code, out, err = h.retrace("info", "/nonexistent/a.din", fixture("refs.din"))
    assert.are.equal(1, code)
    assert.are.equal("retrace: /nonexistent/a.din: No such file or directory\n", err)
    assert.truthy(out:find("8 records: 4 reads, 2 writes", 1, true))
  end)

  it("--format overrides detection", function()
    -- read as xdin, the din file's first line '0 1000' has no valid label
    local code, _, err = h.retrace("info", "--format", "xdin", fixture("refs.din"))
    assert.are.equal(1, code)
    assert.truthy(err:match("^retrace: [^\n]*refs%.din:1: [^\n]*\n$"), err)
    local pcode, v = info_json("--format", "paje", fixture("refs.din"))
    if has_reader.paje then -- the Paje reader refuses a din file: one line naming it
      assert.are.equal(1, pcode)
      return
    end
    assert.are.equal(0, pcode)
    assert.are.equal("paje", v[1].format)
    assert.are.equal("given with --format", v[1].evidence)
    assert.is_nil(v[1].summary)
  end)

  it("refuses an unknown --format name (usage, exit 2)", function()
    local code, out, err = h.retrace("info", "--format", "vcd", fixture("refs.din"))
    assert.are.equal(2, code)
    assert.are.equal("", out)
    assert.truthy(err:find("retrace: --format: unknown format 'vcd' (bin, din, ", 1, true))
  end)
end)

describe("retrace.formats.summary", function()
  it("is false for a format without a reader and nil, message on a bad file", function()
    assert.is_false(formats.summary(fixture("run.pes"), "vcd"))
    if not has_reader.paje then
      assert.is_false(formats.summary(fixture("head.paje"), "paje"))
    end
    local s, err = formats.summary(fixture("bad.din"), "din")
    assert.is_nil(s)
    assert.truthy(err:find("bad.din:2: address", 1, true))
  end)
end)

describe("retrace info prints numbers for people", function()
  it("counts with thousands separated and times with their unit", function()
    local numbers = require "retrace.numbers"
    assert.are.equal("-1 us", numbers.format_seconds(-1e-6))
    assert.are.equal("11.5826 s", numbers.format_seconds(11.5826))
    assert.are.equal("250 ms", numbers.format_seconds(0.25))
    assert.are.equal("3 ns", numbers.format_seconds(3e-9))
    assert.are.equal("0 s", numbers.format_seconds(0))
    local f = h.temp_file(table.concat((function()
      local t = { "-3 -901 -0.000001 0 0 0" }
      for i = 1, 1200 do t[#t + 1] = ("-3 1 %.6f 0 0 0"):format(i * 0.001) end
      return t
    end)(), "\n") .. "\n", ".trf")
    local code, out, err = h.retrace("info", f)
    assert.are.equal(0, code, err)
    assert.truthy(out:find("1,201 records, time -1 us .. 1.2 s", 1, true), out)
    os.remove(f)
  end)
end)
