--- retrace.chitra.chain: semi-Markov chains built by a session (ses:chain()),
-- their JSON and Graphviz DOT forms, simulation, judging a model against its input,
-- and merging chains measured at several parameter values with least-squares fits.
--
--   chain.states      {{name=, n=, mean=, var=, total=}, ...} in order of first appearance
--   chain.arcs        {{from=, to=, count=, p=}, ...} grouped by from state
--   chain.composites  {{name=, nodes={{state=, parent=, n=, ends=, mean=, var=}}}}:
--                     each composite as an acyclic chain (prefix tree) over original states
local core = require("retrace.core").seq

local M = {}
local Chain = {}
-- by_name (state name -> index) is built on first use: a chain of a million
-- distinct symbols is often only printed, and the index cost most of a second
Chain.__index = function(self, key)
  if key ~= "by_name" then return Chain[key] end
  local by = {}
  for i, s in ipairs(rawget(self, "states")) do by[s.name] = i end
  rawset(self, "by_name", by)
  return by
end
Chain.__tostring = function(self)
  return string.format("retrace.chitra chain (%d states, %d arcs)", #self.states, #self.arcs)
end

local function index(self)
  self.by_name = nil -- rebuilt on first use (see Chain.__index)
  return self
end

--- Wrap the table returned by the core (retrace.core.seq session :chain()).
function M.from_raw(raw)
  return index(setmetatable(raw, Chain))
end

--- A chain from its JSON form ({states={S={n,mean,var}}, transitions={S={T=p}}}, or a
-- whole `retrace chitra --json` document). States come in sorted name order, except
-- that `initial` (when given) comes first.
function M.from_table(doc)
  local t = doc.chain or doc
  if type(t.states) ~= "table" or type(t.transitions) ~= "table" then
    return nil, "not a chain: expected 'states' and 'transitions'"
  end
  local names = {}
  for name in pairs(t.states) do names[#names + 1] = name end
  table.sort(names, function(a, b)
    if a == t.initial then return true elseif b == t.initial then return false end
    return a < b
  end)
  local c = { states = {}, arcs = {}, composites = {}, other = t.other or "OTHER" }
  for i, name in ipairs(names) do
    local s = t.states[name]
    c.states[i] = { name = name, n = s.n or 0, mean = s.mean or 0, var = s.var or 0,
                    total = (s.n or 0) * (s.mean or 0) }
  end
  for _, from in ipairs(names) do
    local out = t.transitions[from] or {}
    local tos = {}
    for to in pairs(out) do tos[#tos + 1] = to end
    table.sort(tos)
    for _, to in ipairs(tos) do
      if not t.states[to] then return nil, "transition to unknown state '" .. to .. "'" end
      c.arcs[#c.arcs + 1] = { from = from, to = to, p = out[to], count = 0 }
    end
  end
  return index(setmetatable(c, Chain))
end

--- Read a chain from a JSON file.
function M.read(path)
  local f, err = io.open(path)
  if not f then return nil, err end
  local text = f:read("a")
  f:close()
  local ok, doc = pcall(require("cjson").decode, text)
  if not ok then return nil, path .. ": not JSON: " .. tostring(doc) end
  local c, why = M.from_table(doc)
  if not c then return nil, path .. ": " .. why end
  return c
end

--- The JSON shape: {states={S={n=,mean=,var=,share=}}, transitions={S={T=p}}, initial=, other=}.
function Chain:to_table()
  local total = 0
  for _, s in ipairs(self.states) do total = total + s.total end
  local states, trans = {}, {}
  for _, s in ipairs(self.states) do
    states[s.name] = { n = s.n, mean = s.mean, var = s.var,
                       share = total > 0 and s.total / total or 0 }
    trans[s.name] = {}
  end
  for _, a in ipairs(self.arcs) do trans[a.from][a.to] = a.p end
  local order = {}
  for i, s in ipairs(self.states) do order[i] = s.name end
  return { states = states, transitions = trans, order = order,
           initial = self.states[1] and self.states[1].name, other = self.other }
end

--- Composite definitions: {name = {{original states...}, ...}} (one list per distinct run).
function Chain:definitions()
  local out = {}
  for _, c in ipairs(self.composites or {}) do
    local defs = {}
    for i, nd in ipairs(c.nodes) do
      if nd.ends > 0 then
        -- walk up to the root, then reverse: linear in the run's length (inserting
        -- at the front made a 10^5-symbol composite take minutes)
        local up, j = {}, i
        while j > 0 do
          up[#up + 1] = c.nodes[j].state
          j = c.nodes[j].parent
        end
        local path, m = {}, #up
        for q = 1, m do path[q] = up[m + 1 - q] end
        defs[#defs + 1] = path
      end
    end
    out[c.name] = defs
  end
  return out
end

--- Outgoing arcs of a state name.
function Chain:out(name)
  local r = {}
  for _, a in ipairs(self.arcs) do if a.from == name then r[#r + 1] = a end end
  return r
end

-- v printed with `digits` decimals, trailing zeros (and a bare point) dropped
local function fixed(v, digits)
  local s = string.format("%." .. digits .. "f", v)
  if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
  return s
end

--- A probability as a percentage: one decimal from 0.5% up ("12.5%", "100%"); below
-- 0.5%, two significant digits ("0.3%", "0.04%", "0.0012%"). A probability that is
-- neither 0 nor 1 never prints as "0%" or "100%" (more decimals until it does not).
local function pct(p)
  local v = 100 * p
  if v == 0 or v ~= v then return fixed(v, 0) .. "%" end
  local digits = 1
  if v < 0.5 then digits = math.max(1, 1 - math.floor(math.log(v, 10))) end
  local s = fixed(v, digits)
  while p < 1 and s == "100" and digits < 12 do
    digits = digits + 1
    s = fixed(v, digits)
  end
  return s .. "%"
end
M.percent = pct

-- Names compared with their digit runs as numbers: T2 < T10, then as text.
local function natural_key(s)
  return (s:gsub("%d+", function(d) return string.rep("0", 20 - #d) .. d end))
end

--- Sort a list of names in natural order (T1, T2, ..., T10), in place; returns it.
function M.natural_sort(list)
  local keys = {}
  for _, n in ipairs(list) do keys[n] = natural_key(n) end
  table.sort(list, function(a, b)
    if keys[a] ~= keys[b] then return keys[a] < keys[b] end
    return a < b
  end)
  return list
end

--- The names of the composites present, in natural order (T1, T2, ..., T10).
function Chain:composite_names()
  local names = {}
  for n in pairs(self:definitions()) do names[#names + 1] = n end
  return M.natural_sort(names)
end

local function num(v)
  if v == math.floor(v) and math.abs(v) < 1e15 then return string.format("%d", v) end
  return string.format("%.4g", v)
end
M.number = num

local function dot_id(s) return '"' .. s:gsub('[\\"]', "\\%0") .. '"' end

--- Graphviz DOT: states labelled with mean / variance, arcs with probabilities
-- (unlabelled when 100%); each composite as a cluster holding its acyclic chain.
function Chain:dot(name)
  local L = { "digraph " .. dot_id(name or "chitra") .. " {", "  rankdir=LR;",
              "  node [shape=box, style=rounded, fontname=\"Helvetica\"];",
              "  edge [fontname=\"Helvetica\"];" }
  for _, s in ipairs(self.states) do
    L[#L + 1] = string.format("  %s [label=\"%s\\nmean %s\\nvar %s\"];", dot_id(s.name),
      s.name:gsub('[\\"]', "\\%0"), num(s.mean), num(s.var))
  end
  for _, a in ipairs(self.arcs) do
    if a.p >= 1 then
      L[#L + 1] = string.format("  %s -> %s;", dot_id(a.from), dot_id(a.to))
    else
      L[#L + 1] = string.format("  %s -> %s [label=\"%s\"];", dot_id(a.from), dot_id(a.to), pct(a.p))
    end
  end
  for ci, c in ipairs(self.composites or {}) do
    L[#L + 1] = string.format("  subgraph cluster_%d {", ci)
    L[#L + 1] = string.format("    label=%s; style=dashed;", dot_id(c.name .. " ="))
    for i, nd in ipairs(c.nodes) do
      L[#L + 1] = string.format("    c%d_%d [label=\"%s\\nmean %s\\nvar %s\"];", ci, i,
        nd.state:gsub('[\\"]', "\\%0"), num(nd.mean), num(nd.var))
    end
    for i, nd in ipairs(c.nodes) do
      if nd.parent > 0 then
        local p = nd.n / c.nodes[nd.parent].n
        L[#L + 1] = string.format("    c%d_%d -> c%d_%d%s;", ci, nd.parent, ci, i,
          p >= 1 and "" or " [label=\"" .. pct(p) .. "\"]")
      end
    end
    L[#L + 1] = "  }"
  end
  L[#L + 1] = "}"
  return table.concat(L, "\n") .. "\n"
end

--- Draw a trajectory of n states (seeded): gamma occupancy times with each state's
-- mean and variance; a state with no arc out (OTHER) restarts at the first state.
-- Returns {symbols = {...}, times = {...}}.
--- The chain as the arrays the core simulates: {mean, var, from, to, p (per arc),
-- init = 1, names, other = the end marker's index or nil}.
function Chain:spec()
  local spec = { mean = {}, var = {}, from = {}, to = {}, p = {}, init = 1, names = {} }
  for i, s in ipairs(self.states) do
    spec.mean[i], spec.var[i], spec.names[i] = s.mean, s.var, s.name
    if s.name == self.other then spec.other = i end
  end
  for i, a in ipairs(self.arcs) do
    spec.from[i], spec.to[i], spec.p[i] = self.by_name[a.from], self.by_name[a.to], a.p
  end
  return spec
end

--- Simulate n states in C without keeping them (memory bounded by the chain):
-- opts as core.seq.stream's (ks, sample, bands, session, pes, header). Returns its
-- table: per-state visits, sum, sumsq; per-arc counts; samples; with a session the
-- n-gram and spectrum distances to it.
function Chain:stream(n, seed, opts)
  return core.stream(self:spec(), n, seed or 1, opts or {})
end

function Chain:simulate(n, seed)
  local xs, ts = core.simulate(self:spec(), n, seed or 1)
  if not xs then return nil, ts end
  local syms = {}
  for i, x in ipairs(xs) do syms[i] = self.states[x].name end
  return { symbols = syms, times = ts }
end

--- Judge the model: simulate n states and compare the trajectory's statistics with
-- the chain's. Returns {states = {S = {mean=, sim_mean=, var=, sim_var=, share=, sim_share=}},
-- max_p_diff =, share_distance = (half the L1 distance of time shares)}.
function Chain:judge(n, seed)
  -- streamed: per-state sums and per-arc counts only, whatever n is
  local r, err = self:stream(n, seed)
  if not r then return nil, err end
  local tot, simtot = 0, 0
  for i, s in ipairs(self.states) do tot = tot + s.total; simtot = simtot + r.sum[i] end
  local out, dist, maxp = {}, 0, 0
  local out_of = {} -- transitions taken out of each state in the simulation
  for a, x in ipairs(self.arcs) do out_of[x.from] = (out_of[x.from] or 0) + r.arcs[a] end
  for i, s in ipairs(self.states) do
    local k = r.visits[i]
    local mean = k > 0 and r.sum[i] / k or 0
    local var = k > 1 and math.max(0, (r.sumsq[i] - k * mean * mean) / (k - 1)) or 0
    local a, b = tot > 0 and s.total / tot or 0, simtot > 0 and r.sum[i] / simtot or 0
    out[s.name] = { n = s.n, mean = s.mean, var = s.var, share = a, sim_n = k, sim_mean = mean,
                    sim_var = var, sim_share = b }
    dist = dist + math.abs(a - b)
  end
  for a, x in ipairs(self.arcs) do
    local m = out_of[x.from]
    if m > 0 then maxp = math.max(maxp, math.abs(x.p - r.arcs[a] / m)) end
  end
  return { steps = n, seed = seed or 1, states = out, share_distance = dist / 2, max_p_diff = maxp }
end

-- ---- merging chains measured at several parameter values ----

-- The models a merge fits (retrace.medea.fit does the fitting): y = a + b x,
-- y = a + b ln x, y = a x^b; f evaluates a fitted model.
local models = {
  linear = { f = function(a, b, x) return a + b * x end },
  log = { f = function(a, b, x) return a + b * math.log(x) end },
  power = { f = function(a, b, x) return a * x ^ b end },
}
M.models = models

--- Least-squares fits of y against x: {linear = {a=, b=, r2=, sse=}, log = ..., power = ...,
-- best = "name"} (a model is left out when its transform does not apply to the data).
function M.fit(xs, ys)
  local medea_fit = require("retrace.medea.fit").fit
  local out, best, bestr = {}, nil, -math.huge
  for _, name in ipairs({ "linear", "log", "power" }) do
    local r = medea_fit(xs, ys, name)
    if r then
      local sse = 0
      for i = 1, #xs do sse = sse + (ys[i] - r.predict(xs[i])) ^ 2 end
      out[name] = { a = r.coef[1], b = r.coef[2], r2 = r.r2, sse = sse }
      if r.r2 > bestr + 1e-12 then best, bestr = name, r.r2 end
    end
  end
  out.best = best
  return out
end

--- Predict with a fit table from M.fit (its best model unless one is named).
function M.predict(fit, x, model)
  model = model or fit.best
  local f = fit[model]
  if not f then return nil end
  return models[model].f(f.a, f.b, x)
end

--- The 95% confidence interval of a state's fitted mean occupancy at x (least
-- squares through GSL, core/util/rt_linalg.c, on the model's straight line: x, y for
-- linear; ln x, y for log; ln x, ln y for power, the ends taken back by exp).
-- Returns lo, hi, or nothing with fewer than 3 points or a transform that fails.
function M.interval(merge, e, x, model)
  local linalg = require("retrace.core").linalg
  local fx = (model == "log" or model == "power") and math.log or function(v) return v end
  local fy = model == "power" and math.log or function(v) return v end
  local xs, ys = {}, {}
  for i = 1, #merge.params do
    if e.mean[i] then
      local a, b = fx(merge.params[i]), fy(e.mean[i])
      if a ~= a or b ~= b or math.abs(a) == math.huge or math.abs(b) == math.huge then return end
      xs[#xs + 1], ys[#ys + 1] = a, b
    end
  end
  if #xs < 3 then return end
  local f = linalg.fit_linear(xs, ys)
  local px = fx(x)
  if not f or px ~= px or math.abs(px) == math.huge then return end
  local y, se = linalg.fit_at(f, px)
  local half = linalg.t_quantile(0.975, #xs - 2) * se
  if model == "power" then return math.exp(y - half), math.exp(y + half) end
  return y - half, y + half
end

--- Predictions of every state's mean occupancy at x from a merge (M.merge), each
-- with what it rests on: {param=, min_r2=, mean = {S = value}, fits = {S = {model=,
-- r2=, points=, reliable=, why=, lo=, hi= (95% interval, from 3 points up)}}}. A prediction is unreliable when its best fit has
-- r^2 below min_r2 or rests on fewer than 3 parameter values (two points fit any
-- two-parameter law exactly).
function M.prediction(merge, x, min_r2)
  local out = { param = x, min_r2 = min_r2, mean = {}, fits = {} }
  for name, e in pairs(merge.states) do
    if e.fit and e.fit.best then
      local f = e.fit[e.fit.best]
      local points = 0
      for i = 1, #merge.params do if e.mean[i] then points = points + 1 end end
      local why
      if points < 3 then
        why = string.format("%d points only", points)
      elseif f.r2 < min_r2 then
        why = string.format("r^2 %.3f < %s", f.r2, num(min_r2))
      end
      out.mean[name] = M.predict(e.fit, x)
      out.fits[name] = { model = e.fit.best, r2 = f.r2, points = points, reliable = why == nil, why = why }
      local lo, hi = M.interval(merge, e, x, e.fit.best)
      out.fits[name].lo, out.fits[name].hi = lo, hi
    end
  end
  return out
end

--- Merge chains of one program at several parameter values (Chitra92): runs is a
-- list of {param = x, chain = chain}. Returns {params = {...}, states = {S = {mean = {...},
-- var = {...}, fit = {...}}}, transitions = {S = {T = {p...}}}}; a state missing at some
-- value has nil there and is fitted on the values where it was seen.
function M.merge(runs)
  table.sort(runs, function(a, b) return a.param < b.param end)
  local params, states, trans = {}, {}, {}
  for i, r in ipairs(runs) do
    params[i] = r.param
    for _, s in ipairs(r.chain.states) do
      local e = states[s.name] or { mean = {}, var = {}, n = {} }
      states[s.name] = e
      e.mean[i], e.var[i], e.n[i] = s.mean, s.var, s.n
    end
    for _, a in ipairs(r.chain.arcs) do
      trans[a.from] = trans[a.from] or {}
      trans[a.from][a.to] = trans[a.from][a.to] or {}
      trans[a.from][a.to][i] = a.p
    end
  end
  for _, e in pairs(states) do
    local xs, ys = {}, {}
    for i = 1, #params do
      if e.mean[i] then xs[#xs + 1], ys[#ys + 1] = params[i], e.mean[i] end
    end
    if #xs >= 2 then e.fit = M.fit(xs, ys) end
  end
  return { params = params, states = states, transitions = trans }
end

M.Chain = Chain
return M
