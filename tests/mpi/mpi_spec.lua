-- retrace capture --mpi on the small programs of tests/mpi (one ctest per program:
-- RETRACE_MPI_PROGRAM names it, RETRACE_MPI_TESTS is where CMake built them). Each runs on
-- 1, 2 and 4 ranks; what the program counted itself (mpitest.h) must be what retrace reads:
-- the messages with their peers, tags and bytes, the collectives' bytes, and per rank
-- busy + overhead + idle = the span, no receive before its send; otf2-print (the OTF2
-- reference reader) must count the same records.
local h = require "helpers"

local prog = os.getenv("RETRACE_MPI_PROGRAM") or "ring"
local bindir = os.getenv("RETRACE_MPI_TESTS")
local crash = prog:match("^crash_(%a+)$")

local function have(cmd)
  return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") == true
end

local function missing()
  if not bindir or bindir == "" then return "retrace built without MPI (no RETRACE_MPI_TESTS)" end
  if not have("mpirun") then return "mpirun missing (make deps installs openmpi-bin)" end
end

-- The program's own counts: sorted "send SRC DST TAG BYTES" lines and per-rank collectives.
local function expected(out, np)
  local sends, colls, regions = {}, {}, {}
  for r = 0, np - 1 do
    colls[r] = {}
    for l in io.lines(out .. "." .. r) do
      if l:find("^send ") then
        sends[#sends + 1] = l:sub(6)
      elseif l:find("^region ") then
        local name, n = l:match("^region (%S+) (%d+)$")
        regions[name] = (regions[name] or 0) + tonumber(n)
      else
        local name, s, v = l:match("^coll (%S+) (%d+) (%d+)$")
        colls[r][#colls[r] + 1] = s .. " " .. v
      end
    end
  end
  table.sort(sends)
  return sends, colls, regions
end

-- otf2-print's events: count per record type, and per location the collectives' "sent received".
local function otf2_print(anchor)
  local p = io.popen("otf2-print " .. h.quote(anchor) .. " 2>/dev/null")
  local counts, colls, total = {}, {}, 0
  for l in p:lines() do
    local kind, loc = l:match("^([A-Z_]+)%s+(%d+)%s+%d+")
    if kind then
      counts[kind] = (counts[kind] or 0) + 1
      total = total + 1
      if kind == "MPI_COLLECTIVE_END" then
        local s, v = l:match("Sent: (%d+), Received: (%d+)")
        local r = tonumber(loc)
        colls[r] = colls[r] or {}
        colls[r][#colls[r] + 1] = s .. " " .. v
      end
    end
  end
  p:close()
  return counts, colls, total
end

local function run(np)
  local d = h.temp_dir()
  local out, archive = d .. "/count", d .. "/run.otf2"
  local args = { "capture", "--mpi", "-o", archive, "--", "mpirun", "--allow-run-as-root", "--oversubscribe",
    "-np", tostring(np), bindir .. "/" .. (crash and "crash" or prog), out }
  if crash then args[#args + 1] = crash end
  local code, o, e = h.retrace(table.unpack(args))
  return d, out, archive, code, o, e
end

describe("retrace capture --mpi: " .. prog, function()
  local replay = require "retrace.replay"
  for _, np in ipairs(crash and { 2, 4 } or { 1, 2, 4 }) do
    it("on " .. np .. " rank" .. (np > 1 and "s" or ""), function()
      local why = missing()
      if why then
        pending(why .. ": MPI tests skipped")
        return
      end
      local d, out, archive, code, o, e = run(np)
      local anchor = archive .. "/traces.otf2"
      if crash then
        assert.are.equal(1, code, e)
        assert.truthy(o:find("incomplete: not every rank reached MPI_Finalize", 1, true), o)
        assert.truthy(e:find(crash == "abort" and "MPI_Abort 3" or "signal 11", 1, true), e)
      else
        assert.are.equal(0, code, e)
        assert.truthy(o:find(np .. " ranks, .* events, complete"), o)
      end
      local sends, colls, regions = expected(out, np)
      local got, late, warnings = {}, {}, {}
      local rp = assert(replay.open(anchor, {
        on_message = function(m)
          got[#got + 1] = string.format("%d %d %d %d", m.src, m.dst, m.tag, m.bytes)
          if not m.recv_time or m.recv_time < m.send_time then late[#late + 1] = got[#got] end
        end,
        on_warning = function(w) warnings[#warnings + 1] = w end }))
      rp:run()
      table.sort(got)
      local lost = {}
      if crash then
        -- every rank wrote its part: the one that stopped closed its file itself, the others
        -- when the launcher's SIGTERM reached them
        for r = 0, np - 1 do
          local size = require("lfs").attributes(string.format("%s/traces/%d.evt", archive, r), "size")
          if not size or size == 0 then lost[r] = true end
        end
        assert.are.same({}, lost)
      end
      assert.are.same(sends, got)
      assert.are.same({}, late)
      local t = rp:totals()
      if next(lost) == nil then assert.are.equal(0, t.pending) end
      assert.are.equal(0, t.tachyons)
      -- regions the program counted (its own functions, -finstrument-functions): enters by name
      if next(regions) then
        local byname, defs = {}, rp:defs()
        for p = 0, np - 1 do
          for id, ev in pairs(rp:events(p)) do
            local d = defs.regions[id]
            if d then byname[d.name] = (byname[d.name] or 0) + ev.count end
          end
        end
        for name, n in pairs(regions) do assert.are.equal(n, byname[name] or 0, name) end
      end
      local nprocs = rp:nprocs()
      assert.are.equal(np, nprocs)
      local t0, t1 = rp:span()
      for p = 0, np - 1 do
        local q = rp:proc(p)
        assert.is_true(math.abs(q.busy + q.overhead + q.idle - (t1 - t0)) <= 1e-9 * math.max(1, t1 - t0),
          "processor " .. p)
      end
      local coll_bytes, ncoll = 0, 0
      for r = 0, np - 1 do
        for _, c in ipairs(colls[r]) do
          local s, v = c:match("(%d+) (%d+)")
          coll_bytes, ncoll = coll_bytes + s + v, ncoll + 1
        end
      end
      assert.are.equal(ncoll, t.collectives)
      assert.are.equal(coll_bytes, t.collective_bytes)
      if crash then
        assert.truthy(table.concat(warnings, "\n"):find("incomplete archive", 1, true), table.concat(warnings, "\n"))
        local c2, o2, e2 = h.retrace("stats", archive)
        assert.are.equal(0, c2, e2)
        assert.truthy(o2:find("incomplete archive", 1, true), o2)
      else
        assert.are.same({}, warnings)
      end
      if not have("otf2-print") then
        pending("otf2-print missing (make deps installs otf2-tools): reference count skipped")
      else
        local counts, ocolls, total = otf2_print(anchor)
        local k = t.kinds
        assert.are.equal(k.enter, counts.ENTER or 0)
        assert.are.equal(k.leave, counts.LEAVE or 0)
        assert.are.equal(k.send, (counts.MPI_SEND or 0) + (counts.MPI_ISEND or 0))
        assert.are.equal(k.receive, (counts.MPI_RECV or 0) + (counts.MPI_IRECV or 0))
        assert.are.equal(k["collective begin"], counts.MPI_COLLECTIVE_BEGIN or 0)
        assert.are.equal(k["collective end"], counts.MPI_COLLECTIVE_END or 0)
        assert.are.equal(rp:records() + rp:skipped(), total)
        for r = 0, np - 1 do
          local a, b = colls[r], ocolls[r] or {}
          table.sort(a)
          table.sort(b)
          assert.are.same(a, b, "collectives of rank " .. r)
        end
      end
      rp:close()
      h.remove_tree(d)
    end)
  end
end)

if prog == "ring" then
  describe("retrace capture --mpi: bad use", function()
    it("refuses --threads with --mpi (exit 2)", function()
      local code, _, e = h.retrace("capture", "--mpi", "--threads", "--", "mpirun", "-np", "1", "true")
      assert.are.equal(2, code)
      assert.truthy(e:find("--threads and --keep-text are for memory captures", 1, true), e)
    end)
    it("says so when the program never calls MPI_Init (exit 1)", function()
      local why = missing()
      if why then
        pending(why .. ": MPI tests skipped")
        return
      end
      local d = h.temp_dir()
      local code, o, e = h.retrace("capture", "--mpi", "-o", d .. "/none.otf2", "--", "mpirun",
        "--allow-run-as-root", "--oversubscribe", "-np", "2", "true")
      assert.are.equal(1, code)
      assert.truthy(o:find("incomplete: no archive written", 1, true), o)
      assert.truthy(e:find("did the program call MPI_Init?", 1, true), e)
      h.remove_tree(d)
    end)
  end)
end
