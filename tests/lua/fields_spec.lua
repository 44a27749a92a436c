-- One rule per field, in every reader (core/util/rt_field): a NUL byte in a
-- name, a negative byte count, time stamps whose span overflows a double. Each
-- rule is tried on every reader it concerns, with variants, through the
-- commands a user runs; each must fail in one line naming file, line and field.
local h = require "helpers"

-- The fixture's text with the first plain occurrence of `from` replaced by `to`.
local function variant(fixture, from, to)
  local text = h.slurp(fixture)
  local i = assert(text:find(from, 1, true), "fixture lacks " .. from)
  return text:sub(1, i - 1) .. to .. text:sub(i + #from)
end

-- Run retrace and expect exit 1 with one line holding `want` (plain) and the file:line prefix.
local function refused(path, line, want, ...)
  local code, out, err = h.retrace(...)
  assert.are.equal(1, code, out .. err)
  assert.are.equal(1, select(2, err:gsub("\n", "")), err)
  local prefix = ("retrace: %s:%d: "):format(path, line)
  assert.are.equal(prefix, err:sub(1, #prefix), err)
  assert.truthy(err:find(want, 1, true), err)
end

local function line_of(text, needle)
  local i = assert(text:find(needle, 1, true))
  return select(2, text:sub(1, i):gsub("\n", "")) + 1
end

describe("a NUL byte in a name", function()
  local shm = h.fixtures .. "/shmap/machine.shm"
  local cases = {
    { "SHMAP info text", shm, "3 1 four groups", "3 1 four\0groups", "info event: field TEXT", { "shmap" } },
    { "SHMAP marker label", shm, "6 columns", "6 col\0umns", "marker: field LABEL", { "shmap" } },
    { "SHMAP flops name", shm, "5 1 10 sgemv", "5 1 10 sg\0emv", "flops event: field NAME", { "shmap" } },
    { "MSP procedure", h.fixtures .. "/memspy/two.msp", "E 0 main", "E 0 ma\0in", "name: 'ma\\x00in'",
      { "memspy", "--procs", "2" } },
    { "MSP call site", h.fixtures .. "/memspy/two.msp", "init main.c:10", "init main\0.c:10", "site:",
      { "memspy", "--procs", "2" } },
    { "MSP variable", h.fixtures .. "/memspy/two.msp", "double*.x", "double*\0.x", "name:",
      { "memspy", "--procs", "2" } },
    { "Paje container name", h.fixtures .. "/paje/small.trace", '"rank 0"', '"rank\0 0"', "Name:", { "stats" } },
    { "Paje value name", h.fixtures .. "/paje/small.trace", '"MPI_Recv"', '"MPI\0Recv"', "Name:", { "stats" } },
    { "PES state", h.fixtures .. "/info/run.pes", nil, nil, "state:", { "chitra" } },
  }
  for _, c in ipairs(cases) do
    local name, fixture, from, to, want, args = table.unpack(c)
    it(name .. " is refused", function()
      local text
      if from then
        text = variant(fixture, from, to)
      else -- the PES: a NUL inside the second state's name
        text = h.slurp(fixture):gsub("\n(%S)", "\n%1\0", 1)
        to = text:match("\n(%S\0)")
      end
      local p = h.temp_file(text)
      local argv = { table.unpack(args) }
      argv[#argv + 1] = p
      refused(p, line_of(text, to), want, table.unpack(argv))
      assert.truthy(select(3, h.retrace(table.unpack(argv))):find("holds a NUL byte", 1, true))
      os.remove(p)
    end)
  end
end)

describe("a negative byte count", function()
  local cases = {
    { "Paraver communication size", h.fixtures .. "/paraver/small.prv", ":64:7", ":-64:7", "size: -64 is negative" },
    { "Paje link value (start)", h.fixtures .. "/paje/small.trace", "p0 1024 n1", "p0 -1024 n1",
      "Value: -1024 is negative" },
    { "Paje link value (end)", h.fixtures .. "/paje/small.trace", "L 64 n1", "L -64 n1", "Value: -64 is negative" },
  }
  for _, c in ipairs(cases) do
    local name, fixture, from, to, want = table.unpack(c)
    it(name .. " is refused by stats and info", function()
      local text = variant(fixture, from, to)
      local p = h.temp_file(text, fixture:match("%.%w+$"))
      if fixture:match("%.prv$") then -- keep the companions beside it
        for _, ext in ipairs { ".pcf", ".row" } do
          local f = assert(io.open(p:gsub("%.prv$", ext), "wb"))
          f:write(h.slurp(fixture:gsub("%.prv$", ext)))
          f:close()
        end
      end
      refused(p, line_of(text, to), want, "stats", p)
      local code, _, err = h.retrace("info", p)
      assert.are.equal(1, code)
      assert.truthy(err:find(want, 1, true), err)
      os.remove(p)
    end)
  end
end)

describe("time stamps whose span overflows a double", function()
  local picl = "-3 -901 %s 0 0 0\n-3 -901 %s 1 0 0\n-4 -901 %s 0 0 0\n-4 -901 %s 1 0 0\n"
  local variants = {
    { "-1.7e308 then 1.7e308", picl:format("-1.7e308", "0", "1.7e308", "1.7e308"), 3 },
    { "1.7e308 after -1e308", picl:format("-1e308", "-1e308", "1.7e308", "1.7e308"), 3 },
    { "the largest double after the lowest", picl:format("-1.7976931348623157e308", "0", "0",
      "1.7976931348623157e308"), 4 },
  }
  for _, v in ipairs(variants) do
    local name, text, line = table.unpack(v)
    it("PICL (" .. name .. "): stats, stats --json and medea refuse it naming the record", function()
      local p = h.temp_file(text, ".trf")
      refused(p, line, "time:", "stats", p)
      refused(p, line, "the span does not fit a double", "stats", "--json", p)
      refused(p, line, "the span does not fit a double", "medea", p, p)
      os.remove(p)
    end)
  end

  it("Paje: the Time field of a far event", function()
    local text = variant(h.fixtures .. "/paje/small.trace", "10 comp p0 S 1.0", "10 comp p0 S -1.7e308")
    text = text:gsub("7 p0 P 6.0", "7 p0 P 1.7e308")
    local p = h.temp_file(text)
    refused(p, line_of(text, "7 p0 P 1.7e308"), "the span does not fit a double", "stats", p)
    os.remove(p)
  end)

  it("PES: chitra --views and info refuse it", function()
    for _, text in ipairs { "A -1.7e308\nB 1.7e308\nA 1.8e308\n", "A -1e308\nB 0\nC 1e308\nA 1e308\n" } do
      local p = h.temp_file(text, ".pes")
      local line = text:find("B 1.7", 1, true) and 2 or 3
      local dir = h.temp_dir()
      refused(p, line, "time:", "chitra", p, "--views", dir)
      local code, _, err = h.retrace("info", p)
      assert.are.equal(1, code)
      assert.truthy(err:find("the span does not fit a double", 1, true), err)
      os.remove(p)
    end
  end)

  it("spans that fit are accepted (1e308 from 0)", function()
    local p = h.temp_file(picl:format("0", "0", "1e308", "1e308"), ".trf")
    local code, out = h.retrace("stats", "--json", p)
    assert.are.equal(0, code)
    assert.truthy(out:find('"span":%[0,1e%+308%]') or out:find("1e+308", 1, true), out)
    os.remove(p)
  end)
end)
