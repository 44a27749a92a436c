-- Text traces read in byte ranges with many exchanges (RETRACE_PAR_TEXT_BATCH, a test hook:
-- the bytes of record lines a rank routes between two exchanges): the results are the serial
-- run's whatever the batch, and of several bad records in different ranges the one told is the
-- serial reader's (the first in the file), even when a later range fails at an earlier exchange.
local h = require "helpers"

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- T threads, n state records; a bad end ("y") on the records at the given fractions of the file
local function prv_with_bad(dir, n, fractions)
  local T = 4
  local bad = {}
  for _, x in ipairs(fractions) do bad[math.floor(n * x)] = true end
  local lines = { ("#Paraver (01/01/20 at 10:00):%d_ns:1(%d):1:%d(%s),0"):format(10 * n + 100, T, T,
    ("1:1,"):rep(T):sub(1, -2)) }
  for i = 1, n do
    local th, t = (i - 1) % T + 1, 10 * ((i - 1) // T)
    lines[#lines + 1] = ("1:%d:1:%d:1:%d:%s:1"):format(th, th, t, bad[i] and "y" or tostring(t + 10))
  end
  write(dir .. "/t.pcf", "STATES\n0    Idle\n1    Running\n")
  return write(dir .. "/t.prv", table.concat(lines, "\n") .. "\n")
end

describe("text traces in byte ranges, many exchanges", function()
  local ok, why = h.have_mpi()
  if not ok then
    it("needs mpirun (" .. why .. ")", function() pending(why) end)
    return
  end
  local small = { "RETRACE_PAR_TEXT_BATCH=64" }

  it("two bad Paraver records in different ranges: the first in the file is told, on 1 to 4 ranks", function()
    local dir = h.temp_dir()
    -- at 45% and 55% of the lines: the end of rank 0's range and the start of rank 1's at 2 ranks
    local trace = prv_with_bad(dir, 4000, { 0.45, 0.55 })
    local code, out, serr = h.retrace("stats", trace)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.truthy(serr:find(":1801: end: not an integer 'y'", 1, true), serr)
    for n = 1, 4 do
      local c, o, e = h.mpirun(n, small, "stats", trace)
      assert.are.equal(1, c, e)
      assert.are.equal("", o)
      assert.are.equal(serr, e, n .. " ranks")
    end
  end)

  it("PICL with malformed lines, Paraver and Paje: the serial statistics with 64-byte batches", function()
    local dir = h.temp_dir()
    local src, lines, k = h.fixtures .. "/picl/states.trf", {}, 0
    for l in io.lines(src) do
      lines[#lines + 1] = l
      if not l:match("^#") and #lines > 12 then
        k = k + 1
        lines[#lines + 1] = ("%d oops"):format(k)
      end
    end
    local traces = { write(dir .. "/bad.trf", table.concat(lines, "\n") .. "\n"),
      prv_with_bad(dir, 400, {}) }
    local pj = h.shared_file("paje/ms.trace")
    if pj then traces[#traces + 1] = pj end
    for _, trace in ipairs(traces) do
      local code, serial, err = h.retrace("stats", "--json", trace)
      assert.are.equal(0, code, err)
      for n = 2, 4 do
        local c, o, e = h.mpirun(n, small, "stats", "--json", trace)
        assert.are.equal(0, c, e)
        assert.are.equal(serial, o, trace .. " on " .. n .. " ranks")
        assert.are.equal(err, e, trace .. " on " .. n .. " ranks: warnings")
      end
    end
  end)
end)
