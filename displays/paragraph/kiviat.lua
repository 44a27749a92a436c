--- ParaGraph Kiviat diagram: a spoke per processor; its point lies at the
-- processor's busy fraction over the last S seconds (hub 0, rim 1). The
-- current polygon is dark, the highest radius seen on each spoke light.
--
-- Both come from ParaGraph's view in C, which follows every processor's busy
-- fraction over [t - S, t] through the whole replay (every corner of that
-- piecewise-linear curve, not only the frame times): the high-water mark does
-- not depend on --pace. A spoke above both neighbours is also drawn as a line
-- out to its point, so a processor busy a little between idle ones shows; one
-- or two processors give spokes from the hub. When the processors outnumber the rim's
-- room (one spoke per 3 pixels), a spoke stands for a group of k consecutive
-- processors: the mean of their fractions now, the highest of their marks;
-- data() gives k (`group`) and each spoke's first and last processor.
-- Spokes follow the display order (--order): spoke i is processor `order[i]`.
local colors = require "retrace.colors"
local canvas = require "retrace.canvas"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(false)

function D:init()
  self.high, self.radii = {}, {}
  self.view = common.trend(self.ctx)
end

function D:update(state, t)
  local P = self.ctx.P
  if self.view then
    self.radii, self.high = self.view:trend_busy()
    return
  end
  -- no view in C: sampled at the frame times
  local S = self.ctx.smoothing
  for p = 0, P - 1 do
    local r = state:busy_fraction(p, t - S, t)
    self.radii[p + 1] = r
    self.high[p + 1] = math.max(self.high[p + 1] or 0, r)
  end
end

-- Spokes of k processors each: mean radius now, highest mark.
local function grouped(radii, high, P, k)
  if k == 1 then return radii, high end
  local r, h = {}, {}
  for s = 1, math.ceil(P / k) do
    local a, b = (s - 1) * k + 1, math.min(P, s * k)
    local sum, top = 0, 0
    for i = a, b do
      sum = sum + (radii[i] or 0)
      if (high[i] or 0) > top then top = high[i] end
    end
    r[s], h[s] = sum / (b - a + 1), top
  end
  return r, h
end

function D:draw(cv, rect)
  local P = self.ctx.P
  -- room for the notes at the top left: the circle below them when the panel is narrow
  local top = math.min(34, rect.h / 4)
  local cx, cy = rect.x + rect.w / 2, rect.y + top / 2 + rect.h / 2
  local R = math.max(4, math.min(rect.w, rect.h - top) / 2 - 14)
  local k = math.max(1, math.ceil(P / math.max(1, math.floor(2 * math.pi * R / 3))))
  local n = math.ceil(P / k)
  -- spokes in the display order (--order), clockwise from the top
  local list, slot, natural = common.slots(self.ctx)
  local r0, h0 = self.radii, self.high
  if not natural then
    r0, h0 = {}, {}
    for i, p in ipairs(list) do r0[i], h0[i] = self.radii[p + 1], self.high[p + 1] end
  end
  local radii, high = grouped(r0, h0, P, k)
  local function at(i, r)
    local a = -math.pi / 2 + 2 * math.pi * (i - 1) / n
    return cx + r * R * math.cos(a), cy + r * R * math.sin(a)
  end
  local function poly(rs)
    local pts = {}
    for i = 1, n do
      local x, y = at(i, rs[i] or 0)
      pts[#pts + 1], pts[#pts + 2] = x, y
    end
    return pts
  end
  -- the part of a spoke the polygon leaves thin: from its neighbours' radius out to
  -- its point, where it is above both (a processor busy a little between idle ones);
  -- with fewer than 3 spokes, no polygon: every spoke from the hub
  local function spokes(rs, col, width)
    local pk = canvas.pack(4)
    for i = 1, n do
      local r = rs[i] or 0
      local base = 0
      if n >= 3 then base = math.max(rs[(i - 2) % n + 1] or 0, rs[i % n + 1] or 0) end
      if r > base then
        local x0, y0 = at(i, base)
        local x1, y1 = at(i, r)
        pk:push(x0, y0, x1, y1)
      end
    end
    if #pk > 0 then cv:segments(pk, { color = col, width = width }) end
  end
  local light, dark = colors.ink("#9fc3e6"), colors.ink("#1f4e9c")
  cv:circle(cx, cy, R, { stroke = "gray", width = 1 })
  cv:circle(cx, cy, R / 2, { stroke = "lightgray", width = 0.5 })
  local w = math.max(1.5, math.min(4, 2 * math.pi * R / n / 3))
  if n >= 3 then cv:polygon(poly(high), { fill = light }) end
  spokes(high, light, w + 1)
  if n >= 3 then cv:polygon(poly(radii), { fill = dark }) end
  spokes(radii, dark, w)
  -- labels (and, past 64 spokes, rim ticks) only as many as the rim has room for
  local step = require("retrace.paragraph").nice_ceil(math.max(1, n * 22 / (2 * math.pi * R)))
  for i = 1, n do
    local x, y = at(i, 1)
    if n <= 64 or (i - 1) % step == 0 then cv:line(cx, cy, x, y, { color = "gray", width = 0.5 }) end
    if (i - 1) % step == 0 and (i == 1 or n - (i - 1) >= step / 2) then -- not crowding the first
      local lx, ly = at(i, 1 + 10 / R)
      cv:text(lx, ly, common.proc_label(list, list[(i - 1) * k + 1]), { align = "center", valign = "middle", size = 9, color = "black" })
    end
  end
  local S = self.ctx.smoothing
  cv:text(rect.x + 2, rect.y + 1, string.format("busy over %s s", require("retrace.plot").format_number(S, 3)),
    { valign = "top", size = 9, color = "dimgray" })
  cv:text(rect.x + 2, rect.y + 11, "dark now, light highest", { valign = "top", size = 9, color = "dimgray" })
  if k > 1 then
    cv:text(rect.x + 2, rect.y + 21, string.format("a spoke per %d processors", k),
      { valign = "top", size = 9, color = "dimgray" })
  end
  local d = { center = { cx, cy }, radius = R, radii = self.radii, high = self.high, smoothing = S,
              group = k, spokes = n, continuous = self.view ~= nil }
  if k > 1 then
    d.spoke_procs = {}
    for i = 1, n do d.spoke_procs[i] = { list[(i - 1) * k + 1], list[math.min(P, i * k)] } end
  end
  d.spoke_radii, d.spoke_high = radii, high
  d.order, d.slot = list, slot
  self.d = d
end

return M
