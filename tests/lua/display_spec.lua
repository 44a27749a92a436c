-- retrace.display: the protocol helpers (static displays, render, compose,
-- update to one time) and retrace.reduce from Lua.
require "retrace"
local display = require "retrace.display"
local plot = require "retrace.plot"
local reduce = require "retrace.reduce"

describe("retrace.display", function()
  it("makes a static display from a draw function and renders it to PNG, SVG and PDF", function()
    local d = display.static(function(cv, r)
      cv:rect(r.x + 10, r.y + 10, 20, 20, "#ff0000")
      return { square = { x = r.x + 10, y = r.y + 10, w = 20, h = 20 } }
    end)
    local cv, data = display.image(d, 100, 80)
    assert.same({ x = 10, y = 10, w = 20, h = 20 }, data.square)
    assert.same({ 255, 0, 0, 255 }, { cv:get_pixel(20, 20) })
    assert.same({ 255, 255, 255, 255 }, { cv:get_pixel(50, 50) })
    for _, ext in ipairs({ "png", "svg", "pdf" }) do
      local path = os.tmpname() .. "." .. ext
      local out = assert(display.render(d, path, 100, 80))
      assert.equals(10, out.square.x)
      local f = assert(io.open(path, "rb"))
      local head = f:read(4)
      f:close()
      assert.equals(({ png = "\137PNG", svg = "<?xm", pdf = "%PDF" })[ext], head)
      os.remove(path)
    end
    local ok, err = display.render(d, "/tmp/x.bmp", 10, 10)
    assert.is_nil(ok)
    assert.equals("/tmp/x.bmp: unknown picture type (use .png, .pdf or .svg)", err)
  end)

  it("refuses a table that does not follow the protocol", function()
    assert.has_error(function() display.check({ draw = function() end }) end, "display: missing method 'data'")
    assert.has_error(function() display.compose({ 42 }) end, "display: expected a table with draw and data, got number")
  end)

  it("updates every display of a frame to the same time, then draws them in titled panels", function()
    local seen = {}
    local function ticking(name)
      local t_now
      return {
        update = function(_, state, t) t_now = t; seen[#seen + 1] = name .. "@" .. t .. ":" .. state end,
        draw = function(_, cv, r) cv:rect(r.x, r.y, r.w, r.h, "#00ff00") end,
        data = function() return { t = t_now } end,
      }
    end
    local a, b = ticking("a"), ticking("b")
    local still = display.static(function() return { still = true } end)
    local c = display.compose({ { title = "A", display = a }, { title = "B", display = b }, still }, { cols = 3 })
    c:update("s", 2.5)
    assert.same({ "a@2.5:s", "b@2.5:s" }, seen)
    local cv, d = display.image(c, 300, 100)
    assert.equals(3, #d.panels)
    assert.equals("A", d.panels[1].title)
    assert.equals(2.5, d.panels[2].data.t)
    assert.is_true(d.panels[3].data.still)
    local r = d.panels[2].rect
    assert.is_true(r.x > d.panels[1].rect.x + d.panels[1].rect.w) -- side by side
    assert.same({ 0, 255, 0, 255 }, { cv:get_pixel(math.floor(r.x + r.w / 2), math.floor(r.y + r.h / 2)) })
  end)

  it("maps data to pixels the same way for plots inside a composite", function()
    local p = plot.new{ x = { label = "x", lo = 0, hi = 10 }, y = { label = "y", lo = 0, hi = 10 } }
    p:points({ 5 }, { 5 }, { color = "#0000ff", radius = 5 })
    local c = display.compose({ { title = "left", display = display.static(function() return {} end) },
                                { title = "plot", display = p } }, { cols = 2 })
    local cv, d = display.image(c, 600, 300)
    local px, py = display.to_pixel(d.panels[2].data, 5, 5)
    assert.is_true(px > 300)
    assert.same({ 0, 0, 255, 255 }, { cv:get_pixel(math.floor(px), math.floor(py)) })
  end)
end)

describe("retrace.reduce", function()
  it("folds points into columns (hand-computed)", function()
    -- 4 columns over [0, 8]: [0,2) [2,4) [4,6) [6,8]
    local c = reduce.series({ 0, 1, 1.5, 5, 8, 9 }, { 3, -2, 7, 4, 10, 1 }, 4, 0, 8)
    assert.same({ 3, 0, 1, 1 }, c.count)
    assert.same({ -2, 0, 4, 10 }, c.min)
    assert.same({ 7, 0, 4, 10 }, c.max)
    assert.near(8 / 3, c.mean[1], 1e-12)
    assert.same({ 3, 0, 4, 10 }, c.first)
    assert.equals(1, c.outside)
  end)

  it("weights steps by time and takes packs and uniform series", function()
    local c = reduce.series({ 0, 3, 7 }, { 1, 2, 0 }, 2, 0, 10, { step = true, x_end = 10 })
    assert.near((3 + 4) / 5, c.mean[1], 1e-12)
    assert.near(4 / 5, c.mean[2], 1e-12)
    local pk = require("retrace.canvas").pack(3)
    pk:push(0.5, 99, 1); pk:push(1.5, 99, 5); pk:push(3.5, 99, 2)
    local r = reduce.new(2, 0, 4)
    r:add_pack(pk, 1, 3)
    r:add_uniform(0.25, 1, reduce.doubles({ 7, 8 })) -- x 0.25 and 1.25
    local u = r:columns()
    assert.same({ 4, 1 }, u.count)
    assert.same({ 1, 2 }, u.min)
    assert.same({ 8, 2 }, u.max)
    assert.matches("^retrace.Reducer %(2 columns", tostring(r))
    r:close()
    assert.has_error(function() r:columns() end)
  end)

  it("refuses bad input with a message", function()
    local r = reduce.new(4, 0, 1, true)
    assert.has_error(function() r:add("abc", "abc") end)
    assert.has_error(function() r:add(reduce.doubles({ 1, 2 }), reduce.doubles({ 1 })) end,
      "reduce: 2 x values but 1 y values")
    assert.has_error(function() r:add(reduce.doubles({ 0.5, 0.2 }), reduce.doubles({ 1, 1 })) end,
      "reduce: step series goes back in x (0.2 after 0.5)")
    assert.has_error(function() reduce.new(4, 1, 1) end, "reduce: x range [1, 1] is empty or not finite")
    assert.has_error(function() reduce.new(0, 0, 1) end)
  end)

  it("reduces a long series fast, from strings, to the same columns a direct scan gives", function()
    local n = 200000
    local xs, ys = {}, {}
    local seed = 12345
    for i = 1, n do
      seed = (seed * 1103515245 + 12345) % 2147483648
      xs[i], ys[i] = i / n, seed % 1000
    end
    local c = reduce.series(reduce.doubles(xs), reduce.doubles(ys), 50, 0, 1)
    local k = 17 -- column 17 by direct scan
    local cnt, mn, mx = 0, math.huge, -math.huge
    for i = 1, n do
      local col = math.floor(xs[i] * 50)
      if col == 50 then col = 49 end
      if col == k - 1 then cnt, mn, mx = cnt + 1, math.min(mn, ys[i]), math.max(mx, ys[i]) end
    end
    assert.equals(cnt, c.count[k])
    assert.equals(mn, c.min[k])
    assert.equals(mx, c.max[k])
  end)
end)
