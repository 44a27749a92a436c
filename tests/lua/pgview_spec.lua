-- ParaGraph's view in C (retrace.core.pgview) as the animated displays use it:
-- no call into Lua per event, the Trace display and application displays fed
-- with the events of every format.
local h = require "helpers"
local cjson = require "cjson"
local core = require "retrace.core"
local canvas = require "retrace.canvas"

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
  it("replays without calling Lua per event, whatever the displays, PICL records included", function()
    local s = run(fixture, "--display", "gantt,spacetime,comm_matrix,kiviat,node_stats,task_gantt,stats,queues")
    assert.are.equal(0, s.lua_calls)
    assert.is_true(s.events > s.records) -- hand4's send and receive records are two events each
    -- PICL records for the Trace and application displays come from the view's ring in
    -- batches: no call per record, every record once (not once per event), in PICL's words
    local s2 = run(fixture, "--display", "trace", "--app", counter)
    assert.are.equal(0, s2.lua_calls)
    local c = s2.displays.counter
    assert.are.equal(s2.records, c.n)
    local n = {}
    for rec in assert(core.picl.open(fixture)):records() do n[rec.kind] = (n[rec.kind] or 0) + 1 end
    assert.are.same(n, c.kinds)
    local t = s2.displays.trace
    assert.are.equal(s2.records, t.current)
    local cur
    for _, l in ipairs(t.lines) do if l.current then cur = l end end
    assert.are.equal(s2.records, cur.index)
    assert.is_truthy(cur.text:find("P" .. math.tointeger(cur.proc) .. "  " .. "exit", 1, true), cur.text)
  end)

  for _, case in ipairs({ { "otf2/pingpong/traces.otf2", 116 }, { "paraver/qsort_beo3.prv", 1072 },
                          { "paje/ms.trace", 690 } }) do -- ms: 36 events and 654 variable samples (counters)
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

  it("sums the matrix by blocks of processors when they outnumber its pixels", function()
    -- a ring of 200 processors: each sends 64 B to its right neighbour, 3 rounds
    local lines, t = {}, 0
    for _ = 1, 3 do
      for p = 0, 199 do
        t = t + 1e-3
        lines[#lines + 1] = string.format("-3 -21 %.4f %d 0 3 2 64 1 %d", t, p, (p + 1) % 200)
        lines[#lines + 1] = string.format("-4 -21 %.4f %d 0 0", t + 1e-4, p)
      end
      for p = 0, 199 do
        t = t + 1e-3
        lines[#lines + 1] = string.format("-3 -52 %.4f %d 0 2 2 1 %d", t, p, (p + 199) % 200)
        lines[#lines + 1] = string.format("-4 -52 %.4f %d 0 3 2 64 1 %d", t + 1e-4, p, (p + 199) % 200)
      end
    end
    local trace = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
    local out, data = h.temp_dir(), h.temp_dir()
    local code, stdout, err = h.retrace("paragraph", trace, "-o", out, "--json", "--display", "comm_matrix,kiviat",
      "--size", "400x150", "--grid", "2x1", "--data", data)
    assert.are.equal(0, code, err)
    -- --data: the Kiviat's highest radii are a list of 200, zeros included (it was a sparse table, refused)
    local high = cjson.decode(h.slurp(data .. "/summary.json")).displays.kiviat.high
    assert.are.equal(200, #high)
    local mx = 0
    for _ in io.lines(data .. "/matrix.csv") do mx = mx + 1 end
    assert.are.equal(201, mx) -- the header and one line per pair used
    h.remove_tree(data)
    local d = cjson.decode(stdout).displays.comm_matrix
    -- the matrix has under 100 pixels a side (a 198 x 150 panel less axes and legend): squares of 3 processors
    assert.are.equal(3, d.block)
    assert.is_nil(d.bytes) -- no dense table past 64 processors
    local count, bytes = 0, 0
    for _, c in ipairs(d.cells) do
      count, bytes = count + c.count, bytes + c.bytes
      assert.is_true(c.src_pos[2] - c.src_pos[1] <= 2 and c.dst_pos[2] - c.dst_pos[1] <= 2)
      -- a sender's right neighbour lies in its own block or the next (the last wraps to the first)
      local bs, bd = c.src_pos[1] // 3, c.dst_pos[1] // 3
      assert.is_true(bd == bs or bd == bs + 1 or (bs == 66 and bd == 0))
    end
    assert.are.equal(600, count)
    assert.are.equal(600 * 64, bytes)
    local img = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, cjson.decode(stdout).frames)))
    local c = d.cells[1]
    assert.are.equal(c.color, h.pixel_hex(img, c.x + c.w / 2, c.y + c.h / 2))
    h.remove_tree(out)
    os.remove(trace)
  end)

  it("steps one record per frame, and refuses an unknown --layout as a usage error", function()
    local s = run(fixture, "--display", "gantt", "--pace", "records:1")
    assert.are.equal(s.records + 1, s.frames) -- one per record, and the end-of-run frame
    local out = h.temp_dir()
    local code, _, err = h.retrace("paragraph", fixture, "-o", out, "--display", "hypercube", "--layout", "bogus")
    assert.are.equal(2, code)
    assert.are.equal("retrace: --layout 'bogus': use cube, tesseract, polytope, mesh, ring, linear, tree, rings, web, lateral, nested\n", err)
    h.remove_tree(out)
  end)

  it("refuses --zoom in animated runs (usage), and a stats window outside the trace (input)", function()
    local out = h.temp_dir()
    local code, _, err = h.retrace("paragraph", fixture, "-o", out, "--zoom", "1:2")
    assert.are.equal(2, code)
    assert.is_truthy(err:find("--zoom applies to --static and --timeline-html pictures", 1, true))
    h.remove_tree(out)
    code, _, err = h.retrace("stats", fixture, "--from", "100", "--to", "200")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. fixture .. ": window 100 .. 200 s lies outside the trace's span 0 .. 12 s\n", err)
    assert.are.equal(0, (h.retrace("stats", fixture, "--from", "2", "--to", "5")))
  end)

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
