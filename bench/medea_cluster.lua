-- MEDEA clustering benchmark: k-means (K = 1..11, k-means++ restarts until 20 in a
-- row find no better W_K, with Hartigan's H, Calinski-Harabasz and the silhouette of
-- every K) and DBSCAN (eps from the knee of the k-distance curve) on generated
-- workloads of N traces x 5 parameters: five round groups and a ring around them.
-- Usage: retrace bench/medea_cluster.lua [N ...]   (default: 1000 10000)
local cluster = require "retrace.medea.cluster"
local medea = require "retrace.medea"
local clock = require("retrace.core").frames.clock

local function rss_mb()
  for line in io.lines("/proc/self/status") do
    local kb = line:match("^VmHWM:%s+(%d+)")
    if kb then return tonumber(kb) / 1024 end
  end
end

local function workload(n)
  math.randomseed(n)
  local comps = {}
  for i = 1, n do
    local params = {}
    if i % 6 == 0 then -- the ring
      local a = 2 * math.pi * math.random()
      params = { 10 + 8 * math.cos(a), 10 + 8 * math.sin(a), 3, 3, 3 }
      for j = 3, 5 do params[j] = params[j] + math.random() end
    else
      local g = i % 6
      for j = 1, 5 do params[j] = g * 3 + (j == g and 4 or 0) + math.random() end
    end
    comps[i] = { name = "t" .. i, params = { a = params[1], b = params[2], c = params[3], d = params[4],
                                             e = params[5] } }
  end
  return comps
end

local sizes = {}
for i = 1, #(arg or {}) do sizes[#sizes + 1] = math.tointeger(tonumber(arg[i])) end
if #sizes == 0 then sizes = { 1000, 10000 } end
for _, n in ipairs(sizes) do
  local comps = workload(n)
  local t0 = clock()
  local res = assert(medea.characterize(comps, { "a", "b", "c", "d", "e" }, { kmax = 10 }))
  local t1 = clock()
  local db = assert(cluster.dbscan(res.scaled))
  local t2 = clock()
  local tries = 0
  for k = 1, res.kmax do tries = tries + (res.tries[k] or 0) end
  print(string.format("%6d traces: k-means K = 1..11 with indices and drivers %.2f s (%d seedings, K = %d by %s); "
    .. "DBSCAN %.2f s (%d clusters, %d noise; %s); peak RSS %.0f MB", n, t1 - t0, tries, res.k, res.rule,
    t2 - t1, db.clusters, db.noise, db.how, rss_mb()))
end
