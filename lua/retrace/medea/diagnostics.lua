--- retrace.medea.diagnostics: are the clusters real? The numbers behind MEDEA's
-- diagnostic pictures, computed on the scaled matrix the k-means ran on.
--
--   pca(matrix)                 -> {values=, explained=, vectors=, scores=, mean=}
--       principal components: eigenvalues of the covariance matrix (largest first),
--       each one's share of the variance, unit eigenvectors (vectors[c][j]), and each
--       row's coordinates on them (scores[i][c])
--   silhouettes(matrix, assign, k) -> {s(1), ..., s(n)}: each row's silhouette width
--       (b - a) / max(a, b); 0 for a row alone in its cluster
--   ward(matrix)                -> {merges = {{a, b, height, size}, ...}, order = {...}}
--       Ward's agglomerative clustering (nearest-neighbour chain, O(n^2) time and
--       memory). Rows are nodes 1..n, merge m makes node n + m; height is the Ward
--       distance sqrt(2 n_a n_b / (n_a + n_b)) |c_a - c_b| (scipy's convention);
--       order lists the rows left to right in the dendrogram
--   cut(tree, n, k)             -> assign: the partition into k clusters (numbered by
--       first appearance, like the k-means labels)
--   rand_index(a, b)            -> adjusted Rand index of two partitions (1 = same)
local cluster = require "retrace.medea.cluster"

local M = {}

-- Eigenvectors from GSL (core/util/rt_linalg.c): the covariance matrix is small
-- (one row per parameter), GSL's symmetric solver exact to rounding.
local linalg = require("retrace.core").linalg

function M.pca(matrix)
  local n = #matrix
  local d = n > 0 and #matrix[1] or 0
  local mean = {}
  for j = 1, d do
    local s = 0
    for i = 1, n do s = s + matrix[i][j] end
    mean[j] = n > 0 and s / n or 0
  end
  local cov = {}
  for p = 1, d do
    cov[p] = {}
    for q = 1, d do
      local s = 0
      for i = 1, n do s = s + (matrix[i][p] - mean[p]) * (matrix[i][q] - mean[q]) end
      cov[p][q] = n > 1 and s / (n - 1) or 0
    end
  end
  local out = { values = {}, explained = {}, vectors = {}, scores = {}, mean = mean }
  if d == 0 then return out end
  local vals, vecs = assert(linalg.eigen_sym(cov)) -- largest first
  local total = 0
  for c = 1, d do total = total + math.max(0, vals[c]) end
  for c = 1, d do
    out.values[c] = math.max(0, vals[c])
    out.explained[c] = total > 0 and out.values[c] / total or 0
    local vec, big = vecs[c], 0
    for j = 1, d do if math.abs(vec[j]) > math.abs(big) then big = vec[j] end end
    if big < 0 then for j = 1, d do vec[j] = -vec[j] end end -- sign: largest loading positive
    out.vectors[c] = vec
  end
  for i = 1, n do
    local row = {}
    for r = 1, d do
      local s = 0
      for j = 1, d do s = s + (matrix[i][j] - mean[j]) * out.vectors[r][j] end
      row[r] = s
    end
    out.scores[i] = row
  end
  return out
end

function M.silhouettes(matrix, assign, k)
  local _, per = cluster.silhouette(matrix, assign, k)
  if per then return per end
  local out = {} -- one cluster (or one row): every width 0
  for i = 1, #matrix do out[i] = 0 end
  return out
end

function M.ward(matrix)
  local n = #matrix
  local D = {} -- squared distances between the active clusters, D[i][j] for i ~= j
  for i = 1, n do
    D[i] = {}
    for j = 1, n do D[i][j] = i ~= j and cluster.dist2(matrix[i], matrix[j]) or 0 end
  end
  local size, active, node = {}, {}, {}
  for i = 1, n do size[i], active[i], node[i] = 1, true, i end
  local merges, chain = {}, {}
  local remaining = n
  while remaining > 1 do
    if #chain == 0 then
      for i = 1, n do if active[i] then chain[1] = i break end end
    end
    -- grow the chain of nearest neighbours until two are each other's nearest
    while true do
      local a = chain[#chain]
      local prev = chain[#chain - 1]
      local best, bd = nil, math.huge
      for j = 1, n do
        if active[j] and j ~= a then
          local dj = D[a][j]
          if dj < bd or (dj == bd and j == prev) then best, bd = j, dj end
        end
      end
      if best == prev then
        chain[#chain], chain[#chain - 1] = nil, nil
        -- merge a and best into slot min, Lance-Williams update for Ward (squared)
        local i, j = math.min(a, best), math.max(a, best)
        local ni, nj = size[i], size[j]
        for k = 1, n do
          if active[k] and k ~= i and k ~= j then
            local nk = size[k]
            local v = ((ni + nk) * D[i][k] + (nj + nk) * D[j][k] - nk * D[i][j]) / (ni + nj + nk)
            D[i][k], D[k][i] = v, v
          end
        end
        merges[#merges + 1] = { node[i], node[j], math.sqrt(math.max(0, D[i][j])), ni + nj }
        active[j] = false
        size[i] = ni + nj
        node[i] = n + #merges
        remaining = remaining - 1
        break
      end
      chain[#chain + 1] = best
    end
  end
  -- NN-chain finds the merges out of height order: sort them and renumber nodes
  local idx = {}
  for m = 1, #merges do idx[m] = m end
  table.sort(idx, function(x, y)
    if merges[x][3] ~= merges[y][3] then return merges[x][3] < merges[y][3] end
    return x < y
  end)
  local newid, sorted = {}, {}
  for r, m in ipairs(idx) do newid[n + m] = n + r end
  for r, m in ipairs(idx) do
    local mm = merges[m]
    local a, b = newid[mm[1]] or mm[1], newid[mm[2]] or mm[2]
    sorted[r] = { math.min(a, b), math.max(a, b), mm[3], mm[4] }
  end
  -- leaves left to right: depth-first from the root
  local order = {}
  local function walk(id)
    if id <= n then order[#order + 1] = id return end
    local m = sorted[id - n]
    walk(m[1]); walk(m[2])
  end
  if n > 0 then walk(n > 1 and 2 * n - 1 or 1) end
  return { merges = sorted, order = order, n = n }
end

function M.cut(tree, n, k)
  -- undo the last k - 1 merges: each remaining root is a cluster
  local parent = {}
  for m = 1, n - k do
    local mm = tree.merges[m]
    parent[mm[1]], parent[mm[2]] = n + m, n + m
  end
  local function root(x)
    while parent[x] do x = parent[x] end
    return x
  end
  local label, next_id, assign = {}, 0, {}
  for i = 1, n do
    local r = root(i)
    if not label[r] then next_id = next_id + 1; label[r] = next_id end
    assign[i] = label[r]
  end
  return assign
end

function M.rand_index(a, b)
  local n = #a
  local nij, ai, bj = {}, {}, {}
  for i = 1, n do
    local key = a[i] .. ":" .. b[i]
    nij[key] = (nij[key] or 0) + 1
    ai[a[i]] = (ai[a[i]] or 0) + 1
    bj[b[i]] = (bj[b[i]] or 0) + 1
  end
  local function c2(x) return x * (x - 1) / 2 end
  local sij, sa, sb = 0, 0, 0
  for _, v in pairs(nij) do sij = sij + c2(v) end
  for _, v in pairs(ai) do sa = sa + c2(v) end
  for _, v in pairs(bj) do sb = sb + c2(v) end
  local expected = n > 1 and sa * sb / c2(n) or 0
  local max = (sa + sb) / 2
  if max == expected then return 1 end
  return (sij - expected) / (max - expected)
end

return M
