-- retrace.par: the MPI job this process belongs to (core/par, bindings/lpar.c).
--
--   par.rank(), par.size(), par.launched()      -- 0, 1, false when not under mpirun / srun
--   par.gather(value) -> {v0, v1, ...} on rank 0 (rank order), nil elsewhere   (collective)
--   par.bcast(value) -> rank 0's value on every rank                           (collective)
--   par.encode(value) -> string, par.decode(string) -> value
--   par.spread(n, fn) -> {fn(1), ..., fn(n)} on rank 0, nil elsewhere          (collective)
--   par.speaks() -> true on the rank that writes standard output and files (rank 0)
--   par.solo(on) -> was: work alone (rank 0 of 1) until par.solo(false)
--
-- Values are nil, booleans, numbers, strings and tables of them (no cycles, no functions);
-- they travel exactly: integers stay integers, floats keep every bit, key order is not kept
-- (tables are tables). Every rank must make the same collective calls in the same order.
local core = require "retrace.core"
local c = core.par

local M = {}

M.rank, M.size, M.launched, M.built, M.agree, M.abort = c.rank, c.size, c.launched, c.built, c.agree, c.abort
M.speaks, M.solo, M.settle, M.settled, M.mark_settled, M.silence =
  c.speaks, c.solo, c.settle, c.settled, c.mark_settled, c.silence

-- Encoding (bindings/lpar.c): one tag byte per value: n nil, t / f booleans, i integer, d float,
-- s string, T table (pairs until a 0 tag byte).
M.encode, M.decode = c.encode, c.decode

function M.gather(v)
  local got = c.gather(M.encode(v))
  if not got then return nil end
  for i, s in ipairs(got) do got[i] = M.decode(s) end
  return got
end

function M.bcast(v)
  return M.decode(c.bcast(M.rank() == 0 and M.encode(v) or ""))
end

--- Independent items 1..n spread over the ranks: item i runs on rank (i - 1) % size, alone
-- (par.solo: whatever fn opens is read serially on that rank). Returns the list of fn(i)
-- (one value each; nil allowed) in item order on rank 0, nil on the other ranks. When items
-- fail, every rank raises: rank 0 the error of the first failing item (the serial run's),
-- the others an error without a message (the job reports rank 0's). Not launched: fn(1..n)
-- in order, an error stops it there.
function M.spread(n, fn)
  local size, rank = M.size(), M.rank()
  if size == 1 then
    local out = {}
    for i = 1, n do out[i] = fn(i) end
    return out
  end
  local mine = {} -- [k] = {i, ok, value or error} for this rank's items
  local was = M.solo(true)
  for i = rank + 1, n, size do
    local ok, v = pcall(fn, i)
    if ok then ok, v = pcall(M.encode, v) end -- a value that cannot travel fails its item
    if not ok and type(v) ~= "table" then v = tostring(v) end -- errors travel as text or cli's tables
    mine[#mine + 1] = { i, ok, v }
    if not ok then break end -- the serial run stops at its first failure too
  end
  M.solo(was)
  local all = M.gather(mine)
  if not all then
    -- other ranks: fail with rank 0 when any item failed (rank 0 knows: it tells)
    if M.bcast(nil) then error({ exit = 1 }, 0) end
    return nil
  end
  local out, first_error, first_i = {}, nil, math.huge
  for _, list in ipairs(all) do
    for _, r in ipairs(list) do
      if r[2] then out[r[1]] = M.decode(r[3])
      elseif r[1] < first_i then first_error, first_i = r[3], r[1] end
    end
  end
  M.bcast(first_i < math.huge)
  if first_i < math.huge then error(first_error, 0) end
  return out
end

return M
