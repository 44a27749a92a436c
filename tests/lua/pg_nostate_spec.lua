-- retrace paragraph on a Paraver trace written here whose middle thread carries
-- only events: with no state record it is idle the whole run (Paraver's state 0),
-- so the whole-run pictures leave its row out unless --all-threads.
local h = require "helpers"
local cjson = require "cjson"

-- Three threads (tasks 1..3 of one application), times in ns over 0 .. 100:
--   thread 1: Running 0-60;  thread 2: two events only;  thread 3: Running 20-100
local prv = table.concat({
  "#Paraver (01/01/20 at 10:00):100_ns:1(3):1:3(1:1,1:1,1:1)",
  "1:1:1:1:1:0:60:1",
  "2:2:1:2:1:10:40000001:5",
  "1:3:1:3:1:20:100:1",
  "2:2:1:2:1:50:40000001:0",
}, "\n") .. "\n"

local function write_trace()
  local dir = h.temp_dir()
  local f = assert(io.open(dir .. "/run.prv", "w"))
  f:write(prv)
  f:close()
  f = assert(io.open(dir .. "/run.pcf", "w"))
  f:write("STATES\n0    Idle\n1    Running\n\nEVENT_TYPE\n0    40000001    Counter\n")
  f:close()
  return dir, dir .. "/run.prv"
end

describe("paragraph and Paraver threads with no state record", function()
  it("the pre-pass counts each processor's state records and names the stateless ones", function()
    local dir, trace = write_trace()
    local info = assert(require("retrace.paragraph").prescan(trace))
    assert.are.equal(3, info.P)
    assert.are.same({ 1, 0, 1 }, { info.procs[1].enters, info.procs[2].enters, info.procs[3].enters })
    assert.are.same({ 1 }, info.stateless)
    h.remove_tree(dir)
  end)

  it("--static leaves the stateless thread's row out, saying so; --all-threads and --procs keep it", function()
    local dir, trace = write_trace()
    local out = dir .. "/g.png"
    local code, so, err = h.retrace("paragraph", trace, "--static", "-o", out, "--size", "400x300", "--json")
    assert.are.equal(0, code, err)
    local s = cjson.decode(so)
    assert.are.equal(2, s.drawn)
    assert.are.same({ 0, 2 }, s.procs)
    assert.are.equal(2, s.static.rows)
    assert.are.equal(2, #s.static.panels[1].rows)
    local _, n = err:gsub("\n", "")
    assert.are.equal(1, n, err)
    assert.truthy(err:find("1 processor with no state record", 1, true), err)

    code, so, err = h.retrace("paragraph", trace, "--static", "-o", out, "--size", "400x300", "--json",
      "--all-threads")
    assert.are.equal(0, code, err)
    s = cjson.decode(so)
    assert.are.equal(3, s.drawn)
    assert.are.same({ 0, 1, 2 }, s.procs)
    assert.are.equal(3, s.static.rows)
    assert.are.equal("", err)

    code, so, err = h.retrace("paragraph", trace, "--static", "-o", out, "--size", "400x300", "--json",
      "--procs", "0-2")
    assert.are.equal(0, code, err)
    assert.are.equal(3, cjson.decode(so).static.rows)
    h.remove_tree(dir)
  end)

  it("--timeline-html leaves it out too; the animated run refuses --all-threads", function()
    local dir, trace = write_trace()
    local page = dir .. "/t.html"
    local code, so, err = h.retrace("paragraph", trace, "--timeline-html", page, "--json")
    assert.are.equal(0, code, err)
    assert.are.equal(2, cjson.decode(so).timeline_html.rows)
    code, so, err = h.retrace("paragraph", trace, "--timeline-html", page, "--json", "--all-threads")
    assert.are.equal(0, code, err)
    assert.are.equal(3, cjson.decode(so).timeline_html.rows)
    code, _, err = h.retrace("paragraph", trace, "-o", dir .. "/frames", "--all-threads")
    assert.are.equal(2, code)
    assert.truthy(err:find("--all-threads", 1, true), err)
    h.remove_tree(dir)
  end)
end)
