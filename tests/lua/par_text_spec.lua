-- Paraver and Pajé under mpirun: a Paraver trace is read in byte ranges (each rank parses its
-- range and routes the records to the ranks that replay them), a Pajé trace by rank 0 and
-- routed. The results and the warnings must be the serial run's, byte for byte: a state value
-- the .pcf does not name is told once, at its first line in the file, whichever rank holds it.
local h = require "helpers"

-- threads 1..T; each thread runs states 1 (named), 7 and 9 (not in the .pcf) and sends one message
-- to the next thread; value 9 first appears on the last thread, 7 on thread 2
local function prv_text(T)
  local lines = { ("#Paraver (01/01/20 at 10:00):%d_ns:1(%d):1:%d(%s),0"):format(100 * T + 100, T, T,
    ("1:1,"):rep(T):sub(1, -2)) }
  local function state(th, a, b, v) lines[#lines + 1] = ("1:%d:1:%d:1:%d:%d:%d"):format(th, th, a, b, v) end
  for th = 1, T do state(th, 0, 10, 1) end
  state(2, 10, 20, 7)
  state(T, 10, 20, 9)
  for th = 1, T do
    if th ~= 2 and th ~= T then state(th, 10, 20, 7) end
  end
  for th = 1, T do state(th, 20, 30, 9) end
  for th = 1, T do state(th, 30, 40 + th, 1) end
  for th = 1, T do
    local to = th % T + 1
    local t = 30 + th
    -- 3:sender cpu:appl:task:thread:logical send:physical send:receiver cpu:appl:task:thread:
    -- logical receive:physical receive:size:tag
    lines[#lines + 1] = ("3:%d:1:%d:1:%d:%d:%d:1:%d:1:%d:%d:8:%d"):format(th, th, t, t, to, to, t + 5, t + 6, th)
  end
  return table.concat(lines, "\n") .. "\n"
end

local PCF = "STATES\n0    Idle\n1    Running\n"

local function run_all(trace, args)
  local code, serial, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  for n = 1, 4 do
    local c, out, e = h.mpirun(n, table.unpack(args))
    assert.are.equal(0, c, trace .. " on " .. n .. " ranks: " .. e)
    -- (paragraph's count of passes is the serial run's own: each rank reads its part)
    assert.are.equal(serial:gsub('"reads":%d+,', ""), (out:gsub('"reads":%d+,', "")), trace .. " on " .. n .. " ranks")
    assert.are.equal(err, e, trace .. " on " .. n .. " ranks: warnings")
  end
  return serial, err
end

describe("Paraver and Paje under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    it("needs mpirun (" .. why .. ")", function() pending(why) end)
    return
  end

  it("a Paraver trace read in ranges: the serial statistics, each unnamed state told once", function()
    local dir = h.temp_dir()
    local trace = h.paraver(dir, prv_text(6), PCF)
    local out = run_all(trace, { "stats", "--json", trace })
    local j = require("cjson").decode(out)
    local told = {}
    for _, w in ipairs(j.warnings) do
      local line, v = w:match(":(%d+): state: value (%d+) is not in the %.pcf")
      if v then
        assert.is_nil(told[v], "value " .. v .. " told twice")
        told[v] = tonumber(line)
      end
    end
    -- value 7 first on line 8 (thread 2's second state), 9 on line 9 (thread 6's), header on line 1
    assert.are.same({ ["7"] = 8, ["9"] = 9 }, told)
    assert.are.equal(6, #j.processors)
    -- the regions of both values are defined on rank 0 too (it replays neither first record at 2+ ranks)
    local names = {}
    for _, r in pairs(j.regions) do names[#names + 1] = r.name end
    table.sort(names)
    assert.are.same({ "Idle", "Running", "state 7", "state 9" }, names)
  end)

  it("paragraph --static --json on the Paraver trace: the serial numbers", function()
    local dir = h.temp_dir()
    local trace = h.paraver(dir, prv_text(5), PCF)
    run_all(trace, { "paragraph", "--static", "--json", "-o", dir .. "/g.png", trace })
  end)

  it("the shared Paraver and Paje samples: the serial statistics and warnings", function()
    local any = false
    for _, rel in ipairs({ "paraver/qsort_beo3.prv", "paje/ms.trace", "paje/simu-mardi.trace" }) do
      local p = h.shared_file(rel)
      if p then
        any = true
        run_all(p, { "stats", "--json", p })
      end
    end
    if not any then pending("../shared/data absent") end
  end)
end)
