--- The SHMAP animation frame: the panels asked for, arranged in a W x H frame,
-- over one view of a simulation (retrace.shmap.view). Panels: memory, cache,
-- active, refs, timeline, stats, legend; a panel not asked for is not drawn and
-- its part of the view is not collected.
--
--   local frame = require "retrace.displays.shmap.frame"
--   local f = assert(frame.new(sim, trace, {panels = {"memory", "stats"}, width = 1280,
--                                           height = 720, shades = 4, fade = 1}))
--   sim:step(10); f:update(); f:draw(cv, {x = 0, y = 0, w = 1280, h = 720}); f.view:new_frame()
--   f:data()   -- {rects = {memory = {...}, ...}, panels = {memory = data, ...}}
--
-- Arrangement: memory at the top left with the cache window and the legend in a
-- column at its right; active, refs, timeline and stats share a row below.
local common = require "retrace.displays.shmap.common"
local shmap = require "retrace.shmap"
local colors = require "retrace.colors"

local M = {}

M.names = { "memory", "cache", "active", "refs", "timeline", "stats", "legend" }

local function module(name) return require("retrace.displays.shmap." .. name) end

--- Panels from "memory,cache,..." or "all": a list in the order of M.names, or nil
-- and a message naming the unknown panel.
function M.parse_panels(s)
  local want = {}
  for name in tostring(s):gmatch("[^,%s]+") do
    if name == "all" then
      for _, n in ipairs(M.names) do want[n] = true end
    else
      local known = false
      for _, n in ipairs(M.names) do known = known or n == name end
      if not known then
        return nil, string.format("unknown panel '%s' (%s or all)", name, table.concat(M.names, ", "))
      end
      want[name] = true
    end
  end
  local list = {}
  for _, n in ipairs(M.names) do
    if want[n] then list[#list + 1] = n end
  end
  if #list == 0 then return nil, "no panel named" end
  return list
end

local function has(list, name)
  for _, n in ipairs(list) do if n == name then return true end end
  return false
end

-- Split the span [x, x + w) into n parts of the given weights with gap between.
local function split(x, w, weights, gap)
  local total = 0
  for _, v in ipairs(weights) do total = total + v end
  local free = w - gap * (#weights - 1)
  local out, at = {}, x
  for i, v in ipairs(weights) do
    local len = i == #weights and (x + w - at) or math.floor(free * v / total)
    out[i] = { at, len }
    at = at + len + gap
  end
  return out
end

--- Rectangles of the panels of `list` in rect (a pure function of its arguments).
function M.plan(list, rect)
  local margin, gap = 8, 12
  local r = { x = rect.x + margin, y = rect.y + margin, w = rect.w - 2 * margin, h = rect.h - 2 * margin }
  local side, bottom = {}, {}
  for _, n in ipairs({ "cache", "legend" }) do if has(list, n) then side[#side + 1] = n end end
  for _, n in ipairs({ "active", "refs", "timeline", "stats" }) do if has(list, n) then bottom[#bottom + 1] = n end end
  local mem = has(list, "memory")
  local top_n = (mem and 1 or 0) + #side
  local rows = {}
  if top_n > 0 then rows[#rows + 1] = "top" end
  if #bottom > 0 then rows[#rows + 1] = "bottom" end
  local hs = split(r.y, r.h, #rows == 2 and { 0.6, 0.4 } or { 1 }, gap)
  local rects = {}
  for i, which in ipairs(rows) do
    local y, h = hs[i][1], hs[i][2]
    if which == "bottom" then
      -- the statistics take a wider share: their tables keep every number
      local weights = {}
      for k, n in ipairs(bottom) do weights[k] = (n == "stats" and #bottom > 1) and 1.7 or 1 end
      local ws = split(r.x, r.w, weights, gap)
      for k, n in ipairs(bottom) do rects[n] = { x = ws[k][1], y = y, w = ws[k][2], h = h } end
    elseif mem and #side > 0 then
      local ws = split(r.x, r.w, { 0.7, 0.3 }, gap)
      rects.memory = { x = ws[1][1], y = y, w = ws[1][2], h = h }
      local vs = split(y, h, #side == 2 and { 0.6, 0.4 } or { 1 }, gap)
      for k, n in ipairs(side) do rects[n] = { x = ws[2][1], y = vs[k][1], w = ws[2][2], h = vs[k][2] } end
    elseif mem then
      rects.memory = { x = r.x, y = y, w = r.w, h = h }
    else
      local ws = split(r.x, r.w, #side == 2 and { 0.6, 0.4 } or { 1 }, gap)
      for k, n in ipairs(side) do rects[n] = { x = ws[k][1], y = y, w = ws[k][2], h = h } end
    end
  end
  -- without the legend panel, a key line of PE colours under the memory panel
  if mem and not has(list, "legend") and rects.memory and rects.memory.h > 120 then
    local m = rects.memory
    local kh = common.label_h + 2
    rects.key = { x = m.x, y = m.y + m.h - kh, w = m.w, h = kh }
    m.h = m.h - kh - 2
  end
  return rects
end

--- The view options the panels at `rects` need (shades, fade and every panel's part).
function M.view_opts(rects, opts)
  local vo = { shades = opts.shades or 4, fade = opts.fade or 1 }
  local aspect
  if rects.memory then
    local lc, sc = module("memory").canvases(common.inner(rects.memory))
    local x0, y0 = math.min(lc.x, sc.x), math.min(lc.y, sc.y)
    local x1, y1 = math.max(lc.x + lc.w, sc.x + sc.w), math.max(lc.y + lc.h, sc.y + sc.h)
    aspect = (x1 - x0) / (y1 - y0)
  end
  for name, r in pairs(rects) do
    local mod = name ~= "key" and module(name)
    for k, v in pairs(mod and mod.view_opts(r, aspect) or {}) do vo[k] = v end
  end
  return vo
end

--- The gray-mode palette of P PEs and K shades (entry p*(K+1)+s, as
-- colors.processors): the levels 255 down to 64 are cut into P bands, PE 0's the
-- lightest; a PE's pure level is the top of its band and its shades step down
-- inside it, toward the black background. A faded cell keeps its PE's identity:
-- it never reaches the level of another PE, pure or faded. Returns the palette and
-- the levels (a list of entries, 0-based index + 1).
function M.gray_palette(P, K)
  local top, bottom = 255, 64
  local band = (top - bottom + 1) / P
  local levels, list = {}, {}
  for p = 0, P - 1 do
    local hi = top - p * band
    local step = (band - 1) / (K + 1) -- the band's last level stays above the next PE's top
    for s = 0, K do
      local v = math.floor(hi - s * step + 0.5)
      levels[#levels + 1] = v
      list[#list + 1] = string.format("#%02x%02x%02x", v, v, v)
    end
  end
  return colors.palette(list), levels
end

local F = {}
F.__index = F

--- The frame of the panels opts.panels (a list, or a string for parse_panels) at
-- opts.width x opts.height over a new view of sim (trace: its opened trace, for the
-- matrices and time span; machine: pes, caches, cache_size, line, cache). Other opts:
-- shades, fade, gray, per_event (flashes filled), window, scroll (active graph),
-- rect (where in the picture; default the whole frame). Returns the frame, or nil and a message.
function M.new(sim, trace, opts)
  local list = opts.panels or M.names
  if type(list) == "string" then
    local l, err = M.parse_panels(list)
    if not l then return nil, err end
    list = l
  end
  local rect = opts.rect or { x = 0, y = 0, w = opts.width, h = opts.height }
  local rects = M.plan(list, rect)
  local view, err = shmap.view(sim, M.view_opts(rects, opts))
  if not view then return nil, err end
  local st = sim:stats()
  local shades = opts.shades or 4
  local m = opts.machine or {}
  local ctx = {
    view = view, sim = sim, trace = trace, matrices = trace:matrices(), info = trace:info(),
    pes = #st.pes, ncaches = #st.caches, shades = shades, gray = opts.gray or false,
    palette = opts.gray and M.gray_palette(#st.pes, shades)
      or colors.processors(#st.pes, { shades = shades, gray = false }),
    per_event = opts.per_event or false, window = opts.window, scroll = opts.scroll,
    line = m.line, cache_lines = m.cache_size and m.line and m.cache_size // m.line,
  }
  local f = setmetatable({ view = view, ctx = ctx, rects = rects, list = list, displays = {} }, F)
  for _, n in ipairs(list) do f.displays[n] = module(n).new(ctx) end
  return f
end

function F:update(state, t)
  for _, n in ipairs(self.list) do
    local d = self.displays[n]
    if d.update then d:update(state, t) end
  end
end

--- Draw every panel at its planned rectangle, each clipped to it.
function F:draw(cv)
  for _, n in ipairs(self.list) do
    local r = self.rects[n]
    cv:save()
    cv:clip_rect(r.x, r.y, r.w, r.h) -- a panel never draws over another
    self.displays[n]:draw(cv, r)
    cv:restore()
  end
  if self.rects.key then self.key = module("legend").key(cv, self.rects.key, self.ctx) end
  return self
end

function F:data()
  local panels = {}
  for _, n in ipairs(self.list) do panels[n] = self.displays[n]:data() end
  return { rects = self.rects, panels = panels, key = self.key }
end

return M
