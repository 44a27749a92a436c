--- Frequency view: the periodogram of the state signal (FFTW), in the event domain
-- (cycles per event) or the time domain (cycles per time unit), with its strongest
-- peaks marked and labelled (labels that would overlap are dropped).
--   local v = require "retrace.displays.chitra.frequency"
--   local d = v.data(ses, {domain = "event" | "time", member = 1, samples = N, peaks = 5,
--                          columns = 914})
--   v.draw(cv, d, {x, y, w, h}); v.render(ses, "freq.png", opts)
-- A periodogram with more bins than the plot has pixel columns arrives reduced in C
-- (core/seq rt_spectrum_columns): the data then holds one column per pixel, never
-- one entry per bin, whatever the length of the sequence.
local plot = require "retrace.displays.chitra.plot"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"

local M = {}

--- {domain, member, bins, fmax, peaks = {{freq =, power =}, ...} strongest first, and
-- either freq = {}, power = {} (one entry per bin, when bins <= opts.columns) or
-- columns = {count, lo = {}, hi = {}, mean = {}, n = {}} (per pixel column: smallest,
-- largest and mean power of its bins, -1 when it has none, and how many). The k = 0
-- bin is left out: the mean is removed before the transform.
function M.data(ses, opts)
  opts = opts or {}
  local domain = opts.domain or "event"
  if domain ~= "event" and domain ~= "time" then
    return nil, "periodogram: domain must be 'event' or 'time'"
  end
  local core = ses.core or ses
  local member = opts.member or 1
  local ncols = opts.columns or 914
  local sp, err = core:spectrum(member, domain, opts.samples or 0, ncols, opts.peaks or 5, ncols)
  if not sp then return nil, err end
  local d = { domain = domain, member = member, bins = sp.bins, fmax = sp.fmax, peaks = {},
              freq = sp.freq, power = sp.power, columns = sp.columns }
  for j = 1, #sp.peaks.freq do d.peaks[j] = { freq = sp.peaks.freq[j], power = sp.peaks.power[j] } end
  return d
end

-- The largest power the data holds (raw bins or reduced columns).
local function top_power(d)
  local top = 0
  for _, p in ipairs(d.power or d.columns.hi) do if p > top then top = p end end
  return top
end

--- Place labels {x, y, text, ...} (anchor points, most important first) without
-- overlap: each goes right of its point, else left of it, else it is dropped.
-- Returns the kept labels with their boxes {x, y, w, h} and alignment.
function M.place_labels(cv, labels, bounds, size)
  local kept = {}
  local function free(b)
    if b[1] < bounds[1] or b[1] + b[3] > bounds[1] + bounds[3] or b[2] < bounds[2] then return false end
    for _, k in ipairs(kept) do
      local o = k.box
      if b[1] < o[1] + o[3] and o[1] < b[1] + b[3] and b[2] < o[2] + o[4] and o[2] < b[2] + b[4] then
        return false
      end
    end
    return true
  end
  cv:font("DejaVu Sans", size)
  for _, l in ipairs(labels) do
    local w, h = cv:text_size(l.text)
    for _, side in ipairs { "left", "right" } do
      local x = side == "left" and l.x + 5 or l.x - 5 - w
      local b = { x, l.y - h, w, h }
      if free(b) then
        kept[#kept + 1] = { x = x, y = l.y, text = l.text, box = b, peak = l.peak }
        break
      end
    end
  end
  return kept
end

--- Draw d into box; returns the frame and sets d.placed = {box = plot area, x = {0, fmax},
-- y = {0, top}, labels = {{text, box = {x, y, w, h}, peak = j}}} in device pixels.
function M.draw(cv, d, box, opts)
  opts = opts or {}
  local top = top_power(d)
  local fmax = d.fmax or 0.5
  local p = plot.frame(cv, box, {
    x = { 0, fmax }, y = { 0, top > 0 and top * 1.12 or 1 },
    title = opts.title or "Frequency view", ylabel = "power",
    xlabel = d.domain == "time" and "frequency (cycles per time unit)" or "frequency (cycles per event)" })
  local ix, iy, iw, ih = table.unpack(p.box)
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  local seg = canvas.pack(4)
  if d.columns then
    local c, hi = d.columns.count, d.columns.hi
    for j = 1, c do
      if hi[j] >= 0 then
        local x = ix + (j - 0.5) / c * iw
        seg:push(x, p.sy(0), x, p.sy(hi[j]))
      end
    end
  else
    for i = 1, #d.freq do
      local x = p.sx(d.freq[i])
      seg:push(x, p.sy(0), x, p.sy(d.power[i]))
    end
  end
  cv:segments(seg, { color = colors.ink(opts.color or "darkblue"), width = 1 })
  local marks = {}
  for j, pk in ipairs(d.peaks) do
    local x, y = p.sx(pk.freq), p.sy(pk.power)
    cv:circle(x, y, 3, colors.ink("crimson"))
    marks[j] = { x = x, y = y - 2, text = plot.label(tonumber(string.format("%.4g", pk.freq))), peak = j }
  end
  cv:restore()
  local kept = M.place_labels(cv, marks, { ix, iy, iw, ih }, 10)
  for _, l in ipairs(kept) do
    cv:text(l.x, l.y, l.text, { valign = "bottom", size = 10, color = colors.ink("crimson") })
  end
  d.placed = { box = { ix, iy, iw, ih }, x = { 0, fmax }, y = { 0, top > 0 and top * 1.12 or 1 },
               labels = kept }
  return p
end

--- Periodograms of every member of an ensemble, to compare their footprints:
-- {domain, curves = {{member =, label =, freq = {} | columns =, power = {}}}} (each
-- member's data as M.data without peaks).
function M.ensemble(ses, opts)
  opts = opts or {}
  local d = { domain = opts.domain or "event", curves = {} }
  for k = 1, ses:members() do
    local one, err = M.data(ses, { member = k, domain = d.domain, samples = opts.samples, peaks = 0,
                                   columns = opts.columns })
    if not one then return nil, err end
    d.curves[k] = { member = k, label = ses.files[k] or ("member " .. k), freq = one.freq,
                    power = one.power, columns = one.columns, fmax = one.fmax }
  end
  return d
end

M.member_colors = { "darkblue", "crimson", "darkgreen", "orange", "purple", "teal", "brown", "magenta" }

--- Draw the curves of M.ensemble, one colour per member, with a legend.
function M.draw_ensemble(cv, d, box, opts)
  opts = opts or {}
  local top, right = 0, 0
  for _, c in ipairs(d.curves) do
    top = math.max(top, top_power(c))
    right = math.max(right, c.fmax or 0)
  end
  local p = plot.frame(cv, box, { x = { 0, right > 0 and right or 0.5 }, y = { 0, top > 0 and top * 1.05 or 1 },
    title = opts.title or "Frequency view of the ensemble", ylabel = "power",
    xlabel = d.domain == "time" and "frequency (cycles per time unit)" or "frequency (cycles per event)" })
  local ix, iy, iw, ih = table.unpack(p.box)
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  for k, c in ipairs(d.curves) do
    local pts = {}
    if c.columns then
      for j = 1, c.columns.count do
        if c.columns.hi[j] >= 0 then
          pts[#pts + 1] = p.sx((j - 0.5) / c.columns.count * c.fmax)
          pts[#pts + 1] = p.sy(c.columns.hi[j])
        end
      end
    else
      for i = 1, #c.freq do pts[#pts + 1] = p.sx(c.freq[i]); pts[#pts + 1] = p.sy(c.power[i]) end
    end
    local col = colors.ink(M.member_colors[(k - 1) % #M.member_colors + 1])
    if #pts >= 4 then cv:polyline(pts, { color = col, width = 1 }) end
  end
  cv:restore()
  for k, c in ipairs(d.curves) do
    local y = iy + 6 + 14 * (k - 1)
    cv:rect(ix + iw - 190, y, 10, 10, colors.ink(M.member_colors[(k - 1) % #M.member_colors + 1]))
    cv:text(ix + iw - 176, y + 5, c.label:match("[^/]*$"), { valign = "middle", size = 10, color = "black" })
  end
  return p
end

function M.render(ses, path, opts)
  opts = opts or {}
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  o.columns = o.columns or math.max(1, (opts.width or 1000) - 76) -- the plot's pixels
  local d, err = M.data(ses, o)
  if not d then return nil, err end
  return plot.render(M, d, path, opts.width or 1000, opts.height or 400, opts)
end

return M
