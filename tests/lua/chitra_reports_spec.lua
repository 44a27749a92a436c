-- Chitra's text report and input errors, checked against hand-computed examples:
-- the chain table with time shares and holding-time standard deviations; a
-- composite named after a state refused by the command.
local h = require "helpers"

describe("chitra text report", function()
  it("prints each state's share of the time and the standard deviation of its holding times", function()
    -- SES A 2, B 1, A 4, B 1: A n 2 mean 3 var 2 sd 1.414 share 6/8; B n 2 mean 1 var 0 share 2/8
    local pes = h.temp_file("A 0\nB 2\nA 3\nB 7\nA 8\n", ".pes")
    local code, out, err = h.retrace("chitra", pes)
    assert.equal(0, code, err)
    assert.truthy(out:find("state%s+n%s+share%s+mean%s+std dev%s+variance"))
    assert.truthy(out:find("\n  A%s+2%s+75%%%s+3%s+1%.414%s+2\n"), out)
    assert.truthy(out:find("\n  B%s+2%s+25%%%s+1%s+0%s+0\n"), out)
  end)

  it("refuses a composite named after an existing state, naming both", function()
    local pes = h.temp_file("A 0\nB 2\nA 3\nB 7\nC 8\nA 9\n", ".pes")
    local code, out, err = h.retrace("chitra", pes, "--aggregate", "A,B=C")
    assert.equal(1, code)
    assert.equal("", out)
    assert.equal("retrace: aggregate A,B=C: C is already a state of the sequence; "
      .. "give the composite another name\n", err)
  end)
end)
