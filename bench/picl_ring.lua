-- A PICL ring of P processors (4 P records a step, until `records` are written): each
-- step every processor sends 1 KiB to its right neighbour, then waits in a blocking
-- receive for its left neighbour's message. The same ring as bench_ring_trace in
-- bench_util.h. Used by bench/paragraph_passes.lua and the tests:
--   local ring = dofile("bench/picl_ring.lua"); ring(path, P, records) -> records written
return function(path, P, records)
  local f = assert(io.open(path, "w"))
  local t, written, step = 0, 0, 0
  while written < records do
    local tag = step % 8
    for p = 0, P - 1 do
      t = t + 1e-7
      f:write(string.format("-3 -21 %.7f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + 1) % P))
      t = t + 1e-7
      f:write(string.format("-4 -21 %.7f %d 0 0\n", t, p))
    end
    for p = 0, P - 1 do
      t = t + 1e-7
      f:write(string.format("-3 -52 %.7f %d 0 2 2 %d %d\n", t, p, tag, (p + P - 1) % P))
      t = t + 1e-7
      f:write(string.format("-4 -52 %.7f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + P - 1) % P))
    end
    written, step = written + 4 * P, step + 1
  end
  f:close()
  return written
end
