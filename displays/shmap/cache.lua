--- SHMAP's cache window: one region per cache in a row, each line of the cache a
-- row of L squares, several lines side by side per row (the view's cache layout);
-- words lit in the accessing PE's colour and fading like memory.
local common = require "retrace.displays.shmap.common"
local canvas = require "retrace.canvas"

local M = { name = "cache", title = "Caches" }

-- The window's area inside the panel: a label line under the regions.
local function area(inner)
  return { x = inner.x, y = inner.y, w = inner.w, h = math.max(1, inner.h - common.label_h) }
end

--- What the view must keep: the window size, shaped like the memory canvases
-- together (aspect, w/h) when they are shown.
function M.view_opts(rect, aspect)
  local a = area(common.inner(rect))
  return { cache = { w = a.w, h = a.h, gap = 6, aspect = aspect or (a.w / a.h) } }
end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx, flash = canvas.pack(4) }, D) end

function D:update() end

--- Separators over a cache region at x, y: a line between the cache lines (side
-- by side and row under row) when cells are 2 pixels or more, a fainter one
-- between the words of a line when cells are 4 pixels or more. Returns which
-- were drawn: {lines = bool, words = bool}.
function M.separators(cv, x, y, lay, L)
  local cell, drawn = lay.cell, { lines = false, words = false }
  if not L or L < 1 or cell < 2 then return drawn end
  local cols, rows = lay.per_row * L, lay.rows
  if cell >= 4 and L > 1 then
    drawn.words = true
    for c = 1, cols - 1 do
      if c % L ~= 0 then cv:rect(x + c * cell - 1, y, 1, lay.region_h, M.word_sep) end
    end
  end
  drawn.lines = true
  for c = L, cols - 1, L do cv:rect(x + c * cell - 1, y, 2, lay.region_h, M.line_sep) end
  for r = 1, rows - 1 do cv:rect(x, y + r * cell - 1, lay.region_w, 1, M.line_sep) end
  return drawn
end

M.line_sep = "#707070" -- between cache lines
M.word_sep = "#303030" -- between the words of a line

function D:draw(cv, rect)
  local ctx = self.ctx
  local lay = ctx.view:layout().cache
  local inner = common.inner(rect)
  if not lay then
    common.title(cv, rect, M.title, "cache off")
    self.out = { off = true }
    return self
  end
  local a = area(inner)
  local ox = a.x + math.floor((a.w - lay.w) / 2)
  local oy = a.y + math.floor((a.h - lay.h) / 2)
  common.title(cv, rect, M.title, string.format("%d lines of %d words, %d per row", ctx.cache_lines or 0,
    ctx.line or 0, lay.per_row))
  cv:rect(ox, oy, lay.w, lay.h, common.canvas_bg)
  local g = ctx.view:grids().caches
  local out = { window = { x = ox, y = oy, w = lay.w, h = lay.h }, cell = lay.cell, per_row = lay.per_row,
                regions = {} }
  for c, grid in ipairs(g) do
    local x = ox + lay.x0 + (c - 1) * (lay.region_w + lay.gap)
    local y = oy + lay.gap
    cv:grid(grid, ctx.palette, x, y, lay.region_w, lay.region_h)
    out.separators = M.separators(cv, x, y, lay, ctx.line)
    -- the longest label that fits under the region: "cache 0: PE 0-3", "PE 0-3", "0"
    local lo, hi = require("retrace.displays.shmap.legend").pes_of(c - 1, #g, ctx.pes)
    local pes = lo == hi and tostring(lo) or (lo .. "-" .. hi)
    for _, label in ipairs({ string.format("cache %d: PE %s", c - 1, pes), "PE " .. pes, tostring(c - 1) }) do
      if common.width(cv, label, common.text_size) <= lay.region_w + lay.gap - 2 then
        cv:text(x + lay.region_w / 2, oy + lay.h + 2, label,
          { align = "center", valign = "top", size = common.text_size, color = common.ink })
        break
      end
    end
    out.regions[c] = { x = x, y = y, w = lay.region_w, h = lay.region_h }
  end
  -- flashes as on the memory canvases: white outlines around cells under 5 pixels
  local fill = ctx.per_event
  local small = not fill and lay.cell < 5
  if ctx.view:flash_rects(2, self.flash, fill and 0 or small and -0.5 or 0.5) > 0 then
    cv:save()
    cv:clip_rect(ox, oy, lay.w, lay.h)
    cv:translate(ox, oy)
    cv:rects(self.flash, { color = small and "#ffffff" or "#000000", stroke = not fill, width = 1 })
    cv:restore()
  end
  self.out = out
  return self
end

function D:data() return self.out end

return M
