-- `retrace medea --json` under mpirun: each rank keeps its own processors' parameters
-- (p % N == rank) and rank 0 combines them; the output equals the serial run's byte for byte
-- for N = 1..4 on every sample trace, the MPI capture's archives and a generated 256-location
-- archive (par_helpers). Without mpirun or an MPI build: pending.
local h = require "helpers"
local ph = require "par_helpers"
local GROUP = ... == "more" and "more" or "samples" -- (par_medea_more_spec: the archives)

describe("medea under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    pending(why)
    return
  end

  it("gives the serial parameters exactly with 1 to 4 ranks", function()
    local list, gen = ph.traces(GROUP)
    for _, t in ipairs(list) do
      -- the event approach lists every (processor, event) and their sums; processors: N = 3
      for _, run in ipairs({ { "event", ph.RANKS }, { "processor", { 3 } } }) do
        local args = { "medea", "--json", "--approach", run[1], t }
        local c0, o0, e0 = h.retrace(table.unpack(args))
        for _, n in ipairs(run[2]) do
          local c, o, e = h.mpirun(n, table.unpack(args))
          assert.are.equal(c0, c, t .. " -np " .. n .. ": " .. e)
          assert.are.equal(o0, o, t .. " " .. run[1] .. " -np " .. n)
          assert.are.equal(e0, e, t .. " " .. run[1] .. " -np " .. n)
        end
        if c0 == 0 then assert.truthy(o0:find('"components"', 1, true)) end
      end
    end
    if not gen then pending("build/bench/gen_otf2_mpi absent: the 256-location archive left out") end
  end)

  if GROUP ~= "samples" then return end

  it("ends every rank with exit 1 and one message when the trace is malformed", function()
    local bad = h.temp_file("-3 -21 0.5 zz 1 2 0\n", ".trf")
    local c0, o0, e0 = h.retrace("medea", "--json", "--strict", bad)
    assert.are.equal(1, c0)
    local c, o, e = h.mpirun(3, "medea", "--json", "--strict", bad)
    assert.are.equal(1, c)
    assert.are.equal(o0, o)
    assert.are.equal(e0, e)
    local _, lines = e:gsub("\n", "")
    assert.are.equal(1, lines, e)
    os.remove(bad)
  end)
end)
