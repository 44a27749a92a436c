-- retrace/shmap_trace.h: the C writer of SHMAP traces. examples/capture/lu_shmap.c, a
-- real blocked LU instrumented with it, must write the very trace the Lua generator
-- examples/shmap/lu.lua writes for the same N and NB; the trace animates.
-- Skips (saying so) without a C compiler.
local H = require "helpers"

local function have(cmd) return os.execute(cmd .. " >/dev/null 2>&1") == true end
local HAVE_CC = have("cc --version")

describe("shmap_trace.h", function()
  local work, prog
  setup(function()
    if not HAVE_CC then return end
    work = H.temp_dir()
    prog = work .. "/lu_shmap"
    assert(have(("cc -O2 -Wall -Wextra -Werror -I %s -o %s %s -lm"):format(H.quote(H.source .. "/core/capture"),
      H.quote(prog), H.quote(H.source .. "/examples/capture/lu_shmap.c"))))
  end)
  teardown(function() if work then H.remove_tree(work) end end)

  it("writes the trace of the Lua generator for the same blocked LU", function()
    if not HAVE_CC then return pending("cc missing: shmap_trace.h not compiled") end
    for _, case in ipairs{ { 16, 4 }, { 13, 5 }, { 7, 7 } } do
      local n, nb = case[1], case[2]
      local c_out, l_out = work .. "/c.shm", work .. "/l.shm"
      local f = io.popen(("%s %d %d %s"):format(H.quote(prog), n, nb, H.quote(c_out)))
      local said = f:read("a")
      assert.is_true(f:close(), said)
      assert.truthy(said:find("max |LU - A| = ", 1, true))
      local code, _, err = H.retrace(H.source .. "/examples/shmap/lu.lua", "blocked", tostring(n), l_out, tostring(nb))
      assert.equal(0, code, err)
      assert.equal(H.slurp(l_out), H.slurp(c_out))
    end
  end)

  it("animates with retrace shmap --frames", function()
    if not HAVE_CC then return pending("cc missing: shmap_trace.h not compiled") end
    local trace = work .. "/lu.shm"
    assert(have(("%s 12 4 %s"):format(H.quote(prog), H.quote(trace))))
    local code, out, err = H.retrace("shmap", trace, "--pes", "4", "--cache-size", "64", "--frames", work .. "/frames")
    assert.equal(0, code, err)
    local frames = tonumber(out:match("(%d+) frames"))
    assert.is_true(frames and frames > 10, out)
    assert.truthy(io.open(work .. "/frames/frame_000001.png"))
  end)

  it("reports a trace it cannot write", function()
    if not HAVE_CC then return pending("cc missing: shmap_trace.h not compiled") end
    local ok, _, rc = os.execute(("%s 8 4 /nonexistent/dir/x.shm 2>/dev/null"):format(H.quote(prog)))
    assert.is_falsy(ok)
    assert.equal(1, rc)
  end)
end)
