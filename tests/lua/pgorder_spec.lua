-- retrace paragraph --order: every display that lays processors out puts
-- processor p at its place in the display order (Gray rank of p with --order
-- gray), labelled by p, on the hand-made 4-processor trace
-- tests/fixtures/paragraph/pg4.trf (see paragraph_spec.lua for its story).
--
-- Gray order of 4 processors: 0, 1, 3, 2 (processors 2 and 3 trade places).
-- Values probed (seconds): at 6.5 processor 2 is idle (finished at 6) and 3 busy;
-- over the run p2 is 62.5 % busy, 12.5 % overhead, 25 % idle and p3 87.5 % busy,
-- 12.5 % idle; at 6.5 the 2000 B message 2 -> 3 is queued for 3; over [4.5, 6.5]
-- p2 is busy a quarter of the time, the others all of it.
require "retrace"
local h = require "helpers"
local cjson = require "cjson"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local plot = require "retrace.plot"
local order = require "retrace.displays.paragraph.order"

local fixture = h.fixtures .. "/paragraph/pg4.trf"
local P = 4

local function read_json(path) return cjson.decode(h.slurp(path)) end
local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-6) end

-- The command on the fixture (a frame every 0.5 s, the window the whole run).
local function run(extra)
  local out, data = h.temp_dir(), h.temp_dir()
  local args = { "paragraph", fixture, "-o", out, "--all", "--pace", "time:0.5", "--unit", "s",
                 "--smoothing", "2", "--scale-width", "8", "--data", data }
  for _, a in ipairs(extra) do args[#args + 1] = a end
  local code, _, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  local function frame(i) return read_json(string.format("%s/frame_%06d.json", data, i)) end
  local function png(i) return assert(canvas.load_png(string.format("%s/frame_%06d.png", out, i))) end
  return read_json(data .. "/summary.json"), frame, png
end

for _, kind in ipairs({ "gray", "natural" }) do
  describe("paragraph --order " .. kind .. " on 4 processors", function()
    local summary, frame, png = run({ "--order", kind, "--proc", "2" })
    local list = order.list(kind, P)
    -- the place (0-based) of processor p: its Gray rank, or p
    local function place(p) return kind == "gray" and order.rank(p) or p end
    -- the centre of the row at place s of a processor chart over plot box pr
    local function row_y(pr, s) return pr.y + (P - 1 - s + 0.5) * pr.h / P end

    it("has the list it was asked for", function()
      assert.are.same(kind == "gray" and { 0, 1, 3, 2 } or { 0, 1, 2, 3 }, list)
      for p = 0, P - 1 do assert.are.equal(p, list[place(p) + 1]) end
    end)

    it("puts Gantt and task Gantt rows at the processors' places", function()
      local img = png(summary.frames)
      for _, name in ipairs({ "gantt", "task_gantt" }) do
        local g = summary.displays[name]
        assert.are.equal(P, #g.rows)
        for p = 0, P - 1 do
          local r = g.rows[p + 1]
          assert.are.equal(p, r.id)
          assert.are.equal(place(p), r.slot)
          assert.is_true(close(row_y(g.plot, place(p)), r.y), name .. " row of " .. p)
        end
      end
      local g = summary.displays.gantt
      local function at(p, t)
        local x = plot.to_pixel(g, t, 0)
        return h.pixel_hex(img, x, row_y(g.plot, place(p)) + g.rows[1].h / 4)
      end
      assert.are.equal(colors.state("idle"), at(2, 6.5))
      assert.are.equal(colors.state("busy"), at(3, 6.5))
      assert.are.equal(colors.state("busy"), at(2, 4.5))
    end)

    it("draws space-time and critical-path lines at the processors' places", function()
      local s = summary.displays.spacetime
      assert.is_true(#s.messages >= 2)
      for _, m in ipairs(s.messages) do
        assert.is_true(close(row_y(s.plot, place(m.src)), m.y0), "sender " .. m.src)
        assert.is_true(close(row_y(s.plot, place(m.dst)), m.y1), "receiver " .. m.dst)
      end
      local c = summary.displays.critical_path
      assert.is_true(#c.drawn.segments >= 1)
      for _, sg in ipairs(c.drawn.segments) do
        assert.is_true(close(row_y(c.plot, place(sg.proc)), sg.y), "segment on " .. sg.proc)
      end
    end)

    it("puts the utilization summary's bars at the processors' places", function()
      local u = summary.displays.utilization_summary
      assert.are.same(list, u.order)
      local img = png(summary.frames)
      -- at 80 %: p2 is idle there (busy + overhead 75 %), p3 still busy (87.5 %)
      local x2, y = plot.to_pixel(u, place(2), 80)
      local x3 = plot.to_pixel(u, place(3), 80)
      assert.are.equal(colors.state("idle"), h.pixel_hex(img, x2, y))
      assert.are.equal(colors.state("busy"), h.pixel_hex(img, x3, y))
    end)

    it("puts queue bars and Kiviat spokes in the display order", function()
      local f = frame(13) -- t = 6.5
      local q = f.displays.queues
      assert.are.same({ 0, 0, 0, 1 }, q.current) -- by processor, whatever the order
      assert.are.same(list, q.order)
      local img = png(13)
      local x3, y = plot.to_pixel(q, place(3), 0.5)
      local x2 = plot.to_pixel(q, place(2), 0.5)
      assert.are.equal("#1f4e9c", h.pixel_hex(img, x3, y))
      assert.are_not.equal("#1f4e9c", h.pixel_hex(img, x2, y))
      local k = f.displays.kiviat
      assert.are.same(list, k.order)
      local want = {}
      for s, p in ipairs(list) do want[s] = k.radii[p + 1] end
      for s = 1, P do assert.is_true(close(want[s], k.spoke_radii[s]), "spoke " .. s) end
      assert.is_true(close(0.25, k.spoke_radii[place(2) + 1]))
    end)

    it("plots node statistics' peers at their places", function()
      local n = summary.displays.node_stats
      assert.are.equal(2, n.proc)
      assert.are.same(list, n.order)
      assert.are.equal(1, n.outgoing_count) -- 2000 B to processor 3
      local img = png(summary.frames)
      local by = n.by.outgoing.peer
      assert.are.same({ { value = 3, count = 1 } }, by)
      -- the point: sent at 5 s, at processor 3's place, in its size colour
      local hit = false
      for dt = -1, 1, 0.05 do
        local x, y = plot.to_pixel(n.outgoing, 5 + dt, place(3))
        if h.pixel_hex(img, x, y) == colors.message_size(2000) then hit = true end
      end
      assert.is_true(hit, "no point at processor 3's place")
    end)
  end)
end

describe("paragraph --order gray past the pixel rows", function()
  it("lays 600 processors out at their Gray places, the axis saying so", function()
    -- processor p busy from p % 100 + 0.5 to 100.5 s
    local ev = {}
    for p = 0, 599 do
      ev[#ev + 1] = { p % 100 + 0.5, string.format("-3 1 %.1f %d 0 0", p % 100 + 0.5, p) }
      ev[#ev + 1] = { 100.5, string.format("-4 1 100.5 %d 0 0", p) }
    end
    table.sort(ev, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
    local lines = {}
    for i, e in ipairs(ev) do lines[i] = e[2] end
    local trace = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
    local data = h.temp_dir()
    local code, _, err = h.retrace("paragraph", trace, "-o", h.temp_dir(), "--display", "gantt,queues",
      "--pace", "time:20", "--unit", "s", "--order", "gray", "--size", "900x300", "--data", data)
    assert.are.equal(0, code, err)
    local s = read_json(data .. "/summary.json")
    local g = s.displays.gantt
    assert.is_true(g.plot.h < 600)
    -- 600 is no power of two: codes of 600 and more are left out, the rest in sequence
    local pos = order.positions(order.gray(600))
    for p = 0, 599 do assert.are.equal(pos[p] - 1, g.rows[p + 1].slot) end
    assert.are.equal("processor (gray place)", g.axes.y.label)
    -- queue bars of b consecutive places: each bar's first and last processor
    local q, list = s.displays.queues, order.gray(600)
    assert.is_true(q.bin > 1)
    for i, bin in ipairs(q.bins) do
      assert.are.same({ list[(i - 1) * q.bin + 1], list[math.min(600, i * q.bin)] }, bin)
    end
    assert.are.equal("processor (gray place) (bars of " .. math.tointeger(q.bin) .. ": the largest)", q.axes.x.label)
  end)
end)

describe("timeline rows in an order", function()
  local timeline = require "retrace.timeline"
  it("puts processor p in the row of its place, grouping consecutive places", function()
    local g = order.gray(8) -- 0 1 3 2 6 7 5 4
    local tl = timeline.new{ cols = 2, rows = 4, procs = 8, t0 = 0, t1 = 2, order = g }
    -- row of p = place * 4 / 8: places 0-1, 2-3, 4-5, 6-7
    local want = { [0] = 0, 0, 1, 1, 3, 3, 2, 2 }
    for p = 0, 7 do assert.are.equal(want[p], tl:row_of(p), "processor " .. p) end
    -- processor 6 (place 4) busy over [0, 1): the first column of row 2, not of row 3
    tl:state(6, 0, "idle", "busy")
    tl:state(6, 1, "busy", "idle")
    tl:advance(2)
    assert.is_true(close(1, tl:cell(0, 2).busy))
    assert.is_true(close(0, tl:cell(0, 3).busy))
    local natural = timeline.new{ cols = 2, rows = 4, procs = 8, t0 = 0, t1 = 2 }
    assert.are.equal(3, natural:row_of(6))
  end)

  it("refuses an order that is not a permutation of the processors", function()
    for _, bad in ipairs({ { 0, 1, 2 }, { 0, 1, 1, 2 }, { 0, 1, 2, 4 }, { 0, 1, 2, "x" } }) do
      local ok, err = pcall(timeline.new, { cols = 2, rows = 4, procs = 4, t0 = 0, t1 = 1, order = bad })
      assert.is_false(ok)
      assert.is_truthy(tostring(err):match("order"), tostring(err))
    end
  end)
end)

describe("paragraph --static --order gray", function()
  it("draws the rows of the whole-run picture in Gray order, labelled by processor", function()
    -- pg4: at 6.5 s processor 2 is idle (finished at 6), processor 3 busy; in Gray order
    -- (0, 1, 3, 2) processor 3 takes the third row from the bottom and 2 the top one
    local dir = h.temp_dir()
    local png = dir .. "/g.png"
    local code, out, err = h.retrace("paragraph", fixture, "--static", "-o", png, "--order", "gray",
      "--display", "gantt", "--size", "800x400", "--json")
    assert.are.equal(0, code, err)
    local s = cjson.decode(out)
    assert.are.same({ 0, 1, 3, 2 }, s.procs)
    assert.are.equal("gray", s.order)
    local pnl = s.static.panels[1]
    assert.is_truthy(pnl.title:match("Gray%-code order"), pnl.title)
    local img = assert(canvas.load_png(png))
    local lo, hi = pnl.window[1], pnl.window[2]
    local x = pnl.plot.x + (6.5 - lo) / (hi - lo) * pnl.plot.w
    local by_id = {}
    for _, r in ipairs(pnl.rows) do by_id[r.first] = r end
    -- rows from the bottom: 0, 1, 3, 2 (y grows downwards)
    assert.is_true(by_id[0].y > by_id[1].y and by_id[1].y > by_id[3].y and by_id[3].y > by_id[2].y)
    local function state_at(id) return h.pixel_hex(img, x, by_id[id].y + by_id[id].h / 2) end
    assert.are.equal(colors.hex(colors.state("idle")), state_at(2))
    assert.are.equal(colors.hex(colors.state("busy")), state_at(3))
    -- and the natural order keeps 2 below 3
    code, out, err = h.retrace("paragraph", fixture, "--static", "-o", dir .. "/n.png", "--display", "gantt",
      "--size", "800x400", "--json")
    assert.are.equal(0, code, err)
    local rows = {}
    for _, r in ipairs(cjson.decode(out).static.panels[1].rows) do rows[r.first] = r end
    assert.is_true(rows[2].y > rows[3].y)
    -- an unknown order is a usage error
    code, _, err = h.retrace("paragraph", fixture, "--static", "-o", dir .. "/x.png", "--order", "spiral")
    assert.are.equal(2, code)
    assert.is_truthy(err:match("order"))
  end)
end)
