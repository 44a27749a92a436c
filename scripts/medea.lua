-- retrace medea PATH...: workload characterization of message-passing traces
-- (PICL, and OTF2, Paraver, Paje when their readers are built in): parameters,
-- k-means workload models, functional description, parallel metrics.
local cli = require "retrace.cli"
local medea = require "retrace.medea"
local formats = require "retrace.formats"
local par = require "retrace.par"

local APPROACHES = { program = true, processor = true, event = true }

-- Formats whose traces a directory contributes: PICL, and the message-passing
-- readers this build has (OTF2 anchors, Paraver .prv, Paje); never companion files.
local function readable_formats()
  local r = { ["picl-new"] = true, ["picl-old"] = true }
  for _, f in ipairs(require("retrace.core").replay.formats()) do r[f] = true end
  return r
end

-- Trace files named by the arguments: a directory means every trace under it.
-- Each directory and each file is taken once, by device and inode, so a symbolic
-- link back up the tree (a loop) or a second name of a trace adds nothing. What
-- cannot be read (a trace without read permission, a folder that cannot be
-- listed) and every file of a folder that is not a trace are named in a warning
-- (one line each, said by rank 0 alone under mpirun); the files that belong to a
-- trace (Paraver's .pcf and .row, an OTF2 archive's parts, its MANIFEST.md and
-- scorep.cfg beside the anchor) are passed over. A folder with no trace is an
-- input error naming it.
local COMPANION = { ["paraver-pcf"] = true, ["paraver-row"] = true, ["otf2-part"] = true, rtidx = true }
local ARCHIVE_EXTRAS = { ["MANIFEST.md"] = true, ["scorep.cfg"] = true }
local function collect(paths)
  local readable = readable_formats()
  local lfs = require "lfs"
  local out, seen, links = {}, {}, {}
  local visit
  local function first_time(p)
    local a = lfs.attributes(p)
    if not a then return true end -- (a dangling link: the walk below names it)
    local key = a.dev .. ":" .. a.ino
    if seen[key] then return false end
    seen[key] = true
    return true
  end
  local warn = cli.warning
  -- 1 when p is a file Score-P writes beside an OTF2 anchor (*.otf2) of its folder
  local function archive_extra(p)
    local dir, base = p:match("^(.*)/([^/]*)$")
    if not base or not ARCHIVE_EXTRAS[base] then return false end
    for e in lfs.dir(dir) do
      if e:match("%.otf2$") then return true end
    end
    return false
  end
  local function walk(dir)
    local names = {}
    local ok, err = pcall(function()
      for e in lfs.dir(dir) do
        if e ~= "." and e ~= ".." and not e:match("^%.") then names[#names + 1] = e end
      end
    end)
    if not ok then
      warn(dir .. ": cannot list this folder (" .. tostring(err):gsub("^.-: ", "") .. "); its traces are left out")
      return
    end
    table.sort(names)
    -- files before folders, links after every real name: a trace met twice is
    -- listed under its shallowest real name
    local dirs = {}
    for _, e in ipairs(names) do
      local p = dir .. "/" .. e
      if lfs.symlinkattributes(p, "mode") == "link" and lfs.attributes(p, "mode") then
        links[#links + 1] = p
      elseif lfs.attributes(p, "mode") == "directory" then
        dirs[#dirs + 1] = p
      else
        visit(p)
      end
    end
    for _, p in ipairs(dirs) do visit(p) end
  end
  function visit(p)
    local mode = lfs.attributes(p, "mode")
    if mode == "directory" then
      if first_time(p) then walk(p) end
    elseif mode == "file" then
      local fmt, why = formats.detect(p)
      if not fmt then
        warn(why .. " (left out)")
      elseif readable[fmt] then
        if first_time(p) then out[#out + 1] = p end
      elseif not COMPANION[fmt] and not archive_extra(p) and first_time(p) then
        warn(p .. ": " .. (fmt == "unknown" and "not a trace" or ("a " .. fmt .. " file, not a message-passing trace"))
          .. " (left out)")
      end
    elseif not mode and lfs.symlinkattributes(p, "mode") == "link" then
      warn(p .. ": a symbolic link to nothing (left out)")
    end
  end
  local function walk_all(dir)
    walk(dir)
    local i = 1
    while i <= #links do -- (walking a linked folder may add links)
      visit(links[i])
      i = i + 1
    end
    links = {}
  end
  for _, p in ipairs(paths) do
    local mode = lfs.attributes(p, "mode")
    if mode == "directory" then
      local before = #out
      local dir = p:gsub("/+$", "")
      if dir == "" then dir = "/" end
      if first_time(dir) then walk_all(dir) end
      if #out == before then cli.input_error(p .. ": no message-passing trace files in this directory") end
    elseif mode or p == "-" then -- ("-": standard input, read by the trace source)
      out[#out + 1] = p
    else
      cli.input_error(p .. ": No such file or directory")
    end
  end
  return out
end

local function split_list(s)
  local t = {}
  for w in s:gmatch("[^,%s]+") do t[#t + 1] = w end
  return t
end

local function dense(list, n, null)
  local out = {}
  for i = 1, n do
    local v = list[i]
    if v == nil or v ~= v or v == math.huge or v == -math.huge then v = null end
    out[i] = v
  end
  return out
end

local function write_csv(path, comps, names, assign)
  local header = { "name", "trace", "processor", "event", "cluster" }
  for _, n in ipairs(names) do header[#header + 1] = n end
  local rows = {}
  for i, c in ipairs(comps) do
    local row = { c.name, c.trace, c.processor, c.event, assign and assign[i] }
    for j, n in ipairs(names) do row[5 + j] = c.params[n] end
    rows[i] = row
  end
  local ok, err = require("retrace.fs").write_csv(path, header, rows)
  if not ok then cli.input_error("--csv: " .. err) end
end

-- Components listed in the text report's parameter table (--json and --csv have all)
local TABLE_ROWS = 40

-- The parameters of each component, one row per component and one column per
-- parameter of the approach (MEDEA's Table 5 layout for the user-event approach).
local function print_parameters(out, comps, all)
  out:write("parameters per component (", #comps > TABLE_ROWS and
    string.format("the first %d of %d; --csv or --json for all", TABLE_ROWS, #comps) or #comps, "):\n")
  local width = 8
  for i = 1, math.min(#comps, TABLE_ROWS) do width = math.max(width, #comps[i].name) end
  local head = { string.format("  %-" .. width .. "s", "component") }
  for _, n in ipairs(all) do head[#head + 1] = string.format("%11s", n) end
  out:write(table.concat(head, " "), "\n")
  for i = 1, math.min(#comps, TABLE_ROWS) do
    local c = comps[i]
    local row = { string.format("  %-" .. width .. "s", c.name) }
    for _, n in ipairs(all) do
      local v = c.params[n]
      row[#row + 1] = string.format("%11s", v == nil and "-" or (math.type(v) == "integer" and
        string.format("%d", v) or string.format("%.6g", v)))
    end
    out:write(table.concat(row, " "), "\n")
  end
end

local function print_text(comps, res, names, scaling, diag, what, all)
  local out = io.stdout
  -- what decides K comes first: a K chosen by the second rule is not Hartigan's
  for _, n in ipairs(res.notes) do out:write(n, "\n") end
  print_parameters(out, comps, all)
  out:write(string.format("\n%d components%s, parameters: %s\n", #comps, what, table.concat(names, ", ")))
  out:write("\n   K           W_K        H(K)   Calinski-H  silhouette\n")
  for k = 1, res.kmax do
    local function f(v, fmt) return v and string.format(fmt, v) or "-" end
    out:write(string.format("%4d %13s %11s %12s %11s\n", k, f(res.w[k], "%.6g"), f(res.h[k], "%.4g"),
      f(res.ch[k], "%.4g"), f(res.silhouette[k], "%.4f")))
  end
  if res.rule == "identical" then
    out:write("\nthe components are identical: one cluster (K = 1)\n")
  elseif res.best_k then
    out:write(string.format("\noptimal partition: K = %d (smallest K with H(K) <= 10)\n", res.best_k))
  else
    out:write(string.format("\nno K up to %d has H(K) <= 10\n", res.kmax))
  end
  if res.rule == "silhouette" or res.rule == "calinski_harabasz" then
    out:write(string.format("K = %d by the second rule (best mean silhouette, then Calinski-Harabasz)\n", res.k))
  end
  out:write(string.format("workload model for K = %d:\n", res.k))
  local head = { string.format("%-8s %7s", "cluster", "share") }
  for _, n in ipairs(names) do head[#head + 1] = string.format("%12s %10s", n .. " mean", "std") end
  out:write(table.concat(head, " "), "\n")
  for _, row in ipairs(res.table) do
    local line = { string.format("%-8d %6.1f%%", row.cluster, 100 * row.share) }
    for _, n in ipairs(names) do
      line[#line + 1] = string.format("%12.6g %10.4g", row.mean[n] or 0, row.std[n] or 0)
    end
    out:write(table.concat(line, " "), "\n")
  end
  for h, m in ipairs(res.members) do
    out:write(string.format("cluster %d: %s\n", h, table.concat(m, " ")))
  end
  if #res.drivers > 0 then
    out:write(string.format("what drives the split into %d clusters (share of each parameter's variance "
      .. "between the clusters; agreement of k-means without it, adjusted Rand index, 1 = same grouping):\n",
      res.k))
    for _, d in ipairs(res.drivers) do
      out:write(string.format("  %-10s between %5.1f%%   without it: %s\n", d.param, 100 * d.between,
        d.without and string.format("%.3f", d.without) or "-"))
    end
  end
  local stopped = {}
  for kk = 1, res.kmax do
    if res.tries[kk] then stopped[#stopped + 1] = string.format("%d", res.tries[kk]) end
  end
  out:write(string.format("k-means seedings per K (k-means++, until %d in a row found no better W_K): %s\n",
    res.patience or 20, table.concat(stopped, " ")))
  if res.dbscan then
    local db = res.dbscan
    out:write(string.format("DBSCAN: %d clusters, %d noise components (%s); adjusted Rand index with "
      .. "k-means %.3f\n", db.clusters, db.noise, db.how,
      require("retrace.medea.diagnostics").rand_index(db.assign, res.assign)))
    local groups = {}
    for i, c in ipairs(comps) do
      local h = db.assign[i]
      groups[h] = groups[h] or {}
      table.insert(groups[h], c.name)
    end
    for h = 1, db.clusters do
      out:write(string.format("  dbscan %d: %s\n", h, table.concat(groups[h] or {}, " ")))
    end
    if groups[0] then out:write("  noise: ", table.concat(groups[0], " "), "\n") end
  end
  -- are the clusters real? (pictures: --plots; numbers: --json diagnostics)
  local ex = diag.pca.explained
  if #ex >= 2 and ex[1] > 0 then
    out:write(string.format("principal components: PC1 %.1f%%, PC2 %.1f%% of the variance\n", 100 * ex[1],
      100 * ex[2]))
  end
  if diag.ward then
    out:write(string.format("Ward's clustering into %d clusters against k-means: adjusted Rand index %.3f "
      .. "(1 = the same partition)\n", res.k, diag.ward.agreement))
  elseif diag.note then
    out:write(diag.note, "\n")
  end
  for _, b in ipairs(res.breakdown) do
    local vals = {}
    for v in pairs(b.values) do vals[#vals + 1] = v end
    table.sort(vals)
    if #vals > 1 then
      local parts = {}
      for _, v in ipairs(vals) do
        parts[#parts + 1] = v .. "=[" .. table.concat(b.values[v], " ") .. "]"
      end
      out:write(string.format("name field %d by cluster: %s\n", b.field, table.concat(parts, " ")))
    end
  end
  for _, s in ipairs(scaling or {}) do
    out:write("\nprogram ", s.program, string.format(": speedup relative to the run on p = %d, taken as "
      .. "perfectly efficient (speedup %d there)\n", s.base_p, s.base_p))
    out:write("   p        time     speedup  efficiency    efficacy\n")
    for _, r in ipairs(s.rows) do
      out:write(string.format("%4d %11.6g %11.4g %11.4g %11.4g\n", r.p, r.time, r.speedup, r.efficiency,
        r.efficacy))
    end
    if s.signature then
      out:write(string.format("execution signature: T(p) = %.6g + %.6g / p (R^2 %.4f)\n",
        s.signature.a, s.signature.b, s.signature.r2))
      if s.signature.note then out:write("  ", s.signature.note, "\n") end
    end
  end
end

return {
  parallel = true, -- under mpirun: one trace's processors shared by the ranks, a directory's traces spread
  summary = "characterize a workload of message-passing traces: parameters, k-means clusters, models",
  description = "Computes per-component parameters (program, processor or user-event approach) of every " ..
    "trace given - PICL, or OTF2, Paraver and Paje when their readers are built in; regions of those count " ..
    "by class (user regions as user events, MPI calls as sends, receives, waits, collectives) - " ..
    "(a directory means every such trace under it), clusters them with k-means for K = 1..Kmax " ..
    "and reports W_K, Hartigan's H(K), Calinski-Harabasz, silhouette, the workload model table and the " ..
    "functional description. Formats (named parameter sets) live in $RETRACE_FORMATS or " ..
    "~/.config/retrace/medea-formats.",
  parser = function(p)
    p:argument("paths", "trace files or directories"):args("*")
    p:option("--approach", "workload component: program, processor or event")
    p:option("--components", "event approach: cluster the per-processor components or the summed "
      .. "ones (one per event, over all processors); never both together", "per-processor")
      :choices({ "per-processor", "summed" })
    p:option("--params", "comma-separated parameters to cluster on")
    p:option("--params-set", "a named parameter set (approach and parameters) from the library")
    p:option("--format"):hidden(true) -- the old name of --params-set: accepted, with a warning
    p:option("--save-format", "save the chosen parameters (and approach) as this format")
    p:flag("--list-formats", "list the format library and exit")
    p:flag("--log", "log-transform the parameters before scaling")
    p:option("--scale", "scaling: minmax, zscore, percentile or none", "minmax")
    p:option("--kmax", "largest K tried", "10"):convert(math.tointeger)
    p:option("--k", "report the partition with this K"):convert(math.tointeger)
    p:option("--seed", "seed of the k-means seeding", "1"):convert(math.tointeger)
    p:option("--restarts", "k-means: fewest seedings per K", "10"):convert(math.tointeger)
    p:option("--patience", "k-means: seed again until this many seedings in a row found no better W_K",
      "20"):convert(math.tointeger)
    p:option("--tolerance", "a parameter whose spread is below this fraction of its largest value counts "
      .. "as constant (left out of the scaling and distance)", "1e-4"):convert(tonumber)
    p:flag("--dbscan", "also cluster by density (DBSCAN) beside k-means")
    p:option("--eps", "DBSCAN radius in scaled units (default: the knee of the k-distance curve)")
      :convert(tonumber)
    p:option("--min-pts", "DBSCAN: points within eps that make a core point (default 2 x parameters, "
      .. "at least 4)"):convert(math.tointeger)
    p:option("--save-model", "save the workload model (scaling, centroids, cluster radii) as JSON")
      :argname("FILE.json")
    p:option("--model", "place the components into a saved workload model instead of clustering")
      :argname("FILE.json")
    p:option("--too-far", "with --model: flag a component farther from its nearest centroid than this "
      .. "many times that cluster's largest training distance", "1.5"):convert(tonumber)
    p:option("--fit", "fit parameter Y against parameter X over the components: Y~X[:MODEL[:DEGREE]] " ..
      "(MODEL linear, polynomial, exponential, power, log, inverse; default linear)"):count("*")
    p:option("--fit-time", "fit a time parameter of each run, taken per time slice, against the time: " ..
      "PARAM[:MODEL[:DEGREE]] (PARAM cptime, cmtime, rctime, trtime or iotime)"):argname("SPEC"):count("*")
    p:option("--slices", "with --fit-time: equal time slices per run (2 to 100,000)", "10"):argname("N"):convert(math.tointeger)
    p:option("--bursts", "cluster the computation bursts between system events of each trace into K "
      .. "clusters (k-means on ln duration and user-event count)"):argname("K"):convert(math.tointeger)
    p:option("--bursts-trace", "with --bursts and one trace: write it in the Trace Event Format (Perfetto) "
      .. "with each burst's cluster as an instant marker"):argname("FILE.json")
    p:flag("--strict", "a malformed trace line is an error")
    p:flag("--json", "print JSON on stdout")
    p:option("--csv", "write one row per component (every parameter and the cluster) to FILE")
    p:option("--profiles", "write activity profiles of every trace (JSON) to FILE")
    p:option("--plots", "draw scatter plots, execution signatures, speedups and fits into DIR (made when " ..
      "missing), each as PNG + JSON")
    p:flag("--plot-profiles", "with --plots: also draw the activity profiles of every trace")
    p:option("--zoom", "with --plots: draw zoom_TRACE.png, one activity's profile over the whole run with "
      .. "the interval T0:T1 (seconds of trace time) shaded, and that interval in detail"):argname("T0:T1")
    p:option("--zoom-activity", "the activity --zoom shows: exec, comp, comm, recv, send or io", "recv")
      :argname("ACT")
    p:option("--plot-log", "with --plots: log axes for parameters: auto (when values span three " ..
      "decades), on or off", "auto")
    p:flag("--gray", "with --plots: draw in gray levels (clusters stay apart by marker)")
  end,
  run = function(args)
    if args.list_formats then
      local list = medea.formats.list()
      if args.json then
        cli.print_json({ folder = medea.formats.folder(), formats = list })
      else
        io.stdout:write("format library: ", medea.formats.folder(), "\n")
        for _, f in ipairs(list) do
          io.stdout:write(string.format("%-12s %-9s %s  (%s)\n", f.name, f.approach,
            table.concat(f.params, ","), f.source))
        end
      end
      return 0
    end
    if #args.paths == 0 then cli.usage_error("medea: give at least one trace file or directory") end
    local approach, names = args.approach, nil
    if args.format then
      if args.params_set then cli.usage_error("--format is the old name of --params-set: give one") end
      cli.warning("--format is the old name of --params-set")
      args.params_set = args.format
    end
    if args.params_set and args.params then cli.usage_error("--params and --params-set exclude each other") end
    if args.params_set then
      local fmt, err = medea.formats.load(args.params_set)
      if not fmt then cli.usage_error("--params-set: " .. err) end
      if approach and approach ~= fmt.approach then
        cli.usage_error(string.format("--params-set %s is for the %s approach, not %s", args.params_set,
          fmt.approach, approach))
      end
      approach, names = fmt.approach, fmt.params
    end
    local model
    if args.model then
      -- a saved workload model fixes the approach and the parameters
      if args.params or args.params_set then cli.usage_error("--model fixes the parameters: no --params or --params-set") end
      local f, ferr = io.open(args.model, "rb")
      if not f then cli.input_error("--model: " .. ferr) end
      local text = f:read("a")
      f:close()
      local ok, doc = pcall(require("cjson").decode, text)
      if not ok then cli.input_error(args.model .. ": not JSON (" .. tostring(doc) .. ")") end
      local why
      model, why = medea.check_model(doc)
      if not model then cli.input_error(args.model .. ": " .. why) end
      if approach and approach ~= model.approach then
        cli.usage_error(string.format("--model is a %s-approach model, not %s", model.approach, approach))
      end
      approach, names = model.approach, model.params
    end
    approach = approach or "program"
    if not APPROACHES[approach] then
      cli.usage_error("--approach: '" .. approach .. "' is not program, processor or event")
    end
    if args.params then names = split_list(args.params) end
    names = names or medea.formats.load(approach == "event" and "events" or "times").params
    local known = {}
    for _, n in ipairs(medea.params[approach]) do known[n] = true end
    for _, n in ipairs(names) do
      if not known[n] then
        cli.usage_error(string.format("--params: '%s' is not a %s parameter (%s)", n, approach,
          table.concat(medea.params[approach], ",")))
      end
    end
    -- the MODEL of a fit specification (linear when empty); a usage error when unknown
    local function fit_model(opt, model)
      model = model ~= "" and model or "linear"
      for _, m in ipairs(medea.fit_module.models) do
        if m == model then return model end
      end
      cli.usage_error(opt .. ": unknown model '" .. model .. "' (" .. table.concat(medea.fit_module.models, ", ") .. ")")
    end
    local fit_specs = {}
    for _, spec in ipairs(args.fit or {}) do
      local y, x, model, degree = spec:match("^([%w_]+)~([%w_]+):?([%a]*):?(%d*)$")
      if not y then cli.usage_error("--fit: '" .. spec .. "' is not Y~X[:MODEL[:DEGREE]]") end
      for _, n in ipairs({ y, x }) do
        if not known[n] then
          cli.usage_error(string.format("--fit: '%s' is not a %s parameter", n, approach))
        end
      end
      model = fit_model("--fit", model)
      fit_specs[#fit_specs + 1] = { y = y, x = x, model = model,
                                    degree = math.tointeger(tonumber(degree)) }
    end
    local time_specs = {}
    for _, spec in ipairs(args.fit_time or {}) do
      local param, model, degree = spec:match("^([%w_]+):?([%a]*):?(%d*)$")
      if not param then cli.usage_error("--fit-time: '" .. spec .. "' is not PARAM[:MODEL[:DEGREE]]") end
      if not medea.slices.profile_of[param] then
        cli.usage_error(string.format("--fit-time: '%s' has no value per time slice (%s do)", param,
          table.concat(medea.slices.params, ", ")))
      end
      model = fit_model("--fit-time", model)
      time_specs[#time_specs + 1] = { param = param, model = model, degree = math.tointeger(tonumber(degree)) }
    end
    if args.bursts_trace and not args.bursts then cli.usage_error("--bursts-trace needs --bursts K") end
    if args.bursts ~= nil and (not args.bursts or args.bursts < 1) then
      cli.usage_error("--bursts: must be an integer >= 1")
    end
    if not args.slices or args.slices < 2 then cli.usage_error("--slices: must be an integer >= 2") end
    -- (each slice is a point of every run's fit: more than the records tell apart is work without end)
    if args.slices > 100000 then cli.usage_error("--slices: " .. args.slices .. " is more than 100,000") end
    if args.scale ~= "minmax" and args.scale ~= "zscore" and args.scale ~= "percentile" and args.scale ~= "none" then
      cli.usage_error("--scale: '" .. args.scale .. "' is not minmax, zscore, percentile or none")
    end
    if not args.kmax or args.kmax < 1 then cli.usage_error("--kmax: must be an integer >= 1") end
    if args.k ~= nil and args.k < 1 then cli.usage_error("--k: must be an integer >= 1") end
    if not args.seed then cli.usage_error("--seed: must be an integer") end
    if not args.restarts or args.restarts < 1 then cli.usage_error("--restarts: must be an integer >= 1") end
    -- k-means stops at 1000 seedings per K (cluster.MAX_TRIES): more would never end
    if args.restarts > 1000 then cli.usage_error("--restarts: " .. args.restarts .. " is more than 1,000") end
    if not args.patience or args.patience < 1 then cli.usage_error("--patience: must be an integer >= 1") end
    if args.patience > 1000 then -- (the seedings stop at 1,000 anyway)
      cli.usage_error("--patience: " .. args.patience .. " is more than 1,000")
    end
    if not args.tolerance or args.tolerance < 0 or args.tolerance >= 1 then
      cli.usage_error("--tolerance: must be a number from 0 to 1")
    end
    if (args.eps or args.min_pts) and not args.dbscan then cli.usage_error("--eps and --min-pts need --dbscan") end
    if args.eps and not (args.eps >= 0) then cli.usage_error("--eps: must be a number >= 0") end
    if args.min_pts ~= nil and (not args.min_pts or args.min_pts < 1) then
      cli.usage_error("--min-pts: must be an integer >= 1")
    end
    if not args.too_far or args.too_far <= 0 then cli.usage_error("--too-far: must be a positive number") end
    if args.plot_profiles and not args.plots then cli.usage_error("--plot-profiles needs --plots DIR") end
    local zoom0, zoom1
    if args.zoom then
      if not args.plots then cli.usage_error("--zoom needs --plots DIR") end
      zoom0, zoom1 = require("retrace.pgscale").parse_zoom(args.zoom)
      if not zoom0 then cli.usage_error("--zoom: " .. zoom1) end
    end
    if not require("retrace.displays.medea.profile").label(args.zoom_activity) then
      cli.usage_error("--zoom-activity: '" .. args.zoom_activity .. "' is not exec, comp, comm, recv, send or io")
    end
    local plot_log = ({ auto = "auto", on = true, off = false })[args.plot_log]
    if plot_log == nil then cli.usage_error("--plot-log: '" .. args.plot_log .. "' is not auto, on or off") end
    if args.gray then require("retrace.colors").set_mode("gray") end
    if args.save_format and par.speaks() then -- (one rank writes the format file)
      local path, err = medea.formats.save(args.save_format, names, approach)
      if not path then cli.input_error(err) end
      io.stderr:write("retrace: format '", args.save_format, "' saved in ", path, "\n")
    end

    local files = collect(args.paths)
    -- an output over a trace (or the model) read would destroy it
    local inputs = { args.model or false, table.unpack(files) }
    for _, out in ipairs { args.csv or false, args.profiles or false, args.save_model or false,
                           args.bursts_trace or false } do
      local ok, why = true, nil
      if out then ok, why = require("retrace.fs").not_an_input(out, inputs) end
      if not ok then cli.input_error(why) end
    end
    -- --profiles in one process: each trace's profiles go to the file as the trace is read,
    -- never held (under mpirun the ranks' parts are gathered and written at the end)
    local function open_profiles()
      if not args.profiles or par.size() > 1 then return nil end
      local o, oerr = require("retrace.fs").create(args.profiles)
      if not o then cli.input_error("--profiles: " .. oerr) end
      o:write("[")
      return o
    end
    local prof_out <close> = open_profiles()
    local prof_written = 0
    local comps, profiles, runs, plot_profiles, zooms, time_fits, burst_runs = {}, {}, {}, {}, {}, {}, {}
    local stats_only = {}
    local bar = cli.progress("medea", #files)
    -- what one trace gives (plain values: the traces of a directory are spread over the ranks
    -- of an MPI job, retrace.par.spread, and their parts gathered on rank 0 in trace order)
    local function one_trace(i)
      local path = files[i]
      local r = { notes = {}, comps = {}, time_fits = {} }
      -- shared (a trace all ranks read together) when it is the only one; else this rank's alone
      local acc, skipped, warnings = medea.accumulate(path, args.strict,
        args.profiles or args.plot_profiles or args.zoom or #time_specs > 0, args.bursts, #files == 1)
      if not acc then
        if skipped == false then error({ exit = cli.EXIT_INPUT }, 0) end -- (the failing rank says why)
        cli.input_error(skipped)
      end
      if skipped > 0 then
        r.notes[#r.notes + 1] = string.format("retrace: %s: %d malformed lines skipped\n", path, skipped)
      end
      if warnings > 0 and not args.json then
        r.notes[#r.notes + 1] = string.format("retrace: %s: %d replay warnings (retrace stats %s lists them)\n",
          path, warnings, path)
      end
      if acc:from_stats() then
        -- no event records: what PICL's statistics records say is all there is
        r.stats_only = true
        r.notes[#r.notes + 1] = string.format("retrace: %s: statistics records only (-101..-105): processor "
          .. "parameters read from them%s\n", path, approach == "event" and "; it has no user events" or "")
      end
      local name = medea.basename(path)
      for _, c in ipairs(medea.parameters(acc, approach, name)) do
        -- summed rows are sums over P processors: clustered with their own kind only
        if approach ~= "event" or (c.processor == "all") == (args.components == "summed") then
          c.trace = path
          r.comps[#r.comps + 1] = c
        end
      end
      if prof_out then
        medea.write_profiles(prof_out, path, acc, prof_written == 0)
        prof_written = prof_written + 1
      elseif args.profiles then
        r.profile = { trace = path, profiles = medea.profiles(acc) }
      end
      if args.plot_profiles then
        local pc = require("retrace.displays.medea.plots").profile_columns(acc)
        pc.trace = path
        r.plot_profile = pc
      end
      if zoom0 then
        local z, zerr = require("retrace.displays.medea.plots").zoom_columns(acc, args.zoom_activity, zoom0, zoom1)
        if not z then cli.input_error(path .. ": " .. zerr) end
        z.trace = path
        r.zoom = z
      end
      for _, ts in ipairs(time_specs) do
        local f, terr = medea.slices.fit_time(acc, ts.param, args.slices, ts.model, ts.degree)
        if not f then cli.input_error(path .. ": --fit-time " .. ts.param .. ": " .. terr) end
        f.trace = path
        f.fit.predict = nil -- a function: made again where the parts are gathered
        r.time_fits[#r.time_fits + 1] = f
      end
      if args.bursts then
        local br, berr = medea.bursts.cluster(acc, args.bursts, { seed = args.seed })
        if not br then cli.input_error(path .. ": --bursts: " .. berr) end
        br.trace = path
        r.burst = br
      end
      local prog = medea.parameters(acc, "program", name)[1]
      r.run = { p = prog.params.prnum, time = prog.params.extime, name = name }
      acc:close()
      bar:update(i)
      return r
    end
    -- one trace: every rank reads it (its reader spreads the work); several: one rank each
    local parts = #files == 1 and { one_trace(1) } or require("retrace.par").spread(#files, one_trace)
    if not parts then return 0 end -- another rank's share: rank 0 goes on with the results
    for i, r in ipairs(parts) do
      if par.speaks() then -- (every rank holds the part of a trace they read together)
        for _, line in ipairs(r.notes) do io.stderr:write(line) end
      end
      if r.stats_only then stats_only[#stats_only + 1] = files[i] end
      table.move(r.comps, 1, #r.comps, #comps + 1, comps)
      if r.profile then profiles[#profiles + 1] = r.profile end
      if r.plot_profile then plot_profiles[#plot_profiles + 1] = r.plot_profile end
      if r.zoom then zooms[#zooms + 1] = r.zoom end
      for _, f in ipairs(r.time_fits) do
        f.fit.predict = medea.fit_module.fit(f.t, f.values, f.fit.model, f.fit.degree).predict
        time_fits[#time_fits + 1] = f
      end
      if r.burst then burst_runs[#burst_runs + 1] = r.burst end
      runs[#runs + 1] = r.run
    end
    bar:finish()
    -- under mpirun the other ranks have given their parts to rank 0, which goes on alone
    if par.rank() ~= 0 then return 0 end
    if args.bursts_trace then
      if #files ~= 1 then cli.usage_error("--bursts-trace: give exactly one trace") end
      local n, werr = require("retrace.pgscale").chrome_json(files[1], args.bursts_trace,
        { markers = medea.bursts.markers(burst_runs[1]) })
      if not n then cli.input_error("--bursts-trace: " .. werr) end
    end
    if #comps == 0 then
      cli.input_error("no workload components in the traces given" .. (#stats_only > 0
        and " (statistics records only: no user events for the event approach)" or ""))
    end
    if args.k and args.k > #comps then
      cli.usage_error(string.format("--k %d: only %d components", args.k, #comps))
    end

    if model then
      local placed, perr = medea.place(model, comps, args.too_far)
      if not placed then cli.input_error(perr) end
      if args.json then
        cli.print_json({ model = args.model, too_far = args.too_far, placed = placed })
      else
        io.stdout:write(string.format("%d components placed into the %d clusters of %s (too far: more than "
          .. "%g x the cluster's radius)\n", #placed, model.k, args.model, args.too_far))
        io.stdout:write(string.format("  %-24s %7s %10s %10s  %s\n", "component", "cluster", "distance",
          "radius", "distance to each centroid"))
        for _, p in ipairs(placed) do
          local ds = {}
          for h, dd in ipairs(p.distances) do ds[h] = string.format("%.4g", dd) end
          io.stdout:write(string.format("  %-24s %7d %10.4g %10.4g  %s%s\n", p.name, p.cluster, p.distance,
            p.radius, table.concat(ds, " "), p.too_far and "  TOO FAR" or ""))
        end
      end
      return 0
    end
    local res, err = medea.characterize(comps, names, {
      log = args.log, scale = args.scale, kmax = args.kmax, k = args.k, seed = args.seed,
      restarts = args.restarts, patience = args.patience, tolerance = args.tolerance,
      dbscan = args.dbscan and { eps = args.eps, min_pts = args.min_pts } or nil })
    if not res then cli.input_error(err) end

    -- parallel metrics per program (first dot-separated field of the trace name)
    -- run at two or more processor counts
    local scaling
    local byapp, apps = {}, {}
    for _, r in ipairs(runs) do
      local app = medea.functional.fields(r.name)[1] or r.name
      if not byapp[app] then byapp[app] = {}; apps[#apps + 1] = app end
      table.insert(byapp[app], r)
    end
    for _, app in ipairs(apps) do
      local ps = {}
      for _, r in ipairs(byapp[app]) do ps[r.p] = true end
      if next(ps, next(ps)) then
        scaling = scaling or {}
        local s = medea.metrics.scaling(byapp[app])
        s.program = app
        scaling[#scaling + 1] = s
      end
    end

    local fits = {}
    for _, fs in ipairs(fit_specs) do
      local xs, ys = {}, {}
      for i, c in ipairs(comps) do xs[i], ys[i] = c.params[fs.x], c.params[fs.y] end
      local f, ferr = medea.fit(xs, ys, fs.model, fs.degree)
      if not f then cli.input_error("--fit " .. fs.y .. "~" .. fs.x .. ": " .. ferr) end
      fits[#fits + 1] = { y = fs.y, x = fs.x, xs = xs, ys = ys, fit = f }
    end

    if args.csv then write_csv(args.csv, comps, medea.params[approach], res.assign) end
    if args.save_model then
      local ok, werr = require("retrace.fs").write_file(args.save_model,
        require("retrace.json").encode(medea.model(res, approach)) .. "\n")
      if not ok then cli.input_error("--save-model: " .. werr) end
    end
    if prof_out then
      prof_out:write("]\n")
      local ok, werr = prof_out:commit()
      if not ok then cli.input_error("--profiles: " .. werr) end
    elseif args.profiles then
      local ok, werr = require("retrace.fs").write_file(args.profiles,
        require("retrace.json").encode(profiles) .. "\n")
      if not ok then cli.input_error("--profiles: " .. werr) end
    end
    local diag = medea.diagnose(res)
    if args.plots then
      local plots = require "retrace.displays.medea.plots"
      if #comps < 2 then
        io.stderr:write("retrace: --plots: one component only: no scatter plot (nothing to compare it with)\n")
      end
      local ok, perr = plots.write_all(args.plots, comps, res, plot_profiles, scaling, fits,
        { log = plot_log, zooms = zooms, time_fits = time_fits })
      if ok and #comps >= 2 then ok, perr = plots.write_diagnostics(args.plots, comps, res, diag) end
      if not ok then cli.input_error("--plots: " .. perr) end
    end

    if args.json then
      local cjson = require "cjson"
      local out = { components = {}, clusters = {} }
      for i, c in ipairs(comps) do
        out.components[i] = { name = c.name, trace = c.trace, processor = c.processor, event = c.event,
                              params = c.params, cluster = res.assign[i] }
      end
      local tbl = {}
      for h, row in ipairs(res.table) do
        tbl[h] = { share = row.share, count = row.count, mean = row.mean, std = row.std }
      end
      local breakdown = {}
      for i, b in ipairs(res.breakdown) do breakdown[i] = b end
      out.clusters = {
        k = res.k, best_k = res.best_k or cjson.null, kmax = res.kmax, params = names,
        approach = approach, scale = args.scale, log = args.log or false, seed = args.seed,
        components = approach == "event" and args.components or cjson.null,
        rule = res.rule, notes = cli.array(res.notes),
        constant = cli.array(res.constant),
        w = dense(res.w, math.min(res.kmax + 1, #comps), cjson.null),
        h = dense(res.h, res.kmax, cjson.null),
        calinski_harabasz = dense(res.ch, res.kmax, cjson.null),
        silhouette = dense(res.silhouette, res.kmax, cjson.null),
        members = res.members, table = tbl, breakdown = breakdown,
        tolerance = res.tolerance, patience = args.patience, tries = dense(res.tries, res.kmax, cjson.null),
        drivers = cli.array(res.drivers),
      }
      if res.dbscan then
        out.clusters.dbscan = { assign = res.dbscan.assign, clusters = res.dbscan.clusters,
                                noise = res.dbscan.noise, eps = res.dbscan.eps, min_pts = res.dbscan.min_pts,
                                how = res.dbscan.how,
                                agreement = require("retrace.medea.diagnostics").rand_index(res.dbscan.assign,
                                  res.assign) }
      end
      if scaling then out.metrics = scaling end
      out.statistics_only = cli.array(stats_only)
      local d = { pca = { values = diag.pca.values, explained = diag.pca.explained, vectors = diag.pca.vectors,
                          scores = diag.pca.scores },
                  silhouettes = diag.silhouettes, note = diag.note }
      if diag.ward then
        d.ward = { merges = diag.ward.merges, order = diag.ward.order, assign = diag.ward.assign,
                   agreement = diag.ward.agreement }
      end
      out.diagnostics = d
      if #fits > 0 then
        out.fits = {}
        for i, fr in ipairs(fits) do
          out.fits[i] = { y = fr.y, x = fr.x, model = fr.fit.model, coef = fr.fit.coef, r2 = fr.fit.r2,
                          formula = medea.fit_module.formula(fr.fit) }
        end
      end
      if #burst_runs > 0 then
        out.bursts = {}
        for i, br in ipairs(burst_runs) do
          out.bursts[i] = { trace = br.trace, k = br.k, n = br.n, clusters = br.clusters, proc = br.proc,
                            t0 = br.t0, t1 = br.t1, nuser = br.nuser, cluster = br.assign }
        end
      end
      if #time_fits > 0 then
        out.time_fits = {}
        for i, tf in ipairs(time_fits) do
          out.time_fits[i] = { trace = tf.trace, param = tf.param, model = tf.fit.model, coef = tf.fit.coef,
                               r2 = tf.fit.r2, formula = tf.formula, slices = #tf.t, start = tf.start,
                               width = tf.width, t = tf.t, values = tf.values, total = tf.total }
        end
      end
      cli.print_json(out)
    else
      res.patience = args.patience
      print_text(comps, res, names, scaling, diag, approach == "event" and (args.components == "summed"
        and " (event approach: summed over the processors, one per event and trace)"
        or " (event approach: one per processor and event; the summed ones: --components summed)") or "",
        medea.params[approach])
      for _, fr in ipairs(fits) do
        io.stdout:write(string.format("fit %s against %s (%s): %s, R^2 = %.6f\n", fr.y, fr.x, fr.fit.model,
          medea.fit_module.formula(fr.fit), fr.fit.r2))
      end
      for _, br in ipairs(burst_runs) do
        io.stdout:write(string.format("computation bursts of %s: %d, in %d clusters (k-means on ln duration and "
          .. "user events; shortest first)\n", br.trace, br.n, br.k))
        io.stdout:write("  cluster  bursts  mean duration (s)  total (s)  mean user events\n")
        for h, c in ipairs(br.clusters) do
          io.stdout:write(string.format("  %7d %7d %18.6g %10.6g %17.3g\n", h, c.count, c.mean_duration, c.total,
            c.mean_nuser))
        end
      end
      for _, tf in ipairs(time_fits) do
        io.stdout:write(string.format("fit of %s against time in %s (%d slices of %.6g s; x = time since the "
          .. "run's start in s, y = %s in the slice, mean over %d processors, in s): %s, R^2 = %.6f\n", tf.param,
          tf.trace, #tf.t, tf.width, tf.param, tf.nprocs, tf.formula, tf.fit.r2))
        local vals = {}
        for j, v in ipairs(tf.values) do vals[j] = string.format("%.6g", v) end
        io.stdout:write("  per slice: ", table.concat(vals, " "), string.format("  (total %.6g)\n", tf.total))
      end
    end
    return 0
  end,
}
