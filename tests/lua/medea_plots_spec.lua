-- MEDEA displays: pixels read back where data() says points, curves and
-- profile columns are; the pictures `retrace medea --plots` writes.
require "retrace"
local h = require "helpers"
local canvas = require "retrace.canvas"
local display = require "retrace.display"
local plot = require "retrace.plot"
local fitmod = require "retrace.medea.fit"
local cjson = require "cjson"

local rgb, overlap = h.pixel_hex, h.boxes_overlap

describe("displays.medea", function()
  local style = require "retrace.displays.medea.style"

  it("gives parameters their units and clusters distinct markers", function()
    assert.equals("s", style.unit("extime"))
    assert.equals("bytes", style.unit("trdata"))
    assert.is_nil(style.unit("trnum"))
    assert.equals("#1f77b4", style.cluster_color(11))
    assert.not_equals(style.cluster_marker(1), style.cluster_marker(2))
  end)

  it("scatter draws each component in its cluster's colour where data() says", function()
    local scatter = require "retrace.displays.medea.scatter"
    local cv = canvas.image(400, 300, "white")
    local o = { xs = { 1, 5, 9 }, ys = { 2, 8, 3 }, clusters = { 1, 2, 2 }, names = { "a", "b", "c" },
                xlabel = "cptime", ylabel = "trdata", log = false }
    local d = scatter.draw(cv, { x = 0, y = 0, w = 400, h = 300 }, o)
    assert.equals(3, #d.points)
    assert.same({ x = 5, y = 8, cluster = 2, name = "b" }, d.points[2])
    assert.equals(style.cluster_color(1), rgb(cv, plot.to_pixel(d, 1, 2)))
    assert.equals(style.cluster_color(2), rgb(cv, plot.to_pixel(d, 9, 3)))
    assert.equals("#ffffff", rgb(cv, plot.to_pixel(d, 5.3, 2.7)))
    assert.equals("trdata (bytes)", d.axes.y.title)
    assert.equals("cptime (s)", d.axes.x.title)
    for _, p in ipairs(d.points) do
      local px, py = plot.to_pixel(d, p.x, p.y)
      assert.is_false(overlap({ x = px - 4, y = py - 4, w = 8, h = 8 }, d.legend))
    end
  end)

  it("scatter of one component says so instead of drawing a lone dot", function()
    local scatter = require "retrace.displays.medea.scatter"
    local cv = canvas.image(400, 300, "white")
    local d = scatter.draw(cv, { x = 0, y = 0, w = 400, h = 300 }, { xs = { 3 }, ys = { 4 }, clusters = { 1 },
      names = { "run" }, xlabel = "extime", ylabel = "cmtime" })
    assert.equals("one component only (run: extime = 3, cmtime = 4): a scatter plot needs two or more", d.message)
    assert.is_nil(d.plot)
  end)

  it("fit prints the formula under the title, signs folded, and draws the curve", function()
    local disp = require "retrace.displays.medea.fit"
    local xs, ys = { 1, 2, 3, 4 }, { 10 - 1.05353, 10 - 2 * 1.05353, 10 - 3 * 1.05353, 10 - 4 * 1.05353 }
    local r = fitmod.fit(xs, ys, "linear")
    local cv = canvas.image(500, 400, "white")
    local d = disp.draw(cv, { x = 0, y = 0, w = 500, h = 400 }, { xs = xs, ys = ys, fit = r,
      xlabel = "prnum", ylabel = "extime", log = false })
    assert.equals(100, #d.curve_x)
    assert.near(ys[4], d.curve_y[100], 1e-9)
    assert.equals("y = 10 - 1.05353 x", d.formula)
    assert.matches("^y = 10 %- 1%.054 x    R%^2 = 1", d.notes[1])
    assert.is_nil(d.notes[1]:find("+ -", 1, true))
    -- the note sits above the plot area, so it covers no point
    assert.equals("#1f77b4", rgb(cv, plot.to_pixel(d, 2, ys[2])))
    -- the curve passes through (2.5, y(2.5)) in red
    local px, py = plot.to_pixel(d, 2.5, r.predict(2.5))
    local red = false
    for dy = -1, 1 do
      local rr, g, b = cv:get_pixel(math.floor(px), math.floor(py) + dy)
      red = red or (rr > 180 and g < 90 and b < 90)
    end
    assert.is_true(red)
  end)

  it("speedup has a y label and an ideal line S = p", function()
    local disp = require "retrace.displays.medea.speedup"
    local rows = { { p = 1, speedup = 1, efficiency = 1, efficacy = 1 },
                   { p = 2, speedup = 1.8, efficiency = 0.9, efficacy = 1.62 },
                   { p = 4, speedup = 3, efficiency = 0.75, efficacy = 2.25 } }
    local cv = canvas.image(800, 400, "white")
    local d = disp.draw(cv, { x = 0, y = 0, w = 800, h = 400 }, { rows = rows, base_p = 1 })
    local s = d.panels[1].data
    assert.equals("speedup S", s.axes.y.title)
    assert.equals("ideal: S = p", s.series[1].label)
    assert.same({ 1, 2, 4 }, s.series[1].y)
    -- the dashed ideal line is grey at p = 3 (between dashes or on one: look along a few pixels)
    local grey = false
    for t = 2.8, 3.2, 0.02 do
      local px, py = plot.to_pixel(s, t, t)
      local r, g, b = cv:get_pixel(math.floor(px), math.floor(py))
      grey = grey or (r == g and g == b and r < 200)
    end
    assert.is_true(grey)
    assert.near(0.75, d.rows[3].efficiency, 1e-12)
  end)

  it("profile reduces a step series per pixel column and leaves out empty activities", function()
    local disp = require "retrace.displays.medea.profile"
    local empty = { times = { 0, 3 }, counts = { 0, 0 } }
    local o = { trace = "t", nprocs = 5, tmin = 0, tmax = 3, columns = 300,
                profiles = { exec = { times = { 0, 1, 3 }, counts = { 2, 4, 0 } }, io = empty } }
    local cv = canvas.image(400, 400, "white")
    local d = disp.draw(cv, { x = 0, y = 0, w = 400, h = 400 }, o)
    assert.equals(1, #d.panels)
    assert.same({ "doing I/O" }, d.empty)
    local p = d.panels[1]
    assert.equals(300, #p.columns.count)
    -- column 50 covers t = 0.49..0.5: two processors; column 200 (t 1.99..2): four
    assert.equals(2, p.columns.max[50])
    assert.equals(4, p.columns.min[200])
    -- column 100 holds the change at t = 1: range 2..4, time average in between
    assert.equals(2, p.columns.min[100])
    assert.equals(4, p.columns.max[101])
    local function blue(t, v)
      local px, py = plot.to_pixel(p, t, v)
      for dy = -1, 1 do
        local r, _, b = cv:get_pixel(math.floor(px), math.floor(py) + dy)
        if b > 100 and r < 120 then return true end
      end
      return false
    end
    assert.is_true(blue(0.5, 2))
    assert.is_true(blue(2.3, 4))
    assert.is_false(blue(2.3, 3))
  end)
end)

describe("retrace medea --plots", function()
  it("writes pictures with their data, making missing parent folders", function()
    local root = h.temp_dir()
    local dir = root .. "/a/b/c"
    local code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--approach", "event",
      "--params", "ctime,stime,utime", "--plots", dir, "--plot-profiles")
    assert.equals(0, code, err)
    for _, base in ipairs({ "scatter_ctime_stime", "scatter_ctime_utime", "scatter_stime_utime",
                            "profiles_table5.trf" }) do
      local png = assert(canvas.load_png(dir .. "/" .. base .. ".png"))
      assert.is_true(select(1, png:size()) > 100)
      local j = cjson.decode(h.slurp(dir .. "/" .. base .. ".json"))
      assert.is_table(j)
    end
    -- every pair in one scatter matrix: three parameters, three cells (stime x ctime,
    -- utime x ctime, utime x stime), each point drawn in its cluster's colour where
    -- the cell's data says
    local m = cjson.decode(h.slurp(dir .. "/scatter_matrix.json"))
    assert.are.same({ "ctime", "stime", "utime" }, m.params)
    local pairs_seen = {}
    for _, c in ipairs(m.cells) do pairs_seen[#pairs_seen + 1] = c.y_param .. "~" .. c.x_param end
    assert.are.same({ "stime~ctime", "utime~ctime", "utime~stime" }, pairs_seen)
    local img = assert(canvas.load_png(dir .. "/scatter_matrix.png"))
    local plot = require "retrace.plot"
    local probed = 0
    for _, c in ipairs(m.cells) do
      for _, sr in ipairs(c.plot.series) do
        local px, py = plot.to_pixel(c.plot, sr.x[1], sr.y[1])
        local r, g, b = img:get_pixel(math.floor(px + 0.5), math.floor(py + 0.5))
        local er, eg, eb = require("retrace.colors").parse(sr.color)
        er, eg, eb = er * 255, eg * 255, eb * 255
        assert.is_true(math.abs(r - er) + math.abs(g - eg) + math.abs(b - eb) < 60,
          ("%s~%s at %.1f,%.1f: %d %d %d, want %s"):format(c.y_param, c.x_param, px, py, r, g, b, sr.color))
        probed = probed + 1
      end
    end
    assert.is_true(probed >= 3)
    local prof = cjson.decode(h.slurp(dir .. "/profiles_table5.trf.json"))
    assert.equals("executing", prof.panels[1].label)
    local nopanel = {}
    for _, e in ipairs(prof.empty) do nopanel[e] = true end
    assert.is_true(nopanel["doing I/O"])
    h.remove_tree(root)
    local prof_file = os.tmpname()
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--profiles", prof_file)
    assert.equals(0, code, err)
    local p = cjson.decode(h.slurp(prof_file))[1].profiles
    assert.same({ 0.000016, 0.002067 }, p.exec.times)
    assert.same({ 1, 0 }, p.exec.counts)
    -- receiving 0.000128..0.000516 and 0.000818..0.001643
    assert.same({ 0.000128, 0.000516, 0.000818, 0.001643 }, p.recv.times)
    assert.same({ 1, 0, 1, 0 }, p.recv.counts)
    os.remove(prof_file)
  end)

  it("draws no scatter of a single component and says so", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plots", dir)
    assert.equals(0, code, err)
    assert.matches("one component only: no scatter plot", err)
    assert.is_nil(require("lfs").attributes(dir .. "/scatter_extime_cptime.png"))
    h.remove_tree(dir)
  end)

  it("refuses bad plot options and unwritable folders with one line", function()
    local code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plot-profiles")
    assert.equals(2, code)
    assert.matches("%-%-plot%-profiles needs %-%-plots DIR", err)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plots", "x", "--plot-log", "maybe")
    assert.equals(2, code)
    assert.matches("%-%-plot%-log: 'maybe' is not auto, on or off", err)
    local file = h.temp_file("not a folder")
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plots", file .. "/sub")
    assert.equals(1, code)
    assert.matches("%-%-plots: " .. file:gsub("%p", "%%%0") .. ": not a folder\n$", err)
    assert.is_nil(err:find("traceback", 1, true))
    os.remove(file)
  end)

  local dir -- the demo's workload: 90 pstswm traces
  setup(function()
    dir = h.temp_dir()
    local code, _, err = h.retrace(h.source .. "/examples/medea/pstswm.lua", dir)
    assert.equals(0, code, err)
  end)
  teardown(function() h.remove_tree(dir) end)

  it("shows the demo's constant trtime with one tick and a note, and lean tick labels", function()
    local code, _, err = h.retrace("medea", dir .. "/pstswm.02.4.x", dir .. "/pstswm.12.4.0", "--approach", "processor",
      "--plots", dir .. "/runs", "--gray")
    assert.equals(0, code, err)
    local d = cjson.decode(h.slurp(dir .. "/runs/scatter_rctime_trtime.json"))
    assert.equals(1, #d.axes.y.ticks)
    assert.is_number(d.axes.y.constant)
    assert.matches("trtime is constant", d.notes[1])
    local lfs = require "lfs"
    for f in lfs.dir(dir .. "/runs") do
      if f:match("%.json$") then
        local j = cjson.decode(h.slurp(dir .. "/runs/" .. f))
        for _, ax in pairs(j.axes or {}) do
          for i, label in ipairs(ax.tick_labels) do
            local digits = label:gsub("e.*$", ""):gsub("[^%d]", ""):gsub("^0+", "")
            assert.is_true(#digits <= 4, f .. ": tick label " .. label)
            if i > 1 then assert.not_equals(ax.tick_labels[i - 1], label) end
          end
        end
      end
    end
  end)

  it("writes one file per --fit, even for the same pair twice", function()
    local out = dir .. "/fits"
    local code, _, err = h.retrace("medea", dir, "--kmax", "3", "--fit", "extime~cmtime",
      "--fit", "extime~cmtime", "--fit", "extime~cmtime:power", "--plots", out)
    assert.equals(0, code, err)
    local lfs = require "lfs"
    for _, base in ipairs({ "fit_extime_cmtime_linear", "fit_extime_cmtime_linear_2", "fit_extime_cmtime_power" }) do
      assert.equals("file", lfs.attributes(out .. "/" .. base .. ".png", "mode"), base)
    end
    local d = cjson.decode(h.slurp(out .. "/fit_extime_cmtime_power.json"))
    assert.equals("power", d.model)
  end)

  it("uses log axes for real traces of very different sizes and keeps profile JSON small", function()
    local picl = h.shared_file("picl/mpicl-10.trf")
    if not picl then
      print("skipped: ../shared/data/picl is absent")
      return
    end
    local out = h.temp_dir()
    local code, _, err = h.retrace("medea", h.shared .. "/picl", "--plots", out, "--plot-profiles")
    assert.equals(0, code, err)
    local d = cjson.decode(h.slurp(out .. "/scatter_extime_cptime.json"))
    assert.is_true(d.axes.x.log) -- extime from milliseconds to seconds
    for _, v in ipairs(d.axes.x.ticks) do
      local e = math.log(v, 10)
      assert.near(math.floor(e + 0.5), e, 1e-9)
    end
    code, _, err = h.retrace("medea", h.shared .. "/picl", "--plots", out .. "/lin", "--plot-log", "off")
    assert.equals(0, code, err)
    assert.is_false(cjson.decode(h.slurp(out .. "/lin/scatter_extime_cptime.json")).axes.x.log)
    -- the 120k-record trace: columns no more than the plot's pixels, JSON of bounded size
    local text = h.slurp(out .. "/profiles_mpicl-10.trf.json")
    assert.is_true(#text < 200000, #text .. " bytes")
    local prof = cjson.decode(text)
    for _, p in ipairs(prof.panels) do
      assert.is_true(#p.columns.count <= math.ceil(p.plot.w) + 1, p.name)
    end
    h.remove_tree(out)
  end)
end)
