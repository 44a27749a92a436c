--- ParaGraph hypercube: the animation on layouts that show the networks a
-- hypercube embeds: cube, tesseract, polytope, mesh, ring, linear, tree, ring
-- of rings, web, lateral cubes, nested cubes. The hypercube's links (processors
-- whose numbers differ in one bit) are drawn faintly; a message between such
-- neighbours is a solid straight line (physical link), any other a dashed curve
-- (virtual link, routed through others). Colours: the message-size code. At
-- the end: every pair used.
--
-- Beyond GROUP_ABOVE processors, or when discs would be under 3 pixels, the
-- display draws subcubes: a group holds the processors whose numbers share
-- their top bits (2^s consecutive numbers), the groups themselves form a
-- smaller hypercube laid out the same way, each drawn as a pie of the shares of
-- its processors busy, overhead and idle, and a line between two groups for
-- the messages pending between them (width: how many), solid when all of them
-- go over hypercube links; a note on the picture says so.
local colors = require "retrace.colors"
local order = require "retrace.displays.paragraph.order"
local animation = require "retrace.displays.paragraph.animation"
local common = require "retrace.displays.paragraph.common"

local M = {}
local D = {}
D.__index = D

M.layouts = { "cube", "tesseract", "polytope", "mesh", "ring", "linear", "tree", "rings", "web", "lateral",
              "nested" }
M.GROUP_ABOVE = 256
M.MAX_GROUPS = 64

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

--- Positions {[p] = {x, y}} of P processors in a layout, in the layout's own
-- units (y down), before they are fitted to the panel.
function M.raw(layout, P)
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
    local g2 = order.gray(cols)
    local inv = {}
    for k, g in ipairs(g2) do inv[g] = k - 1 end
    local rows_g = order.gray(1 << (d - cb))
    local rinv = {}
    for k, g in ipairs(rows_g) do rinv[g] = k - 1 end
    for p = 0, P - 1 do
      raw[p] = { inv[p & (cols - 1)] or 0, rinv[p >> cb] or 0 }
    end
  elseif layout == "ring" or layout == "linear" then
    for k, p in ipairs(order.gray(P)) do
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
  elseif layout == "rings" or layout == "web" then
    -- the low half of the bits: a ring in Gray order; the high half: which ring.
    -- rings: the small rings on a large one (Gray order of the high bits);
    -- web: concentric rings, the ring's Gray rank its radius, spokes joining
    -- the processors that differ in their high bits only
    local lo = (d + 1) // 2
    local nlo, nhi = 1 << lo, 1 << (d - lo)
    for p = 0, P - 1 do
      local a = -math.pi / 2 + 2 * math.pi * order.rank(p & (nlo - 1)) / nlo
      local k = order.rank(p >> lo)
      if layout == "web" then
        local rad = (k + 1) / nhi
        raw[p] = { rad * math.cos(a), rad * math.sin(a) }
      else
        -- each small ring turned with its place on the large one, half a step off
        local b = -math.pi / 2 + 2 * math.pi * k / nhi
        local rho = nhi > 2 and 0.5 * math.sin(math.pi / nhi) or 0.3
        local c = a + math.pi / 2 + b + math.pi / nlo
        raw[p] = { math.cos(b) + rho * math.cos(c), math.sin(b) + rho * math.sin(c) }
      end
    end
  elseif layout == "lateral" or layout == "nested" then
    -- 3-cubes of the low three bits (corners at -1/2 and 1/2 along each axis);
    -- lateral: side by side on a mesh of cubes, 2 apart, the higher bits in Gray
    -- order along each axis; nested: concentric, the k-th in Gray order of the
    -- higher bits (of H) scaled 0.35 + 0.65 k / (H - 1): the innermost 0.35, the outermost 1
    -- (nested: a shallower depth, so inner corners keep clear of outer ones)
    local vec = { { 1, 0 }, { 0, 1 }, layout == "nested" and { 0.3, 0.2 } or { 0.45, 0.3 } }
    local hb = math.max(0, d - 3)
    local cb = (hb + 1) // 2
    for p = 0, P - 1 do
      local x, y = 0, 0
      for k = 1, 3 do
        local b = ((p >> (k - 1)) & 1) - 0.5
        x, y = x + b * vec[k][1], y + b * vec[k][2]
      end
      local hi = p >> 3
      if layout == "lateral" then
        x = x + 2 * order.rank(hi & ((1 << cb) - 1))
        y = y + 2 * order.rank(hi >> cb)
      else
        local H = 1 << hb
        local scale = H > 1 and 0.35 + 0.65 * order.rank(hi) / (H - 1) or 1
        x, y = scale * x, scale * y
      end
      raw[p] = { x, y }
    end
  else
    error("hypercube layout '" .. tostring(layout) .. "': " .. table.concat(M.layouts, ", "), 2)
  end
  return raw
end

--- Unit positions {[p] = {x, y}} in [0, 1]^2 of P processors in a layout, and
-- the drawing's width over height when its shape should be kept (else nil).
function M.positions(layout, P)
  local raw = M.raw(layout, P)
  local x0, x1, y0, y1 = math.huge, -math.huge, math.huge, -math.huge
  for p = 0, P - 1 do
    x0, x1 = math.min(x0, raw[p][1]), math.max(x1, raw[p][1])
    y0, y1 = math.min(y0, raw[p][2]), math.max(y1, raw[p][2])
  end
  local out = {}
  for p = 0, P - 1 do
    out[p] = { x1 > x0 and (raw[p][1] - x0) / (x1 - x0) or 0.5, y1 > y0 and (raw[p][2] - y0) / (y1 - y0) or 0.5 }
  end
  -- the drawing's width over its height, for layouts whose shape matters (nil: fill the panel)
  local keep = { cube = true, tesseract = true, polytope = true, ring = true, rings = true, web = true,
                 lateral = true, nested = true }
  return out, keep[layout] and x1 > x0 and y1 > y0 and (x1 - x0) / (y1 - y0) or nil
end

--- Unit positions mapped into rect (keeping the drawing's aspect when it has one).
local function place(unit, aspect, n, rect)
  local x, y, w, h = rect.x, rect.y, rect.w, rect.h
  if aspect then
    if w / h > aspect then x, w = x + (w - h * aspect) / 2, h * aspect
    else y, h = y + (h - w / aspect) / 2, w / aspect end
  end
  local pos = {}
  for p = 0, n - 1 do pos[p] = { x + unit[p][1] * w, y + unit[p][2] * h } end
  return pos
end

--- Bits s of the processor number each group leaves out: the groups (numbers
-- p >> s) are as many as fit, at most MAX_GROUPS; 0 when every processor is
-- drawn on its own in rect.
function M.group_bits(P, w, h)
  local function radius(n) return math.min(w, h) / (2.5 * math.sqrt(n)) end
  if P <= M.GROUP_ABOVE and radius(P) >= 3 then return 0 end
  local d = dims(P)
  local s = 1
  while s < d and (((P - 1) >> s) + 1 > M.MAX_GROUPS or radius(((P - 1) >> s) + 1) < 6) do s = s + 1 end
  return s
end

-- A pie of shares {{fraction, colour}} at (x, y), radius r.
local function pie(cv, x, y, r, parts)
  local a = -math.pi / 2
  for _, part in ipairs(parts) do
    if part[1] > 0 then
      local b = a + 2 * math.pi * part[1]
      if part[1] >= 1 then
        cv:circle(x, y, r, { fill = part[2] })
      else
        local pts = { x, y }
        local steps = math.max(2, math.ceil(24 * part[1]))
        for i = 0, steps do
          local t = a + (b - a) * i / steps
          pts[#pts + 1] = x + r * math.cos(t)
          pts[#pts + 1] = y + r * math.sin(t)
        end
        cv:polygon(pts, { fill = part[2] })
      end
      a = b
    end
  end
  cv:circle(x, y, r, { stroke = "black", width = 0.8 })
end

--- The grouped picture: groups of 2^s processors (numbers sharing their top bits).
function D:draw_groups(cv, rect, inner, s)
  local P = self.ctx.P
  local G = ((P - 1) >> s) + 1
  local unit, aspect = M.positions(self.layout, G)
  local r = math.max(4, math.min(12, math.min(inner.w, inner.h) / (3.5 * math.sqrt(G))))
  local pos = place(unit, aspect, G, { x = inner.x + r, y = inner.y + r, w = inner.w - 2 * r, h = inner.h - 2 * r })
  for g = 0, G - 1 do
    for k = 0, dims(G) - 1 do
      local h = g ~ (1 << k)
      if h > g and h < G then cv:line(pos[g][1], pos[g][2], pos[h][1], pos[h][2], { color = "#d8d8d8", width = 1 }) end
    end
  end
  -- messages between groups (pending, or every pair used at the end)
  local bundles, inside = {}, {}
  for _, l in ipairs(self.lines or {}) do
    local a, b = l[1] >> s, l[2] >> s
    if a == b then
      inside[a] = (inside[a] or 0) + 1
    elseif l[1] ~= l[2] then
      local key = math.min(a, b) * G + math.max(a, b)
      local bu = bundles[key]
      if not bu then
        bu = { a = math.min(a, b), b = math.max(a, b), count = 0, bytes = 0, physical = 0 }
        bundles[key] = bu
      end
      bu.count = bu.count + 1
      bu.bytes = math.max(bu.bytes, l[3] or 0)
      if bits(l[1] ~ l[2]) == 1 then bu.physical = bu.physical + 1 end
    end
  end
  local keys = {}
  for k in pairs(bundles) do keys[#keys + 1] = k end
  table.sort(keys)
  local lines = {}
  for _, k in ipairs(keys) do
    local bu = bundles[k]
    local pa, pb = pos[bu.a], pos[bu.b]
    local col = (self.final or bu.bytes == 0) and colors.ink("#606060") or colors.message_size(bu.bytes)
    local all_phys = bu.physical == bu.count
    local width = math.min(6, 1 + math.log(bu.count, 2))
    local style = { color = col, width = width, dash = not all_phys and { 4, 3 } or nil }
    cv:line(pa[1], pa[2], pb[1], pb[2], style)
    lines[#lines + 1] = { src = bu.a, dst = bu.b, count = bu.count, physical = all_phys, color = col,
                          width = width, x0 = pa[1], y0 = pa[2], x1 = pb[1], y1 = pb[2] }
  end
  local names = require("retrace.paragraph").state_names
  local cur = self.state and self.state.cur
  local groups = {}
  for g = 0, G - 1 do
    local first, last = g << s, math.min(P - 1, ((g + 1) << s) - 1)
    local n = { busy = 0, overhead = 0, idle = 0 }
    for p = first, last do
      local st = (self.states and self.states[p + 1]) or (cur and names[cur[p]]) or "idle"
      n[st] = n[st] + 1
    end
    local size = last - first + 1
    local parts = { { n.busy / size, colors.state("busy") }, { n.overhead / size, colors.state("overhead") },
                    { n.idle / size, colors.state("idle") } }
    pie(cv, pos[g][1], pos[g][2], r, parts)
    groups[g + 1] = { id = g, first = first, last = last, counts = n, x = pos[g][1], y = pos[g][2], r = r,
                      inside = inside[g] or 0,
                      shares = { busy = n.busy / size, overhead = n.overhead / size, idle = n.idle / size } }
  end
  -- legend and note
  local y = rect.y + 2
  for _, it in ipairs(common.state_items()) do
    cv:rect(rect.x + 2, y + 2, 8, 8, it[2])
    cv:text(rect.x + 13, y + 6, it[1], { valign = "middle", size = 8, color = "black" })
    y = y + 11
  end
  -- the note in the legend's column, in short lines
  local note = { self.final and "every pair used" or "pending messages", string.format("%d groups", G),
                 string.format("of %d processors", 1 << s), "(same top bits);", "pie: their states" }
  for _, line in ipairs(note) do
    cv:text(rect.x + 2, y + 2, line, { valign = "top", size = 8, color = "dimgray" })
    y = y + 10
  end
  local foot = self.layout .. "; solid: hypercube links only"
  cv:text(rect.x + rect.w - 2, rect.y + rect.h - 2, foot, { align = "right", valign = "bottom",
    size = math.max(6, math.min(8, (rect.w - 4) / (0.55 * #foot))), color = "dimgray" })
  note = table.concat(note, " ", 2)
  return { grouped = true, per_group = 1 << s, groups = groups, lines = lines, final = self.final or false,
           note = note }
end

function D:draw(cv, rect)
  local P = self.ctx.P
  local inner = { x = rect.x + 82, y = rect.y + 14, w = rect.w - 96, h = rect.h - 44 }
  local s = M.group_bits(P, inner.w, inner.h)
  if s > 0 then
    local d = self:draw_groups(cv, rect, inner, s)
    d.layout = self.layout
    d.rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h }
    self.d = d
    return
  end
  local unit, aspect = M.positions(self.layout, P)
  local pos = place(unit, aspect, P, inner)
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
  local note = self.layout .. "; solid: physical link, dashed: virtual"
  cv:text(rect.x + rect.w - 2, rect.y + rect.h - 2, note, { align = "right", valign = "bottom",
    size = math.max(6, math.min(8, (rect.w - 4) / (0.55 * #note))), color = "dimgray" })
  d.layout = self.layout
  d.rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h }
  self.d = d
end

function D:data() return self.d end

return M
