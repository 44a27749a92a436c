local h = require "helpers"
local cjson = require "cjson"

describe("retrace command line", function()
  it("lists the commands with 'help'", function()
    local code, out = h.retrace("help")
    assert.are.equal(0, code)
    assert.truthy(out:find("  info ", 1, true))
    assert.truthy(out:find("  help ", 1, true))
  end)

  it("shows a command's help, with --help and with 'help CMD'", function()
    local code, out = h.retrace("info", "--help")
    assert.are.equal(0, code)
    assert.truthy(out:find("Usage: retrace info", 1, true))
    local code2, out2 = h.retrace("help", "info")
    assert.are.equal(0, code2)
    assert.truthy(out2:find("Usage: retrace info", 1, true))
  end)

  it("exits 2 on bad usage", function()
    local code, _, err = h.retrace("info", "--no-such-flag", "x")
    assert.are.equal(2, code)
    assert.truthy(err:find("retrace: info: unknown option '--no-such-flag'", 1, true))
    code, _, err = h.retrace("help", "nosuch")
    assert.are.equal(2, code)
    assert.truthy(err:find("unknown command 'nosuch'", 1, true))
  end)

  it("takes a negative number after an option as its value, on every command", function()
    local hand4 = h.fixtures .. "/paragraph/hand4.trf"
    local code, out, err = h.retrace("stats", hand4, "--from", "-1e-6", "--to", "3", "--json")
    assert.are.equal(0, code, err)
    -- the window [-1e-6, 3] holds hand4's critical path from its start at 0 to 3 (on P0)
    assert.are.equal(3, cjson.decode(out).critical_path.length)
    code, out, err = h.retrace("paragraph", hand4, "--static", "-o", h.temp_dir() .. "/z.png", "--zoom", "-1:5",
      "--json")
    assert.are.equal(0, code, err)
    assert.are.same({ -1, 5 }, cjson.decode(out).window)
    -- a flag is not given a value: the number stays an (unknown) option
    code, _, err = h.retrace("stats", hand4, "--json", "-5")
    assert.are.equal(2, code)
    assert.truthy(err:find("unknown option '-5'", 1, true), err)
    -- the function itself: options that take values, numbers and ranges only
    local cli = require "retrace.cli"
    local p = require("argparse")("x")
    p:option("--from")
    p:flag("--json")
    assert.are.same({ "--from=-2", "--json", "-3", "--from", "-x" },
      cli.negative_values(p, { "--from", "-2", "--json", "-3", "--from", "-x" }))
    assert.are.same({ "--from=-1:-0.5,2" }, cli.negative_values(p, { "--from", "-1:-0.5,2" }))
  end)

  it("says what a trace given to the wrong command is, and which command reads it", function()
    local din = h.temp_file("0 1000\n1 2000\n0 1004\n", ".din")
    local hand4 = h.fixtures .. "/paragraph/hand4.trf"
    for _, c in ipairs({ { "stats", din, "cache" }, { "medea", din, "cache" }, { "chitra", din, "cache" },
                         { "cache", hand4, "stats" }, { "shmap", hand4, "stats" } }) do
      local code, _, err = h.retrace(c[1], c[2])
      assert.are.equal(1, code, c[1])
      local want = string.format("retrace: %s is ", c[2])
      assert.are.equal(want, err:sub(1, #want), err)
      assert.truthy(err:find("which 'retrace " .. c[1] .. "' does not read; try 'retrace " .. c[3] .. " " .. c[2] .. "'",
        1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")), "one line: " .. err)
    end
    -- a trace of the right kind that is damaged keeps its own message
    local bad = h.temp_file("-3 -21 0.1 0 0 3 2 1024 0 1\n-3 -21 x 0\n", ".trf")
    local code, _, err = h.retrace("stats", bad, "--strict")
    assert.are.equal(1, code)
    assert.falsy(err:find("try 'retrace", 1, true), err)
  end)

  it("exits 1 with a one-line message on an unreadable file", function()
    local code, out, err = h.retrace("info", "/nonexistent/trace.shm")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal("retrace: /nonexistent/trace.shm: No such file or directory\n", err)
  end)

  it("recognises the bundled example and reports it as JSON", function()
    local path = h.source .. "/examples/hello/lu4.shm"
    local code, out = h.retrace("info", "--json", path)
    assert.are.equal(0, code)
    local r = cjson.decode(out)
    assert.are.equal("shmap", r[1].format)
    assert.are.equal(20, r[1].lines)
    assert.are.equal(#h.slurp(path), r[1].bytes)
  end)
end)

describe("format recognition on the shared sample traces", function()
  local formats = require "retrace.formats"
  local cases = {
    { "picl/fft-16.trf", "picl-old" },
    { "picl/mpicl-8a.trf", "picl-new" },
    { "picl/mpicl-10.trf", "picl-new" },
    { "paje/ms.trace", "paje" },
    { "paraver/qsort_beo3.prv", "paraver" },
  }
  for _, c in ipairs(cases) do
    local path = h.shared_file(c[1])
    if path then
      it(c[1] .. " is " .. c[2], function()
        assert.are.equal(c[2], (formats.detect(path)))
      end)
    else
      pending(c[1] .. ": ../shared/data is absent, skipped")
    end
  end

  it("small hand-written files", function()
    local din = h.temp_file("0 1000\n1 2004\n2 400\n")
    assert.are.equal("din", (formats.detect(din)))
    local lackey = h.temp_file("==123== Lackey\nI  0400d7d4,8\n L 7ff000,8\n S 7ff008,4\n")
    assert.are.equal("lackey", (formats.detect(lackey)))
    local pes = h.temp_file("A2T 1550\nET 1560\n")
    assert.are.equal("pes", (formats.detect(pes)))
    os.remove(din); os.remove(lackey); os.remove(pes)
  end)
end)

describe("format recognition refuses what is not a trace", function()
  local formats = require "retrace.formats"
  it("says a directory is one, as an input error", function()
    local fmt, msg = formats.detect("/tmp")
    assert.is_nil(fmt)
    assert.are.equal("/tmp: Is a directory", msg)
    local code, _, err = h.retrace("info", "/tmp")
    assert.are.equal(1, code)
    assert.are.equal("retrace: /tmp: Is a directory\n", err)
  end)

  it("does not take binary data for a text trace", function()
    -- numbers on lines, as in a PICL trace, but with NUL bytes: an object file, say
    local p = h.temp_file("1 0 0 0 0 0 0\n\0\0\0\n1 0 0 1 0 0 0\n")
    assert.are.equal("unknown", (formats.detect(p)))
    os.remove(p)
  end)
end)

describe("retrace.cli JSON", function()
  local cli = require "retrace.cli"

  it("writes lists marked by cli.array as arrays, empty ones as []", function()
    local text = cli.json({ empty = cli.array({}), list = cli.array({ 3, 1, 2 }),
                            nested = { inner = cli.array({}), deeper = { cli.array({}) } } })
    assert.truthy(text:find('"empty":[]', 1, true))
    assert.truthy(text:find('"list":[3,1,2]', 1, true))
    assert.truthy(text:find('"inner":[]', 1, true))
    assert.truthy(text:find('"deeper":[[]]', 1, true))
    local back = cjson.decode(text)
    assert.are.same({ empty = {}, list = { 3, 1, 2 }, nested = { inner = {}, deeper = { {} } } }, back)
  end)

  it("leaves unmarked empty tables as objects and strings as they are", function()
    assert.are.equal('{"t":{}}', cli.json({ t = {} }))
    assert.are.equal('["empty-array",""]', cli.json({ "empty-array", "" }))
    assert.are.equal('"a\\u0000b"', cli.json("a\0b"))
  end)

  it("cli.array gives back a non-empty table itself", function()
    local t = { 1 }
    assert.are.equal(t, cli.array(t))
    assert.are_not.equal("table", type(cli.array({})))
  end)

  it("reads sizes with K, M and G suffixes and groups thousands, for every command alike", function()
    local cli = require "retrace.cli"
    assert.equal(32768, cli.parse_bytes("32K"))
    assert.equal(1 << 30, cli.parse_bytes("1G"))
    assert.equal(3 << 20, cli.parse_bytes("3MiB"))
    for _, w in ipairs({ "32k", "32K", "32KB", "32kb", "32KiB", "32kib", "32 KiB" }) do
      assert.equal(32768, cli.parse_bytes(w), w)
    end
    assert.equal(64, cli.parse_bytes("64B"))
    assert.is_nil(cli.parse_bytes("1T"))
    assert.is_nil(cli.parse_bytes("32KiBs"))
    assert.is_nil(cli.parse_bytes("-5"))
    assert.equal("1,234,567", cli.count(1234567))
    assert.equal("-123,456", cli.count(-123456))
    assert.equal("999", cli.count(999))
    local code = h.retrace("memspy", "--size", "1G", "--line", "64", h.fixtures .. "/memspy/two.msp")
    assert.are_not.equal(2, code)
  end)
end)

describe("a cache larger than memory", function()
  local din = h.temp_file("0 1000\n1 2000\n")
  teardown(function() os.remove(din) end)

  local function mem_total_gib()
    local f = io.open("/proc/meminfo")
    local kb = f and tonumber(f:read("a"):match("MemTotal:%s*(%d+)"))
    if f then f:close() end
    return kb and kb / 1048576
  end

  it("is refused up front with one line naming the input (cache and memspy)", function()
    -- 2^31 lines of 32 bytes (64 GiB): about 25 GiB of state for memspy, 33 for cache
    local gib = mem_total_gib()
    if not gib or gib > 24 then
      pending("this machine has " .. tostring(gib) .. " GiB: a 64 GiB cache's state would fit")
      return
    end
    local code, _, err = h.retrace("cache", din, "--size", "64G", "--line", "32")
    assert.are.equal(1, code)
    assert.matches("^retrace: " .. din:gsub("%p", "%%%0") ..
      ": cache: out of memory: 2147483648 lines need [%d.]+ GiB of simulator state, more than the machine's memory %([%d.]+ GiB%)\n$", err)
    code, _, err = h.retrace("memspy", "--size", "64G", "--line", "32", "--procs", "2", h.fixtures .. "/memspy/two.msp")
    assert.are.equal(1, code)
    assert.matches("^retrace: [^\n]*two%.msp: cache: out of memory: 2147483648 lines need [^\n]*\n$", err)
  end)

  it("that runs out of address space says so in one line, no traceback", function()
    if os.getenv("ASAN_OPTIONS") then
      pending("the sanitizer build reserves more address space than the limit")
      return
    end
    local errf = os.tmpname()
    local _, _, code = os.execute(("sh -c %s 2>%s"):format(
      h.quote("ulimit -v 400000; exec " .. h.quote(h.bin) .. " cache --size 1G --ways 64 " .. h.quote(din) .. " >/dev/null"),
      errf))
    local err = h.slurp(errf)
    os.remove(errf)
    assert.are.equal(1, code)
    assert.matches("^retrace: [^\n]*: cache: out of memory[^\n]*\n$", err)
  end)
end)

describe("options that would overflow", function()
  it("memspy refuses more than 2^32 cycles a miss or a reference (exit 2)", function()
    local msp = h.fixtures .. "/memspy/two.msp"
    for _, opt in ipairs({ "--latency", "--remote-latency", "--ref-cycles" }) do
      local code, _, err = h.retrace("memspy", msp, "--procs", "2", opt, "4611686018427387904")
      assert.are.equal(2, code)
      assert.are.equal("retrace: " .. opt .. ": 4611686018427387904 is more than 4,294,967,296\n", err)
    end
    local code, out = h.retrace("memspy", msp, "--procs", "2", "--latency", "4294967296")
    assert.are.equal(0, code)
    assert.matches("Execution Time: [%d.]+G cycles", out)
  end)

  it("paragraph refuses a --pace that makes more than a million frames (exit 2)", function()
    local d = h.temp_dir()
    local code, _, err = h.retrace("paragraph", h.fixtures .. "/paragraph/pg4.trf", "-o", d, "--group", "utilization",
      "--pace", "time:1e-12", "--unit", "s")
    assert.are.equal(2, code)
    assert.matches("^retrace: %-%-pace time:1e%-12 makes 8e%+12 frames over the window 0 %.%. 8 s %(at most 1,000,000%)", err)
    code = h.retrace("paragraph", h.fixtures .. "/paragraph/pg4.trf", "-o", d, "--group", "utilization",
      "--pace", "time:1", "--unit", "s")
    assert.are.equal(0, code)
    h.remove_tree(d)
  end)

  it("medea refuses more than 1000 k-means restarts (exit 2)", function()
    local code, _, err = h.retrace("medea", "--restarts", "1000000000", h.fixtures .. "/medea/table5.trf")
    assert.are.equal(2, code)
    assert.are.equal("retrace: --restarts: 1000000000 is more than 1,000\n", err)
  end)

  it("paragraph refuses a picture side over 16384 pixels in one line (exit 2)", function()
    local code, _, err = h.retrace("paragraph", h.fixtures .. "/paragraph/pg4.trf", "--static", "-o", os.tmpname() .. ".png",
      "--size", "100000x100000")
    assert.are.equal(2, code)
    assert.are.equal("retrace: --size '100000x100000': sides of at most 16384 pixels\n", err)
  end)
end)
