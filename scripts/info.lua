-- retrace info FILES: what each trace file is (format, size, lines) and what
-- the format's reader counts in it.
local cli = require "retrace.cli"
local formats = require "retrace.formats"
local core = require "retrace.core"
local lfs = require "lfs"

local numbers = require "retrace.numbers"
local cli = require "retrace.cli"

-- counts with thousands separated (120,426 records), times with their unit (-1 us .. 11.5826 s)
local function plural(n, one, many)
  return ("%s %s"):format(cli.count(n), n == 1 and one or (many or one .. "s"))
end
local function span_s(a, b) return numbers.format_seconds(a) .. " .. " .. numbers.format_seconds(b) end

local text = {}

function text.shmap(s)
  local m = {}
  for i, x in ipairs(s.matrices) do m[i] = ("%d (%dx%d)"):format(x.id, x.rows, x.cols) end
  return {
    ("%s: %s"):format(plural(#s.matrices, "matrix", "matrices"), table.concat(m, ", ")),
    ("%s: %s, %s, %d info/flops; %d elements loaded, %d stored; %s"):format(
      plural(s.events.total, "event"), plural(s.events.loads, "load"), plural(s.events.stores, "store"),
      s.events.other,
      s.elements.loaded, s.elements.stored, plural(s.flops, "flop")),
    ("trace time %g (first stamp %g, smallest step %g)"):format(s.time.last, s.time.first, s.time.min_step),
    ("%s, %s"):format(plural(s.sections, "parallel section"), plural(s.groups, "group")),
  }
end

local function picl_text(s)
  local k = {}
  for i, e in ipairs(s.event_kinds) do k[i] = ("%s %d"):format(e.name, e.count) end
  return {
    ("%s format: %s, %s, time %s"):format(s.picl_format, plural(s.processors, "processor"),
      plural(s.records, "record"), span_s(s.span[1], s.span[2])),
    ("%s, %s: %s"):format(plural(s.messages, "message"), plural(s.events, "event"), table.concat(k, ", ")),
    ("%s (%s)"):format(plural(s.warnings, "warning"), plural(s.skipped, "malformed line") .. " skipped"),
  }
end
text["picl-old"], text["picl-new"] = picl_text, picl_text

-- OTF2, Paraver, Paje: the replay through the format-neutral source.
local function mp_text(s)
  local kinds = {}
  for _, k in ipairs { "enter", "leave", "send", "receive", "collective begin", "collective end", "marker" } do
    local n = s.event_kinds[k] or 0
    if n > 0 then kinds[#kinds + 1] = ("%s %d"):format(k, n) end
  end
  local classes = {}
  for c, n in pairs(s.entries_by_class) do classes[#classes + 1] = ("%s %d"):format(c, n) end
  table.sort(classes)
  local regions = {}
  for i, r in ipairs(s.regions) do
    if i > 8 then regions[#regions + 1] = ("... %d more"):format(#s.regions - 8) break end
    regions[i] = ("%s %d"):format(r.name, r.count)
  end
  return {
    ("%s, %s, %s, time %s"):format(plural(s.processors, "processor"), plural(s.records, "record"),
      plural(s.events, "event"), span_s(s.span[1], s.span[2])),
    ("events by kind: %s"):format(table.concat(kinds, ", ")),
    #s.regions == 0 and "no region entered" or ("%s (%s), entries by class: %s"):format(plural(#s.regions, "region"),
      table.concat(regions, ", "), table.concat(classes, ", ")),
    ("%s, %s; %s, %d records not modelled"):format(plural(s.messages, "message"), plural(s.tachyons, "tachyon"),
      plural(s.warnings, "warning"), s.skipped or 0),
  }
end
for f in pairs(formats.message_passing) do text[f] = mp_text end

local function memory_text(s)
  return {
    ("%s: %s, %s (one per line an access spans), %s, %s, %d other"):format(
      plural(s.records, "record"), plural(s.reads, "read"), plural(s.writes, "write"),
      plural(s.ifetches, "instruction fetch", "instruction fetches"), plural(s.flushes, "flush", "flushes"), s.other),
    ("%s of %d bytes"):format(plural(s.distinct_lines, "distinct data line"), s.line),
  }
end
for _, f in ipairs { "din", "xdin", "lackey", "bin" } do text[f] = memory_text end

function text.msp(s)
  return { string.format("%d references (%d reads, %d writes), %d busy cycles", s.references, s.reads,
             s.writes, s.busy),
           string.format("%d code segments, %d data bins, %d processors busy, %d warnings", s.code_segments,
             s.data_bins, s.processors_busy, s.warnings) }
end

function text.pes(s)
  return { ("%s, %s, time %s .. %s"):format(plural(s.states, "state"), plural(s.symbols, "distinct symbol"),
    numbers.format_number(s.span[1]), numbers.format_number(s.span[2])) }
end

local function check_line(v)
  local n = math.tointeger(tonumber(v))
  if not n or n < 1 or n & (n - 1) ~= 0 then
    cli.usage_error("--line: expected a power of two (bytes), got '" .. tostring(v) .. "'")
  end
  return n
end

-- The advice in a dispatcher's explanation ("...; open X instead"), or all of it.
local function evidence_tail(why)
  return why:match("; (open .*)$") or why
end

-- Formats whose files are binary: no line count.
local binary = { otf2 = true, bin = true, rtidx = true, unknown = false }

-- The record of one file, or nil and the message when it cannot be read.
local function inspect(path, args)
  local fmt, why = args.format, "given with --format"
  if not fmt then
    fmt, why = formats.detect(path)
    if not fmt then return nil, why end
  end
  local lines, bytes
  if binary[fmt] then -- a binary file has bytes, not lines (an OTF2 archive's directory: neither)
    bytes = lfs.attributes(path, "mode") == "file" and lfs.attributes(path, "size") or nil
  elseif lfs.attributes(path, "mode") ~= "directory"
    and not (core.util.read_once(path) and formats.summary_reader(fmt)) then
    -- (a FIFO or pipe is read once, by the summary when there is one: no line count)
    lines, bytes = core.util.count_lines(path)
    if not lines then return nil, bytes end
  end
  local r = { file = path, format = fmt, description = formats.descriptions[fmt],
              lines = lines, bytes = bytes, evidence = why }
  local s, err = formats.summary(path, fmt, { line = args.line })
  if s == nil then
    r.error = err
  elseif s then
    r.summary = s
  else
    r.note = fmt == "unknown" and "no reader for an unrecognised file"
      or fmt == "rtidx" and "written by `retrace index` or `retrace view` beside its trace"
      or formats.descriptions[fmt] and fmt:match("%-") and fmt ~= "picl-new" and fmt ~= "picl-old"
        and ("not a trace: " .. evidence_tail(why))
      or "recognised; no reader for this format yet"
  end
  return r
end

return {
  summary = "recognise trace files and report their format, size and contents",
  parser = function(p)
    p:argument("files", "trace files"):args("+")
    p:flag("--json", "print JSON on stdout (one object per file)")
    p:option("--format", "read every file as this format instead of detecting it")
    p:option("--line", "line size in bytes for the distinct lines of memory traces", "64")
  end,
  run = function(args)
    if args.format and not formats.descriptions[args.format] then
      local names = {}
      for k in pairs(formats.descriptions) do if k ~= "unknown" then names[#names + 1] = k end end
      table.sort(names)
      cli.usage_error("--format: unknown format '" .. args.format .. "' (" .. table.concat(names, ", ") .. ")")
    end
    args.line = check_line(args.line)
    local out, failed = {}, false
    for _, path in ipairs(args.files) do
      local r, err = inspect(path, args)
      if not r then
        r = { file = path, error = err }
      end
      if r.error then
        failed = true
        io.stderr:write("retrace: ", r.error, "\n")
      end
      out[#out + 1] = r
      if not args.json and r.format then
        io.stdout:write(string.format("%s: %s (%s)\n  %s; %s\n", r.file, r.format, r.description,
          r.lines and string.format("%d lines, %d bytes", r.lines, r.bytes)
            or r.bytes and string.format("%d bytes", r.bytes)
            or lfs.attributes(r.file, "mode") == "directory" and "a directory" or "read once (a pipe)", r.evidence))
        if r.summary then
          for _, l in ipairs(text[r.format](r.summary)) do io.stdout:write("  ", l, "\n") end
        elseif r.note then
          io.stdout:write("  ", r.note, "\n")
        end
      end
    end
    if args.json then
      for _, r in ipairs(out) do
        local s = r.summary
        if s and s.matrices then s.matrices = cli.array(s.matrices) end
        if s and s.event_kinds then s.event_kinds = cli.array(s.event_kinds) end
      end
      cli.print_json(cli.array(out))
    end
    return failed and cli.EXIT_INPUT or 0
  end,
}
