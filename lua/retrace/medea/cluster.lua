--- retrace.medea.cluster: k-means workload models.
--
-- A matrix is an array of rows (components), each an array of numbers (parameters).
--   transform(matrix, {log=bool, scale="minmax"|"zscore"|"percentile"|"none"})
--   kmeans(matrix, k, {seed=1, restarts=10, max_iter=100}) -> {assign=, centroids=, w=}
--   analyse(matrix, {kmax=, seed=, restarts=}) -> per-K W, H, CH, silhouette and the choice
--   model_table(raw, assign, k, names) -> per-cluster share, mean and std in original units
--
-- Seeding is k-means++ driven by a small deterministic generator (SplitMix64
-- on Lua integers), so a given seed gives the same partitions on every machine;
-- each K runs `restarts` seedings and keeps the partition with the smallest W.
local M = {}

-- ---- deterministic random numbers -------------------------------------------

--- A generator of floats in [0, 1) from an integer seed (SplitMix64).
function M.rng(seed)
  local state = math.tointeger(seed) or 1
  return function()
    state = state + 0x9E3779B97F4A7C15
    local z = state
    z = (z ~ (z >> 30)) * 0xBF58476D1CE4E5B9
    z = (z ~ (z >> 27)) * 0x94D049BB133111EB
    z = z ~ (z >> 31)
    return (z >> 11) / 9007199254740992.0 -- 53 bits
  end
end

-- ---- transforms -------------------------------------------------------------

local function column(matrix, j)
  local c = {}
  for i = 1, #matrix do c[i] = matrix[i][j] end
  return c
end

--- Percentile p (0..100) of a list by linear interpolation between order statistics.
function M.percentile(values, p)
  local s = table.move(values, 1, #values, 1, {})
  table.sort(s)
  local n = #s
  if n == 0 then return nil end
  local pos = 1 + (n - 1) * p / 100
  local lo = math.floor(pos)
  local hi = math.min(lo + 1, n)
  return s[lo] + (s[hi] - s[lo]) * (pos - lo)
end

local function mean_std(c)
  local n, sum = #c, 0
  for i = 1, n do sum = sum + c[i] end
  local mean = sum / n
  local ss = 0
  for i = 1, n do ss = ss + (c[i] - mean) ^ 2 end
  return mean, math.sqrt(ss / n)
end
M.mean_std = mean_std

--- Log transform and scaling of a matrix; returns a new matrix (the input is kept).
-- log: ln(x) per column; a column holding zeros is shifted by its smallest
-- positive value first (ln(x + m)); a negative value is an error (nil, message).
-- scale: "minmax" to [0,1]; "zscore" to mean 0, standard deviation 1;
-- "percentile" maps the 2.5th and 97.5th percentiles to 0 and 1 and clips;
-- "none". A constant column scales to 0.
function M.transform(matrix, opts)
  opts = opts or {}
  local n = #matrix
  local d = n > 0 and #matrix[1] or 0
  local out = {}
  for i = 1, n do out[i] = table.move(matrix[i], 1, d, 1, {}) end
  for j = 1, d do
    local c = column(out, j)
    if opts.log then
      local minpos
      for i = 1, n do
        if c[i] < 0 then
          return nil, string.format("log transform: component %d has negative value %g in column %d",
            i, c[i], j)
        end
        if c[i] > 0 and (not minpos or c[i] < minpos) then minpos = c[i] end
      end
      local shift = 0
      for i = 1, n do if c[i] == 0 then shift = minpos or 1 end end
      for i = 1, n do c[i] = math.log(c[i] + shift) end
    end
    local scale = opts.scale or "minmax"
    local a, b -- x -> (x - a) / b
    if scale == "minmax" then
      local lo, hi = math.huge, -math.huge
      for i = 1, n do lo = math.min(lo, c[i]); hi = math.max(hi, c[i]) end
      a, b = lo, hi - lo
    elseif scale == "zscore" then
      a, b = mean_std(c)
    elseif scale == "percentile" then
      a = M.percentile(c, 2.5)
      b = M.percentile(c, 97.5) - a
    elseif scale == "none" then
      a, b = 0, 1
    else
      error("unknown scaling '" .. tostring(scale) .. "' (minmax, zscore, percentile, none)", 2)
    end
    for i = 1, n do
      local v = b > 0 and (c[i] - a) / b or 0
      if scale == "percentile" then v = math.max(0, math.min(1, v)) end
      out[i][j] = v
    end
  end
  return out
end

-- ---- k-means ----------------------------------------------------------------

local function dist2(x, y)
  local s = 0
  for j = 1, #x do
    local t = x[j] - y[j]
    s = s + t * t
  end
  return s
end
M.dist2 = dist2

local function centroids_of(matrix, assign, k, d)
  local c, cnt = {}, {}
  for h = 1, k do
    c[h] = {}
    for j = 1, d do c[h][j] = 0 end
    cnt[h] = 0
  end
  for i, row in ipairs(matrix) do
    local h = assign[i]
    cnt[h] = cnt[h] + 1
    for j = 1, d do c[h][j] = c[h][j] + row[j] end
  end
  for h = 1, k do
    if cnt[h] > 0 then
      for j = 1, d do c[h][j] = c[h][j] / cnt[h] end
    end
  end
  return c, cnt
end

--- Within-cluster sum of squares of a partition.
function M.within(matrix, assign, k)
  local d = #matrix[1]
  local c = centroids_of(matrix, assign, k, d)
  local w = 0
  for i, row in ipairs(matrix) do w = w + dist2(row, c[assign[i]]) end
  return w
end

-- k-means++ seeding: first centre uniformly, then each next one with
-- probability proportional to the squared distance to the nearest centre.
local function seed_centres(matrix, k, rand)
  local n = #matrix
  local centres = { table.move(matrix[1 + math.floor(rand() * n)], 1, #matrix[1], 1, {}) }
  local near = {}
  for i = 1, n do near[i] = dist2(matrix[i], centres[1]) end
  while #centres < k do
    local total = 0
    for i = 1, n do total = total + near[i] end
    local pick
    if total <= 0 then
      pick = 1 + math.floor(rand() * n)
    else
      local r, acc = rand() * total, 0
      for i = 1, n do
        acc = acc + near[i]
        if acc > r and near[i] > 0 then pick = i break end
      end
      if not pick then -- rounding at the end of the sum
        for i = n, 1, -1 do if near[i] > 0 then pick = i break end end
      end
    end
    local c = table.move(matrix[pick], 1, #matrix[pick], 1, {})
    centres[#centres + 1] = c
    for i = 1, n do near[i] = math.min(near[i], dist2(matrix[i], c)) end
  end
  return centres
end

-- Lloyd iterations from given centres; empty clusters take the point farthest
-- from its centre. Returns assign, centroids, W.
local function lloyd(matrix, centres, max_iter)
  local n, d, k = #matrix, #matrix[1], #centres
  local assign = {}
  for iter = 1, max_iter do
    local changed = false
    for i = 1, n do
      local best, bd = 1, math.huge
      for h = 1, k do
        local dd = dist2(matrix[i], centres[h])
        if dd < bd then best, bd = h, dd end
      end
      if assign[i] ~= best then assign[i] = best; changed = true end
    end
    local cnt
    centres, cnt = centroids_of(matrix, assign, k, d)
    for h = 1, k do
      if cnt[h] == 0 then
        local far, fd = nil, -1
        for i = 1, n do
          local dd = dist2(matrix[i], centres[assign[i]])
          if cnt[assign[i]] > 1 and dd > fd then far, fd = i, dd end
        end
        if far then
          cnt[assign[far]] = cnt[assign[far]] - 1
          assign[far] = h
          cnt[h] = 1
          changed = true
          centres = centroids_of(matrix, assign, k, d)
        end
      end
    end
    if not changed and iter > 1 then break end
  end
  local w = 0
  for i = 1, n do w = w + dist2(matrix[i], centres[assign[i]]) end
  return assign, centres, w
end

-- Renumber clusters by first appearance in the data, so labels are stable.
local function canonical(assign, centres)
  local map, next_id, out, c = {}, 0, {}, {}
  for i, h in ipairs(assign) do
    if not map[h] then next_id = next_id + 1; map[h] = next_id; c[next_id] = centres[h] end
    out[i] = map[h]
  end
  for h = 1, #centres do
    if not map[h] then next_id = next_id + 1; map[h] = next_id; c[next_id] = centres[h] end
  end
  return out, c
end

--- k-means of matrix into k clusters (1 <= k <= #matrix).
-- opts: seed (integer, default 1), restarts (default 10), max_iter (default 100).
-- Returns { assign = {cluster of each row}, centroids = {...}, w = W_K, k = k }.
function M.kmeans(matrix, k, opts)
  opts = opts or {}
  local n = #matrix
  assert(n > 0, "kmeans: empty matrix")
  assert(math.type(k) == "integer" and k >= 1 and k <= n,
    "kmeans: k must be an integer from 1 to the number of rows")
  local rand = M.rng(opts.seed or 1)
  local best
  for _ = 1, opts.restarts or 10 do
    local a, c, w = lloyd(matrix, seed_centres(matrix, k, rand), opts.max_iter or 100)
    if not best or w < best.w - 1e-12 * math.max(1, best.w) then
      best = { assign = a, centroids = c, w = w }
    end
  end
  best.assign, best.centroids = canonical(best.assign, best.centroids)
  best.k = k
  return best
end

-- ---- quality indices --------------------------------------------------------

--- Hartigan's H(K) = (W_K / W_(K+1) - 1) * (n - K - 1); nil when W_(K+1) is 0 or absent.
function M.hartigan(wk, wk1, n, k)
  if not wk1 or wk1 <= 0 then return nil end
  return (wk / wk1 - 1) * (n - k - 1)
end

--- Calinski-Harabasz index: (B / (K - 1)) / (W / (n - K)); nil for K = 1, K = n or W = 0.
function M.calinski_harabasz(matrix, assign, k)
  local n = #matrix
  if k < 2 or k >= n then return nil end
  local all = {}
  for i = 1, n do all[i] = 1 end
  local t = M.within(matrix, all, 1)
  local w = M.within(matrix, assign, k)
  if w <= 0 then return nil end -- every cluster a single point: unbounded
  return ((t - w) / (k - 1)) / (w / (n - k))
end

--- Mean silhouette width; nil for K = 1. A point alone in its cluster counts 0.
function M.silhouette(matrix, assign, k)
  local n = #matrix
  if k < 2 or n < 2 then return nil end
  local total = 0
  for i = 1, n do
    local sum, cnt = {}, {}
    for h = 1, k do sum[h], cnt[h] = 0, 0 end
    for j = 1, n do
      if j ~= i then
        local h = assign[j]
        sum[h] = sum[h] + math.sqrt(dist2(matrix[i], matrix[j]))
        cnt[h] = cnt[h] + 1
      end
    end
    local own = assign[i]
    if cnt[own] > 0 then
      local a = sum[own] / cnt[own]
      local b = math.huge
      for h = 1, k do
        if h ~= own and cnt[h] > 0 then b = math.min(b, sum[h] / cnt[h]) end
      end
      if b < math.huge and math.max(a, b) > 0 then total = total + (b - a) / math.max(a, b) end
    end
  end
  return total / n
end

--- k-means for K = 1..kmax (and kmax + 1 for H(kmax)) with the indices.
-- opts: kmax (default min(10, n)), seed, restarts, threshold (default 10).
-- Returns { w = {W_1..}, h = {H(1)..}, ch = {...}, silhouette = {...},
--   partitions = {[K] = kmeans result}, best_k = smallest K with H(K) <= threshold
--   (nil when none), n = rows }.
function M.analyse(matrix, opts)
  opts = opts or {}
  local n = #matrix
  local kmax = math.min(opts.kmax or 10, n)
  local threshold = opts.threshold or 10
  local res = { w = {}, h = {}, ch = {}, silhouette = {}, partitions = {}, n = n, kmax = kmax }
  for k = 1, math.min(kmax + 1, n) do
    local p = M.kmeans(matrix, k, opts)
    res.partitions[k] = p
    res.w[k] = p.w
  end
  for k = 1, kmax do
    local p = res.partitions[k]
    res.h[k] = M.hartigan(res.w[k], res.w[k + 1], n, k)
    res.ch[k] = M.calinski_harabasz(matrix, p.assign, k)
    res.silhouette[k] = M.silhouette(matrix, p.assign, k)
    if not res.best_k and res.h[k] and res.h[k] <= threshold then res.best_k = k end
  end
  res.partitions[kmax + 1] = nil
  return res
end

--- Columns of a matrix that are constant up to rounding: spread (max - min) at most
-- tol (default 1e-9) times the largest magnitude (an all-zero column included).
-- Returns {{column = j, spread = max - min, value = mean}, ...}.
function M.constant_columns(matrix, tol)
  tol = tol or 1e-9
  local out = {}
  local d = #matrix > 0 and #matrix[1] or 0
  for j = 1, d do
    local lo, hi, sum = math.huge, -math.huge, 0
    for i = 1, #matrix do
      local v = matrix[i][j]
      lo, hi, sum = math.min(lo, v), math.max(hi, v), sum + v
    end
    local mag = math.max(math.abs(lo), math.abs(hi))
    if hi - lo <= tol * mag then
      out[#out + 1] = { column = j, spread = hi - lo, value = sum / #matrix }
    end
  end
  return out
end

--- The second rule for K when no K passes Hartigan's: the best mean silhouette,
-- ties (within 1e-12) broken by the larger Calinski-Harabasz index; without any
-- silhouette, the best Calinski-Harabasz; without either, Kmax.
-- Returns K and the rule used ("silhouette", "calinski_harabasz" or "kmax").
function M.second_choice(a)
  local best, bs, bc
  for k = 2, a.kmax do
    local s, c = a.silhouette[k], a.ch[k] or -math.huge
    if s and (not best or s > bs + 1e-12 or (math.abs(s - bs) <= 1e-12 and c > bc)) then
      best, bs, bc = k, s, c
    end
  end
  if best then return best, "silhouette" end
  for k = 2, a.kmax do
    if a.ch[k] and (not best or a.ch[k] > bc) then best, bc = k, a.ch[k] end
  end
  if best then return best, "calinski_harabasz" end
  return a.kmax, "kmax"
end

--- The workload model table: per cluster the share of components (0..1) and
-- the mean and (population) standard deviation of each parameter in the
-- original units of raw. names: parameter names (keys of mean/std).
function M.model_table(raw, assign, k, names)
  local rows = {}
  for h = 1, k do
    local members = {}
    for i = 1, #raw do if assign[i] == h then members[#members + 1] = raw[i] end end
    local row = { cluster = h, count = #members, share = #members / #raw, mean = {}, std = {} }
    for j, name in ipairs(names) do
      if #members > 0 then
        row.mean[name], row.std[name] = mean_std(column(members, j))
      end
    end
    rows[h] = row
  end
  return rows
end

return M
