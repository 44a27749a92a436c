-- retrace.json: JSON text whose objects list their keys in sorted order, so that
-- the same value gives the same bytes in every run (Lua's table order changes
-- from run to run with its hash seed). Values as lua-cjson writes them; lists
-- whose items are all plain values (the bulk of a large document: series,
-- matrices' rows, sequences) go to lua-cjson whole.
--   json.encode(v) -> text
local cjson = require "cjson"

local M = {}

local cencode = cjson.encode
local mtype, type, tostring, sort, concat = math.type, type, tostring, table.sort, table.concat

-- The largest key when every key of t is a positive integer, else nil (0 for {}).
local function array_max(t)
  local max = 0
  for k in pairs(t) do
    if mtype(k) ~= "integer" or k < 1 then return nil end
    if k > max then max = k end
  end
  return max
end

--- The order of keys: by type name (numbers before strings), then by value.
function M.key_less(a, b)
  local ta, tb = type(a), type(b)
  if ta ~= tb then return ta < tb end
  if ta == "number" or ta == "string" then return a < b end
  return tostring(a) < tostring(b)
end
local key_less = M.key_less

local encode_into

local function encode_table(t, out, n, depth)
  if depth > 1000 then error("Cannot serialise, excessive nesting (1001)", 0) end
  local max = array_max(t)
  if max then
    local plain = true
    for i = 1, max do
      if type(t[i]) == "table" then plain = false break end
    end
    if plain then -- lua-cjson's own rules: {} as an object, sparse lists
      n = n + 1
      out[n] = cencode(t)
      return n
    end
    n = n + 1
    out[n] = "["
    for i = 1, max do
      if i > 1 then n = n + 1; out[n] = "," end
      local v = t[i]
      if v == nil then n = n + 1; out[n] = "null" else n = encode_into(v, out, n, depth + 1) end
    end
    n = n + 1
    out[n] = "]"
    return n
  end
  local keys, nk = {}, 0
  for k in pairs(t) do
    nk = nk + 1
    keys[nk] = k
  end
  sort(keys, key_less)
  n = n + 1
  out[n] = "{"
  for i = 1, nk do
    local k = keys[i]
    if i > 1 then n = n + 1; out[n] = "," end
    local tk = type(k)
    if tk ~= "string" and tk ~= "number" then
      error("Cannot serialise " .. tk .. ": table key must be a number or string", 0)
    end
    n = n + 1
    out[n] = cencode(tostring(k))
    n = n + 1
    out[n] = ":"
    n = encode_into(t[k], out, n, depth + 1)
  end
  n = n + 1
  out[n] = "}"
  return n
end

function encode_into(v, out, n, depth)
  if type(v) == "table" then
    return encode_table(v, out, n, depth)
  end
  n = n + 1
  out[n] = cencode(v)
  return n
end

--- v as JSON text, objects' keys sorted (numbers before strings).
function M.encode(v)
  local out = {}
  local n = encode_into(v, out, 0, 0)
  return concat(out, "", 1, n)
end

return M
