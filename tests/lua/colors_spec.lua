local colors = require "retrace.colors"

local function luminance(hex)
  local r, g, b = colors.parse(hex)
  return 0.299 * r + 0.587 * g + 0.114 * b
end

describe("retrace.colors", function()
  after_each(function() colors.set_mode("color") end)

  it("parses names, hex forms and tables", function()
    assert.are.same({ 1, 0, 0, 1 }, { colors.parse("red") })
    assert.are.same({ 1, 0, 0, 1 }, { colors.parse("RED") })
    assert.are.same({ 0x46 / 255, 0x82 / 255, 0xb4 / 255, 1 }, { colors.parse("#4682b4") })
    assert.are.same({ 1, 1, 0, 1 }, { colors.parse("#ff0") })
    assert.are.same({ 0, 0, 0, 0x80 / 255 }, { colors.parse("#00000080") })
    assert.are.same({ 0.1, 0.2, 0.3, 0.4 }, { colors.parse({ 0.1, 0.2, 0.3, 0.4 }) })
    assert.are.same({ 0.5, 0.5, 0.5, 1 }, { colors.parse(0.5) })
    assert.are.equal("#4682b4", colors.hex("steelblue"))
    assert.are.equal("#00000080", colors.hex("#00000080"))
  end)

  it("names the problem with a bad colour", function()
    assert.has_error(function() colors.parse("blurple") end, "unknown colour name 'blurple'")
    assert.has_error(function() colors.parse("#12345") end,
      "bad colour '#12345': use a name, #rgb, #rrggbb or #rrggbbaa")
    assert.has_error(function() colors.parse(true) end, "colour expected, got boolean")
    assert.has_error(function() colors.set_mode("sepia") end, "colour mode 'sepia': use 'color' or 'gray'")
  end)

  it("builds the processor palette with shade blocks", function()
    for _, n in ipairs({ 4, 16, 64 }) do
      local pal = colors.processors(n, { shades = 5 })
      assert.are.equal(n * 6, #pal)
      local seen = {}
      for p = 0, n - 1 do
        local key = table.concat({ pal:get(pal:pe(p, 0)) }, ",")
        assert.is_nil(seen[key], "colour repeated: " .. key)
        seen[key] = true
        local prev = math.huge
        for s = 0, 5 do
          local r, g, b = pal:get(pal:pe(p, s))
          assert.is_true(r + g + b < prev)
          prev = r + g + b
        end
        local r, g, b = pal:get(pal:pe(p, 5))
        assert.is_true(math.max(r, g, b) <= 255 // 6 + 1)
      end
    end
    local pal = colors.processors(7, { shades = 2 })
    assert.are.same({ { "PE 0", "#0000ff" }, { "PE 1", "#ff00ff" }, { "PE 2", "#ff0000" } },
      { table.unpack(colors.processor_legend(pal), 1, 3) })
    assert.are.equal(7, #colors.processor_legend(pal))
    assert.are.equal("#ffffff", pal:hex(pal:pe(6)))
    -- block layout: processor p, shade s is entry p * (shades + 1) + s
    assert.are.same({ 0, 2, 3, 20 }, { pal:pe(0), pal:pe(0, 2), pal:pe(1), pal:pe(6, 2) })
    assert.has_error(function() pal:pe(7) end, "pal:pe: processor 7 outside 0..6")
    assert.has_error(function() pal:pe(0, 3) end, "pal:pe: shade 3 outside 0..2")
    assert.has_error(function() colors.palette({ "red" }):pe(0) end,
      "pal:pe: not a processor palette (make it with colors.processors)")
    assert.has_error(function() colors.processors(300) end,
      "processor palette: 300 processors, must be 1 to 256")
  end)

  it("gives traffic-light states, six recycled task colours and message-size classes", function()
    assert.are.equal("#00c000", colors.state("busy"))
    assert.are.equal("#e0b000", colors.state("overhead"))
    assert.are.equal("#e00000", colors.state("idle"))
    assert.has_error(function() colors.state("asleep") end, "unknown utilization state 'asleep'")
    local six = {}
    for t = 0, 5 do six[colors.task(t)] = true end
    local count = 0
    for _ in pairs(six) do count = count + 1 end
    assert.are.equal(6, count)
    assert.are.equal(colors.task(2), colors.task(8))
    assert.are.equal(colors.task(5), colors.task(-1))
    local c1, k1 = colors.message_size(1)
    local c2, k2 = colors.message_size(16)
    local c3, k3 = colors.message_size(17)
    local _, kbig = colors.message_size(1e9)
    assert.are.same({ 1, 1, 2, 7 }, { k1, k2, k3, kbig })
    assert.are.equal(c1, c2)
    assert.are_not.equal(c2, c3)
    local legend = colors.message_size_legend()
    assert.are.equal(7, #legend)
    assert.are.same({ "<= 16 B", c1 }, legend[1])
    assert.are.equal("> 16 KiB", legend[7][1])
  end)

  it("has a monochrome mode for every palette, with distinct greys", function()
    colors.set_mode("gray")
    local function is_gray(hex)
      local r, g, b = colors.parse(hex)
      return r == g and g == b
    end
    local levels = {}
    for _, s in ipairs(colors.state_names) do
      assert.is_true(is_gray(colors.state(s)))
      levels[#levels + 1] = luminance(colors.state(s))
    end
    assert.is_true(levels[1] < levels[2] and levels[2] < levels[3]) -- busy darkest
    local seen = {}
    for t = 0, 5 do
      assert.is_true(is_gray(colors.task(t)))
      assert.is_nil(seen[colors.task(t)])
      seen[colors.task(t)] = true
    end
    local prev = 2
    for _, item in ipairs(colors.message_size_legend()) do
      assert.is_true(is_gray(item[2]))
      assert.is_true(luminance(item[2]) < prev) -- bigger messages darker
      prev = luminance(item[2])
    end
    local pal = colors.processors(8, { shades = 2 })
    for i = 0, #pal - 1 do
      local r, g, b = pal:get(i)
      assert.is_true(r == g and g == b)
    end
    local ramp = colors.ramp(5)
    for i = 0, 4 do
      local r, g, b = ramp:get(i)
      assert.is_true(r == g and g == b)
    end
    assert.are.equal("#4c4c4c", colors.to_gray("red"))
    assert.are.equal("#4c4c4c", colors.ink("red"))
    colors.set_mode("color")
    assert.are.equal("red", colors.ink("red"))
    assert.are.equal("black", colors.contrast("yellow"))
    assert.are.equal("white", colors.contrast("navy"))
  end)

  it("computes WCAG contrast ratios", function()
    assert.are.equal(21, colors.contrast_ratio("black", "white"))
    assert.are.equal(1, colors.contrast_ratio("#808080", "gray"))
    -- pure blue: luminance 0.0722, so (0.0722 + 0.05) / 0.05 against black
    assert.is_true(math.abs(colors.contrast_ratio("#0000ff", "black") - 2.444) < 1e-3)
    assert.are.equal(colors.contrast_ratio("red", "white"), colors.contrast_ratio("white", "red"))
    assert.are.equal("#000000", colors.background("processors"))
    assert.are.equal("#ffffff", colors.background("messages"))
    assert.has_error(function() colors.background("bananas") end,
      "unknown palette family 'bananas' (processors, states, tasks, messages)")
  end)

  for _, mode in ipairs({ "color", "gray" }) do
    it("keeps every mark visible on its family's background in " .. mode .. " mode (ratio >= 1.5)", function()
      colors.set_mode(mode)
      local low = {}
      local function check(family, what, c)
        local r = colors.contrast_ratio(c, colors.background(family))
        if r < 1.5 then low[#low + 1] = string.format("%s %s %s: %.2f", family, what, c, r) end
      end
      for _, n in ipairs({ 4, 16, 64 }) do
        local pal = colors.processors(n, { shades = 4 })
        for p = 0, n - 1 do check("processors", n .. "/" .. p, pal:hex(pal:pe(p))) end
      end
      for _, s in ipairs(colors.state_names) do check("states", s, colors.state(s)) end
      for t = 0, 5 do check("tasks", t, colors.task(t)) end
      for _, item in ipairs(colors.message_size_legend()) do check("messages", item[1], item[2]) end
      assert.are.same({}, low)
      -- and the colours a family shows side by side stay apart from each other
      for _, t in ipairs({ 0, 1, 2, 3, 4 }) do
        assert.is_true(colors.contrast_ratio(colors.task(t), colors.task(t + 1)) > 1.1)
      end
    end)
  end

  it("makes ramps through colour stops", function()
    local pal = colors.ramp(3, { "black", "white" })
    assert.are.same({ 0, 0, 0, 255 }, { pal:get(0) })
    assert.are.same({ 128, 128, 128, 255 }, { pal:get(1) })
    assert.are.same({ 255, 255, 255, 255 }, { pal:get(2) })
  end)
end)
