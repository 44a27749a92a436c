--- SHMAP's memory canvases: the load canvas and the store canvas side by side,
-- one region per matrix (ID order, left to right, wrapping), cells lit in the
-- accessing PE's colour and fading (the view's grids; see retrace.shmap.view).
--   local memory = require "retrace.displays.shmap.memory"
--   local d = memory.new(ctx)      -- ctx from retrace.displays.shmap.frame
--   d:draw(cv, rect); d:data()     -- data: canvases, regions, f, k, cells flashed this frame
local common = require "retrace.displays.shmap.common"
local canvas = require "retrace.canvas"

local M = { name = "memory", title = "Memory" }

M.id_size = 9          -- the matrix IDs in the regions' corners
M.id_bg = "#404040"
M.tick_ink = "#b0b0b0"   -- row and column numbers on the black canvas

--- The two canvases (loads, stores) inside the panel's inner rectangle, each
-- below a line of labels: side by side, or one above the other in a tall panel.
function M.canvases(inner)
  local gap, lh = 8, common.label_h
  if inner.h > inner.w then
    local h = math.max(1, (inner.h - gap) // 2 - lh)
    return { x = inner.x, y = inner.y + lh, w = inner.w, h = h },
           { x = inner.x, y = inner.y + 2 * lh + h + gap, w = inner.w, h = h }
  end
  local w = math.max(1, (inner.w - gap) // 2)
  local h = math.max(1, inner.h - lh)
  return { x = inner.x, y = inner.y + lh, w = w, h = h }, { x = inner.x + w + gap, y = inner.y + lh, w = w, h = h }
end

--- What the view must keep for this panel, for the panel's outer rectangle.
function M.view_opts(rect)
  local lc = M.canvases(common.inner(rect))
  -- regions stand apart by the height of their ID labels, drawn above each one
  return { memory = { w = lc.w, h = lc.h, gap = M.id_size + 4 } }
end

local D = {}
D.__index = D

function M.new(ctx)
  return setmetatable({ ctx = ctx, flash = canvas.pack(4), flash2 = canvas.pack(4) }, D)
end

function D:update() end

-- The title's note: cell size (or sharing), matrices left out, the frame's flashes.
local function region_note(lay, nmat, flashes)
  local parts = {}
  if lay.k and lay.k > 1 then
    parts[1] = string.format("%d x %d elements share a pixel", lay.k, lay.k)
  else
    parts[1] = string.format("%d px per element", lay.f or 1)
  end
  if lay.hidden and lay.hidden > 0 then
    parts[#parts + 1] = string.format("%d of %d matrices do not fit", lay.hidden, nmat)
  end
  parts[#parts + 1] = common.count(flashes) .. (flashes == 1 and " cell flashed" or " cells flashed")
  return table.concat(parts, "; ")
end

function D:draw(cv, rect)
  local ctx, view = self.ctx, self.ctx.view
  local lay, g = view:layout(), view:grids()
  local inner = common.inner(rect)
  local lc, sc = M.canvases(inner)
  -- flashed cells of this frame on the two canvases: filled black when frames are per
  -- event, else outlined on cells of 5 pixels or more (a smaller cell would be all outline)
  -- flashed cells of this frame: filled black per event; outlined in black on cells
  -- of 5 pixels or more; on smaller cells an outline one pixel outside the cell, in
  -- white, so that it shows on the black canvas and on lit neighbours alike
  local fill = ctx.per_event
  local small = not fill and (lay.f or 1) < 5
  local inset = fill and 0 or small and -0.5 or 0.5
  local nl = view:flash_rects(0, self.flash, inset)
  local ns = view:flash_rects(1, self.flash2, inset)
  local note = region_note(lay, #ctx.matrices, nl + ns)
  common.title(cv, rect, M.title, note)
  local out = { loads = lc, stores = sc, f = lay.f, k = lay.k, note = note, regions = {},
                flashed = { loads = nl, stores = ns } }
  for which, c in ipairs({ lc, sc }) do
    local grids = which == 1 and g.loads or g.stores
    cv:text(c.x, c.y - common.label_h + 1, which == 1 and "loads" or "stores",
      { valign = "top", size = common.text_size, color = common.ink })
    cv:rect(c.x, c.y, c.w, c.h, common.canvas_bg)
    for i, r in ipairs(lay.regions or {}) do
      if r.shown and grids[i] then
        local x, y = c.x + r.x, c.y + r.y
        if r.w >= 8 and r.h >= 8 then -- a frame around regions big enough to carry one
          cv:rect(x - 0.5, y - 0.5, r.w + 1, r.h + 1, { stroke = common.region_border, width = 1 })
        end
        cv:grid(grids[i], ctx.palette, x, y, r.w, r.h)
      end
    end
    local n = which == 1 and nl or ns
    if n > 0 then
      cv:save()
      cv:clip_rect(c.x, c.y, c.w, c.h)
      cv:translate(c.x, c.y)
      cv:rects(which == 1 and self.flash or self.flash2,
        { color = small and "#ffffff" or "#000000", stroke = not fill, width = 1 })
      cv:restore()
    end
    -- each region's matrix above its top left corner, in the gap between regions: its
    -- name (or number) and shape when they fit, the number alone otherwise; then the
    -- last column's number at the top right and the first and last rows' at the left,
    -- where the margins leave room (the view lays regions out; ticks never overlap it)
    for i, r in ipairs(lay.regions or {}) do
      local m = ctx.matrices[i]
      if r.shown and m then
        local ly = r.y - M.id_size - 3
        local label = string.format("%s %s (%d x %d)", m.name and "" or "matrix", m.name or tostring(m.id),
          m.rows, m.cols):gsub("^ ", "")
        local lw = common.width(cv, label, M.id_size) + 4
        if r.w < lw then
          label = tostring(m.id)
          lw = common.width(cv, label, M.id_size) + 4
        end
        if r.w >= lw and ly >= 0 then
          cv:rect(c.x + r.x, c.y + ly, lw, M.id_size + 2, M.id_bg)
          cv:text(c.x + r.x + 2, c.y + ly, label, { valign = "top", size = M.id_size, color = "#ffffff" })
          if which == 1 then out.ids = out.ids or {}; out.ids[i] = { id = m.id, x = r.x, y = ly, w = lw, label = label } end
          local last = tostring(m.cols)
          local tw = common.width(cv, last, M.id_size)
          if r.w >= lw + tw + 8 then
            cv:text(c.x + r.x + r.w, c.y + ly, last, { align = "right", valign = "top", size = M.id_size,
              color = M.tick_ink })
            if which == 1 then out.ids[i].last_col = { x = r.x + r.w - tw, y = ly } end
          end
        end
        local rw = common.width(cv, tostring(m.rows), M.id_size)
        if r.x >= rw + 4 and r.h >= 2 * M.id_size + 4 then
          for _, row in ipairs { 1, m.rows } do
            local yy = row == 1 and r.y or r.y + r.h - M.id_size
            cv:text(c.x + r.x - 3, c.y + yy, tostring(row), { align = "right", valign = "top", size = M.id_size,
              color = M.tick_ink })
          end
          if which == 1 then out.ids = out.ids or {}; out.ids[i] = out.ids[i] or { id = m.id }; out.ids[i].rows_ticked = true end
        end
      end
    end
  end
  for i, r in ipairs(lay.regions or {}) do
    local m = ctx.matrices[i]
    out.regions[i] = { id = m.id, rows = m.rows, cols = m.cols, shown = r.shown, x = r.x, y = r.y,
                       w = r.w, h = r.h, cw = r.cw, ch = r.ch }
  end
  out.small_flash = small
  self.out = out
  return self
end

--- Device pixel of the centre of element (row, col) of matrix index i on the
-- load canvas (which = "loads") or the store canvas, from data().
function M.element_center(d, i, row, col, which)
  local c, r = d[which or "loads"], d.regions[i]
  local k, f = d.k, d.f
  return c.x + r.x + ((col - 1) // k + 0.5) * f, c.y + r.y + ((row - 1) // k + 0.5) * f
end

function D:data() return self.out end

return M
