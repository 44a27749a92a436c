-- MEDEA answers that noise must not drive: a parameter that differs by parts per
-- million is reported as constant and left out of the scaling; the report says which
-- parameters drive the split; the Table 5 layout of the per-component parameters;
-- DBSCAN beside k-means with its parameter choice.
local h = require "helpers"
local medea = require "retrace.medea"
local cjson = require "cjson"

local table5 = h.fixtures .. "/medea/table5.trf"

-- two groups in b (1 and 5, each with jitter), a varying by 7 ppm in a pattern
-- that crosses the groups: a 7-ppm a would split {1, 2} from the rest
local function components()
  local comps = {}
  local a = { 11.58240, 11.58248, 11.58241, 11.58241, 11.58242, 11.58241 }
  local b = { 1.0, 1.1, 0.9, 5.0, 5.2, 4.9 }
  for i = 1, 6 do comps[i] = { name = "p" .. i, params = { a = a[i], b = b[i] } } end
  return comps
end

describe("a parameter that differs by parts per million", function()
  it("is reported as constant, left out of the scaling, and the driver is named", function()
    local res = assert(medea.characterize(components(), { "a", "b" }, { k = 2 }))
    assert.equal(1, #res.constant)
    assert.equal("a", res.constant[1].param)
    assert.near(0.00008 / 11.582421666666667, res.constant[1].relative, 1e-9)
    assert.truthy(res.notes[1]:find("parameter a varies by 6.91 ppm of its value", 1, true), res.notes[1])
    -- the grouping follows b alone
    assert.same({ 1, 1, 1, 2, 2, 2 }, res.assign)
    for i = 1, 6 do assert.equal(0, res.scaled[i][1]) end
    assert.equal(1, #res.drivers)
    assert.equal("b", res.drivers[1].param)
    -- b's variance between the clusters: 1 - within / total, by hand on min-max scaled b
    local sb = {}
    for i, v in ipairs { 1.0, 1.1, 0.9, 5.0, 5.2, 4.9 } do sb[i] = (v - 0.9) / 4.3 end
    local mean, m1, m2 = 0, (sb[1] + sb[2] + sb[3]) / 3, (sb[4] + sb[5] + sb[6]) / 3
    for i = 1, 6 do mean = mean + sb[i] / 6 end
    local tot, win = 0, 0
    for i = 1, 6 do
      tot = tot + (sb[i] - mean) ^ 2
      win = win + (sb[i] - (i <= 3 and m1 or m2)) ^ 2
    end
    assert.near(1 - win / tot, res.drivers[1].between, 1e-12)
  end)

  it("splits on it when the tolerance is set below its spread, and the drivers say so", function()
    local res = assert(medea.characterize(components(), { "a", "b" }, { k = 2, tolerance = 1e-7 }))
    assert.equal(0, #res.constant)
    assert.equal(2, #res.drivers)
    for _, d in ipairs(res.drivers) do
      assert.truthy(d.between >= 0 and d.between <= 1)
      assert.truthy(d.without >= -1 and d.without <= 1)
    end
  end)

  it("on mpicl-10: execution times equal to 11 ppm do not isolate a processor", function()
    local trace = h.shared_file("picl/mpicl-10.trf")
    if not trace then return end
    local code, out, err = h.retrace("medea", trace, "--approach", "processor", "--json")
    assert.equal(0, code, err)
    local doc = cjson.decode(out)
    assert.equal("extime", doc.clusters.constant[1].param)
    assert.truthy(doc.clusters.notes[1]:find("parameter extime varies by", 1, true))
    local d = {}
    for _, x in ipairs(doc.clusters.drivers) do d[#d + 1] = x.param end
    table.sort(d)
    assert.same({ "cmtime", "cptime", "rctime", "trtime" }, d)
    -- processors 1..9 differ from 0 in trtime: 0 alone, the rest never alone
    local alone = {}
    for _, c in ipairs(doc.components) do alone[c.cluster] = (alone[c.cluster] or 0) + 1 end
    assert.equal(1, alone[doc.components[1].cluster])
    assert.is_true(alone[doc.components[3].cluster] > 1)
  end)
end)

describe("the text report", function()
  it("prints every component's parameters in the layout of MEDEA's Table 5", function()
    local code, out, err = h.retrace("medea", table5, "--approach", "event", "--k", "1")
    assert.equal(0, code, err)
    assert.truthy(out:find("component%s+ctime%s+stime%s+utime%s+hstime%s+cnum%s+snum%s+unum%s+hsnum%s+hunum\n"))
    -- processor 6, event 0: the worked example
    assert.truthy(out:find("table5.trf/6/0%s+0.002051%s+0.000388%s+0.001302%s+0.000871%s+1%s+1%s+1%s+2%s+1\n"),
      out)
  end)

  it("reports DBSCAN beside k-means and how its parameters were chosen", function()
    local code, out, err = h.retrace("medea", table5, "--approach", "event", "--dbscan", "--min-pts", "2",
      "--eps", "0.5", "--json")
    assert.equal(0, code, err)
    local db = cjson.decode(out).clusters.dbscan
    assert.equal("min_pts 2 (given); eps 0.5 (given)", db.how)
    assert.equal(#cjson.decode(out).components, #db.assign)
    code, _, err = h.retrace("medea", table5, "--eps", "0.5")
    assert.equal(2, code)
    assert.equal("retrace: --eps and --min-pts need --dbscan\n", err)
  end)
end)
