--- What the Chitra views share: a view's data (plain tables, JSON ready) turned
-- into a display of the retrace.display protocol whose picture is a retrace.plot.
--
--   local view = require "retrace.displays.chitra.view"
--   local disp = view.display(d, build)   -- build(d, opts, rect) -> a retrace.plot, not drawn
--   disp:draw(cv, {x =, y =, w =, h =}); disp:data()  -- d plus where it was drawn
--   view.render(disp, "out.png", 1000, 400)            -- -> disp:data() | nil, message
local display = require "retrace.display"

local M = {}

local View = {}
View.__index = View
View.__tostring = function(v) return "retrace.Display(chitra " .. tostring(v.kind) .. ")" end

--- Draw into rect ({x, y, w, h} or {x =, y =, w =, h =}).
function View:draw(cv, rect)
  if rect[1] then rect = { x = rect[1], y = rect[2], w = rect[3], h = rect[4] } end
  self.p = self.build(self.d, self.opts, rect)
  self.p:draw(cv, rect)
  if self.after then self.after(cv, self.p, self.d, self.opts) end
  return self
end

--- The view's data, and after draw where it went: plot = {x, y, w, h} (device
-- pixels), axes, placed_labels (drawn / dropped point labels), legend, notes
-- (from retrace.plot's data()).
function View:data()
  local out = {}
  for k, v in pairs(self.d) do out[k] = v end
  local pd = self.p and self.p:data()
  if pd then
    -- the plot's point labels as placed_labels: a sequence view's labels are its rows
    out.plot, out.axes, out.placed_labels, out.legend, out.notes, out.title =
      pd.plot, pd.axes, pd.labels, pd.legend, pd.notes, pd.title
  end
  return out
end

--- A display of data d: build(d, opts, rect) makes the plot; after(cv, p, d, opts), when
-- given, draws what a plot series cannot (in p:data().plot, after the frame).
function M.display(d, build, opts, after, kind)
  return setmetatable({ d = d, build = build, opts = opts or {}, after = after, kind = kind }, View)
end

--- Render a display into a file (.png, .pdf, .svg) of w x h on white.
function M.render(disp, path, w, h)
  return display.render(disp, path, w, h)
end

--- Translucent colours for pattern shading, one per pattern, in order.
M.shades = { "#ff8c0060", "#1e90ff60", "#32cd3260", "#ff149360", "#9370db60", "#ffd70080",
             "#00ced160", "#a0522d60" }
-- In gray mode hues turn into nearly one grey: translucent blacks of distinct depth.
M.gray_shades = { "#00000028", "#00000070", "#00000048", "#00000098" }

--- The shading colour of the i-th pattern (1-based) in the current colour mode.
function M.shade(i)
  local list = require("retrace.colors").mode == "gray" and M.gray_shades or M.shades
  return list[(i - 1) % #list + 1]
end

--- The x axis title of a frequency: cycles per event or per time unit.
function M.frequency_axis(domain)
  return { label = "frequency", unit = domain == "time" and "cycles per time unit" or "cycles per event" }
end

return M
