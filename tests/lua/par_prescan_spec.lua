-- replay.prescan(path, {parallel = true}) under mpirun (the pre-pass of `paragraph --static`
-- and --timeline-html): each rank reads its own part and the ranks combine; every rank gets
-- the serial pre-pass's processors, span, counts, queue marks, tasks, unit and scale width
-- (the pending marks and collective instances, which no part sees whole, are left out), for
-- N = 1..4 on the shared samples, the MPI capture's archives and a generated 256-location
-- archive; each rank reads a part, not the whole trace. Without mpirun or an MPI build: pending.
local h = require "helpers"
local ph = require "par_helpers"

-- a script printing (rank 0) the pre-pass as sorted lines, numbers exact; every rank checks
-- that it got rank 0's table
local SCRIPT = [[
local replay = require "retrace.replay"
local par = require "retrace.par"
local path, parallel = ...
local ps, err = replay.prescan(path, { parallel = parallel == "1" })
if not ps then
  if err then io.stderr:write("retrace: ", err, "\n") end
  os.exit(1)
end
-- (what no part sees whole: absent from a distributed pre-pass, left out of the comparison)
if par.size() > 1 then assert(ps.max_pending == nil and ps.collectives == nil, "unknown figures given") end
ps.max_pending, ps.max_pending_bytes, ps.collectives = nil, nil, nil
local out = {}
local function dump(prefix, v)
  if type(v) == "table" then
    for k, x in pairs(v) do dump(prefix .. "." .. tostring(k), x) end
  elseif math.type(v) == "float" then
    out[#out + 1] = prefix .. "=" .. string.format("%.17g", v)
  else
    out[#out + 1] = prefix .. "=" .. tostring(v)
  end
end
dump("ps", ps)
table.sort(out)
local text = table.concat(out, "\n")
local all = par.gather(text)
if all then
  for r = 2, #all do assert(all[r] == text, "rank " .. (r - 1) .. " got another pre-pass") end
  io.stdout:write(text, "\n")
end
]]

describe("replay.prescan under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    pending(why)
    return
  end

  it("gives every rank the serial pre-pass with 1 to 4 ranks, each reading its part", function()
    local d = h.temp_dir()
    local script = d .. "/prescan.lua"
    local f = assert(io.open(script, "w"))
    f:write(SCRIPT)
    f:close()
    local list = ph.traces("samples")
    local more, gen = ph.traces("more")
    for _, t in ipairs(more) do list[#list + 1] = t end
    for _, t in ipairs(list) do
      local c0, o0, e0 = h.retrace(script, t, "0")
      assert.are.equal(0, c0, t .. ": " .. e0)
      assert.truthy(o0:find("ps.processors=", 1, true), t)
      assert.is_nil(o0:find("max_pending", 1, true), t)
      for _, n in ipairs(ph.RANKS) do
        local stats = d .. "/stats" .. n
        local c, o, e = h.mpirun(n, { "RETRACE_PAR_STATS=" .. stats }, script, t, "1")
        assert.are.equal(0, c, t .. " -np " .. n .. ": " .. e)
        assert.are.equal(o0, o, t .. " -np " .. n)
        if n > 1 then
          -- one part per rank, the parts' own events adding up to the trace's once
          local ranks, sum, most = 0, 0, 0
          for line in io.lines(stats) do
            local r = require("cjson").decode(line)
            ranks = ranks + 1
            sum = sum + r.local_events
            most = math.max(most, r.local_events)
          end
          assert.are.equal(n, ranks, t .. " -np " .. n)
          assert.is_true(sum > 0, t)
          assert.is_true(most < sum, t .. " -np " .. n .. ": one rank read everything")
        end
        os.remove(stats)
      end
    end
    h.remove_tree(d)
    if not gen then pending("build/bench/gen_otf2_mpi absent: the 256-location archive left out") end
  end)

  it("ends every rank with exit 1 and the failing rank's one line on a malformed trace", function()
    local bad = h.temp_file("-3 -21 0.5 zz 1 2 0\n", ".trf")
    local c0, _, e0 = h.retrace("paragraph", "--static", "-o", bad .. ".png", bad)
    assert.are.equal(1, c0)
    for _, n in ipairs({ 2, 3 }) do
      local c, o, e = h.mpirun(n, "paragraph", "--static", "-o", bad .. ".png", bad)
      assert.are.equal(1, c)
      assert.are.equal("", o)
      assert.are.equal(e0, e)
    end
    assert.is_nil(io.open(bad .. ".png"))
    os.remove(bad)
  end)

  it("ends the job with the serial run's one line when a rank cannot read its locations", function()
    -- the capture's two-location archive without location 1's event file: rank 1's part
    local d = h.temp_dir()
    assert.is_true(os.execute("cp -r " .. h.quote(h.fixtures .. "/mpi/halo2.otf2") .. " " .. h.quote(d .. "/a")))
    assert.is_true(os.remove(d .. "/a/traces/1.evt"))
    local t = d .. "/a/traces.otf2"
    local c0, _, e0 = h.retrace("paragraph", "--static", "-o", d .. "/s.png", t)
    assert.are.equal(1, c0)
    assert.truthy(e0:find("1.evt", 1, true), e0)
    local c, o, e = h.mpirun(2, "paragraph", "--static", "-o", d .. "/p.png", t)
    assert.are.equal(1, c)
    assert.are.equal("", o)
    assert.are.equal(e0, e)
    assert.is_nil(io.open(d .. "/p.png"))
    h.remove_tree(d)
  end)
end)
