-- retrace medea diagnostics (issue 18): principal components, per-component
-- silhouettes, Ward's tree (against hand-computed heights and a slow O(n^3) model),
-- the adjusted Rand index, and the pictures with their numbers on the pstswm workload.
local h = require "helpers"
local diag = require "retrace.medea.diagnostics"
local cluster = require "retrace.medea.cluster"

-- test data: Lua's own generator (xoshiro256**), seeded per test
local function test_rng(seed)
  math.randomseed(seed)
  return math.random
end
local cjson = require "cjson"

-- Ward by brute force: merge the pair of clusters with the smallest Ward distance
-- sqrt(2 na nb / (na + nb)) |ca - cb|; returns the merge heights in order.
local function slow_ward(m)
  local cl = {}
  for i, r in ipairs(m) do cl[i] = { n = 1, c = { table.unpack(r) } } end
  local heights = {}
  while #cl > 1 do
    local bi, bj, bd
    for i = 1, #cl - 1 do
      for j = i + 1, #cl do
        local a, b = cl[i], cl[j]
        local d = math.sqrt(2 * a.n * b.n / (a.n + b.n) * cluster.dist2(a.c, b.c))
        if not bd or d < bd then bi, bj, bd = i, j, d end
      end
    end
    local a, b = cl[bi], cl[bj]
    local c = {}
    for q = 1, #a.c do c[q] = (a.n * a.c[q] + b.n * b.c[q]) / (a.n + b.n) end
    heights[#heights + 1] = bd
    table.remove(cl, bj)
    cl[bi] = { n = a.n + b.n, c = c }
  end
  return heights
end

describe("medea diagnostics numbers", function()
  it("computes Ward's tree by hand", function()
    -- {1,2} and {3,4} at distance 1; their centroids (0, .5), (5, .5): sqrt(2*2*2/4) * 5;
    -- row 5 against the centroid (2.5, .5) of four: sqrt(2*4/5 * 306.5)
    local t = diag.ward { { 0, 0 }, { 0, 1 }, { 5, 0 }, { 5, 1 }, { 20, 0 } }
    local hs = {}
    for i, m in ipairs(t.merges) do hs[i] = m[3] end
    assert.near(1, hs[1], 1e-12)
    assert.near(1, hs[2], 1e-12)
    assert.near(5 * math.sqrt(2), hs[3], 1e-12)
    assert.near(math.sqrt(8 / 5 * 306.5), hs[4], 1e-12)
    assert.same({ 1, 1, 1, 1, 2 }, diag.cut(t, 5, 2))
    assert.same({ 1, 1, 2, 2, 3 }, diag.cut(t, 5, 3))
    assert.same({ 5, 1, 2, 3, 4 }, t.order)
  end)

  it("agrees with a brute-force Ward on random data", function()
    local rand = test_rng(7)
    for _, n in ipairs { 2, 3, 10, 40 } do
      local m = {}
      for i = 1, n do m[i] = { rand(), rand(), rand() * 3 } end
      local t = diag.ward(m)
      local slow = slow_ward(m)
      assert.equals(n - 1, #t.merges)
      for i = 1, n - 1 do assert.near(slow[i], t.merges[i][3], 1e-9) end
    end
  end)

  it("finds principal components by hand", function()
    -- covariance diag(8/3, 2/3): variances 0.8 and 0.2 of the total
    local p = diag.pca { { -2, 0 }, { 2, 0 }, { 0, -1 }, { 0, 1 } }
    assert.near(8 / 3, p.values[1], 1e-12)
    assert.near(2 / 3, p.values[2], 1e-12)
    assert.near(0.8, p.explained[1], 1e-12)
    assert.near(1, math.abs(p.vectors[1][1]), 1e-12)
    assert.near(0, p.vectors[1][2], 1e-12)
    assert.near(2, p.scores[2][1], 1e-12)
    -- a correlated pair: the first axis is the diagonal
    local q = diag.pca { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 4, 4 } }
    assert.near(1, q.explained[1], 1e-12)
    assert.near(math.sqrt(0.5), q.vectors[1][1], 1e-9)
    assert.near(math.sqrt(0.5), q.vectors[1][2], 1e-9)
  end)

  it("gives per-component silhouettes whose mean is the index", function()
    local m = { { 0 }, { 1 }, { 10 }, { 12 }, { 30 } }
    local a = { 1, 1, 2, 2, 3 }
    local s = diag.silhouettes(m, a, 3)
    -- row 1: a = 1, b = mean(10, 12) = 11 -> 10/11; row 5 alone -> 0
    assert.near(10 / 11, s[1], 1e-12)
    assert.equals(0, s[5])
    local mean = 0
    for i = 1, 5 do mean = mean + s[i] / 5 end
    assert.near(cluster.silhouette(m, a, 3), mean, 1e-12)
  end)

  it("measures agreement with the adjusted Rand index", function()
    assert.near(1, diag.rand_index({ 1, 1, 2, 2 }, { 2, 2, 1, 1 }), 1e-12)
    -- no pair together in both: (0 - 2*2/6) / (2 - 2*2/6)
    assert.near(-0.5, diag.rand_index({ 1, 1, 2, 2 }, { 1, 2, 1, 2 }), 1e-12)
  end)
end)

describe("medea diagnostics pictures", function()
  it("draws the K indices, the PCA, silhouettes and the dendrogram of pstswm, numbers in --json", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace(h.source .. "/examples/medea/pstswm.lua", dir .. "/traces")
    assert.equals(0, code, err)
    code, err = nil, nil
    local out
    code, out, err = h.retrace("medea", dir .. "/traces", "--kmax", "8", "--plots", dir .. "/plots", "--json")
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    local d = j.diagnostics
    local sum = 0
    for _, e in ipairs(d.pca.explained) do sum = sum + e end
    assert.near(1, sum, 1e-9)
    assert.equals(#j.components, #d.pca.scores)
    assert.equals(#j.components, #d.silhouettes)
    assert.equals(#j.components - 1, #d.ward.merges)
    assert.is_true(d.ward.agreement > 0.5) -- the pstswm clusters are real: both methods see them
    local mean = 0
    for _, s in ipairs(d.silhouettes) do mean = mean + s / #d.silhouettes end
    assert.near(j.clusters.silhouette[j.clusters.k], mean, 1e-9)
    local canvas = require "retrace.canvas"
    for _, base in ipairs { "k_indices", "pca", "silhouette", "dendrogram" } do
      assert.truthy(canvas.load_png(dir .. "/plots/" .. base .. ".png"), base)
    end
    -- the centroid of cluster 1 is drawn where pca.json says
    local pj = cjson.decode(h.slurp(dir .. "/plots/pca.json"))
    local cv = canvas.load_png(dir .. "/plots/pca.png")
    local px, py = require("retrace.plot").to_pixel(pj, pj.centroids.x[1], pj.centroids.y[1])
    assert.are_not.equal("#ffffff", h.pixel_hex(cv, px, py))
    -- the 90 leaves of the dendrogram are each labelled with their component number, in
    -- the tree's order, and the label is drawn (dark pixels) where dendrogram.json says
    local dj = cjson.decode(h.slurp(dir .. "/plots/dendrogram.json"))
    assert.equals(#j.components, #dj.leaf_labels)
    local dcv = canvas.load_png(dir .. "/plots/dendrogram.png")
    for r, l in ipairs(dj.leaf_labels) do
      assert.equals(tostring(math.tointeger(dj.order[r])), l.text)
      local dark = 0
      for dy = 0, 14 do
        for dx = -3, 3 do
          local rr, gg, bb = dcv:get_pixel(math.floor(l.x) + dx, math.floor(l.y) + dy)
          if rr + gg + bb < 384 then dark = dark + 1 end
        end
      end
      assert.is_true(dark > 0, "no label drawn under leaf " .. r)
    end
    -- the K plot marks the K taken, and its numbers are the command's
    local kj = cjson.decode(h.slurp(dir .. "/plots/k_indices.json"))
    assert.equals(j.clusters.k, kj.k)
    assert.same(j.clusters.silhouette[3], kj.silhouette[3])
    -- the text report says it in words
    code, out = h.retrace("medea", dir .. "/traces", "--kmax", "8")
    assert.equals(0, code)
    assert.truthy(out:find(string.format("\nprincipal components: PC1 %.1f%%%%, PC2 %.1f%%%% of the variance\n",
      100 * d.pca.explained[1], 100 * d.pca.explained[2])), out)
    assert.truthy(out:find(string.format("Ward's clustering into %d clusters against k-means: adjusted Rand "
      .. "index %.3f", j.clusters.k, d.ward.agreement), 1, true), out)
    h.remove_tree(dir)
  end)
end)
