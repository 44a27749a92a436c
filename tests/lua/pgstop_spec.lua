-- retrace paragraph --stop-at: the replay stops at a chosen record or time, and the
-- last frame shows that moment (values read off hand4.trf, the engine's fixture).
local h = require "helpers"
local cjson = require "cjson"

local hand4 = h.fixtures .. "/paragraph/hand4.trf"

local function run(...)
  local out = h.temp_dir()
  local code, stdout, err = h.retrace("paragraph", hand4, "-o", out, "--json", ...)
  h.remove_tree(out)
  return code, code == 0 and cjson.decode(stdout) or nil, err
end

-- the file's records (one a line): times, and how many lie at or before t
local times = {}
for line in io.lines(hand4) do
  local t = line:match("^%-?%d+ %-?%d+ ([%d.]+)")
  if t then times[#times + 1] = tonumber(t) end
end

describe("paragraph --stop-at", function()
  it("stops at record N: the Trace display's current record is the file's N-th", function()
    for _, pace in ipairs({ "time:1", "records:2" }) do
      local code, s, err = run("--display", "trace,utilization_meter", "--stop-at", "10", "--pace", pace, "--unit", "s")
      assert.are.equal(0, code, err)
      assert.are.same({ record = 10, time = times[10] }, s.stopped_at)
      local t = s.displays.trace
      assert.are.equal(10, t.current)
      -- line 10 of hand4: "-3 -21 3.0 0 0 3 2 200 5 2", P0's send entry of 200 B to P2, tag 5
      assert.are.equal("    10  3  P0  entry  send  200 B  to 2  tag 5", t.lines[#t.lines].text)
    end
    local _, s = run("--display", "trace", "--stop-at", "record:7", "--pace", "records:2")
    assert.are.same({ record = 7, time = times[7] }, s.stopped_at)
  end)

  it("stops at time T: every record at or before T replayed, the window ends at T", function()
    local code, s, err = run("--display", "trace", "--stop-at", "time:5")
    assert.are.equal(0, code, err)
    local n = 0
    for _, t in ipairs(times) do if t <= 5 then n = n + 1 end end
    assert.are.same({ record = n, time = 5 }, s.stopped_at)
    assert.are.same({ 0, 5 }, s.window)
  end)

  it("refuses a malformed value (exit 2) and one beyond the trace (exit 1), in one line", function()
    for _, case in ipairs({ { "x", 2 }, { "0", 2 }, { "time:x", 2 }, { "1000", 1 }, { "time:99", 1 } }) do
      local code, _, err = run("--stop-at", case[1])
      assert.are.equal(case[2], code, case[1])
      assert.is_truthy(err:find("--stop-at", 1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")))
    end
  end)
end)
