--- retrace.display: the protocol every display follows, and helpers to render
-- displays and compose several in one frame.
--
-- A display is a table (usually made by a module's new(ctx, opts)) with:
--   d:update(state, t)   bring it to time t (animated displays; every display of a
--                        frame is updated to the same t before any is drawn)
--   d:finish(state)      end-of-run displays: called once when the run is over
--   d:draw(cv, rect)     paint into rect = {x =, y =, w =, h =} of canvas cv
--   d:data()             every value drawn and where: at least
--                        { plot = {x, y, w, h} (device pixels),
--                          axes = { x = {lo, hi, log =}, y = {...} }, ... }
--                        for plotted displays, so display.to_pixel(d:data(), x, y)
--                        finds the pixel of any data point.
-- A static picture is a display without update. retrace.plot objects are displays.
--
--   display.static(draw_fn [, data_fn])      -> a display from two functions
--   display.render(disp, path, w, h [, opts]) -> writes .png / .pdf / .svg; returns data
--   display.compose(list [, opts])          -> one display of several in titled panels
--   display.update_all(list, state, t)      -> every display of a frame to time t
--   display.to_pixel(data, x, y)            -> device pixel of a data point
--   display.check(disp)                     -> disp, or an error naming what is missing
local M = {}

local canvas -- loaded on first use (keeps the module cheap to require)

--- Raise unless d follows the protocol (draw and data functions).
function M.check(d, level)
  if type(d) ~= "table" then
    error("display: expected a table with draw and data, got " .. type(d), (level or 1) + 1)
  end
  for _, k in ipairs({ "draw", "data" }) do
    if type(d[k]) ~= "function" then
      error("display: missing method '" .. k .. "'", (level or 1) + 1)
    end
  end
  return d
end

local Static = {}
Static.__index = Static
Static.__tostring = function(s) return "retrace.Display(static)" end

function Static:draw(cv, rect)
  self.result = self.draw_fn(cv, rect)
  return self
end

function Static:data()
  if self.data_fn then return self.data_fn(self.result) end
  return self.result
end

--- A static display from draw_fn(cv, rect) -> data; data_fn(result) optional.
function M.static(draw_fn, data_fn)
  return setmetatable({ draw_fn = draw_fn, data_fn = data_fn }, Static)
end

--- Update every display of a frame (those that have update) to the same time t.
function M.update_all(list, state, t)
  for _, d in ipairs(list) do
    if d.update then d:update(state, t) end
  end
end

--- Call finish(state) on every display that has it.
function M.finish_all(list, state)
  for _, d in ipairs(list) do
    if d.finish then d:finish(state) end
  end
end

local Composite = {}
Composite.__index = Composite
Composite.__tostring = function(c) return string.format("retrace.Display(%d panels)", #c.list) end

function Composite:update(state, t) M.update_all(self.list, state, t) end

function Composite:finish(state) M.finish_all(self.list, state) end

function Composite:draw(cv, rect)
  local layout = require "retrace.layout"
  local o = self.opts
  local n = #self.list
  local cols = o.cols or 1
  local rows = o.rows or math.ceil(n / cols)
  local panels = {}
  for i, d in ipairs(self.list) do
    panels[i] = { title = self.titles[i], draw = function(c, inner) d:draw(c, inner) end }
  end
  self.inners = layout.compose(cv, rect, cols, rows, panels, o)
  return self
end

function Composite:data()
  local out = {}
  for i, d in ipairs(self.list) do
    out[i] = { title = self.titles[i], rect = self.inners and self.inners[i], data = d:data() }
  end
  return { panels = out }
end

--- Several displays in one frame, each in a titled panel (retrace.layout.compose).
-- list: {{title =, display = d}, ...} or plain displays; opts: cols (1), rows, gap,
-- and layout.panel's options. The composite is itself a display.
function M.compose(list, opts)
  local ds, titles = {}, {}
  for i, e in ipairs(list) do
    if type(e) == "table" and e.display then
      ds[i], titles[i] = M.check(e.display, 2), e.title
    else
      ds[i] = M.check(e, 2)
    end
  end
  return setmetatable({ list = ds, titles = titles, opts = opts or {} }, Composite)
end

--- Draw disp on a new w x h picture (by the file name: .png, .pdf, .svg) on a
-- background (opts.background, "white") and write it. Returns disp:data(), or nil
-- and a message (unknown extension, unwritable file).
function M.render(disp, path, w, h, opts)
  canvas = canvas or require "retrace.canvas"
  opts = opts or {}
  local cv, why = canvas.for_file(path, w, h)
  if not cv then return nil, why end
  cv:background(opts.background or "white")
  disp:draw(cv, { x = 0, y = 0, w = w, h = h })
  local ok, err = cv:write(path)
  if not ok then return nil, err end
  return disp:data()
end

--- Draw disp on a new image canvas w x h; returns the canvas (for pixel probes) and data.
function M.image(disp, w, h, background)
  canvas = canvas or require "retrace.canvas"
  local cv = canvas.image(w, h, background or "white")
  disp:draw(cv, { x = 0, y = 0, w = w, h = h })
  return cv, disp:data()
end

--- Device pixel of data point (x, y) from a data() table holding plot and axes.
function M.to_pixel(d, x, y)
  return require("retrace.plot").to_pixel(d, x, y)
end

return M
