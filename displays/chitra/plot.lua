--- Axes shared by the Chitra views: a framed plot area with ticks and labels, the
-- mapping from data to canvas coordinates, and writing a view into a picture file.
--
--   local plot = require "retrace.displays.chitra.plot"
--   local p = plot.frame(cv, {x, y, w, h}, {x = {a, b}, y = {lo, hi}, title =, xlabel =,
--                                            ylabels = {[v] = "name"}})
--   p.sx(v), p.sy(v)        -- data -> canvas; p.box = {x, y, w, h} (the inner area)
local canvas = require "retrace.canvas"

local M = {}

--- Draw into a new picture file (.png, .pdf or .svg, by its name) of w x h on white:
-- draw(cv, {0, 0, w, h}), then write it. Returns true, or nil and a message.
function M.to_file(path, w, h, draw)
  local cv, why = canvas.for_file(path, w, h)
  if not cv then return nil, why end
  cv:background("white")
  draw(cv, { 0, 0, w, h })
  local ok, werr = cv:write(path)
  if not ok then return nil, werr end
  return true
end

--- M.to_file for a view module: view.draw(cv, d, box, opts) drawn into path.
-- Returns d, or nil and a message.
function M.render(view, d, path, w, h, opts)
  local ok, why = M.to_file(path, w, h, function(cv, box) view.draw(cv, d, box, opts) end)
  if not ok then return nil, why end
  return d
end

--- "Nice" tick values covering [a, b] (retrace.layout's).
M.ticks = require("retrace.layout").ticks

--- A tick or value label: whole numbers as integers, others to 4 significant digits
-- (the numbers of retrace.chitra.chain).
local label = require("retrace.chitra.chain").number
M.label = label

--- Draw the frame and return the mapping. opts.x / opts.y: data ranges {a, b};
-- opts.ylabels: {[value] = text} instead of numeric y ticks; opts.title, xlabel, ylabel.
function M.frame(cv, box, opts)
  local x, y, w, h = box[1], box[2], box[3], box[4]
  local left = opts.ylabels and (opts.label_width or 70) or 60
  local ix, iy, iw, ih = x + left, y + (opts.title and 28 or 10), w - left - 16, 0
  ih = h - (iy - y) - 44
  local xa, xb = opts.x[1], opts.x[2]
  local ya, yb = opts.y[1], opts.y[2]
  if xb <= xa then xb = xa + 1 end
  if yb <= ya then yb = ya + 1 end
  local p = { box = { ix, iy, iw, ih } }
  function p.sx(v) return ix + (v - xa) / (xb - xa) * iw end
  function p.sy(v) return iy + ih - (v - ya) / (yb - ya) * ih end
  cv:rect(ix, iy, iw, ih, "white")
  cv:color("black")
  if opts.title then
    cv:text(x + w / 2, y + 6, opts.title, { align = "center", valign = "top", size = 14, bold = true })
  end
  local grid = { color = "#e4e4e4", width = 1 }
  for _, t in ipairs(M.ticks(xa, xb, math.max(2, math.floor(iw / 90)))) do
    local sx = p.sx(t)
    cv:line(sx, iy, sx, iy + ih, grid)
    cv:text(sx, iy + ih + 4, label(t), { align = "center", valign = "top", size = 10 })
  end
  if opts.ylabels then
    local n = 0
    for _ in pairs(opts.ylabels) do n = n + 1 end
    local every = math.max(1, math.ceil(n * 12 / math.max(ih, 1)))
    for v, text in pairs(opts.ylabels) do
      local sy = p.sy(v)
      cv:line(ix, sy, ix + iw, sy, grid)
      if v % every == 0 then
        cv:text(ix - 4, sy, text, { align = "right", valign = "middle", size = 10 })
      end
    end
  else
    for _, t in ipairs(M.ticks(ya, yb, math.max(2, math.floor(ih / 50)))) do
      local sy = p.sy(t)
      cv:line(ix, sy, ix + iw, sy, grid)
      cv:text(ix - 4, sy, label(t), { align = "right", valign = "middle", size = 10 })
    end
  end
  cv:rect(ix, iy, iw, ih, { stroke = "black", width = 1 })
  if opts.xlabel then
    cv:text(ix + iw / 2, y + h - 4, opts.xlabel, { align = "center", valign = "bottom", size = 11 })
  end
  if opts.ylabel then
    cv:text(x + 12, iy + ih / 2, opts.ylabel, { align = "center", valign = "middle", size = 11, angle = -90 })
  end
  return p
end

--- Translucent colours for pattern shading, one per pattern, in order.
M.shades = { "#ff8c0060", "#1e90ff60", "#32cd3260", "#ff149360", "#9370db60", "#ffd70080",
             "#00ced160", "#a0522d60" }

return M
