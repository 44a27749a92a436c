-- retrace.chitra: the worked examples through the Lua API, undo, the transforms
-- against a direct (slow, obviously right) implementation on random sequences,
-- ensembles, chains (JSON, DOT, simulation, merging), recipes and the command.
local h = require "helpers"
local chitra = require "retrace.chitra"
local chain_mod = require "retrace.chitra.chain"
local cjson = require "cjson"

local PES = h.fixtures .. "/chitra/philosophers2.pes"
local EX3 = { "A2T", "ET", "EA1", "R1A1", "R2A1", "R2A2", "TA2", "TE", "A1E", "A1R1", "A2R1",
              "A2R2", "A2T", "ET", "EA1", "R1A1", "R2A2", "TA2", "TE", "A1E" }
local EX3T = { 10, 10, 15, 12, 4, 6, 14, 12, 18, 17, 1, 16, 1, 9, 16, 12, 8, 4, 10, 15 }

local function split(s)
  local t = {}
  for x in s:gmatch("[^,]+") do t[#t + 1] = x end
  return t
end

describe("chitra worked examples", function()
  it("Example 3: the SES of the PES", function()
    local ses = assert(chitra.load(PES))
    assert.same(EX3, ses:symbols())
    assert.same(EX3T, ses:times())
    assert.same(1550, ses:entries()[1])
  end)

  it("Example 4: clip 8 8, and undo", function()
    local ses = assert(chitra.load(PES))
    assert(ses:clip(8, 8))
    assert.same(split("A1E,A1R1,A2R1,A2R2"), ses:symbols())
    assert.same({ 18, 17, 1, 16 }, ses:times())
    assert(ses:undo())
    assert.same(EX3, ses:symbols())
    assert.same(EX3T, ses:times())
  end)

  it("Example 5: aggregate R2A2,TA2,TE into Z", function()
    local ses = assert(chitra.load(PES))
    assert(ses:aggregate("R2A2,TA2,TE", "Z"))
    assert.same(split("A2T,ET,EA1,R1A1,R2A1,Z,A1E,A1R1,A2R1,A2R2,A2T,ET,EA1,R1A1,Z,A1E"), ses:symbols())
    assert.same({ 10, 10, 15, 12, 4, 32, 18, 17, 1, 16, 1, 9, 16, 12, 22, 15 }, ses:times())
    assert.same({ Z = { { "R2A2", "TA2", "TE" } } }, ses:composites())
  end)

  local EX6 = split("AT,ET,EA,RA,TA,TE,AE,AR,AT,ET,EA,RA,TA,TE,AE")
  local EX6T = { 10, 10, 15, 22, 14, 12, 18, 34, 1, 9, 16, 20, 4, 10, 15 }

  it("Example 6: a set of projections", function()
    local ses = assert(chitra.load(PES))
    assert(ses:project("A2T", "AT"))
    assert(ses:project("EA1", "EA"))
    assert(ses:project("R1A1,R2A1,R2A2", "RA"))
    assert(ses:project("TA2", "TA"))
    assert(ses:project("A1E", "AE"))
    assert(ses:project("A1R1,A2R1,A2R2", "AR"))
    assert.same(EX6, ses:symbols())
    assert.same(EX6T, ses:times())
    assert.equal(6, #ses:history())
  end)

  it("Example 6: component projection in one call", function()
    local ses = assert(chitra.load(PES))
    assert(ses:project_components { A1 = "A", A2 = "A", R1 = "R", R2 = "R" })
    assert.same(EX6, ses:symbols())
    assert.same(EX6T, ses:times())
    assert.same({ { "R1A1", "R2A1", "R2A2" }, { "R1A1", "R2A2" } }, ses:composites().RA)
    assert(ses:undo())
    assert.same(EX3, ses:symbols())
  end)

  it("Example 7: time filter then event filter, composites T1..T5", function()
    local ses = assert(chitra.load(PES))
    local stats, T = ses:stats()
    assert.equal(210, T)
    assert.near(0.157, stats.A1E.share, 0.0005)
    assert.near(0.1476, stats.EA1.share, 0.0005)
    assert(ses:filter_time(0.147))
    assert.same(split("T1,EA1,T2,A1E,T3,EA1,T2,A1E"), ses:symbols())
    assert.same({ 20, 15, 48, 18, 44, 16, 34, 15 }, ses:times())
    assert.same({ T1 = { { "A2T", "ET" } },
                  T2 = { split("R1A1,R2A1,R2A2,TA2,TE"), split("R1A1,R2A2,TA2,TE") },
                  T3 = { split("A1R1,A2R1,A2R2,A2T,ET") } }, ses:composites())
    assert(ses:filter_event(2))
    assert.same(split("T4,EA1,T2,A1E,T5,EA1,T2,A1E"), ses:symbols())
    assert.same({ 20, 15, 48, 18, 44, 16, 34, 15 }, ses:times())
    local defs = ses:composites()
    assert.same({ { "A2T", "ET" } }, defs.T4)
    assert.same({ split("A1R1,A2R1,A2R2,A2T,ET") }, defs.T5)
  end)

  it("Example 8: the chain of Example 7's result", function()
    local ses = assert(chitra.load(PES))
    assert(ses:filter_time(0.147))
    assert(ses:filter_event(2))
    local t = ses:chain():to_table()
    assert.same({ "T4", "EA1", "T2", "A1E", "T5", "OTHER" }, t.order)
    assert.same({ n = 1, mean = 20, var = 0, share = 20 / 210 }, t.states.T4)
    assert.same({ n = 2, mean = 15.5, var = 0.5, share = 31 / 210 }, t.states.EA1)
    assert.same({ n = 2, mean = 41, var = 98, share = 82 / 210 }, t.states.T2)
    assert.same({ n = 2, mean = 16.5, var = 4.5, share = 33 / 210 }, t.states.A1E)
    assert.same({ n = 1, mean = 44, var = 0, share = 44 / 210 }, t.states.T5)
    assert.same({ n = 1, mean = 0, var = 0, share = 0 }, t.states.OTHER)
    assert.same({ T4 = { EA1 = 1 }, EA1 = { T2 = 1 }, T2 = { A1E = 1 },
                  A1E = { T5 = 0.5, OTHER = 0.5 }, T5 = { EA1 = 1 }, OTHER = {} }, t.transitions)
  end)

  it("the paper's tuple list and the line layout read the same", function()
    local a = assert(chitra.load(PES))
    local b = assert(chitra.load(h.fixtures .. "/chitra/philosophers2.txt"))
    assert.same(a:symbols(), b:symbols())
    assert.same(a:times(), b:times())
  end)
end)

-- ---- a direct implementation to check the core against ----

local function ref_aggregate(xs, ts, pat, z)
  local ox, ot, i = {}, {}, 1
  while i <= #xs do
    local match = i + #pat - 1 <= #xs
    for j = 1, #pat do
      if not match then break end
      if xs[i + j - 1] ~= pat[j] then match = false end
    end
    if match then
      local s = 0
      for j = 0, #pat - 1 do s = s + ts[i + j] end
      ox[#ox + 1], ot[#ot + 1] = z, s
      i = i + #pat
    else
      ox[#ox + 1], ot[#ot + 1] = xs[i], ts[i]
      i = i + 1
    end
  end
  return ox, ot
end

local function ref_project(xs, ts, map)
  local targets = {}
  for _, v in pairs(map) do targets[v] = true end
  local ox, ot = {}, {}
  for i, x in ipairs(xs) do
    local y = map[x] or x
    if #ox > 0 and targets[y] and ox[#ox] == y then
      ot[#ot] = ot[#ot] + ts[i]
    else
      ox[#ox + 1], ot[#ot + 1] = y, ts[i]
    end
  end
  return ox, ot
end

-- state: {counter = k, taken = {name = true}} for fresh composite names
local function ref_filter(xs, ts, selected, state)
  local ox, ot, names, i = {}, {}, {}, 1
  while i <= #xs do
    if not selected[xs[i]] then
      ox[#ox + 1], ot[#ot + 1] = xs[i], ts[i]
      i = i + 1
    else
      local j, s = i, 0
      while j <= #xs and selected[xs[j]] do s = s + ts[j]; j = j + 1 end
      local key = tostring(xs[i - 1]) .. "|" .. tostring(xs[j])
      if not names[key] then
        local name
        repeat
          name = "T" .. state.counter
          state.counter = state.counter + 1
        until not state.taken[name]
        state.taken[name] = true
        names[key] = name
      end
      ox[#ox + 1], ot[#ot + 1] = names[key], s
      i = j
    end
  end
  return ox, ot
end

local function sum_by(xs, ts)
  local c, hh, T = {}, {}, 0
  for i, x in ipairs(xs) do
    c[x] = (c[x] or 0) + 1
    hh[x] = (hh[x] or 0) + ts[i]
    T = T + ts[i]
  end
  return c, hh, T
end

describe("chitra transforms against a direct implementation", function()
  local alphabet = { "a", "b", "c", "d", "T2", "e" }
  math.randomseed(6)
  for trial = 1, 40 do
    it("random sequence " .. trial, function()
      local n = math.random(2, 60)
      local states, entries, t = {}, {}, 0
      for i = 1, n + 1 do
        states[i] = alphabet[math.random(1, math.random(2, #alphabet))]
        entries[i] = t
        t = t + math.random(0, 9)
      end
      local ses = assert(chitra.from_states { { label = "r", states = states, times = entries } })
      local xs, ts = {}, {}
      for i = 1, n do xs[i], ts[i] = states[i], entries[i + 1] - entries[i] end
      local taken = {}
      for _, s in ipairs(states) do taken[s] = true end
      local names = { counter = 1, taken = taken }
      local history = { { xs, ts } }
      for _ = 1, 5 do
        local kind = math.random(1, 5)
        local ok
        if kind == 1 then
          local ni, nf = math.random(0, 2), math.random(0, 2)
          ok = ses:clip(ni, nf)
          if ni + nf <= #xs then
            assert.truthy(ok)
            xs = table.move(xs, ni + 1, #xs - nf, 1, {})
            ts = table.move(ts, ni + 1, #ts - nf, 1, {})
          else
            assert.falsy(ok)
          end
        elseif kind == 2 and #xs >= 2 then
          local at = math.random(1, #xs - 1)
          local pat = { xs[at], xs[at + 1] }
          -- a name in use is refused (it would merge the composite into that state)
          local ok2, why = ses:aggregate(pat, xs[math.random(1, #xs)])
          assert.falsy(ok2)
          assert.truthy(why:find("is already a", 1, true))
          names.z = (names.z or 0) + 1
          local z = "Z" .. names.z
          taken[z] = true
          assert.truthy(ses:aggregate(pat, z))
          xs, ts = ref_aggregate(xs, ts, pat, z)
        elseif kind == 3 and #xs >= 1 then
          local map = { [xs[math.random(1, #xs)]] = "P", [xs[math.random(1, #xs)]] = "P" }
          taken.P = true
          assert.truthy(ses:project(map))
          xs, ts = ref_project(xs, ts, map)
        elseif kind == 4 and #xs >= 1 then
          local p = math.random(1, 9) / 10
          local _, hh, T = sum_by(xs, ts)
          if T > 0 then
            local sel = {}
            for x, v in pairs(hh) do sel[x] = v / T < p end
            assert.truthy(ses:filter_time(p))
            xs, ts = ref_filter(xs, ts, sel, names)
          end
        elseif kind == 5 and #xs >= 1 then
          local p = math.random(1, 4)
          local c = sum_by(xs, ts)
          local sel = {}
          for x, v in pairs(c) do sel[x] = v < p end
          assert.truthy(ses:filter_event(p))
          xs, ts = ref_filter(xs, ts, sel, names)
        end
        assert.same(xs, ses:symbols())
        assert.same(ts, ses:times())
        if #ses:history() > #history - 1 then history[#history + 1] = { xs, ts } end
      end
      -- undo walks back through every version exactly
      for d = #history - 1, 1, -1 do
        assert.truthy(ses:undo())
        assert.same(history[d][1], ses:symbols())
        assert.same(history[d][2], ses:times())
      end
      assert.falsy(ses:undo())
    end)
  end
end)

describe("chitra chains against a direct computation", function()
  math.randomseed(8)
  for trial = 1, 20 do
    it("random sequence " .. trial, function()
      local n = math.random(2, 80)
      local states, entries, t = {}, {}, 0
      for i = 1, n + 1 do
        states[i] = ({ "a", "b", "c", "d" })[math.random(1, 4)]
        entries[i] = t
        t = t + math.random(0, 20) / 4
      end
      local ses = assert(chitra.from_states { { states = states, times = entries } })
      local xs = {}
      for i = 1, n do xs[i] = states[i] end
      xs[n + 1] = "OTHER"
      local times, st, out = {}, {}, {}
      for i = 1, n + 1 do
        local x, d = xs[i], i <= n and entries[i + 1] - entries[i] or 0
        st[x] = st[x] or {}
        table.insert(st[x], d)
        if i <= n then
          out[x] = out[x] or {}
          out[x][xs[i + 1]] = (out[x][xs[i + 1]] or 0) + 1
        end
      end
      local c = ses:chain():to_table()
      for x, ds in pairs(st) do
        local sum = 0
        for _, d in ipairs(ds) do sum = sum + d end
        local mean, ss = sum / #ds, 0
        for _, d in ipairs(ds) do ss = ss + (d - mean) ^ 2 end
        assert.equal(#ds, c.states[x].n)
        assert.near(mean, c.states[x].mean, 1e-9)
        assert.near(#ds > 1 and ss / (#ds - 1) or 0, c.states[x].var, 1e-9)
        local tot = 0
        for _, k in pairs(out[x] or {}) do tot = tot + k end
        for y, k in pairs(out[x] or {}) do assert.near(k / tot, c.transitions[x][y], 1e-12) end
      end
    end)
  end
end)

describe("chitra refusals", function()
  it("refuses parameters that make no sense, with a message", function()
    local ses = assert(chitra.load(PES))
    local cases = {
      { function() return ses:filter_time(0) end, "filter_time: p = 0 is outside (0, 1)" },
      { function() return ses:filter_time(1) end, "filter_time: p = 1 is outside (0, 1)" },
      { function() return ses:filter_time(-0.5) end, "filter_time: p = -0.5 is outside (0, 1)" },
      { function() return ses:filter_event(0) end, "filter_event: p = 0 must be a positive count" },
      { function() return ses:clip(15, 6) end,
        PES .. ": clip: n_i + n_f = 21 exceeds the sequence length 20" },
      { function() return ses:clip(-1, 0) end, "clip: n_i and n_f must not be negative" },
      { function() return ses:aggregate({}, "Z") end, "aggregate: the pattern is empty" },
      { function() return ses:aggregate("", "Z") end, "aggregate: the pattern is empty" },
      { function() return ses:project({}, "Z") end, "project: the set of symbols is empty" },
      { function() return ses:find({}) end, "find: the pattern is empty" },
      { function() return ses:undo() end, "undo: nothing to undo" },
    }
    for _, c in ipairs(cases) do
      local ok, err = c[1]()
      assert.is_nil(ok)
      assert.equal(c[2], err)
    end
    assert.same(EX3, ses:symbols())
    assert.equal(0, #ses:history())
  end)

  it("bad files give one-line errors with file and line", function()
    local bad = h.temp_file("A 1\nB 5\nC 4\n")
    local ses, err = chitra.load(bad)
    assert.is_nil(ses)
    assert.equal(bad .. ":3: time: 4 is less than the previous time 5", err)
    local one = h.temp_file("A 1\nB\n")
    assert.equal(one .. ":2: expected 'STATE TIME', found one field", select(2, chitra.load(one)))
    local empty = h.temp_file("")
    assert.equal(empty .. ": empty PES: no states", select(2, chitra.load(empty)))
    os.remove(bad); os.remove(one); os.remove(empty)
  end)
end)

describe("chitra ensembles", function()
  it("applies each transform to every member with pooled statistics", function()
    local a = h.temp_file("X 0\nY 1\nX 2\nZ 12\nX 13\n")
    local b = h.temp_file("Y 0\nX 5\nY 6\nW 8\n")
    local ses = assert(chitra.load { a, b })
    assert.equal(2, ses:members())
    -- pooled counts: X 3, Y 3, Z 1, so an event filter with p = 2 selects Z only
    assert(ses:filter_event(2))
    assert.same({ "X", "Y", "X", "T1" }, ses:symbols(1))
    assert.same({ "Y", "X", "Y" }, ses:symbols(2))
    local t = ses:chain():to_table()
    -- X lasts 1, 10 (first file) and 1 (second): mean 4, variance (9 + 36 + 9) / 2
    assert.same({ n = 3, mean = 4, var = 27, share = 12 / 21 }, t.states.X)
    assert.same({ X = { Y = 2 / 3, T1 = 1 / 3 }, Y = { X = 2 / 3, OTHER = 1 / 3 },
                  T1 = { OTHER = 1 }, OTHER = {} }, t.transitions)
    local first = ses:chain({ members = { 2 } }):to_table()
    assert.same({ n = 1, mean = 1, var = 0, share = 1 / 8 }, first.states.X)
    os.remove(a); os.remove(b)
  end)
end)

describe("chitra pattern search and periodogram", function()
  it("finds every occurrence with its share of events and time", function()
    local ses = assert(chitra.load(PES))
    local r = assert(ses:find("TA2,TE"))
    assert.equal(2, r.count)
    assert.equal(4 / 20, r.events_share)
    assert.equal((26 + 14) / 210, r.time_share)
    assert.same({ { 1, 7 }, { 1, 18 } }, r.occurrences)
  end)

  it("a periodic sequence peaks at its frequency and harmonics", function()
    local states, times = {}, {}
    for i = 1, 1024 + 1 do
      states[i] = ({ "A", "B", "C", "D", "C", "B", "A", "B" })[(i - 1) % 8 + 1]
      times[i] = (i - 1) * 10
    end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    local sp = assert(ses:periodogram { domain = "event" })
    local total, peaks = 0, 0
    for k = 2, #sp.power do
      total = total + sp.power[k]
      local f = sp.freq[k]
      if math.abs(f * 8 - math.floor(f * 8 + 0.5)) < 1e-9 then peaks = peaks + sp.power[k] end
    end
    assert.near(1, peaks / total, 1e-9) -- all power at multiples of 1/8
    local best = 2
    for k = 2, #sp.power do if sp.power[k] > sp.power[best] then best = k end end
    assert.equal(0.125, sp.freq[best])
    local ts = assert(ses:periodogram { domain = "time", samples = 8192 })
    best = 2
    for k = 2, #ts.power do if ts.power[k] > ts.power[best] then best = k end end
    assert.near(1 / 80, ts.freq[best], 1e-9) -- period 8 events of 10 time units
  end)
end)

describe("chitra chains", function()
  local function ex8()
    local ses = assert(chitra.load(PES))
    assert(ses:filter_time(0.147))
    assert(ses:filter_event(2))
    return ses, ses:chain()
  end

  it("writes DOT with probabilities only where they are not 100%", function()
    local _, c = ex8()
    local dot = c:dot()
    assert.truthy(dot:find('"T4" -> "EA1";', 1, true))
    assert.truthy(dot:find('"A1E" -> "T5" [label="50%"];', 1, true))
    assert.truthy(dot:find('"T2" [label="T2\\nmean 41\\nvar 98"];', 1, true))
    assert.truthy(dot:find('label="T2 =";', 1, true))
  end)

  it("round-trips through JSON and judges itself by simulation", function()
    local _, c = ex8()
    local back = assert(chain_mod.from_table(cjson.decode(cjson.encode(c:to_table()))))
    assert.equal("T4", back.states[1].name)
    assert.equal(#c.arcs, #back.arcs)
    local j = assert(back:judge(20000, 7))
    assert.truthy(j.max_p_diff < 0.03)
    assert.truthy(j.share_distance < 0.02)
    assert.near(41, j.states.T2.sim_mean, 41 * 0.03)
    local again = assert(back:judge(20000, 7))
    assert.same(j, again) -- seeded
  end)

  it("fits occupancy against a parameter and predicts", function()
    local lin = chain_mod.fit({ 1, 2, 3, 4 }, { 5, 7, 9, 11 })
    assert.equal("linear", lin.best)
    assert.near(3, lin.linear.a, 1e-9)
    assert.near(2, lin.linear.b, 1e-9)
    assert.near(21, chain_mod.predict(lin, 9), 1e-9)
    local pow = chain_mod.fit({ 10, 100, 1000, 10000 }, { 18.2, 182, 1820, 18200 })
    assert.near(1, pow.power.b, 1e-9)
    assert.near(1.82, pow.power.a, 1e-9)
    local lg = chain_mod.fit({ 10, 100, 1000 }, { 1, 2, 3 })
    assert.equal("log", lg.best)
  end)

  it("merges chains measured at several parameter values", function()
    local function chain_at(x)
      local states, times, t = {}, {}, 0
      for i = 1, 41 do
        states[i] = ({ "TE", "AE", "ET", "EA" })[(i - 1) % 4 + 1]
        times[i] = t
        t = t + (states[i]:sub(2, 2) == "E" and 2 * x or 3) -- eating states grow with x
      end
      return assert(chitra.from_states { { states = states, times = times } }):chain()
    end
    local m = chain_mod.merge { { param = 100, chain = chain_at(100) },
                                { param = 10, chain = chain_at(10) },
                                { param = 1000, chain = chain_at(1000) } }
    assert.same({ 10, 100, 1000 }, m.params)
    assert.same({ 20, 200, 2000 }, m.states.TE.mean)
    assert.equal("linear", m.states.TE.fit.best)
    assert.near(20000, chain_mod.predict(m.states.TE.fit, 10000), 1e-6)
    assert.same({ 3, 3, 3 }, m.states.EA.mean)
  end)
end)

describe("chitra recipes", function()
  it("replays a recipe on another session", function()
    local ses = assert(chitra.load(PES))
    assert(ses:filter_time(0.147))
    assert(ses:filter_event(2))
    local other = assert(chitra.load(PES))
    assert(other:apply(ses:recipe()))
    assert.same(ses:symbols(), other:symbols())
  end)

  it("loads the bundled philosophers recipe and reports a failing step", function()
    local r = assert(chitra.recipe("philosophers"))
    local ses = assert(chitra.load(PES))
    assert(ses:apply(r))
    assert.same({ "AT", "ET", "EA", "RA", "TA", "TE", "AE", "AR", "AT", "ET", "EA", "RA", "TA", "TE", "AE" },
      ses:symbols())
    local ok, err = ses:apply { { "filter_time", 2 } }
    assert.is_nil(ok)
    assert.equal("recipe step 1: filter_time: p = 2 is outside (0, 1)", err)
    ok, err = ses:apply { { "explode" } }
    assert.equal("recipe step 1: unknown transform 'explode'", err)
  end)
end)

describe("retrace chitra", function()
  it("prints the issue's JSON shape, transforms in command-line order", function()
    local code, out = h.retrace("chitra", PES, "--filter-time", "0.147", "--filter-event", "2", "--json")
    assert.equal(0, code)
    local doc = cjson.decode(out)
    assert.same(split("T4,EA1,T2,A1E,T5,EA1,T2,A1E"), doc.symbols)
    assert.same({ 20, 15, 48, 18, 44, 16, 34, 15 }, doc.times)
    local t2 = doc.chain.states.T2
    assert.same({ 2, 41, 98 }, { t2.n, t2.mean, t2.var })
    assert.near(82 / 210, t2.share, 1e-12)
    assert.same({ T5 = 0.5, OTHER = 0.5 }, doc.chain.transitions.A1E)
    assert.same({ { "A2T", "ET" } }, doc.composites.T4)
    -- order matters: clip first then aggregate differs from aggregate then clip
    local _, o1 = h.retrace("chitra", PES, "--clip", "6:0", "--aggregate", "R2A2,TA2,TE=Z", "--json")
    local _, o2 = h.retrace("chitra", PES, "--aggregate", "R2A2,TA2,TE=Z", "--clip", "6:0", "--json")
    assert.equal(12, #cjson.decode(o1).symbols) -- only the second occurrence is left to aggregate
    assert.equal(10, #cjson.decode(o2).symbols)
  end)

  it("keeps empty sequences as JSON arrays", function()
    local code, out = h.retrace("chitra", PES, "--clip", "20:0", "--json")
    assert.equal(0, code)
    assert.truthy(out:find('"symbols":[]', 1, true))
    assert.truthy(out:find('"times":[]', 1, true))
    assert.same({ "OTHER" }, cjson.decode(out).chain.order)
  end)

  it("applies component projection, recipes, writes chains and simulates", function()
    local dir = os.tmpname()
    os.remove(dir)
    local code, out = h.retrace("chitra", PES, "--recipe", "philosophers", "--chain", dir .. ".json",
      "--chain", dir .. ".dot", "--simulate", "500", "--seed", "3", "--json")
    assert.equal(0, code)
    local doc = cjson.decode(out)
    assert.equal(15, #doc.symbols)
    assert.equal(500, doc.simulation.steps)
    local cj = cjson.decode(h.slurp(dir .. ".json"))
    assert.same({ AR = 0.5, OTHER = 0.5 }, cj.transitions.AE)
    assert.truthy(h.slurp(dir .. ".dot"):find("digraph", 1, true))
    os.remove(dir .. ".json"); os.remove(dir .. ".dot")
  end)

  it("splits components at a separator and gives each member's chain", function()
    local f = h.temp_file("IDLE.0 0\nTCP.1460 5\nIP.1460 9\nTCP.1460 10\nIDLE.0 30\nTCP.588 31\n")
    local code, out = h.retrace("chitra", f, f, "--component-separator", ".",
      "--components", "1460=data,588=data", "--json")
    assert.equal(0, code)
    local doc = cjson.decode(out)
    assert.same({ "IDLE.0", "TCP.data", "IP.data", "TCP.data", "IDLE.0" }, doc.symbols[1])
    assert.equal(2, #doc.member_chains)
    assert.same({ ["IP.data"] = 0.5, ["IDLE.0"] = 0.5 }, doc.member_chains[1].transitions["TCP.data"])
    os.remove(f)
  end)

  it("merges an ensemble by parameter value", function()
    local code, out = h.retrace("chitra", PES, PES, "--params", "10,100", "--predict", "1000", "--json")
    assert.equal(0, code)
    local doc = cjson.decode(out)
    assert.same({ 10, 100 }, doc.merge.params)
    assert.same({ 16.5, 16.5 }, doc.merge.states.A1E.mean)
    assert.near(16.5, doc.merge.prediction.mean.A1E, 1e-9)
  end)

  it("exits 1 on bad input and 2 on impossible options, with one-line messages", function()
    local bad = h.temp_file("A 1\nB 0\n")
    local code, _, err = h.retrace("chitra", bad)
    assert.equal(1, code)
    assert.equal("retrace: " .. bad .. ":2: time: 0 is less than the previous time 1\n", err)
    code, _, err = h.retrace("chitra", PES, "--filter-time", "1.5")
    assert.equal(2, code)
    assert.equal("retrace: filter_time: p = 1.5 is outside (0, 1)\n", err)
    code, _, err = h.retrace("chitra", PES, "--clip", "8")
    assert.equal(2, code)
    assert.equal("retrace: --clip expects NI:NF (two counts), got '8'\n", err)
    code, _, err = h.retrace("chitra", PES, "--aggregate", "=Z")
    assert.equal(2, code)
    -- an output that cannot be written is an error of the run (exit 1), naming the file
    code, _, err = h.retrace("chitra", PES, "--chain", "/nonexistent/dir/c.json")
    assert.equal(1, code)
    assert.truthy(err:find("/nonexistent/dir/c.json", 1, true), err)
    code = h.retrace("chitra", PES, "--params", "1,2")
    assert.equal(2, code)
    -- a trajectory longer than the simulator makes (was an out-of-memory traceback)
    code, _, err = h.retrace("chitra", PES, "--simulate", "1e12")
    assert.equal(2, code)
    assert.equal("retrace: --simulate: at most 100000000 states\n", err)
    local seq = require("retrace.core").seq
    assert.has_error(function() seq.simulate({}, seq.simulate_max + 1) end)
    os.remove(bad)
  end)
end)

describe("chitra progress while loading", function()
  -- a PES of about 2.5 MiB: more than two progress steps of 1 MiB
  local function long_pes()
    local parts = {}
    for i = 1, 200000 do parts[i] = string.format("S%d %d\n", i % 7, i) end
    return h.temp_file(table.concat(parts))
  end

  it("reports each MiB read to the Lua callback", function()
    local path = long_pes()
    local seen = {}
    local ses = assert(chitra.load(path, { progress = function(p, done, total)
      assert.equal(path, p)
      seen[#seen + 1] = { done, total }
    end }))
    local size = #h.slurp(path)
    assert.equal(199999, ses:length())
    assert.truthy(#seen >= 2 and #seen <= 4)
    assert.same({ size, size }, seen[#seen])
    assert.truthy(seen[1][1] >= 1048576 and seen[1][1] < 1048576 + 64)
    os.remove(path)
  end)

  it("the progress callback cannot use or close the session it is loading", function()
    local path = long_pes()
    local ses = require("retrace.core").seq.new()
    local tries = {}
    local calls = {
      function() ses:close() end, function() ses:clip(1, 1) end,
      function() ses:load(path) end, function() return ses:length() end,
    }
    assert.is_true(ses:load(path, function()
      for _, f in ipairs(calls) do
        local ok, err = pcall(f)
        tries[#tries + 1] = ok and "ok" or err:match("cannot use a session from its own load's progress callback")
      end
    end, 1 << 18))
    assert.truthy(#tries >= 4 * 8)
    for _, t in ipairs(tries) do
      assert.equal("cannot use a session from its own load's progress callback", t)
    end
    assert.equal(199999, ses:length()) -- loaded once, untouched by the callback
    ses:close()
    os.remove(path)
  end)

  it("shows a bar on stderr when it is a terminal, and none when it is not", function()
    local path = long_pes()
    local cmd = "env -u RETRACE_NO_PROGRESS " .. h.quote(h.bin) .. " chitra " .. h.quote(path)
    local err = os.tmpname()
    local ok = os.execute(cmd .. " >/dev/null 2>" .. err)
    assert.truthy(ok)
    assert.equal("", h.slurp(err))
    os.remove(err)
    if not os.execute("command -v script >/dev/null 2>&1") then
      pending("no 'script' to give the command a terminal")
      os.remove(path)
      return
    end
    local p = io.popen("script -qec " .. h.quote(cmd .. " 2>&1 >/dev/null") .. " /dev/null")
    local tty = p:read("a")
    p:close()
    assert.truthy(tty:find("loading " .. path .. " [", 1, true), tty)
    assert.truthy(tty:find("100%", 1, true), tty)
    os.remove(path)
  end)
end)
