--- Every Chitra view of a session written into a folder, each picture next to its
-- data (JSON for all, CSV for the tables), and the chain picture. The orchestration
-- of the displays for `retrace chitra --views` and `--chain FILE.png`.
--
--   local views = require "retrace.displays.chitra.views"
--   views.write_all(ses, "out", {format = "png", range = {t0, t1}, shade = {"A,B"}, min_prob = 0.01})
--   views.chain_picture(chain, "chain.pdf", {min_prob = 0.01})
local fs = require "retrace.fs"

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

--- Every view of member opts.member (default 1) into dir: time, event, frequency
-- (event and time domain), the h(s)/T and occurrence-count histograms, the occupancy
-- histogram of the symbol holding most time, the chain, and for an ensemble every
-- member's periodogram in one frequency view; views.json holds all their
-- data, sequence.csv / periodogram.csv / symbols.csv the tables. opts.format: png
-- (default), pdf or svg; opts.range (zoom, a time range) and opts.shade (patterns) go to
-- the time and event views: the event view shows the events the time range touches
-- (or opts.event_range when given); opts.min_prob hides the chain's rarer arcs;
-- opts.chain: the session's ses:chain() when the caller has it (it is not built
-- again). Returns the list of files written, or nil, message.
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
  local erange = opts.event_range or (opts.range and M.event_range(ses, member, opts.range))
  if opts.range and not erange then return nil, "views: no event in the zoom range" end
  d, why = seq.render(ses, out("event." .. fmt), { domain = "event", member = member,
    range = erange, shade = opts.shade })
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
    local disp
    disp, why = freq.new_ensemble(ses, { domain = "event" })
    if not disp then return nil, why end
    d, why = display("view").render(disp, out("frequency_members." .. fmt), 1000, 400)
    if not d then return nil, why end
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
  local pic
  pic, why = M.chain_picture(chain, out("chain." .. fmt), { min_prob = opts.min_prob })
  if not pic then return nil, why end
  data.chain = chain:to_table()
  data.chain.composites = chain:definitions()
  data.chain.picture = pic
  ok, why = fs.write_file(out("views.json"), require("retrace.json").encode(data) .. "\n")
  if not ok then return nil, why end
  -- the whole sequence, streamed by C (a 10^7-element member is never a Lua list)
  ok, why = ses:write_csv(member, out("sequence.csv"))
  if not ok then return nil, why end
  local rows
  if data.frequency then
    rows = {}
    local f = data.frequency
    if not f.freq then
      -- a long periodogram: one row per pixel column (its frequency range and powers)
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
  local stats, T = ses:stats()
  rows = {}
  for s, v in pairs(stats) do rows[#rows + 1] = { s, v.count, v.h, v.share } end
  table.sort(rows, function(a, b) return a[3] > b[3] end)
  assert(M.write_csv(out("symbols.csv"), { "symbol", "count", "h", "h/T" }, rows))
  data.T = T
  return files
end

return M
