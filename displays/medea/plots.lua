--- displays/medea/plots: the pictures of `retrace medea --plots DIR`, each PNG
-- written with a JSON file of what it shows and where (the display's data()):
--   scatter_matrix.png     every pair of parameters in one picture, by cluster
--   scatter_X_Y.png        components on parameters X and Y, by cluster (every pair
--                          of the chosen parameters, at most 10 pairs; none for a
--                          single component)
--   profiles_TRACE.png     activity profiles of each trace (--plot-profiles)
--   zoom_TRACE.png         one activity's profile over the run with an interval
--                          shaded, and that interval in detail (--zoom T0:T1)
--   signature_PROGRAM.png  execution time against processors with T(p) = a + b/p
--   speedup_PROGRAM.png    speedup (and the ideal S = p), efficiency, efficacy
--   fit_Y_X_MODEL.png      each --fit (a second fit of the same pair and model gets _2)
--   k_indices.png, pca.png, silhouette.png, dendrogram.png: the diagnostics
--                          (write_diagnostics; two components or more)
-- DIR and its parents are made when missing.
--
--   plots.write_all(dir, comps, res, profiles, scaling, fits [, opts]) -> true | nil, message
--     profiles: {{trace =, nprocs =, columns = {exec = reduced columns, ...}}, ...}
--     opts: log ("auto" default, true, false: log axes for parameters), width, height,
--     zooms ({plots.zoom_columns(...), ...}), time_fits ({slices.fit_time result + trace, ...}:
--     timefit_PARAM_MODEL_TRACE.png, the slice values against time with the fitted curve)
--   plots.zoom_columns(acc, activity, t0, t1 [, width]) -> the whole-run and the detailed
--     columns of one activity (nil, message when [t0, t1] misses the run)
--   plots.profile_columns(acc [, width]) -> the reduced profiles of an accumulator
--   plots.safe(name) -> a file-name-safe version of name
local display = require "retrace.display"
local fs = require "retrace.fs"

local M = {}

local function safe(name)
  return (tostring(name):gsub("[^%w%._%-]", "_"))
end
M.safe = safe

M.profile_width = 900

--- The six activity profiles of an accumulator, reduced to the pixel columns of a
-- profile picture (in C: no per-change-point Lua value). Returns {nprocs =, tmin =,
-- tmax =, columns = {exec = cols, ...}}.
function M.profile_columns(acc, width)
  local profile = require "retrace.displays.medea.profile"
  local w = profile.columns_for(width or M.profile_width)
  local t0, t1 = acc:profile_span("exec")
  t0 = t0 or 0
  if not t1 or not (t1 > t0) then t1 = t0 + 1 end
  local out = { tmin = t0, tmax = t1, columns = {} }
  local nprocs = 0
  for _, pn in ipairs(profile.names) do
    local cols = acc:profile_columns(pn[1], w, t0, t1)
    out.columns[pn[1]] = cols
    if pn[1] == "exec" then
      for i = 1, cols.w do nprocs = math.max(nprocs, cols.max[i]) end
    end
  end
  out.nprocs = math.tointeger(nprocs) or nprocs
  return out
end

M.zoom_width, M.zoom_height = 900, 620

function M.zoom_columns(acc, activity, t0, t1, width)
  local profile = require "retrace.displays.medea.profile"
  local w = profile.columns_for(width or M.zoom_width)
  local a, b = acc:profile_span("exec")
  a = a or 0
  if not b or not (b > a) then b = a + 1 end
  if t1 <= a or t0 >= b then
    return nil, string.format("--zoom %.9g:%.9g lies outside the run (%.9g s to %.9g s)", t0, t1, a, b)
  end
  local whole = acc:profile_columns(activity, w, a, b)
  local nprocs = 0
  local exec = acc:profile_columns("exec", w, a, b)
  for i = 1, exec.w do nprocs = math.max(nprocs, exec.max[i]) end
  return { activity = activity, t0 = t0, t1 = t1, tmin = a, tmax = b, nprocs = math.tointeger(nprocs) or nprocs,
           whole = whole, detail = acc:profile_columns(activity, w, t0, t1) }
end

-- Render display d to DIR/BASE.png and its data to DIR/BASE.json.
local function picture(dir, base, w, h, d)
  local data, err = display.render(d, dir .. "/" .. base .. ".png", w, h)
  if not data then return nil, err end
  return fs.write_file(dir .. "/" .. base .. ".json", require("retrace.json").encode(data) .. "\n")
end

function M.write_all(dir, comps, res, profiles, scaling, fits, opts)
  opts = opts or {}
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, err end
  local W, H = opts.width or 800, opts.height or 600
  local scatter = require "retrace.displays.medea.scatter"
  local names = res.params
  local npairs = 0
  local function scatter_of(xname, yname, xs, ys, labels)
    local title = string.format("%s against %s", yname, xname)
    if #comps > 1 then
      title = title .. string.format(" (%d components, %d cluster%s)", #comps, res.k, res.k == 1 and "" or "s")
    end
    return scatter.new(nil, { xs = xs, ys = ys, clusters = res.assign, names = labels, xlabel = xname,
                              ylabel = yname, title = title, log = opts.log })
  end
  -- one component: no scatter at all (the command says so on stderr)
  for i = 1, #comps > 1 and #names or 0 do
    for j = i + 1, #names do
      if npairs < 10 then
        npairs = npairs + 1
        local xs, ys, labels = {}, {}, {}
        for c, comp in ipairs(comps) do
          xs[c], ys[c], labels[c] = comp.params[names[i]], comp.params[names[j]], comp.name
        end
        ok, err = picture(dir, "scatter_" .. names[i] .. "_" .. names[j], W, H,
          scatter_of(names[i], names[j], xs, ys, labels))
        if not ok then return nil, err end
      end
    end
  end
  -- every pair in one picture (the pairwise files above keep the first ten at full size)
  if #names >= 2 and #comps > 1 then
    local values, labels = {}, {}
    for _, name in ipairs(names) do values[name] = {} end
    for c, comp in ipairs(comps) do
      labels[c] = comp.name
      for _, name in ipairs(names) do values[name][c] = comp.params[name] end
    end
    local side = math.max(W, math.min(2000, 260 * (#names - 1)))
    ok, err = picture(dir, "scatter_matrix", side, side,
      require("retrace.displays.medea.scatter_matrix").new(nil, { params = names, values = values,
        clusters = res.assign, names = labels, log = opts.log,
        title = string.format("every pair of parameters (%d components, %d cluster%s)", #comps, res.k,
          res.k == 1 and "" or "s") }))
    if not ok then return nil, err end
  end
  if #names == 1 and #comps > 1 then
    local xs, ys, labels = {}, {}, {}
    for c, comp in ipairs(comps) do xs[c], ys[c], labels[c] = c, comp.params[names[1]], comp.name end
    local d = scatter_of("component", names[1], xs, ys, labels)
    d.o.log = false
    ok, err = picture(dir, "scatter_" .. names[1], W, H, d)
    if not ok then return nil, err end
  end
  local profile = require "retrace.displays.medea.profile"
  for _, p in ipairs(profiles or {}) do
    local name = require("retrace.medea").basename(p.trace)
    local o = { trace = name, profiles = p.columns, nprocs = p.nprocs, tmin = p.tmin, tmax = p.tmax }
    local n = profile.panels(o)
    ok, err = picture(dir, "profiles_" .. safe(name), M.profile_width, 60 + n * 170,
      profile.new(nil, o))
    if not ok then return nil, err end
  end
  for _, z in ipairs(opts.zooms or {}) do
    local name = require("retrace.medea").basename(z.trace)
    ok, err = picture(dir, "zoom_" .. safe(name), M.zoom_width, M.zoom_height, profile.zoom(nil, {
      trace = name, activity = z.activity, nprocs = z.nprocs, tmin = z.tmin, tmax = z.tmax, t0 = z.t0, t1 = z.t1,
      whole = z.whole, detail = z.detail }))
    if not ok then return nil, err end
  end
  local fitdisp = require "retrace.displays.medea.fit"
  local fitmod = require "retrace.medea.fit"
  local speedup = require "retrace.displays.medea.speedup"
  for _, s in ipairs(scaling or {}) do
    local xs, ys = {}, {}
    for i, r in ipairs(s.rows) do xs[i], ys[i] = r.p, r.time end
    local f = fitmod.fit(xs, ys, "inverse")
    if f then
      local d = fitdisp.new(nil, { xs = xs, ys = ys, fit = f, xlabel = "processors", ylabel = "extime",
        title = s.program .. ": execution signature T(p) = a + b / p", log = false })
      local data_of = d.data
      function d.data(self)
        local out = data_of(self)
        out.rows = s.rows
        return out
      end
      ok, err = picture(dir, "signature_" .. safe(s.program), W, H, d)
      if not ok then return nil, err end
    end
    ok, err = picture(dir, "speedup_" .. safe(s.program), 1000, 500,
      speedup.new(nil, { rows = s.rows, title = s.program .. ": parallel metrics", base_p = s.base_p }))
    if not ok then return nil, err end
  end
  for _, tf in ipairs(opts.time_fits or {}) do
    local name = require("retrace.medea").basename(tf.trace)
    local base = "timefit_" .. tf.param .. "_" .. tf.fit.model
    if tf.fit.model == "polynomial" then base = base .. (#tf.fit.coef - 1) end
    local d = fitdisp.new(nil, { xs = tf.t, ys = tf.values, fit = tf.fit, xlabel = "time", ylabel = tf.param,
      log = false, points_label = string.format("%d slices", #tf.t),
      title = string.format("%s of %s per slice of %s s, against the time since its start (%s fit)", tf.param,
        name, require("retrace.plot").format_number(tf.width, 4), tf.fit.model) })
    ok, err = picture(dir, base .. "_" .. safe(name), W, H, d)
    if not ok then return nil, err end
  end
  local used = {}
  for _, fr in ipairs(fits or {}) do
    local base = "fit_" .. fr.y .. "_" .. fr.x .. "_" .. fr.fit.model
    if fr.fit.model == "polynomial" then base = base .. (#fr.fit.coef - 1) end
    if used[base] then
      used[base] = used[base] + 1
      base = base .. "_" .. used[base]
    else
      used[base] = 1
    end
    ok, err = picture(dir, base, W, H, fitdisp.new(nil, { xs = fr.xs, ys = fr.ys, fit = fr.fit, xlabel = fr.x,
      ylabel = fr.y, title = fr.y .. " against " .. fr.x .. " (" .. fr.fit.model .. " fit)", log = opts.log }))
    if not ok then return nil, err end
  end
  return true
end

--- The diagnostic pictures (displays/medea/diagnostics) of a clustering: k_indices.png
-- (W_K, H(K), Calinski-Harabasz, silhouette against K), pca.png, silhouette.png and
-- dendrogram.png (when diag.ward is there), each with its JSON.
function M.write_diagnostics(dir, comps, res, diag, opts)
  opts = opts or {}
  local dg = require "retrace.displays.medea.diagnostics"
  local names = {}
  for i, c in ipairs(comps) do names[i] = c.name end
  local ok, err = picture(dir, "k_indices", 1000, 700, dg.kplot(res))
  if not ok then return nil, err end
  ok, err = picture(dir, "pca", opts.width or 900, opts.height or 600, dg.pca(res, diag.pca, names))
  if not ok then return nil, err end
  ok, err = picture(dir, "silhouette", 1000, 500, dg.silhouette(res, diag.silhouettes, names))
  if not ok then return nil, err end
  if diag.ward then
    ok, err = picture(dir, "dendrogram", 1100, 600, dg.dendrogram(diag.ward, res, res.k, names))
    if not ok then return nil, err end
  end
  return true
end

return M
