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

function M.render(ses, path, opts)
  opts = opts or {}
  local d, err = M.data(ses, opts)
  if not d then return nil, err end
  local w, h = opts.width or 1000, opts.height or 400
  local cv, why = canvas.for_file(path, w, h)
  if not cv then return nil, why end
  cv:background("white")
  M.draw(cv, d, { 0, 0, w, h }, opts)
  local ok, werr = cv:write(path)
  if not ok then return nil, werr end
  return d
end

return M
