local h = require "helpers"
local fs = require "retrace.fs"
local lfs = require "lfs"

describe("retrace.fs", function()
  it("mkdir_p makes a folder and its missing parents, and accepts one that exists", function()
    local d = h.temp_dir()
    assert.is_true(fs.mkdir_p(d .. "/a/b/c"))
    assert.are.equal("directory", lfs.attributes(d .. "/a/b/c", "mode"))
    assert.is_true(fs.mkdir_p(d .. "/a/b/c"))
    assert.is_true(fs.mkdir_p(d .. "/a/"))
    h.remove_tree(d)
  end)

  it("mkdir_p refuses a path through a file", function()
    local f = h.temp_file("x")
    local ok, err = fs.mkdir_p(f .. "/sub")
    assert.is_nil(ok)
    assert.are.equal(f .. ": not a folder", err)
    os.remove(f)
  end)

  it("write_file writes the text and reports an unwritable path", function()
    local d = h.temp_dir()
    assert.is_true(fs.write_file(d .. "/t.txt", "one\ntwo\n"))
    assert.are.equal("one\ntwo\n", h.slurp(d .. "/t.txt"))
    assert.is_true(fs.write_file(d .. "/t.txt", "3"))
    assert.are.equal("3", h.slurp(d .. "/t.txt"))
    local ok, err = fs.write_file(d .. "/missing/t.txt", "x")
    assert.is_nil(ok)
    assert.are.equal(d .. "/missing/t.txt: No such file or directory", err)
    h.remove_tree(d)
  end)
end)
