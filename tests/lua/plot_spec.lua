-- retrace.plot: numbers, ticks, legend placement, labels, constants, and pixel
-- probes at the positions data() reports.
require "retrace"
local plot = require "retrace.plot"
local canvas = require "retrace.canvas"
local display = require "retrace.display"
local h = require "helpers"

local hex, overlap = h.pixel_hex, h.boxes_overlap

describe("retrace.plot numbers", function()
  it("prints hand-picked values with no more digits than they need", function()
    local cases = {
      { 0.0015000000000000002, "0.0015" },
      { 6.0000000000004e-05, "6e-5" },
      { -1.05353, "-1.05353" },
      { 0.1 + 0.2, "0.3" },
      { 100, "100" },
      { 100.0, "100" },
      { 2.5, "2.5" },
      { 0, "0" },
      { -0.0, "0" },
      { 123456.7, "123457" },
      { 1234567, "1.23457e6" },
      { 1e-7, "1e-7" },
      { 1e15, "1e15" },
      { -2.5e-9, "-2.5e-9" },
      { 0.0001, "0.0001" },
      { 999999.4, "999999" },
    }
    for _, c in ipairs(cases) do
      assert.equals(c[2], plot.format_number(c[1]), "value " .. string.format("%.17g", c[1]))
    end
    assert.equals("3.14", plot.format_number(math.pi, 3))
    assert.equals("-0.00012", plot.format_number(-0.000123456, 2))
    assert.equals("110000", plot.format_number(111111.1, 2))
  end)

  it("writes signed formula terms without '+ -'", function()
    assert.equals("- 1.054 x", plot.format_signed_term(-1.05353, "x"))
    assert.equals("+ 2.5 x^2", plot.format_signed_term(2.5, "x^2"))
    assert.equals("-3", plot.format_signed_term(-3, "", true))
    assert.equals("0.5 x", plot.format_signed_term(0.5, "x", true))
    assert.equals("- 1.05 x", plot.format_signed_term(-1.05353, "x", false, 3))
  end)

  it("labels ticks with the fewest digits that tell them apart", function()
    assert.same({ "0.001", "0.0015", "0.002" }, plot.tick_labels({ 0.001, 0.0015, 0.002 }))
    assert.same({ "1000", "1500", "2000" }, plot.tick_labels({ 1000, 1500, 2000 }))
    -- one digit would read 2000, 3000, 4000: distinct but wrong
    assert.same({ "1500", "2500", "3500" }, plot.tick_labels({ 1500, 2500, 3500 }))
    local t, step = plot.ticks(0, 0.003, 6)
    assert.equals(0.0005, step)
    assert.same({ "0", "0.0005", "0.001", "0.0015", "0.002", "0.0025", "0.003" }, plot.tick_labels(t, step))
    t, step = plot.ticks(0.1, 0.7, 6) -- 3 * 0.1 is 0.30000000000000004 in floating point
    assert.same({ "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7" }, plot.tick_labels(t, step))
  end)
end)

describe("retrace.plot axes", function()
  it("keeps the y axis title within the plot's height: smaller type, then an ellipsis", function()
    local function title_of(w, h, label)
      local p = plot.new{ x = { label = "time" }, y = { label = label } }
      p:points({ 1, 2 }, { 1, 2 })
      local _, d = display.image(p, w, h)
      return d.y_title, d.plot
    end
    -- room enough: the title as given, at the plot's size (11 by default)
    local t = title_of(500, 400, "pending messages")
    assert.are.equal("pending messages", t.text)
    assert.are.equal(11, t.size)
    -- a short plot: smaller type, the words kept, the title no taller than the plot and a margin
    local t2, pr = title_of(300, 110, "pending messages")
    assert.are.equal("pending messages", t2.text)
    assert.is_true(t2.size < 11 and t2.size >= 7, "size " .. t2.size)
    local cv = canvas.image(10, 10)
    cv:font(nil, t2.size)
    assert.is_true(cv:text_size(t2.text) <= pr.h + 22)
    -- shorter still: cut with an ellipsis at the smallest type
    local t3, pr3 = title_of(300, 70, "pending messages to every processor of the run")
    assert.are.equal(7, t3.size)
    assert.is_truthy(t3.text:match("\u{2026}$"), t3.text)
    cv:font(nil, 7)
    assert.is_true(cv:text_size(t3.text) <= pr3.h + 22) -- the plot and a size (11) past each end
  end)

  it("puts log ticks on powers of ten only", function()
    assert.same({ 0.01, 0.1, 1, 10, 100, 1000, 10000 }, plot.log_ticks(0.003, 2e4))
    local p = plot.new{ x = { label = "n" }, y = { label = "t", unit = "s", log = "auto" } }
    p:points({ 1, 2, 3, 4 }, { 0.002, 0.3, 40, 900 })
    local _, d = display.image(p, 500, 400)
    assert.is_true(d.axes.y.log)
    assert.is_true(#d.axes.y.ticks >= 2)
    for _, v in ipairs(d.axes.y.ticks) do
      local e = math.log(v, 10)
      assert.is_true(math.abs(e - math.floor(e + 0.5)) < 1e-9, "tick " .. v)
    end
    assert.equals(false, d.axes.x.log) -- 1..4 spans less than three decades
  end)

  it("draws a value constant up to rounding as a constant: one tick and a note", function()
    local p = plot.new{ x = { label = "processor" }, y = { label = "trtime", unit = "s" } }
    p:points({ 1, 2, 3, 4 }, { 0.0015, 0.0015000000000000002, 0.0014999999999999998, 0.0015 })
    local _, d = display.image(p, 500, 400)
    assert.equals(1, #d.axes.y.ticks)
    assert.same({ "0.0015" }, d.axes.y.tick_labels)
    assert.equals(0.0015, d.axes.y.constant)
    assert.matches("trtime is constant: 0.0015 s", d.notes[1])
  end)

  it("picks the time unit by the span and prints units in axis titles", function()
    local p = plot.new{ x = { label = "time", time = true }, y = { label = "size", unit = "bytes" } }
    p:line({ 0, 0.002, 0.004 }, { 1, 2, 3 })
    local _, d = display.image(p, 500, 300)
    assert.equals("time (ms)", d.axes.x.title)
    assert.equals("size (bytes)", d.axes.y.title)
    assert.equals("4", d.axes.x.tick_labels[#d.axes.x.tick_labels])
  end)
end)

describe("retrace.plot legend", function()
  -- a scatter whose top-right corner is full of points
  local function crowded(extra)
    local xs, ys = {}, {}
    for i = 0, 19 do
      for j = 0, 9 do
        xs[#xs + 1], ys[#ys + 1] = 60 + 2 * i, 80 + 2 * j
      end
    end
    for i = 0, 9 do xs[#xs + 1], ys[#ys + 1] = 5 * i, 10 + i end
    for _, e in ipairs(extra or {}) do xs[#xs + 1], ys[#ys + 1] = e[1], e[2] end
    return xs, ys
  end

  local function check_clear(d)
    local s = d.series[1]
    for i = 1, #s.x do
      local px, py = plot.to_pixel(d, s.x[i], s.y[i])
      local box = { x = px - 4, y = py - 4, w = 8, h = 8 }
      assert.is_false(overlap(box, d.legend), string.format("point %g, %g under the legend", s.x[i], s.y[i]))
    end
  end

  it("goes to an empty corner, covering no point", function()
    local xs, ys = crowded()
    local p = plot.new{ x = { label = "x" }, y = { label = "y" } }
    p:points(xs, ys, { label = "cluster 1" })
    p:points({ 30 }, { 50 }, { label = "cluster 2", color = "red" })
    local _, d = display.image(p, 600, 400)
    assert.matches("^inside", d.legend.where)
    assert.not_equals("inside top right", d.legend.where)
    check_clear(d)
  end)

  it("goes outside the plot when every corner is taken", function()
    local xs, ys = crowded({ { 0, 100 }, { 2, 98 }, { 100, 0 }, { 98, 2 }, { 0, 0 }, { 1, 3 } })
    for i = 0, 10 do
      for j = 0, 10 do
        xs[#xs + 1], ys[#ys + 1] = i * 10, j * 10 -- a lattice over the whole plot
      end
    end
    local p = plot.new{ x = { label = "x" }, y = { label = "y" } }
    p:points(xs, ys, { label = "everything" })
    local _, d = display.image(p, 600, 400)
    assert.equals("outside right", d.legend.where)
    assert.is_true(d.legend.x >= d.plot.x + d.plot.w)
    check_clear(d)
  end)
end)

describe("retrace.plot labels", function()
  it("never lets two peak labels of a periodogram overlap", function()
    local xs, ys, labels = {}, {}, {}
    for i = 1, 400 do
      xs[i] = i / 400
      ys[i] = 1 + math.abs(math.sin(i * 0.37)) * (i % 7 == 0 and 10 or 1)
      if i % 7 == 0 then
        labels[#labels + 1] = { x = xs[i], y = ys[i], text = string.format("f=%.4f", xs[i]), priority = ys[i] }
      end
    end
    local p = plot.new{ title = "periodogram", x = { label = "frequency", unit = "1/event" }, y = { label = "power" } }
    p:line(xs, ys)
    p:labels(labels)
    local _, d = display.image(p, 600, 300)
    local drawn = d.labels.drawn
    assert.is_true(#drawn >= 3)
    assert.is_true(#d.labels.dropped > 0) -- 57 labels cannot all fit in 600 pixels
    assert.equals(#labels, #drawn + #d.labels.dropped)
    for i = 1, #drawn do
      local b = drawn[i].box
      assert.is_true(b.x >= d.plot.x and b.x + b.w <= d.plot.x + d.plot.w)
      for j = i + 1, #drawn do
        assert.is_false(overlap(b, drawn[j].box), drawn[i].text .. " overlaps " .. drawn[j].text)
      end
    end
  end)
end)

describe("retrace.plot pixels", function()
  it("a scatter point has its colour at the pixel data() reports", function()
    local p = plot.new{ x = { label = "x" }, y = { label = "y" } }
    p:points({ 1, 5, 9 }, { 2, 8, 3 }, { color = "#d62728", label = "red" })
    p:points({ 3 }, { 6 }, { color = "#2ca02c", marker = "square", label = "green" })
    local cv, d = display.image(p, 400, 300)
    for i, x in ipairs({ 1, 5, 9 }) do
      local px, py = plot.to_pixel(d, x, ({ 2, 8, 3 })[i])
      assert.equals("#d62728", hex(cv, px, py))
    end
    assert.equals("#2ca02c", hex(cv, plot.to_pixel(d, 3, 6)))
    assert.equals("#ffffff", hex(cv, plot.to_pixel(d, 7, 5)))
    -- the mapping is linear: the corners of the plot rectangle are the axis ends
    local x0, y0 = plot.to_pixel(d, d.axes.x.lo, d.axes.y.lo)
    assert.near(d.plot.x, x0, 1e-9)
    assert.near(d.plot.y + d.plot.h, y0, 1e-9)
  end)

  it("a histogram bar has its colour inside and white above", function()
    local p = plot.new{ x = { label = "bytes" }, y = { label = "messages", zero = true } }
    p:bars({ 1, 2, 3, 4 }, { 5, 12, 7, 1 }, { color = "#1f77b4", width = 0.8, label = "count" })
    local cv, d = display.image(p, 400, 300)
    for i, h in ipairs({ 5, 12, 7, 1 }) do
      local px, py = plot.to_pixel(d, i, h / 2)
      assert.equals("#1f77b4", hex(cv, px, py))
      local _, top = plot.to_pixel(d, i, h)
      if top - 4 > d.plot.y then
        local r, g, b = cv:get_pixel(math.floor(px), math.floor(top - 4))
        assert.is_true(r == g and g == b and r >= 0xe0, "above bar " .. i) -- white or a grid line
      end
    end
    assert.equals(0, d.axes.y.lo)
  end)

  it("draws reduced columns: one stroke per column from min to max", function()
    local reduce = require "retrace.reduce"
    local xs, ys = {}, {}
    for i = 1, 10000 do xs[i], ys[i] = i, (i % 100 == 0) and 9 or 1 end
    local cols = reduce.series(xs, ys, 100, 0, 10000)
    local p = plot.new{ x = { label = "event" }, y = { label = "v", lo = 0, hi = 10 } }
    p:columns(cols, { color = "#ff0000", mean_color = false })
    local cv, d = display.image(p, 400, 300)
    assert.equals(100, #d.series[1].columns.count)
    local px, py = plot.to_pixel(d, 150, 5) -- middle of column 2 (x 100..199): values 1 and 9
    local r, g, b = cv:get_pixel(math.floor(px + 0.5), math.floor(py))
    assert.is_true(r > 200 and g < 120 and b < 120, string.format("%d %d %d", r, g, b))
  end)
end)
