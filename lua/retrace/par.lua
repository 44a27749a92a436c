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

-- Encoding: one tag byte per value: n nil, t / f booleans, i integer, d float, s string, T table
-- (pairs until a 0 tag byte).
local pack, unpack = string.pack, string.unpack

local function enc(v, out, seen)
  local t = type(v)
  if v == nil then out[#out + 1] = "n"
  elseif t == "boolean" then out[#out + 1] = v and "t" or "f"
  elseif t == "number" then
    if math.type(v) == "integer" then out[#out + 1] = pack("<c1j", "i", v)
    else out[#out + 1] = pack("<c1d", "d", v) end
  elseif t == "string" then out[#out + 1] = pack("<c1s4", "s", v)
  elseif t == "table" then
    if seen[v] then error("par.encode: a table that contains itself", 3) end
    seen[v] = true
    out[#out + 1] = "T"
    for k, x in pairs(v) do
      enc(k, out, seen)
      enc(x, out, seen)
    end
    out[#out + 1] = "\0"
    seen[v] = nil
  else
    error("par.encode: cannot send a " .. t, 3)
  end
end

function M.encode(v)
  local out = {}
  enc(v, out, {})
  return table.concat(out)
end

local function dec(s, i)
  local tag = s:sub(i, i)
  if tag == "n" then return nil, i + 1
  elseif tag == "t" then return true, i + 1
  elseif tag == "f" then return false, i + 1
  elseif tag == "i" then return unpack("<j", s, i + 1)
  elseif tag == "d" then return unpack("<d", s, i + 1)
  elseif tag == "s" then return unpack("<s4", s, i + 1)
  elseif tag == "T" then
    local t = {}
    i = i + 1
    while s:sub(i, i) ~= "\0" do
      local k, x
      k, i = dec(s, i)
      x, i = dec(s, i)
      t[k] = x
    end
    return t, i + 1
  end
  error("par.decode: bad tag at byte " .. i, 2)
end

function M.decode(s)
  return (dec(s, 1))
end

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
      if r[2] then out[r[1]] = r[3]
      elseif r[1] < first_i then first_error, first_i = r[3], r[1] end
    end
  end
  M.bcast(first_i < math.huge)
  if first_i < math.huge then error(first_error, 0) end
  return out
end

return M
