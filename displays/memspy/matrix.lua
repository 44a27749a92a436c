--- displays/memspy/matrix: MemSpy's code x data matrix as a heat map with its
-- margins. Rows are code segments, columns data bins, both sorted by their share
-- of the total memory stall time (run:matrix()); each cell is coloured by its
-- share on one heat scale and carries the percentage; empty cells stay blank;
-- the first row and column are the column and row totals, on a grey band.
--
--   local d = matrix.new(ctx, {run = run [, top = {rows, cols}] [, title =]})
--   d:draw(cv, rect); d:data() -> {rows, cols, cells = {{row, col, value, x, y, w, h, color}},
--     row_total = {{row, value, x, y, w, h}}, col_total = {...}, colorbar = {x, y, w, h, lo, hi},
--     plot = {x, y, w, h}}
local colors = require "retrace.colors"
local style = require "retrace.displays.memspy.style"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.memspy.Matrix(" .. #d.m.rows .. " x " .. #d.m.cols .. ")" end

local STEPS = 64

function M.new(_, o)
  local m = o.matrix or o.run:matrix{ top = o.top }
  return setmetatable({ o = o, m = m }, D)
end

function D:draw(cv, rect)
  local m, o = self.m, self.o
  local pal = style.heat(STEPS)
  local hi = 0
  for i = 1, #m.rows do
    for j = 1, #m.cols do hi = math.max(hi, m.cell[i][j] or 0) end
  end
  if hi <= 0 then hi = 1 end
  local out = { rows = m.rows, cols = m.cols, cells = {}, row_total = {}, col_total = {},
                title = o.title or "Percentage of total memory stall time" }
  cv:save()
  cv:font(nil, 14, true)
  cv:set_rgba(0, 0, 0, 1)
  cv:text(rect.x + rect.w / 2, rect.y + 8, out.title, { align = "center", valign = "top" })
  cv:font(nil, 11)
  local sub = string.format("rows: code segments, columns: data bins; total stall %s cycles",
    require("retrace.memspy").short(m.stall, 1))
  cv:text(rect.x + rect.w / 2, rect.y + 28, sub, { align = "center", valign = "top", color = "#404040" })
  -- layout: row labels on the left, column labels above, colour bar at the bottom
  local lw = cv:text_size("code segments")
  for _, r in ipairs(m.rows) do lw = math.max(lw, cv:text_size(r)) end
  lw = math.min(lw + 12, rect.w * 0.3)
  local top, bottom = rect.y + 92, rect.y + rect.h - 60
  local ncol, nrow = #m.cols + 1, #m.rows + 1
  local cw = math.min(140, (rect.w - 20 - lw) / math.max(ncol, 1))
  local ch = math.min(56, (bottom - top) / math.max(nrow, 1))
  -- the grid centred across the width
  local gx = rect.x + (rect.w - lw - cw * ncol) / 2 + lw
  local gy = top
  out.plot = { x = gx, y = gy, w = cw * ncol, h = ch * nrow }
  -- column headers: the total, then the data bins (cut to the cell width)
  local heads = { "total" }
  for _, c in ipairs(m.cols) do heads[#heads + 1] = c end
  for j, h in ipairs(heads) do
    cv:text(gx + (j - 0.5) * cw, gy - 6, style.fit(cv, h, cw - 4),
      { align = "center", valign = "bottom", bold = j == 1 })
  end
  cv:text(gx + cw * (ncol + 1) / 2, gy - 26, "data bins", { align = "center", valign = "bottom", color = "#404040" })
  cv:text(gx - 6, gy - 6, "code segments", { align = "right", valign = "bottom", color = "#404040" })
  local rows = { "total" }
  for _, r in ipairs(m.rows) do rows[#rows + 1] = r end
  for i, r in ipairs(rows) do
    cv:text(gx - 6, gy + (i - 0.5) * ch, style.fit(cv, r, lw - 6), { align = "right", valign = "middle", bold = i == 1 })
  end
  -- the margins' band: grey in colour; white in gray mode, where grey is the heat scale
  local band = colors.mode == "gray" and "#ffffff" or "#d9d9d9"
  local function cell(i, j, v, heat)
    local x, y = gx + (j - 1) * cw, gy + (i - 1) * ch
    local fill = "#ffffff"
    if v and heat then
      local k = math.min(STEPS - 1, math.floor(v / hi * (STEPS - 1) + 0.5))
      fill = pal:hex(k)
    elseif not heat then
      fill = band
    end
    cv:rect(x, y, cw, ch, { fill = fill, stroke = "#a0a0a0", width = 0.5 })
    if v then
      cv:text(x + cw / 2, y + ch / 2, string.format("%.1f", v),
        { align = "center", valign = "middle", color = colors.contrast(fill), bold = not heat })
    end
    return { x = x, y = y, w = cw, h = ch, color = fill }
  end
  local corner = cell(1, 1, m.total, false)
  out.total = { value = m.total, x = corner.x, y = corner.y, w = cw, h = ch }
  for j = 1, #m.cols do
    local b = cell(1, j + 1, m.col_total[j], false)
    out.col_total[j] = { col = m.cols[j], value = m.col_total[j], x = b.x, y = b.y, w = b.w, h = b.h }
  end
  for i = 1, #m.rows do
    local b = cell(i + 1, 1, m.row_total[i], false)
    out.row_total[i] = { row = m.rows[i], value = m.row_total[i], x = b.x, y = b.y, w = b.w, h = b.h }
    for j = 1, #m.cols do
      local v = m.cell[i][j]
      local c = cell(i + 1, j + 1, v, true)
      if v then
        out.cells[#out.cells + 1] = { row = m.rows[i], col = m.cols[j], value = v, x = c.x, y = c.y,
                                      w = c.w, h = c.h, color = c.color }
      end
    end
  end
  -- the margins apart from the body
  cv:line(gx + cw, gy, gx + cw, gy + ch * nrow, { color = "#000000", width = 1.5 })
  cv:line(gx, gy + ch, gx + cw * ncol, gy + ch, { color = "#000000", width = 1.5 })
  -- colour bar: 0 .. the largest cell
  local bw = math.min(320, rect.w - 40)
  local bx, by = rect.x + (rect.w - bw) / 2, gy + ch * nrow + 28
  for k = 0, STEPS - 1 do
    cv:rect(bx + k * bw / STEPS, by, bw / STEPS + 0.5, 12, pal:hex(k))
  end
  cv:rect(bx, by, bw, 12, { stroke = "#606060", width = 0.5 })
  cv:font(nil, 10)
  cv:set_rgba(0, 0, 0, 1)
  cv:text(bx, by + 15, "0", { align = "center", valign = "top" })
  cv:text(bx + bw, by + 15, string.format("%.1f", hi), { align = "center", valign = "top" })
  cv:text(bx + bw / 2, by + 15, "% of total stall time in a cell", { align = "center", valign = "top" })
  out.colorbar = { x = bx, y = by, w = bw, h = 12, lo = 0, hi = hi }
  cv:restore()
  self.out = out
  return self
end

function D:data() return self.out end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

return M
