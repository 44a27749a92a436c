-- A parameter of one run per time slice, fitted against time (`retrace medea
-- --fit-time PARAM --slices N`), on a hand-made PICL trace whose slice values
-- are worked out by hand, and fits checked against a direct least-squares
-- computation.
require "retrace"
local h = require "helpers"
local core = require "retrace.core"
local medea = require "retrace.medea"
local cjson = require "cjson"

-- tests/fixtures/medea/slices.trf, two processors from 0 to 4 s:
--   P0 sends 0.5..1.5 s, receives 3.0..3.5 s
--   P1 receives 0.5..2.5 s, sends 2.5..2.75 s
-- Four slices of 1 s; a slice's value = processor-seconds in the activity / 2:
--   cmtime: (0.5 + 0.5)/2, (0.5 + 1)/2, (0.5 + 0.25)/2, 0.5/2
--   rctime: 0.5/2, 1/2, 0.5/2, 0.5/2
--   trtime: 0.5/2, 0.5/2, 0.25/2, 0
--   cptime: 1 - cmtime (nothing else is a system event)
local TRACE = h.fixtures .. "/medea/slices.trf"
local HAND = {
  cmtime = { 0.5, 0.75, 0.375, 0.25 },
  rctime = { 0.25, 0.5, 0.25, 0.25 },
  trtime = { 0.25, 0.25, 0.125, 0 },
  cptime = { 0.5, 0.25, 0.625, 0.75 },
}
local MIDS = { 0.5, 1.5, 2.5, 3.5 }

-- Least squares y = c0 + c1 x + ... + cd x^d by the normal equations, solved by
-- Cramer's rule (d <= 2): a computation apart from retrace.medea.fit's.
local function direct_fit(xs, ys, d)
  local m = d + 1
  local A, b = {}, {}
  for i = 1, m do
    A[i] = {}
    for j = 1, m do
      local s = 0
      for k = 1, #xs do s = s + xs[k] ^ (i + j - 2) end
      A[i][j] = s
    end
    local s = 0
    for k = 1, #xs do s = s + ys[k] * xs[k] ^ (i - 1) end
    b[i] = s
  end
  local function det(M)
    if #M == 2 then return M[1][1] * M[2][2] - M[1][2] * M[2][1] end
    return M[1][1] * (M[2][2] * M[3][3] - M[2][3] * M[3][2]) - M[1][2] * (M[2][1] * M[3][3] - M[2][3] * M[3][1])
      + M[1][3] * (M[2][1] * M[3][2] - M[2][2] * M[3][1])
  end
  local D = det(A)
  local coef = {}
  for c = 1, m do
    local Mc = {}
    for i = 1, m do
      Mc[i] = {}
      for j = 1, m do Mc[i][j] = (j == c) and b[i] or A[i][j] end
    end
    coef[c] = det(Mc) / D
  end
  local mean, sst, sse = 0, 0, 0
  for k = 1, #ys do mean = mean + ys[k] / #ys end
  for k = 1, #xs do
    local f = 0
    for c = 1, m do f = f + coef[c] * xs[k] ^ (c - 1) end
    sse = sse + (ys[k] - f) ^ 2
    sst = sst + (ys[k] - mean) ^ 2
  end
  return coef, 1 - sse / sst
end

local function accumulate()
  return assert(medea.accumulate(TRACE, false, true))
end

describe("medea.slices", function()
  it("gives each slice's share of a time parameter, worked out by hand", function()
    local acc = accumulate()
    for param, want in pairs(HAND) do
      local s = assert(medea.slices.values(acc, param, 4))
      assert.equals(0, s.start)
      assert.equals(4, s.stop)
      assert.equals(1, s.width)
      assert.equals(2, s.nprocs)
      assert.same(MIDS, s.t)
      for j = 1, 4 do assert.near(want[j], s.values[j], 1e-12, param .. " slice " .. j) end
    end
    -- slices that do not fall on the events' times: three of 4/3 s
    -- rctime: P1 0.5..4/3 and 4/3..2.5, P0 3..3.5
    local s = assert(medea.slices.values(acc, "rctime", 3))
    assert.near((4 / 3 - 0.5) / 2, s.values[1], 1e-12)
    assert.near((2.5 - 4 / 3) / 2, s.values[2], 1e-12)
    assert.near(0.5 / 2, s.values[3], 1e-12)
    acc:close()
  end)

  it("adds up to the run's parameter (program approach) for any number of slices", function()
    local acc = accumulate()
    local run = medea.parameters(acc, "program", "slices")[1].params
    for _, param in ipairs(medea.slices.params) do
      for _, n in ipairs({ 2, 7, 1000 }) do
        local s = assert(medea.slices.values(acc, param, n))
        assert.near(run[param], s.total, 1e-12, param .. " in " .. n .. " slices")
      end
    end
    acc:close()
  end)

  it("fits the slice values against time as a direct least-squares computation does", function()
    local acc = accumulate()
    local r = assert(medea.slices.fit_time(acc, "cmtime", 4, "linear"))
    local coef, r2 = direct_fit(MIDS, HAND.cmtime, 1)
    assert.near(coef[1], r.fit.coef[1], 1e-12)
    assert.near(coef[2], r.fit.coef[2], 1e-12)
    assert.near(r2, r.fit.r2, 1e-12)
    -- worked: mean t 2, mean y 0.46875, b = -0.225 / 2 = -0.1125, a = 0.69375
    assert.near(-0.1125, r.fit.coef[2], 1e-12)
    assert.near(0.69375, r.fit.coef[1], 1e-12)
    -- and GSL's straight-line fit
    local g = core.linalg.fit_linear(MIDS, HAND.cmtime)
    assert.near(g.a, r.fit.coef[1], 1e-12)
    assert.near(g.b, r.fit.coef[2], 1e-12)
    local q = assert(medea.slices.fit_time(acc, "cptime", 4, "polynomial", 2))
    coef, r2 = direct_fit(MIDS, HAND.cptime, 2)
    for c = 1, 3 do assert.near(coef[c], q.fit.coef[c], 1e-9) end
    assert.near(r2, q.fit.r2, 1e-9)
    acc:close()
  end)

  it("refuses parameters without a value per slice, too few slices and statistics-only runs", function()
    local acc = accumulate()
    local s, err = medea.slices.values(acc, "trnum", 4)
    assert.is_nil(s)
    assert.equals("'trnum' has no value per time slice (cptime, cmtime, rctime, trtime, iotime do)", err)
    s, err = medea.slices.values(acc, "cmtime", 1)
    assert.is_nil(s)
    assert.matches("integer >= 2", err)
    acc:close()
    acc = assert(medea.accumulate(h.fixtures .. "/medea/stats-only.trf", false, true))
    s, err = medea.slices.values(acc, "cmtime", 4)
    assert.is_nil(s)
    assert.matches("statistics records only", err)
    acc:close()
  end)
end)

describe("retrace medea --fit-time", function()
  it("reports the slices, the model, its coefficients and R^2", function()
    local code, out, err = h.retrace("medea", TRACE, "--fit-time", "cmtime", "--fit-time", "cptime:polynomial:2",
      "--slices", "4", "--json")
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals(2, #j.time_fits)
    local f = j.time_fits[1]
    assert.equals("cmtime", f.param)
    assert.equals("linear", f.model)
    assert.equals(4, f.slices)
    assert.equals(1, f.width)
    assert.same(MIDS, f.t)
    for k = 1, 4 do assert.near(HAND.cmtime[k], f.values[k], 1e-12) end
    assert.near(0.69375, f.coef[1], 1e-12)
    assert.near(-0.1125, f.coef[2], 1e-12)
    local _, r2 = direct_fit(MIDS, HAND.cmtime, 1)
    assert.near(r2, f.r2, 1e-12)
    assert.near(j.components[1].params.cmtime, f.total, 1e-12)
    assert.equals("polynomial", j.time_fits[2].model)
    assert.equals(3, #j.time_fits[2].coef)
    code, out = h.retrace("medea", TRACE, "--fit-time", "cmtime", "--slices", "4")
    assert.equals(0, code)
    assert.matches("fit of cmtime against time in [^\n]*slices%.trf %(4 slices of 1 s;[^\n]*: y = 0%.69375 %- 0%.1125 x, "
      .. "R%^2 = 0%.462857", out)
    assert.matches("per slice: 0%.5 0%.75 0%.375 0%.25  %(total 1%.875%)", out)
  end)

  it("draws the slices and the fitted curve with --plots", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("medea", TRACE, "--fit-time", "trtime", "--slices", "4", "--plots", dir)
    assert.equals(0, code, err)
    local base = dir .. "/timefit_trtime_linear_slices.trf"
    local png = assert(require("retrace.canvas").load_png(base .. ".png"))
    local d = cjson.decode(h.slurp(base .. ".json"))
    assert.same(MIDS, d.xs)
    assert.same(HAND.trtime, d.ys)
    assert.equals("time (s)", d.axes.x.title)
    assert.equals("trtime (ms)", d.axes.y.title)
    -- each slice's point is drawn in the points' blue where data() says
    for k = 1, 4 do
      assert.equals("#1f77b4", h.pixel_hex(png, require("retrace.plot").to_pixel(d, MIDS[k], HAND.trtime[k])))
    end
    h.remove_tree(dir)
  end)

  it("refuses bad specifications with one line", function()
    local code, _, err = h.retrace("medea", TRACE, "--fit-time", "extime")
    assert.equals(2, code)
    assert.matches("'extime' has no value per time slice", err)
    code, _, err = h.retrace("medea", TRACE, "--fit-time", "cmtime:cubic")
    assert.equals(2, code)
    assert.matches("unknown model 'cubic'", err)
    code, _, err = h.retrace("medea", TRACE, "--fit-time", "cmtime", "--slices", "1")
    assert.equals(2, code)
    assert.matches("%-%-slices: must be an integer >= 2", err)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/stats-only.trf", "--fit-time", "cmtime")
    assert.equals(1, code)
    assert.matches("stats%-only%.trf: %-%-fit%-time cmtime: statistics records only", err)
  end)
end)
