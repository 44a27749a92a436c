-- retrace.json: sorted keys, the values lua-cjson writes, the same bytes every run.
local h = require "helpers"
local cjson = require "cjson"
local json = require "retrace.json"

-- a random value: nested objects and lists of numbers, strings, booleans
local function random_value(depth, rnd)
  local kind = rnd(depth > 3 and 4 or 6)
  if kind == 1 then return rnd(1000) - 500
  elseif kind == 2 then return (rnd(1000) - 500) / 7
  elseif kind == 3 then return ("s%d\"/\\\n"):format(rnd(100))
  elseif kind == 4 then return rnd(2) == 1
  elseif kind == 5 then
    local t = {}
    for i = 1, rnd(6) - 1 do t[i] = random_value(depth + 1, rnd) end
    return t
  else
    local t = {}
    for _ = 1, rnd(6) do t["k" .. rnd(50)] = random_value(depth + 1, rnd) end
    return t
  end
end

local function same(a, b)
  if type(a) ~= type(b) then return false end
  if type(a) ~= "table" then
    if type(a) == "number" then return math.abs(a - b) <= 1e-12 * math.max(1, math.abs(a)) end
    return a == b
  end
  for k, v in pairs(a) do if not same(v, b[k]) then return false end end
  for k in pairs(b) do if a[k] == nil then return false end end
  return true
end

describe("retrace.json", function()
  it("writes an object's keys in sorted order, numbers before strings", function()
    assert.equal('{"1.5":"x","a":[3,2,1],"b":1,"c":{"y":{},"z":1}}',
      json.encode({ b = 1, a = { 3, 2, 1 }, c = { z = 1, y = {} }, [1.5] = "x" }))
    assert.equal('{"2":true,"10":false,"a":null}', json.encode({ [10] = false, [2] = true, a = cjson.null }))
  end)

  it("writes lists as lua-cjson does, holes as null", function()
    assert.equal("[1,2,{\"a\":1},null,5]", json.encode({ 1, 2, { a = 1 }, nil, 5 }))
    assert.equal(cjson.encode({ 1, 2.5, "x/y" }), json.encode({ 1, 2.5, "x/y" }))
    assert.equal("{}", json.encode({}))
  end)

  it("reads back what it wrote, and agrees with lua-cjson up to key order, on random values", function()
    local seed = 7
    local function rnd(n)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % n + 1
    end
    for _ = 1, 300 do
      local v = random_value(0, rnd)
      local text = json.encode(v)
      assert.is_true(same(v, cjson.decode(text)))
      assert.is_true(same(cjson.decode(cjson.encode(v)), cjson.decode(text)))
    end
  end)

  it("refuses what lua-cjson refuses", function()
    assert.has_error(function() json.encode({ f = print }) end)
    assert.has_error(function() json.encode({ [true] = 1 }) end)
  end)

  it("gives the same bytes in separate runs (each with its own hash seed)", function()
    local code = "local t = {} for i = 1, 200 do t['key' .. i] = { i, tostring(i), x = i / 3 } end " ..
                 "io.write(require('retrace.json').encode(t))"
    local _, a = h.retrace("-e", code)
    local _, b = h.retrace("-e", code)
    local _, c = h.retrace("-e", code)
    assert.truthy(#a > 1000)
    assert.equal(a, b)
    assert.equal(a, c)
  end)
end)
