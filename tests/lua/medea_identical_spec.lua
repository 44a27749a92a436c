-- Identical components (three copies of one trace) form one cluster: W_1 is 0, H(K) and
-- the silhouettes say nothing about identical points, and medea says so in words
-- instead of splitting copies of one run into clusters.
local h = require "helpers"
local cjson = require "cjson"

describe("retrace medea on identical components", function()
  it("makes one cluster and says why", function()
    local dir = h.temp_dir()
    local ring = h.slurp(h.source .. "/examples/picl/ring4.trf")
    for _, n in ipairs { "a", "b", "c" } do
      local f = assert(io.open(dir .. "/" .. n .. ".trf", "w"))
      f:write(ring)
      f:close()
    end
    local code, out, err = h.retrace("medea", dir)
    assert.are.equal(0, code, err)
    assert.truthy(out:find("the 3 components are identical in every clustered parameter: one cluster (K = 1)",
      1, true), out)
    assert.truthy(out:find("cluster 1: a.trf b.trf c.trf", 1, true), out)
    code, out, err = h.retrace("medea", dir, "--json")
    assert.are.equal(0, code, err)
    local j = cjson.decode(out)
    assert.are.equal(1, j.clusters.k)
    -- two different runs among copies are still told apart
    local f = assert(io.open(dir .. "/d.trf", "w"))
    f:write(h.slurp(h.source .. "/tests/fixtures/paragraph/pg4.trf"))
    f:close()
    code, out = h.retrace("medea", dir, "--json")
    assert.are.equal(0, code)
    assert.is_true(cjson.decode(out).clusters.k >= 2)
    h.remove_tree(dir)
  end)
end)
