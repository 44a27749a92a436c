-- MEDEA's named parameter sets: --params-set, and --format, its old name, still
-- accepted with one warning line.
local h = require "helpers"
local cjson = require "cjson"

local table5 = h.fixtures .. "/medea/table5.trf"

describe("medea --params-set", function()
  local dir
  local function run(...)
    return h.retrace_env("RETRACE_FORMATS=" .. h.quote(dir), ...)
  end

  setup(function()
    dir = h.temp_dir()
    local code, _, err = run("medea", table5, "--approach", "event", "--params", "ctime,hstime",
      "--save-format", "pair", "--json")
    assert.equals(0, code, err)
  end)
  teardown(function() h.remove_tree(dir) end)

  it("clusters on the named set's approach and parameters", function()
    local code, out, err = run("medea", table5, "--params-set", "pair", "--json")
    assert.equals(0, code, err)
    assert.equals("", err)
    local j = cjson.decode(out)
    assert.same({ "ctime", "hstime" }, j.clusters.params)
    assert.equals("event", j.clusters.approach)
  end)

  it("accepts --format, the old name, with the same result and one warning line", function()
    local _, want = run("medea", table5, "--params-set", "pair", "--json")
    local code, out, err = run("medea", table5, "--format", "pair", "--json")
    assert.equals(0, code, err)
    assert.equals(want, out)
    assert.equals("retrace: warning: --format is the old name of --params-set\n", err)
  end)

  it("refuses both names together, an unknown set, and --params beside a set", function()
    local code, _, err = run("medea", table5, "--params-set", "pair", "--format", "pair")
    assert.equals(2, code)
    assert.matches("old name of %-%-params%-set: give one", err)
    code, _, err = run("medea", table5, "--params-set", "nosuch")
    assert.equals(2, code)
    assert.matches("^retrace: %-%-params%-set: no format 'nosuch'", err)
    code, _, err = run("medea", table5, "--params-set", "pair", "--params", "ctime")
    assert.equals(2, code)
    assert.matches("%-%-params and %-%-params%-set exclude each other", err)
  end)

  it("lists --params-set in its help, not the old name", function()
    local code, out = run("medea", "--help")
    assert.equals(0, code)
    assert.matches("%-%-params%-set", out)
    assert.is_nil(out:find("--format", 1, true))
  end)
end)
