-- retrace paragraph reads a trace twice whatever it draws or writes: a pre-pass
-- (a replay giving the span, the per-processor counts and the critical path) and
-- the live pass (which also writes the --data CSV files). Counted by the sources
-- themselves (retrace.replay.reads: a pass begins at a source's first event).
local h = require "helpers"
local cjson = require "cjson"
local replay = require "retrace.replay"

local hand4 = h.fixtures .. "/paragraph/hand4.trf"

local function run(trace, ...)
  local out, data = h.temp_dir(), h.temp_dir()
  local code, stdout, err = h.retrace("paragraph", trace, "-o", out, "--json", "--data", data, ...)
  assert.are.equal(0, code, err)
  local files = {}
  for _, f in ipairs({ "states.csv", "messages.csv", "tasks.csv", "concurrency.csv", "matrix.csv", "stats.csv" }) do
    local fh = io.open(data .. "/" .. f)
    if fh then files[f] = fh:read("a"); fh:close() end
  end
  h.remove_tree(out)
  h.remove_tree(data)
  return cjson.decode(stdout), files
end

describe("paragraph's passes over the trace", function()
  it("counts a pass per source read, none for a source opened and not read", function()
    local n0 = replay.reads()
    local rp = assert(replay.open(hand4))
    assert.are.equal(n0, replay.reads())
    rp:step(1)
    assert.are.equal(n0 + 1, replay.reads())
    rp:run()
    assert.are.equal(n0 + 1, replay.reads())
    local ps = assert(replay.prescan(hand4, { critical_path = true }))
    assert.are.equal(n0 + 2, replay.reads())
    -- the pre-pass's critical path is the one a replay of its own finds
    local full = assert(replay.open(hand4, { critical_path = true }))
    full:run()
    local cp = full:critical_path()
    assert.are.equal(cp.length, ps.critical_path.length)
    assert.are.same(cp.segments, ps.critical_path.segments)
    assert.are.equal(#cp.messages, #ps.critical_path.messages)
  end)

  it("reads a PICL trace twice with every display, --data and an application display", function()
    local app = h.source .. "/examples/paragraph/sort.lua"
    local s, files = run(hand4, "--all", "--app", app)
    assert.are.equal(2, s.reads)
    assert.are.equal(0, s.lua_calls)
    for _, f in ipairs({ "states.csv", "messages.csv", "tasks.csv", "concurrency.csv", "matrix.csv", "stats.csv" }) do
      assert.is_truthy(files[f], f)
    end
    -- hand4: 5 messages, each written once by the live pass
    assert.are.equal(6, select(2, files["messages.csv"]:gsub("\n", "")))
    -- the critical path of the statistics comes from the pre-pass
    assert.is_true(s.displays.stats.stats.critical_path.length > 0)
  end)

  for _, case in ipairs({ "picl/mpicl-8a.trf", "otf2/pingpong/traces.otf2", "paraver/qsort_beo3.prv", "paje/ms.trace" }) do
    it("reads " .. case .. " twice with every display and --data", function()
      local trace = h.shared_file(case)
      if not trace then
        pending("../shared is absent: " .. case .. " not tested")
        return
      end
      local s, files = run(trace, "--all", "--pace", "records:1000000")
      assert.are.equal(2, s.reads)
      assert.are.equal(0, s.lua_calls)
      assert.is_truthy(files["states.csv"])
      -- one message row per paired message
      local rows = select(2, files["messages.csv"]:gsub("\n", "")) - 1
      assert.are.equal(s.messages, rows)
    end)
  end

  it("scrolls by default: the window is the pre-pass's width, not the whole run", function()
    local out = h.temp_dir()
    local code, stdout, err = h.retrace("paragraph", hand4, "-o", out, "--display", "gantt", "--json")
    assert.are.equal(0, code, err)
    h.remove_tree(out)
    local s = cjson.decode(stdout)
    -- hand4 spans 0 .. 12 s: unit 10 ms; a quarter of the span is 300 units, rounded up to 500: 5 s
    assert.are.same({ 0, 12 }, s.span)
    assert.are.equal(0.01, s.unit)
    assert.is_true(math.abs(s.scale_width - 5) < 1e-12)
    -- jump scrolling pages 0-5, 5-10, 10-15: the last frame shows the last page
    local w = s.displays.gantt.window
    assert.is_true(math.abs(w[1] - 10) < 1e-12 and math.abs(w[2] - 15) < 1e-12)
  end)
end)
