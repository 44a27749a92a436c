-- The SHMAP simulator against a slow, obviously right model written here in
-- Lua (scheduler straight from the rules, LRU caches as lists), on random
-- traces with groups, parallel sections, matrix definitions anywhere (at the
-- top, inside groups and sections, at the end) and several PEs and caches.
local h = require "helpers"
local shmap = require "retrace.shmap"

-- A random trace: the matrices (the nmat referenced ones first, then the spare
-- ones that only a definition event names) and a list of pieces; each piece
-- {parallel=bool, tasks={ {events} }}. A referenced matrix is defined at the
-- top (early) or just before its first reference; an event {op=0} defines a
-- spare matrix where it stands.
local function random_trace(rng, nmat)
  local mats = {}
  for id = 1, nmat do
    mats[id] = { id = id * 3, rows = rng(1, 9), cols = rng(1, 6), early = rng(1, 2) == 1 }
  end
  local function event()
    if rng(1, 8) == 1 then -- a spare matrix, its ID between the others
      local m = { id = 3 * (#mats - nmat) + 1, rows = rng(1, 9), cols = rng(1, 6), spare = true }
      mats[#mats + 1] = m
      return { op = 0, m = m }
    end
    local m = mats[rng(1, nmat)]
    local r1 = rng(1, m.rows); local r2 = rng(r1, m.rows)
    local c1 = rng(1, m.cols); local c2 = rng(c1, m.cols)
    local op = rng(1, 10)
    if op <= 5 then return { op = 1, m = m, r1 = r1, r2 = r2, c1 = c1, c2 = c2 } end
    if op <= 8 then return { op = 2, m = m, r1 = r1, r2 = r2, c1 = c1, c2 = c2 } end
    if op == 9 then return { op = 5, m = m, flops = rng(0, 50) } end
    return { op = 3, m = m }
  end
  local function task()
    local t = {}
    for _ = 1, (rng(1, 3) == 1 and 1 or rng(1, 5)) do t[#t + 1] = event() end
    return t
  end
  local pieces = {}
  for _ = 1, rng(5, 25) do
    if rng(1, 2) == 1 then
      local tasks = {}
      for _ = 1, rng(1, 9) do tasks[#tasks + 1] = task() end
      pieces[#pieces + 1] = { parallel = true, tasks = tasks }
    else
      pieces[#pieces + 1] = { parallel = false, tasks = { task() } }
    end
  end
  return mats, pieces
end

-- Writes the trace; counts into seen where its definitions stood (group,
-- section outside any group, a task of definitions only).
local function write_trace(path, mats, pieces, seen)
  local f = assert(io.open(path, "w"))
  local defined = {}
  local in_group, in_section = false, false
  local function define(m)
    f:write(("0 %d %d %d\n"):format(m.id, m.rows, m.cols))
    defined[m] = true
    if in_group then seen.group = seen.group + 1
    elseif in_section then seen.section = seen.section + 1 end
  end
  for i = #mats, 1, -1 do -- definitions out of ID order
    if mats[i].early then define(mats[i]) end
  end
  local t = 0
  local function ev(e)
    if not defined[e.m] then define(e.m) end -- a late or spare definition
    if e.op == 0 then
      -- the definition itself
    elseif e.op == 1 or e.op == 2 then
      t = t + 1
      f:write(("%d %d %d %d %d %d %d\n"):format(e.op, e.m.id, e.r1, e.r2, e.c1, e.c2, t))
    elseif e.op == 5 then
      f:write(("5 %d %d sub%d\n"):format(e.m.id, e.flops, e.flops))
    else
      f:write(("3 %d note\n"):format(e.m.id))
    end
  end
  local function task(tk)
    local only_defs = true
    for _, e in ipairs(tk) do only_defs = only_defs and e.op == 0 end
    if only_defs then seen.empty_task = seen.empty_task + 1 end
    if #tk == 1 and tk.lone then ev(tk[1]) return end
    f:write("8 g\n")
    in_group = true
    for _, e in ipairs(tk) do ev(e) end
    in_group = false
    f:write("9 g\n")
  end
  for _, p in ipairs(pieces) do
    if p.parallel then f:write("6 par\n") end
    in_section = p.parallel
    for _, tk in ipairs(p.tasks) do task(tk) end
    in_section = false
    if p.parallel then f:write("7 par\n") end
  end
  for _, m in ipairs(mats) do -- never referenced: defined at the end
    if not defined[m] then define(m) end
  end
  f:close()
end

-- The model. Definitions are not events: a task keeps its other events, a task
-- left without events is no task, a piece left without tasks is no piece.
local function model(mats, pieces, P, C, S, L)
  local sorted = {}
  for _, m in ipairs(mats) do sorted[#sorted + 1] = m end
  table.sort(sorted, function(a, b) return a.id < b.id end)
  local base, at = {}, 0
  for _, m in ipairs(sorted) do
    at = (at + L - 1) // L * L
    base[m] = at
    at = at + m.rows * m.cols
  end
  local caches = {}
  for c = 1, C do caches[c] = { lines = {}, hits = 0, misses = 0 } end -- lines: most recent last
  local pes = {}
  for p = 1, P do pes[p] = { loads = 0, stores = 0, flops = 0, events = 0 } end
  local function lookup(cache, line)
    for i, l in ipairs(cache.lines) do
      if l == line then
        table.remove(cache.lines, i)
        cache.lines[#cache.lines + 1] = line
        cache.hits = cache.hits + 1
        return
      end
    end
    cache.misses = cache.misses + 1
    if #cache.lines == S // L then table.remove(cache.lines, 1) end
    cache.lines[#cache.lines + 1] = line
  end
  local function exec(p, e)
    local pe = pes[p]
    pe.events = pe.events + 1
    if e.op == 5 then pe.flops = pe.flops + e.flops end
    if e.op ~= 1 and e.op ~= 2 then return end
    local cache = caches[(p - 1) * C // P + 1]
    for c = e.c1, e.c2 do
      for r = e.r1, e.r2 do
        if e.op == 1 then
          pe.loads = pe.loads + 1
          lookup(cache, (base[e.m] + (c - 1) * e.m.rows + (r - 1)) // L)
        else
          pe.stores = pe.stores + 1
        end
      end
    end
  end
  local all = {}
  for _, p in ipairs(pieces) do
    local tasks = {}
    for _, t in ipairs(p.tasks) do
      local events = {}
      for _, e in ipairs(t) do
        if e.op ~= 0 then events[#events + 1] = e end
      end
      if #events > 0 then tasks[#tasks + 1] = events end
    end
    if #tasks > 0 then all[#all + 1] = { parallel = p.parallel, tasks = tasks } end
  end
  local steps = 0
  for _, piece in ipairs(all) do
    local next_task, held = 1, {}
    local ntasks = #piece.tasks
    while true do
      for p = 1, (piece.parallel and P or 1) do
        if not held[p] and next_task <= ntasks then
          held[p] = { events = piece.tasks[next_task], pos = 1 }
          next_task = next_task + 1
        end
      end
      local any = false
      for p = 1, P do
        local t = held[p]
        if t then
          any = true
          exec(p, t.events[t.pos])
          t.pos = t.pos + 1
          if t.pos > #t.events then held[p] = nil end
        end
      end
      if not any then break end
      steps = steps + 1
    end
  end
  return pes, caches, steps
end

describe("the SHMAP simulator against a Lua model", function()
  it("agrees on random traces, machines and LRU caches", function()
    local seed = 12345
    local function rng(a, b) -- a small LCG, so that runs are reproducible everywhere
      seed = (seed * 1103515245 + 12345) % 2147483648
      return a + seed % (b - a + 1)
    end
    local seen = { group = 0, section = 0, empty_task = 0 }
    for trial = 1, 40 do
      local mats, pieces = random_trace(rng, rng(1, 3))
      for _, p in ipairs(pieces) do
        for _, t in ipairs(p.tasks) do t.lone = #t == 1 and rng(1, 2) == 1 end
      end
      local path = h.temp_file("")
      write_trace(path, mats, pieces, seen)
      local P = ({ 1, 2, 3, 4, 8 })[rng(1, 5)]
      local C = rng(1, P)
      local L = ({ 1, 2, 4 })[rng(1, 3)]
      local S = L * ({ 2, 4, 8 })[rng(1, 3)]
      local pes, caches, steps = model(mats, pieces, P, C, S, L)
      for _, policy in ipairs { "lru", "lua_lru" } do
        local sim = assert(shmap.sim{ trace = path, pes = P, caches = C, cache_size = S, line = L,
                                      policy = policy })
        sim:run()
        local st = sim:stats()
        local what = ("trial %d, %s, P=%d C=%d S=%d L=%d"):format(trial, policy, P, C, S, L)
        assert.are.equal(steps, st.steps, what)
        for p = 1, P do
          assert.are.same(pes[p], { loads = st.pes[p].loads, stores = st.pes[p].stores,
                                    flops = st.pes[p].flops, events = st.pes[p].events }, what)
        end
        for c = 1, C do
          assert.are.same({ caches[c].hits, caches[c].misses },
            { st.caches[c].hits, st.caches[c].misses }, what)
        end
        sim:close()
      end
      os.remove(path)
    end
    -- the random traces did put definitions where the rule matters
    assert.is_true(seen.group > 0 and seen.section > 0 and seen.empty_task > 0)
  end)
end)
