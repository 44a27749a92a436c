-- The results of a trace under mpirun: `medea --json` and `paragraph --static --json` give
-- the serial numbers exactly for N = 1, 2, 3 and 4 ranks (each rank its own processors,
-- p % N == rank, rank 0 combining), and the static PNG byte for byte, on every sample trace
-- in ../shared/data, the MPI-capture archives in tests/fixtures/mpi and a generated archive
-- of 256 locations (bench's gen_otf2_mpi, when built). Without mpirun or MPI: pending.
local h = require "helpers"

-- h.mpirun / h.have_mpi come with the MPI job helpers; until then the same here
local have_mpi = h.have_mpi or function()
  local _, _, code = os.execute("command -v mpirun >/dev/null 2>&1")
  if code ~= 0 then return false, "mpirun absent: MPI runs skipped" end
  local c, o = h.retrace("-e", 'print(require"retrace.par".built())')
  if c ~= 0 or not o:match("^true") then return false, "retrace built without MPI: MPI runs skipped" end
  return true
end
local mpirun = h.mpirun or function(n, ...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
  local out, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute("timeout -k 5 300 mpirun --allow-run-as-root --oversubscribe -q -np " .. n
    .. " " .. h.quote(h.bin) .. " " .. table.concat(args, " ") .. " </dev/null >" .. out .. " 2>" .. err)
  local o, e = h.slurp(out), h.slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

local RANKS = { 1, 2, 3, 4 }

-- The traces: the shared samples (those present), the capture's archives, the generated one.
local function traces()
  local list = {}
  for _, rel in ipairs({ "picl/fft-16.trf", "picl/mpicl-8a.trf", "picl/mpicl-10.trf", "paraver/qsort_beo3.prv",
                         "paje/ms.trace", "paje/simu-mardi.trace", "paje/g5k.trace",
                         "otf2/pingpong/traces.otf2" }) do
    local p = h.shared .. "/" .. rel
    if io.open(p) then list[#list + 1] = p end
  end
  list[#list + 1] = h.fixtures .. "/mpi/halo2.otf2/traces.otf2"
  list[#list + 1] = h.fixtures .. "/mpi/abort2.otf2/traces.otf2"
  return list
end

local generated -- the 256-location archive, made once
local function gen256()
  if generated ~= nil then return generated end
  generated = false
  local bin = h.bin:gsub("retrace$", "") .. "bench/gen_otf2_mpi"
  if not io.open(bin) then return false end
  local d = h.temp_dir() .. "/a256"
  local ok = os.execute(h.quote(bin) .. " " .. h.quote(d) .. " 256 60000 7 >/dev/null")
  if ok then generated = d .. "/traces.otf2" end
  return generated
end

local function each_trace(fn)
  local list = traces()
  local g = gen256()
  if g then list[#list + 1] = g end
  for _, t in ipairs(list) do fn(t) end
  return g
end

describe("results under mpirun", function()
  local ok, why = have_mpi()
  if not ok then
    pending(why)
    return
  end

  it("medea --json gives the serial parameters exactly with 1 to 4 ranks", function()
    local g = each_trace(function(t)
      for _, approach in ipairs({ "processor", "event" }) do
        local args = { "medea", "--json", "--approach", approach, t }
        local c0, o0, e0 = h.retrace(table.unpack(args))
        if c0 == 0 then
          assert.truthy(o0:find('"components"', 1, true))
          for _, n in ipairs(RANKS) do
            local c, o, e = mpirun(n, table.unpack(args))
            assert.are.equal(0, c, t .. " -np " .. n .. ": " .. e)
            assert.are.equal(o0, o, t .. " " .. approach .. " -np " .. n)
          end
        else -- (a trace without user events has no event components: the same refusal)
          for _, n in ipairs({ 1, 3 }) do
            local c, o, e = mpirun(n, table.unpack(args))
            assert.are.equal(c0, c, t)
            assert.are.equal("", o)
            assert.are.equal(e0, e, t)
          end
        end
      end
    end)
    if not g then pending("bench/gen_otf2_mpi not built: the 256-location archive left out") end
  end)

  it("paragraph --static gives the serial numbers and the same PNG bytes with 1 to 4 ranks", function()
    local d = h.temp_dir()
    local g = each_trace(function(t)
      for _, extra in ipairs({ {}, { "--gray", "--size", "640x300" } }) do
        local function run(n, out)
          local args = { "paragraph", "--static", "-o", out, "--json", table.unpack(extra) }
          args[#args + 1] = t
          if n == 0 then return h.retrace(table.unpack(args)) end
          return mpirun(n, table.unpack(args))
        end
        local c0, o0, e0 = run(0, d .. "/serial.png")
        assert.are.equal(0, c0, t .. ": " .. e0)
        local png0 = h.slurp(d .. "/serial.png")
        assert.are.equal("\137PNG", png0:sub(1, 4))
        local j0 = require("cjson").decode(o0)
        assert.truthy(j0.static.rows >= 1)
        for _, n in ipairs(RANKS) do
          local out = d .. "/np" .. n .. ".png"
          local c, o, e = run(n, out)
          assert.are.equal(0, c, t .. " -np " .. n .. ": " .. e)
          local j = require("cjson").decode(o)
          assert.are.equal(out, j.static.file)
          j.static.file = j0.static.file
          j.text = j.text:gsub("np" .. n .. "%.png", "serial.png")
          assert.are.same(j0, j, t .. " -np " .. n)
          assert.are.equal(e0, e, t .. " -np " .. n) -- (rank 0 alone speaks)
          assert.is_true(png0 == h.slurp(out), t .. " -np " .. n .. ": the PNG differs")
        end
      end
    end)
    h.remove_tree(d)
    if not g then pending("bench/gen_otf2_mpi not built: the 256-location archive left out") end
  end)

  it("a trace that cannot be read ends every rank with exit 1 and one message", function()
    local bad = h.temp_file("-3 -21 0.5 zz 1 2 0\n", ".trf")
    local c0, _, e0 = h.retrace("medea", "--json", "--strict", bad)
    assert.are.equal(1, c0)
    local c, o, e = mpirun(3, "medea", "--json", "--strict", bad)
    assert.are.equal(1, c)
    assert.are.equal("", o)
    assert.are.equal(e0, e)
    local c2, _, e2 = mpirun(3, "paragraph", "--static", "-o", bad .. ".png", bad)
    assert.are.equal(1, c2)
    local _, nl = e2:gsub("\n", "")
    assert.are.equal(1, nl, e2)
    assert.is_nil(io.open(bad .. ".png"))
    os.remove(bad)
  end)
end)
