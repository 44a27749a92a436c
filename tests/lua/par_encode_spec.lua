-- par.encode / par.decode (bindings/lpar.c): the bytes that par.gather and par.bcast send.
-- Checked against a slow reference encoder written from the format (one tag byte per value:
-- n nil, t / f, i integer (8 bytes little endian), d float (8 bytes), s string (4-byte length),
-- T table: pairs, then a 0 byte) on random nested values, and for exact round trips.
local h = require "helpers"
local par = require "retrace.par"

local function ref_encode(v, out)
  local t = type(v)
  if v == nil then out[#out + 1] = "n"
  elseif t == "boolean" then out[#out + 1] = v and "t" or "f"
  elseif t == "number" then
    if math.type(v) == "integer" then out[#out + 1] = string.pack("<c1i8", "i", v)
    else out[#out + 1] = string.pack("<c1d", "d", v) end
  elseif t == "string" then out[#out + 1] = string.pack("<c1s4", "s", v)
  else
    out[#out + 1] = "T"
    for k, x in pairs(v) do ref_encode(k, out) ref_encode(x, out) end
    out[#out + 1] = "\0"
  end
  return out
end

local function random_value(rnd, depth)
  local k = rnd(depth > 3 and 5 or 6)
  if k == 0 then return rnd(2) == 0
  elseif k == 1 then return rnd(2000001) - 1000000 + (rnd(2) == 0 and 0 or math.mininteger // 3)
  elseif k == 2 then return (rnd(1000000) - 500000) / 7 * 10.0 ^ (rnd(40) - 20)
  elseif k == 3 then
    local s = {}
    for i = 1, rnd(12) do s[i] = string.char(rnd(256)) end
    return table.concat(s)
  elseif k == 4 then return ({ 0.1, -0.0, 1 / 0, -1 / 0, 2 ^ 53 + 1.0, 5e-324 })[rnd(6) + 1]
  end
  local t = {}
  for i = 1, rnd(6) do t[i] = random_value(rnd, depth + 1) end
  for _ = 1, rnd(4) do t["k" .. rnd(100)] = random_value(rnd, depth + 1) end
  if rnd(3) == 0 then t[2.5] = "float key" end
  return t
end

-- a == b, floats by their bits, tables deeply
local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) == "number" then
    return math.type(a) == math.type(b) and string.pack("<n", a) == string.pack("<n", b)
  end
  if type(a) ~= "table" then return a == b end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

describe("par.encode / par.decode", function()
  it("give the format's bytes and the same values back, on random nested values", function()
    local rnd = h.lcg(30)
    for _ = 1, 300 do
      local v = random_value(rnd, 0)
      local s = par.encode(v)
      assert.are.equal(table.concat(ref_encode(v, {})), s)
      assert.is_true(same(v, par.decode(s)))
    end
  end)

  it("keep integers integers and every bit of a float, NaN included", function()
    local v = par.decode(par.encode({ 3, 3.0, math.maxinteger, math.mininteger, 0 / 0, -0.0 }))
    assert.are.equal("integer", math.type(v[1]))
    assert.are.equal("float", math.type(v[2]))
    assert.are.equal(math.maxinteger, v[3])
    assert.are.equal(math.mininteger, v[4])
    assert.is_true(v[5] ~= v[5])
    assert.are.equal(string.pack("<d", -0.0), string.pack("<d", v[6]))
    assert.are.equal("a\0b", par.decode(par.encode("a\0b")))
    assert.is_nil(par.decode(par.encode(nil)))
  end)

  it("refuse what cannot travel, and bytes that are not an encoding", function()
    local t = {}
    t.self = t
    assert.has_error(function() par.encode(t) end, "par.encode: a table that contains itself")
    assert.has_error(function() par.encode({ print }) end, "par.encode: cannot send a function")
    assert.has_error(function() par.decode("x") end, "par.decode: bad tag at byte 1")
    assert.has_error(function() par.decode("i\1\2") end, "par.decode: truncated at byte 2")
    assert.has_error(function() par.decode("T") end, "par.decode: truncated at byte 2")
    assert.has_error(function() par.decode("Tnt\0") end, "par.decode: a nil key at byte 3")
  end)
end)
