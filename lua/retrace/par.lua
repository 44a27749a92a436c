-- retrace.par: the MPI job this process belongs to (core/par, bindings/lpar.c).
--
--   par.rank(), par.size(), par.launched()      -- 0, 1, false when not under mpirun / srun
--   par.gather(value) -> {v0, v1, ...} on rank 0 (rank order), nil elsewhere   (collective)
--   par.bcast(value) -> rank 0's value on every rank                           (collective)
--   par.encode(value) -> string, par.decode(string) -> value
--
-- Values are nil, booleans, numbers, strings and tables of them (no cycles, no functions);
-- they travel exactly: integers stay integers, floats keep every bit, key order is not kept
-- (tables are tables). Every rank must make the same collective calls in the same order.
local core = require "retrace.core"
local c = core.par

local M = {}

M.rank, M.size, M.launched, M.built, M.agree, M.abort = c.rank, c.size, c.launched, c.built, c.agree, c.abort

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

return M
