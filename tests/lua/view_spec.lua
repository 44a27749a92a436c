-- `retrace index` and `retrace view` from the command line: where the index goes, kept
-- while the trace is unchanged, rebuilt when the trace changes or the index is damaged,
-- and bad usage / bad input exits. (The page itself: tests/browser/test_view.py.)
local h = require "helpers"
local cjson = require "cjson"
local viewer = require "retrace.viewer"

-- a small PICL trace: two processors, nested user events, one message
local TRACE = table.concat({
  "-3 1 0.000000 0 0 0", "-3 1 0.000010 1 0 0", "-3 2 0.000020 0 0 0",
  "-3 -21 0.000030 0 0 3 2 64 5 1", "-4 -21 0.000031 0 0 0",
  "-3 -52 0.000040 1 0 2 2 5 0", "-4 -52 0.000050 1 0 3 2 64 5 0",
  "-4 2 0.000060 0 0 0", "-4 1 0.000070 0 0 0", "-4 1 0.000080 1 0 0", "" }, "\n")

local function index_json(...)
  local code, out, err = h.retrace("index", "--json", ...)
  local ok, v = pcall(cjson.decode, out)
  return code, ok and v or nil, err
end

describe("retrace index", function()
  local dir, trace
  before_each(function()
    dir = h.temp_dir()
    trace = dir .. "/run.trf"
    local f = assert(io.open(trace, "w")); f:write(TRACE); f:close()
  end)
  after_each(function() h.remove_tree(dir) end)

  it("writes TRACE.rtidx beside the trace with the trace's counts", function()
    local code, v, err = index_json(trace)
    assert.are.equal(0, code, err)
    assert.are.equal(trace .. ".rtidx", v.index)
    -- 10 records: the send's entry gives an enter and a send, the receive's exit a receive and a leave
    assert.are.equal(12, v.events)
    assert.are.equal(2, v.processors)
    assert.is_truthy(io.open(trace .. ".rtidx", "rb"))
    assert.are.equal(trace .. ".rtidx", viewer.index_path(trace))
  end)

  it("keeps a matching index, rebuilds a damaged or stale one", function()
    assert.are.equal(0, (index_json(trace)))
    local idx = trace .. ".rtidx"
    local before = h.slurp(idx)
    local path, _, built = viewer.ensure(trace)
    assert.are.equal(idx, path)
    assert.is_false(built)
    -- damage one byte of the body: refused and rebuilt, the same bytes again
    local f = assert(io.open(idx, "r+b")); f:seek("set", #before - 3); f:write("\255"); f:close()
    local notes = {}
    path, _, built = viewer.ensure(trace, { log = function(m) notes[#notes + 1] = m end })
    assert.is_true(built)
    assert.matches("corrupt", notes[1])
    assert.are.equal(before, h.slurp(idx))
    -- the trace grows: stale, rebuilt with the new event
    f = assert(io.open(trace, "a")); f:write("-3 3 0.000090 1 0 0\n"); f:close()
    notes = {}
    local info
    path, info, built = viewer.ensure(trace, { log = function(m) notes[#notes + 1] = m end })
    assert.is_true(built)
    assert.matches("stale", notes[1])
    assert.are.equal(13, info.events)
  end)

  it("says what is wrong with bad input (exit 1) and bad usage (exit 2)", function()
    local code, _, err = h.retrace("index", dir .. "/missing.trf")
    assert.are.equal(1, code)
    assert.matches("missing.trf", err)
    local junk = dir .. "/junk.txt"
    local f = assert(io.open(junk, "w")); f:write("hello\n"); f:close()
    code, _, err = h.retrace("index", junk)
    assert.are.equal(1, code)
    assert.matches("not a message%-passing trace", err)
    code, _, err = h.retrace("view", trace, "--port", "70000")
    assert.are.equal(2, code)
    assert.matches("%-%-port 70000", err)
    code, _, err = h.retrace("view", trace, "--bind", "not-an-address")
    assert.are.equal(2, code)
    assert.matches("not an IPv4 address", err)
    code, _, err = h.retrace("view", trace, "--token", "xyz")
    assert.are.equal(2, code)
    assert.matches("hexadecimal", err)
  end)
end)
