--- retrace.chitra.views: write every Chitra view of a session into a folder, each
-- picture next to its data (JSON for all, CSV for the tables), and the chain picture.
--
--   local views = require "retrace.chitra.views"
--   views.write_all(ses, "out", {format = "png", range = {a, b}, shade = {"A,B"}})
--   views.chain_picture(chain, "chain.pdf")
require "retrace" -- installs the searcher for retrace.displays.*
local fs = require "retrace.fs"
local cjson = require "cjson"

local M = {}

local function display(name) return require("retrace.displays.chitra." .. name) end

--- Write rows as CSV under a header (retrace.fs.write_csv); nil, message on failure.
M.write_csv = fs.write_csv

--- Render the chain picture (.png, .pdf, .svg).
function M.chain_picture(chain, path, opts)
  return display("chain").render(chain, path, opts)
end

--- Every view of member opts.member (default 1) into dir: time, event, frequency
-- (event and time domain), the h(s)/T and occurrence-count histograms, the occupancy
-- histogram of the symbol holding most time, the chain, and for an ensemble every
-- member's periodogram in one frequency view; views.json holds all their
-- data, sequence.csv / periodogram.csv / symbols.csv the tables. opts.format: png
-- (default), pdf or svg; opts.range (zoom) and opts.shade (patterns) go to the time and
-- event views (the event view takes opts.event_range when given); opts.chain: the
-- session's ses:chain() when the caller has it (it is not built again). Returns the list
-- of files written, or nil, message.
function M.write_all(ses, dir, opts)
  opts = opts or {}
  local fmt = opts.format or "png"
  if fmt ~= "png" and fmt ~= "pdf" and fmt ~= "svg" then
    return nil, "views: format must be png, pdf or svg"
  end
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, "views: " .. err end
  local files, data = {}, {}
  local function out(name) local p = dir .. "/" .. name; files[#files + 1] = p; return p end
  local member = opts.member or 1
  local seq = display("sequence")
  local d, why = seq.render(ses, out("time." .. fmt), { domain = "time", member = member,
    range = opts.range, shade = opts.shade })
  if not d then return nil, why end
  data.time = d
  d, why = seq.render(ses, out("event." .. fmt), { domain = "event", member = member,
    range = opts.event_range, shade = opts.shade })
  if not d then return nil, why end
  data.event = d
  local freq = display("frequency")
  if ses:length(member) >= 2 then
    d, why = freq.render(ses, out("frequency." .. fmt), { domain = "event", member = member })
    if not d then return nil, why end
    data.frequency = d
    d = freq.render(ses, out("frequency_time." .. fmt), { domain = "time", member = member })
    data.frequency_time = d or nil
    if not d then files[#files] = nil end
  end
  if ses:members() > 1 then
    d, why = freq.ensemble(ses, { domain = "event" })
    if not d then return nil, why end
    ok, why = display("plot").to_file(out("frequency_members." .. fmt), 1000, 400,
      function(cv, box) freq.draw_ensemble(cv, d, box) end)
    if not ok then return nil, why end
    data.frequency_members = d
  end
  local hist = display("histogram")
  data.shares = assert(hist.render(hist.shares(ses), out("shares." .. fmt)))
  data.counts = assert(hist.render(hist.counts(ses), out("counts." .. fmt)))
  local top = data.shares.values[1]
  if top then
    data.occupancy = assert(hist.render(assert(hist.occupancy(ses, top[1])), out("occupancy." .. fmt)))
  end
  local chain = opts.chain or assert(ses:chain())
  local pos
  pos, why = M.chain_picture(chain, out("chain." .. fmt))
  if not pos then return nil, why end
  data.chain = chain:to_table()
  data.chain.composites = chain:definitions()
  data.chain.layout = pos
  ok, why = fs.write_file(out("views.json"), cjson.encode(data) .. "\n")
  if not ok then return nil, why end
  local rows, syms, times, entries = {}, ses:symbols(member), ses:times(member), ses:entries(member)
  for i = 1, #syms do rows[i] = { i, entries[i], times[i], syms[i] } end
  assert(M.write_csv(out("sequence.csv"), { "event", "entry", "occupancy", "symbol" }, rows))
  if data.frequency then
    rows = {}
    for i = 1, #data.frequency.freq do rows[i] = { data.frequency.freq[i], data.frequency.power[i] } end
    assert(M.write_csv(out("periodogram.csv"), { "frequency", "power" }, rows))
  end
  local stats, T = ses:stats()
  rows = {}
  for s, v in pairs(stats) do rows[#rows + 1] = { s, v.count, v.h, v.share } end
  table.sort(rows, function(a, b) return a[3] > b[3] end)
  assert(M.write_csv(out("symbols.csv"), { "symbol", "count", "h", "h/T" }, rows))
  data.T = T
  return files
end

return M
