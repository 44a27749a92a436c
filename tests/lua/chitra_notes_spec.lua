-- retrace chitra, issue 18: absent symbols are no-ops with a note and data-dependent
-- refusals exit 1 (item 6), predictions carry their r^2 and points (7), long
-- composite definitions are elided, a transform collapsing everything is said (8),
-- --undo as a command-line step.
local h = require "helpers"
local chitra = require "retrace.chitra"
local cjson = require "cjson"

local PES = h.fixtures .. "/chitra/philosophers2.pes"

describe("chitra absent symbols", function()
  it("projects the symbols present and notes the absent ones", function()
    local code, out, err = h.retrace("chitra", PES, "--project", "A2T,A1T=AT", "--json")
    assert.equals(0, code, err)
    assert.equals("retrace: note: project: no symbol A1T in the sequence; projected the others\n", err)
    local doc = cjson.decode(out)
    assert.equals("AT", doc.symbols[1])
    assert.equals("AT", doc.symbols[13])
    assert.same({ "project: no symbol A1T in the sequence; projected the others" }, doc.notes)
  end)

  it("makes an aggregate of an absent symbol a no-op, also inside a recipe", function()
    local ses = assert(chitra.load(PES))
    local before = ses:symbols()
    assert(ses:apply { { "aggregate", { "R2A2", "NOPE" }, "Z" }, { "project", "A1T,A9Z", "Q" } })
    assert.same(before, ses:symbols())
    assert.equals(0, #ses:history())
    assert.same({ "aggregate R2A2,NOPE=Z: no symbol NOPE in the sequence; nothing aggregated",
                  "project: no symbol A1T, A9Z in the sequence; nothing projected" }, ses.notes)
  end)

  it("exits 1 when the data refuse a transform, 2 for impossible parameters", function()
    local code, _, err = h.retrace("chitra", PES, "--clip", "5000:5000")
    assert.equals(1, code)
    assert.equals("retrace: " .. PES .. ": clip: n_i + n_f = 10000 exceeds the sequence length 20\n", err)
    code, _, err = h.retrace("chitra", PES, "--filter-time", "1.5")
    assert.equals(2, code)
    assert.equals("retrace: filter_time: p = 1.5 is outside (0, 1)\n", err)
    code = h.retrace("chitra", PES, "--filter-event", "0")
    assert.equals(2, code)
  end)
end)

describe("chitra --undo", function()
  it("undoes the step before it, in command-line order", function()
    local _, a = h.retrace("chitra", PES, "--clip", "8:8", "--undo", "--aggregate", "R2A2,TA2,TE=Z", "--json")
    local _, b = h.retrace("chitra", PES, "--aggregate", "R2A2,TA2,TE=Z", "--json")
    local da, db = cjson.decode(a), cjson.decode(b)
    assert.same(db.symbols, da.symbols)
    assert.same({ "aggregate R2A2 TA2 TE -> Z" }, da.history)
    local code, _, err = h.retrace("chitra", PES, "--undo")
    assert.equals(1, code)
    assert.equals("retrace: undo: nothing to undo\n", err)
  end)
end)

describe("chitra --predict", function()
  local function pes(means)
    local t, lines = 0, {}
    for i = 1, 30 do
      lines[#lines + 1] = "A " .. t
      t = t + means[(i - 1) % #means + 1]
      lines[#lines + 1] = "B " .. t
      t = t + 1
    end
    lines[#lines + 1] = "A " .. t
    return h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
  end

  it("gives r^2 and points with every prediction and marks the weak ones", function()
    local f1, f2, f3 = pes { 1 }, pes { 5 }, pes { 1 }
    local code, out, err = h.retrace("chitra", f1, f2, f3, "--params", "1,2,3", "--predict", "10", "--json")
    assert.equals(0, code, err)
    local pr = cjson.decode(out).merge.prediction
    local a = pr.fits.A
    assert.equals(3, a.points)
    assert.is_true(a.r2 < 0.1) -- 1, 5, 1 follows no law
    assert.is_false(a.reliable)
    assert.equals(0.9, pr.min_r2)
    -- B lasts 1 at every value: an exact fit on three points is reliable, its interval a point
    assert.is_true(pr.fits.B.reliable)
    assert.near(1, pr.mean.B, 1e-9)
    assert.near(1, pr.fits.B.lo, 1e-9)
    assert.near(1, pr.fits.B.hi, 1e-9)
    -- A: the best of the three laws, with a 95% interval around the prediction
    assert.is_true(a.lo < pr.mean.A and pr.mean.A < a.hi)
    code, out = h.retrace("chitra", f1, f2, f3, "--params", "1,2,3", "--predict", "10")
    assert.truthy(out:find("\n  A .- fit, r%^2 0%.%d+, 3 points  UNRELIABLE: r%^2 0%.%d+ < 0%.9\n"), out)
    -- two values: any two-parameter law passes through both points
    code, out = h.retrace("chitra", f1, f2, "--params", "1,2", "--predict", "10", "--json")
    assert.equals(0, code)
    pr = cjson.decode(out).merge.prediction
    assert.equals(2, pr.fits.A.points)
    assert.equals("2 points only", pr.fits.A.why)
    os.remove(f1); os.remove(f2); os.remove(f3)
  end)
end)

describe("chitra text report", function()
  it("never prints a share that is not 0 as 0%", function()
    -- one X among 2000 states: 0.05% of the events and 1/20001 of the time
    local lines = {}
    for i = 1, 2000 do lines[i] = (i == 1000 and "X" or (i % 2 == 0 and "A" or "B")) .. " " .. (10 * (i - 1)) end
    lines[#lines + 1] = "A 20000"
    local f = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
    local code, out, err = h.retrace("chitra", f, "--find", "X")
    assert.equals(0, code, err)
    assert.truthy(out:find("pattern X: 1 occurrences, 0.05% of the events, 0.05% of the time", 1, true), out)
    os.remove(f)
  end)

  it("elides long composites and says when everything became one symbol", function()
    local lines = {}
    for i = 1, 400 do lines[i] = "LONGSYMBOL" .. i .. " " .. i end
    local f = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
    local code, out, err = h.retrace("chitra", f, "--filter-event", "2")
    assert.equals(0, code, err)
    assert.equals("retrace: note: filter_event 2 -> T1: the whole sequence is now one symbol (T1); "
      .. "its chain has one state\n", err)
    local def = out:match("\n  T1 = ([^\n]*)")
    -- from both ends
    assert.truthy(def:find("^LONGSYMBOL1,LONGSYMBOL2,.*,%.%.%.,.*,LONGSYMBOL398,LONGSYMBOL399 %(399 symbols%)$"), def)
    for line in out:gmatch("[^\n]+") do assert.is_true(#line <= 120, line) end
    os.remove(f)
  end)
end)
