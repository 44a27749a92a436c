--- retrace.plot.marks: markers and the geometry retrace.plot places things by.
--
--   marks.draw(cv, kind, x, y, r, style)   -- kinds: marks.kinds
--   marks.intersects(a, b), marks.segment_hits(rect, x1, y1, x2, y2)
local M = {}

M.kinds = { "circle", "square", "triangle", "diamond", "down", "cross", "ring", "plus" }

--- A marker of kind m at (x, y), half-size r; style as for cv:circle.
function M.draw(cv, m, x, y, r, style)
  if m == "square" then
    cv:rect(x - r * 0.9, y - r * 0.9, r * 1.8, r * 1.8, style)
  elseif m == "triangle" then
    cv:polygon({ x, y - r * 1.15, x + r, y + r * 0.7, x - r, y + r * 0.7 }, style)
  elseif m == "down" then
    cv:polygon({ x, y + r * 1.15, x + r, y - r * 0.7, x - r, y - r * 0.7 }, style)
  elseif m == "diamond" then
    cv:polygon({ x, y - r * 1.2, x + r * 1.2, y, x, y + r * 1.2, x - r * 1.2, y }, style)
  elseif m == "cross" or m == "plus" then
    local c = type(style) == "table" and (style.fill or style.color) or style
    local d = m == "plus" and r * 1.2 or r
    if m == "plus" then
      cv:line(x - d, y, x + d, y, { color = c, width = 2.5 })
      cv:line(x, y - d, x, y + d, { color = c, width = 2.5 })
    else
      cv:line(x - d, y - d, x + d, y + d, { color = c, width = 2.5 })
      cv:line(x - d, y + d, x + d, y - d, { color = c, width = 2.5 })
    end
  elseif m == "ring" then
    local c = type(style) == "table" and (style.fill or style.color) or style
    cv:circle(x, y, r, { stroke = c, width = 2 })
  else
    cv:circle(x, y, r, style)
  end
end
M.marker = marker

--- Do boxes a and b overlap?
function M.intersects(a, b)
  return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
end

-- Does the segment (x1, y1)-(x2, y2) cross rectangle r? (Liang-Barsky clipping)
function M.segment_hits(r, x1, y1, x2, y2)
  local t0, t1 = 0, 1
  local dx, dy = x2 - x1, y2 - y1
  local function clip(pq, qq)
    if pq == 0 then return qq >= 0 end
    local t = qq / pq
    if pq < 0 then
      if t > t1 then return false end
      if t > t0 then t0 = t end
    else
      if t < t0 then return false end
      if t < t1 then t1 = t end
    end
    return true
  end
  return clip(-dx, x1 - r.x) and clip(dx, r.x + r.w - x1) and clip(-dy, y1 - r.y)
     and clip(dy, r.y + r.h - y1)
end

return M
