-- Hangs: inputs read once (a named FIFO, `<(cat trace)`, standard input) work
-- for every command, giving the numbers a regular file gives; a command that
-- needs a second pass says so in one line. Every run is under `timeout`, so a
-- hang fails the test (exit 124) instead of stopping the suite.
local h = require "helpers"

local LIMIT = 60 -- seconds before a run counts as a hang

local function q(s) return h.quote(s) end

-- Run a shell command line (bash), stdout and stderr captured: code, out, err.
local function bash(line)
  local out, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute("timeout " .. LIMIT .. " bash -c " .. q(line) .. " >" .. out .. " 2>" .. err)
  local o, e = h.slurp(out), h.slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

local function args_of(list)
  local t = {}
  for i, a in ipairs(list) do t[i] = q(a) end
  return table.concat(t, " ")
end

-- retrace ARGS FILE through a named FIFO fed by cat in the background.
local function via_fifo(file, args)
  local dir = h.temp_dir()
  local fifo = dir .. "/trace"
  assert(os.execute("mkfifo " .. q(fifo)))
  local code, out, err = bash("cat " .. q(file) .. " > " .. q(fifo) .. " & " .. q(h.bin) .. " " ..
    args_of(args) .. " " .. q(fifo) .. "; rc=$?; wait; exit $rc")
  os.remove(fifo)
  os.remove(dir)
  return code, out:gsub(h.quote(fifo):sub(2, -2), "TRACE"), err, fifo
end

local function via_subst(file, args)
  local code, out, err = bash(q(h.bin) .. " " .. args_of(args) .. " <(cat " .. q(file) .. ")")
  return code, (out:gsub("/dev/fd/%d+", "TRACE")), err
end

local function direct(file, args)
  local code, out, err = bash(q(h.bin) .. " " .. args_of(args) .. " " .. q(file))
  return code, (out:gsub(file:gsub("%p", "%%%0"), "TRACE")), err
end

-- A memory trace longer than the detector's 4096 bytes, so losing the head shows.
local function long_din()
  local t = {}
  for i = 0, 2999 do t[#t + 1] = string.format("%d %x", i % 2, 0x1000 + 64 * (i % 700)) end
  return h.temp_file(table.concat(t, "\n") .. "\n", ".din")
end

-- The same references in the binary RTMB format (written by cache --convert).
local function long_rtmb()
  local din = long_din()
  local bin = os.tmpname() .. ".rtmb"
  local code, _, err = h.retrace("cache", din, "--convert", bin)
  assert(code == 0, err)
  os.remove(din)
  return bin
end

local cases = {
  { "stats", { "stats" }, function() return h.source .. "/examples/picl/ring4.trf" end },
  { "stats --json on a PICL trace longer than 4 KiB", { "stats", "--json" },
    function() return h.shared_file("picl/mpicl-8a.trf") end },
  { "stats on a Paje trace", { "stats" }, function() return h.shared_file("paje/ms.trace") end },
  { "cache on din", { "cache" }, long_din },
  { "cache on lackey", { "cache", "--size", "1024", "--line", "16" },
    function() return h.fixtures .. "/info/refs.lackey" end },
  { "memspy on an msp trace", { "memspy", "--procs", "2" }, function() return h.fixtures .. "/memspy/two.msp" end },
  { "memspy on din", { "memspy" }, long_din },
  { "cache on RTMB", { "cache" }, long_rtmb },
  { "memspy on RTMB", { "memspy" }, long_rtmb },
  { "info on din", { "info" }, long_din },
  { "info on a PES", { "info" }, function() return h.fixtures .. "/info/run.pes" end },
  { "medea --json", { "medea", "--json" }, function() return h.shared_file("picl/mpicl-8a.trf") end },
}

describe("an input read once", function()
  for _, c in ipairs(cases) do
    local name, args, file_of = c[1], c[2], c[3]
    it(name .. ": a named FIFO and <(cat) give what the file gives", function()
      local file = file_of()
      if not file then
        pending("../shared is absent: no sample trace for " .. name)
        return
      end
      local code, want, err = direct(file, args)
      assert.are.equal(0, code, err)
      local fcode, fout, ferr = via_fifo(file, args)
      assert.are_not.equal(124, fcode, "hung on a FIFO")
      assert.are.equal(0, fcode, ferr)
      local scode, sout, serr = via_subst(file, args)
      assert.are.equal(0, scode, serr)
      if name:match("^info") then -- info counts lines only of a file it can read twice
        want = want:gsub("%d+ lines, %d+ bytes", "X")
        fout = fout:gsub("read once %(a pipe%)", "X")
        sout = sout:gsub("read once %(a pipe%)", "X")
      end
      if name:match("^medea") then -- components are named after their files: compare the parameters
        local function params(s) return assert(s:match('"components":%[{"cluster":1,"name":"[^"]*","params":(%b{})')) end
        want, fout, sout = params(want), params(fout), params(sout)
      end
      assert.are.equal(want, fout)
      assert.are.equal(want, sout)
    end)
  end

  it("standard input ('-') is detected and read whole by stats and medea", function()
    local file = h.source .. "/examples/picl/ring4.trf"
    local _, want = direct(file, { "stats" })
    local code, out, err = bash(q(h.bin) .. " stats - < " .. q(file))
    assert.are.equal(0, code, err)
    assert.are.equal((want:gsub("TRACE", "-")), out)
    -- and by medea: the same parameters as from the file
    local _, mwant = direct(file, { "medea", "--json" })
    local mcode, mout, merr = bash(q(h.bin) .. " medea --json - < " .. q(file))
    assert.are.equal(0, mcode, merr)
    local function params(x) return assert(x:match('"components":%[{"cluster":1,"name":"[^"]*","params":(%b{})')) end
    assert.are.equal(params(mwant), params(mout))
  end)

  it("a reader that needs two passes refuses a FIFO in one line (shmap, paragraph)", function()
    local variants = {
      { h.fixtures .. "/shmap/machine.shm", { "shmap" } },
      { h.source .. "/examples/picl/ring4.trf", { "paragraph", "--static", "-o", os.tmpname() .. ".png" } },
    }
    for _, v in ipairs(variants) do
      local code, _, err = via_fifo(v[1], v[2])
      assert.are_not.equal(124, code, "hung")
      assert.are.equal(1, code)
      assert.truthy(err:find("can be read only once", 1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")))
    end
  end)

  it("an unknown file says what each line reader objected to", function()
    local p = h.temp_file("hello world\nthis is prose\n")
    local code, out = h.retrace("info", p)
    assert.are.equal(0, code)
    assert.truthy(out:find("din: line 1: label: 'hello' is not 0-4", 1, true), out)
    assert.truthy(out:find("xdin: line 1:", 1, true), out)
    assert.truthy(out:find("lackey: line 1:", 1, true), out)
    os.remove(p)
  end)
end)
