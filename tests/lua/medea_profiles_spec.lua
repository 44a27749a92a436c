-- `medea --profiles` writes each trace's profiles as the trace is read, from the
-- accumulator's change points in batches (never the whole profile in memory): the file
-- must hold the bytes retrace.json gives for the profiles read whole (medea.profiles),
-- on real traces, on a trace whose change points fill many blocks of the temporary file
-- (and come in several sorted runs), and on one with empty profiles.
local h = require "helpers"
local medea = require "retrace.medea"
local json = require "retrace.json"
local core = require "retrace.core"

-- The file the whole-profile path wrote: json.encode of {{trace, profiles}, ...}.
local function whole(paths)
  local list = {}
  for i, p in ipairs(paths) do
    local acc = assert(medea.accumulate(p, false, true))
    list[i] = { trace = p, profiles = medea.profiles(acc) }
    acc:close()
  end
  return json.encode(list) .. "\n"
end

-- PICL ping-pong of n records: the processors trade 1 KiB messages, each waiting in -52.
local function pingpong(n)
  local lines = {}
  for k = 0, n // 4 - 1 do
    local a, b, t = k % 2, 1 - k % 2, k * 4e-6
    lines[#lines + 1] = ("-3 -52 %.6f %d 0 2 2 7 %d\n-3 -21 %.6f %d 0 3 2 1024 7 %d\n-4 -21 %.6f %d 0 0\n" ..
      "-4 -52 %.6f %d 0 3 2 1024 7 %d\n"):format(t, b, a, t + 1e-6, a, b, t + 2e-6, a, t + 3e-6, b, a)
  end
  return h.temp_file(table.concat(lines), ".trf")
end

describe("medea --profiles, streamed", function()
  it("writes what the profiles read whole give, for one trace and for several", function()
    local paths = {}
    for _, name in ipairs({ "fft-16.trf", "mpicl-10.trf" }) do
      paths[#paths + 1] = h.shared_file("picl/" .. name)
    end
    if #paths == 0 then
      pending("../shared is absent: the real traces are not there")
      return
    end
    paths[#paths + 1] = h.fixtures .. "/medea/table5.trf"
    for _, list in ipairs({ { paths[#paths] }, paths }) do
      local out = os.tmpname()
      local code, _, err = h.retrace("medea", "--profiles", out, table.unpack(list))
      assert.are.equal(0, code, err)
      assert.are.equal(whole(list), h.slurp(out))
      os.remove(out)
    end
  end)

  it("writes a long trace's profiles, their points read back from the temporary file", function()
    local p = pingpong(200000) -- 50 000 messages: about 100 000 change points an activity
    local out = os.tmpname()
    local code, _, err = h.retrace("medea", "--profiles", out, p)
    assert.are.equal(0, code, err)
    local text = h.slurp(out)
    assert.are.equal(whole({ p }), text)
    -- the hand-worked shape: in round k the sender (k % 2) is in its send from 4k + 1 to
    -- 4k + 2 us, so the send profile is 1 on [4k + 1, 4k + 2) and 0 between
    local send = require("cjson").decode(text)[1].profiles.send
    assert.are.equal(2 * 50000, #send.times)
    for k = 0, 49999, 997 do
      assert.is_true(math.abs(send.times[2 * k + 1] - (4 * k + 1) * 1e-6) < 1e-12)
      assert.are.equal(1, send.counts[2 * k + 1])
      assert.are.equal(0, send.counts[2 * k + 2])
    end
    os.remove(out)
    os.remove(p)
  end)

  it("the batches of a profile fed out of time order are the profile read whole", function()
    -- processor by processor: every block of change points starts before the last one
    -- ended, so each is a run of its own that the reading merges
    local acc = core.medea.new(true)
    math.randomseed(31)
    for proc = 0, 3 do
      local t = 0
      for _ = 1, 30000 do
        local ev = ({ -21, -52, -201, -761 })[math.random(4)]
        acc:add(-3, ev, t, proc, 8)
        t = t + math.random() * 1e-3
        acc:add(-4, ev, t, proc, 8)
        t = t + math.random() * 1e-3
      end
    end
    for _, which in ipairs({ "exec", "comp", "comm", "recv", "send", "io" }) do
      local t, c = acc:profile(which)
      local bt, bc, n = {}, {}, 0
      acc:profile_batches(which, 777, function(times, counts)
        assert.is_true(#times <= 777)
        n = n + 1
        table.move(times, 1, #times, #bt + 1, bt)
        table.move(counts, 1, #counts, #bc + 1, bc)
      end)
      assert.are.equal(math.max(1, math.ceil(#t / 777)), n)
      assert.are.same(t, bt)
      assert.are.same(c, bc)
      for i = 2, #bt do assert.is_true(bt[i] > bt[i - 1]) end
    end
    -- an error in the function is raised again (the cursor closed: no leak under ASan)
    assert.has_error(function()
      acc:profile_batches("comp", 10, function() error("stop here") end)
    end, "stop here")
    acc:close()
  end)
end)
