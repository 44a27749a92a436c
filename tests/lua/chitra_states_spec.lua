-- retrace chitra --states processor:P: one processor's event nesting of a
-- message-passing trace as a program execution sequence (innermost open event;
-- busy / overhead / idle outside every event), checked on the hand-made states
-- fixture whose expectations are written in its header.
local h = require "helpers"
local cjson = require "cjson"
local states = require "retrace.chitra.states"

local TRACE = h.fixtures .. "/picl/states.trf"

local function seq(proc)
  local code, out, err = h.retrace("chitra", TRACE, "--states", "processor:" .. proc, "--json")
  assert.equals(0, code, err)
  local d = cjson.decode(out)
  return d.symbols, d.times
end

local function near_all(want, got)
  assert.equals(#want, #got)
  for i = 1, #want do assert.is_true(math.abs(want[i] - got[i]) < 1e-9, i .. ": " .. got[i]) end
end

describe("chitra --states", function()
  it("takes the innermost event as the state", function()
    -- P9: a collective over [1, 2] with a blocked receive inside over [1.25, 1.75]
    local s, t = seq(9)
    assert.same({ "busy", "collective_event_-785", "receive_blocked", "collective_event_-785", "busy" }, s)
    near_all({ 1, 0.25, 0.5, 0.25, 1 }, t)
    -- P10: user event 3 over [1, 2] with a send inside over [1.5, 1.6]
    s, t = seq(10)
    assert.same({ "busy", "user_event_3", "send", "user_event_3", "busy" }, s)
    near_all({ 1, 0.5, 0.1, 0.4, 1 }, t)
  end)

  it("leaves tracing events out and ends at the processor's last record", function()
    -- P8: only a tracing event over [1, 2]: busy all along, one state
    local s, t = seq(8)
    assert.same({ "busy" }, s)
    near_all({ 3 }, t)
    -- P11 has records at 1 and 2 only
    s, t = seq(11)
    assert.same({ "user_event_4" }, s)
    near_all({ 1 }, t)
  end)

  it("refuses a bad processor and a bad option with one-line messages", function()
    local code, _, err = h.retrace("chitra", TRACE, "--states", "processor:99")
    assert.equals(1, code)
    assert.equals("retrace: " .. TRACE .. ": no processor 99 in the trace (processors 0..11)\n", err)
    code, _, err = h.retrace("chitra", TRACE, "--states", "proc:1")
    assert.equals(2, code)
    assert.equals("retrace: --states expects processor:P or processor:P,Q,..., got 'proc:1'\n", err)
  end)

  it("cleans region names into PES symbols", function()
    assert.equals("send_nonblocking", states.clean("send (nonblocking)"))
    assert.equals("user_event_1", states.clean("user event 1"))
  end)

  it("models a real trace's processor", function()
    local f = h.shared_file("picl/mpicl-8a.trf")
    if not f then return pending("../shared/data absent, skipped") end
    local code, out, err = h.retrace("chitra", f, "--states", "processor:0", "--json")
    assert.equals(0, code, err)
    local d = cjson.decode(out)
    assert.is_table(d.chain.states.receive_blocked)
    -- the times add up to the processor's span (first record 7e-6, last 0.115758)
    local sum = 0
    for _, x in ipairs(d.times) do sum = sum + x end
    assert.is_true(math.abs(sum - (0.115758 - 7e-6)) < 1e-9, sum)
  end)
end)
