--- displays/medea/diagnostics: pictures that show whether MEDEA's clusters are real.
--
--   diagnostics.kplot(res)            W_K, H(K) (with the threshold 10), Calinski-Harabasz
--                                     and the mean silhouette against K, the K taken marked
--   diagnostics.pca(res, pca, names)  the components on the first two principal axes of
--                                     the scaled parameters, one colour and marker per
--                                     cluster, the k-means centroids as large crosses
--   diagnostics.silhouette(res, s)    one bar per component (its silhouette width),
--                                     grouped by cluster and sorted, the mean as a line
--   diagnostics.dendrogram(tree, res, k) Ward's tree, leaves coloured by their k-means
--                                     cluster, the cut into k Ward clusters dashed
-- Each returns a display (d:draw(cv, rect), d:data()); data() holds the numbers drawn
-- beside retrace.plot's geometry.
local plot = require "retrace.plot"
local display = require "retrace.display"
local style = require "retrace.displays.medea.style"

local M = {}

-- a display around a plot built at draw time, with extra numbers in data()
local function wrap(build, extra, after)
  local d = {}
  function d.draw(self, cv, rect)
    self.p = build(rect)
    self.p:draw(cv, rect)
    if after then after(self, cv, self.p:data()) end
    return self
  end
  function d.data(self)
    local out = self.p and self.p:data() or {}
    for k, v in pairs(extra) do out[k] = v end
    return out
  end
  return d
end

-- one index against K as a plot (nil values left out); mark the K taken
local function index_plot(ylabel, values, kmax, k, extra)
  local xs, ys = {}, {}
  for i = 1, kmax do
    if values[i] and values[i] == values[i] and math.abs(values[i]) < math.huge then
      xs[#xs + 1], ys[#ys + 1] = i, values[i]
    end
  end
  return wrap(function()
    local p = plot.new{ legend = "auto", -- the panel's title says what it is
      x = { label = "K (clusters)", lo = 0.5, hi = kmax + 0.5, pad = 0 }, y = { label = ylabel } }
    if extra then extra(p) end
    if #xs > 0 then
      p:line(xs, ys, { color = "#1f77b4", width = 1.5, markers = 3 })
      for i, x in ipairs(xs) do
        if x == k then
          p:points({ x }, { ys[i] }, { color = "#d62728", marker = "diamond", radius = 7,
            label = "K = " .. k .. " taken" })
        end
      end
    else
      p:note("not defined for any K here")
    end
    return p
  end, { k = k, values = values, index = ylabel })
end

function M.kplot(res)
  local kmax, k = res.kmax, res.k
  local hvals = res.h
  local panels = {
    { title = "within-cluster sum of squares", display = index_plot("W_K", res.w, kmax, k) },
    { title = "Hartigan's H(K): the first K with H(K) <= 10 is taken",
      display = index_plot("H(K)", hvals, kmax, k, function(p)
        p:line({ 0.5, kmax + 0.5 }, { 10, 10 }, { color = "#7f7f7f", dash = { 5, 4 }, label = "threshold 10" })
        if res.rule ~= "hartigan" then
          p:note(res.rule == "given" and ("K = " .. k .. " given on the command line")
            or ("no K passes: K = " .. k .. " by the second rule (" .. res.rule:gsub("_", "-") .. ")"))
        end
      end) },
    { title = "Calinski-Harabasz (larger: better separated)",
      display = index_plot("CH", res.ch, kmax, k) },
    { title = "mean silhouette (-1 .. 1; larger: better)",
      display = index_plot("mean silhouette", res.silhouette, kmax, k) },
  }
  local c = display.compose(panels, { cols = 2, rows = 2, gap = 12 })
  local data_of = c.data
  function c.data(self)
    local out = data_of(self)
    out.k, out.kmax, out.rule, out.best_k = k, kmax, res.rule, res.best_k
    out.w, out.h, out.ch, out.silhouette = res.w, res.h, res.ch, res.silhouette
    return out
  end
  return c
end

function M.pca(res, pca, names)
  local n = #pca.scores
  local two = #pca.values >= 2
  local xs, ys = {}, {}
  for i = 1, n do xs[i], ys[i] = pca.scores[i][1] or 0, two and pca.scores[i][2] or 0 end
  local cx, cy = {}, {}
  for h, c in ipairs(res.centroids or {}) do
    local sx, sy = 0, 0
    for j = 1, #c do
      sx = sx + (c[j] - pca.mean[j]) * pca.vectors[1][j]
      if two then sy = sy + (c[j] - pca.mean[j]) * pca.vectors[2][j] end
    end
    cx[h], cy[h] = sx, sy
  end
  local extra = { scores = { x = xs, y = ys }, centroids = { x = cx, y = cy }, explained = pca.explained,
                  clusters = res.assign, names = names }
  return wrap(function()
    local p = plot.new{ title = string.format("components on the first two principal axes (%d components, "
        .. "K = %d)", n, res.k), legend = "outside",
      x = { label = string.format("PC1 (%.1f%% of the variance)", 100 * (pca.explained[1] or 0)) },
      y = { label = two and string.format("PC2 (%.1f%% of the variance)", 100 * pca.explained[2])
            or "PC2 (one parameter only)" } }
    for h = 1, res.k do
      local px, py = {}, {}
      for i = 1, n do
        if res.assign[i] == h then px[#px + 1], py[#py + 1] = xs[i], ys[i] end
      end
      if #px > 0 then
        p:points(px, py, { color = style.cluster_color(h), marker = style.cluster_marker(h),
          label = string.format("cluster %d (%d)", h, #px) })
      end
    end
    for h = 1, #cx do
      -- a centroid: a large black-edged cross in the cluster's colour
      p:points({ cx[h] }, { cy[h] }, { color = "#000000", marker = "plus", radius = 10,
        label = h == 1 and "centroids" or nil })
      p:points({ cx[h] }, { cy[h] }, { color = style.cluster_color(h), marker = "plus", radius = 7 })
    end
    local loads = {}
    for j = 1, math.min(#(pca.vectors[1] or {}), #(res.params or {})) do
      loads[#loads + 1] = { name = res.params[j], v = pca.vectors[1][j] }
    end
    table.sort(loads, function(a, b) return math.abs(a.v) > math.abs(b.v) end)
    local top = {}
    for i = 1, math.min(3, #loads) do top[i] = string.format("%s %.2f", loads[i].name, loads[i].v) end
    if #top > 0 then p:note("PC1 loads most on " .. table.concat(top, ", ")) end
    return p
  end, extra)
end

function M.silhouette(res, s, names)
  local idx = {}
  for i = 1, #s do idx[i] = i end
  table.sort(idx, function(a, b)
    if res.assign[a] ~= res.assign[b] then return res.assign[a] < res.assign[b] end
    if s[a] ~= s[b] then return s[a] > s[b] end
    return a < b
  end)
  local mean = 0
  for i = 1, #s do mean = mean + s[i] end
  mean = #s > 0 and mean / #s or 0
  local pos = {}
  local x, last = 0, nil
  for _, i in ipairs(idx) do
    x = x + ((last and res.assign[i] ~= last) and 2 or 1) -- a gap between clusters
    pos[i], last = x, res.assign[i]
  end
  local extra = { values = s, order = idx, positions = pos, mean = mean, clusters = res.assign, names = names }
  return wrap(function()
    local ylo = -0.1
    for i = 1, #s do ylo = math.min(ylo, s[i] - 0.1) end
    local p = plot.new{ title = string.format("silhouette of each component (K = %d, mean %.3f)", res.k, mean),
      legend = "outside", x = { label = "components, grouped by cluster (cluster numbers under the bars)",
        lo = 0, hi = x + 1, pad = 0, labels = {} }, y = { label = "silhouette width", lo = ylo, hi = 1 } }
    for h = 1, res.k do
      local bx, by = {}, {}
      for _, i in ipairs(idx) do
        if res.assign[i] == h then bx[#bx + 1], by[#by + 1] = pos[i], s[i] end
      end
      if #bx > 0 then
        p:bars(bx, by, { width = 0.9, color = style.cluster_color(h), label = string.format("cluster %d", h) })
      end
    end
    p:line({ 0, x + 1 }, { mean, mean }, { color = "#000000", dash = { 5, 4 }, label = "mean" })
    -- each group named under its bars: in gray the fills alone do not tell them apart
    local lab = {}
    for h = 1, res.k do
      local lo, hi = math.huge, -math.huge
      for i = 1, #s do
        if res.assign[i] == h then lo, hi = math.min(lo, pos[i]), math.max(hi, pos[i]) end
      end
      if lo <= hi then lab[#lab + 1] = { x = (lo + hi) / 2, y = ylo / 2, text = tostring(h) } end
    end
    p:labels(lab)
    local neg = 0
    for i = 1, #s do if s[i] < 0 then neg = neg + 1 end end
    if neg > 0 then
      p:note(string.format("%d component%s nearer another cluster than its own (silhouette < 0)", neg,
        neg == 1 and " is" or "s are"))
    end
    return p
  end, extra)
end

function M.dendrogram(tree, res, k, names)
  local n = tree.n
  local xpos = {}
  for r, i in ipairs(tree.order) do xpos[i] = r end
  local ypos = {}
  for i = 1, n do ypos[i] = 0 end
  local segs = {}
  for m, mm in ipairs(tree.merges) do
    local a, b, hgt = mm[1], mm[2], mm[3]
    segs[#segs + 1] = { xpos[a], ypos[a], xpos[a], hgt, xpos[b], hgt, xpos[b], ypos[b] }
    xpos[n + m], ypos[n + m] = (xpos[a] + xpos[b]) / 2, hgt
  end
  -- the cut into k clusters: halfway between the heights of merges n - k and n - k + 1
  local cut
  if k > 1 and k <= n and n > 1 then
    local below = n - k >= 1 and tree.merges[n - k][3] or 0
    local above = tree.merges[n - k + 1][3]
    cut = (below + above) / 2
  end
  local extra = { merges = tree.merges, order = tree.order, cut = cut, k = k, names = names,
                  kmeans = res.assign, ward = tree.assign, agreement = tree.agreement }
  return wrap(function()
    local top = n > 1 and tree.merges[#tree.merges][3] or 1
    local labels = {}
    if n <= 40 then -- the component's number (its place in --json's list), names are too long
      for r, i in ipairs(tree.order) do labels[r] = tostring(i) end
    end
    local p = plot.new{ title = string.format("Ward's hierarchical clustering of %d components", n),
      legend = "outside",
      x = { label = "component number (leaves marked by k-means cluster)", lo = 0, hi = n + 1,
            pad = 0, labels = labels },
      y = { label = "Ward distance (scaled parameters)", lo = -0.03 * top, hi = top * 1.05 + 1e-12, pad = 0 } }
    for _, sgm in ipairs(segs) do
      p:line({ sgm[1], sgm[3], sgm[5], sgm[7] }, { sgm[2], sgm[4], sgm[6], sgm[8] },
        { color = "#404040", width = 1 })
    end
    for h = 1, res.k do
      local lx, ly = {}, {}
      for i = 1, n do if res.assign[i] == h then lx[#lx + 1], ly[#ly + 1] = xpos[i], 0 end end
      if #lx > 0 then
        p:points(lx, ly, { color = style.cluster_color(h), marker = style.cluster_marker(h), radius = 4,
          label = string.format("k-means cluster %d", h) })
      end
    end
    if cut then
      p:line({ 0, n + 1 }, { cut, cut }, { color = "#d62728", dash = { 6, 4 },
        label = string.format("cut into %d Ward clusters", k) })
    end
    if tree.agreement then
      p:note(string.format("Ward's %d clusters against k-means: adjusted Rand index %.3f (1 = the same partition)",
        k, tree.agreement))
    end
    return p
  end, extra, function(_, cv, pd)
    -- more leaves than fit side by side: each leaf's component number written
    -- upwards under it (every k-th when even that does not fit)
    if n <= 40 then return end
    local x0 = plot.to_pixel(pd, 1, 0)
    local x1 = plot.to_pixel(pd, 2, 0)
    local gap = math.abs(x1 - x0)
    local size = math.max(6, math.min(9, gap * 0.9))
    local every = math.max(1, math.ceil(size / math.max(gap, 1e-9)))
    local y = pd.plot.y + pd.plot.h + 3
    extra.leaf_labels = {}
    for r, i in ipairs(tree.order) do
      if (r - 1) % every == 0 then
        local x = plot.to_pixel(pd, r, 0)
        cv:text(x, y, tostring(i), { align = "right", valign = "middle", size = size, angle = -90,
          color = "#303030" })
        extra.leaf_labels[#extra.leaf_labels + 1] = { text = tostring(i), x = x, y = y }
      end
    end
  end)
end

return M
