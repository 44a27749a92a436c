--- Pieces shared by the SHMAP displays: panel titles, the look of the canvases,
-- and the context every display reads (made by retrace.displays.shmap.frame).
local M = {}

M.title_size = 12      -- panel titles
M.text_size = 11       -- labels inside panels
M.title_h = 18         -- height of a panel's title strip
M.label_h = 14         -- height of a line of labels
M.canvas_bg = require("retrace.colors").background("processors") -- memory, cache, histogram canvases
M.frame_bg = "#ffffff"
M.ink = "#000000"
M.muted = "#555555"
M.region_border = "#606060"

--- The rectangle below a panel's title strip.
function M.inner(r)
  return { x = r.x, y = r.y + M.title_h, w = r.w, h = math.max(1, r.h - M.title_h) }
end

-- Width of s in the given size (bold or not).
local function width(cv, s, size, bold)
  cv:save()
  cv:font(nil, size, bold)
  local w = cv:text_size(s)
  cv:restore()
  return w
end
M.width = width

--- Draw a panel's title, and a note after it in plain text when the note fits in
-- the panel's width (the title is cut at the panel's edge).
function M.title(cv, r, text, note)
  cv:save()
  cv:clip_rect(r.x, r.y, r.w, M.title_h)
  local w = cv:text(r.x, r.y + 2, text, { valign = "top", size = M.title_size, bold = true, color = M.ink })
  if note and note ~= "" and r.x + w + 8 + width(cv, note, M.text_size) <= r.x + r.w then
    cv:text(r.x + w + 8, r.y + 3, note, { valign = "top", size = M.text_size, color = M.muted })
  end
  cv:restore()
end

--- Palette index of PE p at shade s for K shades.
function M.pe_index(p, s, shades) return p * (shades + 1) + s end

--- A number with thousands grouped by thin spaces (12 345 678).
function M.count(n)
  local s = string.format("%d", n)
  local out = s:reverse():gsub("(%d%d%d)", "%1 "):reverse()
  return (out:gsub("^ ", ""))
end

--- A count in at most 7 characters: grouped below 100 000, then 123.4k, 12.35M, 1.235G.
function M.short(n)
  if n < 100000 then return M.count(n) end
  for _, u in ipairs({ { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }) do
    if n >= u[1] then
      local v = n / u[1]
      return (v >= 100 and string.format("%.1f", v) or string.format("%.4g", v)) .. u[2]
    end
  end
end

--- A compact trace time: up to 5 significant digits.
function M.time(t) return string.format("%.5g", t) end

return M
