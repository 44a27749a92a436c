-- ParaGraph's view in C (retrace.core.pgview) as the animated displays use it:
-- no call into Lua per event, the Trace display and application displays fed
-- with the events of every format.
local h = require "helpers"
local cjson = require "cjson"
local core = require "retrace.core"

local fixture = h.fixtures .. "/paragraph/hand4.trf"

-- An application display that counts the records it is handed, by kind.
local counter = h.temp_file([[
local M = { id = "counter" }
function M.new()
  local d = { n = 0, kinds = {} }
  function d:record(rec)
    self.n = self.n + 1
    self.kinds[rec.kind] = (self.kinds[rec.kind] or 0) + 1
  end
  function d:draw(cv, rect) cv:text(rect.x + 4, rect.y + 4, tostring(self.n), { valign = "top" }) end
  function d:data() return { n = self.n, kinds = self.kinds } end
  return d
end
return M
]], ".lua")

local function run(trace, ...)
  local out = h.temp_dir()
  local code, stdout, err = h.retrace("paragraph", trace, "-o", out, "--json", ...)
  assert.are.equal(0, code, err)
  h.remove_tree(out)
  return cjson.decode(stdout)
end

describe("paragraph's view", function()
  it("replays without calling Lua per event, whatever the displays (PICL records aside)", function()
    local s = run(fixture, "--display", "gantt,spacetime,comm_matrix,kiviat,node_stats,task_gantt,stats,queues")
    assert.are.equal(0, s.lua_calls)
    assert.is_true(s.events > s.records) -- hand4's send and receive records are two events each
    -- PICL records for the Trace display come through the replay's record callback, one call each
    local s2 = run(fixture, "--display", "trace")
    assert.are.equal(s2.records, s2.lua_calls)
  end)

  for _, case in ipairs({ { "otf2/pingpong/traces.otf2", 116 }, { "paraver/qsort_beo3.prv", 1072 },
                          { "paje/ms.trace", 36 } }) do
    it("hands the Trace and application displays every event of " .. case[1], function()
      local trace = h.shared_file(case[1])
      if not trace then
        pending("../shared is absent: " .. case[1] .. " not tested")
        return
      end
      local s = run(trace, "--display", "trace", "--app", counter)
      assert.are.equal(0, s.lua_calls)
      assert.are.equal(case[2], s.events)
      local c = s.displays.counter
      assert.are.equal(case[2], c.n)
      assert.is_true((c.kinds.send or 0) > 0 and c.kinds.send == c.kinds.receive)
      local t = s.displays.trace
      assert.are.equal(case[2], t.current)
      local cur
      for _, l in ipairs(t.lines) do if l.current then cur = l end end
      assert.are.equal(case[2], cur.index)
      assert.is_truthy(cur.text:find("P" .. math.tointeger(cur.proc), 1, true))
    end)
  end

  it("is made on a replay and refuses bad options and closed views", function()
    local rp = assert(require("retrace.replay").new(fixture))
    assert.has_error(function() core.pgview.new(rp, { procs = 0 }) end)
    local v, err = core.pgview.new(rp, { procs = 4, from = 5, to = 1 })
    assert.is_nil(v)
    assert.is_truthy(err:find("window", 1, true))
    v = assert(core.pgview.new(rp, { procs = 4, t0 = 0 }))
    rp:run()
    v:sync(18)
    local st = v:states()
    for p = 0, 3 do assert.is_true(st[p] >= 0 and st[p] <= 2) end
    local total = 0
    for _, q in ipairs(v:matrix()) do total = total + q.count end
    assert.are.equal(rp:totals().messages, total)
    assert.are.equal(4, v:grids().state:size())
    v:close()
    assert.has_error(function() v:info() end)
  end)
end)
