--- retrace.shmap: SHMAP traces and their simulation on P PEs sharing C caches.
--
--   local shmap = require "retrace.shmap"
--   local t = assert(shmap.open("lu.shm"))      -- t:info(), t:matrices(), t:records()
--   local sim = assert(shmap.sim{ trace = "lu.shm", pes = 4, caches = 2,
--                                 cache_size = 256, line = 4, policy = "lru" })
--   sim:on_access(function(a) ... end)          -- a.pe, a.matrix, a.row, a.col, a.kind, a.hit ...
--   sim:step(10); print(sim:active().count)     -- PEs busy in the last step
--   sim:run(); local s = sim:stats()            -- s.pes, s.caches, s.totals, s.steps
--   local counts = sim:elements(1)              -- per-element loads / stores of matrix 1
--
-- PE and cache numbers are 0-based, as in the machine model (PE p uses cache
-- floor(p*C/P)); arrays are Lua arrays, so stats().pes[1] is PE 0.
local core = require("retrace.core").shmap
local vcore = require("retrace.core").shmapview

local M = {}

--- Defaults of sim{} (and of `retrace shmap`).
M.defaults = { pes = 1, caches = 1, cache_size = 1024, line = 4, ways = 0,
               policy = "lru", seed = 1, write_back = false, cache = true,
               max_elements = 1 << 24 }

--- Open a SHMAP trace (first pass over the file): trace, or nil and a message (a
-- file without a record is refused, as every other reader refuses an empty trace).
function M.open(path)
  local t, err = core.open(path)
  if t and t:info().records == 0 then
    return nil, tostring(path) .. ": empty trace: no record"
  end
  return t, err
end

--- A simulation. opts: trace (a path or an opened trace), pes, caches,
-- cache_size, line, ways (0: fully associative), policy (a built-in name, a
-- shipped Lua policy such as "mru" or "plru", a FILE.lua, or a value made by
-- retrace.cache.policy{...}; see retrace.cache), seed, write_back, cache (false: no cache),
-- max_elements (distinct elements whose counts are kept; a trace touching more is refused
-- naming the event's line). Returns the simulation,
-- or nil and a message when the trace or an option is bad.
function M.sim(opts)
  assert(type(opts) == "table", "shmap.sim: an options table expected")
  local trace = opts.trace
  if type(trace) == "string" then
    local t, err = core.open(trace)
    if not t then return nil, err end
    trace = t
  elseif trace == nil then
    error("shmap.sim: option trace is required", 2)
  end
  local o = {}
  for k, v in pairs(M.defaults) do o[k] = v end
  for k, v in pairs(opts) do
    if k ~= "trace" then
      if M.defaults[k] == nil then error("shmap.sim: unknown option '" .. tostring(k) .. "'", 2) end
      o[k] = v
    end
  end
  if o.cache then
    local pol, err = require("retrace.cache").resolve_policy(o.policy)
    if pol == nil then return nil, err end
    o.policy = pol
  end
  return core.new_sim(trace, o)
end

local function plural(n, one, many)
  return ("%d %s"):format(n, n == 1 and one or (many or one .. "s"))
end

--- Text report of a finished (or paused) simulation: SHMAP's INFO output.
-- stats: sim:stats(); machine: the options used (for the heading); info: trace:info().
function M.report(stats, machine, info)
  local out = {}
  local function add(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  if info then
    add("trace %s: %s, %s (%s, %s), %s, %s", info.file, plural(info.matrices, "matrix", "matrices"),
      plural(info.events, "event"), plural(info.loads, "load"), plural(info.stores, "store"),
      plural(info.sections, "parallel section"), plural(info.groups, "group"))
    add("trace time %g (smallest step %g)", info.time_last, info.min_step)
  end
  if machine then
    if machine.cache == false then
      add("machine: %s, no cache", plural(machine.pes, "PE"))
    else
      local ways = (machine.ways or 0) == 0 and "fully associative" or (machine.ways .. "-way")
      local pol = type(machine.policy) == "string" and machine.policy
        or (type(machine.policy) == "table" and machine.policy.name) or "lua policy"
      add("machine: %s, %s of %d words, lines of %d words, %s, %s, %s",
        plural(machine.pes, "PE"), plural(machine.caches, "cache"), machine.cache_size, machine.line, ways, pol,
        machine.write_back and "write-back" or "write-through")
    end
  end
  add("")
  add("%4s %5s %12s %12s %14s  %-12s %s", "PE", "cache", "loads", "stores", "flops", "subroutine", "last message")
  for i, p in ipairs(stats.pes) do
    add("%4d %5s %12d %12d %14d  %-12s %s", i - 1, p.cache >= 0 and tostring(p.cache) or "-",
      p.loads, p.stores, p.flops, p.subroutine, p.info)
  end
  if #stats.caches > 0 then
    add("")
    add("%5s %12s %12s %10s", "cache", "hits", "misses", "hit ratio")
    for i, c in ipairs(stats.caches) do
      add("%5d %12d %12d %9.2f%%", i - 1, c.hits, c.misses, 100 * c.hit_ratio)
    end
  end
  local t = stats.totals
  add("")
  add("total: %d loads, %d stores, %d flops", t.loads, t.stores, t.flops)
  if #stats.caches > 0 then
    add("cache total: %d hits, %d misses, hit ratio %.2f%%", t.hits, t.misses, 100 * t.hit_ratio)
  end
  add("steps: %d", stats.steps)
  return table.concat(out, "\n") .. "\n"
end

-- ---- the animation's view --------------------------------------------------------

--- The layout of the memory canvases (a pure function): matrices {{rows=, cols=}...}
-- in ID order on a w x h canvas with `gap` pixels (2) between regions. Returns
-- {f =, k =, rows =, hidden =, w =, h =, gap =, regions = {{x, y, w, h, cw, ch, row, shown, rows, cols}}}:
-- f pixels per cell, k x k elements per cell (1 unless even f = 1 does not fit).
function M.regions(matrices, w, h, gap)
  return vcore.regions(matrices, w, h, gap)
end

--- The cache window's layout (pure): ncaches caches of `words` words in lines of
-- `line` words within w x h, gap pixels around regions, closest to `aspect` (w/h).
function M.cache_layout(ncaches, words, line, w, h, gap, aspect)
  return vcore.cache_layout(ncaches, words, line, w, h, gap, aspect)
end

local View = {}
View.__index = View

--- The view of a simulation: the state SHMAP's animation shows, kept in C as the
-- simulation runs (best made before its first step). opts:
--   shades (K, 4), fade (F, trace time, 1);
--   memory = true | {w =, h =, gap =, max_cells =}  load and store grids (w x h: a canvas)
--   cache = true | {w =, h =, gap =, aspect =, per_row =}
--   active = true | {keep =}     refs = true | {rows =, len =}   timeline = true | {w =, h =}
-- A panel left out collects nothing. Returns the view, or nil and a message.
-- view:grids() -> {loads = {grid|false ...}, stores, caches, refs, refs_overflow, timeline}
-- (canvas grids, drawn with cv:grid; cells PE*(K+1)+shade, -1 empty), view:layout(),
-- view:info() -> {step, time, clock, flashes, frame_flashes, lit, bytes, active, ...},
-- view:state() (the --state document), view:new_frame(), view:close().
function M.view(sim, opts)
  opts = opts or {}
  local c, err = vcore.new(sim, opts)
  if not c then return nil, err end
  return setmetatable({ c = c, sim = sim, shades = opts.shades or 4, fade = opts.fade or 1,
                        opts = opts }, View)
end

for _, k in ipairs({ "layout", "info", "refs_rows", "new_frame", "flash_rects",
                     "active_rects", "active_steps", "sync" }) do
  View[k] = function(self, ...) return self.c[k](self.c, ...) end
end

--- The view's grids, up to date (the same grid objects on every call: they are
-- made once; later calls only bring them up to date).
function View:grids()
  if self.grid_set then
    self.c:sync()
  else
    self.grid_set = self.c:grids()
  end
  return self.grid_set
end

function View:close() self.c:close() end

-- rows x cols list of lists of a grid's cells (row r, column c -> [r+1][c+1]).
local function grid_rows(g, w, h)
  local out = {}
  for y = 0, h - 1 do
    local row = {}
    for x = 0, w - 1 do row[x + 1] = g:get(x, y) end
    out[y + 1] = row
  end
  return out
end

--- The view's state as the --state document: {step, time, active = {PE...},
-- flashes (counted since the start), matrices = {{id, rows, cols, loads = [r][c],
-- stores}}, caches = {{cell per word}}, refs = {{PE...} per histogram row}, layout}.
-- Cells are PE*(K+1)+shade or -1; loads[r][c] is cell row r, column c (elements when
-- layout.k is 1). matrices: the trace's matrix list (trace:matrices()); cache_words:
-- the words of a cache (the grid may have a part-empty last row).
function View:state(matrices, cache_words)
  local info, lay, g = self:info(), self:layout(), self:grids()
  local st = { step = info.step, time = info.time, active = info.active, flashes = info.flashes,
               frame_flashes = info.frame_flashes, shades = self.shades, fade = self.fade,
               matrices = {}, caches = {}, refs = {}, layout = lay }
  for i, m in ipairs(matrices or {}) do
    local e = { id = m.id, rows = m.rows, cols = m.cols }
    local lg, sg = g.loads[i], g.stores[i]
    if lg then
      local w, h = lg:size()
      e.loads, e.stores = grid_rows(lg, w, h), grid_rows(sg, w, h)
    end
    st.matrices[i] = e
  end
  local words = cache_words
  for i, cg in ipairs(g.caches) do
    if cg then
      local w, h = cg:size()
      local n = words or w * h
      local list = {}
      for k = 0, n - 1 do list[k + 1] = cg:get(k % w, k // w) end
      st.caches[i] = list
    end
  end
  st.refs = self:refs_rows() or {}
  return st
end

return M
