--- displays/medea/scatter_matrix: every pair of parameters in one picture, the
-- components coloured and marked by cluster (one legend for all). Cell (row i,
-- column j), j < i, plots parameter i against parameter j; the parameter names
-- label the left column and the bottom row, the diagonal names each parameter.
--
--   local d = scatter_matrix.new(ctx, {params = {"extime", ...}, values = {[name] = {v per component}},
--                                      clusters =, names =, title =, log = "auto" | true | false})
--   d:draw(cv, rect); d:data() -> { cells = {{x_param, y_param, plot = retrace.plot data}},
--                                   legend = {x, y, w, h, items}, diagonal = {{param, x, y}} }
-- Fewer than two parameters or two components: no matrix; the display says so in
-- words, and data().message holds the sentence.
local plot = require "retrace.plot"
local style = require "retrace.displays.medea.style"
local colors = require "retrace.colors"

local M = {}
local D = {}
D.__index = D
D.__tostring = function(d) return "retrace.medea.ScatterMatrix(" .. #d.o.params .. " parameters)" end

function M.new(_, o) return setmetatable({ o = o }, D) end

function D:draw(cv, rect)
  local o = self.o
  local n, ncomp = #o.params, #(o.values[o.params[1]] or {})
  self.cells, self.diagonal, self.legend, self.message = {}, {}, nil, nil
  if n < 2 or ncomp < 2 then
    self.message = n < 2 and "one parameter only: a scatter matrix needs two or more"
      or "fewer than two components: a scatter matrix needs two or more"
    cv:text(rect.x + rect.w / 2, rect.y + rect.h / 2, self.message, { align = "center", valign = "middle",
      size = 14, color = "black" })
    return self
  end
  local k = 0
  for i = 1, ncomp do k = math.max(k, o.clusters and o.clusters[i] or 1) end
  -- title and one legend for every cell
  local y = rect.y + 6
  if o.title then
    cv:text(rect.x + rect.w / 2, y, o.title, { align = "center", valign = "top", size = 14, bold = true,
      color = "black" })
    y = y + 22
  end
  local items = {}
  for h = 1, k do
    local count = 0
    for i = 1, ncomp do if (o.clusters and o.clusters[i] or 1) == h then count = count + 1 end end
    items[h] = { string.format("cluster %d (%d)", h, count), style.cluster_color(h) }
  end
  -- the legend shows each cluster's marker in its colour (the marker alone tells
  -- clusters apart in gray), wrapping to more lines when the width runs out
  local lx, ly, lh = rect.x + 10, y, 18
  for h, it in ipairs(items) do
    local tw = cv:text_size(it[1], 11)
    if lx + 18 + tw > rect.x + rect.w - 10 and lx > rect.x + 10 then lx, ly = rect.x + 10, ly + lh end
    plot.marker(cv, style.cluster_marker(h), lx + 6, ly + lh / 2, 5,
      { fill = colors.ink(it[2]), stroke = "black", width = 0.5 })
    cv:text(lx + 16, ly + lh / 2, it[1], { valign = "middle", size = 11, color = "black" })
    lx = lx + 16 + tw + 14
  end
  self.legend = { x = rect.x + 10, y = y, w = rect.w - 20, h = ly + lh - y, items = items }
  y = ly + lh + 6
  -- the lower triangle: n - 1 rows (parameters 2..n) by n - 1 columns (1..n-1)
  local m = n - 1
  local cw, ch = (rect.w - 12) / m, (rect.y + rect.h - y - 4) / m
  for i = 2, n do
    for j = 1, i - 1 do
      local cx, cy = rect.x + 6 + (j - 1) * cw, y + (i - 2) * ch
      local xs, ys = o.values[o.params[j]], o.values[o.params[i]]
      local left, bottom = j == 1, i == n
      -- every cell keeps its parameters' units and scales; only the outer ones are labelled
      local ax, ay = style.axis(o.params[j], o.log, { ticks = 3 }), style.axis(o.params[i], o.log, { ticks = 3 })
      if not bottom then ax.label, ax.unit_only = nil, true end
      if not left then ay.label, ay.unit_only = nil, true end
      local p = plot.new{ size = 9, legend = false, x = ax, y = ay }
      for h = 1, k do
        local px, py = {}, {}
        for c = 1, ncomp do
          if (o.clusters and o.clusters[c] or 1) == h then px[#px + 1], py[#py + 1] = xs[c], ys[c] end
        end
        if #px > 0 then
          p:points(px, py, { color = style.cluster_color(h), marker = style.cluster_marker(h) })
        end
      end
      p:draw(cv, { x = cx, y = cy, w = cw, h = ch })
      self.cells[#self.cells + 1] = { x_param = o.params[j], y_param = o.params[i], plot = p:data() }
    end
    -- the diagonal's place on this row holds the row's parameter name, when there is room
    if i <= m then
      local dx, dy = rect.x + 6 + (i - 1) * cw + cw / 2, y + (i - 2) * ch + ch / 2
      cv:text(dx, dy, o.params[i], { align = "center", valign = "middle", size = 12, color = "#404040" })
      self.diagonal[#self.diagonal + 1] = { param = o.params[i], x = dx, y = dy }
    end
  end
  return self
end

function D:data()
  if self.message then return { message = self.message } end
  return { params = self.o.params, cells = self.cells, legend = self.legend, diagonal = self.diagonal }
end

--- Both steps at once: draw into rect and return the data.
function M.draw(cv, rect, o)
  return M.new(nil, o):draw(cv, rect):data()
end

return M
