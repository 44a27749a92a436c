-- retrace paragraph with frames far apart (--pace records:N larger than the trace): the
-- jump-scrolled window moves when the replay crosses its end, so the last frame's Gantt
-- chart holds every state inside its window, not only those still open at the frame.
-- A Paraver trace written here (times in ns; the window is the pre-pass's width, 20 ns):
--   thread 1: Running 0-5, then no state record (idle) to 100
--   thread 2: Running 0-45, Idle 45-100 (records), a send/receive pair at the end
local h = require "helpers"
local cjson = require "cjson"

local prv = table.concat({
  "#Paraver (01/01/20 at 10:00):100_ns:1(2):1:2(1:1,1:1)",
  "1:1:1:1:1:0:5:1",
  "1:2:1:2:1:0:45:1",
  "1:2:1:2:1:45:100:0",
  "1:1:1:1:1:95:100:1",
}, "\n") .. "\n"

describe("paragraph frames far apart", function()
  it("the last frame's Gantt chart has every state of its window (a window that jumped between frames)", function()
    local dir = h.temp_dir()
    local trace = h.paraver(dir, prv, "STATES\n0    Idle\n1    Running\n") -- with the state names beside it
    local out, data = dir .. "/frames", dir .. "/data"
    local code, _, err = h.retrace("paragraph", trace, "-o", out, "--display", "gantt", "--pace",
      "records:1000000", "--data", data, "--size", "800x400")
    assert.are.equal(0, code, err)
    local s = cjson.decode(assert(io.open(data .. "/frame_000001.json")):read("a"))
    local g = s.displays.gantt
    local lo, hi = g.window[1], g.window[2]
    assert.is_true(lo <= 50e-9 and hi > 90e-9, "a window over the trace's end: " .. lo .. " .. " .. hi)
    local img = assert(require("retrace.canvas").load_png(out .. "/frame_000001.png"))
    local function at(t, id)
      local x = g.plot.x + (t - lo) / (hi - lo) * g.plot.w
      for _, r in ipairs(g.rows) do
        if r.id == id then return h.pixel_hex(img, x, r.y) end
      end
    end
    local colors = {}
    for _, it in ipairs(g.legend.items) do colors[it[1]] = it[2] end
    -- thread 2 (row id 1) is idle by its Idle record from 45 ns, thread 1 (id 0) by the gap
    -- after its Running record; both were so before the frame, in the window
    local mid = math.max(lo, 45e-9) + 0.25 * (math.min(hi, 95e-9) - math.max(lo, 45e-9))
    assert.are.equal(colors.idle, at(mid, 1))
    assert.are.equal(colors.idle, at(mid, 0))
    if lo < 40e-9 then assert.are.equal(colors.busy, at((lo + 45e-9) / 2, 1)) end
    h.remove_tree(dir)
  end)
end)
