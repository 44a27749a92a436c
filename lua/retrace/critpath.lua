--- The critical path of a time window: the whole run's critical path cut to
-- [lo, hi] (one rule for `retrace stats --from/--to` and `retrace paragraph
-- --from/--to`). Segments are cut to the window and those left empty dropped;
-- a message stays when its span (send to receive, either order for a tachyon)
-- meets the window. The length is the time the path spends inside the window:
-- its segments' parts and its messages' flight times there (the whole run's
-- length is so the sum over its segments and messages).
local M = {}

function M.clip(cp, lo, hi)
  if not cp then return nil end
  lo, hi = lo or -math.huge, hi or math.huge
  local out = { start = math.max(cp.start or lo, lo), stop = math.min(cp.stop or hi, hi), segments = {},
                messages = {}, tachyons = cp.tachyons, length = 0 }
  local kept = {}
  for i, g in ipairs(cp.segments or {}) do
    local a, b = math.max(g.from, lo), math.min(g.to, hi)
    if b > a then
      local c = {}
      for k, v in pairs(g) do c[k] = v end
      c.from, c.to = a, b
      out.segments[#out.segments + 1] = c
      out.length = out.length + (b - a)
      kept[i] = true
    end
  end
  for _, m in ipairs(cp.messages or {}) do
    local s, r = m.send or m.send_time, m.recv or m.recv_time
    if math.max(s, r) >= lo and math.min(s, r) <= hi then
      out.messages[#out.messages + 1] = m
      out.length = out.length + math.max(0, math.min(r, hi) - math.max(s, lo))
    end
  end
  return out
end

return M
