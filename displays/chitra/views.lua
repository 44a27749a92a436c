--- Every Chitra view of a session written into a folder, each picture next to its
-- data (JSON for all, CSV for the tables), and the chain picture. The orchestration
-- of the displays for `retrace chitra --views` and `--chain FILE.png`.
--
--   local views = require "retrace.displays.chitra.views"
--   views.write_all(ses, "out", {format = "png", range = {t0, t1}, shade = {"A,B"}, min_prob = 0.01})
--   views.chain_picture(chain, "chain.pdf", {min_prob = 0.01})
local fs = require "retrace.fs"
local view = require "retrace.displays.chitra.view"

local M = {}

local function display(name) return require("retrace.displays.chitra." .. name) end

--- The event range showing the elements that touch the time range {t0, t1} of
-- member k (element i spans [i - 1, i] on the event axis); nil when none does.
function M.event_range(ses, k, range)
  local core = ses -- the library session (retrace.chitra)
  local first, count = core:view_span(k, "time", range[1], range[2])
  if count == 0 then return nil end
  return { first - 1, first - 1 + count }
end

--- Write rows as CSV under a header (retrace.fs.write_csv); nil, message on failure.
M.write_csv = fs.write_csv

--- Render the chain picture (.png, .pdf, .svg); opts.min_prob hides rarer arcs.
-- Returns the picture's data (retrace.displays.chitra.chain) or nil, message.
function M.chain_picture(chain, path, opts)
  return display("chain").render(chain, path, opts)
end

--- Lists in views.json longer than this are cut (see M.bounded).
M.MAX_LIST = 5000

--- A copy of t whose lists longer than max (M.MAX_LIST) are cut to their first max
-- items followed by a note {cut = true, items = the full length}: what the pictures
-- draw is bounded by the pixels, but a sequence of 10^6 distinct states names 10^6
-- rows, and views.json stays bounded too.
function M.bounded(t, max)
  max = max or M.MAX_LIST
  if type(t) ~= "table" then return t end
  local n = #t
  local out = {}
  if n > max then
    for i = 1, max do out[i] = M.bounded(t[i], max) end
    out[max + 1] = { cut = true, items = n }
    return out
  end
  for k, v in pairs(t) do out[k] = M.bounded(v, max) end
  return out
end

-- A member's name in titles: its file name without the folders, or "run K".
local function member_label(ses, k)
  local f = ses.files and ses.files[k]
  return f and (tostring(f):match("[^/]*$")) or ("run " .. k)
end
M.member_label = member_label

-- One picture of several displays of equal size, stacked (small multiples), or the
-- only one; returns the data: a single display's, or {panels = {{title, rect, data}}}.
local function stack(list, path, w, each_h)
  local display = require "retrace.display"
  if #list == 1 then return view.render(list[1].display, path, w, each_h) end
  return display.render(display.compose(list, { cols = 1 }), path, w, math.min(8000, #list * (each_h + 24)))
end

--- Every view into dir: time, event, frequency (event and time domain), the h(s)/T and
-- occurrence-count histograms, the occupancy histograms of opts.occupancy (a list of
-- symbols; default: the symbol holding most time), the chain; views.json holds all
-- their data, periodogram.csv and symbols.csv the tables, sequence.csv (one row per
-- element; large) only with opts.csv.
--
-- Ensembles: opts.member (a member number) draws that run alone, its file named in
-- each title; without it the time, event and frequency views are small multiples, one
-- panel per run, stacked top to bottom in file order and titled by file, and
-- frequency_members overlays every run's spectrum. opts.format: png (default), pdf or
-- svg; opts.range (zoom, a time range) limits the time view and the time-domain
-- spectrum to it, and the event view and event-domain spectrum to the events it
-- touches (or opts.event_range when given); opts.shade (patterns) shades the time and
-- event views; opts.full_spectrum: one FFT of the whole signal instead of Welch's
-- averaging; opts.min_prob hides the chain's rarer arcs; opts.chain: the session's
-- ses:chain() when the caller has it. Returns the list of files written, or nil, message.
function M.write_all(ses, dir, opts)
  opts = opts or {}
  local fmt = opts.format or "png"
  if fmt ~= "png" and fmt ~= "pdf" and fmt ~= "svg" then
    return nil, "views: format must be png, pdf or svg"
  end
  if opts.member and (math.type(opts.member) ~= "integer" or opts.member < 1 or opts.member > ses:members()) then
    return nil, string.format("views: no run %s (the ensemble has %d)", tostring(opts.member), ses:members())
  end
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, "views: " .. err end
  local files, data = {}, {}
  local function out(name) local p = dir .. "/" .. name; files[#files + 1] = p; return p end
  local members = {}
  if opts.member then members[1] = opts.member else for k = 1, ses:members() do members[k] = k end end
  local many = ses:members() > 1
  data.members = {}
  for i, k in ipairs(members) do data.members[i] = { member = k, label = member_label(ses, k) } end
  data.layout = #members > 1 and "small multiples: one panel per run, top to bottom in file order" or
    (many and ("run " .. members[1] .. " of " .. ses:members() .. " (" .. member_label(ses, members[1]) .. ")") or nil)

  local seq, W = display("sequence"), 1000
  -- the event range of each member for a time zoom
  local erange = {}
  for _, k in ipairs(members) do
    erange[k] = opts.event_range or (opts.range and M.event_range(ses, k, opts.range))
    if opts.range and not erange[k] then
      return nil, "views: no event in the zoom range" .. (many and (" in " .. member_label(ses, k)) or "")
    end
  end
  for _, dom in ipairs { "time", "event" } do
    local list, h = {}, 300
    for i, k in ipairs(members) do
      local title = (dom == "time" and "Time view" or "Event view") .. (many and (" - " .. member_label(ses, k)) or "")
      local disp, why = seq.new(ses, { domain = dom, member = k, range = dom == "time" and opts.range or erange[k],
        shade = opts.shade, columns = W - 120, title = title })
      if not disp then return nil, why end
      h = math.max(h, math.min(1400, 90 + 14 * #disp.d.labels))
      list[i] = { display = disp, title = many and #members > 1 and member_label(ses, k) or nil }
    end
    local d, why = stack(list, out(dom .. "." .. fmt), W, h)
    if not d then return nil, why end
    data[dom] = d
  end

  local freq = display("frequency")
  local long = true
  for _, k in ipairs(members) do long = long and ses:length(k) >= 2 end
  if long then
    for _, dom in ipairs { "event", "time" } do
      local list = {}
      for i, k in ipairs(members) do
        local disp, why = freq.new(ses, { domain = dom, member = k, full = opts.full_spectrum,
          range = dom == "time" and opts.range or erange[k], label = many and member_label(ses, k) or nil })
        if not disp then
          if dom == "time" then list = nil break end -- a run spanning no time has no time spectrum
          return nil, why
        end
        list[i] = { display = disp, title = #members > 1 and member_label(ses, k) or nil }
      end
      if list then
        local name = dom == "event" and "frequency" or "frequency_time"
        local d, why = stack(list, out(name .. "." .. fmt), W, 400)
        if not d then return nil, why end
        data[name] = d
      end
    end
  end
  if many and not opts.member then
    local disp, why = freq.new_ensemble(ses, { domain = "event", full = opts.full_spectrum })
    if not disp then return nil, why end
    local d
    d, why = display("view").render(disp, out("frequency_members." .. fmt), 1000, 400)
    if not d then return nil, why end
    data.frequency_members = d
  end

  local hist = display("histogram")
  local stats, T = ses:stats() -- once: a sequence of 10^6 distinct symbols has 10^6 entries
  data.shares = assert(hist.render(hist.shares(ses, { stats = stats }), out("shares." .. fmt)))
  data.counts = assert(hist.render(hist.counts(ses, { stats = stats }), out("counts." .. fmt)))
  local syms = opts.occupancy
  if not syms or #syms == 0 then syms = { data.shares.values[1] and data.shares.values[1][1] } end
  if #syms > 0 then
    local list = {}
    for i, sym in ipairs(syms) do
      local d, why = hist.occupancy(ses, sym)
      if not d then return nil, "views: " .. why end
      list[i] = { display = hist.new(d), title = #syms > 1 and sym or nil }
    end
    local d, why
    if #list == 1 then
      d, why = view.render(list[1].display, out("occupancy." .. fmt), 700, 400)
    else
      -- small multiples, two a row
      local disp = require("retrace.display").compose(list, { cols = 2 })
      d, why = require("retrace.display").render(disp, out("occupancy." .. fmt), 1200, 360 * math.ceil(#list / 2))
    end
    if not d then return nil, why end
    data.occupancy = d
  end
  local chain = opts.chain or assert(ses:chain())
  local pic, why = M.chain_picture(chain, out("chain." .. fmt), { min_prob = opts.min_prob })
  if not pic then return nil, why end
  if #chain.states <= M.MAX_LIST then
    data.chain = chain:to_table()
    data.chain.composites = chain:definitions()
  else
    -- a chain of 10^6 states is the --chain FILE.json's business, not the pictures'
    data.chain = { states = #chain.states, arcs = #chain.arcs,
                   note = "too many states to list here: --chain FILE.json writes the whole chain" }
  end
  data.chain.picture = pic
  if opts.acquisition then
    -- the acquisition-time graph of the states given (Figure 15 of Chitra)
    local acqv = display("acquisition")
    local d
    d, why = acqv.data(ses, opts.acquisition)
    if not d then return nil, "views: " .. why end
    d, why = acqv.render(d, out("acquisition." .. fmt))
    if not d then return nil, why end
    data.acquisition = d
  end
  ok, why = fs.write_file(out("views.json"), require("retrace.json").encode(M.bounded(data)) .. "\n")
  if not ok then return nil, why end
  if opts.csv then
    -- the whole sequence of each run shown, streamed by C (never a Lua list)
    for _, k in ipairs(members) do
      ok, why = ses:write_csv(k, out(#members > 1 and ("sequence_" .. k .. ".csv") or "sequence.csv"))
      if not ok then return nil, why end
    end
  end
  local f = data.frequency and (data.frequency.panels and data.frequency.panels[1].data or data.frequency)
  if f then
    local rows = {}
    if not f.freq then
      -- a long spectrum: one row per pixel column (its frequency range and powers)
      local c = f.columns
      local w = #c.count
      for j = 1, w do
        local empty = c.count[j] == 0
        rows[j] = { c.x0 + (j - 1) / w * (c.x1 - c.x0), c.x0 + j / w * (c.x1 - c.x0), c.count[j],
                    empty and "" or c.min[j], empty and "" or c.mean[j], empty and "" or c.max[j] }
      end
      assert(M.write_csv(out("periodogram.csv"), { "frequency_from", "frequency_to", "bins", "min_power",
        "mean_power", "max_power" }, rows))
    else
      for i = 1, #f.freq do rows[i] = { f.freq[i], f.power[i] } end
      assert(M.write_csv(out("periodogram.csv"), { "frequency", "power" }, rows))
    end
  end
  local rows = {}
  for sym, v in pairs(stats) do rows[#rows + 1] = { sym, v.count, v.h, v.share } end
  table.sort(rows, function(a, b) return a[3] > b[3] end)
  assert(M.write_csv(out("symbols.csv"), { "symbol", "count", "h", "h/T" }, rows))
  data.T = T
  return files
end

return M
