-- retrace paragraph, part 2: the task and other displays on a hand-made
-- 3-processor trace (tests/fixtures/paragraph/cp3.trf), every value worked out
-- here by hand, pixel probes through data(), and the two application displays
-- of examples/paragraph/ against hand-written tables.
--
-- cp3.trf (seconds, span 0..18):
--   P0 task 1 0-16; busy 0-2, sends 100 B to P1 2-4 (overhead), busy 4-5, sends
--      50 B to P2 5-6, busy 6-15, sends 10 B to P2 15-16, last record 16.
--   P1 task 1 0-7, task 2 7-11; blocking receive 1-6 (P0's message, sent at 2:
--      after the wait began), busy 6-9, sends 200 B to P2 9-10, busy 10-11, last 11.
--   P2 task 2 0-7, task 3 7-18; busy 0-6, blocking receive 6-7 of P0's 50 B sent at
--      5 (before the wait began; off the path, which leaves P2 at 12), busy 7-8, blocking
--      receive 8-12 of P1's message (sent at 9), busy 12-13, receive 13-14 of P0's
--      10 B, which P0 sends only at 15 (a tachyon), busy 14-18.
-- Critical path (back from P2, last at 18): P2 12-18 <- P1 9->12; P1 6-9 <- P0 2->6;
-- P0 0-2. Length 18; time on it: P0 2, P1 3, P2 6.
require "retrace"
local h = require "helpers"
local cjson = require "cjson"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local display = require "retrace.display"
local plot = require "retrace.plot"
local pgapp = require "retrace.paragraph_app"

local fixture = h.fixtures .. "/paragraph/cp3.trf"
local examples = h.source .. "/examples/paragraph"

local function read_json(path) return cjson.decode(h.slurp(path)) end
local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end
local function same_list(expected, got, tol)
  assert.are.equal(#expected, #got)
  for i = 1, #expected do
    assert.is_true(close(expected[i], got[i], tol), string.format("[%d]: %s expected, got %s", i, expected[i], got[i]))
  end
end

-- The command on a trace, a frame every second: summary, frame(i), frames folder, data folder.
local function run(trace, extra)
  local out, data = h.temp_dir(), h.temp_dir()
  local args = { "paragraph", trace, "-o", out, "--pace", "time:1", "--unit", "s", "--smoothing", "2",
                 "--data", data }
  local width = true
  for _, a in ipairs(extra or {}) do args[#args + 1] = a; width = width and a ~= "--scale-width" end
  -- the values below are worked out over the whole run: a window as wide as cp3's (18 s)
  if width then args[#args + 1], args[#args + 2] = "--scale-width", "18" end
  local code, _, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  local function frame(i) return read_json(string.format("%s/frame_%06d.json", data, i)) end
  return read_json(data .. "/summary.json"), frame, out, data
end

local function png(out, i) return assert(canvas.load_png(string.format("%s/frame_%06d.png", out, i))) end

describe("paragraph task tracker", function()
  it("puts a task begun again back in progress, and counts processor-time", function()
    local x = pgapp.tracker({ P = 2, span = { 0, 10 }, tasks = { 5 } })
    assert.are.equal("waiting", x.tasks[5].status)
    x:switch(0, 1, nil, 5)
    assert.are.equal("progress", x.tasks[5].status)
    x:switch(0, 2, 5, nil)
    assert.are.equal("done", x.tasks[5].status)
    x:switch(1, 3, nil, 5)
    assert.are.equal("progress", x.tasks[5].status)
    x:switch(1, 7, 5, nil)
    -- processor-time 1 + 4 over the span 1..7
    assert.is_true(close(5 / 6, x:mean_processors()[1].mean_processors))
  end)
end)

describe("retrace paragraph task and other displays on the hand-made trace", function()
  local summary, frame, out, data = run(fixture, { "--group", "task,other" })
  local last = summary.frames -- t = 18

  it("runs a frame per second and ends with the end-of-run displays", function()
    assert.are.equal(18, last)
    assert.are.equal(18, frame(last).time)
  end)

  it("counts processors per task now, and their means at the end", function()
    local function counts(i)
      local out_ = {}
      for k, r in ipairs(frame(i).displays.task_count.tasks) do out_[k] = r.count end
      return out_
    end
    same_list({ 2, 1, 0 }, counts(5)) -- P0, P1 in task 1; P2 in task 2
    same_list({ 1, 1, 1 }, counts(8))
    local t = summary.displays.task_count.tasks
    -- task 1: (16 + 7) / 16; task 2: (7 + 4) / 11; task 3: 11 / 11
    assert.are.same({ 1, 2, 3 }, { t[1].id, t[2].id, t[3].id })
    same_list({ 1.4375, 1, 1 }, { t[1].mean_processors, t[2].mean_processors, t[3].mean_processors })
  end)

  it("gives each task's span and percent of the run", function()
    local t = summary.displays.task_summary.tasks
    same_list({ 0, 16, 100 * 16 / 18 }, { t[1].start, t[1]["end"], t[1].percent })
    same_list({ 0, 11, 100 * 11 / 18 }, { t[2].start, t[2]["end"], t[2].percent })
    same_list({ 7, 18, 100 * 11 / 18 }, { t[3].start, t[3]["end"], t[3].percent })
  end)

  it("shows each task not begun, in progress or done", function()
    local function status(i)
      local s = {}
      for k, r in ipairs(frame(i).displays.task_status.tasks) do s[k] = r.status end
      return s
    end
    assert.are.same({ "in progress", "in progress", "not begun" }, status(5))
    assert.are.same({ "in progress", "done", "in progress" }, status(12))
    assert.are.same({ "done", "done", "done" }, status(last))
  end)

  it("draws the task displays' pixels in the task colours", function()
    local img = png(out, last)
    local ts = summary.displays.task_status.tasks
    for _, r in ipairs(ts) do
      assert.are.equal(colors.task(r.id), h.pixel_hex(img, r.x + 3, r.y + 3))
    end
    local img12 = png(out, 12)
    local t2 = frame(12).displays.task_status.tasks[1] -- in progress: the light tint
    assert.are.equal(t2.color, h.pixel_hex(img12, t2.x + 3, t2.y + 3))
    assert.are_not.equal(colors.task(1), t2.color)
    local g = summary.displays.task_gantt
    local function at(p, t)
      local x = plot.to_pixel(g, t, 0)
      -- a quarter row off the centre: clear of the grid line at the tick
      return h.pixel_hex(img, x, g.rows[p + 1].y + g.rows[p + 1].h / 4)
    end
    assert.are.equal(colors.task(1), at(0, 10.5))
    assert.are.equal(colors.task(2), at(1, 9.5))
    assert.are.equal(colors.task(2), at(2, 3.5))
    assert.are.equal(colors.task(3), at(2, 15.5))
    assert.are.equal("#ffffff", at(1, 14.5)) -- P1 is in no task after 11
    local c = summary.displays.task_count
    for _, r in ipairs(c.tasks) do
      local x, y = plot.to_pixel(c, r.x, r.mean_processors / 2)
      assert.are.equal(colors.task(r.id), h.pixel_hex(img, x, y))
    end
    for _, r in ipairs(summary.displays.task_summary.tasks) do
      assert.are.equal(colors.task(r.id), h.pixel_hex(img, r.x0 + 3, r.y))
    end
  end)

  it("traces the phase portrait, smoothed over S and coloured by the latest task", function()
    -- t = 3, S = 2, means over [1, 3] of the replay (not of frame samples): pending 0 on
    -- [1, 2), 1 on [2, 3] of at most 2 -> 25 %; busy 2 (P0, P2) on [1, 2), 1 (P2) on [2, 3]
    -- of 3 -> 50 %
    local c = frame(3).displays.phase_portrait.current
    same_list({ 25, 50 }, { c.x, c.y }, 1e-9)
    assert.are.equal(2, c.task) -- P2 entered task 2 after P0 and P1 entered task 1
    -- t = 10, [8, 10]: pending 0 on [8, 9), 1 on [9, 10] -> 25 %; busy P0 and P1 on
    -- [8, 9), P0 alone on [9, 10) -> 1.5 of 3 -> 50 %
    c = frame(10).displays.phase_portrait.current
    same_list({ 25, 50 }, { c.x, c.y }, 1e-9)
    local img = png(out, 10)
    assert.are.equal(colors.task(2), h.pixel_hex(img, c.px, c.py))
  end)

  it("finds the critical path across three processors", function()
    local cp = summary.displays.critical_path.critical_path
    assert.are.equal(18, cp.length)
    local segs = {}
    for i, s in ipairs(cp.segments) do segs[i] = { s.proc, s.from, s.to } end
    assert.are.same({ { 0, 0, 2 }, { 1, 6, 9 }, { 2, 12, 18 } }, segs)
    local msgs = {}
    for i, m in ipairs(cp.messages) do msgs[i] = { m.src, m.dst, m.send, m.recv } end
    assert.are.same({ { 0, 1, 2, 6 }, { 1, 2, 9, 12 } }, msgs)
    -- the tachyon is drawn and counted
    assert.are.equal(1, summary.displays.critical_path.tachyons)
  end)

  it("draws the path as the replay reaches it, in red over light activity", function()
    local d7 = frame(7).displays.critical_path.drawn
    assert.are.equal(2, #d7.segments)
    same_list({ 6, 7 }, { d7.segments[2].from, d7.segments[2].to })
    assert.are.equal(1, #d7.messages)
    local d = summary.displays.critical_path
    local img = png(out, last)
    local s = d.drawn.segments[3]
    assert.are.equal("#e00000", h.pixel_hex(img, (s.x0 + s.x1) / 2, s.y))
    local m = d.drawn.messages[1]
    assert.are.equal("#e00000", h.pixel_hex(img, (m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2))
    -- P0 at t = 10 is busy, off the path: light
    local x = plot.to_pixel(d, 10, 0)
    assert.are.equal("#c8c8c8", h.pixel_hex(img, x, d.drawn.segments[1].y))
  end)

  it("shows the four processor status grids", function()
    local g = frame(3).displays.processor_status.grids
    local function vals(k) local v = {} for i, c in ipairs(g[k]) do v[i] = c.value end return v end
    -- t = 3: P0 sending 100 B to P1 (overhead), P1 waiting, P2 busy
    assert.are.same({ "overhead", "idle", "busy" }, vals("state"))
    assert.are.same({ 1, 1, 2 }, vals("task"))
    same_list({ 100, 0, 0 }, vals("sending"))
    same_list({ 0, 100, 0 }, vals("receiving"))
    g = frame(10).displays.processor_status.grids
    assert.are.same({ "busy", "busy", "idle" }, vals("state"))
    assert.are.same({ 1, 2, 3 }, vals("task"))
    same_list({ 0, 200, 0 }, vals("sending"))
    same_list({ 0, 0, 200 }, vals("receiving"))
    local img = png(out, 10)
    local c = g.receiving[3]
    assert.are.equal(colors.message_size(200), h.pixel_hex(img, c.x + 3, c.y + 3))
    c = g.state[3]
    assert.are.equal(colors.state("idle"), h.pixel_hex(img, c.x + 3, c.y + 3))
    c = g.receiving[1]
    assert.are.equal("#ffffff", h.pixel_hex(img, c.x + 3, c.y + 3))
  end)

  it("steps the clock through whole units", function()
    local c = frame(7).displays.clock
    assert.are.equal(7, c.units)
    assert.is_true(close(7 / 18, c.fraction))
    local clock = require "retrace.displays.paragraph.clock"
    assert.are.equal(7, (clock.reading(7.6, 0, 1, 0, 18)))
    assert.are.equal(76, (clock.reading(7.6, 0, 0.1, 0, 18)))
    assert.are.equal(3, (clock.reading(-0.5, -3.5, 1, -3.5, 18)))
    local img = png(out, 7)
    local b = c.bar
    assert.are.equal("#4060a0", h.pixel_hex(img, b.x + b.done / 2, b.y + b.h / 2))
    assert.are.equal("#ffffff", h.pixel_hex(img, b.x + b.done + (b.w - b.done) / 2, b.y + b.h / 2))
  end)

  it("lists the records around the current one, the current one marked", function()
    local t = frame(7).displays.trace
    assert.are.equal(15, t.current) -- the 15th record: P1 enters user event 2 at 7
    local l
    for _, x in ipairs(t.lines) do if x.current then l = x end end
    assert.are.equal(15, l.index)
    assert.is_truthy(l.text:find("P1  entry  user event 2", 1, true))
    -- the records before it come above it, in file order: the 14th is P1's exit of user event 1 at 7
    local before
    for _, x in ipairs(t.lines) do if x.index == 14 then before = x end end
    assert.are.equal(7, before.time)
    assert.is_truthy(before.text:find("P1  exit  user event 1", 1, true), before.text)
    assert.is_true(before.y < l.y)
    assert.are.equal(l, t.lines[#t.lines]) -- the current one last: nothing read ahead
    local l3 = frame(3).displays.trace.lines
    local c3
    for _, x in ipairs(l3) do if x.current then c3 = x end end
    assert.are.equal(2, c3.time) -- no record at 3: the last one read is at 2
    local img = png(out, 7)
    assert.are.equal("#ffe680", h.pixel_hex(img, t.highlight.x + 1, t.highlight.y + t.highlight.h / 2))
  end)

  it("sums up per processor and in total, also as stats.json and stats.csv", function()
    local st = read_json(data .. "/stats.json")
    local want = {
      { 12, 4, 2, 3, 160, 0, 0, 0, 16, 2 },
      { 5, 1, 12, 1, 200, 1, 100, 1, 11, 3 },
      { 12, 0, 6, 0, 0, 3, 260, 1, 18, 6 },
    }
    for i, w in ipairs(want) do
      local r = st.processors[i]
      same_list({ w[1] / 0.18, w[2] / 0.18, w[3] / 0.18 }, { r.busy, r.overhead, r.idle }, 1e-9)
      same_list({ w[4], w[5], w[6], w[7], w[8], w[9], w[10] },
        { r.sent, r.sent_bytes, r.received, r.received_bytes, r.max_queue, r.task_time, r.path_time })
    end
    same_list({ 29 / 0.54, 4, 360, 45, 11, 1 },
      { st.total.busy, st.total.sent, st.total.sent_bytes, st.total.task_time, st.total.path_time, st.total.tachyons })
    assert.are.equal(18, st.critical_path.length)
    local csv = h.slurp(data .. "/stats.csv")
    local lines = {}
    for line in csv:gmatch("[^\n]+") do lines[#lines + 1] = line end
    assert.are.equal(5, #lines)
    assert.are.equal("id,busy,overhead,idle,sent,sent_bytes,received,received_bytes,max_queue,task_time,path_time",
      lines[1])
    assert.are.equal("2,66.66666667,0,33.33333333,0,0,3,260,1,18,6", lines[4])
    assert.is_truthy(lines[5]:match("^total,53.7037037,"))
  end)

  it("fits the summary table's columns to their measured text, dropping the least needed when narrow", function()
    for _, size in ipairs({ "1200x400", "330x300", "200x300" }) do
      local s = run(fixture, { "--display", "stats", "--size", size })
      local d = s.displays.stats
      assert.are.equal("P", d.columns[1]) -- the processor column always stays
      for c = 2, #d.columns do
        -- the right-aligned text of column c starts after column c-1 ends
        assert.is_true(d.column_right[c] - d.column_text[c] >= d.column_right[c - 1] + 2,
          size .. ": column " .. d.columns[c] .. " overlaps " .. d.columns[c - 1])
      end
      assert.is_true(d.column_right[#d.columns] <= tonumber(size:match("^(%d+)")), size)
      if size == "1200x400" then assert.are.equal(11, #d.columns) end
      if size == "200x300" then assert.is_true(#d.columns < 11) end
    end
  end)

  it("draws the summary table with a row per processor and the total last", function()
    local d = summary.displays.stats
    local rows = {}
    for i, c in ipairs(d.cells) do rows[i] = c.row end
    assert.are.same({ "0", "1", "2", "total" }, rows)
    local img = png(out, last)
    for _, c in ipairs(d.cells) do
      -- the left margin of every second row is striped
      assert.are.equal(c.striped and "#eeeeee" or "#ffffff", h.pixel_hex(img, c.x + 1, c.y + c.h / 2))
    end
  end)

  it("draws the gray-mode path in black", function()
    local s2, _, out2 = run(fixture, { "--display", "critical_path", "--gray" })
    local d = s2.displays.critical_path
    local s = d.drawn.segments[2]
    assert.are.equal("#000000", h.pixel_hex(png(out2, s2.frames), (s.x0 + s.x1) / 2, s.y))
  end)
end)

-- Feed every record of a trace to an application display; after each tracemark call check(d, rec, k).
local function feed(app, trace, check)
  local mod = assert(pgapp.load(app))
  local d = mod.new({ P = 4 }, {})
  local t = assert(require("retrace.core").picl.open(trace))
  local k = 0
  for rec in t:records() do
    d:record(rec)
    if rec.kind == "mark" or rec.code == 22 then
      k = k + 1
      local _, data_ = display.image(d, 400, 300)
      check(data_, rec, k)
    end
  end
  return k, d
end

-- The sort example's state after each mark, written out by hand (odd-even merge-split sort):
-- want[k][p + 1] = the keys of processor p after the k-th mark.
local function sort_states()
  -- odd-even merge-split sort, written out by hand: after the k-th mark, the keys of every processor
  local s0 = { { 3, 15 }, { 9, 12 }, { 1, 7 }, { 5, 14 } }
  local s1 = { { 3, 9 }, { 12, 15 }, { 1, 5 }, { 7, 14 } }   -- (0,1) (2,3)
  local s2 = { { 3, 9 }, { 1, 5 }, { 12, 15 }, { 7, 14 } }   -- (1,2)
  local s3 = { { 1, 3 }, { 5, 9 }, { 7, 12 }, { 14, 15 } }   -- (0,1) (2,3)
  local s4 = { { 1, 3 }, { 5, 7 }, { 9, 12 }, { 14, 15 } }   -- (1,2): sorted
  local function st(base, over)
    local o = {}
    for p = 1, 4 do o[p] = over[p] or base[p] end
    return o
  end
  local want = {
    st({}, { s0[1] }), st({}, { s0[1], s0[2] }), st({}, { s0[1], s0[2], s0[3] }), s0,
    st(s0, { s1[1] }), st(s0, { s1[1], s1[2] }), st(s0, { s1[1], s1[2], s1[3] }), s1,
    st(s1, { nil, s2[2] }), s2,
    st(s2, { s3[1] }), st(s2, { s3[1], s3[2] }), st(s2, { s3[1], s3[2], s3[3] }), s3,
    st(s3, { nil, s4[2] }), s4,
  }
  return want
end

describe("application displays", function()
  it("sort: the keys each processor holds after each mark", function()
    local want = sort_states()
    local n = feed(examples .. "/sort.lua", examples .. "/sort.trf", function(d, _, k)
      for p = 1, 4 do assert.are.same(want[k][p] or {}, d.keys[p], "mark " .. k .. " processor " .. (p - 1)) end
    end)
    assert.are.equal(#want, n)
  end)

  it("sort: the same states from old-format tracemarks (code 22)", function()
    local want = sort_states()
    local n = feed(examples .. "/sort.lua", h.fixtures .. "/paragraph/sort_old.trf", function(d, _, k)
      for p = 1, 4 do assert.are.same(want[k][p] or {}, d.keys[p], "mark " .. k .. " processor " .. (p - 1)) end
    end)
    assert.are.equal(#want, n)
    local s = run(h.fixtures .. "/paragraph/sort_old.trf", { "--app", examples .. "/sort.lua" })
    assert.are.equal(16, s.displays.sort.marks)
    assert.are.same(want[16], s.displays.sort.keys)
  end)

  it("transpose: the matrix after each mark", function()
    -- processor p holds column p; element a(i, j) is 4 i + j
    local c0 = { { 0, 4, 8, 12 }, { 1, 5, 9, 13 }, { 2, 6, 10, 14 }, { 3, 7, 11, 15 } }
    -- level 1: the top-right and bottom-left quadrants swap (P0 <-> P2, P1 <-> P3)
    local c1 = { { 0, 4, 2, 6 }, { 1, 5, 3, 7 }, { 8, 12, 10, 14 }, { 9, 13, 11, 15 } }
    -- level 2: inside every quadrant (P0 <-> P1, P2 <-> P3)
    local c2 = { { 0, 1, 2, 3 }, { 4, 5, 6, 7 }, { 8, 9, 10, 11 }, { 12, 13, 14, 15 } }
    local order = { { 0, c0 }, { 1, c0 }, { 2, c0 }, { 3, c0 }, { 0, c1 }, { 2, c1 }, { 1, c1 }, { 3, c1 },
                    { 0, c2 }, { 1, c2 }, { 2, c2 }, { 3, c2 } }
    local cols = {}
    local n, d = feed(examples .. "/transpose.lua", examples .. "/transpose.trf", function(data_, rec, k)
      assert.are.equal(order[k][1], rec.proc)
      cols[rec.proc + 1] = order[k][2][rec.proc + 1]
      for j = 1, 4 do
        for i = 1, 4 do
          assert.are.equal(cols[j] and cols[j][i] or false, data_.matrix[i][j],
            string.format("mark %d row %d column %d", k, i - 1, j - 1))
        end
      end
    end)
    assert.are.equal(#order, n)
    -- transposed: row i holds the original column i
    local m = d:matrix()
    for i = 1, 4 do for j = 1, 4 do assert.are.equal(4 * (j - 1) + (i - 1), m[i][j]) end end
  end)

  it("runs through --app with every record, colouring the moved blocks", function()
    local s, _, out = run(examples .. "/transpose.trf", { "--app", examples .. "/transpose.lua",
      "--display", "spacetime" })
    local d = s.displays.transpose
    assert.are.equal(12, d.marks)
    local img = png(out, s.frames)
    for _, c in ipairs(d.cells) do
      assert.are.equal(colors.task(c.value % 4), h.pixel_hex(img, c.x + 3, c.y + 3))
    end
    local s2 = run(examples .. "/sort.trf", { "--app", examples .. "/sort.lua" })
    assert.are.same({ { 1, 3 }, { 5, 7 }, { 9, 12 }, { 14, 15 } }, s2.displays.sort.keys)
  end)

  it("rejects a missing or malformed application file with a one-line error", function()
    local out = h.temp_dir()
    local code, _, err = h.retrace("paragraph", fixture, "-o", out, "--app", out .. "/none.lua")
    assert.are.equal(1, code)
    assert.is_truthy(err:find("none.lua", 1, true))
    local bad = h.temp_file("return 42\n", ".lua")
    code, _, err = h.retrace("paragraph", fixture, "-o", out, "--app", bad)
    assert.are.equal(1, code)
    assert.is_truthy(err:find("new(ctx, opts)", 1, true))
    assert.are.equal(1, select(2, err:gsub("\n", "")))
    -- an error inside the display: one line naming the method and the file's line
    local boom = h.temp_file("local M = {}\nfunction M.new() return { draw = function() error('boom') end } end\n" ..
      "return M\n", ".lua")
    code, _, err = h.retrace("paragraph", fixture, "-o", out, "--app", boom)
    assert.are.equal(1, code)
    assert.is_truthy(err:find("draw(): " .. boom .. ":2: boom", 1, true), err)
    assert.are.equal(1, select(2, err:gsub("\n", "")))
    code = h.retrace("paragraph", fixture, "-o", out, "--group", "tasks")
    assert.are.equal(2, code)
  end)
end)
