-- retrace.medea: clustering, indices, scaling, fitting, formats, functional
-- description and parallel metrics, on hand-checkable data.
local cluster = require "retrace.medea.cluster"

-- test data: Lua's own generator (xoshiro256**), seeded per test
local function test_rng(seed)
  math.randomseed(seed)
  return math.random
end
local fit = require "retrace.medea.fit"
local functional = require "retrace.medea.functional"
local metrics = require "retrace.medea.metrics"

local function near(a, b, tol)
  tol = tol or 1e-9
  assert(math.abs(a - b) <= tol * math.max(1, math.abs(b)), string.format("%.15g ~= %.15g", a, b))
end

-- four well-separated groups of 10 points
local function four_groups()
  local m = {}
  local groups = { { { 0, 0 }, { 1, 1 } }, { { 3, 3 }, { 4, 4 } }, { { 0, 4 }, { 1, 3 } }, { { 3, 1 }, { 4, 0 } } }
  for _, g in ipairs(groups) do
    for _ = 1, 5 do
      m[#m + 1] = { g[1][1], g[1][2] }
      m[#m + 1] = { g[2][1], g[2][2] }
    end
  end
  return m
end

describe("k-means", function()
  it("gives W_1 = 200, W_4 = 20 and Calinski-Harabasz 108 on four groups", function()
    local m = four_groups()
    local a = cluster.analyse(m, { kmax = 6, seed = 3 })
    near(a.w[1], 200)
    near(a.w[4], 20)
    near(a.ch[4], 108)
    -- K = 2 joins the groups side by side: centroid (0.5, 2) on the left, so
    -- 5 * (4.25 + 1.25 + 4.25 + 1.25) = 55 per half
    near(a.w[2], 110)
    near(a.w[2], cluster.within(m, a.partitions[2].assign, 2))
  end)

  it("gives Hartigan's H(K) by hand, and no K with H <= 10 on repeated points", function()
    local a = cluster.analyse(four_groups(), { kmax = 6, seed = 1 })
    -- W_3 = 55 + 5 + 5 (two groups joined); W_5..W_7 = 15, 10, 5 (a group split in its two points)
    local w = { 200, 110, 65, 20, 15, 10, 5 }
    for k = 1, 7 do near(a.w[k], w[k]) end
    for k = 1, 6 do near(a.h[k], (w[k] / w[k + 1] - 1) * (40 - k - 1)) end
    near(a.h[4], (20 / 15 - 1) * 35)
    assert.is_nil(a.best_k)
  end)

  it("finds four jittered groups as the optimal partition by H(K) <= 10", function()
    local rand = test_rng(5)
    local m = {}
    for _, c in ipairs({ { 0, 0 }, { 6, 6 }, { 0, 6 }, { 6, 0 } }) do
      for _ = 1, 10 do m[#m + 1] = { c[1] + rand(), c[2] + rand() } end
    end
    local a = cluster.analyse(m, { kmax = 6, seed = 1 })
    assert.is_true(a.h[3] > 10)
    assert.equals(4, a.best_k)
    local p = a.partitions[4]
    for g = 0, 3 do
      for i = 2, 10 do assert.equals(p.assign[g * 10 + 1], p.assign[g * 10 + i]) end
    end
    assert.same({ 1, 2, 3, 4 }, { p.assign[1], p.assign[11], p.assign[21], p.assign[31] })
  end)

  it("is deterministic for a seed and keeps the best of several restarts", function()
    local rand = test_rng(42)
    local m = {}
    for i = 1, 60 do m[i] = { rand(), rand(), rand() } end
    local a = cluster.kmeans(m, 5, { seed = 9 })
    local b = cluster.kmeans(m, 5, { seed = 9 })
    assert.same(a.assign, b.assign)
    near(a.w, b.w)
    near(a.w, cluster.within(m, a.assign, 5))
    -- more restarts never do worse
    local one = cluster.kmeans(m, 5, { seed = 9, restarts = 1 })
    assert.is_true(a.w <= one.w + 1e-12)
    -- Lloyd's fixed point: each point is nearest its own centroid
    for i, row in ipairs(m) do
      local own = cluster.dist2(row, a.centroids[a.assign[i]])
      for h = 1, 5 do assert.is_true(own <= cluster.dist2(row, a.centroids[h]) + 1e-12) end
    end
  end)

  it("computes the silhouette by its definition", function()
    local m = { { 0 }, { 1 }, { 10 }, { 12 } }
    local s = cluster.silhouette(m, { 1, 1, 2, 2 }, 2)
    local s1 = ((11 - 1) / 11)
    local s2 = ((10 - 1) / 10)
    local s3 = ((9.5 - 2) / 9.5)
    local s4 = ((11.5 - 2) / 11.5)
    near(s, (s1 + s2 + s3 + s4) / 4)
    assert.is_nil(cluster.silhouette(m, { 1, 1, 1, 1 }, 1))
  end)

  it("reports the model table in original units with population std", function()
    local raw = { { 1, 10 }, { 3, 30 }, { 100, 5 } }
    local t = cluster.model_table(raw, { 1, 1, 2 }, 2, { "x", "y" })
    near(t[1].share, 2 / 3)
    near(t[1].mean.x, 2)
    near(t[1].std.x, 1)
    near(t[1].mean.y, 20)
    near(t[1].std.y, 10)
    near(t[2].std.x, 0)
    assert.equals(1, t[2].count)
  end)
end)

describe("scaling", function()
  local m = { { 1, 5, 0 }, { 2, 5, 10 }, { 3, 5, 100 } }
  it("min-max maps to [0, 1] and constant columns to 0", function()
    local s = cluster.transform(m, { scale = "minmax" })
    assert.same({ 0, 0.5, 1 }, { s[1][1], s[2][1], s[3][1] })
    assert.same({ 0, 0, 0 }, { s[1][2], s[2][2], s[3][2] })
    near(s[2][3], 0.1)
    assert.equals(1, m[1][1]) -- input kept
  end)
  it("z-score gives mean 0 and standard deviation 1", function()
    local s = cluster.transform(m, { scale = "zscore" })
    local c = { s[1][3], s[2][3], s[3][3] }
    local mean, std = cluster.mean_std(c)
    near(mean, 0)
    near(std, 1)
  end)
  it("percentile scaling maps the 2.5 and 97.5 percentiles to 0 and 1, clipped", function()
    local col = {}
    for i = 1, 41 do col[i] = { i } end
    col[41][1] = 1000 -- an outlier
    local s = cluster.transform(col, { scale = "percentile" })
    local values = {}
    for i = 1, 41 do values[i] = col[i][1] end
    local p0, p1 = cluster.percentile(values, 2.5), cluster.percentile(values, 97.5)
    near(p0, 2)
    near(p1, 40 + (1000 - 40) * 0)
    near(s[21][1], (21 - p0) / (p1 - p0))
    near(cluster.percentile({ 1, 2, 3, 4, 5 }, 50), 3)
    near(cluster.percentile({ 1, 2 }, 25), 1.25)
    assert.equals(0, s[1][1])
    assert.equals(1, s[41][1])
  end)
  it("log transform takes ln, shifting columns with zeros, refusing negatives", function()
    local s = cluster.transform({ { 1 }, { math.exp(2) } }, { log = true, scale = "none" })
    near(s[2][1], 2)
    local z = cluster.transform({ { 0 }, { 2 } }, { log = true, scale = "none" })
    near(z[1][1], math.log(2))
    near(z[2][1], math.log(4))
    local bad, msg = cluster.transform({ { -1 }, { 2 } }, { log = true })
    assert.is_nil(bad)
    assert.matches("negative value %-1 in column 1", msg)
  end)
end)

describe("fit", function()
  local xs = { 1, 2, 3, 4, 5, 6 }
  local function ys_of(f)
    local ys = {}
    for i, x in ipairs(xs) do ys[i] = f(x) end
    return ys
  end
  it("recovers linear, polynomial, exponential, power, log and inverse laws", function()
    local r = fit.fit(xs, ys_of(function(x) return 3 + 2 * x end), "linear")
    near(r.coef[1], 3); near(r.coef[2], 2); near(r.r2, 1)
    r = fit.fit(xs, ys_of(function(x) return 1 - 2 * x + 0.5 * x ^ 3 end), "polynomial", 3)
    near(r.coef[1], 1, 1e-8); near(r.coef[2], -2, 1e-8); near(r.coef[3], 0, 1e-8); near(r.coef[4], 0.5, 1e-8)
    r = fit.fit(xs, ys_of(function(x) return 2.5 * math.exp(0.3 * x) end), "exponential")
    near(r.coef[1], 2.5); near(r.coef[2], 0.3); near(r.r2, 1)
    r = fit.fit(xs, ys_of(function(x) return 4 * x ^ -1.5 end), "power")
    near(r.coef[1], 4); near(r.coef[2], -1.5)
    r = fit.fit(xs, ys_of(function(x) return 7 - 3 * math.log(x) end), "log")
    near(r.coef[1], 7); near(r.coef[2], -3)
    r = fit.fit(xs, ys_of(function(x) return 0.2 + 12 / x end), "inverse")
    near(r.coef[1], 0.2); near(r.coef[2], 12)
    assert.equals("y = 0.2 + 12 / x", fit.formula(r))
  end)
  it("computes R^2 as 1 - SS_res / SS_tot", function()
    local r = fit.fit({ 0, 1, 2 }, { 0, 2, 1 }, "linear")
    -- best line y = 0.5 + 0.5 x; residuals -0.5, 1, -0.5 -> 1.5; SS_tot = 2
    near(r.coef[1], 0.5); near(r.coef[2], 0.5)
    near(r.r2, 1 - 1.5 / 2)
  end)
  it("rejects impossible fits with a message", function()
    local r, msg = fit.fit({ 1, 2 }, { 1, -1 }, "exponential")
    assert.is_nil(r)
    assert.equals("fit exponential: y[2] = -1 is not positive", msg)
    r, msg = fit.fit({ 1, 2 }, { 1, 2 }, "cubic")
    assert.is_nil(r)
    assert.matches("unknown model 'cubic'", msg)
    r, msg = fit.fit({ 1, 2 }, { 1, 2 }, "polynomial", 2)
    assert.equals("fit: polynomial needs at least 3 points, got 2", msg)
    r, msg = fit.fit({ 2, 2, 2 }, { 1, 2, 3 }, "linear")
    assert.is_nil(r)
  end)
end)

describe("functional description", function()
  it("lists members and breaks membership down by name fields", function()
    local names = { "pstswm.02.4.x", "pstswm.02.5.0", "pstswm.12.4.0" }
    local assign = { 1, 1, 2 }
    assert.same({ { "pstswm.02.4.x", "pstswm.02.5.0" }, { "pstswm.12.4.0" } },
      functional.members(names, assign, 2))
    local b = functional.breakdown(names, assign, 2)
    assert.same({ 2, 1 }, b[1].values.pstswm)
    assert.same({ 2, 0 }, b[2].values["02"])
    assert.same({ 0, 1 }, b[2].values["12"])
    assert.same({ 1, 1 }, b[3].values["4"])
    assert.same({ 1, 0 }, b[4].values.x)
  end)
end)

describe("parallel metrics", function()
  it("computes speedup, efficiency, efficacy and the signature T(p) = a + b/p", function()
    local runs = {}
    for _, p in ipairs({ 1, 2, 4, 8 }) do runs[#runs + 1] = { p = p, time = 1 + 8 / p } end
    local s = metrics.scaling(runs)
    near(s.rows[1].speedup, 1)
    near(s.rows[4].time, 2)
    near(s.rows[4].speedup, 9 / 2)
    near(s.rows[4].efficiency, 9 / 16)
    near(s.rows[4].efficacy, (9 / 2) * (9 / 16))
    near(s.rows[4].rate, 0.5)
    near(s.signature.a, 1)
    near(s.signature.b, 8)
    near(s.signature.r2, 1)
  end)
end)

describe("k-means restarts and DBSCAN against slow models", function()
  -- the smallest W over every partition of the rows into k non-empty clusters
  local function exhaustive_w(m, k)
    local n, best = #m, math.huge
    local assign = {}
    local function rec(i, used)
      if i > n then
        if used == k then best = math.min(best, cluster.within(m, assign, k)) end
        return
      end
      -- canonical labelling: row i joins a cluster in use or opens the next one
      for h = 1, math.min(used + 1, k) do
        if k - math.max(used, h) <= n - i then
          assign[i] = h
          rec(i + 1, math.max(used, h))
        end
      end
    end
    rec(1, 0)
    return best
  end

  it("finds the exhaustive search's W_K on small inputs", function()
    local rand = test_rng(28)
    for trial = 1, 40 do
      local n = 5 + trial % 5
      local m = {}
      for i = 1, n do
        -- clumps of unequal spread, where one seeding often lands in a worse optimum
        local c = i % 3
        m[i] = { c * 3 + rand() * (c + 1), rand() * 4 }
      end
      for k = 2, 3 do
        local r = cluster.kmeans(m, k, { seed = trial })
        local w = exhaustive_w(m, k)
        assert.near(w, r.w, 1e-9 * math.max(1, w), string.format("trial %d k %d", trial, k))
        assert.is_true(r.converged)
        -- at least the restarts, and patience tries after the best one
        assert.equal(math.max(10, r.best_try + cluster.PATIENCE), r.tries)
      end
    end
  end)

  it("stops after `patience` seedings without a better W, and at max_tries", function()
    local rand = test_rng(3)
    local m = {}
    for i = 1, 200 do m[i] = { rand(), rand(), rand() } end
    local r = cluster.kmeans(m, 8, { seed = 2, restarts = 1, patience = 5 })
    assert.equal(r.best_try + 5, r.tries)
    local capped = cluster.kmeans(m, 8, { seed = 2, restarts = 3, patience = 1000, max_tries = 7 })
    assert.equal(7, capped.tries)
    assert.is_false(capped.converged)
  end)

  -- DBSCAN by its definition, O(n^2): clusters numbered by their first core point
  local function slow_dbscan(m, eps, min_pts)
    local n = #m
    local function nbrs(i)
      local out = {}
      for j = 1, n do
        if math.sqrt(cluster.dist2(m[i], m[j])) <= eps then out[#out + 1] = j end
      end
      return out
    end
    local core, label, c = {}, {}, 0
    for i = 1, n do core[i] = #nbrs(i) >= min_pts; label[i] = 0 end
    for i = 1, n do
      if core[i] and label[i] == 0 then
        c = c + 1
        label[i] = c
        local queue, head = { i }, 1
        while head <= #queue do
          local p = queue[head]; head = head + 1
          for _, j in ipairs(nbrs(p)) do
            if label[j] == 0 then
              label[j] = c
              if core[j] then queue[#queue + 1] = j end
            end
          end
        end
      end
    end
    return label, c
  end

  it("agrees with a direct O(n^2) DBSCAN on random points", function()
    local rand = test_rng(11)
    for trial = 1, 25 do
      local n, d = 20 + trial * 8, 1 + trial % 3
      local m = {}
      for i = 1, n do
        local row = {}
        local centre = (i % 4) * 2.5
        for j = 1, d do row[j] = centre + (rand() - 0.5) * (1 + trial % 4) end
        m[i] = row
      end
      local eps, min_pts = 0.2 + 0.05 * (trial % 7), 2 + trial % 5
      local r = assert(cluster.dbscan(m, { eps = eps, min_pts = min_pts }))
      local want, c = slow_dbscan(m, eps, min_pts)
      assert.same(want, r.assign)
      assert.equal(c, r.clusters)
    end
  end)

  it("chooses eps at the knee of the k-distance curve and says so", function()
    -- two tight groups of 10 points and two far outliers
    local m = {}
    for i = 1, 10 do m[#m + 1] = { i * 0.01, 0 }; m[#m + 1] = { 5 + i * 0.01, 5 } end
    m[#m + 1] = { 20, -20 }; m[#m + 1] = { -20, 20 }
    local r = assert(cluster.dbscan(m))
    assert.equal(4, r.min_pts)
    assert.equal(2, r.clusters)
    assert.equal(2, r.noise)
    assert.is_true(r.eps >= 0.03 - 1e-12 and r.eps < 5)
    assert.truthy(r.how:find("knee of the 3-nearest-neighbour distance curve", 1, true))
  end)
end)
