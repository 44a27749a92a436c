-- The palettes every display family shares, each on its family's background,
-- in colour (left) and gray mode (right), with the WCAG contrast ratio of every
-- mark against its background (at least 1.5 everywhere; tests/lua/colors_spec.lua).
--   retrace render examples/canvas/palettes.lua -o /tmp/palettes
local colors = require "retrace.colors"

local W, H = 1180, 500

-- One row of labelled swatches on the family's background; returns the row height.
local function swatches(cv, x, y, w, family, title, items)
  local bg = colors.background(family)
  local fg = colors.contrast(bg)
  local n = #items
  local sw = math.min(72, (w - 16) / n)
  local h = 74
  cv:rect(x, y, w, h, { fill = bg, stroke = "#808080", width = 0.5 })
  cv:text(x + 6, y + 4, title .. " (background " .. bg .. ")", { valign = "top", size = 11, color = fg })
  for i, it in ipairs(items) do
    local sx = x + 8 + (i - 1) * sw
    cv:rect(sx, y + 20, sw - 4, 18, it[2])
    cv:text(sx + (sw - 4) / 2, y + 41, it[1], { align = "center", valign = "top", size = 9, color = fg })
    cv:text(sx + (sw - 4) / 2, y + 54, string.format("%.1f", colors.contrast_ratio(it[2], bg)),
      { align = "center", valign = "top", size = 9, color = "#606060" })
  end
  return h + 8
end

-- Processor colours of P processors as one strip of thin swatches, and, for the
-- first few, their fade toward the background (pal:pe(p, shade)).
local function processors(cv, x, y, w, p)
  local bg = colors.background("processors")
  local pal = colors.processors(p, { shades = 4 })
  local h = 50
  cv:rect(x, y, w, h, { fill = bg, stroke = "#808080", width = 0.5 })
  local lowest = math.huge
  for i = 0, p - 1 do lowest = math.min(lowest, colors.contrast_ratio(pal:hex(pal:pe(i)), bg)) end
  cv:text(x + 6, y + 4, string.format("%d processors, shades fading to the background (lowest ratio %.2f)", p, lowest),
    { valign = "top", size = 11, color = "white" })
  local sw = (w - 16) / p
  for i = 0, p - 1 do
    for s = 0, 4 do
      cv:rect(x + 8 + i * sw, y + 20 + s * 5, math.max(1, sw - (p <= 16 and 3 or 0)), 5, pal:hex(pal:pe(i, s)))
    end
  end
  return h + 8
end

local function column(cv, x, y, w, mode)
  colors.set_mode(mode)
  cv:text(x, y, mode == "gray" and "gray mode" or "colour mode", { valign = "top", size = 16, bold = true, color = "black" })
  y = y + 26
  for _, p in ipairs({ 4, 16, 64 }) do y = y + processors(cv, x, y, w, p) end
  local states = {}
  for i, s in ipairs(colors.state_names) do states[i] = { s, colors.state(s) } end
  y = y + swatches(cv, x, y, w, "states", "utilization states", states)
  local tasks = {}
  for t = 0, 5 do tasks[t + 1] = { "task " .. t, colors.task(t) } end
  y = y + swatches(cv, x, y, w, "tasks", "tasks (recycled mod 6)", tasks)
  y = y + swatches(cv, x, y, w, "messages", "message sizes", colors.message_size_legend())
  colors.set_mode("color")
  return y
end

local function draw(cv)
  cv:text(16, 12, "retrace palettes: every mark on its family's background (number: contrast ratio)",
    { valign = "top", size = 18, bold = true, color = "black" })
  column(cv, 16, 48, (W - 48) / 2, "color")
  column(cv, 32 + (W - 48) / 2, 48, (W - 48) / 2, "gray")
end

return { width = W, height = H, frames = 1, title = "retrace palettes", background = "#f4f4f4", draw = draw }
