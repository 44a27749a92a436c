-- An archive libretrace-mpi left when a rank called MPI_Abort (tests/fixtures/mpi/abort2.otf2:
-- tests/mpi/crash.c on 2 ranks, rank 1 aborting after one message each way and a barrier).
-- retrace reads it with the "incomplete archive" warning and loses none of its events; an
-- event file cut to nothing is read as a location without events. Needs no MPI.
local h = require "helpers"
local replay = require "retrace.replay"
local capture = require "retrace.capture"

local fixture = h.fixtures .. "/mpi/abort2.otf2"

local function read(path)
  local msgs, warnings = {}, {}
  local rp = assert(replay.open(path, {
    on_message = function(m) msgs[#msgs + 1] = string.format("%d %d %d %d", m.src, m.dst, m.tag, m.bytes) end,
    on_warning = function(w) warnings[#warnings + 1] = w end }))
  rp:run()
  table.sort(msgs)
  return rp, msgs, warnings
end

local function copy_tree(from, to)
  local lfs = require "lfs"
  assert(require("retrace.fs").mkdir_p(to))
  for f in lfs.dir(from) do
    if f ~= "." and f ~= ".." then
      if lfs.attributes(from .. "/" .. f, "mode") == "directory" then
        copy_tree(from .. "/" .. f, to .. "/" .. f)
      else
        local i = assert(io.open(from .. "/" .. f, "rb"))
        local o = assert(io.open(to .. "/" .. f, "wb"))
        o:write(i:read("a"))
        i:close()
        o:close()
      end
    end
  end
end

describe("an incomplete libretrace-mpi archive", function()
  it("is read whole, with the incomplete warning naming how each rank stopped", function()
    local rp, msgs, warnings = read(fixture)
    assert.are.same({ "0 1 3 4", "1 0 3 4" }, msgs)
    assert.are.equal(2, rp:nprocs())
    assert.are.equal(1, #warnings)
    assert.truthy(warnings[1]:find("incomplete archive (traces.incomplete)", 1, true), warnings[1])
    assert.truthy(warnings[1]:find("rank 1: MPI_Abort 3; rank 0: signal 15", 1, true), warnings[1])
    local t = rp:totals()
    assert.are.equal(0, t.pending)
    assert.are.equal(2, t.collectives) -- the barrier both passed; rank 0's second one never ended
    assert.are.equal(t.kinds.enter, t.kinds.leave) -- the handler closed the open regions
    rp:close()
  end)

  it("gives the warning in retrace stats, exit 0", function()
    local code, o, e = h.retrace("stats", fixture)
    assert.are.equal(0, code, e)
    assert.truthy(o:find("1 warning:", 1, true), o)
    assert.truthy(o:find("incomplete archive", 1, true), o)
  end)

  it("is what capture.mpi_check calls incomplete", function()
    local res = capture.mpi_check(fixture)
    assert.is_false(res.complete)
    assert.are.equal(2, res.ranks)
    assert.are.equal("not every rank reached MPI_Finalize; rank 1: MPI_Abort 3; rank 0: signal 15", res.why)
  end)

  it("reads an empty event file as a location without events, with a warning", function()
    local d = h.temp_dir()
    copy_tree(fixture, d .. "/a.otf2")
    io.open(d .. "/a.otf2/traces/0.evt", "wb"):close()
    local rp, msgs, warnings = read(d .. "/a.otf2")
    assert.are.same({}, msgs) -- rank 1's send has no receive left, its receive no send
    assert.are.equal(1, rp:totals().pending)
    local all = table.concat(warnings, "\n")
    assert.truthy(all:find("traces/0.evt: empty event file; location 0 read as having no events", 1, true), all)
    assert.truthy(all:find("incomplete archive", 1, true), all)
    local res = capture.mpi_check(d .. "/a.otf2")
    assert.truthy(res.why:find("no events from rank 0", 1, true), res.why)
    rp:close()
    h.remove_tree(d)
  end)

  it("has the event counts otf2-print finds", function()
    if os.execute("command -v otf2-print >/dev/null 2>&1") ~= true then
      pending("otf2-print missing (make deps installs otf2-tools): reference count skipped")
      return
    end
    local p = io.popen("otf2-print " .. h.quote(fixture .. "/traces.otf2") .. " 2>/dev/null")
    local n = 0
    for l in p:lines() do
      if l:match("^[A-Z_]+%s+%d+%s+%d+") then n = n + 1 end
    end
    p:close()
    local rp = read(fixture)
    assert.are.equal(rp:records() + rp:skipped(), n)
    assert.is_true(n > 0)
    rp:close()
  end)
end)

-- A whole archive (tests/fixtures/mpi/halo2.otf2: tests/mpi/halo.c on 2 ranks, 12 messages)
-- through the commands that read message-passing traces, unchanged.
describe("a libretrace-mpi archive in the trace commands", function()
  local archive = h.fixtures .. "/mpi/halo2.otf2"

  it("retrace stats", function()
    local code, o, e = h.retrace("stats", archive)
    assert.are.equal(0, code, e)
    assert.truthy(o:find("otf2 format", 1, true), o)
    assert.truthy(o:find("messages 12, tachyons 0", 1, true), o)
    assert.is_nil(o:find("warning", 1, true))
  end)

  it("retrace paragraph --static", function()
    local d = h.temp_dir()
    local code, o, e = h.retrace("paragraph", archive, "--static", "-o", d .. "/p.png", "--size", "800x500")
    assert.are.equal(0, code, e)
    assert.truthy(o:find("12 messages", 1, true), o)
    assert.is_true(#h.slurp(d .. "/p.png") > 1000)
    h.remove_tree(d)
  end)

  it("retrace medea", function()
    local code, o, e = h.retrace("medea", archive, "--approach", "processor")
    assert.are.equal(0, code, e)
    assert.truthy(o:find("traces.otf2/0", 1, true) and o:find("traces.otf2/1", 1, true), o)
  end)

  it("retrace chitra --states", function()
    local code, o, e = h.retrace("chitra", "--states", "processor:1", archive)
    assert.are.equal(0, code, e)
    assert.truthy(o:find("MPI_Waitall", 1, true), o)
    assert.truthy(o:find("MPI_Init", 1, true), o)
  end)
end)
