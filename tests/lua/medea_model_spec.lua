-- Saved MEDEA workload models: the JSON round trip, placing new components at the
-- nearest centroid with their distances, and the too-far flag.
local h = require "helpers"
local medea = require "retrace.medea"
local cjson = require "cjson"

local function comps_of(rows)
  local out = {}
  for i, r in ipairs(rows) do out[i] = { name = "c" .. i, params = { x = r[1], y = r[2] } } end
  return out
end

describe("workload models", function()
  local rows = { { 1, 10 }, { 2, 11 }, { 1.5, 12 }, { 9, 30 }, { 10, 31 }, { 11, 29 } }

  it("places the training components back into their own clusters, within their radius", function()
    local res = assert(medea.characterize(comps_of(rows), { "x", "y" }, { k = 2 }))
    local model = assert(medea.check_model(cjson.decode(require("retrace.json").encode(medea.model(res, "processor")))))
    local placed = assert(medea.place(model, comps_of(rows)))
    for i, p in ipairs(placed) do
      assert.equal(res.assign[i], p.cluster)
      assert.is_false(p.too_far)
      assert.truthy(p.distance <= model.radius[p.cluster] + 1e-9)
    end
  end)

  it("measures a new component in the model's scaled units and flags one too far", function()
    local res = assert(medea.characterize(comps_of(rows), { "x", "y" }, { k = 2 }))
    local model = medea.model(res, "processor")
    -- minmax: x -> (x - 1) / 10, y -> (y - 10) / 21; cluster 1's centroid (0.05, 1/21)
    local placed = assert(medea.place(model, comps_of { { 1, 10 }, { 60, 10 } }))
    assert.equal(1, placed[1].cluster)
    assert.near(math.sqrt(0.05 ^ 2 + (1 / 21) ^ 2), placed[1].distance, 1e-12)
    assert.is_false(placed[1].too_far)
    assert.is_true(placed[2].too_far)
    assert.near(math.sqrt((5.9 - 0.05) ^ 2 + (1 / 21) ^ 2), placed[2].distances[1], 1e-12)
  end)

  it("saves and applies a model from the command line; a bad model is an input error", function()
    local t = h.fixtures .. "/medea/table5.trf"
    local m = os.tmpname() .. ".json"
    local code, _, err = h.retrace("medea", t, "--approach", "event", "--k", "2", "--save-model", m)
    assert.equal(0, code, err)
    local out
    code, out, err = h.retrace("medea", t, "--model", m, "--json")
    assert.equal(0, code, err)
    local doc = cjson.decode(out)
    for _, p in ipairs(doc.placed) do assert.is_false(p.too_far) end
    local bad = h.temp_file('{"kind": "something else"}')
    code, _, err = h.retrace("medea", t, "--model", bad)
    assert.equal(1, code)
    assert.equal("retrace: " .. bad .. ": not a retrace medea workload model (kind is not \"retrace.medea.model\")\n", err)
    os.remove(m)
  end)
end)
