-- retrace medea, issue 18 items 1, 3, 4: an unclosed user event counted with the
-- replay's closing time, old-format communication from the compstats records, and
-- traces of statistics records only (minimal fixtures; the real PICL traces when
-- ../shared/data is there).
local h = require "helpers"
local medea = require "retrace.medea"
local cjson = require "cjson"

local F = h.fixtures .. "/medea/"

local function json_of(...)
  local code, out, err = h.retrace("medea", ...)
  assert.equals(0, code, err)
  return cjson.decode(out), err
end

local function near(a, b) assert.is_true(math.abs(a - b) < 1e-12, tostring(a) .. " ~= " .. tostring(b)) end

-- ctime >= stime + utime, and an event with children counted is counted itself
local function check_events(comps, label)
  for _, c in ipairs(comps) do
    local p = c.params
    assert.is_true(p.ctime >= p.stime + p.utime - 1e-9 * math.max(1, p.ctime),
      label .. " " .. c.name .. ": ctime " .. p.ctime .. " < stime + utime " .. (p.stime + p.utime))
    if p.snum > 0 or p.unum > 0 then
      assert.is_true(p.cnum >= 1, label .. " " .. c.name .. ": cnum 0 with snum/unum > 0")
    end
  end
end

describe("medea unclosed events", function()
  it("counts an event left open with the replay's closing time", function()
    -- event 2 opens at 0 and never closes; the wait inside it runs .1 to .2
    local j = json_of(F .. "unclosed.trf", "--approach", "event", "--json")
    assert.equals(1, #j.components)
    local p = j.components[1].params
    near(0.2, p.ctime) -- closed at processor 0's last record, .2
    near(0.1, p.stime)
    assert.equals(1, p.cnum)
    assert.equals(1, p.snum)
    local acc = assert(medea.accumulate(F .. "unclosed.trf"))
    assert.equals(1, acc:processors()[1].unclosed)
    acc:close()
  end)

  it("closes what acc:add left open on acc:finish", function()
    local acc = require("retrace.core").medea.new()
    assert(acc:add(-3, 5, 1.0, 0))
    assert(acc:add(-3, 7, 1.5, 0))
    assert(acc:add(-2, 0, 3.0, 0))
    assert(acc:finish())
    local ev = {}
    for _, e in ipairs(acc:events()) do ev[e.event] = e end
    near(2.0, ev[5].ctime)
    near(1.5, ev[5].utime)
    assert.equals(1, ev[5].unum)
    near(1.5, ev[7].ctime)
    acc:close()
  end)

  for _, name in ipairs { "mpicl-8a", "mpicl-8b", "mpicl-10" } do
    it("keeps ctime >= stime + utime and cnum >= 1 on " .. name, function()
      local f = h.shared_file("picl/" .. name .. ".trf")
      if not f then return pending("../shared/data absent, skipped") end
      for _, which in ipairs { "per-processor", "summed" } do
        local j = json_of(f, "--approach", "event", "--components", which, "--json")
        assert.is_true(#j.components > 0)
        check_events(j.components, name .. " " .. which)
      end
    end)
  end
end)

describe("medea old-format communication", function()
  it("charges the calls the compstats counter brackets", function()
    -- a send 200..500 us (counter 0 -> 300) and a receive 700..900 us (300 -> 500)
    local j = json_of(F .. "old-compstats.trf", "--approach", "processor", "--json")
    local p = j.components[1].params
    near(300e-6, p.trtime)
    near(200e-6, p.rctime)
    near(500e-6, p.cmtime)
    near(1000e-6 - 500e-6, p.cptime)
    assert.equals(1, p.trnum)
    assert.equals(1, p.rcnum)
  end)

  it("gives fft-16 communication time on every processor", function()
    local f = h.shared_file("picl/fft-16.trf")
    if not f then return pending("../shared/data absent, skipped") end
    local j = json_of(f, "--approach", "processor", "--json")
    assert.equals(16, #j.components)
    local sends = 0
    for _, c in ipairs(j.components) do
      assert.is_true(c.params.trtime > 0 and c.params.rctime > 0, c.name)
      sends = sends + c.params.trnum
    end
    assert.equals(64, sends)
    -- processor 0: sends 480..901, 1728..2131, 2903..3307, 4081..4407 us
    near((421 + 403 + 404 + 326) * 1e-6, j.components[1].params.trtime)
  end)
end)

describe("medea statistics-only traces", function()
  it("reads the parameters from the statistics records and says so", function()
    local j, err = json_of(F .. "stats-only.trf", "--approach", "processor", "--json")
    assert.truthy(err:find("stats-only.trf: statistics records only (-101..-105): processor parameters "
      .. "read from them", 1, true), err)
    assert.same({ F .. "stats-only.trf" }, j.statistics_only)
    local p = j.components[1].params
    near(0.25, p.trtime)
    near(0.5, p.rctime)
    near(0.125, p.iotime)
    assert.equals(3, p.trnum)
    assert.equals(2, p.rcnum)
    assert.equals(4096, p.trdata)
    assert.equals(2048, p.rcdata)
    near(2.0, p.extime)
    near(2.0 - 0.875, p.cptime)
    near(0.75, j.components[2].params.trtime)
  end)

  it("refuses the event approach on them with a message", function()
    local code, _, err = h.retrace("medea", F .. "stats-only.trf", "--approach", "event")
    assert.equals(1, code)
    assert.truthy(err:find("retrace: no workload components in the traces given (statistics records only: "
      .. "no user events for the event approach)", 1, true), err)
  end)

  it("leaves statistics aside when the trace has events", function()
    local f = h.temp_file("-3 -21 0 0 0 0\n-4 -21 0.5 0 0 0\n-101 0 1.0 0 0 2 2 -21 9\n", ".trf")
    local j = json_of(f, "--approach", "processor", "--json")
    near(0.5, j.components[1].params.trtime)
    assert.same({}, j.statistics_only)
    os.remove(f)
  end)
end)
