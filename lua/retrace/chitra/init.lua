--- retrace.chitra: program execution sequences, transforms with undo, semi-Markov chains.
--
--   local chitra = require "retrace.chitra"
--   local ses = assert(chitra.load("run.pes"))           -- or chitra.load{"a.pes", "b.pes"}
--   ses:clip(8, 8); ses:undo()
--   ses:aggregate({"R2A2", "TA2", "TE"}, "Z")           -- or ses:aggregate("R2A2,TA2,TE", "Z")
--   ses:project({"A1R1", "A2R1", "A2R2"}, "AR")          -- a set to one symbol
--   ses:project_components{A1 = "A", A2 = "A", R1 = "R", R2 = "R"}
--   ses:filter_time(0.147); ses:filter_event(2)
--   ses:symbols(), ses:times(), ses:history(), ses:composites()
--   local chain = ses:chain()                            -- see retrace.chitra.chain
--   local spec = ses:periodogram{domain = "event"}       -- {freq = {...}, power = {...}}
--
-- Transforms apply to every member of the ensemble at once and return the session
-- (so they chain), or nil and a message when the parameters make no sense.
local core = require("retrace.core").seq
local chain_mod = require "retrace.chitra.chain"

local M = {}

local Ses = {}
Ses.__index = Ses
Ses.__tostring = function(self)
  local ok, n = pcall(self.core.members, self.core)
  if not ok then return "retrace.chitra session (closed)" end
  local len = 0
  for k = 1, n do len = len + self.core:length(k) end
  return string.format("retrace.chitra session (%d member%s, %d symbols, %d transforms)", n,
    n == 1 and "" or "s", len, self.core:depth())
end

--- Load one PES file or a list of them (an ensemble). Returns a session or nil, message.
-- opts.components: Lua pattern of one state component (default "%u%d*": "A2T" = A2, T);
-- opts.progress: function(path, bytes_read, file_size) called every opts.progress_step
-- bytes (1 MiB) of a long file and once at its end.
-- s:METHOD(path) of the core session, with opts.progress(path, done, total) every
-- opts.progress_step bytes when given (load, pes_chain).
local function read(s, method, path, opts)
  local progress = opts and opts.progress
  if not progress then return s[method](s, path) end
  return s[method](s, path, function(done, total) progress(path, done, total) end, opts.progress_step)
end

function M.load(paths, opts)
  if type(paths) == "string" then paths = { paths } end
  local s = core.new()
  for _, p in ipairs(paths) do
    local ok, err = read(s, "load", p, opts)
    if not ok then s:close() return nil, err end
  end
  return M.wrap(s, paths, opts)
end

-- The note of a step leaving one symbol (step() below), from the symbols left.
local function one_symbol_note(hist, names)
  return string.format("%s: the whole sequence is now one symbol (%s); its chain has one state", hist, names)
end

--- The chain of one PES file without holding its sequence (memory grows with the
-- distinct states and arcs, not with the length): a read-only session that answers
-- what a report of the file as loaded needs - members() (1), length(1), history()
-- (none), chain() (the same chain chitra.load(path):chain() gives), files, notes -
-- and has no transforms (s.streamed is true). nil, message as load. opts.progress,
-- opts.progress_step: as load's.
-- opts.clip = {ni, nf}: the chain after clip(ni, nf), the one transform a stream can
-- apply (the last nf states are held back until the end: memory grows with nf); its
-- history and note are the loaded session's. nil, message, "empty" when the clip leaves
-- nothing (load the file then).
function M.stream(path, opts)
  opts = opts or {}
  if opts.steps then return M.stream_steps(path, opts) end
  local s = core.new()
  local raw, n
  local clip = opts.clip
  if clip then
    local progress = opts.progress
    raw, n = s:pes_chain(path, progress and function(done, total) progress(path, done, total) end or nil,
      opts.progress_step, clip[1], clip[2])
  else
    raw, n = read(s, "pes_chain", path, opts)
  end
  s:close()
  if not raw then
    return nil, n, clip and tostring(n):find("clip: nothing left", 1, true) and "empty" or nil
  end
  local chain = chain_mod.from_raw(raw)
  local history, notes = {}, {}
  if clip then
    history[1] = ("clip %d %d"):format(clip[1], clip[2])
    local only -- the note of a transform leaving one symbol (step() below)
    for _, x in ipairs(chain.states) do
      if x.name ~= chain.other then
        if only then only = false break end
        only = x.name
      end
    end
    if only then
      notes[1] = one_symbol_note(history[1], only)
    end
  end
  return M.streamed(path, chain, n, history, notes)
end

-- The read-only session of a streamed chain (M.stream).
function M.streamed(path, chain, n, history, notes)
  local st = { files = { path }, notes = notes, steps = {}, streamed = true }
  function st.members() return 1 end
  function st.length(_, k) return k == 1 and n or nil end
  function st.history() return history end
  function st.chain(_, o)
    if o and o.members and not (#o.members == 1 and o.members[1] == 1) then
      return nil, "chain: no such member"
    end
    return chain
  end
  function st.close() end
  return st
end

-- 1 when a step after a filter names a composite T<k> the filter may make (the stream
-- names a filter's composites only as it reads: the loaded session answers then).
local function names_composite(steps)
  local filtered = false
  for _, st in ipairs(steps) do
    if st[1] == "filter_time" or st[1] == "filter_event" then
      filtered = true
    elseif filtered then
      for _, v in ipairs(st) do
        for _, x in pairs(type(v) == "table" and v or { v }) do
          if tostring(x):match("^T%d+$") then return true end
        end
        for x in pairs(type(v) == "table" and v or {}) do
          if tostring(x):match("^T%d+$") then return true end
        end
      end
    end
  end
  return false
end

--- The chain of one PES file after transforms, never holding the sequence: opts.steps
-- lists them as chitra's command line does ({"clip", NI, NF}, {"project", {A, B}, Z},
-- {"aggregate", {A, B}, Z}, {"project_components", {C = D}}, {"filter_time", P},
-- {"filter_event", N}, {"undo"}). The file is read once for its names, on which the
-- steps are planned by the session's own methods (their checks, notes and history),
-- then as a stream through the transforms (core rt_pes_chain_ops); a filter, a
-- component projection and an undo each read it once more (the totals of the
-- sequence they take). nil, message, "empty" when the stream cannot give the loaded
-- session's answer (a step refused, a clip too long, nothing left): load the file
-- then, for the same message.
function M.stream_steps(path, opts)
  -- read more than once: a pipe or FIFO cannot be, load it instead
  if require("lfs").attributes(path, "mode") ~= "file" then return nil, "not a file", "empty" end
  if names_composite(opts.steps) then return nil, "composite names", "empty" end
  local progress = opts.progress and function(done, total) opts.progress(path, done, total) end or nil
  local s = core.new()
  local n0, err = s:pes_names(path, progress, opts.progress_step)
  if not n0 then s:close() return nil, err end
  local plan = M.wrap(s, { path }, opts)
  -- the symbols present after the steps so far (a component projection maps those)
  -- ops[i]: plan.steps[i] as the stream applies it (a component projection: its symbol map)
  local ops, cached = {}, nil
  local function current()
    local o = {}
    for i = 1, #plan.steps do o[i] = ops[i] end
    return o
  end
  plan.present = function(self)
    cached = cached or self.core:pes_totals_ops(path, progress, opts.progress_step, current()) or false
    return cached or {}
  end
  local marks = {} -- marks[i]: the notes made up to step i
  for _, step in ipairs(opts.steps) do
    local before = #plan.steps
    local kind, ok, map = step[1], nil, nil
    cached = nil
    if kind == "project_components" or kind == "undo" then
      -- the steps so far, read: a clip too long is refused here as the loaded session would
      plan:present()
      if not cached then s:close() return nil, "refused", "empty" end
    end
    if kind == "project_components" and type(step[2]) == "table" then
      map = plan:component_map(step[2]) -- (the same map the step makes, from the totals cached)
    end
    if kind == "filter_time" or kind == "filter_event" then
      ok = type(step[2]) == "number" and s:plan_filter(kind == "filter_time" and "time" or "event", step[2])
      if ok then plan.steps[#plan.steps + 1] = { kind, step[2] } end
    elseif kind == "undo" and #plan.steps > 0 then
      -- the step undone said so if it left one symbol: its totals tell
      local totals = plan:present()
      local only, nsym = nil, 0
      for name in pairs(totals) do only, nsym = name, nsym + 1 end
      if nsym == 1 then -- (said right after the step's own notes)
        local hist = s:history()
        table.insert(plan.notes, marks[#plan.steps] + 1, one_symbol_note(hist[#hist], only))
      end
      ok = plan:undo()
    else
      ok = plan[kind](plan, table.unpack(step, 2))
    end
    if not ok then s:close() return nil, "refused", "empty" end
    if #plan.steps > before then
      marks[#plan.steps] = #plan.notes -- (a no-op adds a note only)
      ops[#plan.steps] = map and { "project", map } or plan.steps[#plan.steps]
    end
  end
  local raw, n, outs = s:pes_chain_ops(path, progress, opts.progress_step, current())
  if not raw then s:close() return nil, n, "empty" end
  local history = s:history()
  local notes, from = {}, 1
  for i = 1, #plan.steps do
    for j = from, marks[i] do notes[#notes + 1] = plan.notes[j] end
    from = marks[i] + 1
    if outs[i].distinct == 1 then -- (step() below)
      notes[#notes + 1] = one_symbol_note(history[i], outs[i].first)
    end
  end
  for j = from, #plan.notes do notes[#notes + 1] = plan.notes[j] end
  s:close()
  return M.streamed(path, chain_mod.from_raw(raw), n, history, notes)
end

--- A session from memory: members = {{label=, states={...}, times={...}}, ...}.
function M.from_states(members, opts)
  local s = core.new()
  local labels = {}
  for i, m in ipairs(members) do
    labels[i] = m.label or ("member" .. i)
    local ok, err = s:add(labels[i], m.states, m.times)
    if not ok then s:close() return nil, err end
  end
  return M.wrap(s, labels, opts)
end

--- Wrap a core session (retrace.core.seq) in the friendly object.
function M.wrap(s, files, opts)
  opts = opts or {}
  return setmetatable({ core = s, files = files or {}, components = opts.components or "%u%d*",
                        separator = opts.separator, steps = {}, notes = {} }, Ses)
end

local function split_list(v)
  if type(v) == "table" then return v end
  local out = {}
  for item in tostring(v):gmatch("[^,%s]+") do out[#out + 1] = item end
  return out
end
M.split_list = split_list

--- Remarks the transforms made on the way (a symbol absent, a sequence collapsed
-- into one symbol), oldest first; each is also what a command prints as a note.
function Ses:note(text) self.notes[#self.notes + 1] = text end

-- Every transform goes through here: call the core, record the step for replay,
-- and say so when the step leaves a single symbol (the chain has one state then).
local function step(self, record, ok, err)
  if not ok then return nil, err end
  self.steps[#self.steps + 1] = record
  if self.core:distinct() == 1 then
    local hist = self.core:history()
    self:note(one_symbol_note(hist[#hist], self.core:symbols(1)[1] or "?"))
  end
  return self
end

-- The names of list that are no symbol of the session (in list order).
local function absent(self, list)
  local out = {}
  for _, name in ipairs(list) do
    if not self.core:lookup(name) then out[#out + 1] = name end
  end
  return out
end

function Ses:clip(ni, nf)
  if math.type(ni) ~= "integer" or math.type(nf) ~= "integer" then
    return nil, "clip: n_i and n_f must be integers"
  end
  return step(self, { "clip", ni, nf }, self.core:clip(ni, nf))
end

function Ses:aggregate(pattern, name)
  pattern = split_list(pattern)
  if #pattern == 0 then return nil, "aggregate: the pattern is empty" end
  -- a pattern with a symbol the sequence never had cannot occur: nothing to do (a
  -- recipe written for another run stays replayable)
  local missing = absent(self, pattern)
  if #missing > 0 then
    self:note(string.format("aggregate %s=%s: no symbol %s in the sequence; nothing aggregated",
      table.concat(pattern, ","), tostring(name), table.concat(missing, ", ")))
    return self
  end
  return step(self, { "aggregate", pattern, name }, self.core:aggregate(pattern, name))
end

--- project(set, name): every symbol of set becomes name (runs merged);
-- project(map): a table {from = to, ...} in one step.
function Ses:project(set, name)
  local map = {}
  if name then
    set = split_list(set)
    if #set == 0 then return nil, "project: the set of symbols is empty" end
    for _, s in ipairs(set) do map[s] = name end
  else
    map = set
    if next(map) == nil then return nil, "project: the set of symbols is empty" end
  end
  -- symbols the sequence never had are left out of the map, with a note
  local froms = {}
  for from in pairs(map) do froms[#froms + 1] = from end
  table.sort(froms)
  local missing = absent(self, froms)
  if #missing > 0 then
    local kept = {}
    for from, to in pairs(map) do kept[from] = to end
    for _, m in ipairs(missing) do kept[m] = nil end
    self:note(string.format("project: no symbol %s in the sequence; %s", table.concat(missing, ", "),
      next(kept) and "projected the others" or "nothing projected"))
    if next(kept) == nil then return self end
    map = kept
  end
  return step(self, { "project", map }, self.core:project(map))
end

--- Split a symbol into its state components; nil when it does not decompose.
function Ses:split(sym)
  if self.separator then
    local parts = {}
    for c in (sym .. self.separator):gmatch("(.-)" .. self.separator:gsub("%p", "%%%0")) do
      parts[#parts + 1] = c
    end
    return parts
  end
  local parts, pos = {}, 1
  while pos <= #sym do
    -- (a malformed pattern fails only where the matcher reaches it: said once, no traceback)
    local ok, a, b = pcall(string.find, sym, self.components, pos)
    if not ok then
      self.pattern_error = ("component pattern '%s': %s"):format(self.components, tostring(a):gsub("^.-:%d+: ", ""))
      return nil
    end
    if a ~= pos or b < a then return nil end
    parts[#parts + 1] = sym:sub(a, b)
    pos = b + 1
  end
  return parts
end

--- The symbol map that a component map induces on the symbols present.
function Ses:component_map(cmap)
  local totals = self.present and self:present() or self.core:totals()
  local map, n = {}, 0
  for sym in pairs(totals) do
    local parts = self:split(sym)
    if parts then
      local changed = false
      for i, c in ipairs(parts) do
        if cmap[c] then parts[i] = cmap[c]; changed = true end
      end
      if changed then
        map[sym] = table.concat(parts, self.separator or "")
        n = n + 1
      end
    end
  end
  return map, n
end

--- Component projection: {A1 = "A", A2 = "A", ...} applied to every component of
-- every state, as one projection step (set projections built from the map).
function Ses:project_components(cmap)
  if type(cmap) ~= "table" or next(cmap) == nil then
    return nil, "project_components: the component map is empty"
  end
  local map, n = self:component_map(cmap)
  if self.pattern_error then return nil, self.pattern_error end
  if n == 0 then
    self:note("project_components: no state has a component in the map; nothing projected")
    return self
  end
  return step(self, { "project_components", cmap }, self.core:project(map))
end

function Ses:filter_time(p)
  if type(p) ~= "number" then return nil, "filter_time: p must be a number" end
  return step(self, { "filter_time", p }, self.core:filter_time(p))
end

function Ses:filter_event(p)
  if type(p) ~= "number" then return nil, "filter_event: p must be a number" end
  return step(self, { "filter_event", p }, self.core:filter_event(p))
end

function Ses:undo()
  local ok, err = self.core:undo()
  if not ok then return nil, err end
  self.steps[#self.steps] = nil
  return self
end

--- Descriptions of the transforms applied, oldest first.
function Ses:history() return self.core:history() end

--- The transforms applied, as a recipe (replayable with ses:apply).
function Ses:recipe()
  local out = {}
  for i, s in ipairs(self.steps) do out[i] = s end
  return out
end

function Ses:members() return self.core:members() end
function Ses:length(k) return self.core:length(k) end
function Ses:symbols(k) return self.core:symbols(k) end
function Ses:times(k) return self.core:times(k) end
function Ses:entries(k) return self.core:entries(k) end
function Ses:close() self.core:close() end

-- What the views read, answered by the core (retrace.core.seq, bindings/lseq.c)
-- without copying the sequence into Lua: rows, view_span, view_slice, view_columns,
-- view_segments, view_shade (time and event views, decimated to pixel columns),
-- spectrum (a periodogram reduced to pixel columns), write_csv (the sequence as
-- CSV), depth (transforms applied), totals (per-symbol count and time, and T),
-- occupancy_hist (a symbol's occupancy times binned in C).
for _, name in ipairs { "rows", "view_span", "view_slice", "view_columns", "view_segments",
                        "view_shade", "spectrum", "write_csv", "depth", "totals", "distinct",
                        "occupancy_hist" } do
  Ses[name] = function(self, ...)
    local core = self.core
    return core[name](core, ...)
  end
end

--- Per-symbol statistics pooled over the ensemble: {name = {count=, h=, share=}}, T.
function Ses:stats()
  local totals, T = self.core:totals()
  for _, v in pairs(totals) do v.share = T > 0 and v.h / T or 0 end
  return totals, T
end

--- Occupancy times of one symbol (all occurrences, all members).
function Ses:occupancy(sym) return self.core:occupancy(sym) end

--- All occurrences of a pattern (non-overlapping, left to right) with their share
-- of the events and of the time: {count=, events_share=, time_share=, occurrences={{member, start}}}.
function Ses:find(pattern)
  pattern = split_list(pattern)
  if #pattern == 0 then return nil, "find: the pattern is empty" end
  local count, time, occ = self.core:find(pattern)
  if not count then return nil, time end
  local events = 0
  for k = 1, self.core:members() do events = events + self.core:length(k) end
  local _, T = self.core:totals()
  return { pattern = pattern, count = count, time = time, occurrences = occ,
           events_share = events > 0 and count * #pattern / events or 0,
           time_share = T > 0 and time / T or 0 }
end

--- The semi-Markov chain (OTHER appended per member, statistics pooled).
-- opts.members: a list of member numbers (default all).
function Ses:chain(opts)
  local raw, err = self.core:chain(opts and opts.members)
  if not raw then return nil, err end
  return chain_mod.from_raw(raw)
end

--- Composite definitions: {name = {{original symbols...}, ...}} for the composites present.
function Ses:composites()
  local c = assert(self:chain())
  return c:definitions()
end

--- Periodogram of the state signal: opts.member (1), opts.domain ("event" | "time"),
-- opts.samples (time domain sample count). Returns {freq=, power=, domain=}.
function Ses:periodogram(opts)
  opts = opts or {}
  local domain = opts.domain or "event"
  if domain ~= "event" and domain ~= "time" then
    return nil, "periodogram: domain must be 'event' or 'time'"
  end
  local f, p = self.core:periodogram(opts.member or 1, domain, opts.samples)
  if not f then return nil, p end
  return { freq = f, power = p, domain = domain }
end

--- Apply a recipe: a list of steps {"clip", 8, 8}, {"filter_time", 0.1}, ... or a
-- function(ses). Returns the session or nil, message (at the failing step).
function Ses:apply(recipe)
  if type(recipe) == "function" then
    local ok, err = recipe(self)
    if ok == nil and err then return nil, err end
    return self
  end
  for i, s in ipairs(recipe) do
    local f = Ses[s[1]]
    if type(f) ~= "function" or s[1] == "apply" then
      return nil, string.format("recipe step %d: unknown transform '%s'", i, tostring(s[1]))
    end
    local ok, err = f(self, table.unpack(s, 2))
    if not ok then return nil, string.format("recipe step %d: %s", i, err) end
  end
  return self
end

--- Load a recipe: a Lua file returning a list of steps or a function; a bare name is
-- looked up in retrace/chitra/recipes/. Returns the recipe or nil, message.
function M.recipe(path)
  local chunk, err = loadfile(path)
  if not chunk and not path:find("[/.]") then
    local ok, r = pcall(require, "retrace.chitra.recipes." .. path)
    if ok then return r end
    return nil, "recipe '" .. path .. "' not found: " .. err
  end
  if not chunk then return nil, err end
  local ok, r = pcall(chunk)
  if not ok then return nil, path .. ": " .. tostring(r) end
  if type(r) ~= "table" and type(r) ~= "function" then
    return nil, path .. ": a recipe returns a list of steps or a function"
  end
  return r
end

--- The JSON document of the session: symbols, times, chain, composites (and their
-- acyclic chains), history. chain: the session's self:chain() when the caller has it
-- already (it is not built again). array: a function marking the lists that must stay
-- JSON arrays when empty (a JSON writer's, e.g. retrace.cli's array; default: none).
function Ses:to_table(chain, array)
  local c = chain or assert(self:chain())
  array = array or function(t) return t end
  local doc = { files = self.files, history = array(self:history()), chain = c:to_table(),
                composites = c:definitions(), composite_chains = array(c.composites) }
  if self.core:members() == 1 then
    doc.symbols, doc.times = array(self.core:symbols(1)), array(self.core:times(1))
  else
    doc.symbols, doc.times = {}, {}
    for k = 1, self.core:members() do
      doc.symbols[k], doc.times[k] = array(self.core:symbols(k)), array(self.core:times(k))
    end
  end
  return doc
end

M.Ses = Ses
M.chain = chain_mod
return M
