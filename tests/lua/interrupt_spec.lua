-- Ctrl-C during a long pass in C ends the command at once: the readers poll for the
-- interrupt (the line reader at each refill, the trace sources, the binary reader),
-- the command prints "retrace: interrupted" and exits 130, and a half-written output
-- is removed. The input is large enough (6 M references, seconds of work) that a
-- command that ignored the signal would finish with exit 0 instead.
local h = require "helpers"
local lfs = require "lfs"

describe("Ctrl-C during a C pass", function()
  local dir = h.temp_dir()
  local big = dir .. "/big.din"
  setup(function()
    assert(os.execute(("awk 'BEGIN { for (i = 0; i < 6000000; i++) printf \"%%d %%x\\n\", i %% 3, (i * 2654435761) %% 4294967296 }' > %s")
      :format(h.quote(big))))
  end)
  teardown(function() h.remove_tree(dir) end)

  -- run retrace with args, SIGINT 0.3 s after it is ready for one; exit code, stderr
  local function interrupt(...) return h.interrupted(0.3, ...) end

  it("stops retrace info", function()
    local code, err = interrupt("info", big)
    assert.are.equal(130, code)
    assert.are.equal("retrace: interrupted\n", err)
  end)

  it("stops cache --convert and leaves no converted file", function()
    local code, err = interrupt("cache", big, "--convert", dir .. "/big.bin")
    assert.are.equal(130, code)
    assert.are.equal("retrace: interrupted\n", err)
    for name in lfs.dir(dir) do
      assert.is_nil(name:match("big%.bin"), name)
    end
  end)
end)
