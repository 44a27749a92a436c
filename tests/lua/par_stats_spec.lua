-- retrace stats --json under mpirun: every rank replays its part of the trace (OTF2: its own
-- locations, read in epochs, send and receive records exchanged between ranks) and rank 0 prints
-- the merged statistics, which must be the serial run's byte for byte, for 1 to 4 ranks, on every
-- sample trace, the MPI-capture fixtures and a generated 256-location archive; idle ranks (fewer
-- locations than ranks) take part; a rank that cannot read its locations ends the job with one
-- line naming the file and the location, exit 1, no hang.
local h = require "helpers"
local lfs = require "lfs"

local data = "../shared/data"
local gen = (h.bin:match("^(.*)/[^/]*$") or ".") .. "/bench/gen_otf2_mpi"

local function samples()
  local list = {}
  for _, fmt in ipairs({ "otf2", "picl", "paraver", "paje" }) do
    local dir = data .. "/" .. fmt
    if lfs.attributes(dir, "mode") == "directory" then
      for f in lfs.dir(dir) do
        if f ~= "." and f ~= ".." and not f:match("%.pcf$") and not f:match("%.row$") then
          list[#list + 1] = dir .. "/" .. f
        end
      end
    end
  end
  table.sort(list)
  list[#list + 1] = h.fixtures .. "/mpi/abort2.otf2"
  list[#list + 1] = h.fixtures .. "/mpi/halo2.otf2"
  return list
end

local function same_as_serial(trace, ranks)
  local code, serial, err = h.retrace("stats", "--json", trace)
  assert.are.equal(0, code, err)
  assert.truthy(serial:match('"processors"'))
  for _, n in ipairs(ranks) do
    local c, out, e = h.mpirun(n, "stats", "--json", trace)
    assert.are.equal(0, c, trace .. " on " .. n .. " ranks: " .. e)
    assert.are.equal(serial, out, trace .. " on " .. n .. " ranks")
  end
  return serial
end

-- A job on a broken archive: exit 1 on every rank, nothing on stdout; its stderr lines.
local function failed_job(anchor)
  local c, out, err = h.mpirun(4, "stats", "--json", anchor)
  assert.are.equal(1, c, err)
  assert.are.equal("", out)
  local lines = {}
  for l in err:gmatch("[^\n]+") do lines[#lines + 1] = l end
  assert.are.equal(1, #lines, err)
  return lines, err
end

local function copy_dir(from, to)
  assert(os.execute("rm -rf " .. h.quote(to) .. " && cp -r " .. h.quote(from) .. " " .. h.quote(to)))
end

describe("stats --json under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    pending(why)
    return
  end

  it("equals the serial run on every sample trace and MPI-capture fixture, 1 to 4 ranks", function()
    if lfs.attributes(data, "mode") ~= "directory" then
      pending("../shared/data absent: sample traces skipped")
    end
    for _, t in ipairs(samples()) do same_as_serial(t, { 1, 2, 3, 4 }) end
  end)

  it("runs idle ranks when the trace has fewer locations than ranks", function()
    local t = h.fixtures .. "/mpi/halo2.otf2"
    local serial = same_as_serial(t, { 4 })
    local n = 0
    for _ in serial:gmatch('"sent_bytes"') do n = n + 1 end
    assert.are.equal(2, n) -- two processors, four ranks
  end)

  describe("on a generated 256-location archive", function()
    local dir = os.tmpname()
    local anchor = dir .. "/traces.otf2"
    local summary
    setup(function()
      if lfs.attributes(gen, "mode") ~= "file" then return end
      os.remove(dir)
      local p = io.popen(h.quote(gen) .. " " .. h.quote(dir) .. " 256 100000 7")
      summary = require("cjson").decode(p:read("a"))
      assert.is_true(p:close())
    end)
    teardown(function() os.execute("rm -rf " .. h.quote(dir) .. " " .. h.quote(dir .. "-bad")) end)

    local function need_gen()
      if lfs.attributes(gen, "mode") ~= "file" then pending("bench/gen_otf2_mpi not built: archive skipped") end
      return lfs.attributes(gen, "mode") == "file"
    end

    it("gives the serial numbers for 1 to 4 ranks, with messages exchanged between ranks", function()
      if not need_gen() then return end
      local serial = same_as_serial(anchor, { 1, 2, 3, 4 })
      local msgs = tonumber(serial:match('"messages":(%d+)'))
      assert.is_true(msgs > 1000)
      local stats = os.tmpname()
      local c = h.mpirun(3, { "RETRACE_PAR_STATS=" .. stats }, "stats", "--json", anchor)
      assert.are.equal(0, c)
      local ranks, local_events, remote = {}, 0, 0
      for line in io.lines(stats) do
        local r = require("cjson").decode(line)
        ranks[#ranks + 1] = r.rank
        local_events = local_events + r.local_events
        remote = remote + r.messages_matched_remote
        assert.are.equal(3, r.size)
      end
      os.remove(stats)
      table.sort(ranks)
      assert.are.same({ 0, 1, 2 }, ranks)
      -- every event read once, by its location's rank (the records the replay does not model aside)
      local rec = summary.records
      assert.are.equal(summary.events - (rec.MPI_ISEND_COMPLETE or 0) - (rec.MPI_IRECV_REQUEST or 0), local_events)
      assert.is_true(remote > 0 and remote <= msgs)
    end)

    it("ends the job with one line naming the file and the location when one is missing", function()
      if not need_gen() then return end
      copy_dir(dir, dir .. "-bad")
      assert(os.remove(dir .. "-bad/traces/5.evt"))
      local lines, err = failed_job(dir .. "-bad/traces.otf2")
      assert.truthy(lines[1]:find("traces/5.evt", 1, true), err)
      assert.truthy(lines[1]:find("location 5", 1, true), err)
    end)

    it("ends the job with one line naming the file and the location when one is damaged", function()
      if not need_gen() then return end
      copy_dir(dir, dir .. "-bad")
      local f = assert(io.open(dir .. "-bad/traces/6.evt", "r+b"))
      local size = f:seek("end")
      for pos = 200, size - 1, 7 do
        f:seek("set", pos)
        f:write("\255")
      end
      f:close()
      local lines, err = failed_job(dir .. "-bad/traces.otf2")
      assert.truthy(lines[1]:find("traces/6.evt", 1, true), err)
    end)
  end)
end)
