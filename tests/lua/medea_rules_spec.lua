-- retrace medea, issue 18: summed and per-processor components apart (item 2), the
-- second rule for K when none passes Hartigan's (5), the speedup baseline and a
-- negative signature slope said (8), parameters constant up to rounding left out
-- of the distance and the example's second clustering headed (9).
local h = require "helpers"
local medea = require "retrace.medea"
local cluster = require "retrace.medea.cluster"
local metrics = require "retrace.medea.metrics"
local cjson = require "cjson"

local table5 = h.fixtures .. "/medea/table5.trf"

-- A PICL trace: one user event 2 per processor p lasting durs[p + 1] seconds.
local function event_trace(durs)
  local lines = {}
  for p = 0, #durs - 1 do
    lines[#lines + 1] = string.format("-3 2 0 %d 0 0", p)
    lines[#lines + 1] = string.format("-4 2 %.17g %d 0 0", durs[p + 1], p)
  end
  return h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
end

local function comps_of(rows)
  local out = {}
  for i, r in ipairs(rows) do
    out[i] = { name = "c" .. i, params = { a = r[1], b = r[2] } }
  end
  return out
end

describe("medea event components", function()
  it("clusters per-processor components by default, summed ones on request, never both", function()
    local code, out, err = h.retrace("medea", table5, "--approach", "event", "--json")
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals("per-processor", j.clusters.components)
    assert.equals(3, #j.components)
    for _, c in ipairs(j.components) do assert.equals(6, c.processor) end
    code, out = h.retrace("medea", table5, "--approach", "event", "--components", "summed", "--json")
    assert.equals(0, code)
    j = cjson.decode(out)
    assert.equals("summed", j.clusters.components)
    assert.equals(3, #j.components)
    for _, c in ipairs(j.components) do assert.equals("all", c.processor) end
    -- the summed ctime of event 0 is processor 6's (one processor only)
    assert.is_true(math.abs(j.components[1].params.ctime - 0.002051) < 1e-9)
    code, out = h.retrace("medea", table5, "--approach", "event")
    assert.equals(0, code)
    assert.truthy(out:find("3 components (event approach: one per processor and event", 1, true))
    code = h.retrace("medea", table5, "--approach", "event", "--components", "both")
    assert.equals(2, code)
  end)
end)

describe("medea choice of K", function()
  it("says on the first line when no K passes H(K), and takes the best silhouette", function()
    -- 30 evenly spread values: W_K falls steadily, H(1..3) all above 10
    local durs = {}
    for i = 1, 30 do durs[i] = i end
    local f = event_trace(durs)
    local code, out, err = h.retrace("medea", f, "--approach", "event", "--params", "ctime", "--kmax", "3")
    assert.equals(0, code, err)
    local first = out:match("^[^\n]*")
    assert.equals("no K up to 3 has H(K) <= 10: K = 2 chosen by the best mean silhouette "
      .. "(ties: Calinski-Harabasz)", first)
    -- with constant parameters noted too, the choice of K stays on the first line
    code, out = h.retrace("medea", f, "--approach", "event", "--params", "ctime,stime", "--kmax", "3")
    assert.equals(0, code)
    assert.truthy(out:find("^no K up to 3 has H%(K%) <= 10"), out)
    assert.truthy(out:find("\nconstant parameters %(no part in the distance%): stime = 0\n"), out)
    code, out = h.retrace("medea", f, "--approach", "event", "--params", "ctime", "--kmax", "3", "--json")
    local j = cjson.decode(out).clusters
    assert.equals("silhouette", j.rule)
    assert.equals(cjson.null, j.best_k)
    for k = 1, 3 do assert.is_true(j.h[k] > 10) end
    -- the K taken is the one of the best silhouette, all indices shown
    assert.is_true(j.silhouette[2] > j.silhouette[3])
    assert.equals(2, j.k)
    assert.is_number(j.calinski_harabasz[2])
    os.remove(f)
  end)

  it("breaks silhouette ties by Calinski-Harabasz and falls back without indices", function()
    assert.same({ 3, "silhouette" }, { cluster.second_choice {
      kmax = 4, silhouette = { nil, 0.5, 0.5, 0.4 }, ch = { nil, 10, 20, 30 } } })
    assert.same({ 4, "calinski_harabasz" }, { cluster.second_choice {
      kmax = 4, silhouette = {}, ch = { nil, 10, 20, 30 } } })
    assert.same({ 4, "kmax" }, { cluster.second_choice { kmax = 4, silhouette = {}, ch = {} } })
  end)
end)

describe("medea constant parameters", function()
  it("drops a parameter constant up to rounding from the distance, with a note", function()
    -- b differs only by rounding (0.1 + 0.2 against 0.3); a has two groups
    local rows = { { 0, 0.3 }, { 0.1, 0.1 + 0.2 }, { 1, 0.3 }, { 1.1, 0.1 + 0.2 } }
    local res = assert(medea.characterize(comps_of(rows), { "a", "b" }, { k = 2 }))
    assert.same({ 1, 1, 2, 2 }, res.assign) -- by a; min-max scaled noise split {1,3} {2,4}
    assert.equals(1, #res.constant)
    assert.equals("b", res.constant[1].param)
    assert.near(5.55e-17, res.constant[1].spread, 1e-18)
    assert.equals("parameter b varies by 1.85e-10 ppm of its value (spread 5.55e-17 around 0.3, under the "
      .. "tolerance 0.0001): reported as constant, left out of the scaling and the distance", res.notes[1])
    -- a real spread stays in
    local res2 = assert(medea.characterize(comps_of { { 0, 1 }, { 1, 2 }, { 2, 1 } }, { "a", "b" }, { k = 2 }))
    assert.same({}, res2.constant)
  end)

  it("heads the example's own clustering", function()
    local dir = h.temp_dir()
    for i, d in ipairs { 1, 1.1, 3, 3.2, 6 } do
      local f = io.open(dir .. "/pstswm.0" .. i, "w")
      f:write(string.format("-3 -901 0 0 0 0\n-3 -21 0 0 0 3 2 8 1 1\n-4 -21 %g 0 0 0\n"
        .. "-3 -52 0.02 1 0 1 2 0\n-4 -52 0.03 1 0 3 2 8 0 1\n-4 -901 %g 0 0 0\n-4 -901 %g 1 0 0\n",
        0.001 * i, d, d))
      f:close()
    end
    local code, out, err = h.retrace(h.source .. "/examples/medea/fit.lua", dir)
    assert.equals(0, code, err)
    assert.equals("workload model of 5 program runs on extime and cmtime only, K = 4 given (the Lua API; "
      .. "`retrace medea` clusters on its default parameters):", out:match("^[^\n]*"))
    h.remove_tree(dir)
  end)
end)

describe("medea parallel metrics", function()
  it("comments a negative signature slope", function()
    local s = metrics.scaling { { p = 2, time = 1 }, { p = 4, time = 1.5 }, { p = 8, time = 1.75 } }
    assert.equals(2, s.base_p)
    assert.is_true(s.signature.b < 0)
    assert.truthy(s.signature.note:find("b < 0", 1, true))
    local ok = metrics.scaling { { p = 1, time = 4 }, { p = 2, time = 2.5 } }
    assert.is_nil(ok.signature.note)
  end)

  it("states the speedup baseline", function()
    local dir = h.temp_dir()
    local function write(name, procs, t)
      local f = io.open(dir .. "/" .. name, "w")
      for p = 0, procs - 1 do f:write(string.format("-3 2 0 %d 0 0\n-4 2 %g %d 0 0\n", p, t, p)) end
      f:close()
    end
    write("prog.a", 2, 4)
    write("prog.b", 4, 2.5)
    local code, out, err = h.retrace("medea", dir)
    assert.equals(0, code, err)
    assert.truthy(out:find("program prog: speedup relative to the run on p = 2, taken as perfectly "
      .. "efficient (speedup 2 there)", 1, true), out)
    h.remove_tree(dir)
  end)
end)
