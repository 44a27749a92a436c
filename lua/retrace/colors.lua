--- retrace.colors: colour names and parsing, and the palettes displays share.
--
--   colors.parse("steelblue") / ("#4682b4") / ("#4682b480") / ({0.2, 0.4, 0.6[, a]})
--     -> r, g, b, a (0..1); an unknown name raises "unknown colour name 'x'"
--   colors.processors(n [, {shades = 8, decay = auto, gray = false}]) -> C palette;
--     pal:pe(p, shade) is the entry of processor p (0-based) at shade (0 = pure)
--   colors.processors_paper(n [, {shades = 8, gray = false}]) -> the same for white paper
--   colors.state("busy" | "overhead" | "idle"), colors.task(n), colors.message_size(bytes)
--   colors.background(family) -> the background a family's colours are drawn on
--   colors.contrast_ratio(a, b) -> WCAG 2 contrast ratio (1..21)
--   colors.set_mode("gray") makes every palette here monochrome (for printing);
--   colors.set_mode("color") restores colour.
--
-- Backgrounds. Every colour of a family stands out from that family's background
-- by a WCAG contrast ratio of at least 1.5, in colour and in gray mode (tested in
-- tests/lua/colors_spec.lua):
--   processors  black. The processor ramp runs from blue to pure white and every
--               shade fades toward black, so memory canvases (SHMAP, MemSpy) are
--               drawn on black: the last processor is white on black, and a
--               fading cell fades into the background, as in SHMAP's animation.
--               No light background would do: green, aqua and white, which the
--               ramp must pass through to stay distinct at 256 processors, all
--               read below 1.5 on white.
--   processors on paper  white: colors.processors_paper, for charts a user draws
--               on white; every pure colour keeps a contrast of 3 with white.
--   states, tasks, messages  white (Gantt charts, utilization, space-time).
--               Their colours are dark enough for white (gold and yellow are
--               darkened), and their greys run from black to #b4b4b4, never to
--               white: in gray mode small messages and idle time stay visible.
local canvas_core = require("retrace.core").canvas

local M = {}

--- Palette entry i (0-based) as "#rrggbb" (or "#rrggbbaa" when not opaque),
-- usable wherever a colour is (legends, styles).
function canvas_core.palette_methods.hex(pal, i)
  local r, g, b, a = pal:get(i)
  local s = string.format("#%02x%02x%02x", r, g, b)
  if a < 255 then s = s .. string.format("%02x", a) end
  return s
end

--- The named colours: the CSS basic set plus the ones displays use.
M.names = {
  black = "#000000", white = "#ffffff", gray = "#808080", grey = "#808080",
  silver = "#c0c0c0", lightgray = "#d3d3d3", darkgray = "#404040", dimgray = "#696969",
  red = "#ff0000", maroon = "#800000", green = "#00a000", lime = "#00ff00",
  darkgreen = "#006400", blue = "#0000ff", navy = "#000080", yellow = "#ffff00",
  gold = "#ffd700", orange = "#ffa500", purple = "#800080", magenta = "#ff00ff",
  fuchsia = "#ff00ff", cyan = "#00ffff", aqua = "#00ffff", teal = "#008080",
  olive = "#808000", brown = "#8b4513", pink = "#ffc0cb", steelblue = "#4682b4",
  lightblue = "#add8e6", skyblue = "#87ceeb", darkblue = "#00008b", crimson = "#dc143c",
  violet = "#ee82ee", indigo = "#4b0082", tomato = "#ff6347", wheat = "#f5deb3",
  ivory = "#fffff0", beige = "#f5f5dc", transparent = "#00000000", none = "#00000000",
}

M.mode = "color"

--- "color" (default) or "gray": monochrome versions of every palette below.
function M.set_mode(mode)
  if mode ~= "color" and mode ~= "gray" then
    error("colour mode '" .. tostring(mode) .. "': use 'color' or 'gray'", 2)
  end
  M.mode = mode
end

local function hexbyte(s, i) return tonumber(s:sub(i, i + 1), 16) / 255 end

-- Parsed colour strings, so displays can name colours in hot loops (emptied
-- when it grows past a few thousand, for scripts that make colours on the fly).
local parsed, nparsed = {}, 0

--- Parse a colour; returns r, g, b, a in 0..1. level: the error level (for messages
-- that point at the caller's line).
function M.parse(c, level)
  level = (level or 1) + 1
  local t = type(c)
  if t == "table" then
    local r, g, b, a = c[1] or c.r, c[2] or c.g, c[3] or c.b, c[4] or c.a or 1
    if type(r) ~= "number" or type(g) ~= "number" or type(b) ~= "number" then
      error("colour table needs three numbers {r, g, b [, a]} in 0..1", level)
    end
    return r, g, b, a
  elseif t == "number" then
    return c, c, c, 1 -- a grey level
  elseif t ~= "string" then
    error("colour expected, got " .. t, level)
  end
  local hit = parsed[c]
  if hit then return hit[1], hit[2], hit[3], hit[4] end
  local s = c
  if s:sub(1, 1) ~= "#" then
    s = M.names[s:lower()]
    if not s then error("unknown colour name '" .. c .. "'", level) end
  end
  local hex = s:match("^#(%x+)$")
  if hex and #hex == 3 then
    hex = hex:gsub(".", "%0%0")
  end
  if not hex or (#hex ~= 6 and #hex ~= 8) then
    error("bad colour '" .. c .. "': use a name, #rgb, #rrggbb or #rrggbbaa", level)
  end
  local r, g, b, a = hexbyte(hex, 1), hexbyte(hex, 3), hexbyte(hex, 5), #hex == 8 and hexbyte(hex, 7) or 1
  if nparsed >= 4096 then parsed, nparsed = {}, 0 end
  parsed[c] = { r, g, b, a }
  nparsed = nparsed + 1
  return r, g, b, a
end

--- "#rrggbb" (or "#rrggbbaa" when not opaque) of any colour.
function M.hex(c)
  local r, g, b, a = M.parse(c, 2)
  local function byte(v) return math.floor(math.max(0, math.min(1, v)) * 255 + 0.5) end
  local s = string.format("#%02x%02x%02x", byte(r), byte(g), byte(b))
  if a < 1 then s = s .. string.format("%02x", byte(a)) end
  return s
end

--- The grey of the same luminance (Rec. 601 weights), as "#rrggbb".
function M.to_gray(c)
  local r, g, b, a = M.parse(c, 2)
  local y = 0.299 * r + 0.587 * g + 0.114 * b
  return M.hex({ y, y, y, a })
end

--- "black" or "white", whichever reads better on top of colour c.
function M.contrast(c)
  local r, g, b = M.parse(c, 2)
  return (0.299 * r + 0.587 * g + 0.114 * b) > 0.55 and "black" or "white"
end

--- c itself in colour mode, its grey in gray mode (for colours a display names itself).
function M.ink(c)
  if M.mode == "gray" then return M.to_gray(c) end
  return c
end

--- A C palette from a list of colours (entry i - 1 is list[i]).
function M.palette(list)
  local pal = canvas_core.palette(#list)
  for i, c in ipairs(list) do
    local r, g, b, a = M.parse(c, 2)
    pal:set(i - 1, math.floor(r * 255 + 0.5), math.floor(g * 255 + 0.5),
      math.floor(b * 255 + 0.5), math.floor(a * 255 + 0.5))
  end
  return pal
end

-- The layout of each processor palette made here: {n = processors, shades = k}.
local layouts = setmetatable({}, { __mode = "k" })

--- The processor palette: n distinguishable colours (1..256), each followed by
-- `shades` faded copies stepping every component down by `decay` toward black
-- (the background of memory canvases: M.background("processors")).
-- pal:pe(p, s) is the entry of processor p (0-based) at shade s (0 = pure).
function M.processors(n, opts)
  opts = opts or {}
  local gray = opts.gray
  if gray == nil then gray = M.mode == "gray" end
  local shades = opts.shades or 8
  local pal = canvas_core.processor_palette(n, shades, opts.decay or 0, gray)
  layouts[pal] = { n = n, shades = shades }
  return pal
end

--- Entry of processor p (0-based) at shade s (0 = pure, default; up to the
-- palette's shades) in a palette made by colors.processors.
function canvas_core.palette_methods.pe(pal, p, s)
  local l = layouts[pal]
  if not l then error("pal:pe: not a processor palette (make it with colors.processors)", 2) end
  s = s or 0
  if math.type(p) ~= "integer" or p < 0 or p >= l.n then
    error(string.format("pal:pe: processor %s outside 0..%d", tostring(p), l.n - 1), 2)
  end
  if math.type(s) ~= "integer" or s < 0 or s > l.shades then
    error(string.format("pal:pe: shade %s outside 0..%d", tostring(s), l.shades), 2)
  end
  return p * (l.shades + 1) + s
end

-- HSV (h in degrees, s and v in 0..1) -> r, g, b in 0..1.
local function hsv(h, s, v)
  h = (h % 360) / 60
  local i = math.floor(h)
  local f = h - i
  local p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
  local k = i % 6
  if k == 0 then return v, t, p elseif k == 1 then return q, v, p
  elseif k == 2 then return p, v, t elseif k == 3 then return p, q, v
  elseif k == 4 then return t, p, v else return v, p, q end
end

-- Contrast with white that every pure colour of the paper palette keeps (WCAG's
-- floor for graphics), and the one its palest shade keeps.
M.PAPER_CONTRAST, M.PAPER_SHADE_CONTRAST = 3.0, 1.5

--- The processor palette for white paper (charts, PDF pages, a light canvas), beside
-- colors.processors for black canvases: n colours (1..256) running by hue from blue
-- through cyan, green, olive, orange and red to purple, each as bright as it can be
-- while keeping a contrast of at least PAPER_CONTRAST (3) with white, so yellow
-- becomes dark gold and no processor is white or pale. Each colour is followed by
-- `shades` (default 8) copies fading toward white, the palest still at a contrast of
-- PAPER_SHADE_CONTRAST (1.5). Gray mode: greys from black to #767676.
-- pal:pe(p, s) and colors.processor_legend work as with colors.processors.
--   local pal = colors.processors_paper(4)   -- PE 0..3, none of them white
function M.processors_paper(n, opts)
  opts = opts or {}
  if math.type(n) ~= "integer" or n < 1 or n > 256 then
    error("processors_paper: processor count " .. tostring(n) .. " outside 1..256", 2)
  end
  local gray = opts.gray
  if gray == nil then gray = M.mode == "gray" end
  local shades = opts.shades or 8
  local list = {}
  for p = 0, n - 1 do
    local pure
    if gray then
      local y = n == 1 and 0 or p / (n - 1) * 0x76 / 255
      pure = { y, y, y }
    else
      -- hue 240 (blue) down to -60 (purple); the brightest value keeping the contrast
      local h = n == 1 and 240 or 240 - p / (n - 1) * 300
      local lo, hi = 0, 1
      for _ = 1, 30 do
        local v = (lo + hi) / 2
        if M.contrast_ratio({ hsv(h, 1, v) }, "#ffffff") >= M.PAPER_CONTRAST then lo = v else hi = v end
      end
      pure = { hsv(h, 1, lo) }
    end
    -- the palest shade: the mix toward white that keeps PAPER_SHADE_CONTRAST
    local lo, hi = 0, 1
    local function mix(f)
      return { pure[1] + (1 - pure[1]) * f, pure[2] + (1 - pure[2]) * f, pure[3] + (1 - pure[3]) * f }
    end
    for _ = 1, 30 do
      local f = (lo + hi) / 2
      if M.contrast_ratio(mix(f), "#ffffff") >= M.PAPER_SHADE_CONTRAST + 0.01 then lo = f else hi = f end
    end
    list[#list + 1] = pure
    for s = 1, shades do list[#list + 1] = mix(lo * s / shades) end
  end
  local pal = M.palette(list)
  layouts[pal] = { n = n, shades = shades }
  return pal
end

--- Legend items {{"PE 0", "#0000ff"}, ...}: the pure colour of every processor
-- of a palette made by colors.processors (label: a prefix, default "PE ").
function M.processor_legend(pal, label)
  local l = layouts[pal]
  if not l then error("processor_legend: not a processor palette (make it with colors.processors)", 2) end
  local items = {}
  for p = 0, l.n - 1 do
    items[p + 1] = { (label or "PE ") .. p, pal:hex(pal:pe(p)) }
  end
  return items
end

-- Background of each palette family (see the header); the same in gray mode.
local backgrounds = { processors = "#000000", states = "#ffffff", tasks = "#ffffff",
                      messages = "#ffffff" }
M.families = { "processors", "states", "tasks", "messages" }

--- The background colour a family's marks are drawn on ("processors",
-- "states", "tasks" or "messages").
function M.background(family)
  local b = backgrounds[family]
  if not b then
    error("unknown palette family '" .. tostring(family) .. "' (processors, states, tasks, messages)", 2)
  end
  return b
end

-- Relative luminance (WCAG 2) of a colour.
local function luminance(c)
  local r, g, b = M.parse(c, 3)
  local function lin(v) return v <= 0.04045 and v / 12.92 or ((v + 0.055) / 1.055) ^ 2.4 end
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
end

--- The WCAG 2 contrast ratio of two colours: 1 (same luminance) to 21 (black on white).
function M.contrast_ratio(a, b)
  local la, lb = luminance(a), luminance(b)
  if la < lb then la, lb = lb, la end
  return (la + 0.05) / (lb + 0.05)
end

-- Traffic-light utilization states: green go (busy), yellow caution
-- (overhead, a dark gold that reads on white), red stop (idle). Greys for
-- monochrome: darker is busier, and idle stays a visible light grey.
local states = {
  busy = { "#00c000", "#202020" },
  overhead = { "#e0b000", "#6c6c6c" },
  idle = { "#e00000", "#b4b4b4" },
}
M.state_names = { "busy", "overhead", "idle" }

--- Colour of a utilization state ("busy", "overhead" or "idle").
function M.state(name)
  local s = states[name]
  if not s then error("unknown utilization state '" .. tostring(name) .. "'", 2) end
  return M.mode == "gray" and s[2] or s[1]
end

-- Six task colours, recycled by task number mod 6; greys for monochrome.
local tasks = {
  { "#1f5fd0", "#000000" }, { "#e07000", "#242424" }, { "#009090", "#484848" },
  { "#c000c0", "#6c6c6c" }, { "#80b000", "#909090" }, { "#804000", "#b4b4b4" },
}

--- Colour of a task number (any integer): one of six, by number mod 6.
function M.task(n)
  local t = tasks[math.floor(n) % 6 + 1]
  return M.mode == "gray" and t[2] or t[1]
end

-- Message-size classes: upper bounds in bytes (inclusive), a label, a colour
-- running cool (small) to hot (large), and a grey running light (small) to
-- dark (large) that stops at #b4b4b4, so small messages stay visible on white.
M.message_size_classes = {
  { upto = 16, label = "<= 16 B", color = "#0000c0", gray = "#b4b4b4" },
  { upto = 64, label = "<= 64 B", color = "#0080ff", gray = "#9b9b9b" },
  { upto = 256, label = "<= 256 B", color = "#00c0c0", gray = "#838383" },
  { upto = 1024, label = "<= 1 KiB", color = "#00c000", gray = "#6a6a6a" },
  { upto = 4096, label = "<= 4 KiB", color = "#c8c800", gray = "#515151" },
  { upto = 16384, label = "<= 16 KiB", color = "#ff8000", gray = "#393939" },
  { upto = math.huge, label = "> 16 KiB", color = "#e00000", gray = "#202020" },
}

--- Colour and class number (1-based) of a message of `bytes` bytes.
function M.message_size(bytes)
  for i, c in ipairs(M.message_size_classes) do
    if bytes <= c.upto then return M.mode == "gray" and c.gray or c.color, i end
  end
end

--- The message-size colour code as legend items { {label, colour}, ... }.
function M.message_size_legend()
  local items = {}
  for i, c in ipairs(M.message_size_classes) do
    items[i] = { c.label, M.mode == "gray" and c.gray or c.color }
  end
  return items
end

--- A palette of n colours running evenly through the given stops (default: a
-- dark-blue -> cyan -> yellow -> red heat scale; grey in gray mode), for grids
-- drawn with a value range.
function M.ramp(n, stops)
  stops = stops or (M.mode == "gray" and { "#101010", "#f0f0f0" }
    or { "#000060", "#0060ff", "#00e0e0", "#f0f000", "#ff2000" })
  local rgb = {}
  for i, s in ipairs(stops) do rgb[i] = { M.parse(s, 2) } end
  local list = {}
  for i = 0, n - 1 do
    local t = n == 1 and 0 or i / (n - 1) * (#rgb - 1)
    local k = math.min(math.floor(t), #rgb - 2)
    local f = t - k
    local a, b = rgb[k + 1], rgb[math.min(k + 2, #rgb)]
    list[i + 1] = { a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f, a[3] + (b[3] - a[3]) * f }
  end
  return M.palette(list)
end

return M
