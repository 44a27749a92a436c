-- Chitra views: the data behind each picture (time, event, frequency, histograms,
-- zoom, pattern shading, chain layout), the pictures in PNG / PDF / SVG, and --views.
local h = require "helpers"
require "retrace"
local chitra = require "retrace.chitra"
local canvas = require "retrace.canvas"
local seqv = require "retrace.displays.chitra.sequence"
local timev = require "retrace.displays.chitra.time"
local eventv = require "retrace.displays.chitra.event"
local freqv = require "retrace.displays.chitra.frequency"
local hist = require "retrace.displays.chitra.histogram"
local chainv = require "retrace.displays.chitra.chain"
local views = require "retrace.displays.chitra.views"
local cjson = require "cjson"

-- Where a sequence view drew its marks: the box {x, y, w, h} and row -> pixel y.
local function marks(disp)
  local dd = disp:data()
  local m = dd.marks
  local n = #dd.labels
  local yb = math.max(n - 0.5, 0.5)
  return { m.x, m.y, m.w, m.h }, function(r) return m.y + m.h - (r + 0.5) / (yb + 0.5) * m.h end
end

local PES = h.fixtures .. "/chitra/philosophers2.pes"

local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  return d
end

describe("chitra time and event views", function()
  it("time view: steps at entry times, rows in order of first appearance", function()
    local ses = assert(chitra.load(PES))
    local d = assert(timev.data(ses))
    assert.equal("time", d.domain)
    assert.same({ 1550, 1760 }, d.range)
    assert.equal(20, #d.y)
    assert.same({ 1550, 1560, 1570 }, { d.x0[1], d.x0[2], d.x0[3] })
    assert.same({ 1560, 1570, 1585 }, { d.x1[1], d.x1[2], d.x1[3] })
    assert.same({ "A2T", "ET", "EA1", "R1A1", "R2A1", "R2A2", "TA2", "TE", "A1E", "A1R1", "A2R1", "A2R2" },
      d.labels)
    assert.equal(0, d.y[13]) -- A2T again
  end)

  it("event view and zoom keep the elements overlapping the range", function()
    local ses = assert(chitra.load(PES))
    local d = assert(eventv.data(ses, { range = { 8, 12 } }))
    assert.equal("event", d.domain)
    assert.same({ 7, 8, 9, 10, 11, 12 }, d.x0) -- elements 8..13 touch [8, 12]
    assert.same({ "TE", "A1E", "A1R1", "A2R1", "A2R2", "A2T" }, d.symbols)
    local z = assert(timev.data(ses, { range = { 1600, 1650 } }))
    assert.equal("R2A1", z.symbols[1]) -- lasts 1597..1601
    assert.equal("A1E", z.symbols[#z.symbols]) -- 1633..1651; A1R1 enters after 1650
    assert.is_nil(select(1, timev.data(ses, { range = { 5, 5 } })))
  end)

  it("shades every occurrence of each pattern in its own colour", function()
    local ses = assert(chitra.load(PES))
    local d = assert(timev.data(ses, { shade = { "TA2,TE", { pattern = { "A2T" }, color = "#ff000080" } } }))
    assert.equal(2, #d.shades)
    assert.same({ 1607, 1731 }, d.shades[1].x0)
    assert.same({ 1633, 1745 }, d.shades[1].x1)
    assert.equal(2, d.shades[1].count)
    assert.equal("#ff000080", d.shades[2].color)
    assert.same({ 1550, 1685 }, d.shades[2].x0)
    assert.are_not.equal(d.shades[1].color, d.shades[2].color)
    local e = assert(eventv.data(ses, { shade = { "TA2,TE" } }))
    assert.same({ 6, 17 }, e.shades[1].x0)
    assert.same({ 8, 19 }, e.shades[1].x1)
  end)

  it("draws the shading and the step line into pixels", function()
    local ses = assert(chitra.load(PES))
    local d = assert(timev.data(ses, { shade = { { pattern = "R2A1", color = "#ff0000" } } }))
    local cv = canvas.image(800, 300, "white")
    local disp = seqv.draw(cv, d, { 0, 0, 800, 300 })
    local box, sy = marks(disp)
    local function sx(v) return box[1] + (v - d.range[1]) / (d.range[2] - d.range[1]) * box[3] end
    -- R2A1 occupies 1597..1601: the middle of that span is shaded red at mid height
    local x = math.floor(sx(1599))
    local y = math.floor(sy(#d.labels - 1) - 3)
    local r, g, b = cv:get_pixel(x, y)
    assert.same({ 255, 0, 0 }, { r, g, b })
    -- the legend names the shaded pattern with its count and share of the time
    local legend = disp:data().legend
    assert.equal("R2A1: 1, 1.9% of time", legend.items[1].label) -- 4 of 210 time units
    -- the step line at A2T (row 0) between 1550 and 1560 is drawn in navy
    r, g, b = cv:get_pixel(math.floor(sx(1555)), math.floor(sy(0)))
    assert.same({ 0, 0, 128 }, { r, g, b })
  end)
end)

describe("chitra views of long sequences", function()
  -- a random sequence: nsym symbols, integer occupancy times 0..maxt (0: the state
  -- is entered and left at once)
  local function random_ses(n, nsym, maxt, seed)
    math.randomseed(seed)
    local states, times, t = {}, {}, 0
    for i = 1, n do
      states[i] = "S" .. math.random(nsym)
      times[i] = t
      t = t + math.random(0, maxt)
    end
    return assert(chitra.from_states { { states = states, times = times } })
  end

  -- the reference: per column, the lowest and highest row of the elements touching
  -- it, an element spanning the columns of its start to that of its end
  local function reference(ses, domain, a, b, ncols)
    local syms, entries, lens = ses:symbols(), ses:entries(), ses:times()
    local row, nrows = {}, 0
    for _, s in ipairs(syms) do
      if not row[s] then row[s] = nrows; nrows = nrows + 1 end
    end
    local lo, hi = {}, {}
    for c = 1, ncols do lo[c], hi[c] = -1, -1 end
    local function col(x)
      return math.min(math.max(math.floor((x - a) / (b - a) * ncols), 0), ncols - 1) + 1
    end
    for i, s in ipairs(syms) do
      local x0, x1 = i - 1, i
      if domain == "time" then x0, x1 = entries[i], entries[i] + lens[i] end
      if x1 >= a and x0 <= b then
        for c = col(x0), col(x1) do
          local r = row[s]
          if lo[c] < 0 or r < lo[c] then lo[c] = r end
          if r > hi[c] then hi[c] = r end
        end
      end
    end
    return lo, hi, nrows
  end

  it("reduces a long sequence to the rows present in each pixel column", function()
    local ses = random_ses(200000, 9, 5, 7)
    local entries, lens = ses:entries(), ses:times()
    local tb = entries[#entries] + lens[#lens]
    for _, case in ipairs { { "time", entries[1], tb, 640 }, { "event", 0, 200000, 333 },
                            { "time", 123456.5, 130000, 500 }, { "event", 1000, 1700, 999 } } do
      local domain, a, b, ncols = table.unpack(case)
      local d = assert(seqv.data(ses, { domain = domain, range = { a, b }, columns = ncols,
                                        max_elements = 100, shade = { "S1,S2,S1" } }))
      local lo, hi = reference(ses, domain, a, b, ncols)
      assert.equal(ncols, d.columns.count)
      assert.same(lo, d.columns.lo)
      assert.same(hi, d.columns.hi)
      assert.is_nil(d.x0)
      -- the shading: every occurrence touching the range, those less than a column apart merged
      local found = ses:find("S1,S2,S1")
      local sx0, sx1 = {}, {}
      for _, occ in ipairs(found.occurrences) do
        local i, j = occ[2], occ[2] + 2
        local x0, x1 = i - 1, j
        if domain == "time" then x0, x1 = entries[i], entries[j] + lens[j] end
        if x1 >= a and x0 <= b then
          if #sx1 > 0 and x0 - sx1[#sx1] < (b - a) / ncols then
            sx1[#sx1] = math.max(sx1[#sx1], x1)
          else
            sx0[#sx0 + 1], sx1[#sx1 + 1] = x0, x1
          end
        end
      end
      local sh = d.shades[1]
      assert.truthy(found.count > 100)
      assert.same({ found.count, found.events_share, found.time_share }, { sh.count, sh.events_share, sh.time_share })
      assert.same(sx0, sh.x0)
      assert.same(sx1, sh.x1)
    end
  end)

  it("draws exactly the rows present in each pixel column of a long sequence", function()
    local ses = random_ses(200000, 9, 5, 11)
    local d = assert(timev.data(ses))
    assert.equal(199999, d.count) -- the SES: more elements than the data lists
    assert.is_nil(d.y)
    local cv = canvas.image(700, 320, "white")
    local box, sy = marks(seqv.draw(cv, d, { 0, 0, 700, 320 }, { width = 1 }))
    local ix, iy, iw = table.unpack(box)
    local lo, hi, nrows = reference(ses, "time", d.range[1], d.range[2], iw)
    assert.equal(9, nrows)
    local wrong = {}
    for c = 1, iw do
      for r = 0, nrows - 1 do
        local pr, _, pb = cv:get_pixel(ix + c - 1, math.floor(sy(r)))
        local inked, blank = pb - pr > 40, pb - pr < 20
        local shown = r >= lo[c] and r <= hi[c]
        if (shown and not inked) or (not shown and not blank) then
          wrong[#wrong + 1] = string.format("column %d row %d: %s, pixel %d,%d", c - 1, r,
            shown and "not drawn" or "drawn", pr, pb)
        end
      end
    end
    assert.same({}, wrong)
    assert.truthy(iy > 0)
  end)

  it("draws a short sequence from C exactly as from the data's own lists", function()
    math.randomseed(3)
    local states, times, t = {}, {}, 0.25
    for i = 1, 400 do
      states[i] = ({ "A", "B", "C", "D", "E" })[math.random(5)]
      times[i] = t
      t = t + math.random() * 3
    end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    for _, view in ipairs { timev, eventv } do
      for _, range in ipairs { false, { 40.3, 97.1 } } do
        local d = assert(view.data(ses, { range = range or nil, shade = { "A,B" } }))
        local plain = cjson.decode(cjson.encode(d)) -- the same data without its session
        local pics = {}
        for i, data in ipairs { d, plain } do
          local cv = canvas.image(600, 240, "white")
          seqv.draw(cv, data, { 0, 0, 600, 240 })
          local px = {}
          for y = 0, 239, 1 do
            for x = 0, 599, 1 do px[#px + 1] = string.format("%d,%d,%d", cv:get_pixel(x, y)) end
          end
          pics[i] = table.concat(px, " ")
        end
        assert.equal(pics[2], pics[1])
      end
    end
  end)

  it("draws a 10^6-state time view in C without element lists", function()
    local ses = random_ses(1000000, 30, 3, 5)
    local d = assert(timev.data(ses, { columns = 800 }))
    assert.truthy(d.columns)
    assert.is_nil(d.y)
    local cv = canvas.image(900, 400, "white")
    local box = marks(seqv.draw(cv, d, { 0, 0, 900, 400 }))
    assert.truthy(box[3] > 700 and box[3] < 900)
    local plain = cjson.decode(cjson.encode(d)) -- columns as data draw too
    seqv.draw(canvas.image(900, 400, "white"), plain, { 0, 0, 900, 400 })
  end)
end)

describe("chitra frequency view and histograms", function()
  it("marks the periodogram's strongest peaks", function()
    local states, times = {}, {}
    for i = 1, 513 do
      states[i] = ({ "A", "B", "C", "B" })[(i - 1) % 4 + 1]
      times[i] = i
    end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    local d = assert(freqv.data(ses, { peaks = 2 }))
    assert.equal(0.25, d.peaks[1].freq)
    assert.equal(256, #d.freq)
    assert.equal(1 / 512, d.freq[1])
  end)

  it("puts every member's periodogram in one view for an ensemble", function()
    local function member(period)
      local states, times = {}, {}
      for i = 1, 257 do
        states[i] = "S" .. ((i - 1) % period)
        times[i] = i
      end
      return { label = "p" .. period, states = states, times = times }
    end
    local ses = assert(chitra.from_states { member(4), member(8) })
    local d = assert(freqv.ensemble(ses))
    assert.equal(2, #d.curves)
    assert.equal("p8", d.curves[2].label)
    for k, period in ipairs { 4, 8 } do
      local c, best = d.curves[k], 1
      for i = 1, #c.power do if c.power[i] > c.power[best] then best = i end end
      assert.equal(0, (c.freq[best] * period) % 1) -- a multiple of the fundamental 1 / period
    end
    local cv = canvas.image(600, 300, "white")
    local disp = require("retrace.displays.chitra.view").display(d, freqv.plot_ensemble)
    disp:draw(cv, { 0, 0, 600, 300 })
    assert.equal(2, #disp:data().legend.items)
  end)

  it("bins occupancy times, h(s)/T and occurrence counts", function()
    local ses = assert(chitra.load(PES))
    local d = assert(hist.occupancy(ses, "R1A1", { bins = 4 }))
    assert.same({ 2, 0, 0, 0 }, d.counts) -- 12 and 12
    local c = hist.counts(ses, { bins = 2 })
    assert.same({ 4, 8 }, c.counts) -- 4 symbols once, 8 twice
    local s = hist.shares(ses, { bins = 5 })
    assert.equal(12, s.n)
    assert.equal("A1E", s.values[1][1])
    assert.is_nil(hist.occupancy(ses, "NOPE"))
  end)
end)

describe("chitra pictures", function()
  it("renders the chain in PNG, PDF and SVG with its layout as data", function()
    local ses = assert(chitra.load(PES))
    assert(ses:filter_time(0.147))
    assert(ses:filter_event(2))
    local chain = ses:chain()
    local base = tmpdir()
    for _, ext in ipairs { "png", "pdf", "svg" } do
      local d = assert(chainv.render(chain, base .. "." .. ext))
      assert.equal(#chain.states, #d.states)
      local placed = 0
      for _ in pairs(d.placed.states) do placed = placed + 1 end
      assert.equal(#chain.states, placed)
      local text = h.slurp(base .. "." .. ext)
      assert.truthy(#text > 500)
      os.remove(base .. "." .. ext)
    end
    local ok, err = chainv.render(chain, "/nonexistent/dir/c.png")
    assert.is_nil(ok)
    assert.truthy(err:find("/nonexistent/dir/c.png", 1, true))
  end)

  it("writes every view with its data (--views)", function()
    local dir = tmpdir()
    local code, _, err = h.retrace("chitra", PES, "--filter-time", "0.147", "--views", dir,
      "--shade", "EA1,T2", "--zoom", "1560:1700", "--csv")
    assert.equal(0, code, err)
    for _, f in ipairs { "time.png", "event.png", "frequency.png", "frequency_time.png", "shares.png",
                         "counts.png", "occupancy.png", "chain.png", "views.json", "sequence.csv",
                         "periodogram.csv", "symbols.csv" } do
      assert.truthy(#h.slurp(dir .. "/" .. f) > 0, f)
    end
    local data = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.same({ 1560, 1700 }, data.time.range)
    assert.same({ 1570, 1695 }, data.time.shades[1].x0)
    -- the zoom reaches the event view: events 1..6 touch 1560..1700 (T2 is entered
    -- at 1711), so the event axis shows 0..6
    assert.same({ 0, 6 }, data.event.range)
    assert.same({ "T1", "EA1", "T2", "A1E", "T3", "EA1" }, { table.unpack(data.event.symbols, 1, 6) })
    local csv = h.slurp(dir .. "/sequence.csv")
    assert.equal(1, csv:find("event,entry,occupancy,symbol\n1,1550,20,T1\n2,1570,15,EA1\n", 1, true))
    local _, nl = csv:gsub("\n", "")
    assert.equal(9, nl)
    os.execute("rm -rf " .. h.quote(dir))
    code, _, err = h.retrace("chitra", PES, "--views", dir, "--zoom", "9:3")
    assert.equal(2, code)
    assert.equal("retrace: --zoom expects T0:T1 with T0 < T1, got '9:3'\n", err)
    -- a folder that cannot be made is an output that cannot be written: exit 1
    code = h.retrace("chitra", PES, "--views", "/proc/no/such/dir")
    assert.equal(1, code)
  end)

  it("writes the views as PDF and SVG", function()
    local ses = assert(chitra.load(PES))
    local dir = tmpdir()
    assert(views.write_all(ses, dir, { format = "svg" }))
    assert.truthy(h.slurp(dir .. "/time.svg"):find("<svg", 1, true))
    assert(views.write_all(ses, dir, { format = "pdf" }))
    assert.equal("%PDF", h.slurp(dir .. "/chain.pdf"):sub(1, 4))
    assert.is_nil(views.write_all(ses, dir, { format = "gif" }))
    os.execute("rm -rf " .. h.quote(dir))
  end)
end)
