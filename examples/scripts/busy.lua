-- An analysis script: replay a message-passing trace (any format retrace reads)
-- and print each processor's share of busy, overhead and idle time and what it sent.
--   retrace examples/scripts/busy.lua examples/picl/ring4.trf
local replay = require "retrace.replay"

local path = assert(arg[1], "usage: retrace examples/scripts/busy.lua TRACE")
local rp = assert(replay.open(path))
rp:run()
local t0, t1 = rp:span()
print(("%s: %d processors, %.6f s"):format(path, rp:nprocs(), t1 - t0))
print("proc    busy  overhead   idle   sent  bytes")
for p = 0, rp:nprocs() - 1 do
  local s = rp:proc(p)
  local total = s.busy + s.overhead + s.idle
  print(("%4d  %5.1f%%  %7.1f%%  %5.1f%%  %5d  %5d"):format(p, 100 * s.busy / total,
    100 * s.overhead / total, 100 * s.idle / total, s.sent, s.sent_bytes))
end
