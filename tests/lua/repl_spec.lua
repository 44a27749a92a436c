local repl = require "retrace.repl"

describe("REPL completion", function()
  setup(function() _G.retrace = require "retrace" end)
  teardown(function() _G.retrace = nil end)

  it("completes globals", function()
    local c = repl.complete("retr")
    assert.are.same({ "retrace" }, c)
    assert.truthy(#repl.complete("stri") >= 1)
  end)

  it("completes fields, including modules not loaded yet", function()
    assert.are.same({ "retrace.version" }, repl.complete("retrace.vers"))
    local c = repl.complete("retrace.")
    local set = {}
    for _, w in ipairs(c) do set[w] = true end
    assert.is_true(set["retrace.cli"])
    assert.is_true(set["retrace.pretty"])
    assert.is_true(set["retrace.root"])
  end)

  it("completes methods after a colon", function()
    _G.obj = setmetatable({}, { __index = { frob = function() end, size = 3 } })
    assert.are.same({ "obj:frob" }, repl.complete("obj:"))
    _G.obj = nil
  end)

  it("gives nothing for a path that does not exist", function()
    assert.are.same({}, repl.complete("nosuchthing.x"))
  end)
end)

describe("REPL help", function()
  local h = require "helpers"
  it("lists modules and commands, and a module's functions", function()
    local code, out = h.retrace("-e", "require('retrace.repl').setup(); help(); help(retrace.pretty); help('info'); "
      .. "help(retrace.pretty.format); help(retrace.cache.new)")
    assert.are.equal(0, code)
    assert.truthy(out:find("modules: [^\n]*retrace%.cli, "))
    local cmds = out:match("commands %(retrace COMMAND %-%-help%): ([^\n]*)")
    assert.truthy(cmds and (", " .. cmds .. ","):find(", info,", 1, true))
    -- a module's functions with their signatures and first sentences (here from its header)
    assert.truthy(out:find("\n  format(v [, opts])  -> string; opts: depth (default 4), ", 1, true))
    -- a function's signature and doc comment
    assert.truthy(out:find("\nretrace.pretty.format(v [, opts])\n  -> string; opts:", 1, true))
    assert.truthy(out:find("\nretrace.cache.new(opts)\n  A cache object (see the header). Options: size, line (units), "
      .. "ways (0 or\n  nil: fully associative), policy,", 1, true))
    assert.truthy(out:find("Usage: retrace info", 1, true))
  end)
end)
