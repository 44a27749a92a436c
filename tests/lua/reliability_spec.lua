-- Failures a hostile user meets: outputs that cannot be written.
local h = require "helpers"

--- Run retrace with stdout sent to /dev/full; returns the exit code and stderr.
local function to_full(...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
  local err = os.tmpname()
  local _, _, code = os.execute(h.quote(h.bin) .. " " .. table.concat(args, " ") .. " >/dev/full 2>" .. err)
  local e = h.slurp(err)
  os.remove(err)
  return code, e
end

describe("a full disk on standard output", function()
  local full = io.open("/dev/full", "w")
  if not full then
    pending("/dev/full is absent on this system: cannot test a full disk")
    return
  end
  full:close()

  it("fails a script that prints (exit 1, one line naming standard output)", function()
    local code, err = to_full("-e", "print(1)")
    assert.are.equal(1, code)
    assert.are.equal("retrace: standard output: No space left on device\n", err)
  end)

  it("fails retrace picl stats --json", function()
    local code, err = to_full("picl", "stats", "--json", h.source .. "/examples/picl/ring4.trf")
    assert.are.equal(1, code)
    assert.truthy(err:find("standard output: No space left on device", 1, true))
  end)

  it("fails retrace cache on a trace", function()
    local code, err = to_full("cache", h.fixtures .. "/info/refs.din")
    assert.are.equal(1, code)
    assert.truthy(err:find("standard output: No space left on device", 1, true))
  end)

  it("keeps a failing command's own exit code and message", function()
    local code, err = to_full("info", "/nonexistent/trace.shm")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent/trace.shm: No such file or directory", 1, true))
  end)
end)
