-- retrace as an MPI job (retrace.par, tests/lua/helpers.lua h.mpirun): the ranks, which rank
-- speaks, failures, and commands spread over the ranks. Skipped, saying so, without mpirun or
-- an MPI build.
local h = require "helpers"

local function skip()
  local ok, why = h.have_mpi()
  if not ok then pending(why) end
  return not ok
end

describe("h.mpirun", function()
  it("starts n ranks of retrace that see one job of size n", function()
    if skip() then return end
    for n = 1, 3 do
      local code, o, e = h.mpirun(n, "-e", [[
        local par = require "retrace.par"
        local all = par.gather({ par.rank(), par.size(), par.launched() })
        if all then
          for _, r in ipairs(all) do io.stderr:write(string.format("%d/%d %s\n", r[1], r[2], tostring(r[3]))) end
        end]])
      assert.are.equal(0, code, e)
      local want = {}
      for r = 0, n - 1 do want[#want + 1] = string.format("%d/%d true\n", r, n) end
      assert.are.equal(table.concat(want), e)
    end
  end)

  it("passes environment variables to every rank", function()
    if skip() then return end
    local code, o, e = h.mpirun(2, { "RETRACE_TEST_WORD=hello" }, "-e", [[
      local par = require "retrace.par"
      local all = par.gather(os.getenv("RETRACE_TEST_WORD"))
      if all then io.stderr:write(table.concat(all, ","), "\n") end]])
    assert.are.equal(0, code, e)
    assert.are.equal("hello,hello\n", e)
  end)
end)
