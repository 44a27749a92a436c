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

  it("--timeline-html leaves it out too", function()
    local dir, trace = write_trace()
    local page = dir .. "/t.html"
    local code, so, err = h.retrace("paragraph", trace, "--timeline-html", page, "--json")
    assert.are.equal(0, code, err)
    assert.are.equal(2, cjson.decode(so).timeline_html.rows)
    code, so, err = h.retrace("paragraph", trace, "--timeline-html", page, "--json", "--all-threads")
    assert.are.equal(0, code, err)
    assert.are.equal(3, cjson.decode(so).timeline_html.rows)
    h.remove_tree(dir)
  end)

  -- The animated displays: the last frame of gantt, utilization count and Kiviat.
  local canvas = require "retrace.canvas"
  local GREEN, RED = "#00c000", "#e00000" -- busy, idle
  local function animate(trace, dir, ...)
    local out = dir .. "/frames"
    local code, so, err = h.retrace("paragraph", trace, "-o", out, "--display", "gantt,utilization_count,kiviat",
      "--size", "900x300", "--json", ...)
    assert.are.equal(0, code, err)
    local s = cjson.decode(so)
    local img = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, s.frames)))
    return s, img, err
  end
  -- the pixel of the Gantt row at time t (ns) in the last frame
  local function gantt_at(img, g, row, t)
    local lo, hi = g.window[1], g.window[2]
    local x = g.plot.x + (t * 1e-9 - lo) / (hi - lo) * g.plot.w
    return h.pixel_hex(img, math.floor(x), math.floor(row.y))
  end

  it("the animation leaves it out too: Gantt rows, utilization counts and Kiviat spokes of 2 threads", function()
    local dir, trace = write_trace()
    local s, img, err = animate(trace, dir)
    assert.truthy(err:find("1 processor with no state record", 1, true), err)
    assert.are.same({ 3, 2 }, { s.processors, s.drawn })
    assert.are.same({ 0, 2 }, s.procs)
    local g = s.displays.gantt
    assert.are.equal(2, #g.rows)
    -- row 0 is thread 0 (Running 0-60 ns), row 1 thread 2 (Running 20-100 ns); the axis names them 0 and 2
    assert.are.same({ "0", "2" }, g.axes.y.tick_labels)
    assert.are.equal(GREEN, gantt_at(img, g, g.rows[1], 55))
    assert.are.equal(RED, gantt_at(img, g, g.rows[1], 80))
    assert.are.equal(GREEN, gantt_at(img, g, g.rows[2], 80))
    -- utilization: 2 processors at most, one busy and one idle at the end
    local u = s.displays.utilization_count
    assert.are.equal(2, u.axes.y.hi)
    assert.are.near(1, u.last.busy, 1e-6)
    assert.are.near(1, u.last.idle, 1e-6)
    -- the column at 80 ns: green up to half the plot's height, red above
    local x = math.floor(u.plot.x + (80e-9 - u.window[1]) / (u.window[2] - u.window[1]) * u.plot.w)
    -- (one-pixel columns at a fractional x: the edges blend with the white behind)
    local function hue(px)
      local r, g, b = tonumber(px:sub(2, 3), 16), tonumber(px:sub(4, 5), 16), tonumber(px:sub(6, 7), 16)
      return g > r + 100 and g > b + 100 and "green" or r > g + 100 and r > b + 100 and "red" or px
    end
    assert.are.equal("green", hue(h.pixel_hex(img, x, math.floor(u.plot.y + u.plot.h * 0.8))))
    assert.are.equal("red", hue(h.pixel_hex(img, x, math.floor(u.plot.y + u.plot.h * 0.15))))
    local k = s.displays.kiviat
    assert.are.equal(2, k.spokes)
    h.remove_tree(dir)
  end)

  it("--all-threads draws the third thread in the animation, idle the whole run; --procs picks", function()
    local dir, trace = write_trace()
    local s, img, err = animate(trace, dir, "--all-threads")
    assert.are.equal("", err)
    assert.are.same({ 3, 3 }, { s.processors, s.drawn })
    local g = s.displays.gantt
    assert.are.equal(3, #g.rows)
    assert.are.equal(RED, gantt_at(img, g, g.rows[2], 55))
    assert.are.equal(GREEN, gantt_at(img, g, g.rows[3], 55))
    local u = s.displays.utilization_count
    assert.are.equal(3, u.axes.y.hi)
    assert.are.near(2, u.last.idle, 1e-6)
    assert.are.equal(3, s.displays.kiviat.spokes)

    s, img = animate(trace, dir, "--procs", "1-2", "--proc", "2")
    assert.are.same({ 1, 2 }, s.procs)
    g = s.displays.gantt
    assert.are.same({ "1", "2" }, g.axes.y.tick_labels)
    assert.are.equal(RED, gantt_at(img, g, g.rows[1], 55))
    assert.are.equal(GREEN, gantt_at(img, g, g.rows[2], 55))
    assert.are.equal(1, s.options.proc) -- processor 2 is the second drawn

    local code, _, e2 = h.retrace("paragraph", trace, "-o", dir .. "/f2", "--procs", "0,2", "--proc", "1")
    assert.are.equal(2, code)
    assert.truthy(e2:find("--proc 1: not among the processors drawn", 1, true), e2)
    code, _, e2 = h.retrace("paragraph", trace, "-o", dir .. "/f2", "--procs", "0-5")
    assert.are.equal(2, code)
    assert.truthy(e2:find("--procs '0-5': the trace has processors 0..2", 1, true), e2)
    h.remove_tree(dir)
  end)
end)
