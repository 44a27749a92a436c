-- Chitra's acquisition-time graph (Figure 15): acquisitions per thread counted by hand
-- on small ensembles, and the points drawn where data() says.
local h = require "helpers"
require "retrace"
local chitra = require "retrace.chitra"
local canvas = require "retrace.canvas"
local plot = require "retrace.plot"
local acqv = require "retrace.displays.chitra.acquisition"

describe("chitra acquisition time per thread", function()
  it("measures each thread's stretches in the acquire states, pooled over the runs", function()
    -- two philosophers, two runs; thread 1 is the first component, thread 2 the second
    local ses = assert(chitra.from_states({
      { states = { "TT", "A1T", "A2A1", "EA1", "EA2", "RE", "TE", "TT" },
        times = { 0, 10, 13, 20, 24, 30, 35, 40 } },
      -- the last state only ends the one before it (a sequence's last entry has no occupancy)
      { states = { "A1T", "A2T", "ET", "TA1", "TE", "TT" }, times = { 0, 5, 9, 20, 26, 30 } },
    }))
    local d = assert(acqv.data(ses, { "A1", "A2" }))
    assert.equal(2, #d.threads)
    local t1, t2 = d.threads[1], d.threads[2]
    -- thread 1: 10..20 in run 1 (A1T, A2A1 -> EA1); in run 2 A1T opens the run: cut
    assert.same({ 1, 10, 10 }, { t1.n, t1.mean, t1.starts[1] })
    assert.equal(1, t1.cut)
    -- thread 2: 13..30 in run 1; 20..26 in run 2
    assert.same({ 13, 20 }, t2.starts)
    assert.same({ 17, 6 }, t2.durations)
    assert.equal(11.5, t2.mean)
    assert.near(math.sqrt(60.5), t2.sd, 1e-12)
    assert.same({ 1, 1 }, { t2.runs[1].n, t2.runs[2].n })
    assert.same({ 17, 6 }, { t2.runs[1].mean, t2.runs[2].mean })
  end)

  it("treats each run as a thread when states have one component", function()
    local ses = assert(chitra.from_states({
      { label = "p0", states = { "T", "A1", "A2", "E", "T", "A1", "E", "T" },
        times = { 0, 2, 5, 9, 12, 14, 21, 25 } },
      { label = "p1", states = { "T", "A1", "E", "T" }, times = { 0, 1, 8, 10 } },
    }))
    local d = assert(acqv.data(ses, "A1,A2"))
    assert.equal("thread", d.per_run)
    assert.same({ 2, 14 }, d.threads[1].starts)
    assert.same({ 7, 7 }, d.threads[1].durations)
    assert.same({ 1 }, d.threads[2].starts)
    assert.same({ 7 }, d.threads[2].durations)
    assert.matches("thread 2 %(p1%)", d.threads[2].label)
  end)

  it("refuses states no thread enters", function()
    local ses = assert(chitra.from_states({ { states = { "A", "B", "A" }, times = { 0, 1, 2 } } }))
    local d, why = acqv.data(ses, { "X" })
    assert.is_nil(d)
    assert.matches("no thread is ever in X", why)
  end)

  it("draws each acquisition where data() says, one colour per thread, with a legend", function()
    local ses = assert(chitra.from_states({
      { states = { "TT", "A1T", "EA1", "ET", "TA2", "TE", "A1T", "ET", "TT" },
        times = { 0, 10, 30, 40, 50, 90, 100, 160, 170 } },
    }))
    local d = assert(acqv.data(ses, { "A1", "A2" }))
    local disp = acqv.new(d)
    local cv = canvas.image(900, 450, "white")
    disp:draw(cv, { 0, 0, 900, 450 })
    local dd = disp:data()
    assert.equal("time the acquisition began (time units)", dd.axes.x.label .. " (" .. dd.axes.x.unit .. ")")
    assert.matches("acquisition time", dd.axes.y.label)
    assert.equal(2, #dd.legend.items)
    assert.matches("thread 1: 2 acquired, mean 40", dd.legend.items[1].label)
    -- thread 1: A1 10..30 and 100..160; thread 2: A1 30..40, then (after T) A2 50..90
    assert.same({ 10, 100 }, d.threads[1].starts)
    assert.same({ 20, 60 }, d.threads[1].durations)
    assert.same({ 30, 50 }, d.threads[2].starts)
    assert.same({ 10, 40 }, d.threads[2].durations)
    for k, t in ipairs(d.threads) do
      local want = { require("retrace.colors").parse((acqv.style(k))) }
      for i = 1, #t.starts do
        local x, y = plot.to_pixel(dd, t.starts[i], t.durations[i])
        local r, g, b = cv:get_pixel(math.floor(x + 0.5), math.floor(y + 0.5))
        assert.same({ math.floor(want[1] * 255 + 0.5), math.floor(want[2] * 255 + 0.5),
          math.floor(want[3] * 255 + 0.5) }, { r, g, b }, string.format("thread %d point %d", k, i))
      end
    end
  end)

  it("retrace chitra --acquisition prints the table and --views draws acquisition.png", function()
    local out = h.temp_dir()
    local pes = h.fixtures .. "/chitra/philosophers2.pes"
    local code, text, err = h.retrace("chitra", pes, "--acquisition", "A1,A2", "--views", out)
    assert.equal(0, code, err)
    -- by hand from the fixture: thread 1 in A1/A2 from 1633 to 1686; thread 2 from
    -- 1570 to 1621 and from 1695 to 1735; the first A2T and the last A1E are cut
    assert.matches("thread 1%s+1%s+53%s+%-%s+53%s+53%s+2", text)
    assert.matches("thread 2%s+2%s+45%.5%s+7%.778%s+40%s+51%s+0", text)
    local j = require("cjson").decode(assert(io.open(out .. "/views.json")):read("a"))
    assert.same({ 1570, 1695 }, j.acquisition.threads[2].starts)
    assert.truthy(io.open(out .. "/acquisition.png"))
    h.remove_tree(out)
  end)

  it("lists at most SHOWN acquisitions per thread, evenly spaced, and counts them all", function()
    local acq = require "retrace.chitra.acquisition"
    local states, times = {}, {}
    for i = 0, 9 do -- ten acquisitions of 1, 2, ..., 10 time units, one every 100
      states[#states + 1], times[#times + 1] = "T", 100 * i
      states[#states + 1], times[#times + 1] = "A", 100 * i + 50
      states[#states + 1], times[#times + 1] = "E", 100 * i + 50 + i + 1
    end
    states[#states + 1], times[#times + 1] = "T", 1000
    local ses = assert(chitra.from_states({ { states = states, times = times } }))
    local saved = acq.SHOWN
    acq.SHOWN = 3
    local d = assert(acq.compute(ses, "A"))
    acq.SHOWN = saved
    local t = d.threads[1]
    assert.same({ 10, 5.5, 1, 10, 55 }, { t.n, t.mean, t.min, t.max, t.total })
    -- acquisition q (from 0) is listed when floor(q * 3 / 10) steps on: q = 0, 4, 7
    assert.same({ 50, 450, 750 }, t.starts)
    assert.same({ 1, 5, 8 }, t.durations)
    assert.equal(3, t.shown)
  end)
end)
