-- Ctrl-C during a long pass in C ends the command at once: the readers poll for the
-- interrupt (the line reader at each refill, the trace sources, the binary reader),
-- the command prints "retrace: interrupted" and exits 130, and a half-written output
-- is removed. The trace comes from an endless pipe ("yes"), so a command that ignored
-- the signal would never finish (the helper's timeout ends it, exit 124), however
-- fast the machine: no timing decides the outcome.
local h = require "helpers"
local lfs = require "lfs"

describe("Ctrl-C during a C pass", function()
  local dir = h.temp_dir()
  teardown(function() h.remove_tree(dir) end)

  -- SIGINT 0.3 s after retrace is ready for one, its input an endless din trace
  local function interrupt(...)
    return h.interrupted({ after = 0.3, feed = "yes '0 10a4f8'" }, ...)
  end

  it("stops retrace info", function()
    local code, err = interrupt("info", "-")
    assert.are.equal(130, code)
    assert.are.equal("retrace: interrupted\n", err)
  end)

  it("stops cache --convert and leaves no converted file", function()
    local code, err = interrupt("cache", "-", "--convert", dir .. "/big.bin")
    assert.are.equal(130, code)
    assert.are.equal("retrace: interrupted\n", err)
    for name in lfs.dir(dir) do
      assert.is_nil(name:match("big%.bin"), name)
    end
  end)

  it("stops cache on the simulation pass", function()
    local code, err = interrupt("cache", "-", "--size", "4k")
    assert.are.equal(130, code)
    assert.are.equal("retrace: interrupted\n", err)
  end)
end)
