--- Histograms that guide the transforms: occupancy times of one symbol, h(s)/T over
-- the symbols (to choose a time-filter p) and occurrence counts over the symbols (to
-- choose an event-filter p).
--   local v = require "retrace.displays.chitra.histogram"
--   v.occupancy(ses, "EA1", {bins = 20}); v.shares(ses); v.counts(ses)   -- data
--   local disp = v.new(d); disp:draw(cv, rect); disp:data(); v.render(d, "hist.png")
local plot = require "retrace.plot"
local view = require "retrace.displays.chitra.view"

local M = {}

--- Bin values into `bins` equal bins over [min, max]: {edges = {bins + 1}, counts = {bins}}.
function M.bin(values, bins, title, xlabel)
  bins = bins or 20
  local lo, hi = math.huge, -math.huge
  for _, v in ipairs(values) do
    if v < lo then lo = v end
    if v > hi then hi = v end
  end
  if #values == 0 then lo, hi = 0, 1 end
  if hi <= lo then hi = lo + 1 end
  local d = { edges = {}, counts = {}, n = #values, title = title, xlabel = xlabel }
  for i = 0, bins do d.edges[i + 1] = lo + (hi - lo) * i / bins end
  for i = 1, bins do d.counts[i] = 0 end
  for _, v in ipairs(values) do
    local i = math.min(bins, math.floor((v - lo) / (hi - lo) * bins) + 1)
    d.counts[i] = d.counts[i] + 1
  end
  return d
end

--- Occupancy-time histogram of one symbol, binned in C (a symbol of 10^6
-- occurrences never becomes a Lua list).
function M.occupancy(ses, sym, opts)
  local h = ses:occupancy_hist(sym, opts and opts.bins or 20)
  if not h or h.n == 0 then return nil, "histogram: no symbol '" .. tostring(sym) .. "' in the sequence" end
  return { edges = h.edges, counts = h.counts, n = h.n, symbol = sym, title = "Occupancy time of " .. sym,
           xlabel = "occupancy time" }
end

M.TOP = 20 -- symbols listed in d.values (opts.stats: ses:stats() when the caller has it)

-- Histogram of one field of ses:stats() over the symbols; d.values lists the M.TOP
-- largest {symbol, value}, largest first (ties by name), chosen without sorting every
-- symbol: a sequence of 10^6 distinct symbols has 10^6 of them.
local function over_symbols(ses, opts, field, title, xlabel)
  local vals, top = {}, {}
  local function before(a, b) return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1]) end
  for s, v in pairs(opts and opts.stats or ses:stats()) do
    local x = v[field]
    vals[#vals + 1] = x
    local e = { s, x }
    if #top < M.TOP or before(e, top[#top]) then
      local i = math.min(#top, M.TOP - 1) + 1
      while i > 1 and before(e, top[i - 1]) do top[i] = top[i - 1]; i = i - 1 end
      top[i] = e
      top[M.TOP + 1] = nil
    end
  end
  local d = M.bin(vals, opts and opts.bins, title, xlabel)
  d.values = top
  return d
end

--- Histogram of h(s)/T over the symbols; d.values lists the M.TOP largest {symbol, share}.
function M.shares(ses, opts)
  return over_symbols(ses, opts, "share", "h(s)/T over the symbols", "h(s)/T (share of the time)")
end

--- Histogram of occurrence counts over the symbols; d.values lists the M.TOP largest {symbol, count}.
function M.counts(ses, opts)
  return over_symbols(ses, opts, "count", "Occurrences over the symbols", "occurrences of a symbol")
end

--- The plot of a histogram (not drawn): one bar per bin, counts on y.
function M.plot(d, opts)
  opts = opts or {}
  local top = 0
  for _, c in ipairs(d.counts) do if c > top then top = c end end
  local xs, bw = {}, d.edges[2] - d.edges[1]
  for i = 1, #d.counts do xs[i] = (d.edges[i] + d.edges[i + 1]) / 2 end
  local p = plot.new { title = opts.title or d.title, legend = false,
                       x = { label = d.xlabel, lo = d.edges[1], hi = d.edges[#d.edges], pad = 0 },
                       y = { label = "count", lo = 0, hi = math.max(top, 1) * 1.08 } }
  p:bars(xs, d.counts, { width = bw * 0.92, color = opts.color or "steelblue" })
  return p
end

--- A histogram's data as a display.
function M.new(d, opts)
  return view.display(d, M.plot, opts, nil, "histogram")
end

--- Render a histogram into a file; returns its data or nil, message.
function M.render(d, path, opts)
  opts = opts or {}
  return view.render(M.new(d, opts), path, opts.width or 700, opts.height or 400)
end

return M
