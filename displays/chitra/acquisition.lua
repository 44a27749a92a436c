--- The resource acquisition-time graph (Chitra's Figure 15), per thread: every
-- acquisition as a point (x: the time it began, y: how long it took), one colour
-- and marker per thread, and each thread's mean as a dashed line; the legend gives
-- each thread's count and mean. Data from retrace.chitra.acquisition.compute.
--   local v = require "retrace.displays.chitra.acquisition"
--   local d = assert(v.data(ses, {"A1", "A2"}))
--   local disp = v.new(d); disp:draw(cv, rect); disp:data(); v.render(d, "acq.png")
-- disp:data() adds to d the plot rectangle and axes (retrace.plot.to_pixel(dd, x, y)
-- gives where a point went) and the legend.
local plot = require "retrace.plot"
local view = require "retrace.displays.chitra.view"
local acq = require "retrace.chitra.acquisition"
local member_colors = require("retrace.displays.chitra.frequency").member_colors

local M = {}

--- The data of the graph: acquisition.compute(ses, states) | nil, message.
function M.data(ses, states)
  return acq.compute(ses, states)
end

--- The colour and marker of the k-th thread listed.
function M.style(k)
  return member_colors[(k - 1) % #member_colors + 1], plot.markers[(k - 1) % #plot.markers + 1]
end

--- The plot (not drawn).
function M.plot(d, opts)
  opts = opts or {}
  local lo, hi, top = math.huge, -math.huge, 0
  for _, t in ipairs(d.threads) do
    for i, s in ipairs(t.starts) do
      if s < lo then lo = s end
      if s > hi then hi = s end
      if t.durations[i] > top then top = t.durations[i] end
    end
  end
  if lo > hi then lo, hi = 0, 1 end
  local unit = opts.unit or "time units"
  local p = plot.new { title = opts.title or ("Resource acquisition time per thread (states "
    .. table.concat(d.states, ", ") .. ")"),
    x = { label = "time the acquisition began", unit = unit },
    y = { label = "acquisition time", unit = unit, lo = 0, hi = math.max(top, 1e-300) * 1.08 },
    legend = "outside" }
  for k, t in ipairs(d.threads) do
    local color, marker = M.style(k)
    local label = string.format("%s: %d acquired, mean %s", t.label, t.n, t.mean and plot.format_number(t.mean, 4) or "-")
    p:points(t.starts, t.durations, { color = color, marker = marker, radius = 3, label = label })
    if t.mean then
      p:line({ lo, hi }, { t.mean, t.mean }, { color = color, dash = { 5, 3 }, width = 1, legend = false })
    end
  end
  local cut = 0
  for _, t in ipairs(d.threads) do cut = cut + t.cut end
  if cut > 0 then
    p:note(string.format("%d %s open at the start or end of a run not measured", cut,
      cut == 1 and "acquisition" or "acquisitions"))
  end
  return p
end

--- The graph as a display.
function M.new(d, opts)
  return view.display(d, M.plot, opts, nil, "acquisition")
end

--- Render into a file (.png, .pdf, .svg); returns its data or nil, message.
function M.render(d, path, opts)
  opts = opts or {}
  return view.render(M.new(d, opts), path, opts.width or 900, opts.height or 450)
end

return M
