-- `retrace paragraph --static --json` under mpirun: each rank draws the raster rows of its own
-- processors (the distributed replay's owners: blocks of locations for OTF2, p % N for text)
-- and the messages they receive, rank 0 sums the rasters (whole units
-- of a column, so exactly) and draws; numbers and PNG bytes equal the serial run's for N = 1..4
-- on every sample trace, the MPI capture's archives and a generated 256-location archive
-- (par_helpers); in gray at another size with N = 3. Without mpirun or an MPI build: pending.
local h = require "helpers"
local ph = require "par_helpers"
local GROUP = ... == "more" and "more" or "samples" -- (par_static_more_spec: the archives)
local cjson = require "cjson"

describe("paragraph --static under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    pending(why)
    return
  end

  it("gives the serial numbers and the same PNG bytes with 1 to 4 ranks", function()
    local d = h.temp_dir()
    local list, gen = ph.traces(GROUP)
    for _, t in ipairs(list) do
      for _, run in ipairs({ { {}, ph.RANKS }, { { "--gray", "--mix", "--size", "640x300" }, { 3 } } }) do
        local function go(n, out)
          local args = { "paragraph", "--static", "-o", out, "--json", table.unpack(run[1]) }
          args[#args + 1] = t
          if n == 0 then return h.retrace(table.unpack(args)) end
          return h.mpirun(n, table.unpack(args))
        end
        local c0, o0, e0 = go(0, d .. "/serial.png")
        assert.are.equal(0, c0, t .. ": " .. e0)
        local png0 = h.slurp(d .. "/serial.png")
        assert.are.equal("\137PNG", png0:sub(1, 4))
        local j0 = cjson.decode(o0)
        assert.truthy(j0.static.rows >= 1)
        assert.are.equal(2, j0.reads) -- (the serial run's passes; a rank counts its parts)
        j0.reads = nil
        for _, n in ipairs(run[2]) do
          local out = d .. "/np" .. n .. ".png"
          local c, o, e = go(n, out)
          assert.are.equal(0, c, t .. " -np " .. n .. ": " .. e)
          local j = cjson.decode(o)
          assert.are.equal(out, j.static.file)
          j.static.file = j0.static.file
          j.reads = nil
          j.text = j.text:gsub("np" .. n .. "%.png", "serial.png")
          assert.are.same(j0, j, t .. " -np " .. n)
          assert.are.equal(e0, e, t .. " -np " .. n) -- (rank 0 alone speaks)
          assert.is_true(png0 == h.slurp(out), t .. " -np " .. n .. ": the PNG differs")
        end
      end
    end
    h.remove_tree(d)
    if not gen then pending("build/bench/gen_otf2_mpi absent: the 256-location archive left out") end
  end)

  if GROUP ~= "samples" then
    -- the split is real: each rank reads its own part (RETRACE_PAR_STATS counts what it read),
    -- in the pre-pass and in the drawing pass, for the static picture and for the HTML
    -- timeline's raster alike
    it("reads every event once per pass, each on the rank that draws it, for --static and --timeline-html", function()
      local d = h.temp_dir()
      for _, t in ipairs((ph.traces(GROUP))) do
        for _, what in ipairs({ { "--static", "-o", d .. "/s.png" }, { "--timeline-html", d .. "/t.html" } }) do
          local total
          for _, n in ipairs({ 2, 4 }) do
            local stats = d .. "/stats" .. n
            local args = { "paragraph", table.unpack(what) }
            args[#args + 1] = t
            local c, _, e = h.mpirun(n, { "RETRACE_PAR_STATS=" .. stats }, table.unpack(args))
            assert.are.equal(0, c, t .. " -np " .. n .. ": " .. e)
            -- each rank's lines in its order: pass 1 the pre-pass, pass 2 the drawing pass
            local passes, seen = { {}, {} }, {}
            for line in io.lines(stats) do
              local r = cjson.decode(line)
              assert.are.equal(n, r.size)
              seen[r.rank] = (seen[r.rank] or 0) + 1
              assert.is_true(seen[r.rank] <= 2, t .. " -np " .. n .. ": rank " .. r.rank .. " read more than twice")
              local p = passes[seen[r.rank]]
              p.ranks = (p.ranks or 0) + 1
              p.sum = (p.sum or 0) + r.local_events
              p.most = math.max(p.most or 0, r.local_events)
            end
            os.remove(stats)
            for i, p in ipairs(passes) do
              local what = t .. " -np " .. n .. " pass " .. i
              assert.are.equal(n, p.ranks, what)
              total = total or p.sum
              assert.are.equal(total, p.sum, what .. ": every event read once")
              assert.is_true(p.sum > 0 and p.most < p.sum, what .. ": one rank read everything")
            end
          end
        end
      end
      h.remove_tree(d)
    end)
    return
  end

  it("ends every rank with exit 1 and one message, and no picture, on a malformed trace", function()
    local bad = h.temp_file("-3 -21 0.5 zz 1 2 0\n", ".trf")
    local c0, _, e0 = h.retrace("paragraph", "--static", "-o", bad .. ".png", bad)
    assert.are.equal(1, c0)
    local c, o, e = h.mpirun(3, "paragraph", "--static", "-o", bad .. ".png", bad)
    assert.are.equal(1, c)
    assert.are.equal("", o)
    assert.are.equal(e0, e)
    assert.is_nil(io.open(bad .. ".png"))
    os.remove(bad)
  end)
end)
