--- Frequency view: the periodogram of the state signal (FFTW), in the event domain
-- (cycles per event) or the time domain (cycles per time unit), with its strongest
-- peaks marked.
--   local v = require "retrace.displays.chitra.frequency"
--   local d = v.data(ses, {domain = "event" | "time", member = 1, samples = N, peaks = 5})
--   v.draw(cv, d, {x, y, w, h}); v.render(ses, "freq.png", opts)
local plot = require "retrace.displays.chitra.plot"
local canvas = require "retrace.canvas"

local M = {}

--- {domain, member, freq = {}, power = {}, peaks = {{freq =, power =}, ...}} (k = 0 left out:
-- the mean is removed before the transform).
function M.data(ses, opts)
  opts = opts or {}
  local sp, err = ses:periodogram { member = opts.member or 1, domain = opts.domain or "event",
                                    samples = opts.samples }
  if not sp then return nil, err end
  local d = { domain = sp.domain, member = opts.member or 1, freq = {}, power = {}, peaks = {} }
  for k = 2, #sp.freq do d.freq[k - 1], d.power[k - 1] = sp.freq[k], sp.power[k] end
  local cand = {}
  for i = 1, #d.power do
    local p = d.power[i]
    if (i == 1 or p > d.power[i - 1]) and (i == #d.power or p >= d.power[i + 1]) then
      cand[#cand + 1] = i
    end
  end
  table.sort(cand, function(a, b) return d.power[a] > d.power[b] end)
  for j = 1, math.min(opts.peaks or 5, #cand) do
    d.peaks[j] = { freq = d.freq[cand[j]], power = d.power[cand[j]] }
  end
  return d
end

function M.draw(cv, d, box, opts)
  opts = opts or {}
  local top = 0
  for _, p in ipairs(d.power) do if p > top then top = p end end
  local p = plot.frame(cv, box, {
    x = { 0, d.freq[#d.freq] or 0.5 }, y = { 0, top > 0 and top * 1.05 or 1 },
    title = opts.title or "Frequency view", ylabel = "power",
    xlabel = d.domain == "time" and "frequency (cycles per time unit)" or "frequency (cycles per event)" })
  local ix, iy, iw, ih = table.unpack(p.box)
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  local seg = canvas.pack(4)
  for i = 1, #d.freq do
    local x = p.sx(d.freq[i])
    seg:push(x, p.sy(0), x, p.sy(d.power[i]))
  end
  cv:segments(seg, { color = opts.color or "darkblue", width = 1 })
  for _, pk in ipairs(d.peaks) do
    cv:circle(p.sx(pk.freq), p.sy(pk.power), 3, "crimson")
    cv:text(p.sx(pk.freq) + 5, p.sy(pk.power), plot.label(tonumber(string.format("%.4g", pk.freq))),
      { valign = "bottom", size = 10, color = "crimson" })
  end
  cv:restore()
  return p
end

--- Periodograms of every member of an ensemble, to compare their footprints:
-- {domain, curves = {{member =, label =, freq = {}, power = {}}}}.
function M.ensemble(ses, opts)
  opts = opts or {}
  local d = { domain = opts.domain or "event", curves = {} }
  for k = 1, ses:members() do
    local one, err = M.data(ses, { member = k, domain = d.domain, samples = opts.samples, peaks = 0 })
    if not one then return nil, err end
    d.curves[k] = { member = k, label = ses.files[k] or ("member " .. k), freq = one.freq, power = one.power }
  end
  return d
end

--- Draw the curves of M.ensemble, one colour per member, with a legend.
function M.draw_ensemble(cv, d, box, opts)
  opts = opts or {}
  local top, right = 0, 0
  for _, c in ipairs(d.curves) do
    for i, p in ipairs(c.power) do
      if p > top then top = p end
      if c.freq[i] > right then right = c.freq[i] end
    end
  end
  local p = plot.frame(cv, box, { x = { 0, right > 0 and right or 0.5 }, y = { 0, top > 0 and top * 1.05 or 1 },
    title = opts.title or "Frequency view of the ensemble", ylabel = "power",
    xlabel = d.domain == "time" and "frequency (cycles per time unit)" or "frequency (cycles per event)" })
  local ix, iy, iw, ih = table.unpack(p.box)
  local colours = { "darkblue", "crimson", "darkgreen", "orange", "purple", "teal", "brown", "magenta" }
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  for k, c in ipairs(d.curves) do
    local pts = {}
    for i = 1, #c.freq do pts[#pts + 1] = p.sx(c.freq[i]); pts[#pts + 1] = p.sy(c.power[i]) end
    if #pts >= 4 then cv:polyline(pts, { color = colours[(k - 1) % #colours + 1], width = 1 }) end
  end
  cv:restore()
  for k, c in ipairs(d.curves) do
    local y = iy + 6 + 14 * (k - 1)
    cv:rect(ix + iw - 190, y, 10, 10, colours[(k - 1) % #colours + 1])
    cv:text(ix + iw - 176, y + 5, c.label:match("[^/]*$"), { valign = "middle", size = 10, color = "black" })
  end
  return p
end

function M.render(ses, path, opts)
  opts = opts or {}
  local d, err = M.data(ses, opts)
  if not d then return nil, err end
  return plot.render(M, d, path, opts.width or 1000, opts.height or 400, opts)
end

return M
