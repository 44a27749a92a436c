-- examples/memspy/tri.lua's tuning steps of the MemSpy case study, checked on the
-- traces they write: step 1 renumbers (each processor writes consecutive x slots,
-- in order) and keeps Ready; step 2 drops Ready; step 3 gives every row to a
-- processor that owns at least as many of the row's inputs as any other.
local h = require "helpers"

local function trace(version, P, G)
  local out = os.tmpname()
  local code, _, err = h.retrace(h.source .. "/examples/memspy/tri.lua", version, tostring(P), tostring(G), out)
  assert(code == 0, err)
  local text = h.slurp(out)
  os.remove(out)
  return text
end

-- The x range, and per processor the x slots written, in order; the Ready bin's presence.
local function parse(text)
  local x = tonumber(text:match("A 0 (%x+) %d+ double%*%.x"), 16)
  local n = tonumber(text:match("A 0 %x+ (%d+) double%*%.x")) // 8
  local writes, events = {}, {}
  for kind, p, addr in text:gmatch("\n([RW]) (%d+) (%x+)") do
    local a = tonumber(addr, 16)
    if a >= x and a < x + 8 * n then
      local slot = (a - x) // 8
      events[#events + 1] = { kind = kind, p = tonumber(p), slot = slot }
      if kind == "W" then
        local w = writes[tonumber(p)] or {}
        writes[tonumber(p)] = w
        w[#w + 1] = slot
      end
    end
  end
  return { writes = writes, events = events, ready = text:find("int*.Ready", 1, true) ~= nil, n = n }
end

describe("examples/memspy/tri.lua tuning steps", function()
  it("step 1: each processor writes consecutive x slots in order, and Ready stays", function()
    local t = parse(trace("step1", 4, 12))
    assert.is_true(t.ready)
    local total = 0
    for p = 0, 3 do
      local w = t.writes[p]
      for i = 2, #w do assert.are.equal(w[i - 1] + 1, w[i], "processor " .. p) end
      total = total + #w
    end
    assert.are.equal(144, total)
    assert.is_true(parse(trace("orig", 4, 12)).ready)
  end)

  it("step 2 (and tuned) drop Ready; seq writes x in order on one processor", function()
    assert.is_false(parse(trace("step2", 4, 12)).ready)
    assert.are.equal(trace("step2", 4, 12), (trace("tuned", 4, 12):gsub("tuned", "step2")))
    local s = parse(trace("seq", 4, 12))
    assert.are.equal(144, #s.writes[0])
  end)

  it("step 3: every row goes to a processor owning the most of its inputs", function()
    local t = parse(trace("step3", 4, 12))
    assert.is_false(t.ready)
    local owner, reads = {}, {}
    local moves = 0
    for _, e in ipairs(t.events) do
      if e.kind == "R" then
        reads[e.p] = reads[e.p] or {}
        table.insert(reads[e.p], e.slot)
      else
        -- the x reads of this row (by its processor since its last write)
        local count = {}
        for _, s in ipairs(reads[e.p] or {}) do
          local o = owner[s]
          count[o] = (count[o] or 0) + 1
        end
        local best = 0
        for _, c in pairs(count) do best = math.max(best, c) end
        assert.are.equal(best, count[e.p] or 0, "row in slot " .. e.slot)
        if (count[e.p] or 0) > 0 then moves = moves + 1 end
        owner[e.slot] = e.p
        reads[e.p] = {}
      end
    end
    assert.truthy(moves > 100) -- most rows find an input at home
  end)

  it("refuses an unknown version (exit 2)", function()
    local code, _, err = h.retrace(h.source .. "/examples/memspy/tri.lua", "step4", "4", "8", os.tmpname())
    assert.are.equal(2, code)
    assert.matches("step1|step2", err, 1, true)
  end)
end)
