-- Chitra's text report and input errors, checked against hand-computed examples:
-- the chain table with time shares and holding-time standard deviations; a
-- composite named after a state refused by the command.
local h = require "helpers"
require "retrace"

describe("chitra text report", function()
  it("prints each state's share of the time and the standard deviation of its holding times", function()
    -- SES A 2, B 1, A 4, B 1: A n 2 mean 3 var 2 sd 1.414 share 6/8; B n 2 mean 1 var 0 share 2/8
    local pes = h.temp_file("A 0\nB 2\nA 3\nB 7\nA 8\n", ".pes")
    local code, out, err = h.retrace("chitra", pes)
    assert.equal(0, code, err)
    assert.truthy(out:find("state%s+n%s+share%s+mean%s+std dev%s+variance"))
    assert.truthy(out:find("\n  A%s+2%s+75%%%s+3%s+1%.414%s+2\n"), out)
    assert.truthy(out:find("\n  B%s+2%s+25%%%s+1%s+0%s+0\n"), out)
  end)

  it("refuses a composite named after an existing state, naming both", function()
    local pes = h.temp_file("A 0\nB 2\nA 3\nB 7\nC 8\nA 9\n", ".pes")
    local code, out, err = h.retrace("chitra", pes, "--aggregate", "A,B=C")
    assert.equal(1, code)
    assert.equal("", out)
    assert.equal("retrace: aggregate A,B=C: C is already a state of the sequence; "
      .. "give the composite another name\n", err)
  end)
end)

describe("chitra views of an ensemble, a zoom and several symbols", function()
  local cjson = require "cjson"
  local A = h.source .. "/examples/chitra/phil2_x100.pes"
  local B = h.source .. "/examples/chitra/phil2_x10.pes"

  it("shows every run as a panel titled by its file, or the one named", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("chitra", A, B, "--views", dir)
    assert.equal(0, code, err)
    local v = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.equal("small multiples: one panel per run, top to bottom in file order", v.layout)
    for _, name in ipairs { "time", "event", "frequency", "frequency_time" } do
      local p = v[name].panels
      assert.equal(2, #p, name)
      assert.equal("phil2_x100.pes", p[1].title)
      assert.equal("phil2_x10.pes", p[2].title)
      assert.equal(1, p[1].data.member)
      assert.equal(2, p[2].data.member)
      assert.truthy(p[2].rect.y > p[1].rect.y) -- stacked
    end
    dir = h.temp_dir()
    code, _, err = h.retrace("chitra", A, B, "--views", dir, "--member", "phil2_x10.pes")
    assert.equal(0, code, err)
    v = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.equal(2, v.time.member)
    assert.equal("Time view - phil2_x10.pes", v.time.title)
    assert.equal("run 2 of 2 (phil2_x10.pes)", v.layout)
    assert.is_nil(v.frequency_members)
    code, _, err = h.retrace("chitra", A, B, "--views", dir, "--member", "3")
    assert.equal(2, code)
    assert.equal("retrace: --member: no run '3' (give 1 to 2 or a file name)\n", err)
  end)

  it("zooms the frequency view with --zoom", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("chitra", A, "--views", dir, "--zoom", "1000:3000")
    assert.equal(0, code, err)
    local v = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.same({ 1000, 3000 }, v.frequency_time.range)
    assert.same(v.event.range, v.frequency.range)
    -- the event-domain spectrum covers only the events of the zoom: its segment
    -- (the whole zoomed signal, shorter than the picture's) has that many samples
    local n = v.event.range[2] - v.event.range[1]
    assert.truthy(n < 1999)
    assert.equal(1, v.frequency.segments)
    assert.equal(2 * v.frequency.bins, n - n % 2)
  end)

  it("draws an occupancy histogram for every symbol given", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("chitra", A, "--views", dir, "--occupancy", "TE,ET,A1E")
    assert.equal(0, code, err)
    local v = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.equal(3, #v.occupancy.panels)
    for i, sym in ipairs { "TE", "ET", "A1E" } do
      assert.equal(sym, v.occupancy.panels[i].data.symbol)
      local total = 0
      for _, c in ipairs(v.occupancy.panels[i].data.counts) do total = total + c end
      assert.equal(v.occupancy.panels[i].data.n, total)
    end
    code, _, err = h.retrace("chitra", A, "--views", dir, "--occupancy", "TE,NOPE")
    assert.equal(2, code)
    assert.truthy(err:find("no symbol 'NOPE'", 1, true), err)
  end)
end)

describe("occupancy histogram in C", function()
  it("bins as the Lua binning of every occupancy time does", function()
    local chitra = require "retrace.chitra"
    local hist = require "retrace.displays.chitra.histogram"
    local ses = assert(chitra.load(h.source .. "/examples/chitra/phil2_x1000.pes"))
    for _, sym in ipairs { "TE", "ET", "A1E", "TA1" } do
      for _, bins in ipairs { 1, 7, 20 } do
        local c = assert(hist.occupancy(ses, sym, { bins = bins }))
        local l = hist.bin(ses:occupancy(sym), bins)
        assert.same(l.counts, c.counts)
        assert.equal(l.n, c.n)
        for i = 1, bins + 1 do assert.near(l.edges[i], c.edges[i], 1e-9 * math.abs(l.edges[i]) + 1e-12) end
      end
    end
    assert.is_nil(hist.occupancy(ses, "NOPE"))
  end)
end)
