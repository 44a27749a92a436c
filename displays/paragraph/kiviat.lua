--- ParaGraph Kiviat diagram: a spoke per processor; its point lies at the
-- processor's busy fraction over the last S seconds (hub 0, rim 1). The
-- current polygon is dark, the highest radius seen on each spoke light.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function M.new(ctx, opts)
  return setmetatable({ ctx = ctx, opts = opts or {}, high = {}, radii = {} }, D)
end

function D:update(state, t)
  local S = self.ctx.smoothing
  for p = 0, self.ctx.P - 1 do
    local r = state:busy_fraction(p, t - S, t)
    self.radii[p + 1] = r
    self.high[p + 1] = math.max(self.high[p + 1] or 0, r) -- every spoke has one (a dense list for data())
  end
end

function D:draw(cv, rect)
  local P = self.ctx.P
  local cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2 + 6
  local R = math.max(4, math.min(rect.w, rect.h - 14) / 2 - 16)
  local function at(k, r)
    local a = -math.pi / 2 + 2 * math.pi * (k - 1) / P
    return cx + r * R * math.cos(a), cy + r * R * math.sin(a)
  end
  local function poly(rs)
    local pts = {}
    for k = 1, P do
      local x, y = at(k, rs[k] or 0)
      pts[#pts + 1], pts[#pts + 2] = x, y
    end
    return pts
  end
  local light, dark = colors.ink("#9fc3e6"), colors.ink("#1f4e9c")
  cv:circle(cx, cy, R, { stroke = "gray", width = 1 })
  cv:circle(cx, cy, R / 2, { stroke = "lightgray", width = 0.5 })
  if P >= 3 then
    cv:polygon(poly(self.high), { fill = light })
    cv:polygon(poly(self.radii), { fill = dark })
  end
  -- labels (and, past 64 processors, spokes) only as many as the rim has room for
  local step = require("retrace.paragraph").nice_ceil(math.max(1, P * 22 / (2 * math.pi * R)))
  for k = 1, P do
    local x, y = at(k, 1)
    if P <= 64 or (k - 1) % step == 0 then cv:line(cx, cy, x, y, { color = "gray", width = 0.5 }) end
    if (k - 1) % step == 0 then
      local lx, ly = at(k, 1 + 10 / R)
      cv:text(lx, ly, tostring(k - 1), { align = "center", valign = "middle", size = 9, color = "black" })
    end
  end
  local S = self.ctx.smoothing
  cv:text(rect.x + 2, rect.y + 1, string.format("busy over %s s: dark now, light highest",
    require("retrace.plot").format_number(S, 3)), { valign = "top", size = 9, color = "dimgray" })
  self.d = { center = { cx, cy }, radius = R, radii = self.radii, high = self.high, smoothing = S }
end

return M
