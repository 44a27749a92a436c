-- A Chitra sequence (PES) as a trace source (core/seq/rt_pes_source.c): one processor whose
-- regions are the sequence's states, read by the PES reader on a thread of its own. What
-- `retrace stats --format pes` and the viewer's index report per state equals the loaded
-- Chitra session's totals (count, holding time) on random sequences of both layouts; the
-- reader's errors reach every command as one line; a source closed early stops its reader.
local h = require "helpers"
local cjson = require "cjson"
local chitra = require "retrace.chitra"
local viewer = require "retrace.viewer"

-- A random PES: names, times in quarters (zero-length states now and then), comments;
-- tuples = the "(STATE,TIME), ..." layout.
local function random_pes(n, tuples)
  local names = { "A", "B", "CA1", "idle", "E2", "T" }
  local t, out = math.random(0, 40) * 0.25, {}
  for i = 1, n do
    t = t + (math.random() < 0.15 and 0 or math.random(1, 12) * 0.25)
    local s = names[math.random(math.random(2, #names))]
    if tuples then
      out[#out + 1] = ("(%s,%s)%s"):format(s, t, i % 5 == 0 and ",\n" or ", ")
    else
      out[#out + 1] = ("%s %s%s\n"):format(s, t, i % 17 == 0 and "  # a comment" or "")
    end
  end
  return h.temp_file(table.concat(out), ".pes")
end

local function totals_of(path) -- the Chitra session's: name -> {count, h}
  local ses = assert(chitra.load(path))
  local t = ses.core:totals()
  ses:close()
  return t
end

local function close(a, b) return math.abs(a - b) <= 1e-9 * math.max(1, math.abs(a), math.abs(b)) end

describe("a PES as a trace source", function()
  it("gives stats per state equal to Chitra's totals, on random sequences of both layouts", function()
    math.randomseed(3131)
    for trial = 1, 12 do
      local p = random_pes(math.random(2, 400), trial % 3 == 0)
      local want = totals_of(p)
      local code, out, err = h.retrace("stats", "--format", "pes", "--json", p)
      assert.are.equal(0, code, err)
      local s = cjson.decode(out)
      assert.are.equal("pes", s.format)
      assert.are.equal(1, #s.processors)
      local got, n = {}, 0
      for id, row in pairs(s.processors[1].events) do
        local name = s.regions[id].name
        got[name] = { count = row.count, h = row.time }
        n = n + 1
      end
      local nwant = 0
      for name, w in pairs(want) do
        nwant = nwant + 1
        assert.is_truthy(got[name], name)
        assert.are.equal(w.count, got[name].count, name)
        assert.is_true(close(w.h, got[name].h), ("%s: %.17g against %.17g"):format(name, got[name].h, w.h))
      end
      assert.are.equal(nwant, n)
      -- "idle" is idle time (its name says so); every other state is busy
      local idle = want.idle and want.idle.h or 0
      assert.is_true(close(idle, s.processors[1].idle), tostring(s.processors[1].idle))
      os.remove(p)
    end
  end)

  it("is what the viewer indexes and summarises (the function summary of the whole run)", function()
    math.randomseed(77)
    local p, dir = random_pes(3000, false), h.temp_dir()
    local want = totals_of(p)
    assert.are.equal("pes", viewer.format_of(p))
    assert.is_nil(viewer.format_of(h.fixtures .. "/mpi/halo2.otf2/traces.otf2"))
    local path, info = assert(viewer.ensure(p, { index = dir .. "/p.rtidx", format = viewer.format_of(p) }))
    assert.are.equal(1, info.procs)
    local srv = assert(viewer.serve(p, path, { format = "pes" }))
    local st, body = srv:query("api/stats")
    assert.are.equal(200, st, body)
    local s = cjson.decode(body)
    srv:close()
    local n = 0
    for _, f in ipairs(s.functions) do
      local w = assert(want[f.name], f.name)
      n = n + 1
      assert.are.equal(w.count, f.calls, f.name)
      assert.is_true(close(w.h, f.exclusive), ("%s: %.17g against %.17g"):format(f.name, f.exclusive, w.h))
    end
    local nwant = 0
    for _ in pairs(want) do nwant = nwant + 1 end
    assert.are.equal(nwant, n)
    h.remove_tree(dir)
    os.remove(p)
  end)

  it("passes the reader's errors on as one line naming the file and line, also far into the file", function()
    for _, at in ipairs({ 3, 20000 }) do
      local lines = {}
      for i = 1, at + 5 do lines[i] = ("S%d %d"):format(i % 7, i) end
      lines[at] = "S1 12x"
      local p = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
      local dir = h.temp_dir()
      for _, argv in ipairs({ { "index", "--output", dir .. "/x.rtidx", p }, { "stats", "--format", "pes", p } }) do
        local code, out, err = h.retrace(table.unpack(argv))
        assert.are.equal(1, code, out)
        assert.truthy(err:find(p .. ":" .. at .. ": time: '12x' is not a number", 1, true), err)
        assert.are.equal(1, select(2, err:gsub("\n", "")), err)
      end
      h.remove_tree(dir)
      os.remove(p)
    end
    -- not a PES at all, named as one
    local code, _, err = h.retrace("stats", "--format", "pes", h.fixtures .. "/paje/small.trace")
    assert.are.equal(1, code)
    assert.truthy(err:find("small.trace:", 1, true), err)
  end)

  it("stops its reader when closed before the end (the reader waits on a full queue)", function()
    local lines = {}
    for i = 1, 60000 do lines[i] = ("S%d %d"):format(i % 5, i) end
    local p = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
    for _ = 1, 20 do
      local rp = assert(require("retrace.replay").open(p, { format = "pes" }))
      rp:close()
    end
    os.remove(p)
  end)
end)
