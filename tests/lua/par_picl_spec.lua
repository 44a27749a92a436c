-- retrace stats on a PICL trace (old and new formats) under mpirun: every rank reads a byte
-- range of the file and replays its own processors. The output (text and --json) and the
-- warnings on stderr must be the serial run's, byte for byte, for 1 to 4 ranks: the record
-- count, the malformed lines skipped (wherever they lie, more than the hundred kept) and the
-- names of the compstats brackets of processors another rank replays.
local h = require "helpers"

local function lines_of(path)
  local t = {}
  for l in io.lines(path) do t[#t + 1] = l end
  return t
end

-- stats (text, and --json unless text_only) on 1..4 ranks: stdout and stderr equal to the
-- serial run's
local function same_as_serial(trace, text_only, ...)
  local extra = { ... }
  for _, json in ipairs(text_only and { false } or { false, true }) do
    local args = { "stats" }
    if json then args[#args + 1] = "--json" end
    for _, a in ipairs(extra) do args[#args + 1] = a end
    args[#args + 1] = trace
    local code, serial, err = h.retrace(table.unpack(args))
    assert.are.equal(0, code, err)
    for n = 1, 4 do
      local c, out, e = h.mpirun(n, table.unpack(args))
      assert.are.equal(0, c, trace .. " on " .. n .. " ranks: " .. e)
      assert.are.equal(serial, out, trace .. " on " .. n .. " ranks")
      assert.are.equal(err, e, trace .. " on " .. n .. " ranks: warnings")
    end
  end
end

-- the ranks' counters of a 3-rank job (RETRACE_PAR_STATS): events replayed per rank
local function events_per_rank(trace, extra)
  local f = os.tmpname()
  os.remove(f)
  local args = { "stats", "--json" }
  for _, a in ipairs(extra or {}) do args[#args + 1] = a end
  args[#args + 1] = trace
  local c, _, e = h.mpirun(3, { "RETRACE_PAR_STATS=" .. f }, table.unpack(args))
  assert.are.equal(0, c, e)
  local per = {}
  for l in io.lines(f) do
    local j = require("cjson").decode(l)
    per[j.rank + 1] = j.local_events
  end
  os.remove(f)
  return per
end

describe("PICL stats under mpirun, in byte ranges", function()
  local ok, why = h.have_mpi()
  if not ok then
    it("needs mpirun (" .. why .. ")", function() pending(why) end)
    return
  end

  -- (stats --json on them: par_stats_spec)
  it("the shared PICL samples (old and new formats): the serial output and warnings", function()
    local any = false
    for _, rel in ipairs({ "picl/fft-16.trf", "picl/mpicl-8a.trf", "picl/mpicl-8b.trf", "picl/mpicl-10.trf" }) do
      local p = h.shared_file(rel)
      if p then
        any = true
        same_as_serial(p, true)
      end
    end
    if not any then pending("../shared/data absent") end
  end)

  it("every rank replays its own processors' events (no rank replays the whole trace)", function()
    local trace = h.fixtures .. "/picl/states.trf"
    local per = events_per_rank(trace)
    assert.are.equal(3, #per)
    local code, out = h.retrace("-e", ([[
      local rp = require("retrace.replay").new(%q)
      local n = 0
      while true do local k, ended = rp:step(1000); n = n + k; if ended then break end end
      print(rp:nevents())]]):format(trace))
    assert.are.equal(0, code)
    local total = 0
    for r = 1, 3 do
      assert.is_true(per[r] > 0, "rank " .. (r - 1) .. " replays nothing")
      total = total + per[r]
    end
    assert.are.equal(tonumber(out), total) -- each processor's events on one rank: the serial count
  end)

  it("malformed lines in every range, more than the hundred kept: told as the serial run tells them", function()
    for _, src in ipairs({ h.fixtures .. "/picl/states.trf", h.fixtures .. "/picl/old.trf" }) do
      local body, out = lines_of(src), {}
      local k, first = 0, nil
      for i, l in ipairs(body) do
        out[#out + 1] = l
        if not first and not l:match("^#") then first = i end -- the format is told by the first record
        for _ = 1, (not first or i == first) and 0 or (i % 3 == 0) and 25 or 1 do
          k = k + 1
          out[#out + 1] = (k % 2 == 0) and ("-3 -51 x%d 1 0 0"):format(k) or ("%d oops"):format(k)
        end
      end
      assert.is_true(k > 100)
      local trace = h.temp_file(table.concat(out, "\n") .. "\n", ".trf")
      local _, _, err = h.retrace("stats", trace)
      assert.truthy(err:find(k .. " malformed lines skipped", 1, true), err)
      same_as_serial(trace)
    end
  end)

  it("old format: compstats brackets only on processors rank 0 does not replay keep their name", function()
    local src = h.shared_file("picl/fft-16.trf")
    if not src then return pending("../shared/data absent") end
    local out = {}
    for _, l in ipairs(lines_of(src)) do
      local typ, node = l:match("^(%d+) %S+ %S+ (%d+)")
      if not (typ == "11" and tonumber(node) % 2 == 0) then out[#out + 1] = l end
    end
    local trace = h.temp_file(table.concat(out, "\n") .. "\n", ".trf")
    local _, text = h.retrace("stats", trace)
    assert.truthy(text:find("-11 communication call", 1, true), text)
    same_as_serial(trace)
  end)

  it("--from, --to and --strict read in byte ranges too: the serial result", function()
    local p = h.shared_file("picl/mpicl-8a.trf")
    if not p then return pending("../shared/data absent") end
    same_as_serial(p, false, "--to", "0.001")
    same_as_serial(p, false, "--from", "0.02", "--to", "0.08")
    same_as_serial(p, false, "--strict")
    same_as_serial(h.shared_file("picl/fft-16.trf"), false, "--strict", "--to", "0.004")
    -- each rank replays its part under a window and under --strict
    for _, args in ipairs({ { "--to", "0.05" }, { "--strict" } }) do
      local per = events_per_rank(p, args)
      local total = 0
      for r = 1, 3 do
        assert.is_true(per[r] > 0, "rank " .. (r - 1) .. " replays nothing")
        total = total + per[r]
      end
      local serial = events_per_rank(p)
      assert.are.equal(serial[1] + serial[2] + serial[3], total)
    end
  end)

  it("--strict: the first malformed line in the file is every rank's one error, wherever it lies", function()
    local src = h.shared_file("picl/mpicl-10.trf")
    if not src then return pending("../shared/data absent") end
    local body = lines_of(src)
    local n = #body
    -- bad lines late in the file and early in the second half: ranges 2..4 of 4 hold them
    for _, marks in ipairs({ { n - 2 }, { math.floor(n * 0.55), math.floor(n * 0.8) },
                             { math.floor(n * 0.9), math.floor(n * 0.3) }, { 3 } }) do
      local out = {}
      for i, l in ipairs(body) do out[i] = l end
      for k, at in ipairs(marks) do
        out[at] = k % 2 == 1 and out[at]:gsub("^(%S+) ", "%1 zz ", 1) or out[at]:gsub("^(%S+) %S+", "%1 1.2.3", 1)
      end
      local trace = h.temp_file(table.concat(out, "\n") .. "\n", ".trf")
      local c0, _, serr = h.retrace("stats", "--strict", trace)
      assert.are.equal(1, c0)
      local first = math.min(table.unpack(marks))
      assert.truthy(serr:find(":" .. first .. ": ", 1, true), serr)
      for r = 2, 4 do
        local c, out2, e = h.mpirun(r, "stats", "--strict", "--json", trace)
        assert.are.equal(1, c, e)
        assert.are.equal("", out2)
        assert.are.equal(serr, e, "line " .. first .. " on " .. r .. " ranks")
      end
    end
  end)

  it("--strict on a malformed fixture: the serial error", function()
    local bad = h.fixtures .. "/picl/malformed.trf"
    local _, _, serr = h.retrace("stats", "--strict", bad)
    for n = 2, 4 do
      local c, out, e = h.mpirun(n, "stats", "--strict", bad)
      assert.are.equal(1, c, e)
      assert.are.equal("", out)
      assert.are.equal(serr, e)
    end
  end)
end)
