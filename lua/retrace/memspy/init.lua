--- retrace.memspy: MemSpy's code x data memory-bottleneck statistics.
--
--   local memspy = require "retrace.memspy"
--   local run = memspy.run{ trace = "mm.msp", procs = 1, size = 32768, line = 64 }
--   print(memspy.format_header(run)); print(memspy.format_matrix(run:matrix()))
--   print(memspy.format_detail(run:detail{ code = "BlkMultiply", data = "Matrix.Y" }))
--   run:rename("double*.a", "A"); run:combine("vectors", { "x", "b" })
--   local t = run:to_table()        -- the JSON shape of `retrace memspy --json`
--
-- A run is plain data: the engine (core/memspy) ran the whole trace and its
-- statistical bins were copied out; renames and combinations rework those
-- tables, so the REPL is MemSpy's interactive command loop. memspy.from_table
-- rebuilds a run from saved JSON (compare: memspy.compare{runs}).
local core = require "retrace.core"

local M = {}

local Run = {}
Run.__index = Run
Run.__tostring = function(r)
  return string.format("retrace.memspy.Run: %d code segments x %d data bins, %d references, %d misses",
    #r.code, #r.data, r.totals.refs or 0, r.totals.misses or 0)
end

local COUNT_KEYS = { "refs", "reads", "writes", "misses", "read_misses", "write_misses", "first",
  "replacement", "invalidation", "stall", "read_stall", "write_stall", "remote" }
M.count_keys = COUNT_KEYS

-- misses per level of the machine ({L1, L2, ...}): added into dst.level_misses
local function add_levels(dst, src)
  if not src.level_misses then return end
  dst.level_misses = dst.level_misses or {}
  for l, n in ipairs(src.level_misses) do dst.level_misses[l] = (dst.level_misses[l] or 0) + n end
end

local function new_run(r)
  -- full names by short name (renames and combinations move them)
  r.full = r.full or {}
  for i, n in ipairs(r.data_full or {}) do r.full[r.data[i]] = n end
  r.data_full = nil
  return setmetatable(r, Run)
end

--- Run a trace through the engine. opts: trace (path), format ("msp", "shmap",
-- or a memory trace's "din", "xdin", "lackey", "bin"; detected from the file when
-- absent), alloc (a memory trace's allocation log, .msp records stamped @SEQ),
-- procs, size, line, ways, policy, seed, hierarchy (the short form of `retrace cache
-- --hierarchy`, in place of size, line, ways and policy: misses are then also
-- counted per level, level_misses), latency, remote_latency (0: off; a miss
-- on a line whose home, line mod procs, is another processor costs it), ref_cycles, misses_only,
-- monitor (list of names), progress.
-- Returns a run, or nil and a message (bad input).
function M.run(opts)
  assert(type(opts) == "table" and type(opts.trace) == "string", "memspy.run: trace is required")
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  if not o.format then
    local fmt, why = require("retrace.formats").detect(o.trace)
    if not fmt then return nil, why end
    local known = { shmap = true, din = true, xdin = true, lackey = true, bin = true }
    o.format = known[fmt] and fmt or "msp"
  end
  local r, err = core.memspy.run(o)
  if not r then return nil, err end
  r.config = { procs = o.procs or 1, size = o.size or 65536, line = o.line or 64, ways = o.ways or 1,
               latency = o.latency or 50, ref_cycles = o.ref_cycles or 1,
               remote_latency = o.remote_latency or 0,
               policy = type(o.policy) == "table" and (o.policy.name or "lua") or (o.policy or "lru"),
               misses_only = o.misses_only and true or false, trace = o.trace, format = o.format,
               hierarchy = o.hierarchy, levels = r.totals.levels }
  return new_run(r)
end

--- Rebuild a run from the table to_table() gave (a saved --save / --json file).
function M.from_table(t)
  local r = { totals = {}, code = {}, data = {}, bins = {}, code_time = {}, procs = {},
              warnings = {}, config = t.config or {} }
  for k, v in pairs(t.totals or {}) do r.totals[k] = v end
  for i, v in ipairs(t.code or {}) do r.code[i] = v end
  for i, v in ipairs(t.data or {}) do r.data[i] = v end
  for i, b in ipairs(t.bins or {}) do
    local nb = { causes = {}, invalidators = {} }
    for k, v in pairs(b) do
      if k == "causes" then for c, n in pairs(v) do nb.causes[c] = n end
      elseif k == "level_misses" then add_levels(nb, b)
      elseif type(v) ~= "table" then nb[k] = v end
    end
    for _, k in ipairs(COUNT_KEYS) do nb[k] = nb[k] or 0 end
    r.bins[i] = nb
  end
  return new_run(r)
end

-- ---- reworking bins: rename and combine ----

local function index_of(list, name)
  for i, v in ipairs(list) do if v == name then return i end end
end

--- Rename a data bin or a code segment (data first). Returns self, or nil and a message.
function Run:rename(old, new)
  local axis = index_of(self.data, old) and "data" or index_of(self.code, old) and "code"
  if not axis then return nil, "rename: no data bin or code segment called '" .. tostring(old) .. "'" end
  if index_of(self[axis], new) then return nil, "rename: '" .. new .. "' is already a name" end
  self[axis][index_of(self[axis], old)] = new
  for _, b in ipairs(self.bins) do
    if b[axis] == old then b[axis] = new end
    if axis == "data" and b.causes[old] ~= nil then
      b.causes[new], b.causes[old] = b.causes[old], nil
    end
  end
  if axis == "data" then self.full[new], self.full[old] = self.full[old], nil end
  if axis == "code" and self.code_time[old] then
    self.code_time[new], self.code_time[old] = self.code_time[old], nil
  end
  return self
end

--- Combine several data bins (or several code segments) into one called new:
-- their statistical bins add up and causes of replacements follow the names.
-- Returns self, or nil and a message.
function Run:combine(new, names)
  if type(names) ~= "table" or #names < 1 then return nil, "combine: expected a list of names" end
  local axis = index_of(self.data, names[1]) and "data" or index_of(self.code, names[1]) and "code"
  if not axis then return nil, "combine: no data bin or code segment called '" .. tostring(names[1]) .. "'" end
  local set = {}
  for _, n in ipairs(names) do
    if not index_of(self[axis], n) then
      return nil, "combine: no " .. (axis == "data" and "data bin" or "code segment") .. " called '" .. n .. "'"
    end
    set[n] = true
  end
  if index_of(self[axis], new) and not set[new] then return nil, "combine: '" .. new .. "' is already a name" end
  local list = {}
  for _, v in ipairs(self[axis]) do if not set[v] then list[#list + 1] = v end end
  list[#list + 1] = new
  self[axis] = list
  if axis == "data" then
    local parts = {}
    for _, n in ipairs(names) do parts[#parts + 1] = self.full[n] or n; self.full[n] = nil end
    self.full[new] = table.concat(parts, " + ")
  end
  local merged, order = {}, {}
  for _, b in ipairs(self.bins) do
    if set[b[axis]] then b[axis] = new end
    if axis == "data" then
      local causes = {}
      for c, n in pairs(b.causes) do
        local k = set[c] and new or c
        causes[k] = (causes[k] or 0) + n
      end
      b.causes = causes
    end
    local key = b.code .. "\0" .. b.data
    local m = merged[key]
    if not m then
      merged[key] = b
      order[#order + 1] = b
    else
      for _, k in ipairs(COUNT_KEYS) do m[k] = m[k] + b[k] end
      add_levels(m, b)
      for c, n in pairs(b.causes) do m.causes[c] = (m.causes[c] or 0) + n end
      for p, n in pairs(b.invalidators or {}) do
        m.invalidators = m.invalidators or {}
        m.invalidators[p] = (m.invalidators[p] or 0) + n
      end
    end
  end
  self.bins = order
  if axis == "code" then
    local t = {}
    for _, n in ipairs(names) do
      for p, v in ipairs(self.code_time[n] or {}) do t[p] = (t[p] or 0) + v end
      self.code_time[n] = nil
    end
    self.code_time[new] = t
  end
  return self
end

-- ---- the matrix ----

local function pct(part, whole)
  if whole == 0 then return 0 end
  return 100 * part / whole
end
M.pct = pct

--- The code x data matrix of percent of total stall time. opts.top = {rows, cols}
-- keeps the first rows / columns; opts.threshold (percent, 0 by default) folds the
-- code segments and data bins under it into one row and one column called "other"
-- (as cg_annotate's threshold), when at least two fall under it. Rows and columns sorted by their totals
-- (descending, ties by name); only segments and bins that were referenced.
-- Returns {rows = {names}, cols = {names}, cell = {[r][c] = percent or nil},
--          row_total = {}, col_total = {}, total = percent, stall = cycles}.
function Run:matrix(opts)
  opts = opts or {}
  local total = self.totals.stall
  local rs, cs, cell = {}, {}, {}
  for _, b in ipairs(self.bins) do
    if b.refs > 0 or b.misses > 0 then
      rs[b.code] = (rs[b.code] or 0) + b.stall
      cs[b.data] = (cs[b.data] or 0) + b.stall
      cell[b.code] = cell[b.code] or {}
      cell[b.code][b.data] = (cell[b.code][b.data] or 0) + b.stall
    end
  end
  local function sorted(t)
    local names = {}
    for k in pairs(t) do names[#names + 1] = k end
    table.sort(names, function(a, b)
      if t[a] ~= t[b] then return t[a] > t[b] end
      return a < b
    end)
    return names
  end
  -- rows and columns under opts.threshold percent of the stall time fold into "other"
  local thr = opts.threshold or 0
  if thr > 0 and total > 0 then
    local function fold(t)
      local small = {}
      for k, v in pairs(t) do
        if pct(v, total) < thr then small[#small + 1] = k end
      end
      if #small < 2 then return {} end -- folding one row would only rename it
      local set = {}
      for _, k in ipairs(small) do set[k] = true; t.other = (t.other or 0) + t[k]; t[k] = nil end
      return set
    end
    local rset, cset = fold(rs), fold(cs)
    local folded = {}
    for r, row in pairs(cell) do
      local nr = rset[r] and "other" or r
      folded[nr] = folded[nr] or {}
      for c, v in pairs(row) do
        local nc = cset[c] and "other" or c
        folded[nr][nc] = (folded[nr][nc] or 0) + v
      end
    end
    cell = folded
  end
  local rows, cols = sorted(rs), sorted(cs)
  local top = opts.top or {}
  if top[1] then while #rows > top[1] do rows[#rows] = nil end end
  if top[2] then while #cols > top[2] do cols[#cols] = nil end end
  local m = { rows = rows, cols = cols, cell = {}, row_total = {}, col_total = {},
              total = total > 0 and 100 or 0, stall = total }
  for i, r in ipairs(rows) do
    m.row_total[i] = pct(rs[r], total)
    m.cell[i] = {}
    for j, c in ipairs(cols) do
      local v = cell[r] and cell[r][c]
      if v and v > 0 then m.cell[i][j] = pct(v, total) end
    end
  end
  for j, c in ipairs(cols) do m.col_total[j] = pct(cs[c], total) end
  return m
end

-- ---- detail ----

local function as_set(v)
  if v == nil then return nil end
  local s = {}
  if type(v) == "table" then for _, n in ipairs(v) do s[n] = true end else s[v] = true end
  return s
end

--- The detail fields of one statistical bin or a combination: opts.code and
-- opts.data are a name, a list of names, or nil (every one). Returns a table of
-- the seed's fields, or nil and a message when nothing matches.
function Run:detail(opts)
  opts = opts or {}
  local cs, ds = as_set(opts.code), as_set(opts.data)
  for axis, s in pairs({ code = cs, data = ds }) do
    for n in pairs(s) do
      if not index_of(self[axis], n) then
        return nil, "detail: no " .. (axis == "data" and "data bin" or "code segment") .. " called '" .. n .. "'"
      end
    end
  end
  local d = { causes_count = {}, invalidators = {} }
  for _, k in ipairs(COUNT_KEYS) do d[k] = 0 end
  for _, b in ipairs(self.bins) do
    if (not cs or cs[b.code]) and (not ds or ds[b.data]) then
      for _, k in ipairs(COUNT_KEYS) do d[k] = d[k] + b[k] end
      add_levels(d, b)
      for c, n in pairs(b.causes) do d.causes_count[c] = (d.causes_count[c] or 0) + n end
      for p, n in pairs(b.invalidators or {}) do d.invalidators[p] = (d.invalidators[p] or 0) + n end
    end
  end
  local t = self.totals
  local function names(s, all)
    if not s then return all end
    local l = {}
    for n in pairs(s) do l[#l + 1] = n end
    table.sort(l)
    return l
  end
  d.code = names(cs, nil)
  d.data = names(ds, nil)
  -- elapsed time in the code segments: per processor summed over them, the largest
  local per = {}
  for _, cname in ipairs(d.code or self.code) do
    for p, v in ipairs(self.code_time[cname] or {}) do per[p] = (per[p] or 0) + v end
  end
  local elapsed
  for _, v in pairs(per) do if not elapsed or v > elapsed then elapsed = v end end
  d.elapsed = elapsed
  d.stall_pct = pct(d.stall, t.stall)
  d.misses_pct = pct(d.misses, t.misses)
  d.refs_pct = pct(d.refs, t.refs)
  d.miss_rate = pct(d.misses, d.refs)
  d.avg_stall = d.refs > 0 and d.stall / d.refs or 0
  d.avg_read_stall = d.reads > 0 and d.read_stall / d.reads or 0
  d.avg_write_stall = d.writes > 0 and d.write_stall / d.writes or 0
  -- causes of replacements, sorted; shares under 0.05% fold into "other"
  local list, other = {}, 0
  for c, n in pairs(d.causes_count) do
    if pct(n, d.replacement) < 0.05 then other = other + n else list[#list + 1] = { name = c, count = n } end
  end
  table.sort(list, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    return a.name < b.name
  end)
  if other > 0 then list[#list + 1] = { name = "other", count = other } end
  for _, e in ipairs(list) do e.pct = pct(e.count, d.replacement) end
  d.causes = list
  return d
end

-- ---- the JSON shape ----

--- {totals = {refs, reads, writes, misses, stall, time}, code = {...}, data = {...},
--   bins = {{code, data, refs, reads, writes, misses, first, replacement,
--            invalidation, stall, causes = {[data bin] = count}}}}
function Run:to_table()
  local t = self.totals
  local out = { totals = { refs = t.refs, reads = t.reads, writes = t.writes, misses = t.misses,
                           stall = t.stall, time = t.time },
                code = {}, data = {}, bins = {} }
  local levels = (t.levels or 1) > 1 -- misses per level, when the machine has several
  if levels then out.totals.level_misses, out.totals.levels = t.level_misses, t.levels end
  local used = { code = {}, data = {} }
  for _, b in ipairs(self.bins) do
    if b.refs > 0 or b.misses > 0 then
      used.code[b.code], used.data[b.data] = true, true
      local causes = {}
      for c, n in pairs(b.causes) do causes[c] = n end
      out.bins[#out.bins + 1] = { code = b.code, data = b.data, refs = b.refs, reads = b.reads,
        writes = b.writes, misses = b.misses, first = b.first, replacement = b.replacement,
        invalidation = b.invalidation, stall = b.stall, causes = causes,
        level_misses = levels and b.level_misses or nil }
    end
  end
  for _, axis in ipairs({ "code", "data" }) do
    for _, n in ipairs(self[axis]) do
      if used[axis][n] then out[axis][#out[axis] + 1] = n end
    end
  end
  table.sort(out.bins, function(a, b)
    if a.stall ~= b.stall then return a.stall > b.stall end
    if a.code ~= b.code then return a.code < b.code end
    return a.data < b.data
  end)
  return out
end

-- ---- text ----

--- 649000000 -> "649.0M" (digits after the point: 1 for cycles, 2 for counts).
function M.short(v, digits)
  digits = digits or 2
  local a = math.abs(v)
  local function f(x, suffix)
    local s = string.format("%." .. digits .. "f", x)
    return s .. suffix
  end
  if a >= 1e9 then return f(v / 1e9, "G") end
  if a >= 1e6 then return f(v / 1e6, "M") end
  if a >= 1e4 then return f(v / 1e3, "K") end
  if math.type(v) == "integer" or v == math.floor(v) then return string.format("%d", v) end
  return string.format("%." .. digits .. "f", v)
end
local short = M.short

--- The header: execution time, stall time, miss rate, references and misses.
function M.format_header(run)
  local t = run.totals
  local L = {}
  L[#L + 1] = "TOTAL APPLICATION STATISTICS"
  L[#L + 1] = "Execution Time: " .. short(t.time, 1) .. " cycles"
  L[#L + 1] = "Total Memory Stall Time: " .. short(t.stall, 1) .. " cycles"
  L[#L + 1] = string.format("Overall Miss Rate: %.1f%%", pct(t.misses, t.refs))
  L[#L + 1] = "Total References: " .. short(t.refs)
  L[#L + 1] = string.format("  Reads: %s (%.1f%%)  Writes: %s (%.1f%%)", short(t.reads),
    pct(t.reads, t.refs), short(t.writes), pct(t.writes, t.refs))
  L[#L + 1] = "Total Misses: " .. short(t.misses)
  L[#L + 1] = string.format("  Reads: %s (%.1f%%)  Writes: %s (%.1f%%)", short(t.read_misses or 0),
    pct(t.read_misses or 0, t.misses), short(t.write_misses or 0), pct(t.write_misses or 0, t.misses))
  return table.concat(L, "\n")
end

--- A study's table (`memspy --machines`): one row per machine, in file order (references,
-- misses at the first level and their rate, misses at the last level, stall and execution
-- cycles). list: {
-- {line, text}, ... } (cache.read_configs), totals: each run's to_table().totals.
function M.format_study(list, totals)
  local L = { string.format("%6s %12s %12s %8s %12s %12s %12s  %s", "line", "references", "misses", "rate",
    "last misses", "stall", "time", "machine") }
  for i, c in ipairs(list) do
    local t = totals[i]
    local last = t.level_misses and t.level_misses[t.levels] or t.misses -- misses of the last level
    L[#L + 1] = string.format("%6d %12s %12s %7.2f%% %12s %12s %12s  %s", c.line, short(t.refs), short(t.misses),
      pct(t.misses, t.refs), short(last), short(t.stall, 1), short(t.time, 1), c.text)
  end
  return table.concat(L, "\n") .. "\n"
end

--- The matrix as text: the legends (numbered bins), then the table with margins.
-- full (optional): data bin name -> full name, shown in the legend (--fullname).
function M.format_matrix(m, full)
  local L = {}
  L[#L + 1] = "Percentage of Total Memory Stall Time, broken down by data and code"
  local w = 0
  local function dname(c) return full and full[c] or c end
  for j, c in ipairs(m.cols) do w = math.max(w, #string.format("%4d : %s", j - 1, dname(c))) end
  w = math.max(w, #"Data Bins:")
  L[#L + 1] = string.format("%-" .. w .. "s   %s", "Data Bins:", "Code Segments:")
  for i = 1, math.max(#m.rows, #m.cols) do
    local left = m.cols[i] and string.format("%4d : %s", i - 1, dname(m.cols[i])) or ""
    local right = m.rows[i] and string.format("%4d : %s", i - 1, m.rows[i]) or ""
    L[#L + 1] = (string.format("%-" .. w .. "s   %s", left, right)):gsub("%s+$", "")
  end
  L[#L + 1] = ""
  local cw = 7
  local head = string.format("%-9s%7s", "", "Tot.%")
  for j = 1, #m.cols do head = head .. string.format("%" .. cw .. "d", j - 1) end
  L[#L + 1] = string.format("%-16s Data Bins", "")
  L[#L + 1] = "Code" .. head:sub(5)
  local tot = string.format("%-9s%7.1f", "Tot.%", m.total)
  for j = 1, #m.cols do tot = tot .. string.format("%" .. cw .. ".1f", m.col_total[j]) end
  L[#L + 1] = tot
  for i = 1, #m.rows do
    local line = string.format("%4d     %7.1f", i - 1, m.row_total[i])
    for j = 1, #m.cols do
      local v = m.cell[i][j]
      line = line .. (v and string.format("%" .. cw .. ".1f", v) or string.rep(" ", cw))
    end
    L[#L + 1] = line:gsub("%s+$", "")
  end
  return table.concat(L, "\n")
end

--- Misses per level of the machine (run.totals.levels > 1), by data bin and by
-- code segment, each row's misses at L1, L2, ... and the share of its L1
-- misses that reached memory; rows ordered by L1 misses. nil with one level.
function M.format_levels(run)
  local levels = run.totals.levels or 1
  if levels < 2 then return nil end
  local L = { "Misses per level" }
  for _, axis in ipairs({ "data", "code" }) do
    local rows, by = {}, {}
    for _, b in ipairs(run.bins) do
      local r = by[b[axis]]
      if not r then
        r = { name = b[axis], level_misses = {} }
        by[b[axis]], rows[#rows + 1] = r, r
      end
      add_levels(r, b)
    end
    for _, r in ipairs(rows) do for l = 1, levels do r.level_misses[l] = r.level_misses[l] or 0 end end
    table.sort(rows, function(a, b)
      if a.level_misses[1] ~= b.level_misses[1] then return a.level_misses[1] > b.level_misses[1] end
      return a.name < b.name
    end)
    local w = #(axis == "data" and "Data bin" or "Code segment")
    for _, r in ipairs(rows) do w = math.max(w, #r.name) end
    local head = ("%-" .. w .. "s"):format(axis == "data" and "Data bin" or "Code segment")
    for l = 1, levels do head = head .. ("%10s"):format("L" .. l) end
    L[#L + 1] = ""
    L[#L + 1] = head .. ("%10s"):format("memory%")
    for _, r in ipairs(rows) do
      if r.level_misses[1] > 0 then
        local line = ("%-" .. w .. "s"):format(r.name)
        for l = 1, levels do line = line .. ("%10s"):format(short(r.level_misses[l])) end
        L[#L + 1] = line .. ("%10.1f"):format(pct(r.level_misses[levels], r.level_misses[1]))
      end
    end
  end
  return table.concat(L, "\n")
end

--- The detail fields as text (the seed's DisplayAll).
function M.format_detail(d, run)
  local function list(v) return v and table.concat(v, "+") or "(all)" end
  local L = {}
  local function add(...) L[#L + 1] = string.format(...) end
  add("DETAILED OUTPUT: %s in %s", list(d.data), list(d.code))
  if d.elapsed then add("Elapsed Time in %s: %s cycles", list(d.code), short(d.elapsed, 1)) end
  add("Memory Stall Time in bin: %s cycles", short(d.stall, 1))
  add("Percentage of Total Memory Stall Time: %.1f%%", d.stall_pct)
  add("Percentage of Total Misses: %.1f%%", d.misses_pct)
  if run and run.config and run.config.misses_only then
    add("Miss Rate: n/a (hits were not binned: --misses-only)")
  else
    add("Miss Rate: %.1f%%", d.miss_rate)
    add("Percentage of Total Refs: %.1f%%", d.refs_pct)
  end
  add("REFERENCES: %s --", short(d.refs))
  add("  Reads: %s (%.1f%%) Writes: %s (%.1f%%)", short(d.reads), pct(d.reads, d.refs), short(d.writes),
    pct(d.writes, d.refs))
  add("MISSES: %s --", short(d.misses))
  add("  Read misses: %s (%.1f%%)", short(d.read_misses), pct(d.read_misses, d.misses))
  add("  Write misses: %s (%.1f%%)", short(d.write_misses), pct(d.write_misses, d.misses))
  if d.level_misses and #d.level_misses > 1 then
    local parts = {}
    for l, n in ipairs(d.level_misses) do parts[l] = ("L%d %s"):format(l, short(n)) end
    add("Misses by level: %s", table.concat(parts, ", "))
  end
  add("1st Ref Miss: %s (%.1f%%)", short(d.first), pct(d.first, d.misses))
  add("Inval Miss: %s (%.1f%%)", short(d.invalidation), pct(d.invalidation, d.misses))
  add("Repl Miss: %s (%.1f%%)", short(d.replacement), pct(d.replacement, d.misses))
  if run and run.config and (run.config.remote_latency or 0) > 0 then
    add("Local Miss: %s (%.1f%%)  Remote Miss: %s (%.1f%%)", short(d.misses - d.remote),
      pct(d.misses - d.remote, d.misses), short(d.remote), pct(d.remote, d.misses))
  end
  add("Memory Stall Time (Cycles):")
  add("  Total = %s, Avg per reference = %.1f", short(d.stall, 1), d.avg_stall)
  add("  Memory Read Stall Time = %s, Memory Write Stall Time = %s", short(d.read_stall, 1),
    short(d.write_stall, 1))
  add("  Avg Memory Read Stall Time = %.1f, Avg Memory Write Stall Time = %.1f", d.avg_read_stall,
    d.avg_write_stall)
  if #d.causes > 0 then
    add("Causes of Replacements:")
    for _, c in ipairs(d.causes) do add("  bin %s: %.1f%%", c.name, c.pct) end
  end
  local inv = {}
  for p, n in pairs(d.invalidators) do inv[#inv + 1] = { p = p, n = n } end
  table.sort(inv, function(a, b) return a.n > b.n or (a.n == b.n and a.p < b.p) end)
  if #inv > 0 then
    add("Invalidations by writer:")
    for _, e in ipairs(inv) do add("  processor %d: %.1f%%", e.p, pct(e.n, d.invalidation)) end
  end
  return table.concat(L, "\n")
end

--- Misses per data bin of a saved or live run (for compare): {[name] = misses}.
local function data_misses(run)
  local t = {}
  for _, b in ipairs(run.bins) do t[b.data] = (t[b.data] or 0) + b.misses end
  return t
end

--- Runs side by side (the seed's Table 1): runs = {{name =, run =}, ...}.
-- Columns: the data bins of all runs by their misses in the first run
-- (descending, then by name), up to opts.cols (default 6).
-- Returns {cols = {names}, rows = {{name, misses, bins = {[col] = misses or nil}, time, speedup}}}.
function M.compare(runs, opts)
  opts = opts or {}
  local first = data_misses(runs[1].run)
  local all = {}
  for _, r in ipairs(runs) do
    for n, v in pairs(data_misses(r.run)) do all[n] = math.max(all[n] or 0, v) end
  end
  local cols = {}
  for n, v in pairs(all) do if v > 0 then cols[#cols + 1] = n end end
  table.sort(cols, function(a, b)
    local fa, fb = first[a] or -1, first[b] or -1
    if fa ~= fb then return fa > fb end
    if all[a] ~= all[b] then return all[a] > all[b] end
    return a < b
  end)
  local maxc = opts.cols or 6
  while #cols > maxc do cols[#cols] = nil end
  local out = { cols = cols, rows = {} }
  local t1 = runs[1].run.totals.time
  for _, r in ipairs(runs) do
    local dm = data_misses(r.run)
    local row = { name = r.name, misses = r.run.totals.misses, bins = {}, time = r.run.totals.time }
    row.speedup = row.time > 0 and t1 / row.time or 0
    for j, c in ipairs(cols) do
      if (dm[c] or 0) > 0 then row.bins[j] = dm[c] end
    end
    out.rows[#out.rows + 1] = row
  end
  return out
end

--- The comparison as text: misses (x 1000) with shares, execution time (x 1000 cycles), speedup.
function M.format_compare(c)
  local L = {}
  local nw = 7
  for _, r in ipairs(c.rows) do nw = math.max(nw, #r.name) end
  local cw = 15
  for _, n in ipairs(c.cols) do cw = math.max(cw, #n + 1) end
  local head = string.format("%-" .. nw .. "s %8s", "Version", "Total")
  for _, n in ipairs(c.cols) do head = head .. string.format(" %" .. cw .. "s", n) end
  head = head .. string.format(" %12s %8s", "Time", "Speedup")
  L[1] = string.format("%-" .. nw .. "s %s", "", "Cache misses (x 1000)")
  L[2] = head
  for _, r in ipairs(c.rows) do
    local line = string.format("%-" .. nw .. "s %8.1f", r.name, r.misses / 1000)
    for j = 1, #c.cols do
      local v = r.bins[j]
      local cell = v and string.format("%.1f (%.1f%%)", v / 1000, pct(v, r.misses)) or "-"
      line = line .. string.format(" %" .. cw .. "s", cell)
    end
    line = line .. string.format(" %12s %8.1f", string.format("%.0f", r.time / 1000), r.speedup)
    L[#L + 1] = line
  end
  L[#L + 1] = "(Time: execution time x 1000 cycles; Speedup: relative to " .. c.rows[1].name .. ")"
  return table.concat(L, "\n")
end

return M
