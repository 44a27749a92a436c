-- Outputs are written whole or not at all, and a run owns its output folder.
-- A full disk is stood in for by the file-size limit (ulimit -f 0 makes every
-- write to a regular file fail with EFBIG); messages come through a pipe, which
-- the limit does not touch.
local h = require "helpers"
local fs = require "retrace.fs"
local lfs = require "lfs"
local util = require("retrace.core").util

local names = h.names

local run_full = h.run_full

describe("fs.create", function()
  it("writes the target only at commit, through a hidden temporary", function()
    local d = h.temp_dir()
    local o = assert(fs.create(d .. "/r.txt"))
    o:write("a", 1, "\n")
    assert.are.same({}, (function()
      local visible = {}
      for _, n in ipairs(names(d)) do if n:sub(1, 1) ~= "." then visible[#visible + 1] = n end end
      return visible
    end)())
    assert.is_true(o:commit())
    assert.are.equal("a1\n", h.slurp(d .. "/r.txt"))
    assert.are.same({ "r.txt" }, names(d))
    assert.has_error(function() o:write("x") end)
    h.remove_tree(d)
  end)

  it("leaves nothing when an error is raised before the commit (a to-be-closed output)", function()
    local d = h.temp_dir()
    local ok = pcall(function()
      local o <close> = assert(fs.create(d .. "/half.csv"))
      o:write("x,y\n")
      error("interrupted!")
    end)
    assert.is_false(ok)
    assert.are.same({}, names(d))
    h.remove_tree(d)
  end)

  it("keeps the old file when the write fails, and names the file", function()
    local d = h.temp_dir()
    fs.write_file(d .. "/m.csv", "old\n")
    local code, err = run_full("-e", ("local fs = require 'retrace.fs'; " ..
      "local ok, e = fs.write_csv(%q, {'a'}, {{1}}); io.stderr:write(tostring(e)); os.exit(ok and 0 or 1)")
      :format(d .. "/m.csv"))
    assert.are.equal(1, code)
    assert.are.equal(d .. "/m.csv: File too large", err)
    assert.are.equal("old\n", h.slurp(d .. "/m.csv"))
    assert.are.same({ "m.csv" }, names(d))
    h.remove_tree(d)
  end)

  it("refuses an output that is one of the inputs", function()
    local f = h.temp_file("trace")
    local ok, err = fs.not_an_input(f, { "other", f })
    assert.is_nil(ok)
    assert.are.equal(f .. ": is the input " .. f .. "; refusing to overwrite it", err)
    assert.is_true(fs.not_an_input(f .. ".json", { f }))
    os.remove(f)
  end)
end)

describe("commands on a full disk", function()
  local msp = h.fixtures .. "/memspy/two.msp"

  it("memspy --csv and --save exit 1 naming the file, leaving no partial file", function()
    local d = h.temp_dir()
    local code, err = run_full("memspy", msp, "--procs", "2", "--csv", d .. "/csv")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. d .. "/csv/matrix.csv: File too large\n", err)
    assert.are.same({}, names(d .. "/csv"))
    code, err = run_full("memspy", msp, "--procs", "2", "--save", d .. "/run.json")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. d .. "/run.json: File too large\n", err)
    assert.are.same({ "csv" }, names(d))
    local c2, _, e2 = h.retrace("memspy", msp, "--procs", "2", "--save", "/dev/full")
    assert.are.equal(1, c2)
    assert.are.equal("retrace: /dev/full: No space left on device\n", e2)
    h.remove_tree(d)
  end)

  it("a PDF canvas collected before finish leaves no file; finish writes it", function()
    local d = h.temp_dir()
    local canvas = require "retrace.canvas"
    do
      local cv = assert(canvas.pdf(d .. "/cut.pdf", 100, 100))
      cv:rect(0, 0, 10, 10)
      cv:fill()
    end
    collectgarbage()
    collectgarbage()
    assert.are.same({}, names(d))
    local cv = assert(canvas.pdf(d .. "/whole.pdf", 100, 100))
    assert.is_true(cv:finish())
    assert.are.equal("%PDF", h.slurp(d .. "/whole.pdf"):sub(1, 4))
    assert.are.same({ "whole.pdf" }, names(d))
    h.remove_tree(d)
  end)
end)

describe("a frames folder", function()
  local pg4 = h.fixtures .. "/paragraph/pg4.trf"

  it("is cleaned of an earlier run's frames and player; other files stay", function()
    local d = h.temp_dir()
    for _, n in ipairs({ "frame_000001.png", "frame_000999.png" }) do fs.write_file(d .. "/" .. n, "stale") end
    fs.write_file(d .. "/index.html", "<!-- Written by retrace: the frame files -->")
    fs.write_file(d .. "/.frame_000003.png.123-4.part", "interrupted")
    fs.write_file(d .. "/notes.txt", "mine")
    local code, _, err = h.retrace("paragraph", pg4, "-o", d, "--group", "utilization", "--pace", "time:1", "--unit", "s")
    assert.are.equal(0, code, err)
    local frames = 0
    for _, n in ipairs(names(d)) do
      if n:match("^frame_%d+%.png$") then
        frames = frames + 1
        assert.are_not.equal("stale", h.slurp(d .. "/" .. n))
      end
    end
    assert.is_true(frames >= 2)
    assert.is_nil(lfs.attributes(d .. "/frame_000999.png"))
    assert.is_nil(lfs.attributes(d .. "/index.html"))
    assert.is_nil(lfs.attributes(d .. "/.frame_000003.png.123-4.part"))
    assert.are.equal("mine", h.slurp(d .. "/notes.txt"))
    h.remove_tree(d)
  end)

  it("refuses a second run while another holds it", function()
    local d = h.temp_dir()
    local lock = assert(util.lock(d .. "/.retrace.lock"))
    local code, _, err = h.retrace("paragraph", pg4, "-o", d, "--group", "utilization", "--pace", "time:1", "--unit", "s")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. d .. ": in use by another retrace run (wait for it to end)\n", err)
    lock:unlock()
    code = h.retrace("paragraph", pg4, "-o", d, "--group", "utilization", "--pace", "time:1", "--unit", "s")
    assert.are.equal(0, code)
    h.remove_tree(d)
  end)
end)

describe("animations on a full disk", function()
  it("paragraph -o exits 1 with one line naming the frame, no traceback", function()
    local d = h.temp_dir()
    local errf = os.tmpname()
    local cmd = ("(ulimit -f 50; trap '' XFSZ; exec %s paragraph %s -o %s --group utilization --pace time:1 --unit s) 2>&1 >/dev/null | cat > %s; exit ${PIPESTATUS[0]}")
      :format(h.quote(h.bin), h.quote(h.fixtures .. "/paragraph/pg4.trf"), h.quote(d), h.quote(errf))
    local _, _, code = os.execute("bash -c " .. h.quote(cmd))
    local err = h.slurp(errf)
    os.remove(errf)
    assert.are.equal(1, code)
    assert.matches("^retrace: " .. d:gsub("%p", "%%%0") .. "/frame_%d+%.png: File too large\n$", err)
    h.remove_tree(d)
  end)
end)

describe("paragraph's exports", function()
  local pg4 = h.fixtures .. "/paragraph/pg4.trf"

  it("refuse to write over the trace they read", function()
    local d = h.temp_dir()
    local copy = d .. "/t.trf"
    fs.write_file(copy, h.slurp(pg4))
    local code, _, err = h.retrace("paragraph", copy, "--export", "chrome-json", copy)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. copy .. ": is the input " .. copy .. "; refusing to overwrite it\n", err)
    assert.are.equal(h.slurp(pg4), h.slurp(copy))
    h.remove_tree(d)
  end)

  it("exit 1 naming the file when it cannot be written whole", function()
    for _, opt in ipairs({ { "--export", "chrome-json" }, { "--timeline-html" } }) do
      local args = { "paragraph", pg4 }
      for _, a in ipairs(opt) do args[#args + 1] = a end
      args[#args + 1] = "/dev/full"
      local code, _, err = h.retrace(table.unpack(args))
      assert.are.equal(1, code, opt[1])
      assert.are.equal("retrace: /dev/full: No space left on device\n", err)
    end
    local d = h.temp_dir()
    local code, err = run_full("paragraph", pg4, "--export", "chrome-json", d .. "/t.json")
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. d .. "/t.json: File too large\n", err)
    assert.are.same({}, names(d))
    h.remove_tree(d)
  end)
end)

describe("medea's files on a full disk", function()
  it("--csv and --profiles exit 1 naming the file", function()
    local trace = h.fixtures .. "/medea/table5.trf"
    for _, opt in ipairs({ "--csv", "--profiles" }) do
      local code, _, err = h.retrace("medea", trace, opt, "/dev/full")
      assert.are.equal(1, code, opt)
      assert.truthy(err:find("retrace: " .. opt .. ": /dev/full: No space left on device\n", 1, true), err)
    end
  end)
end)
