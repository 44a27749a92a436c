local pretty = require "retrace.pretty"

describe("retrace.pretty", function()
  it("formats scalars as Lua would read them", function()
    assert.are.equal("42", pretty.format(42))
    assert.are.equal("1.5", pretty.format(1.5))
    assert.are.equal('"a\\nb"', pretty.format("a\nb"))
    assert.are.equal("nil", pretty.format(nil))
    assert.are.equal("true", pretty.format(true))
  end)

  it("prints arrays, then sorted keys, on one line when short", function()
    assert.are.equal('{ 1, 2, a = 1, b = { c = "x" } }', pretty.format({ 1, 2, b = { c = "x" }, a = 1 }))
    assert.are.equal("{}", pretty.format({}))
    assert.are.equal('{ [10] = 2, ["not id"] = 1 }', pretty.format({ ["not id"] = 1, [10] = 2 }))
  end)

  it("breaks long tables over indented lines", function()
    local t = {}
    for i = 1, 30 do t[i] = i * 1000 end
    local s = pretty.format(t)
    assert.truthy(s:find("^{\n  1000,\n  2000,"))
    assert.truthy(s:find("\n}$"))
  end)

  it("marks cycles and stops at the depth limit", function()
    local t = {}
    t.self = t
    assert.are.equal("{ self = <cycle> }", pretty.format(t))
    assert.are.equal("{ a = {...} }", pretty.format({ a = { b = 1 } }, { depth = 1 }))
  end)

  it("elides past max_items", function()
    local t = {}
    for i = 1, 10 do t[i] = i end
    assert.are.equal("{ 1, 2, 3, ... (10 items) }", pretty.format(t, { max_items = 3 }))
  end)
end)
