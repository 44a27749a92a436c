--- Picture of a semi-Markov chain: states on a circle in order of first appearance,
-- each boxed with its mean and variance of occupancy time; arcs curved, labelled with
-- their probability (unlabelled when 100%); composite definitions listed underneath.
--   local v = require "retrace.displays.chitra.chain"
--   v.draw(cv, chain, {x, y, w, h}); v.render(chain, "chain.png" | ".pdf" | ".svg")
-- The data behind it is chain:to_table() and chain:definitions() (retrace.chitra.chain).
local plot = require "retrace.displays.chitra.plot"
local chain_mod = require "retrace.chitra.chain"

local M = {}

local BOX_H = 48

local function box_w(s)
  local longest = math.max(#s.name * 8 + 8, #("mean " .. chain_mod.number(s.mean)) * 7,
    #("var " .. chain_mod.number(s.var)) * 7)
  return math.max(64, longest + 12)
end

-- where the ray from the box centre toward (tx, ty) leaves the box
local function border(cx, cy, w, h, tx, ty)
  local dx, dy = tx - cx, ty - cy
  if dx == 0 and dy == 0 then return cx, cy end
  local sx = dx ~= 0 and (w / 2) / math.abs(dx) or math.huge
  local sy = dy ~= 0 and (h / 2) / math.abs(dy) or math.huge
  local s = math.min(sx, sy)
  return cx + dx * s, cy + dy * s
end

local function arrow(cv, x, y, dx, dy, color)
  local len = math.sqrt(dx * dx + dy * dy)
  if len == 0 then return end
  dx, dy = dx / len, dy / len
  local a, b = 10, 4.5
  cv:polygon({ x, y, x - a * dx + b * dy, y - a * dy - b * dx, x - a * dx - b * dy, y - a * dy + b * dx }, color)
end

--- Positions of the states: {name = {x, y, w, h}} (the layout, also returned as data).
function M.layout(chain, box)
  local x, y, w, h = box[1], box[2], box[3], box[4]
  local n = #chain.states
  local cx, cy = x + w / 2, y + h / 2
  local r = math.max(0, math.min(w, h) / 2 - 80)
  local pos = {}
  for i, s in ipairs(chain.states) do
    local a = -math.pi / 2 + 2 * math.pi * (i - 1) / math.max(n, 1)
    pos[s.name] = { n == 1 and cx or cx + r * math.cos(a), n == 1 and cy or cy + r * math.sin(a),
                    box_w(s), BOX_H }
  end
  return pos
end

function M.draw(cv, chain, box, opts)
  opts = opts or {}
  local defs = chain:definitions()
  local names = {}
  for n in pairs(defs) do names[#names + 1] = n end
  table.sort(names)
  local legend = #names * 16 + (#names > 0 and 24 or 0)
  local x, y, w, h = box[1], box[2], box[3], box[4]
  cv:text(x + w / 2, y + 8, opts.title or "Semi-Markov chain", { align = "center", valign = "top", size = 14, bold = true })
  local pos = M.layout(chain, { x, y + 30, w, h - 30 - legend })
  local has_back = {}
  for _, a in ipairs(chain.arcs) do has_back[a.from .. "\0" .. a.to] = true end
  for _, a in ipairs(chain.arcs) do
    local p, q = pos[a.from], pos[a.to]
    local label = a.p < 1 and chain_mod.percent(a.p) or nil
    if a.from == a.to then
      local lx, ly = p[1], p[2] - p[4] / 2
      cv:arc_path(lx, ly - 12, 12, 150, 390, { color = "dimgray", width = 1.3 })
      arrow(cv, lx + 10, ly - 2, -2, 8, "dimgray")
      if label then cv:text(lx, ly - 28, label, { align = "center", valign = "bottom", size = 10 }) end
    else
      local bend = has_back[a.to .. "\0" .. a.from] and 0.18 or 0.08
      local x1, y1 = border(p[1], p[2], p[3], p[4], q[1], q[2])
      local x2, y2 = border(q[1], q[2], q[3], q[4], p[1], p[2])
      local mx, my = (x1 + x2) / 2, (y1 + y2) / 2
      local dx, dy = x2 - x1, y2 - y1
      local cx, cy = mx + dy * bend, my - dx * bend -- control point, bulging to the left
      cv:new_path()
      cv:move_to(x1, y1)
      cv:curve_to(x1 + 2 / 3 * (cx - x1), y1 + 2 / 3 * (cy - y1),
                  x2 + 2 / 3 * (cx - x2), y2 + 2 / 3 * (cy - y2), x2, y2)
      cv:line_width(1.3)
      cv:color("dimgray")
      cv:stroke()
      arrow(cv, x2, y2, x2 - cx, y2 - cy, "dimgray")
      if label then
        local lx, ly = 0.25 * x1 + 0.5 * cx + 0.25 * x2, 0.25 * y1 + 0.5 * cy + 0.25 * y2
        cv:text(lx, ly, label, { align = "center", valign = "middle", size = 10, color = "darkblue" })
      end
    end
  end
  cv:color("black")
  for _, s in ipairs(chain.states) do
    local p = pos[s.name]
    local bx, by = p[1] - p[3] / 2, p[2] - p[4] / 2
    local fill = chain.other == s.name and "#eeeeee" or (defs[s.name] and "#fff3d6" or "#e8f0fa")
    cv:rect(bx, by, p[3], p[4], { fill = fill, stroke = "black", width = 1 })
    cv:text(p[1], by + 4, s.name, { align = "center", valign = "top", size = 12, bold = true })
    cv:text(p[1], by + 21, "mean " .. chain_mod.number(s.mean), { align = "center", valign = "top", size = 10 })
    cv:text(p[1], by + 34, "var " .. chain_mod.number(s.var), { align = "center", valign = "top", size = 10 })
  end
  local ly = y + h - legend + 16
  for _, n in ipairs(names) do
    local parts = {}
    for i, d in ipairs(defs[n]) do
      if i > 3 then parts[#parts + 1] = "..." break end
      parts[#parts + 1] = table.concat(d, ", ")
    end
    local line = n .. " = " .. table.concat(parts, "  |  ")
    local fit = math.floor((w - 32) / 6.6) -- about 6.6 units per character at size 11
    if #line > fit then line = line:sub(1, fit - 3) .. "..." end
    cv:text(x + 16, ly, line, { valign = "top", size = 11 })
    ly = ly + 16
  end
  return pos
end

--- Draw the chain into a file (.png, .pdf, .svg). Returns the layout or nil, message.
function M.render(chain, path, opts)
  opts = opts or {}
  local ndefs = 0
  for _ in pairs(chain:definitions()) do ndefs = ndefs + 1 end
  local size = math.max(600, math.min(1600, 160 + 70 * #chain.states))
  local w, h = opts.width or size, opts.height or size + ndefs * 16
  local pos
  local ok, why = plot.to_file(path, w, h, function(cv, box) pos = M.draw(cv, chain, box, opts) end)
  if not ok then return nil, why end
  return pos
end

return M
