--- retrace.medea.bursts: computation bursts between system events (the CPU
-- bursts between MPI calls that BSC's ClusteringSuite clusters), grouped by
-- k-means on their duration and the user events they hold.
--
--   local bursts = require "retrace.medea.bursts"
--   local r = bursts.cluster(acc, k, {seed =, log = true})   -- acc keeping bursts:
--     medea.accumulate(path, strict, profiles, true)
--     -> {n =, k =, proc = {..}, task = {..}, t0 = {..}, t1 = {..}, duration = {..}, nuser = {..},
--         assign = {cluster of each burst}, clusters = {{count, mean_duration, mean_nuser,
--         total}, ...}, w =} | nil, message
--   bursts.markers(r) -> {{proc =, time =, name =, args = {...}}, ...}: one instant per burst
--     at its start, for trace exports (retrace.pgscale.chrome_json's markers option)
--
-- A burst is a processor (task) computing outside every system event: from its
-- first record, or the end of an outermost system interval, to the start of the
-- next one, or its last record (bursts of no length are left out). Clustered on
-- ln(duration) and the user-event count, each scaled to [0, 1]; clusters are
-- numbered by mean duration, shortest first.
local cluster = require "retrace.medea.cluster"

local M = {}

function M.cluster(acc, k, opts)
  opts = opts or {}
  local b = acc:bursts()
  local n = #b.t0
  if n == 0 then return nil, "no computation bursts (no time outside system events, or bursts not kept)" end
  if math.type(k) ~= "integer" or k < 1 then return nil, "the number of burst clusters must be an integer >= 1" end
  if k > n then return nil, string.format("%d burst clusters asked for, %d bursts", k, n) end
  local rows, dur = {}, {}
  for i = 1, n do
    dur[i] = b.t1[i] - b.t0[i]
    rows[i] = { opts.log == false and dur[i] or math.log(dur[i]), b.nuser[i] }
  end
  local scaled = assert(cluster.transform(rows, { scale = "minmax" }))
  local km = cluster.kmeans(scaled, k, { seed = opts.seed or 1 })
  -- clusters by mean duration, shortest first
  local sum, cnt, su = {}, {}, {}
  for h = 1, k do sum[h], cnt[h], su[h] = 0, 0, 0 end
  for i = 1, n do
    local h = km.assign[i]
    sum[h], cnt[h], su[h] = sum[h] + dur[i], cnt[h] + 1, su[h] + b.nuser[i]
  end
  local order = {}
  for h = 1, k do order[h] = h end
  table.sort(order, function(x, y)
    local mx, my = cnt[x] > 0 and sum[x] / cnt[x] or math.huge, cnt[y] > 0 and sum[y] / cnt[y] or math.huge
    if mx ~= my then return mx < my end
    return x < y
  end)
  local rank = {}
  for r, h in ipairs(order) do rank[h] = r end
  local assign, clusters = {}, {}
  for i = 1, n do assign[i] = rank[km.assign[i]] end
  for r, h in ipairs(order) do
    clusters[r] = { count = cnt[h], total = sum[h], mean_duration = cnt[h] > 0 and sum[h] / cnt[h] or 0,
                    mean_nuser = cnt[h] > 0 and su[h] / cnt[h] or 0 }
  end
  return { n = n, k = k, proc = b.proc, task = b.task, t0 = b.t0, t1 = b.t1, duration = dur, nuser = b.nuser,
           assign = assign, clusters = clusters, w = km.w }
end

function M.markers(r)
  local out = {}
  for i = 1, r.n do
    out[i] = { proc = r.proc[i], time = r.t0[i], name = "burst cluster " .. r.assign[i],
               args = { cluster = r.assign[i], duration = r.duration[i], user_events = r.nuser[i] } }
  end
  return out
end

return M
