-- colors.processors_paper: the processor palette for white paper.
local colors = require "retrace.colors"

describe("colors.processors_paper", function()
  after_each(function() colors.set_mode("color") end)

  it("has no white or pale colour: pure colours keep contrast 3 with white, shades 1.5", function()
    for _, n in ipairs({ 1, 2, 3, 4, 7, 16, 64, 256 }) do
      local pal = colors.processors_paper(n, { shades = 4 })
      assert.equals(n * 5, #pal)
      for p = 0, n - 1 do
        local pure = pal:hex(pal:pe(p))
        assert.is_true(colors.contrast_ratio(pure, "#ffffff") >= 2.95,
          string.format("n=%d PE %d %s", n, p, pure))
        -- near-white means every channel high: some channel stays low
        local r, g, b = colors.parse(pure)
        assert.is_true(math.min(r, g, b) < 0.5, pure)
        for s = 1, 4 do
          local c = pal:hex(pal:pe(p, s))
          assert.is_true(colors.contrast_ratio(c, "#ffffff") >= 1.45, string.format("n=%d PE %d shade %d %s", n, p, s, c))
        end
      end
    end
  end)

  it("gives distinct processors, each shade paler than the one before", function()
    for _, n in ipairs({ 4, 16, 256 }) do
      local pal = colors.processors_paper(n, { shades = 3 })
      local seen = {}
      for p = 0, n - 1 do
        local key = pal:hex(pal:pe(p))
        assert.is_nil(seen[key], "colour repeated: " .. key)
        seen[key] = true
        local prev = 0
        for s = 0, 3 do
          local r, g, b = colors.parse(pal:hex(pal:pe(p, s)))
          assert.is_true(r + g + b > prev, "shade " .. s .. " of PE " .. p)
          prev = r + g + b
        end
      end
    end
  end)

  it("runs blue to purple, and PE 3 of 4 (white on the black palette) is a strong colour", function()
    local pal = colors.processors_paper(4)
    local r, g, b = colors.parse(pal:hex(pal:pe(0)))
    assert.is_true(b > 0.9 and r < 0.05 and g < 0.05, pal:hex(pal:pe(0)))
    -- the black canvas palette's last processor is white; this one is not
    local black = colors.processors(4)
    assert.equals("#ffffff", black:hex(black:pe(3)))
    assert.is_true(colors.contrast_ratio(pal:hex(pal:pe(3)), "#ffffff") >= 2.95)
    -- hue 240 - 300 = -60: purple (red and blue, no green)
    r, g, b = colors.parse(pal:hex(pal:pe(3)))
    assert.is_true(r > 0.3 and b > 0.3 and g < 0.05, pal:hex(pal:pe(3)))
    local legend = colors.processor_legend(pal)
    assert.same({ "PE 0", pal:hex(pal:pe(0)) }, legend[1])
    assert.equals(4, #legend)
  end)

  it("is grey in gray mode, from black to #767676", function()
    colors.set_mode("gray")
    local pal = colors.processors_paper(4)
    assert.equals("#000000", pal:hex(pal:pe(0)))
    assert.equals("#767676", pal:hex(pal:pe(3)))
    for p = 0, 3 do
      local r, g, b = colors.parse(pal:hex(pal:pe(p)))
      assert.is_true(r == g and g == b)
    end
  end)

  it("refuses a processor count outside 1..256", function()
    assert.has_error(function() colors.processors_paper(0) end, "processors_paper: processor count 0 outside 1..256")
    assert.has_error(function() colors.processors_paper(257) end)
  end)
end)
