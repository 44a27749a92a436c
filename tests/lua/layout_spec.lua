local canvas = require "retrace.canvas"
local layout = require "retrace.layout"

local function inked(cv, x0, y0, x1, y1)
  local n = 0
  for y = y0, y1 do
    for x = x0, x1 do
      local r, g, b = cv:get_pixel(x, y)
      if r + g + b < 600 then n = n + 1 end
    end
  end
  return n
end

describe("retrace.layout", function()
  it("picks nice linear ticks", function()
    assert.are.same({ 0, 2, 4, 6, 8, 10 }, layout.ticks(0, 10, 5))
    assert.are.same({ 0, 20, 40, 60, 80, 100, 120 }, layout.ticks(0, 137, 6))
    local t = layout.ticks(0.13, 0.87, 4)
    assert.are.equal(4, #t)
    for i, v in ipairs({ 0.2, 0.4, 0.6, 0.8 }) do assert.is_true(math.abs(t[i] - v) < 1e-12) end
    assert.are.same({ -10, -5, 0, 5, 10 }, layout.ticks(-12, 12, 5))
    assert.are.same({ 3 }, layout.ticks(3, 3))
    assert.are.equal("0.25", layout.format(0.25, 0.05))
    assert.are.equal("120", layout.format(120.0, 20))
  end)

  it("picks log ticks, adding 2 and 5 on short ranges", function()
    assert.are.same({ 1, 10, 100, 1000, 10000 }, layout.log_ticks(1, 1e4))
    assert.are.same({ 1, 2, 5, 10, 20, 50, 100 }, layout.log_ticks(1, 100))
    assert.are.same({ 20, 50, 100 }, layout.log_ticks(15, 150))
    assert.has_error(function() layout.log_ticks(0, 10) end, "log axis: lower end 0 must be positive")
  end)

  it("splits a rectangle into a grid of cells with gaps", function()
    local cells = layout.split({ x = 10, y = 20, w = 210, h = 100 }, 2, 2, 10)
    assert.are.equal(4, #cells)
    assert.are.same({ x = 10, y = 20, w = 100, h = 45 }, cells[1])
    assert.are.same({ x = 120, y = 20, w = 100, h = 45 }, cells[2])
    assert.are.same({ x = 10, y = 75, w = 100, h = 45 }, cells[3])
  end)

  it("maps data onto the plot, linear and log, and draws labelled axes", function()
    local cv = canvas.image(400, 300, "white")
    local s = layout.axes(cv, { x = 0, y = 0, w = 400, h = 300 },
      { x = { 0, 100, label = "time" }, y = { 1, 1000, log = true, label = "bytes" } })
    local p = s.plot
    assert.is_true(math.abs(s.x(0) - p.x) < 1e-9)
    assert.is_true(math.abs(s.x(100) - (p.x + p.w)) < 1e-9)
    assert.is_true(math.abs(s.x(50) - (p.x + p.w / 2)) < 1e-9)
    assert.is_true(math.abs(s.y(1) - (p.y + p.h)) < 1e-9)
    assert.is_true(math.abs(s.y(1000) - p.y) < 1e-9)
    assert.is_true(math.abs(s.y(10) - (p.y + p.h * 2 / 3)) < 1e-9)
    assert.are.same({ 1, 10, 100, 1000 }, s.yticks)
    -- the plot is inside the rectangle with room for labels on the left and below
    assert.is_true(p.x > 20 and p.y >= 0 and p.x + p.w <= 400 and p.y + p.h < 280)
    -- tick labels drawn left of the plot and below it; the plot itself is blank
    assert.is_true(inked(cv, 0, 0, math.floor(p.x) - 3, 299) > 50)
    assert.is_true(inked(cv, math.floor(p.x), math.ceil(p.y + p.h) + 3, 399, 299) > 50)
    assert.are.equal(0, inked(cv, math.ceil(p.x) + 2, math.ceil(p.y) + 2, math.floor(p.x + p.w) - 2, math.floor(p.y + p.h) - 2))
  end)

  it("draws a legend of swatches and labels and returns its size", function()
    local cv = canvas.image(200, 100, "white")
    local w, h = layout.legend(cv, 10, 10, { { "busy", "#00c000" }, { "idle", "#e00000" } }, { size = 10 })
    assert.are.equal(30, h) -- two lines of 1.5 x the font size
    assert.is_true(w > 20 and w < 80)
    assert.are.same({ 0, 192, 0, 255 }, { cv:get_pixel(15, 17) })
    assert.are.same({ 224, 0, 0, 255 }, { cv:get_pixel(15, 32) })
    assert.is_true(inked(cv, 22, 10, 10 + math.ceil(w), 39) > 20)
    local hw, hh = layout.legend(cv, 0, 60, { { "a", "red" }, { "b", "blue" } }, { horizontal = true })
    assert.are.equal(15, hh)
    assert.is_true(hw > 2 * 10)
  end)

  it("returns the inside of a titled panel", function()
    local cv = canvas.image(200, 100, "white")
    local inner = layout.panel(cv, { x = 0, y = 0, w = 200, h = 100 }, "Title", { size = 12, padding = 4 })
    assert.are.same({ x = 4, y = 20, w = 192, h = 76 }, inner)
    assert.is_true(inked(cv, 2, 2, 100, 18) > 20) -- the title
    assert.are.equal(0, inked(cv, 4, 20, 195, 95))
  end)

  it("composes several displays in one frame, each clipped to its panel", function()
    local cv = canvas.image(200, 100, "white")
    local seen = {}
    local inners = layout.compose(cv, { x = 0, y = 0, w = 200, h = 100 }, 2, 1, {
      { title = "left", draw = function(c, r, k) seen[k] = r; c:rect(-50, -50, 500, 500, "red") end },
      { title = "right", draw = function(c, r) c:rect(r.x, r.y, r.w, r.h, "blue") end },
    }, { gap = 10, size = 10, padding = 4 })
    assert.are.same(inners[1], seen[1])
    assert.are.same({ x = 4, y = 18, w = 87, h = 78 }, inners[1])
    assert.are.same({ 255, 0, 0, 255 }, { cv:get_pixel(40, 50) })
    assert.are.same({ 0, 0, 255, 255 }, { cv:get_pixel(150, 50) })
    assert.are.same({ 255, 255, 255, 255 }, { cv:get_pixel(100, 50) }) -- the gap: red stayed in its panel
    assert.has_error(function() layout.compose(cv, { x = 0, y = 0, w = 10, h = 10 }, 1, 1, { {}, {} }) end,
      "layout: 2 displays do not fit in 1 x 1 cells")
  end)

  it("scrolls a time window by jumps or smoothly", function()
    local w = layout.time_window(100)
    assert.are.same({ 0, 100 }, { w:update(50) })
    assert.are.same({ 0, 100 }, { w:update(100) })
    assert.are.same({ 100, 200 }, { w:update(101) })
    assert.are.same({ 400, 500 }, { w:update(450) })
    local s = layout.time_window(100, { mode = "smooth" })
    assert.are.same({ 0, 100 }, { s:update(60) })
    assert.are.same({ 30, 130 }, { s:update(130) })
    assert.has_error(function() layout.time_window(-1) end, "time window: width -1 must be positive")
    assert.has_error(function() layout.time_window(10, { mode = "wobble" }) end,
      "time window mode 'wobble': use 'jump' or 'smooth'")
  end)
end)
