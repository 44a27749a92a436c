-- displays/memspy: the pictures of a MemSpy run say what they drew and where,
-- and the pixels there have the colours they should (colour and gray).
local H = require "helpers"
require "retrace"
local memspy = require "retrace.memspy"
local display = require "retrace.display"
local colors = require "retrace.colors"

local function rgb(hex)
  return tonumber(hex:sub(2, 3), 16), tonumber(hex:sub(4, 5), 16), tonumber(hex:sub(6, 7), 16)
end

local function near(hex, want, tol)
  local r, g, b = rgb(hex)
  local R, G, B = rgb(want)
  return math.abs(r - R) <= tol and math.abs(g - G) <= tol and math.abs(b - B) <= tol
end

describe("memspy displays", function()
  local path, run
  setup(function()
    local gen = assert(loadfile(H.source .. "/examples/memspy/figure2.lua"))("--module")
    path = os.tmpname() .. ".msp"
    gen.write(path)
    run = assert(memspy.run{ trace = path, size = 32768, ref_cycles = 0 })
  end)
  teardown(function()
    os.remove(path)
    colors.set_mode("color")
  end)

  it("heat map: cells where data() says, hottest cell darkest, blanks white, margins grey", function()
    local d = require("retrace.displays.memspy.matrix").new(nil, { run = run })
    local cv, data = display.image(d, 900, 600)
    assert.same({ "BlkMultiply", "main", "ClearProduct" }, data.rows)
    assert.equal(6, #data.cells)
    local hot = data.cells[1]
    assert.same({ "BlkMultiply", "Matrix.Y" }, { hot.row, hot.col })
    assert.equal("#7f0000", H.pixel_hex(cv, hot.x + 4, hot.y + 4))
    -- the blank (ClearProduct, Matrix.Y): column of Matrix.Y, row of ClearProduct
    local bx, by = data.col_total[1].x, data.row_total[3].y
    assert.equal("#ffffff", H.pixel_hex(cv, bx + 4, by + 4))
    assert.equal("#d9d9d9", H.pixel_hex(cv, data.row_total[1].x + 4, data.row_total[1].y + 4))
    assert.equal(97.5, tonumber(string.format("%.1f", data.row_total[1].value)))
    -- a cooler cell is lighter than the hottest
    local r1 = rgb(H.pixel_hex(cv, data.cells[2].x + 4, data.cells[2].y + 4))
    assert.is_true(r1 > 0x7f)
  end)

  it("heat map in gray mode: grey levels only, the hottest darkest", function()
    colors.set_mode("gray")
    local d = require("retrace.displays.memspy.matrix").new(nil, { run = run })
    local cv, data = display.image(d, 900, 600)
    colors.set_mode("color")
    local hot = H.pixel_hex(cv, data.cells[1].x + 4, data.cells[1].y + 4)
    local r, g, b = rgb(hot)
    assert.is_true(r == g and g == b and r < 0x40)
    local cool = H.pixel_hex(cv, data.cells[3].x + 4, data.cells[3].y + 4)
    local r2, g2, b2 = rgb(cool)
    assert.is_true(r2 == g2 and g2 == b2 and r2 > r)
  end)

  it("stacked causes: each cause's colour inside its segment", function()
    local d = require("retrace.displays.memspy.causes").new(nil, { run = run })
    local cv, data = display.image(d, 900, 600)
    assert.equal("Matrix.Y", data.bins[1].name)
    local y = data.bins[1]
    assert.same({ 92, 8710, 0 }, { y.first, y.replacement, y.invalidation })
    -- the middle of the replacement segment
    local px, py = display.to_pixel(data, y.x, y.first + y.replacement / 2)
    assert.equal("#f5a442", H.pixel_hex(cv, px, py))
    -- first references of Matrix.X (82 of 520): the bottom of its bar
    local x = data.bins[3]
    assert.equal("Matrix.X", x.name)
    px, py = display.to_pixel(data, x.x, x.first / 2)
    assert.equal("#3b75af", H.pixel_hex(cv, px, py))
  end)

  it("flow of replacements: band widths follow the counts", function()
    local d = require("retrace.displays.memspy.flow").new(nil, { run = run })
    local cv, data = display.image(d, 900, 600)
    assert.equal(9934, data.total)
    assert.equal("Matrix.Y", data.left[1].name)
    local yy
    for _, f in ipairs(data.flows) do
      if f.from == "Matrix.Y" and f.to == "Matrix.Y" then yy = f end
    end
    assert.equal(7839, yy.count)  -- Figure 3: Matrix.Y evicted by Matrix.Y
    -- its share of the left node's height is its share of Matrix.Y's evictions
    local node = data.left[1]
    assert.near(yy.count / node.total, (yy.y1 - yy.y0) / node.h, 1e-9)
    -- the band's middle: the evictor's colour at alpha 0.55 over white
    local mx, my = (yy.x0 + yy.x1) / 2, (yy.y0 + yy.y1 + yy.z0 + yy.z1) / 4
    assert.is_true(near(H.pixel_hex(cv, mx, my), "#84b4d6", 3))
  end)

  it("retrace memspy --plots writes the three pictures and their data", function()
    local dir = H.temp_dir()
    local code = H.retrace("memspy", path, "--size", "32K", "--ref-cycles", "0", "--plots", dir)
    assert.equal(0, code)
    for _, n in ipairs({ "matrix", "causes", "replacements" }) do
      assert.truthy(io.open(dir .. "/" .. n .. ".png"))
      local j = require("cjson").decode(H.slurp(dir .. "/" .. n .. ".json"))
      assert.is_table(j)
    end
    H.remove_tree(dir)
  end)
end)
