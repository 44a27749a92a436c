--- retrace.memtrace: memory-reference traces (din, xdin, lackey, the binary
-- format RTMB) read from Lua in batches; the decoding stays in C.
--
--   local memtrace = require "retrace.memtrace"
--   local t = assert(memtrace.open("prog.rtmb"))          -- format detected, or {format = "din"}
--   for b in t:batches(4096) do                          -- b.n records
--     for i = 1, b.n do
--       local addr, size, kind = b.addr[i], b.size[i], b.kind[i]   -- kind: memtrace.READ ...
--     end
--   end
--   t:close()
local core = require "retrace.core"

local M = {}

-- kinds of reference (the numbering of the binary format)
M.READ, M.WRITE, M.IFETCH, M.MISC, M.FLUSH, M.INVALIDATE = 0, 1, 2, 3, 4, 5
M.KIND_NAMES = { [0] = "read", "write", "ifetch", "misc", "flush", "invalidate" }

local Trace = {}
Trace.__index = Trace

--- Open a memory trace. opts.format: din, xdin, lackey or bin (detected when
-- absent). Returns a trace, or nil and a message naming the file.
function M.open(path, opts)
  local fmt = opts and opts.format
  if not fmt then
    local f, err = require("retrace.cache").detect(path)
    if not f then return nil, err end
    fmt = f
  end
  local t, err = core.cache.memtrace_open(path, fmt)
  if not t then return nil, err end
  return setmetatable({ handle = t, format = fmt }, Trace)
end

--- The next batch of at most n records (default 4096):
-- { n = count, addr = {...}, size = {...}, kind = {...} }, or nil at the end.
-- A malformed record raises an error naming file, line and field.
function Trace:read(n)
  return self.handle:read(n)
end

--- Iterator over batches: for b in t:batches(n) do ... end
function Trace:batches(n)
  return function() return self.handle:read(n) end
end

--- Bytes read so far and the file's size (0 when unknown).
function Trace:offset()
  return self.handle:offset()
end

function Trace:close()
  self.handle:close()
end

Trace.__close = Trace.close

return M
