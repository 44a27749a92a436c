--- retrace.medea.cluster: k-means workload models.
--
-- A matrix is an array of rows (components), each an array of numbers (parameters).
--   transform(matrix, {log=bool, scale="minmax"|"zscore"|"percentile"|"none"})
--   kmeans(matrix, k, {seed=1, restarts=10, patience=20, max_tries=1000, max_iter=100})
--       -> {assign=, centroids=, w=, tries=, converged=}
--   dbscan(matrix, {eps=, min_pts=}) -> {assign=, clusters=, noise=, eps=, min_pts=, how=}
--   analyse(matrix, {kmax=, seed=, restarts=}) -> per-K W, H, CH, silhouette and the choice
--   model_table(raw, assign, k, names) -> per-cluster share, mean and std in original units
--
-- k-means, DBSCAN and the silhouette run in C (core/util/rt_cluster, through
-- retrace.core.medea). Seeding is k-means++ from GSL's mt19937 generator, so a given
-- seed gives the same partitions on every machine. Each K runs at least `restarts`
-- seedings, then more until `patience` seedings in a row have not lowered the best
-- W_K (at most `max_tries`): a fixed number of restarts stopped in worse local optima
-- on larger workloads, which changed the K chosen.
local core = require("retrace.core").medea
local M = {}

M.PATIENCE, M.MAX_TRIES = 20, 1000

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
  local spec = { log = opts.log or false, scale = opts.scale or "minmax", columns = {} }
  for i = 1, n do out[i] = table.move(matrix[i], 1, d, 1, {}) end
  for j = 1, d do
    local c = column(out, j)
    local shift = 0
    if opts.log then
      local minpos
      for i = 1, n do
        if c[i] < 0 then
          return nil, string.format("log transform: component %d has negative value %g in column %d",
            i, c[i], j)
        end
        if c[i] > 0 and (not minpos or c[i] < minpos) then minpos = c[i] end
      end
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
    spec.columns[j] = { shift = shift, a = a, b = b }
  end
  return out, spec
end

--- Apply a transform saved by M.transform (its second result) to new rows: the same
-- log shift, offset and divisor per column (a new value may fall outside [0, 1]).
-- Returns the rows or nil, message (a negative value under a log transform).
function M.apply_transform(matrix, spec)
  local out = {}
  for i, row in ipairs(matrix) do
    local r = {}
    for j, c in ipairs(spec.columns) do
      local v = row[j]
      if spec.log then
        if v + c.shift <= 0 then
          return nil, string.format("log transform: row %d has value %g in column %d", i, v, j)
        end
        v = math.log(v + c.shift)
      end
      v = c.b > 0 and (v - c.a) / c.b or 0
      if spec.scale == "percentile" then v = math.max(0, math.min(1, v)) end
      r[j] = v
    end
    out[i] = r
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

--- k-means of matrix into k clusters (1 <= k <= #matrix).
-- opts: seed (integer, default 1), restarts (fewest seedings, default 10), patience
-- (stop after this many seedings in a row without a better W, default 20), max_tries
-- (default 1000), max_iter (Lloyd iterations, default 100).
-- Returns { assign = {cluster of each row}, centroids = {...}, w = W_K, k = k,
-- tries = seedings made, converged = false when max_tries stopped it }.
function M.kmeans(matrix, k, opts)
  opts = opts or {}
  local n = #matrix
  assert(n > 0, "kmeans: empty matrix")
  assert(math.type(k) == "integer" and k >= 1 and k <= n,
    "kmeans: k must be an integer from 1 to the number of rows")
  local restarts = opts.restarts or 10
  local r = core.kmeans(matrix, k, { seed = opts.seed or 1, min_tries = restarts,
    patience = opts.patience or M.PATIENCE, max_tries = math.max(restarts, opts.max_tries or M.MAX_TRIES),
    max_iter = opts.max_iter or 100 })
  r.k = k
  return r
end

--- The distance to each row's min_pts-th nearest other row, sorted: the k-distance
-- curve, and the index of its knee (where the curve bends up).
function M.kdist(matrix, min_pts)
  return core.kdist(matrix, min_pts)
end

--- DBSCAN of matrix. opts.min_pts: a core point has at least this many points within
-- eps, itself included (default 2 x columns, at least 4, Sander et al. 1998, at most
-- a fifth of the rows); opts.eps:
-- the radius (default: the knee of the (min_pts - 1)-distance curve). Returns {assign
-- = {0 noise, else 1..}, clusters =, noise = count, eps =, min_pts =, how = a sentence
-- saying how eps and min_pts were chosen} or nil, message.
function M.dbscan(matrix, opts)
  opts = opts or {}
  local n = #matrix
  if n < 2 then return nil, "dbscan: needs at least 2 rows" end
  local d = #matrix[1]
  -- 2 x d (at least 4), but never past a fifth of the rows: a small workload would
  -- otherwise have no core point at all
  local min_pts = opts.min_pts or math.min(math.max(4, 2 * d), math.max(2, n // 5))
  if math.type(min_pts) ~= "integer" or min_pts < 1 then return nil, "dbscan: min_pts must be a positive integer" end
  local how = {}
  how[1] = opts.min_pts and string.format("min_pts %d (given)", min_pts)
    or string.format("min_pts %d (2 x %d parameters, at least 4, at most a fifth of the %d rows)", min_pts, d, n)
  local eps = opts.eps
  if eps then
    how[2] = string.format("eps %.4g (given)", eps)
  else
    local kk = math.min(math.max(min_pts - 1, 1), n - 1)
    local curve, knee = M.kdist(matrix, kk)
    eps = curve[knee]
    how[2] = string.format("eps %.4g: the knee of the %d-nearest-neighbour distance curve (point %d of %d)",
      eps, kk, knee, n)
  end
  if not (eps >= 0) then return nil, "dbscan: eps must be >= 0" end
  local labels, clusters = core.dbscan(matrix, eps, min_pts)
  local assign, noise = {}, 0
  for i = 1, n do
    assign[i] = labels[i]
    if labels[i] == 0 then noise = noise + 1 end
  end
  return { assign = assign, clusters = clusters, noise = noise, eps = eps, min_pts = min_pts,
           how = table.concat(how, "; ") }
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

--- Mean silhouette width (in C); nil for K = 1. A point alone in its cluster counts 0.
-- The second result: each row's width.
function M.silhouette(matrix, assign, k)
  if k < 2 or #matrix < 2 then return nil end
  return core.silhouette(matrix, assign, k)
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
