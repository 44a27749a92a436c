--- Frequency view: the periodogram of the state signal (FFTW), in the event domain
-- (cycles per event) or the time domain (cycles per time unit), with its strongest
-- peaks marked and labelled (retrace.plot drops or offsets labels that would overlap).
--
--   local v = require "retrace.displays.chitra.frequency"
--   local d = v.data(ses, {domain = "event" | "time", member = 1, samples = N, peaks = 5,
--                          columns = 900})
--   local disp = v.new(ses, opts)        -- a display: disp:draw(cv, rect), disp:data()
--   v.render(ses, "freq.png", opts)      -- -> disp:data() or nil, message
--
-- The periodogram reaches Lua reduced in C to one column per pixel (core/util
-- rt_reduce: count, min, max, mean of the bins in each column), whatever the length
-- of the sequence; the bins themselves come along only when there are no more of
-- them than columns.
local plot = require "retrace.plot"
local colors = require "retrace.colors"
local view = require "retrace.displays.chitra.view"

local M = {}

M.COLUMNS = 900 -- about the plot width of a 1000-pixel picture

--- The Welch segment that gives at least `columns` frequency bins: the smallest power
-- of two of 2 x columns or more.
function M.segment_for(columns)
  local L = 2
  while L < 2 * columns do L = L * 2 end
  return L
end

--- {domain, member, bins, fmax, segments, segment, method, range, columns (retrace.reduce
-- columns over [0, fmax]), peaks = {{freq =, power =}, ...} strongest first, and freq =
-- {}, power = {} (one entry per bin) when bins <= columns}. The k = 0 bin is left out:
-- each segment's mean is removed first. The spectrum is sized to the picture: Welch's
-- method (Hann-windowed segments of M.segment_for(columns) samples, overlapping by half,
-- averaged) unless opts.full (one Hann-windowed FFT of the whole signal). opts.range
-- ({a, b} in the domain's units: events or time) limits it to a zoom.
function M.data(ses, opts)
  opts = opts or {}
  local domain = opts.domain or "event"
  if domain ~= "event" and domain ~= "time" then
    return nil, "periodogram: domain must be 'event' or 'time'"
  end
  local core = ses -- the library session (retrace.chitra)
  local member = opts.member or 1
  local ncols = opts.columns or M.COLUMNS
  local segment = opts.full and 0 or M.segment_for(ncols)
  local sp, err = core:spectrum(member, domain, opts.samples or 0, ncols, opts.peaks or 5, ncols,
    { range = opts.range, segment = segment })
  if not sp then return nil, err end
  local d = { domain = domain, member = member, bins = sp.bins, fmax = sp.fmax, peaks = {},
              freq = sp.freq, power = sp.power, columns = sp.columns, segments = sp.segments,
              segment = sp.segment, range = opts.range, label = opts.label,
              method = sp.segments > 1 and string.format("Welch: %d Hann-windowed segments of %d samples",
                sp.segments, sp.segment) or "one Hann-windowed FFT of the whole signal" }
  for j = 1, #sp.peaks.freq do d.peaks[j] = { freq = sp.peaks.freq[j], power = sp.peaks.power[j] } end
  return d
end

-- Columns drawn as stems from 0 to the strongest bin of each column.
local function stems(cols)
  local zero = {}
  for i = 1, #cols.count do zero[i] = 0 end
  return { x0 = cols.x0, x1 = cols.x1, count = cols.count, min = zero, max = cols.max, mean = cols.mean }
end

local function top_power(cols)
  local top = 0
  for i, c in ipairs(cols.count) do if c > 0 and cols.max[i] > top then top = cols.max[i] end end
  return top
end

--- The plot of d (not drawn).
function M.plot(d, opts)
  opts = opts or {}
  local top = top_power(d.columns)
  local x = view.frequency_axis(d.domain)
  x.lo, x.hi = 0, d.fmax
  local title = opts.title or ("Frequency view (" .. d.domain .. " domain" .. (d.label and ", " .. d.label or "")
    .. (d.range and string.format(", %s %s to %s", d.domain == "time" and "time" or "events",
      plot.format_number(d.range[1], 6), plot.format_number(d.range[2], 6)) or "") .. ")")
  local p = plot.new { title = title, legend = false, x = x,
                       y = { label = "power", lo = 0, hi = top > 0 and top * 1.15 or 1 } }
  p:columns(stems(d.columns), { color = opts.color or "darkblue", mean_color = false })
  local fx, fy, labels = {}, {}, {}
  for j, pk in ipairs(d.peaks) do
    fx[j], fy[j] = pk.freq, pk.power
    labels[j] = { x = pk.freq, y = pk.power, text = plot.format_number(pk.freq, 4), priority = pk.power }
  end
  if #fx > 0 then
    p:points(fx, fy, { color = "crimson", radius = 3 })
    p:labels(labels, { color = colors.ink("crimson") })
  end
  return p
end

--- The frequency view of a session as a display.
function M.new(ses, opts)
  local d, err = M.data(ses, opts)
  if not d then return nil, err end
  return view.display(d, M.plot, opts, nil, "frequency")
end

--- Periodograms of every member of an ensemble, to compare their footprints:
-- {domain, curves = {{member =, label =, fmax =, columns =}}} (each member's data as
-- M.data without peaks).
function M.ensemble(ses, opts)
  opts = opts or {}
  local d = { domain = opts.domain or "event", curves = {} }
  for k = 1, ses:members() do
    local one, err = M.data(ses, { member = k, domain = d.domain, samples = opts.samples, peaks = 0,
                                   columns = opts.columns, full = opts.full, range = opts.range })
    if not one then return nil, err end
    d.curves[k] = { member = k, label = ses.files[k] or ("member " .. k), fmax = one.fmax,
                    columns = one.columns, freq = one.freq, power = one.power }
  end
  return d
end

M.member_colors = { "darkblue", "crimson", "darkgreen", "orange", "purple", "teal", "brown", "magenta" }
M.member_dashes = { false, { 6, 3 }, { 2, 2 }, { 8, 3, 2, 3 } }

--- The plot of M.ensemble's curves (not drawn): each member's column maxima as a
-- line, one colour per member, in the legend by file name.
function M.plot_ensemble(d, opts)
  opts = opts or {}
  local top, right = 0, 0
  for _, c in ipairs(d.curves) do
    top = math.max(top, top_power(c.columns))
    right = math.max(right, c.fmax)
  end
  local x = view.frequency_axis(d.domain)
  x.lo, x.hi = 0, right > 0 and right or 0.5
  local p = plot.new { title = opts.title or "Frequency view of the ensemble", legend = "auto", x = x,
                       y = { label = "power", lo = 0, hi = top > 0 and top * 1.1 or 1 } }
  for k, c in ipairs(d.curves) do
    local xs, ys = {}, {}
    local cols, w = c.columns, #c.columns.count
    for i = 1, w do
      if cols.count[i] > 0 then
        xs[#xs + 1] = cols.x0 + (i - 0.5) * (cols.x1 - cols.x0) / w
        ys[#ys + 1] = cols.max[i]
      end
    end
    -- in gray mode the hues come close: dashes tell the members apart too
    local dash = colors.mode == "gray" and M.member_dashes[(k - 1) % #M.member_dashes + 1] or nil
    p:line(xs, ys, { color = M.member_colors[(k - 1) % #M.member_colors + 1], width = 1,
                     dash = dash or nil, label = c.label:match("[^/]*$") })
  end
  return p
end

--- The ensemble view as a display.
function M.new_ensemble(ses, opts)
  local d, err = M.ensemble(ses, opts)
  if not d then return nil, err end
  return view.display(d, M.plot_ensemble, opts, nil, "frequency of the ensemble")
end

--- Render the view of a session into a file; returns its data or nil, message.
function M.render(ses, path, opts)
  opts = opts or {}
  local disp, err = M.new(ses, opts)
  if not disp then return nil, err end
  return view.render(disp, path, opts.width or 1000, opts.height or 400)
end

return M
