-- Tracebacks: bad options and bad inputs, across the commands, end in one line
-- "retrace: ..." with exit 2 (bad usage) or 1 (bad input), never a Lua
-- traceback, a C crash or a silent exit 0.
local h = require "helpers"

local ring = h.source .. "/examples/picl/ring4.trf"
local din = h.fixtures .. "/info/refs.din"
local pes = h.fixtures .. "/info/run.pes"
local shm = h.fixtures .. "/shmap/machine.shm"

local function one_line(code, want_code, err, what)
  assert.are.equal(want_code, code, what .. ": " .. err)
  assert.are.equal(1, select(2, err:gsub("\n", "")), what .. ": " .. err)
  assert.truthy(err:match("^retrace: "), what .. ": " .. err)
  assert.falsy(err:find("traceback", 1, true), what .. ": " .. err)
  assert.falsy(err:find("%.lua:%d+:"), what .. ": " .. err)
end

describe("a bad option", function()
  local tmp = h.temp_dir()
  local cases = {
    { "paragraph --size too large", { "paragraph", "--size", "100000x100000", "--static", "-o", tmp .. "/a.png", ring } },
    { "paragraph --size not a size", { "paragraph", "--size", "wide", "--static", "-o", tmp .. "/a.png", ring } },
    { "paragraph --layout unknown", { "paragraph", "--layout", "bogus", ring } },
    { "paragraph --pace with 10^15 frames", { "paragraph", "--pace", "time:1e-12", "-o", tmp .. "/f", ring } },
    { "stats --format unknown", { "stats", "--format", "bogus", ring } },
    { "shmap --every-time without frames", { "shmap", "--every-time", "0", shm } },
    { "medea --restarts 10^9", { "medea", "--restarts", "1e9", ring, ring } },
    { "memspy --latency 2^62", { "memspy", "--latency", "4611686018427387904", din } },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": exit 2 in one line", function()
      local code, _, err = h.retrace(table.unpack(c[2]))
      one_line(code, 2, err, c[1])
    end)
  end
end)

describe("a bad input", function()
  local empty = h.temp_file("")
  local dir = h.temp_dir()
  local cases = {
    { "memspy with a 64 GiB cache (out of memory up front)", { "memspy", "--size", "64G", din } },
    { "cache with a 64 GiB cache", { "cache", "--size", "64G", din } },
    { "info on a missing file", { "info", dir .. "/missing" } },
    { "stats on a folder that is not an OTF2 archive", { "stats", dir } },
    { "stats on an empty file", { "stats", empty } },
    { "cache on an empty file", { "cache", empty } },
    { "memspy on an empty file", { "memspy", empty } },
    { "chitra on an empty file", { "chitra", empty } },
    { "shmap on an empty file", { "shmap", empty } },
    { "shmap on a SHMAP file of comments only", { "shmap", h.temp_file("# nothing\n") } },
    { "medea on empty files", { "medea", empty, empty } },
    { "paragraph on an empty file", { "paragraph", "--static", "-o", dir .. "/x.png", empty } },
    { "chitra on a PES whose times go back", { "chitra", h.temp_file("A 5\nB 1\n") } },
    { "cache on din with a bad label", { "cache", h.temp_file("0 100\n9 200\n") } },
  }
  for _, c in ipairs(cases) do
    it(c[1] .. ": exit 1 in one line", function()
      local code, _, err = h.retrace(table.unpack(c[2]))
      one_line(code, 1, err, c[1])
    end)
  end

  it("a chitra session on a PES whose state names hold NUL bytes, from Lua: nil and the message", function()
    local p = h.temp_file("A 0\nB\0 1\nA 2\n")
    local ses, err = require("retrace.chitra").load(p)
    assert.is_nil(ses)
    assert.are.equal(p .. ":2: state: 'B\\x00' holds a NUL byte", err)
    local _ = pes
  end)
end)
