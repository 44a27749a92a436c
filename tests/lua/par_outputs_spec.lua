-- paragraph --export chrome-json and --timeline-html under mpirun: the files are the serial
-- run's, byte for byte, for 1 to 4 ranks (the timeline's raster drawn by every rank on its own
-- processors' rows and combined on rank 0; the export written by rank 0), on the shared samples
-- of every format and the MPI capture's archive.
local h = require "helpers"

local function slurp(p)
  local f = assert(io.open(p, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function traces()
  local list = {}
  for _, rel in ipairs({ "picl/fft-16.trf", "paraver/qsort_beo3.prv", "paje/ms.trace", "otf2/pingpong/traces.otf2" }) do
    local p = h.shared_file(rel)
    if p then list[#list + 1] = p end
  end
  list[#list + 1] = h.fixtures .. "/mpi/halo2.otf2/traces.otf2"
  return list
end

describe("paragraph's exports under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    it("needs mpirun (" .. why .. ")", function() pending(why) end)
    return
  end

  for _, trace in ipairs(traces()) do
    it("chrome-json and the HTML timeline of " .. trace .. " are the serial run's", function()
      local dir = h.temp_dir()
      local json, html = dir .. "/t.json", dir .. "/t.html"
      local args = { "paragraph", "--export", "chrome-json", json, "--timeline-html", html, "--json", trace }
      local code, out, err = h.retrace(table.unpack(args))
      assert.are.equal(0, code, err)
      local j0, h0 = slurp(json), slurp(html)
      assert.truthy(j0:find('"traceEvents"', 1, true))
      assert.truthy(h0:find("<html", 1, true) or h0:find("<!DOCTYPE", 1, true))
      for n = 1, 4 do
        os.remove(json)
        os.remove(html)
        local c, o, e = h.mpirun(n, table.unpack(args))
        assert.are.equal(0, c, trace .. " on " .. n .. " ranks: " .. e)
        -- (the count of passes is the serial run's own: each rank reads its part)
        assert.are.equal(out:gsub('"reads":%d+,', ""), (o:gsub('"reads":%d+,', "")), trace .. " on " .. n .. " ranks: stdout")
        assert.are.equal(err, e, trace .. " on " .. n .. " ranks: stderr")
        assert.is_true(slurp(json) == j0, trace .. " on " .. n .. " ranks: chrome-json differs")
        assert.is_true(slurp(html) == h0, trace .. " on " .. n .. " ranks: timeline differs")
      end
    end)
  end
end)
