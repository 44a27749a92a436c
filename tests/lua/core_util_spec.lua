local h = require "helpers"
local util = require("retrace.core").util

describe("retrace.core.util", function()
  it("iterates lines with their numbers and closes on break", function()
    local p = h.temp_file("a\nbb\n\nccc")
    local got = {}
    for n, line in util.lines(p) do got[#got + 1] = n .. ":" .. line end
    assert.are.same({ "1:a", "2:bb", "3:", "4:ccc" }, got)
    for n in util.lines(p) do if n == 2 then break end end -- closes through __close
    os.remove(p)
  end)

  it("counts lines and bytes", function()
    local p = h.temp_file("x\ny\nz\n")
    local n, bytes = util.count_lines(p)
    assert.are.equal(3, n)
    assert.are.equal(6, bytes)
    os.remove(p)
  end)

  it("returns nil and a message for a missing file, raises in the iterator", function()
    local n, msg = util.count_lines("/nonexistent/f")
    assert.is_nil(n)
    assert.are.equal("/nonexistent/f: No such file or directory", msg)
    assert.has_error(function() for _ in util.lines("/nonexistent/f") do end end,
      "/nonexistent/f: No such file or directory")
  end)
end)
