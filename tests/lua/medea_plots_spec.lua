-- MEDEA displays: pixels read back where points, curves and steps must be.
require "retrace"
local h = require "helpers"
local canvas = require "retrace.canvas"
local axes = require "retrace.medea.axes"
local fitmod = require "retrace.medea.fit"

local function rgb(cv, x, y)
  local r, g, b = cv:get_pixel(math.floor(x + 0.5), math.floor(y + 0.5))
  return string.format("#%02x%02x%02x", r, g, b)
end

describe("medea axes", function()
  it("pads data ranges and never returns an empty one", function()
    local lo, hi = axes.range({ 0, 10 })
    assert.same({ -0.5, 10.5 }, { lo, hi })
    lo, hi = axes.range({ 3, 3 })
    assert.is_true(lo < 3 and hi > 3)
    assert.equals("#1f77b4", axes.cluster_color(11))
  end)
end)

describe("displays.medea", function()
  it("scatter draws each component in its cluster's colour and returns the points", function()
    local scatter = require "retrace.displays.medea.scatter"
    local cv = canvas.image(400, 300, "white")
    local o = { xs = { 1, 5, 9 }, ys = { 2, 8, 3 }, clusters = { 1, 2, 2 }, names = { "a", "b", "c" } }
    local data = scatter.draw(cv, { x = 0, y = 0, w = 400, h = 300 }, o)
    assert.equals(3, #data.points)
    assert.same({ x = 5, y = 8, cluster = 2, name = "b" }, data.points[2])
    -- recompute the frame mapping the display used and look at the point centres
    local f = axes.frame(canvas.image(400, 300), { x = 0, y = 0, w = 400, h = 300 },
      (function()
        local xmin, xmax = axes.range(o.xs)
        local ymin, ymax = axes.range(o.ys)
        return { xmin = xmin, xmax = xmax, ymin = ymin, ymax = ymax }
      end)())
    assert.equals(axes.cluster_color(1), rgb(cv, f.sx(1), f.sy(2)))
    assert.equals(axes.cluster_color(2), rgb(cv, f.sx(9), f.sy(3)))
    assert.equals("#ffffff", rgb(cv, f.sx(5.3), f.sy(2.7)))
  end)

  it("fit draws the fitted curve and exports it with the coefficients", function()
    local disp = require "retrace.displays.medea.fit"
    local xs, ys = { 1, 2, 3, 4 }, { 3, 5, 7, 9 }
    local r = fitmod.fit(xs, ys, "linear")
    local cv = canvas.image(400, 300, "white")
    local d = disp.draw(cv, { x = 0, y = 0, w = 400, h = 300 }, { xs = xs, ys = ys, fit = r })
    assert.equals(100, #d.curve_x)
    assert.is_true(math.abs(d.curve_y[100] - 9) < 1e-9)
    assert.is_true(math.abs(d.r2 - 1) < 1e-12)
    assert.equals("y = 1 + 2 x", d.formula)
  end)

  it("profile draws a step at the count of processors", function()
    local disp = require "retrace.displays.medea.profile"
    local cv = canvas.image(400, 300, "white")
    local o = { times = { 0, 1, 3 }, counts = { 2, 4, 0 }, nprocs = 5, label = "busy" }
    disp.draw(cv, { x = 0, y = 0, w = 400, h = 300 }, o)
    local f = axes.frame(canvas.image(400, 300), { x = 0, y = 0, w = 400, h = 300 },
      { xmin = 0, xmax = 3, ymin = 0, ymax = 5, xlabel = "time (s)", ylabel = "busy processors" })
    local function blue(x, y) -- the line is 1.5 pixels wide: look at the rows around it
      for dy = -1, 1 do
        local r, _, b = cv:get_pixel(math.floor(f.sx(x)), math.floor(f.sy(y)) + dy)
        if b > 150 and r < 120 then return true end
      end
      return false
    end
    assert.is_true(blue(2.3, 4))
    assert.is_true(blue(0.5, 2))
    assert.is_false(blue(2.3, 3.3))
    assert.equals("#ffffff", rgb(cv, f.sx(2.3), f.sy(3.3)))
  end)

  it("retrace medea --plots writes pictures with their data", function()
    local dir = os.tmpname()
    os.remove(dir)
    local code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--approach", "event",
      "--params", "ctime,stime,utime", "--plots", dir, "--plot-profiles")
    assert.equals(0, code, err)
    for _, base in ipairs({ "scatter_ctime_stime", "scatter_ctime_utime", "scatter_stime_utime",
                            "profiles_table5.trf" }) do
      local png = assert(canvas.load_png(dir .. "/" .. base .. ".png"))
      assert.is_true(select(1, png:size()) > 100)
      local j = require("cjson").decode(h.slurp(dir .. "/" .. base .. ".json"))
      assert.is_table(j)
      os.remove(dir .. "/" .. base .. ".png")
      os.remove(dir .. "/" .. base .. ".json")
    end
    os.remove(dir)
    local prof = os.tmpname()
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--profiles", prof)
    assert.equals(0, code, err)
    local p = require("cjson").decode(h.slurp(prof))[1].profiles
    assert.same({ 0.000016, 0.002067 }, p.exec.times)
    assert.same({ 1, 0 }, p.exec.counts)
    -- receiving 0.000128..0.000516 and 0.000818..0.001643
    assert.same({ 0.000128, 0.000516, 0.000818, 0.001643 }, p.recv.times)
    assert.same({ 1, 0, 1, 0 }, p.recv.counts)
    os.remove(prof)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plot-profiles")
    assert.equals(2, code)
    assert.matches("%-%-plot%-profiles needs %-%-plots DIR", err)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/table5.trf", "--plots", "/nonexistent/x/y")
    assert.equals(1, code)
    assert.matches("%-%-plots: /nonexistent/x/y", err)
  end)
end)
