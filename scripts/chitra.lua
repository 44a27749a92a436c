-- retrace chitra PES...: transform program execution sequences and model them as
-- semi-Markov chains. Transforms apply in command-line order to every file (an ensemble).
local cli = require "retrace.cli"
local chitra = require "retrace.chitra"
local chain_mod = require "retrace.chitra.chain"
local validate = require "retrace.chitra.validate"

-- options that are transforms, kept in command-line order
local function ordered(kind)
  return function(args, _, value)
    args.steps = args.steps or {}
    args.steps[#args.steps + 1] = { kind, value }
  end
end

local function parse_step(kind, v)
  if kind == "clip" then
    local a, b = v:match("^(%d+):(%d+)$")
    if not a then cli.usage_error("--clip expects NI:NF (two counts), got '" .. v .. "'") end
    local ni, nf = math.tointeger(tonumber(a)), math.tointeger(tonumber(b))
    if not ni or not nf then cli.usage_error("--clip: the counts of '" .. v .. "' must be below 2^63") end
    return { "clip", ni, nf }
  elseif kind == "aggregate" or kind == "project" then
    local list, name = v:match("^(.-)=([^=]+)$")
    if not list or list == "" then
      cli.usage_error("--" .. kind .. " expects A,B,...=NAME, got '" .. v .. "'")
    end
    return { kind, chitra.split_list(list), name }
  elseif kind == "components" then
    local map = {}
    for pair in v:gmatch("[^,]+") do
      local a, b = pair:match("^%s*(.-)%s*=%s*(.-)%s*$")
      if not a or a == "" or b == "" then
        cli.usage_error("--components expects C1=D1,C2=D2,..., got '" .. v .. "'")
      end
      map[a] = b
    end
    return { "project_components", map }
  elseif kind == "filter_time" or kind == "filter_event" then
    local p = tonumber(v)
    if not p then cli.usage_error("--" .. kind:gsub("_", "-") .. " expects a number, got '" .. v .. "'") end
    -- a parameter impossible for any sequence is a usage error here; what a
    -- particular sequence refuses later is an input error
    if kind == "filter_time" and not (p > 0 and p < 1) then
      cli.usage_error(string.format("filter_time: p = %g is outside (0, 1)", p))
    elseif kind == "filter_event" and not (p > 0 and p < math.huge) then
      cli.usage_error(string.format("filter_event: p = %g must be a positive count", p))
    end
    return { kind, p }
  elseif kind == "undo" then
    return { "undo" }
  elseif kind == "recipe" then
    local r, err = chitra.recipe(v)
    if not r then cli.usage_error(err) end
    return { "recipe", r, v }
  end
end

-- An output that cannot be written (a missing folder, a full disk) is an error of the
-- run (exit 1), as in every command.
local function write_file(path, text)
  local ok, err = require("retrace.fs").write_file(path, text)
  if not ok then cli.input_error(err) end
end

-- Text reports show at most DEF_RUNS runs of a composite, each cut to DEF_WIDTH
-- characters: a filter over a long run makes composites of thousands of symbols.
local DEF_RUNS, DEF_WIDTH = 4, 100

--- A composite's run as one short line: "A,B,C" or "A,B,...,Y,Z (N symbols)".
local function elide(run)
  local text = table.concat(run, ",")
  if #text <= DEF_WIDTH then return text end
  local head, tail, used = {}, {}, 0
  local budget = DEF_WIDTH - 20
  local i, j = 1, #run
  while i <= j do -- alternate from both ends while the budget lasts
    if used + #run[i] + 1 > budget then break end
    head[#head + 1] = run[i]; used = used + #run[i] + 1; i = i + 1
    if i > j or used + #run[j] + 1 > budget then break end
    table.insert(tail, 1, run[j]); used = used + #run[j] + 1; j = j - 1
  end
  return string.format("%s,...,%s (%d symbols)", table.concat(head, ","), table.concat(tail, ","), #run)
end

-- The validation of every step: does the chain reproduce its input sequence?
local function print_validation(validation, out)
  out:write("validation: a simulated trajectory against the input sequence, per step; pass/FAIL: "
    .. validation[1].test .. "; n-gram and periodogram distances 0 = same, 1 = disjoint\n")
  out:write(string.format("  %-34s %-6s %8s %8s %8s %8s  %s\n", "step", "KS", "1-gram", "2-gram", "3-gram",
    "spectrum", "dominant states: D (p)"))
  for _, v in ipairs(validation) do
    local parts = {}
    for _, name in ipairs(v.dominant) do
      local r = v.states[name]
      parts[#parts + 1] = string.format("%s %.3f (%s)", name, r.ks_d or 1,
        r.ks_p and string.format("%.3g", r.ks_p) or "-")
    end
    local label = #v.step > 34 and (v.step:sub(1, 31) .. "...") or v.step
    out:write(string.format("  %-34s %-6s %8.4f %8.4f %8.4f %8.4f  %s\n", label, v.passes and "pass" or "FAIL",
      v.ngrams[1], v.ngrams[2], v.ngrams[3], v.periodogram, table.concat(parts, ", ")))
  end
end

-- Options that need the whole sequence in memory (transforms, views, searches,
-- simulation, models, the --json document with every symbol); without them, and
-- with one file, the report needs only the chain, which chitra.stream builds as
-- the file is read.
local NEEDS_SEQUENCE = { "states", "merge", "drift", "sync", "find", "json", "views", "acquisition",
  "simulate", "fit_holding", "steady", "model", "params" }
local STREAMED = { clip = true, project = true, aggregate = true, project_components = true, filter_time = true,
  filter_event = true, undo = true }
local function streamable(args, steps)
  if #args.pes ~= 1 then return false end
  for _, s in ipairs(steps) do
    if not STREAMED[s[1]] then return false end
  end
  for _, o in ipairs(NEEDS_SEQUENCE) do
    local v = args[o]
    if v and not (type(v) == "table" and #v == 0) then return false end -- (repeatable options: a list)
  end
  for _, out in ipairs(args.chain or {}) do
    if out:match("%.json$") then return false end -- the semi-Markov model is fitted on the sequence
  end
  return true
end

local function print_text(ses, chain, out)
  local w = function(...) out:write(string.format(...)) end
  for k = 1, ses:members() do
    w("%s: %d symbols after %d transforms\n", ses.files[k] or ("member " .. k), ses:length(k),
      #ses:history())
  end
  for i, h in ipairs(ses:history()) do w("  %d. %s\n", i, h) end
  w("chain: %d states (holding times: mean, standard deviation, variance; share: of all time)\n",
    #chain.states)
  w("  %-16s %8s %8s %12s %12s %12s\n", "state", "n", "share", "mean", "std dev", "variance")
  local total = 0
  for _, s in ipairs(chain.states) do total = total + s.total end
  for _, s in ipairs(chain.states) do
    w("  %-16s %8d %8s %12s %12s %12s\n", s.name, s.n, chain_mod.percent(total > 0 and s.total / total or 0),
      chain_mod.number(s.mean), chain_mod.number(math.sqrt(math.max(s.var, 0))), chain_mod.number(s.var))
  end
  w("transitions:\n")
  for _, a in ipairs(chain.arcs) do
    w("  %s -> %s  %s\n", a.from, a.to, chain_mod.percent(a.p))
  end
  local defs = chain:definitions()
  local names = chain:composite_names()
  if #names > 0 then w("composites:\n") end
  for _, n in ipairs(names) do
    local runs = defs[n]
    w("  %s = %s\n", n, elide(runs[1]))
    for i = 2, math.min(#runs, DEF_RUNS) do w("  %s | %s\n", string.rep(" ", #n), elide(runs[i])) end
    if #runs > DEF_RUNS then
      w("  %s   (and %d more runs; --chain FILE.json lists them all)\n", string.rep(" ", #n), #runs - DEF_RUNS)
    end
  end
end

-- The semi-Markov model: fit, log-likelihood, and the law of each transition.
local function print_semi_markov(m, out)
  out:write(string.format("semi-Markov model: log-likelihood %.6g over %d steps, %d parameters, AIC %.6g, "
    .. "BIC %.6g (times recorded to %g)\n", m.loglik, m.steps, m.params, m.aic, m.bic, m.delta))
  out:write(string.format("  %-14s %-14s %7s %8s  %-12s %s\n", "from", "to", "n", "p", "law", "AIC of each law "
    .. "(exponential gamma weibull empirical; - cannot fit)"))
  for _, a in ipairs(m.arcs) do
    local aics, params = {}, ""
    for _, fam in ipairs { "exponential", "gamma", "weibull", "empirical" } do
      local f = a.fits[fam]
      aics[#aics + 1] = f.aic and string.format("%.5g", f.aic) or "-"
    end
    local f = a.fits[a.family]
    if a.family == "exponential" then params = string.format(" rate %.4g", f.rate)
    elseif a.family == "gamma" or a.family == "weibull" then
      params = string.format(" shape %.4g scale %.4g", f.shape, f.scale)
    else params = string.format(" %d values", f.distinct) end
    out:write(string.format("  %-14s %-14s %7d %8s  %-12s %s %s\n", a.from, a.to, a.n, chain_mod.percent(a.p),
      a.family, table.concat(aics, " "), params))
  end
end

-- The clocks' offsets and drifts against the first run's.
local function print_drift(fits, sync, out)
  out:write(string.format("clock drift against %s (t_k = offset + drift * t_1, least squares on the entries "
    .. "of %s):\n", fits[1].run, sync))
  out:write(string.format("  %-24s %14s %16s %12s %6s %12s\n", "run", "offset", "drift", "(ppm)", "points", "rms residual"))
  for k = 2, #fits do
    local f = fits[k]
    out:write(string.format("  %-24s %14.6g %16.10g %12.4g %6d %12.4g%s\n", f.run, f.offset, f.drift,
      (f.drift - 1) * 1e6, f.n, f.residual, f.unmatched > 0 and string.format("  (%d entries unmatched)",
      f.unmatched) or ""))
  end
end

-- Resource acquisition time per thread (Figure 15 of Chitra).
local function print_acquisition(a, ses, out)
  local w = function(...) out:write(string.format(...)) end
  w("acquisition time per thread (time from entering %s to leaving them):\n", table.concat(a.states, " or "))
  local lw = 8
  for _, t in ipairs(a.threads) do lw = math.max(lw, #t.label) end
  local lf = "  %-" .. lw .. "s"
  w(lf .. " %8s %12s %12s %12s %12s %6s\n", "thread", "n", "mean", "std dev", "min", "max", "cut")
  for _, t in ipairs(a.threads) do
    w(lf .. " %8d %12s %12s %12s %12s %6d\n", t.label, t.n, t.mean and chain_mod.number(t.mean) or "-",
      t.sd and chain_mod.number(t.sd) or "-", t.min and chain_mod.number(t.min) or "-",
      t.max and chain_mod.number(t.max) or "-", t.cut)
  end
  if a.per_run == "run" and ses:members() > 1 then
    w("  mean (n) per run, in the order of the files:\n")
    for _, t in ipairs(a.threads) do
      local cells = {}
      for k, r in ipairs(t.runs) do
        cells[k] = string.format("%s (%d)", r.mean and chain_mod.number(r.mean) or "-", r.n)
      end
      w(lf .. " %s\n", t.label, table.concat(cells, "  "))
    end
  end
end

-- The steady-state test.
local function print_steady(st, out)
  out:write(string.format("steady state %s (%s)\n", st.reached and "reached" or "NOT reached", st.test))
  local shown = 0
  for _, r in ipairs(st.states) do
    if r.df > 0 and shown < 10 then
      shown = shown + 1
      out:write(string.format("  %-16s %7d + %-7d transitions to %d states: chi2 %.4g (df %d), p %.3g, "
        .. "largest change of a probability %.3f%s%s\n", r.state, r.n[1], r.n[2], r.arcs, r.chi2, r.df, r.p,
        r.max_diff, r.changed and "  CHANGED" or "", r.sparse and " (expected counts below 5)" or ""))
    end
  end
end

-- A run scored against a saved model.
local function print_score(r, ses, out)
  local w = function(...) out:write(string.format(...)) end
  w("scored against %s: %d steps, %d scored, log-likelihood %.6g\n", r.model, r.steps, r.scored, r.ll)
  w("log-likelihood per step: %s here, %s in the model's own runs\n",
    r.per_step and string.format("%.4g", r.per_step) or "-",
    r.model_per_step and string.format("%.4g", r.model_per_step) or "-")
  local names = {}
  for n in pairs(r.states) do names[#names + 1] = n end
  table.sort(names, function(a, b) return r.states[a].per_step < r.states[b].per_step end)
  w("per state, least likely first:\n  %-16s %8s %12s %10s\n", "state", "steps", "log-lik", "per step")
  for _, n in ipairs(names) do
    local st = r.states[n]
    w("  %-16s %8d %12.6g %10.4g\n", n, st.n, st.ll, st.per_step)
  end
  if #r.unseen == 0 then
    w("transitions the model never saw: none\n")
  else
    w("transitions the model never saw (%d steps):\n", r.unseen_steps)
    for i, u in ipairs(r.unseen) do
      if i > 20 then w("  ... and %d more (--json lists them all)\n", #r.unseen - 20) break end
      w("  %s -> %s  %d times, first at element %d (time %s)%s\n", u.from, u.to, u.count, u.index,
        chain_mod.number(u.time), ses:members() > 1 and (" of run " .. u.member) or "")
    end
  end
  if r.odd_times > 0 then w("holding times no law of their transition gives: %d\n", r.odd_times) end
  if r.first then
    w("the run departs from the model at element %d (time %s)%s\n", r.first.index, chain_mod.number(r.first.time),
      ses:members() > 1 and (" of run " .. r.first.member) or "")
  end
  if #r.low > 0 then
    local parts = {}
    for j, i in ipairs(r.low) do
      if j > 8 then parts[#parts + 1] = string.format("and %d more", #r.low - 8) break end
      local win = r.windows[i]
      parts[#parts + 1] = string.format("elements %d-%d (%.3g per step)", win.from, win.to, win.per_step)
    end
    w("stretches of run 1 much less likely than the model's runs (2 nats per step below): %s\n",
      table.concat(parts, ", "))
  end
end

return {
  parallel = true, -- under MPI: the runs read with --states are spread over the ranks
  summary = "Chitra: transform execution sequences, build semi-Markov chains",
  description = "Load program execution sequences (one 'STATE TIME' pair per line, or "
    .. "'(STATE,TIME), ...' tuples), apply transforms in command-line order to every "
    .. "file, and model the result as a semi-Markov chain.",
  epilog = "Example: retrace chitra run.pes --components A1=A,A2=A,R1=R,R2=R --filter-event 2 --json",
  parser = function(p)
    p:argument("pes", "PES files (several form an ensemble); traces with --states"):args("+")
    p:option("--states", "read message-passing traces instead: processor P's innermost open event "
      .. "is the state (busy, overhead or idle outside every event); processor:P,Q,... makes one run "
      .. "per processor"):argname("processor:P")
    p:flag("--merge", "merge the runs (one per processor or thread) into one sequence whose state is the "
      .. "tuple of every run's state, joined by --component-separator (default: nothing)")
    p:option("--drift", "--merge: first correct the runs' clocks against the first run's: linear "
      .. "(t_k = offset + drift * t_1, least squares on the entries of --sync)"):choices({ "linear" })
    p:option("--sync", "--drift: the synchronisation state every run enters at the same moments")
      :argname("STATE")
    p:option("--clip", "delete the first NI and last NF symbols"):argname("NI:NF")
      :count("*"):action(ordered("clip"))
    p:option("--aggregate", "replace each occurrence of A,B,C by the composite Z")
      :argname("A,B,C=Z"):count("*"):action(ordered("aggregate"))
    p:option("--project", "replace each of A,B by Z and merge runs of Z"):argname("A,B=Z")
      :count("*"):action(ordered("project"))
    p:option("--components", "component projection, e.g. A1=A,A2=A,R1=R,R2=R")
      :argname("C=D,...") :count("*"):action(ordered("components"))
    p:option("--filter-time", "composite the symbols with h(s)/T < P, 0 < P < 1"):argname("P")
      :count("*"):action(ordered("filter_time"))
    p:option("--filter-event", "composite the symbols occurring fewer than N times")
      :argname("N"):count("*"):action(ordered("filter_event"))
    p:option("--recipe", "apply a recipe (a Lua file, or a name in retrace/chitra/recipes)")
      :argname("FILE.lua"):count("*"):action(ordered("recipe"))
    p:flag("--undo", "undo the transform before it (a step like the others, in command-line order)")
      :count("*"):action(ordered("undo"))
    p:option("--component-pattern", "Lua pattern of one state component", "%u%d*")
    p:option("--component-separator", "state components are separated by this text instead")
      :argname("SEP")
    p:option("--find", "report the occurrences of a pattern A,B,C"):argname("A,B,C")
      :count("*")
    p:flag("--json", "print the result as JSON on stdout")
    p:option("--chain", "write the chain: .json (the semi-Markov model, loadable by --model), .dot, "
      .. "or a picture .png/.pdf/.svg")
      :argname("OUT"):count("*")
    p:option("--views", "write the views (pictures and their data) into DIR"):argname("DIR")
    p:option("--view-format", "picture format of --views: png, pdf or svg", "png"):choices({ "png", "pdf", "svg" })
      :choices({ "png", "pdf", "svg" })
    p:option("--zoom", "time range of the time view and the time-domain spectrum; the event view and "
      .. "the event-domain spectrum show the events in it"):argname("T0:T1")
    p:option("--member", "ensembles: draw the views of this run only (a number from 1, or a file name); "
      .. "default: every run, one panel each"):argname("RUN")
    p:option("--occupancy", "--views: occupancy-time histograms of these symbols, one panel each "
      .. "(default: the symbol holding most time)"):argname("A,B,...")
    p:flag("--csv", "--views: also write the whole sequence as CSV (one row per element)")
    p:flag("--full-spectrum", "--views: one FFT of the whole signal instead of a spectrum sized to the "
      .. "picture (Welch averaging)")
    p:option("--acquisition", "resource acquisition time per thread: how long each thread stays in "
      .. "these local states each time it enters them (a thread is a state component, or a run "
      .. "when states have one component); --views draws acquisition.png"):argname("A1,A2,...")
    p:option("--min-prob", "chain pictures: hide arcs of probability below P (0 <= P < 1; "
      .. "default: the rarest arcs past 150)"):argname("P")
    p:option("--shade", "shade every occurrence of a pattern in the time and event views")
      :argname("A,B,C"):count("*")
    p:option("--simulate", "simulate N states of the chain of every step and compare them with "
      .. "that step's sequence (KS per state, n-grams, periodogram)"):argname("N")
    p:option("--seed", "random seed of --simulate", "1"):argname("S")
    p:option("--out", "with --simulate: write the simulated trajectory (of the last step) as a PES")
      :argname("FILE.pes")
    p:flag("--fit-holding", "fit a holding-time law per transition (exponential, gamma, Weibull or "
      .. "empirical, by AIC) and report the semi-Markov model's log-likelihood, AIC and BIC")
    p:flag("--steady", "test whether each run reached a steady state: do its transition probabilities "
      .. "change between its first and second half?")
    p:option("--model", "score the runs against a saved model (--chain FILE.json): log-likelihood per "
      .. "state, transitions the model never saw, where the runs depart from it"):argname("SAVED.json")
    p:option("--params", "parameter value of each file: chains per value, merged with fits")
      :argname("X1,X2,...")
    p:option("--predict", "with --params: predict each state's mean occupancy at X")
      :argname("X")
    p:option("--predict-min-r2", "--predict marks predictions from fits with r^2 below R "
      .. "(or from fewer than 3 parameter values) as unreliable", "0.9"):argname("R")
  end,
  run = function(args)
    local steps = {}
    for i, s in ipairs(args.steps or {}) do steps[i] = parse_step(s[1], s[2]) end
    if args.component_separator == "" then cli.usage_error("--component-separator is empty") end
    if args.component_pattern then -- a Lua pattern: one that does not compile is refused here
      local ok, why = pcall(string.find, "A1T", args.component_pattern)
      if not ok then
        cli.usage_error(("--component-pattern '%s': %s"):format(args.component_pattern, tostring(why):gsub("^.-:%d+: ", "")))
      end
    end
    -- an output over a file read would destroy it
    local outs = { args.out, table.unpack(args.chain or {}) }
    for i = 1, #(args.chain or {}) + 1 do
      local ok, why = true, nil
      if outs[i] then ok, why = require("retrace.fs").not_an_input(outs[i], { args.model or false, table.unpack(args.pes) }) end
      if not ok then cli.input_error(why) end
    end
    local bar -- one progress bar per long file, on stderr when it is a terminal
    local ses, err
    if args.states then
      -- message-passing traces: one processor's event nesting as the sequence
      -- processor:P or processor:P,Q,...: one run per processor of every trace
      local list = args.states:match("^processor:([%d,]+)$")
      local procs = {}
      for p in (list or ""):gmatch("%d+") do procs[#procs + 1] = math.tointeger(tonumber(p)) end
      if #procs == 0 then cli.usage_error("--states expects processor:P or processor:P,Q,..., got '"
        .. args.states .. "'") end
      local runs, labels = {}, {}
      for _, path in ipairs(args.pes) do
        for _, proc in ipairs(procs) do
          runs[#runs + 1] = { path, proc }
          labels[#labels + 1] = #procs > 1 and string.format("%s:processor %d", path, proc) or path
        end
      end
      -- the runs of an ensemble are read on the ranks of an MPI job, one run each (retrace.par)
      local members = require("retrace.par").spread(#runs, function(i)
        local m, why = require("retrace.chitra.states").from_trace(runs[i][1], runs[i][2])
        if not m then cli.input_error(why) end
        return m
      end)
      if not members then return 0 end -- another rank's share: rank 0 goes on
      ses, err = chitra.from_states(members, { components = args.component_pattern,
        separator = args.component_separator })
      if ses then ses.files = labels end
    else
      local par = require "retrace.par"
      if not par.speaks() then return 0 end -- PES files: rank 0 alone reads them
      par.solo(true)
      local function progress(path, done, total)
        if not bar or bar.path ~= path then
          if bar then bar:finish() end
          bar = cli.progress("loading " .. path, total)
          bar.path = path
        end
        bar:update(done)
      end
      local empty
      if streamable(args, steps) then
        -- a report of one file as it stands (or clipped): its chain read as a stream, the
        -- sequence never held
        if #steps == 1 and steps[1][1] == "clip" then -- (one pass: the reader clips)
          ses, err, empty = chitra.stream(args.pes[1], { progress = progress, clip = { steps[1][2], steps[1][3] } })
        else
          ses, err, empty = chitra.stream(args.pes[1], { progress = progress, steps = #steps > 0 and steps or nil,
            components = args.component_pattern, separator = args.component_separator })
        end
        if ses then steps = {} end -- (applied while reading; notes in ses.notes)
      end
      if ses or (err and not empty) then
        -- (streamed, or refused: the message is the loaded session's)
      else
        ses, err = chitra.load(args.pes, { components = args.component_pattern,
          separator = args.component_separator, progress = progress })
      end
    end
    if bar then bar:finish() end
    if not ses then cli.input_error(err) end
    -- clocks corrected, then runs merged, before any transform
    local drift
    if args.drift or args.merge or args.sync then
      if args.drift and not args.sync then cli.usage_error("--drift linear needs --sync STATE") end
      if args.sync and not args.drift then cli.usage_error("--sync goes with --drift linear") end
      if args.drift and not args.merge then cli.usage_error("--drift corrects the clocks of runs to merge: add --merge") end
      if ses:members() < 2 then cli.usage_error("--merge needs several runs") end
      local merge = require "retrace.chitra.merge"
      if args.drift then
        local why
        drift, why = merge.drift(ses, args.sync)
        if not drift then cli.input_error(why) end
      end
      local one, why = merge.merge(ses, drift, { separator = args.component_separator })
      if not one then cli.input_error(why) end
      ses:close()
      ses = one
    end
    -- --simulate: the model of every step checked against its input sequence
    local sim_n, sim_seed
    if args.simulate then
      sim_n, sim_seed = math.tointeger(tonumber(args.simulate)), math.tointeger(tonumber(args.seed))
      if not sim_n or sim_n < 1 then cli.usage_error("--simulate expects a positive count") end
      local most = require("retrace.core").seq.simulate_max
      if sim_n > most then cli.usage_error(("--simulate: at most %d states"):format(most)) end
      if not sim_seed then cli.usage_error("--seed expects an integer") end
    elseif args.out then
      cli.usage_error("--out needs --simulate N (it writes the simulated trajectory)")
    end
    local validation = {}
    local function check(label, last)
      if not sim_n then return end
      -- the last step's trajectory goes to --out as it is drawn (never held)
      local v, why = validate.compare(ses, assert(ses:chain()), { steps = sim_n, seed = sim_seed,
        out = last and args.out or nil, header = last and string.format(
          "retrace chitra: %d states simulated from the chain of %s (seed %d)", sim_n,
          table.concat(args.pes, " "), sim_seed) or nil })
      if not v then cli.input_error(why) end
      v.step = label
      validation[#validation + 1] = v
    end
    check("input", #steps == 0)
    local noted = 0
    if ses.streamed then -- (a clip applied while reading)
      for i = 1, #ses.notes do io.stderr:write("retrace: note: ", ses.notes[i], "\n") end
      noted = #ses.notes
    end
    for si, s in ipairs(steps) do
      local ok, why
      if s[1] == "recipe" then
        ok, why = ses:apply(s[2])
        if not ok then why = s[3] .. ": " .. why end
      else
        ok, why = ses[s[1]](ses, table.unpack(s, 2))
      end
      for i = noted + 1, #ses.notes do io.stderr:write("retrace: note: ", ses.notes[i], "\n") end
      noted = #ses.notes
      if not ok then cli.input_error(why) end -- the parameters were checked: the data refused
      local hist = ses:history()
      check(s[1] == "undo" and "undo" or (s[1] == "recipe" and ("recipe " .. s[3]) or hist[#hist] or s[1]),
        si == #steps)
    end
    local chain = assert(ses:chain())
    local model_mod = require "retrace.chitra.model"
    -- the holding-time laws cost a fit per transition: only when asked or saved
    local wants_model = args.fit_holding
    for _, out in ipairs(args.chain or {}) do wants_model = wants_model or out:match("%.json$") ~= nil end
    local sm = wants_model and model_mod.build(ses, chain) or nil
    local score
    if args.model then
      local f, ferr = io.open(args.model, "rb")
      if not f then cli.input_error("--model: " .. ferr) end
      local saved, why = model_mod.decode(f:read("a"))
      f:close()
      if not saved then cli.input_error(args.model .. ": " .. why) end
      score = model_mod.score(ses, saved)
      score.model = args.model
    end
    -- the whole document (with every symbol and time) only when it is printed
    local doc = args.json and ses:to_table(chain, cli.array) or {}
    if args.json then doc.notes = cli.array(ses.notes) end
    if ses:members() > 1 then
      doc.member_chains = {}
      for k = 1, ses:members() do
        doc.member_chains[k] = assert(ses:chain({ members = { k } })):to_table()
      end
    end

    local finds = {}
    for _, pat in ipairs(args.find or {}) do
      local r, why = ses:find(pat)
      if not r then cli.usage_error(why) end
      r.occurrences = nil
      finds[#finds + 1] = r
    end
    if #finds > 0 then doc.find = finds end

    if sim_n then
      doc.simulation = assert(chain:judge(sim_n, sim_seed))
      doc.validation = {}
      for i, v in ipairs(validation) do
        doc.validation[i] = { step = v.step, passes = v.passes, alpha = v.alpha, level = v.level,
                              test = v.test, sample = v.sample, dominant = v.dominant,
                              states = v.states, ngrams = v.ngrams, periodogram = v.periodogram,
                              bands = v.bands, steps = v.steps, seed = v.seed }
      end
    end

    if args.params then
      local xs = {}
      for v in args.params:gmatch("[^,]+") do
        local x = tonumber(v)
        if not x then cli.usage_error("--params expects numbers, got '" .. v .. "'") end
        xs[#xs + 1] = x
      end
      if #xs ~= #args.pes then
        cli.usage_error(string.format("--params has %d values for %d files", #xs, #args.pes))
      end
      local groups, order = {}, {}
      for k, x in ipairs(xs) do
        if not groups[x] then groups[x] = {}; order[#order + 1] = x end
        table.insert(groups[x], k)
      end
      local runs = {}
      for _, x in ipairs(order) do
        runs[#runs + 1] = { param = x, chain = assert(ses:chain({ members = groups[x] })) }
      end
      doc.merge = chain_mod.merge(runs)
      if args.predict then
        local x = tonumber(args.predict)
        if not x then cli.usage_error("--predict expects a number") end
        local min_r2 = tonumber(args.predict_min_r2)
        if not min_r2 or min_r2 < 0 or min_r2 > 1 then
          cli.usage_error("--predict-min-r2 expects a number from 0 to 1, got '" .. args.predict_min_r2 .. "'")
        end
        doc.merge.prediction = chain_mod.prediction(doc.merge, x, min_r2)
      end
    end

    local min_prob = args.min_prob and tonumber(args.min_prob)
    if args.min_prob and (not min_prob or min_prob < 0 or min_prob >= 1) then
      cli.usage_error("--min-prob expects a probability 0 <= P < 1, got '" .. args.min_prob .. "'")
    end
    local views = require "retrace.displays.chitra.views"
    local acq_states, acquisition
    if args.acquisition then
      acq_states = chitra.split_list(args.acquisition)
      if #acq_states == 0 then cli.usage_error("--acquisition expects states A1,A2,...") end
      local why
      acquisition, why = require("retrace.chitra.acquisition").compute(ses, acq_states)
      if not acquisition then cli.input_error(why) end
      doc.acquisition = acquisition
    end
    if not args.views then
      for _, o in ipairs { "member", "occupancy", "csv", "full_spectrum" } do
        if args[o] then cli.usage_error("--" .. o:gsub("_", "-") .. " goes with --views DIR") end
      end
    end
    if args.views then
      local range
      if args.zoom then
        local a, b = args.zoom:match("^([^:]+):([^:]+)$")
        a, b = tonumber(a), tonumber(b)
        if not a or not b or b <= a then
          cli.usage_error("--zoom expects T0:T1 with T0 < T1, got '" .. args.zoom .. "'")
        end
        range = { a, b }
      end
      local member
      if args.member then
        member = math.tointeger(tonumber(args.member))
        for k, f in ipairs(args.pes) do
          if not member and (f == args.member or f:match("[^/]*$") == args.member) then member = k end
        end
        if not member or member < 1 or member > ses:members() then
          cli.usage_error(string.format("--member: no run '%s' (give 1 to %d or a file name)", args.member,
            ses:members()))
        end
      end
      local ok, why = views.write_all(ses, args.views,
        { format = args.view_format, range = range, shade = args.shade, chain = chain, min_prob = min_prob,
          member = member, occupancy = args.occupancy and chitra.split_list(args.occupancy) or nil,
          csv = args.csv, full_spectrum = args.full_spectrum, acquisition = acq_states })
      -- a file or the folder that could not be written fails the run (exit 1); a view the
      -- options cannot give (a symbol absent, an empty zoom) is a usage error
      if not ok then
        why = tostring(why)
        if why:find(args.views, 1, true) or why:find("cannot create folder", 1, true) then cli.input_error(why) end
        cli.usage_error(why)
      end
    end

    for _, out in ipairs(args.chain or {}) do
      local ext = out:match("%.(%w+)$")
      if ext == "json" then
        -- the chain and its semi-Markov model in one document (--model reads it back)
        local t = chain:to_table()
        for k, v in pairs(sm) do t[k] = v end
        t.composites = chain:definitions()
        t.composite_chains = chain.composites
        write_file(out, model_mod.encode(t))
      elseif ext == "dot" then
        write_file(out, chain:dot())
      elseif ext == "png" or ext == "pdf" or ext == "svg" then
        local ok, why = views.chain_picture(chain, out, { min_prob = min_prob })
        if not ok then cli.input_error(why) end
      else
        cli.usage_error("--chain: unknown output type '" .. out .. "' (json, dot, png, pdf, svg)")
      end
    end

    if drift then doc.drift = { sync = args.sync, runs = drift } end
    local steady = args.steady and model_mod.steady(ses) or nil
    if steady then doc.steady = steady end
    if args.fit_holding then doc.semi_markov = sm end
    if score then doc.score = score end
    if args.json then
      io.stdout:write(cli.json(doc), "\n")
    elseif score then
      print_score(score, ses, io.stdout)
    else
      if drift then print_drift(drift, args.sync, io.stdout) end
      print_text(ses, chain, io.stdout)
      if args.fit_holding then print_semi_markov(sm, io.stdout) end
      if acquisition then print_acquisition(acquisition, ses, io.stdout) end
      if steady then print_steady(steady, io.stdout) end
      for _, r in ipairs(finds) do
        -- chain_mod.percent: a share that is not 0 never prints as 0%
        io.stdout:write(string.format("pattern %s: %d occurrences, %s of the events, %s of the time\n",
          table.concat(r.pattern, ","), r.count, chain_mod.percent(r.events_share), chain_mod.percent(r.time_share)))
      end
      if doc.simulation then
        io.stdout:write(string.format("simulation of %d states (seed %d): time-share distance %.4f, "
          .. "largest transition probability difference %.4f\n", doc.simulation.steps,
          doc.simulation.seed, doc.simulation.share_distance, doc.simulation.max_p_diff))
        print_validation(validation, io.stdout)
      end
      if doc.merge then
        local names = {}
        for n in pairs(doc.merge.states) do names[#names + 1] = n end
        table.sort(names)
        io.stdout:write("merged chains at " .. table.concat(doc.merge.params, ", ") .. ":\n")
        for _, n in ipairs(names) do
          local e, cells = doc.merge.states[n], {}
          for i = 1, #doc.merge.params do
            cells[i] = e.mean[i] and string.format("%s(%s)", chain_mod.number(e.mean[i]),
              chain_mod.number(e.var[i])) or "-"
          end
          local fit = e.fit and e.fit.best and string.format("  best fit %s (r2 %.3f)", e.fit.best,
            e.fit[e.fit.best].r2) or ""
          io.stdout:write(string.format("  %-12s %s%s\n", n, table.concat(cells, "  "), fit))
        end
        local pr = doc.merge.prediction
        if pr then
          io.stdout:write(string.format("predicted mean occupancy at %s [95%% interval] (unreliable: r^2 < %s "
            .. "or fewer than 3 values):\n", chain_mod.number(pr.param), chain_mod.number(pr.min_r2)))
          for _, n in ipairs(names) do
            local f = pr.fits[n]
            if f then
              local ci = f.lo and string.format(" [%s, %s]", chain_mod.number(f.lo), chain_mod.number(f.hi)) or ""
              io.stdout:write(string.format("  %-12s %12s%s  %s fit, r^2 %.3f, %d points%s\n", n,
                chain_mod.number(pr.mean[n]), ci, f.model, f.r2, f.points,
                f.reliable and "" or ("  UNRELIABLE: " .. f.why)))
            end
          end
        end
      end
    end
    return 0
  end,
}
