--- ParaGraph hypercube: the animation on layouts that show the networks a
-- hypercube embeds: cube, tesseract, polytope, mesh, ring, linear, tree. The
-- hypercube's links (processors whose numbers differ in one bit) are drawn
-- faintly; a message between such neighbours is a solid straight line
-- (physical link), any other a dashed curve (virtual link, routed through
-- others). Colours: the message-size code. At the end: every pair used.
local colors = require "retrace.colors"
local pg = require "retrace.paragraph"
local animation = require "retrace.displays.paragraph.animation"

local M = {}
local D = {}
D.__index = D

M.layouts = { "cube", "tesseract", "polytope", "mesh", "ring", "linear", "tree" }

function M.new(ctx, opts)
  local P = ctx.P
  local layout = ctx.layout or (P <= 8 and "cube" or P <= 16 and "tesseract" or "mesh")
  return setmetatable({ ctx = ctx, opts = opts or {}, layout = layout }, D)
end

-- the animation's update and finish (node states, pending and used links)
D.update = animation.class.update
D.finish = animation.class.finish

local function dims(P)
  local d = 0
  while (1 << d) < P do d = d + 1 end
  return math.max(d, 1)
end

local function bits(x)
  local n = 0
  while x > 0 do n = n + (x & 1); x = x >> 1 end
  return n
end

--- Unit positions {[p] = {x, y}} in [0, 1]^2 of P processors in a layout.
function M.positions(layout, P)
  local d = dims(P)
  local raw = {}
  if layout == "cube" or layout == "tesseract" or layout == "polytope" then
    local vec = {}
    if layout == "cube" then
      vec = { { 1, 0 }, { 0, 1 }, { 0.45, 0.3 } }
    elseif layout == "tesseract" then
      vec = { { 1, 0 }, { 0, 1 }, { 0.45, 0.3 }, { 2.1, 0.0 } }
    end
    for k = #vec + 1, d do
      local a = math.pi * (k - 1) / d
      vec[k] = { math.cos(a), math.sin(a) }
    end
    for p = 0, P - 1 do
      local x, y = 0, 0
      for k = 1, d do
        if (p >> (k - 1)) & 1 == 1 then x, y = x + vec[k][1], y + vec[k][2] end
      end
      raw[p] = { x, y }
    end
  elseif layout == "mesh" then
    local cb = (d + 1) // 2
    local cols = 1 << cb
    -- row and column each in Gray code: neighbours on the mesh are hypercube neighbours
    local g2 = pg.gray_order(cols)
    local inv = {}
    for k, g in ipairs(g2) do inv[g] = k - 1 end
    local rows_g = pg.gray_order(1 << (d - cb))
    local rinv = {}
    for k, g in ipairs(rows_g) do rinv[g] = k - 1 end
    for p = 0, P - 1 do
      raw[p] = { inv[p & (cols - 1)] or 0, rinv[p >> cb] or 0 }
    end
  elseif layout == "ring" or layout == "linear" then
    local order = pg.gray_order(P)
    for k, p in ipairs(order) do
      if layout == "ring" then
        local a = -math.pi / 2 + 2 * math.pi * (k - 1) / P
        raw[p] = { math.cos(a), math.sin(a) }
      else
        raw[p] = { k - 1, 0 } -- one straight row, in Gray order
      end
    end
  elseif layout == "tree" then
    -- binomial tree: p's parent is p with its highest bit cleared; depth = bits set
    local count = {}
    for p = 0, P - 1 do
      local depth = bits(p)
      count[depth] = (count[depth] or 0) + 1
      raw[p] = { count[depth], depth }
    end
    for p = 0, P - 1 do raw[p][1] = raw[p][1] / (count[raw[p][2]] + 1) end
  else
    error("hypercube layout '" .. tostring(layout) .. "': " .. table.concat(M.layouts, ", "), 2)
  end
  local x0, x1, y0, y1 = math.huge, -math.huge, math.huge, -math.huge
  for p = 0, P - 1 do
    x0, x1 = math.min(x0, raw[p][1]), math.max(x1, raw[p][1])
    y0, y1 = math.min(y0, raw[p][2]), math.max(y1, raw[p][2])
  end
  local out = {}
  for p = 0, P - 1 do
    out[p] = { x1 > x0 and (raw[p][1] - x0) / (x1 - x0) or 0.5, y1 > y0 and (raw[p][2] - y0) / (y1 - y0) or 0.5 }
  end
  return out
end

function D:draw(cv, rect)
  local P = self.ctx.P
  local inner = { x = rect.x + 82, y = rect.y + 14, w = rect.w - 96, h = rect.h - 44 }
  local unit = M.positions(self.layout, P)
  local pos = {}
  for p = 0, P - 1 do
    pos[p] = { inner.x + unit[p][1] * inner.w, inner.y + unit[p][2] * inner.h }
  end
  -- the hypercube's own links, faint
  for p = 0, P - 1 do
    for k = 0, dims(P) - 1 do
      local q = p ~ (1 << k)
      if q > p and q < P then
        cv:line(pos[p][1], pos[p][2], pos[q][1], pos[q][2], { color = "#d8d8d8", width = 1 })
      end
    end
  end
  local r = math.max(3, math.min(11, math.min(inner.w, inner.h) / (2.5 * math.sqrt(P))))
  local d = animation.draw_graph(self, cv, rect, pos, r, function(a, b, bytes)
    local col = bytes and colors.message_size(bytes) or colors.ink("#606060")
    if bits(a ~ b) == 1 then return { color = col, width = 2 } end
    -- bend toward the middle of the layout, so arcs stay inside the panel
    local pa, pb = pos[a], pos[b]
    local dx, dy = pb[1] - pa[1], pb[2] - pa[2]
    local mx, my = (pa[1] + pb[1]) / 2, (pa[2] + pb[2]) / 2
    local cx, cy = inner.x + inner.w / 2, inner.y + inner.h / 2
    local side = dy * (cx - mx) - dx * (cy - my)
    return { color = col, width = 1.5, dash = { 4, 3 }, bend = side >= 0 and 0.2 or -0.2 }
  end)
  for _, l in ipairs(d.lines) do l.physical = bits(l.src ~ l.dst) == 1 end
  cv:text(rect.x + rect.w - 2, rect.y + rect.h - 2, self.layout .. "; solid: physical link, dashed: virtual",
    { align = "right", valign = "bottom", size = 8, color = "dimgray" })
  d.layout = self.layout
  self.d = d
end

function D:data() return self.d end

return M
