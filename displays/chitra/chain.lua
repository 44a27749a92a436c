--- Picture of a semi-Markov chain laid out by Graphviz (retrace.graph): each state a
-- box with its mean and variance of occupancy time, each arc a curve as wide as the
-- transition is frequent, labelled on the arc with its probability (unlabelled when
-- 100%); arcs rarer than opts.min_prob hidden (a note says how many); composite
-- definitions listed underneath in natural order (T1, T2, ..., T10).
--
--   local v = require "retrace.displays.chitra.chain"
--   local d = v.data(chain, {min_prob = 0.01, engine = "dot"})  -- layout in points
--   v.draw(cv, d, {x, y, w, h})   -- fills d.placed: where everything went, in pixels
--   v.render(chain, "chain.png" | ".pdf" | ".svg", opts)        -- -> d
-- The chain's own numbers are chain:to_table() and chain:definitions() (retrace.chitra.chain).
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local graph = require "retrace.graph"
local chain_mod = require "retrace.chitra.chain"

local M = {}

local FONT = "DejaVu Sans"
local NAME_SIZE, TEXT_SIZE, LABEL_SIZE = 12, 10, 10
local PAD = 6           -- inside a state box, points
local LINE = 14         -- height of a definition line under the graph
local TITLE_H = 30

-- box fills told apart by lightness too, so gray mode keeps them apart
-- (greys of about 0.94, 0.85 and 0.74)
M.fills = { state = "#eef4fc", composite = "#ffd98a", other = "#bdbdbd" }

-- Text sizes come from Cairo through a 1 x 1 scratch canvas, so the boxes given to
-- Graphviz are the boxes the text will fill.
local measure_cv
local function text_w(s, size, bold)
  measure_cv = measure_cv or canvas.image(1, 1)
  measure_cv:font(FONT, size, bold)
  local w, h = measure_cv:text_size(s)
  return w, h
end

-- Coordinates kept to a hundredth of a point or pixel: the data stays small in JSON.
local function round_all(list)
  for i, v in ipairs(list) do list[i] = math.floor(v * 100 + 0.5) / 100 end
  return list
end

local function state_lines(s)
  return "mean " .. chain_mod.number(s.mean), "var " .. chain_mod.number(s.var)
end

--- Arcs a picture shows when no min_prob is given: a chain with more arcs than
-- this (dense chains of 40 states can have 600) is unreadable and takes Graphviz
-- minutes, so the rarest go. A chain of more than MAX_STATES states shows only the
-- states its shown arcs touch.
M.MAX_ARCS = 150
M.MAX_STATES = 200

--- The arcs kept without min_prob: the max_arcs most probable, ties broken by how
-- often the transition was taken, then by order in the chain (a cycle of 10^6 states
-- has 10^6 arcs of probability 1: a threshold cannot choose among them, a rank can).
-- Returns a set {[arc] = true} and the probability of the rarest arc kept (0 when
-- every arc is kept).
function M.auto_arcs(chain, max_arcs)
  local keep = {}
  if #chain.arcs <= max_arcs then
    for _, a in ipairs(chain.arcs) do keep[a] = true end
    return keep, 0
  end
  local arcs = chain.arcs
  local function before(i, j)
    local a, b = arcs[i], arcs[j]
    if a.p ~= b.p then return a.p > b.p end
    if (a.count or 0) ~= (b.count or 0) then return (a.count or 0) > (b.count or 0) end
    return i < j
  end
  -- the max_arcs first in that order, by insertion into a short sorted list: one pass
  -- over a chain of 10^6 arcs, not a sort of them all
  local top = {}
  for i = 1, #arcs do
    if #top < max_arcs or before(i, top[#top]) then
      local at = math.min(#top, max_arcs - 1) + 1
      while at > 1 and before(i, top[at - 1]) do top[at] = top[at - 1]; at = at - 1 end
      top[at] = i
      top[max_arcs + 1] = nil
    end
  end
  for _, i in ipairs(top) do keep[arcs[i]] = true end
  return keep, arcs[top[#top]].p
end

--- The chain's picture as data, before drawing: (opts.min_prob: hide arcs less
-- probable than this; without it, at most opts.max_arcs (M.MAX_ARCS) arcs are shown) {states = {{name, n, mean, var,
-- kind = "state" | "composite" | "other", x, y, w, h}}, arcs = {{from, to, p, count,
-- label, width, points = {x1, y1, ...}, head = {x, y}, label_pos = {x, y}}}, hidden
-- (arcs below min_prob left out), min_prob, engine, width, height (points),
-- definitions = {{name =, text =}}}. Positions are in points, origin top-left.
-- Returns d or nil, message.
function M.data(chain, opts)
  opts = opts or {}
  local min_prob, keep = opts.min_prob, nil
  if min_prob == nil then
    keep, min_prob = M.auto_arcs(chain, opts.max_arcs or M.MAX_ARCS)
  elseif type(min_prob) ~= "number" or min_prob < 0 or min_prob >= 1 then
    return nil, "chain: min_prob must be a number in [0, 1)"
  else
    keep = {}
    for _, a in ipairs(chain.arcs) do if a.p >= min_prob then keep[a] = true end end
  end
  local defs = chain:definitions()
  local d = { states = {}, arcs = {}, hidden = 0, hidden_states = 0, min_prob = min_prob,
              auto = opts.min_prob == nil, engine = opts.engine or "dot", definitions = {} }
  -- a huge chain shows the states its shown arcs touch (the rest are counted)
  local shown
  if #chain.states > (opts.max_states or M.MAX_STATES) then
    shown = {}
    for a in pairs(keep) do shown[a.from], shown[a.to] = true, true end
  end
  local nodes, index = {}, {}
  for _, s in ipairs(chain.states) do
    if shown and not shown[s.name] then
      d.hidden_states = d.hidden_states + 1
      goto next_state
    end
    local i = #d.states + 1
    local mean, var = state_lines(s)
    local w = math.max(text_w(s.name, NAME_SIZE, true), text_w(mean, TEXT_SIZE), text_w(var, TEXT_SIZE))
    local kind = chain.other == s.name and "other" or (defs[s.name] and "composite" or "state")
    d.states[i] = { name = s.name, n = s.n, mean = s.mean, var = s.var, kind = kind,
                    w = math.ceil(w + 2 * PAD), h = 46 }
    nodes[i] = { w = d.states[i].w, h = d.states[i].h }
    index[s.name] = i
    ::next_state::
  end
  local top = 0
  for _, a in ipairs(chain.arcs) do top = math.max(top, a.count or 0) end
  local edges = {}
  for _, a in ipairs(chain.arcs) do
    if not keep[a] then
      d.hidden = d.hidden + 1
    else
      -- weight by how often the transition is taken (its probability when the chain
      -- came from JSON without counts)
      local f = top > 0 and (a.count or 0) / top or a.p
      local arc = { from = a.from, to = a.to, p = a.p, count = a.count,
                    label = a.p < 1 and chain_mod.percent(a.p) or nil,
                    width = 0.8 + 3.2 * math.sqrt(f) }
      local lw, lh = 0, 0
      if arc.label then
        lw, lh = text_w(arc.label, LABEL_SIZE)
        lw, lh = lw + 2, lh + 2
      end
      d.arcs[#d.arcs + 1] = arc
      edges[#edges + 1] = { from = index[a.from], to = index[a.to], weight = 1 + 4 * f,
                            label_w = lw, label_h = lh }
    end
  end
  local l, why = graph.layout { nodes = nodes, edges = edges, engine = d.engine }
  if not l then return nil, "chain: " .. why end
  d.width, d.height = l.width, l.height
  for i, s in ipairs(d.states) do s.x, s.y = l.nodes[i][1], l.nodes[i][2] end
  for j, arc in ipairs(d.arcs) do
    local e = l.edges[j]
    arc.points = round_all(e.points)
    arc.head = e.head and round_all(e.head)
    arc.label_pos = e.label and round_all(e.label)
  end
  for _, name in ipairs(chain:composite_names()) do
    local parts = {}
    for i, def in ipairs(defs[name]) do
      if i > 3 then parts[#parts + 1] = "..." break end
      parts[#parts + 1] = table.concat(def, ", ")
    end
    d.definitions[#d.definitions + 1] = { name = name, text = name .. " = " .. table.concat(parts, "  |  ") }
  end
  return d
end

-- The notes under the graph: composite definitions, what unlabelled arcs mean,
-- how many arcs are hidden.
local function notes(d)
  local out = {}
  for _, def in ipairs(d.definitions) do out[#out + 1] = def.text end
  out[#out + 1] = "Unlabelled arcs: 100%. Arc width: how often the transition is taken."
  if d.hidden > 0 and d.auto then
    out[#out + 1] = string.format("%d arc%s hidden: the %d most probable shown (--min-prob P chooses by "
      .. "probability).", d.hidden, d.hidden == 1 and "" or "s", #d.arcs)
  elseif d.hidden > 0 then
    out[#out + 1] = string.format("%d arc%s below %s hidden.", d.hidden, d.hidden == 1 and "" or "s",
      chain_mod.percent(d.min_prob))
  end
  if d.hidden_states > 0 then
    out[#out + 1] = string.format("%d state%s no shown arc touches left out.", d.hidden_states,
      d.hidden_states == 1 and "" or "s")
  end
  return out
end

local function arrow(cv, x, y, dx, dy, size, color)
  local len = math.sqrt(dx * dx + dy * dy)
  if len == 0 then return end
  dx, dy = dx / len, dy / len
  local a, b = size, size * 0.45
  cv:polygon({ x, y, x - a * dx + b * dy, y - a * dy - b * dx, x - a * dx - b * dy, y - a * dy + b * dx }, color)
end

--- Draw d (from M.data) into box {x, y, w, h}: the title, the graph scaled to fit
-- (never enlarged past 1.5 x), the legend of box fills and the notes. Sets and
-- returns d.placed = {box = {x, y, w, h} of the graph, scale, states = {name = {x, y,
-- w, h}} (centres and sizes), arcs = {{poly = {x1, y1, ...}, label = {x, y}}} in the
-- order of d.arcs} - all in device pixels.
function M.draw(cv, d, box, opts)
  opts = opts or {}
  local x, y, w, h = box[1], box[2], box[3], box[4]
  local lines = notes(d)
  local legend_h = 20
  local notes_h = #lines * LINE + 8
  cv:text(x + w / 2, y + 8, opts.title or "Semi-Markov chain", { align = "center", valign = "top",
    size = 14, bold = true, color = "black" })
  local gbox = { x + 12, y + TITLE_H, w - 24, math.max(10, h - TITLE_H - legend_h - notes_h - 6) }
  local s, at = graph.fit(d, gbox)
  local placed = { box = gbox, scale = s, states = {}, arcs = {} }
  local ink = colors.ink
  local arc_color, label_color = ink("#505860"), ink("#1a3f8f")
  for j, arc in ipairs(d.arcs) do
    local pts = {}
    for i = 1, #arc.points, 2 do pts[i], pts[i + 1] = at(arc.points[i], arc.points[i + 1]) end
    local pl = { poly = graph.flatten(pts) }
    if arc.head then
      local hx, hy = at(arc.head[1], arc.head[2])
      pl.poly[#pl.poly + 1], pl.poly[#pl.poly + 2] = hx, hy
    end
    cv:new_path()
    cv:move_to(pts[1], pts[2])
    for i = 3, #pts - 5, 6 do cv:curve_to(table.unpack(pts, i, i + 5)) end
    cv:line_width(arc.width * s)
    cv:color(arc_color)
    cv:stroke()
    if arc.head then
      local hx, hy = at(arc.head[1], arc.head[2])
      local ex, ey = pts[#pts - 1], pts[#pts]
      -- the tip reaches the node; the stroke ends where the arrow's base starts
      arrow(cv, hx, hy, hx - ex, hy - ey, math.sqrt((hx - ex) ^ 2 + (hy - ey) ^ 2), arc_color)
    end
    round_all(pl.poly)
    placed.arcs[j] = pl
  end
  local fs = math.max(0.6, math.min(s, 1.3)) -- text follows the scale within reason
  for j, arc in ipairs(d.arcs) do
    if arc.label and arc.label_pos then
      local lx, ly = at(arc.label_pos[1], arc.label_pos[2])
      cv:text(lx, ly, arc.label, { align = "center", valign = "middle", size = LABEL_SIZE * fs,
        color = label_color })
      placed.arcs[j].label = { lx, ly }
    end
  end
  for _, st in ipairs(d.states) do
    local cx, cy = at(st.x, st.y)
    local bw, bh = st.w * s, st.h * s
    local bx, by = cx - bw / 2, cy - bh / 2
    cv:rect(bx, by, bw, bh, { fill = ink(M.fills[st.kind]), stroke = "black", width = 1 })
    local mean, var = state_lines(st)
    cv:text(cx, by + 4 * s, st.name, { align = "center", valign = "top", size = NAME_SIZE * fs, bold = true,
      color = "black" })
    cv:text(cx, by + 19 * s, mean, { align = "center", valign = "top", size = TEXT_SIZE * fs, color = "black" })
    cv:text(cx, by + 31 * s, var, { align = "center", valign = "top", size = TEXT_SIZE * fs, color = "black" })
    placed.states[st.name] = { cx, cy, bw, bh }
  end
  -- legend of the box fills, one row under the graph
  local ly = gbox[2] + gbox[4] + 6
  local lx = x + 16
  for _, item in ipairs { { "state", "program state" }, { "composite", "composite state" },
                          { "other", "OTHER (end of a sequence)" } } do
    cv:rect(lx, ly + 2, 14, 10, { fill = ink(M.fills[item[1]]), stroke = "black", width = 1 })
    local tw = cv:text(lx + 18, ly + 7, item[2], { valign = "middle", size = 10, color = "black" })
    lx = lx + 18 + tw + 18
  end
  local ny = ly + legend_h
  cv:font(FONT, 10)
  for _, line in ipairs(lines) do
    -- a definition longer than the picture is cut, and says so with "..."
    if cv:text_size(line) > w - 32 then
      local keep = #line
      while keep > 1 and cv:text_size(line:sub(1, keep) .. "...") > w - 32 do keep = keep - 4 end
      line = line:sub(1, math.max(keep, 1)) .. "..."
    end
    cv:text(x + 16, ny, line, { valign = "top", size = 10, color = "black" })
    ny = ny + LINE
  end
  d.placed, d.notes = placed, lines
  return placed
end

--- The picture size that shows the layout at scale 1 (clamped to 600..2400 wide).
function M.size(d)
  local lines = #d.definitions + 1 + (d.hidden > 0 and 1 or 0) + (d.hidden_states > 0 and 1 or 0)
  local w = math.max(600, math.min(2400, math.ceil(d.width) + 24))
  local h = math.max(300, math.min(4000, math.ceil(d.height) + TITLE_H + 26 + lines * LINE + 14))
  return w, h
end

local Disp = {}
Disp.__index = Disp
Disp.__tostring = function(v)
  return string.format("retrace.Display(chitra chain, %d states, %d arcs)", #v.d.states, #v.d.arcs)
end

--- Draw into rect ({x =, y =, w =, h =} or {x, y, w, h}).
function Disp:draw(cv, rect)
  if not rect[1] then rect = { rect.x, rect.y, rect.w, rect.h } end
  M.draw(cv, self.d, rect, self.opts)
  return self
end

--- The picture's data (M.data), with d.placed once drawn.
function Disp:data() return self.d end

--- The chain picture as a display (retrace.display protocol); opts as M.data plus title.
function M.new(chain, opts)
  local d, why = M.data(chain, opts)
  if not d then return nil, why end
  return setmetatable({ d = d, opts = opts or {} }, Disp)
end

--- Lay out and draw the chain into a file (.png, .pdf, .svg); opts as M.data plus
-- width, height, title. Returns the data (with d.placed) or nil, message.
function M.render(chain, path, opts)
  opts = opts or {}
  local disp, why = M.new(chain, opts)
  if not disp then return nil, why end
  local w, h = M.size(disp.d)
  return require("retrace.display").render(disp, path, opts.width or w, opts.height or h)
end

return M
