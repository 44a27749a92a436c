--- retrace.formats: recognise a trace file's format from its first 4096 bytes
-- (never more: a trace may be one endless line).
-- formats.detect(path) -> name, why   (or nil, message when unreadable)
-- Names: shmap, picl-new, picl-old, din, xdin, lackey, bin, msp, pes, paje, paraver, otf2,
-- and for files that belong to a trace without being one: paraver-pcf, paraver-row,
-- otf2-part; unknown (why then says what each line reader objected to).
-- formats.summary(path, name [, opts]) -> table | nil, message: what the format's
-- own reader says of the file (see M.summary); nil summary for formats without one.
local M = {}

M.descriptions = {
  shmap = "SHMAP memory-access trace (opcodes 0-9)",
  ["picl-new"] = "PICL trace, new (MPICL) record format",
  ["picl-old"] = "PICL trace, old (ParaGraph) record format",
  din = "Dinero IV din trace (LABEL HEXADDR)",
  xdin = "Dinero IV extended din trace (r|w|i|m|c|v HEXADDR HEXSIZE)",
  lackey = "Valgrind lackey --trace-mem=yes log",
  bin = "retrace binary memory-reference trace (RTMB)",
  msp = "MemSpy trace (msp 1: procedures, allocations, references per processor)",
  pes = "program execution sequence (STATE TIME per line)",
  paje = "Paje trace",
  paraver = "Paraver trace",
  otf2 = "OTF2 archive",
  ["paraver-pcf"] = "Paraver companion file (state and event names), not a trace",
  ["paraver-row"] = "Paraver companion file (processor names), not a trace",
  ["otf2-part"] = "part of an OTF2 archive, not a trace by itself",
  rtidx = "retrace's index of a trace, not a trace",
  unknown = "not recognised",
}

local core = require "retrace.core"

--- The format of the file (or OTF2 archive folder) at path, by content: one of
-- the names above and the evidence, or nil, message when it cannot be read. The
-- detector is core's (core/trace/rt_detect.c): it reads the first 4096 bytes
-- once, so a named FIFO or a pipe works, the reader opening it next getting
-- those bytes again.
function M.detect(path)
  return core.util.detect(path)
end

local summaries = {}
M.message_passing = { otf2 = true, paraver = true, paje = true }

-- SHMAP: the reader's first pass (rt_shmap_open) already counted everything.
function summaries.shmap(path)
  local t, err = require("retrace.shmap").open(path)
  if not t then return nil, err end
  local info, mats = t:info(), t:matrices()
  t:close()
  local matrices = {}
  for i, m in ipairs(mats) do matrices[i] = { id = m.id, rows = m.rows, cols = m.cols } end
  return {
    matrices = matrices,
    events = { total = info.events, loads = info.loads, stores = info.stores,
               other = info.events - info.loads - info.stores },
    elements = { loaded = info.load_elements, stored = info.store_elements },
    flops = info.flops,
    time = { first = info.time_first, last = info.time_last, min_step = info.min_step },
    sections = info.sections, groups = info.groups,
  }
end

-- Entries per event type (PICL) or region over all processors of a replay summary,
-- sorted by count then id: {id, name, count} plus what describe(id) adds; and the total.
local function count_entries(s, describe)
  local events, nevents = {}, 0
  for _, p in ipairs(s.processors) do
    for ev, row in pairs(p.events) do
      local e = events[ev]
      if not e then
        e = describe(math.tointeger(tonumber(ev)))
        e.count = 0
        events[ev] = e
      end
      e.count = e.count + row.count
      nevents = nevents + row.count
    end
  end
  local list = {}
  for _, e in pairs(events) do list[#list + 1] = e end
  table.sort(list, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    return a.id < b.id
  end)
  return list, nevents
end

-- PICL (either format): the replay summary, kept to its totals.
local function picl_summary(path, fmt)
  local picl = require "retrace.picl"
  local s, err = picl.summary(path, { format = fmt == "picl-old" and "old" or "new" })
  if not s then return nil, err end
  local kinds, nevents = count_entries(s, function(code)
    return { event = code, id = code, name = picl.event_words(code) }
  end)
  for _, e in ipairs(kinds) do e.id = nil end
  return {
    picl_format = s.trace.format, processors = #s.processors, records = s.trace.records,
    span = { s.span[1], s.span[2] }, messages = s.messages, events = nevents,
    event_kinds = kinds, skipped = s.trace.skipped, warnings = #s.warnings,
  }
end
summaries["picl-old"] = picl_summary
summaries["picl-new"] = picl_summary

-- OTF2, Paraver, Paje (when this build has their readers): the replay's summary
-- through the format-neutral source, with the regions by class.
local function mp_summary(path, fmt)
  local s, err = require("retrace.picl").summary(path, { format = fmt })
  if not s then return nil, err end
  local regions, nevents = count_entries(s, function(id)
    local r = s.regions[tostring(id)] or {}
    return { id = id, region = id, name = r.name or ("region " .. id), class = r.class or "?" }
  end)
  local classes = {}
  for _, e in ipairs(regions) do
    e.id = nil
    classes[e.class] = (classes[e.class] or 0) + e.count
  end
  return {
    processors = #s.processors, records = s.trace.records, events = s.trace.events,
    event_kinds = s.totals.kinds or {}, span = { s.span[1], s.span[2] }, messages = s.messages,
    tachyons = s.tachyons, regions = regions, entries_by_class = classes, entries = nevents,
    skipped = s.trace.records_skipped, warnings = #s.warnings,
  }
end
for _, f in ipairs(core.replay.formats()) do
  if f ~= "picl" then summaries[f] = mp_summary end
end

-- Memory traces: one pass in C through a one-line cache with classification,
-- whose compulsory misses are the distinct data lines.
local function memory_summary(path, fmt, opts)
  local line = opts.line or 64
  local r, err = require("retrace.cache").run(path, { format = fmt, size = line, line = line, ways = 1,
    policy = "lru", write_back = true, classify = true, unified = false })
  if not r then return nil, err end
  return {
    records = r.records, reads = r.reads, writes = r.writes, ifetches = r.ifetches,
    flushes = r.flushes, other = r.ignored - r.ifetches, line = line, distinct_lines = r.compulsory,
  }
end
for _, f in ipairs { "din", "xdin", "lackey", "bin" } do summaries[f] = memory_summary end

-- MemSpy traces: one pass of the engine on 64 processors with one-line caches.
function summaries.msp(path)
  local core = require "retrace.core"
  local r, err = core.memspy.run{ trace = path, format = "msp", procs = core.memspy.max_procs,
                                  size = 64, line = 64, ways = 1 }
  if not r then return nil, err end
  local used = 0
  for _, p in ipairs(r.procs) do if p.time > 0 then used = used + 1 end end
  return { references = r.totals.refs, reads = r.totals.reads, writes = r.totals.writes,
           busy = r.totals.busy, code_segments = #r.code - 2, data_bins = #r.data - 1,
           processors_busy = used, warnings = r.totals.warnings }
end

-- PES: the Chitra reader's checks, counting only (memory flat in the states).
function summaries.pes(path)
  local s, err = core.seq.pes_scan(path)
  if not s then return nil, err end
  -- the span runs from the first entry to the end of the last state
  return { states = s.states, symbols = s.symbols, span = { s.first, s.last } }
end

--- True when format `name` has a reader that summarises it (formats.summary).
function M.summary_reader(name)
  return summaries[name] ~= nil
end

--- What the reader of format `name` says of the file at path: a table of counts
-- (fields by format), or nil, message when the reader refuses the file; false
-- when the format has no reader here. opts.line: line size in bytes for memory
-- traces (default 64).
function M.summary(path, name, opts)
  local f = summaries[name]
  if not f then return false end
  return f(path, name, opts or {})
end

return M
