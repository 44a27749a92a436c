--- retrace.graph: lay out a directed graph with Graphviz (core/graph) and the
-- geometry a graph display needs to draw it and to check where it drew it.
--
--   local graph = require "retrace.graph"
--   local l = assert(graph.layout{
--     nodes = {{w = 60, h = 30}, {w = 60, h = 30}},          -- box sizes in points
--     edges = {{from = 1, to = 2, weight = 3, label_w = 30, label_h = 12}},
--     engine = "dot"})                                       -- or "neato"
--   l.width, l.height                 -- bounding box (points, origin top-left, y down)
--   l.nodes[i] = {x, y}               -- centre of node i
--   l.edges[j] = {points = {x1, y1, ...}, head = {x, y}, label = {x, y}}
--   graph.flatten(l.edges[j].points)  -- the Bezier curve as a polyline {x1, y1, ...}
--   graph.distance(x, y, poly)        -- from a point to a polyline
local core = require("retrace.core").graph

local M = {}

--- Lay out nodes and edges (see above). Returns the layout or nil, message.
function M.layout(spec)
  if type(spec) ~= "table" then return nil, "layout: expects a table {nodes =, edges =}" end
  return core.layout(spec)
end

--- The piecewise cubic Bezier curve pts (1 + 3k points, flat x, y list) as a
-- polyline of `steps` (8) segments per piece.
function M.flatten(pts, steps)
  steps = steps or 8
  local out = { pts[1], pts[2] }
  for i = 1, #pts - 7, 6 do
    local x0, y0, x1, y1, x2, y2, x3, y3 = table.unpack(pts, i, i + 7)
    for s = 1, steps do
      local t = s / steps
      local u = 1 - t
      local a, b, c, d = u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t
      out[#out + 1] = a * x0 + b * x1 + c * x2 + d * x3
      out[#out + 1] = a * y0 + b * y1 + c * y2 + d * y3
    end
  end
  return out
end

--- Distance from (x, y) to the polyline poly ({x1, y1, x2, y2, ...}).
function M.distance(x, y, poly)
  local best = math.huge
  if #poly == 2 then return math.sqrt((x - poly[1]) ^ 2 + (y - poly[2]) ^ 2) end
  for i = 1, #poly - 3, 2 do
    local ax, ay, bx, by = poly[i], poly[i + 1], poly[i + 2], poly[i + 3]
    local dx, dy = bx - ax, by - ay
    local len2 = dx * dx + dy * dy
    local t = len2 > 0 and math.max(0, math.min(1, ((x - ax) * dx + (y - ay) * dy) / len2)) or 0
    local d = math.sqrt((x - ax - t * dx) ^ 2 + (y - ay - t * dy) ^ 2)
    if d < best then best = d end
  end
  return best
end

--- Distance from (x, y) to the outline of the box centred on (cx, cy), w x h.
function M.box_distance(x, y, cx, cy, w, h)
  local dx, dy = math.abs(x - cx) - w / 2, math.abs(y - cy) - h / 2
  if dx > 0 or dy > 0 then
    return math.sqrt(math.max(dx, 0) ^ 2 + math.max(dy, 0) ^ 2)
  end
  return -math.max(dx, dy) -- inside: how far from the nearest side
end

--- A layout moved and scaled into box {x, y, w, h}: uniform scale (at most
-- opts.max_scale, default 1.5), centred. Returns scale, function(px, py) -> x, y.
function M.fit(l, box, opts)
  local max = opts and opts.max_scale or 1.5
  local s = math.min(max, box[3] / math.max(l.width, 1), box[4] / math.max(l.height, 1))
  local ox = box[1] + (box[3] - s * l.width) / 2
  local oy = box[2] + (box[4] - s * l.height) / 2
  return s, function(px, py) return ox + s * px, oy + s * py end
end

return M
