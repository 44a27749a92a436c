-- MEDEA's zoomed profile (a detailed view of one interval of a run): the
-- display's numbers and pixels, and `retrace medea --plots DIR --zoom T0:T1`.
require "retrace"
local h = require "helpers"
local canvas = require "retrace.canvas"
local plot = require "retrace.plot"
local cjson = require "cjson"

-- Is there a dark-blue profile stroke within a pixel of data point (t, v) of panel d?
local function blue(cv, d, t, v)
  local px, py = plot.to_pixel(d, t, v)
  for dy = -1, 1 do
    local r, _, b = cv:get_pixel(math.floor(px), math.floor(py) + dy)
    if b > 100 and r < 120 then return true end
  end
  return false
end

-- Is the pixel of (t, v) in panel d tinted by the band's orange (red high, blue low)?
local function tinted(cv, d, t, v)
  local px, py = plot.to_pixel(d, t, v)
  local r, _, b = cv:get_pixel(math.floor(px), math.floor(py))
  return r > 235 and b < 215
end

describe("displays.medea.profile zoom", function()
  local profile = require "retrace.displays.medea.profile"
  -- receiving: 3 processors on [1, 2), 1 on [2, 4), none before 1
  local recv = { times = { 0, 1, 2, 4 }, counts = { 0, 3, 1, 0 } }

  it("shades the interval on the whole run and draws it in detail", function()
    local cv = canvas.image(700, 500, "white")
    local d = profile.draw_zoom(cv, { x = 0, y = 0, w = 700, h = 500 }, { trace = "t", activity = "recv",
      nprocs = 4, tmin = 0, tmax = 4, t0 = 0.5, t1 = 1.5, whole = recv, detail = recv })
    assert.equals("receiving", d.label)
    assert.equals(0, d.tmin)
    assert.equals(4, d.tmax)
    -- the band spans t0..t1 on the whole run's time axis, over the full plot height
    local x0 = plot.to_pixel(d.whole, 0.5, 0)
    local x1 = plot.to_pixel(d.whole, 1.5, 0)
    assert.near(x0, d.band.x, 1e-9)
    assert.near(x1 - x0, d.band.w, 1e-9)
    assert.equals(d.whole.plot.y, d.band.y)
    assert.equals(d.whole.plot.h, d.band.h)
    -- axes: time in seconds, processors receiving
    assert.equals("time (s)", d.whole.axes.x.title)
    assert.equals("processors receiving", d.detail.axes.y.title)
    assert.equals(0.5, d.detail.axes.x.lo)
    assert.equals(1.5, d.detail.axes.x.hi)
    -- the detail's axis reads in ms (a span of 1 s), and so does the interval
    assert.equals("time (ms)", d.detail.axes.x.title)
    assert.equals("500 to 1500 ms", d.span)
    -- the detailed columns: nobody before t = 1, three processors after
    local cols = d.detail.columns
    local w = #cols.count
    assert.equals(0.5, cols.x0)
    assert.equals(1.5, cols.x1)
    assert.equals(0, cols.max[math.floor(w * 0.2)])
    assert.equals(3, cols.min[math.floor(w * 0.8)])
    -- the whole run's columns: 1 processor around t = 3
    assert.equals(1, d.whole.columns.max[math.floor(#d.whole.columns.count * 0.75)])
    -- pixels: tinted inside the band, not outside; strokes where the counts are
    assert.is_true(tinted(cv, d.whole, 0.7, 2.5))
    assert.is_true(tinted(cv, d.whole, 1.3, 3.6))
    assert.is_false(tinted(cv, d.whole, 3.3, 2.5))
    assert.is_false(tinted(cv, d.whole, 0.3, 2.5))
    assert.is_true(blue(cv, d.detail, 1.25, 3))
    assert.is_false(blue(cv, d.detail, 1.25, 1.5))
    assert.is_false(blue(cv, d.detail, 0.75, 3))
    assert.is_true(blue(cv, d.whole, 3, 1))
    assert.is_nil(d.note)
  end)

  it("says so when nothing happens in the interval", function()
    local cv = canvas.image(600, 400, "white")
    local d = profile.draw_zoom(cv, { x = 0, y = 0, w = 600, h = 400 }, { activity = "recv", nprocs = 4,
      tmin = 0, tmax = 4, t0 = 0.1, t1 = 0.9, whole = recv, detail = recv })
    assert.equals("no processor is receiving in this interval", d.note)
    assert.equals("100 to 900 ms", d.span)
  end)
end)

describe("retrace medea --zoom", function()
  local trace = h.fixtures .. "/medea/table5.trf"

  it("writes zoom_TRACE.png and its numbers", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("medea", trace, "--plots", dir, "--zoom", "0.0001:0.0009")
    assert.equals(0, code, err)
    local png = assert(canvas.load_png(dir .. "/zoom_table5.trf.png"))
    local j = cjson.decode(h.slurp(dir .. "/zoom_table5.trf.json"))
    assert.equals("recv", j.activity)
    assert.equals(0.0001, j.t0)
    assert.equals(0.0009, j.t1)
    -- the run spans 0.000016 .. 0.002067 s
    assert.equals(0.000016, j.tmin)
    assert.equals(0.002067, j.tmax)
    assert.equals("100 to 900 us", j.span)
    -- one processor receives over 0.000128..0.000516 and from 0.000818 on
    local cols = j.detail.columns
    local w = #cols.count
    local function col(t) return math.floor((t - 0.0001) / 0.0008 * w) + 1 end
    assert.equals(0, cols.max[col(0.00011)])
    assert.equals(1, cols.min[col(0.0003)])
    assert.equals(0, cols.max[col(0.0006)])
    assert.equals(1, cols.min[col(0.00085)])
    -- the picture: a stroke at 1 processor inside the receive, none at 0.6 ms
    assert.is_true(blue(png, j.detail, 0.0003, 1))
    assert.is_false(blue(png, j.detail, 0.0006, 1))
    assert.is_true(tinted(png, j.whole, 0.0005, 0.5))
    assert.is_false(tinted(png, j.whole, 0.0015, 0.5))
    -- another activity
    code, _, err = h.retrace("medea", trace, "--plots", dir, "--zoom", "0.0016:0.0018", "--zoom-activity", "send")
    assert.equals(0, code, err)
    j = cjson.decode(h.slurp(dir .. "/zoom_table5.trf.json"))
    assert.equals("transmitting", j.label)
    h.remove_tree(dir)
  end)

  it("refuses a bad interval or activity with one line", function()
    local code, _, err = h.retrace("medea", trace, "--zoom", "0:1")
    assert.equals(2, code)
    assert.matches("%-%-zoom needs %-%-plots DIR", err)
    code, _, err = h.retrace("medea", trace, "--plots", "x", "--zoom", "2:1")
    assert.equals(2, code)
    assert.matches("T0 must be before T1", err)
    code, _, err = h.retrace("medea", trace, "--plots", "x", "--zoom", "0:1", "--zoom-activity", "eat")
    assert.equals(2, code)
    assert.matches("'eat' is not exec, comp, comm, recv, send or io", err)
    local dir = h.temp_dir()
    code, _, err = h.retrace("medea", trace, "--plots", dir, "--zoom", "5:6")
    assert.equals(1, code)
    assert.matches("table5%.trf: %-%-zoom 5:6 lies outside the run %(1%.6e%-05 s to 0%.002067 s%)", err)
    assert.is_nil(err:find("traceback", 1, true))
    h.remove_tree(dir)
  end)
end)
