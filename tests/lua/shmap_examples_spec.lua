-- The SHMAP trace generators in examples/shmap/ write valid traces whose
-- counts follow from the loop nests (worked out for N = 4 below).
local h = require "helpers"
local cjson = require "cjson"

local function gen(script, ...)
  local code, _, err = h.retrace(h.source .. "/examples/shmap/" .. script, ...)
  assert.are.equal(0, code, err)
end

local function run(path, ...)
  local code, out, err = h.retrace("shmap", path, "--json", ...)
  assert.are.equal(0, code, err)
  return cjson.decode(out)
end

describe("examples/shmap generators", function()
  it("write LU in both loop orders with the same work", function()
    -- per k = 1..3: scale loads 1 + (4-k), stores 4-k, flops 4-k; each of the
    -- 4-k updates loads 1 + 2(4-k), stores 4-k, flops 2(4-k):
    -- loads 4+21 + 3+10 + 2+3 = 43, stores 3+9 + 2+4 + 1+1 = 20, flops 21+10+3 = 34
    for _, order in ipairs { "kji", "jki" } do
      local p = os.tmpname()
      gen("lu.lua", order, "4", p)
      local j = run(p, "--no-cache")
      assert.are.same({ 43, 20, 34 }, { j.totals.loads, j.totals.stores, j.totals.flops }, order)
      os.remove(p)
    end
  end)

  it("run the right-looking updates in parallel groups", function()
    local p = os.tmpname()
    gen("lu.lua", "kji", "4", p)
    -- 2 PEs: the info message (the definition is no step), then per k: 4 scale
    -- events one after the other on PE 0, and 4-k update groups of 5 events
    -- (flops, 3 loads, store) on 2 PEs: k=1: 3 groups -> 10 steps, k=2: 2
    -- groups -> 5, k=3: 1 group -> 5
    local j = run(p, "--pes", "2", "--no-cache")
    assert.are.equal(1 + 3 * 4 + 10 + 5 + 5, j.steps)
    os.remove(p)
  end)

  it("write a blocked LU whose multiply runs in parallel and a matrix multiply", function()
    local p = os.tmpname()
    gen("lu.lua", "blocked", "8", p, "4")
    local code, out = h.retrace("info", p)
    assert.are.equal(0, code)
    assert.matches(": shmap ", out)
    local one = run(p, "--pes", "1", "--no-cache")
    local four = run(p, "--pes", "4", "--no-cache")
    assert.are.equal(one.totals.loads, four.totals.loads)
    assert.is_true(four.steps < one.steps)
    os.remove(p)
    gen("matmul.lua", "4", p)
    -- 4 groups of C(:,j) = A B(:,j): loads 16 + 4 + 4, stores 4, flops 32 each
    local mm = run(p, "--pes", "4", "--caches", "4", "--cache-size", "32", "--line", "4")
    for i = 1, 4 do
      assert.are.same({ 24, 4, 32 }, { mm.pes[i].loads, mm.pes[i].stores, mm.pes[i].flops })
      -- A: 4 lines, B(:,j): 1, C(:,j): 1 -> 6 misses, 18 hits in 8-line caches
      assert.are.same({ 18, 6 }, { mm.caches[i].hits, mm.caches[i].misses })
    end
    -- the message (the 3 definitions are no steps), then the 4 groups of 5
    -- events side by side
    assert.are.equal(1 + 5, mm.steps)
    os.remove(p)
  end)
end)
