--- retrace.medea: workload characterization of message-passing traces.
--
--   medea.parameters(trace, approach) -> components | nil, message
--       trace: a path or an accumulator (retrace.core.medea.new()) already fed;
--       approach: "program" (default), "processor" or "event".
--   medea.accumulate(path [, strict [, profiles [, bursts [, shared]]]]) -> accumulator | nil, message
--   medea.kmeans(matrix, k, opts), medea.fit(xs, ys, model [, degree])
--   medea.characterize(components, opts) -> the clusters table of `retrace medea --json`
-- Submodules: cluster, fit, formats, functional, metrics.
--
-- A component is { name=, trace=, processor = id | "all", event = type (event
-- approach only), params = { name = value } }.
local core = require "retrace.core"
local cluster = require "retrace.medea.cluster"
local fitmod = require "retrace.medea.fit"

local M = {
  cluster = cluster,
  fit_module = fitmod,
  formats = require "retrace.medea.formats",
  functional = require "retrace.medea.functional",
  metrics = require "retrace.medea.metrics",
  slices = require "retrace.medea.slices",
  bursts = require "retrace.medea.bursts",
}

--- Parameter names of each approach, in report order.
M.params = {
  processor = { "extime", "cptime", "cmtime", "rctime", "trtime", "iotime", "iptime", "cktime",
                "rstime", "cotime", "sytime", "ttdata", "trdata", "rcdata", "iodata",
                "trnum", "rcnum", "ionum" },
  event = { "ctime", "stime", "utime", "hstime", "cnum", "snum", "unum", "hsnum", "hunum" },
}
M.params.program = table.move(M.params.processor, 1, #M.params.processor, 1, {})
table.insert(M.params.program, "prnum")

local TIMES = { cptime = true, cmtime = true, rctime = true, trtime = true, iotime = true, iptime = true,
                cktime = true, rstime = true, cotime = true, sytime = true }
local SYSTEM_TIMES = { "rctime", "trtime", "iotime", "iptime", "cktime", "rstime", "cotime", "sytime" }
M.system_times = SYSTEM_TIMES

local function basename(path)
  return (tostring(path):gsub("/+$", ""):match("([^/]+)$")) or tostring(path)
end
M.basename = basename

--- Replay a PICL trace (old or new format) into a new accumulator; profiles:
-- keep what the activity profiles need (memory grows with the trace then).
-- The trace is replayed by the message-passing engine (core/msg), whose record
-- stream feeds the accumulator. Returns acc, skipped (malformed lines skipped),
-- warnings (the engine's: unmatched exits, events left open, tachyons) or nil, message.
-- shared = true under mpirun (retrace.par, more than one rank): the ranks share
-- this trace, each keeping its own processors' parameters (p % size == rank), and
-- rank 0 gets a view of them all ({processors, events, from_stats, close} as an
-- accumulator's), equal to the serial run's value for value; the other ranks get
-- a view of their own processors only. Collective then: every rank calls it, in
-- the same order, for the same trace. With profiles or bursts (not split yet),
-- or shared false, each process reads the whole trace alone. Returns nil, false
-- on a rank whose part was read when another rank's could not be.
function M.accumulate(path, strict, profiles, bursts, shared)
  local par = require "retrace.par"
  local split = shared and par.size() > 1 and not profiles and not bursts
  local acc = core.medea.new(profiles, bursts)
  if split then acc:own(par.rank(), par.size()) end
  local skipped, warnings = acc:feed(path, strict)
  if split and par.agree(skipped and 0 or 1) ~= 0 then
    acc:close()
    return nil, skipped and false or warnings -- (false: another rank failed and says why)
  end
  if not skipped then acc:close(); return nil, warnings end
  if not split then return acc, skipped, warnings end
  local mine = { procs = acc:processors(), events = acc:events(), from_stats = acc:from_stats() }
  acc:close()
  local all = par.gather(mine)
  return M.view(all or { mine }), skipped, warnings
end

local View = {}
View.__index = View
function View:processors() return self.procs end
function View:events() return self.evs end
function View:from_stats() return self.stats end
function View:close() end

--- An accumulator's view made of parts {{procs =, events =, from_stats =}, ...}
-- (acc:processors(), acc:events(), acc:from_stats() of disjoint processor sets):
-- processors by (id, task), events by (processor, task, event type), as one
-- accumulator lists them.
function M.view(parts)
  local v = setmetatable({ procs = {}, evs = {}, stats = false }, View)
  for _, part in ipairs(parts) do
    for _, p in ipairs(part.procs) do v.procs[#v.procs + 1] = p end
    for _, e in ipairs(part.events) do v.evs[#v.evs + 1] = e end
    v.stats = v.stats or part.from_stats
  end
  table.sort(v.procs, function(a, b)
    if a.proc ~= b.proc then return a.proc < b.proc end
    return (a.task or 0) < (b.task or 0)
  end)
  table.sort(v.evs, function(a, b)
    if a.proc ~= b.proc then return a.proc < b.proc end
    if (a.task or 0) ~= (b.task or 0) then return (a.task or 0) < (b.task or 0) end
    return a.event < b.event
  end)
  return v
end

local function pick(t, names)
  local out = {}
  for _, n in ipairs(names) do out[n] = t[n] end
  return out
end

--- Components of one trace for an approach (see the header).
function M.parameters(trace, approach, name)
  approach = approach or "program"
  local acc, owned = trace, false
  if type(trace) == "string" then
    local err
    acc, err = M.accumulate(trace)
    if not acc then return nil, err end
    owned = true
    name = name or basename(trace)
  end
  name = name or "trace"
  local tracename = type(trace) == "string" and trace or name
  local comps = {}
  -- a component's processor, with its PICL task when it has one ("3.1": task 1 on processor 3)
  local function where(c) return c.task and (c.proc .. "." .. c.task) or c.proc end
  if approach == "processor" then
    for _, p in ipairs(acc:processors()) do
      comps[#comps + 1] = { name = name .. "/" .. where(p), trace = tracename, processor = p.proc, task = p.task,
                            params = pick(p, M.params.processor) }
    end
  elseif approach == "program" then
    local procs = acc:processors()
    local params = { prnum = #procs }
    local first, last, traced = math.huge, -math.huge, 0
    for _, pname in ipairs(M.params.processor) do
      if pname ~= "extime" then params[pname] = 0 end
    end
    for _, p in ipairs(procs) do
      first, last, traced = math.min(first, p.first), math.max(last, p.last), math.max(traced, p.extime)
      for _, pname in ipairs(M.params.processor) do
        if pname ~= "extime" then params[pname] = params[pname] + p[pname] end
      end
    end
    if #procs > 0 then
      for pname in pairs(TIMES) do params[pname] = params[pname] / #procs end
      -- statistics-only traces: the time they say was traced, where the records span none
      params.extime = math.max(last - first, traced)
    else
      params.extime = 0
    end
    comps[1] = { name = name, trace = tracename, processor = "all", params = params }
  elseif approach == "event" then
    local sums, order = {}, {}
    for _, e in ipairs(acc:events()) do
      comps[#comps + 1] = { name = name .. "/" .. where(e) .. "/" .. e.event, trace = tracename,
                            processor = e.proc, task = e.task, event = e.event, params = pick(e, M.params.event) }
      local s = sums[e.event]
      if not s then
        s = {}
        for _, pname in ipairs(M.params.event) do s[pname] = 0 end
        sums[e.event] = s
        order[#order + 1] = e.event
      end
      for _, pname in ipairs(M.params.event) do s[pname] = s[pname] + e[pname] end
    end
    table.sort(order)
    for _, ev in ipairs(order) do
      comps[#comps + 1] = { name = name .. "/all/" .. ev, trace = tracename, processor = "all",
                            event = ev, params = sums[ev] }
    end
  else
    if owned then acc:close() end
    error("unknown approach '" .. tostring(approach) .. "' (program, processor, event)", 2)
  end
  if owned then acc:close() end
  return comps
end

--- Activity profiles of an accumulator: { exec = {times=, counts=}, comp = ..., ... }.
function M.profiles(acc)
  local out = {}
  for _, which in ipairs({ "exec", "comp", "comm", "recv", "send", "io" }) do
    local t, c = acc:profile(which)
    out[which] = { times = t, counts = c }
  end
  return out
end

-- One list of a profile into the output o, read in batches (JSON as retrace.json writes the
-- whole list: an empty one is {}, lua-cjson's empty table).
local function write_profile_list(o, acc, which, column)
  local cjson = require "cjson"
  local any = false
  acc:profile_batches(which, 65536, function(times, counts)
    local text = cjson.encode(column == "times" and times or counts)
    o:write(any and "," or "[", text:sub(2, -2))
    any = true
  end)
  o:write(any and "]" or "{}")
end

--- Write the activity profiles of an accumulator into the output o (retrace.fs.create) as
-- the JSON object {"profiles": M.profiles(acc), "trace": path} (keys sorted, the bytes
-- retrace.json gives), without holding them: each list is read from the accumulator in
-- batches. first: no comma before it.
function M.write_profiles(o, path, acc, first)
  local cjson = require "cjson"
  local names = { "comm", "comp", "exec", "io", "recv", "send" } -- (sorted)
  o:write(first and "" or ",", '{"profiles":{')
  for i, which in ipairs(names) do
    o:write(i > 1 and "," or "", cjson.encode(which), ':{"counts":')
    write_profile_list(o, acc, which, "counts")
    o:write(',"times":')
    write_profile_list(o, acc, which, "times")
    o:write("}")
  end
  o:write('},"trace":', cjson.encode(path), "}")
end

M.kmeans = cluster.kmeans

--- Least-squares fit (see retrace.medea.fit).
function M.fit(xs, ys, model, degree)
  return fitmod.fit(xs, ys, model, degree)
end

--- Matrix of the chosen parameters of components; nil, message for an unknown name.
function M.matrix(components, names)
  local m = {}
  for i, c in ipairs(components) do
    local row = {}
    for j, n in ipairs(names) do
      local v = c.params[n]
      if type(v) ~= "number" then
        return nil, string.format("parameter '%s' is not defined for component %s", n, c.name)
      end
      row[j] = v
    end
    m[i] = row
  end
  return m
end

-- Ward's tree needs n^2 distances: past this many components it is left out
M.ward_max = 2000

--- Diagnostics of a characterize() result (retrace.medea.diagnostics), computed on
-- the scaled matrix: {pca = {values, explained, vectors, scores, mean}, silhouettes =
-- {per component}, ward = {merges, order, n, assign (cut into res.k clusters),
-- agreement (adjusted Rand index with the k-means partition)} or nil with a note
-- when there are more than M.ward_max components}.
function M.diagnose(res)
  local diag = require "retrace.medea.diagnostics"
  local out = { pca = diag.pca(res.scaled), silhouettes = diag.silhouettes(res.scaled, res.assign, res.k) }
  if res.n >= 2 and res.n <= M.ward_max then
    local tree = diag.ward(res.scaled)
    tree.assign = diag.cut(tree, res.n, res.k)
    tree.agreement = diag.rand_index(tree.assign, res.assign)
    out.ward = tree
  elseif res.n > M.ward_max then
    out.note = string.format("Ward's clustering left out: %d components (at most %d)", res.n, M.ward_max)
  end
  return out
end

--- Relative spread (max - min over the largest magnitude) under which a parameter
-- counts as constant: execution times equal but for clock jitter differ by parts per
-- million, and min-max scaling would blow that up to the full range.
M.TOLERANCE = 1e-4

--- Which parameters drive a partition (scaled matrix, k >= 2): per parameter the
-- share of its variance between the clusters (1 - within / total; 1 = the clusters
-- differ only in it, 0 = it plays no part), and the adjusted Rand index between the
-- partition and k-means at the same K without that parameter (1 = the grouping does
-- not depend on it). skip: {[column] = true} for constant parameters. Returns a list
-- {param =, column =, between =, without = ARI or nil} sorted by between, largest first.
function M.drivers(scaled, assign, k, names, skip, opts)
  opts = opts or {}
  local n, d = #scaled, #names
  local out = {}
  if k < 2 then return out end
  local rand = require("retrace.medea.diagnostics").rand_index
  for j = 1, d do
    if not skip[j] then
      local col, sum, cnt, mean = {}, {}, {}, 0
      for i = 1, n do col[i] = scaled[i][j]; mean = mean + col[i] end
      mean = mean / n
      for h = 1, k do sum[h], cnt[h] = 0, 0 end
      for i = 1, n do sum[assign[i]] = sum[assign[i]] + col[i]; cnt[assign[i]] = cnt[assign[i]] + 1 end
      local total, within = 0, 0
      for i = 1, n do
        local h = assign[i]
        total = total + (col[i] - mean) ^ 2
        within = within + (col[i] - sum[h] / cnt[h]) ^ 2
      end
      local r = { param = names[j], column = j, between = total > 0 and 1 - within / total or 0 }
      -- the partition again without parameter j (when some other one remains)
      local rest = {}
      for c = 1, d do if c ~= j and not skip[c] then rest[#rest + 1] = c end end
      if #rest > 0 then
        local m = {}
        for i = 1, n do
          local row = {}
          for q, c in ipairs(rest) do row[q] = scaled[i][c] end
          m[i] = row
        end
        r.without = rand(cluster.kmeans(m, k, opts).assign, assign)
      end
      out[#out + 1] = r
    end
  end
  table.sort(out, function(a, b) return a.between > b.between end)
  return out
end

--- Cluster components on the named parameters.
-- opts: log, scale ("minmax"), kmax (10), k (force this K), seed (1), restarts (10),
-- patience (20): k-means restarts until this many seedings in a row found no better W.
-- opts.tolerance: relative spread under which a parameter counts as constant
-- (M.TOLERANCE); it is reported as such and left out of the scaling and distance.
-- opts.dbscan: also DBSCAN ({eps =, min_pts =}, either may be nil: chosen and said how).
-- Returns { k=, best_k=, rule = "given" | "hartigan" | "silhouette" | "calinski_harabasz" |
--           "kmax" (how K was chosen), notes = {...}, constant = {{column=, spread=, value=,
--           relative=}}, drivers = (M.drivers), tries = {seedings per K}, dbscan = ...,
--           w=, h=, ch=, silhouette=, assign=, members=, table=, breakdown=, params= }
-- or nil, message.
function M.characterize(components, names, opts)
  opts = opts or {}
  if #components == 0 then return nil, "no components to cluster" end
  local raw, err = M.matrix(components, names)
  if not raw then return nil, err end
  local scaled, spec = cluster.transform(raw, { log = opts.log, scale = opts.scale or "minmax" })
  if not scaled then return nil, spec end
  local notes = {}
  -- a parameter constant up to a tolerance would be blown up to the full range by
  -- scaling and split clusters on noise: it leaves the distance
  local tol = opts.tolerance or M.TOLERANCE
  local constant = cluster.constant_columns(raw, tol)
  local exact, skip = {}, {}
  for _, c in ipairs(constant) do
    for i = 1, #scaled do scaled[i][c.column] = 0 end
    spec.columns[c.column].b = 0 -- a new component is placed without it too
    skip[c.column] = true
    c.param = names[c.column]
    c.relative = c.value ~= 0 and c.spread / math.abs(c.value) or 0
    if c.spread > 0 then
      notes[#notes + 1] = string.format("parameter %s varies by %.3g ppm of its value (spread %.3g around "
        .. "%.6g, under the tolerance %g): reported as constant, left out of the scaling and the distance",
        c.param, 1e6 * c.relative, c.spread, c.value, tol)
    else
      exact[#exact + 1] = string.format("%s = %.6g", c.param, c.value)
    end
  end
  if #exact > 0 then
    notes[#notes + 1] = "constant parameters (no part in the distance): " .. table.concat(exact, ", ")
  end
  local n = #raw
  local kmax = math.min(opts.kmax or 10, n)
  if opts.k and opts.k > n then
    return nil, string.format("--k %d: only %d components", opts.k, n)
  end
  kmax = math.max(kmax, opts.k or 0)
  local kopts = { seed = opts.seed or 1, restarts = opts.restarts, patience = opts.patience }
  local a = cluster.analyse(scaled, { kmax = kmax, seed = kopts.seed, restarts = kopts.restarts,
                                      patience = kopts.patience })
  local k, rule = opts.k, "given"
  local w1 = a.w and a.w[1]
  if not k and n > 1 and w1 and w1 <= 0 then
    -- every component has the same clustered parameters: one cluster, nothing to choose
    -- (H(K) and the silhouettes say nothing about identical points)
    k, rule = 1, "identical"
    table.insert(notes, 1, string.format("the %d components are identical in every clustered parameter: "
      .. "one cluster (K = 1)", n))
  elseif not k and a.best_k then
    k, rule = a.best_k, "hartigan"
  elseif not k then
    k, rule = cluster.second_choice(a)
    local how = ({ silhouette = "the best mean silhouette (ties: Calinski-Harabasz)",
                   calinski_harabasz = "the best Calinski-Harabasz (no silhouette defined)",
                   kmax = "Kmax (neither silhouette nor Calinski-Harabasz defined)" })[rule]
    -- first: what decides K matters more than which parameters were dropped
    table.insert(notes, 1, string.format("no K up to %d has H(K) <= 10: K = %d chosen by %s", kmax, k, how))
  end
  local part = a.partitions[k]
  local tries = {}
  for kk = 1, kmax do tries[kk] = a.partitions[kk] and a.partitions[kk].tries end
  local dbscan
  if opts.dbscan then
    local derr
    dbscan, derr = cluster.dbscan(scaled, opts.dbscan)
    if not dbscan then return nil, derr end
  end
  local names_list = {}
  for i, c in ipairs(components) do names_list[i] = c.name end
  local tracenames = {}
  for i, c in ipairs(components) do tracenames[i] = basename(c.trace or c.name) end
  return {
    k = k, best_k = a.best_k, kmax = kmax, n = n, params = names, rule = rule, notes = notes,
    constant = constant, tolerance = tol, tries = tries, dbscan = dbscan, transform = spec,
    drivers = M.drivers(scaled, part.assign, k, names, skip, kopts),
    w = a.w, h = a.h, ch = a.ch, silhouette = a.silhouette,
    assign = part.assign, centroids = part.centroids, scaled = scaled, raw = raw,
    members = M.functional.members(names_list, part.assign, k),
    table = cluster.model_table(raw, part.assign, k, names),
    breakdown = M.functional.breakdown(tracenames, part.assign, k),
  }
end

--- The workload model of a characterize() result as a plain table (JSON ready):
-- {kind = "retrace.medea.model", version = 1, approach, params, transform (log, scale,
-- per column shift, a, b: scaled = (x - a) / b), k, centroids (scaled units), radius
-- (per cluster: the largest distance of a member to its centroid), count, table (the
-- model table in original units)}.
function M.model(res, approach)
  local radius, count = {}, {}
  for h = 1, res.k do radius[h], count[h] = 0, 0 end
  for i, row in ipairs(res.scaled) do
    local h = res.assign[i]
    count[h] = count[h] + 1
    radius[h] = math.max(radius[h], math.sqrt(cluster.dist2(row, res.centroids[h])))
  end
  local tbl = {}
  for h, row in ipairs(res.table) do tbl[h] = { share = row.share, count = row.count, mean = row.mean, std = row.std } end
  return { kind = "retrace.medea.model", version = 1, approach = approach, params = res.params,
           transform = res.transform, k = res.k, centroids = res.centroids, radius = radius, count = count,
           table = tbl }
end

--- Check a decoded model (M.model's shape); returns it or nil, message.
function M.check_model(m)
  if type(m) ~= "table" or m.kind ~= "retrace.medea.model" then
    return nil, "not a retrace medea workload model (kind is not \"retrace.medea.model\")"
  end
  for _, f in ipairs { "params", "centroids", "radius", "transform" } do
    if type(m[f]) ~= "table" then return nil, "workload model: field '" .. f .. "' missing" end
  end
  local d = #m.params
  if type(m.transform.columns) ~= "table" or #m.transform.columns ~= d then
    return nil, "workload model: transform.columns must have one entry per parameter"
  end
  if #m.centroids ~= m.k or #m.radius ~= m.k then
    return nil, "workload model: centroids and radius must have k entries"
  end
  for h, c in ipairs(m.centroids) do
    if type(c) ~= "table" or #c ~= d then
      return nil, string.format("workload model: centroid %d must have %d values", h, d)
    end
  end
  return m
end

--- Place components into a saved workload model: each goes to its nearest centroid
-- (scaled with the model's own transform). too_far (default 1.5): a component
-- farther than too_far x its cluster's radius is flagged; a cluster of one member
-- (radius 0) takes the largest radius of the model instead. Returns a list
-- {name =, cluster =, distance =, radius =, too_far = bool, distances = {to each
-- centroid}} or nil, message.
function M.place(model, components, too_far)
  too_far = too_far or 1.5
  local raw, err = M.matrix(components, model.params)
  if not raw then return nil, err end
  local scaled, terr = cluster.apply_transform(raw, model.transform)
  if not scaled then return nil, terr end
  local widest = 0
  for _, r in ipairs(model.radius) do widest = math.max(widest, r) end
  local out = {}
  for i, row in ipairs(scaled) do
    local best, bd, dists = 1, math.huge, {}
    for h, c in ipairs(model.centroids) do
      dists[h] = math.sqrt(cluster.dist2(row, c))
      if dists[h] < bd then best, bd = h, dists[h] end
    end
    local r = model.radius[best] > 0 and model.radius[best] or widest
    out[i] = { name = components[i].name, cluster = best, distance = bd, radius = r,
               too_far = bd > too_far * r, distances = dists }
  end
  return out
end

return M
