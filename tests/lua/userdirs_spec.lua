-- The user's folders of commands and policies ($RETRACE_PATH, ~/.config/retrace),
-- `retrace help env` and `retrace help COMMAND SUBCOMMAND`.
local h = require "helpers"
local cjson = require "cjson"

local run = h.retrace_env

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

describe("user folders", function()
  local dir, home
  setup(function()
    dir, home = h.temp_dir(), h.temp_dir()
    assert(os.execute("mkdir -p " .. h.quote(dir .. "/scripts") .. " " .. h.quote(dir .. "/policies") .. " " ..
      h.quote(home .. "/.config/retrace/scripts")))
    write(dir .. "/scripts/hello.lua", [[
return { summary = "greet someone", parser = function(p) p:argument("who") end,
  run = function(args) io.stdout:write("hello, ", args.who, "\n") return 3 end }]])
    write(home .. "/.config/retrace/scripts/hello.lua", [[
return { summary = "the other greeting", run = function() io.stdout:write("from the config folder\n") end }]])
    write(home .. "/.config/retrace/scripts/bye.lua", [[
return { summary = "say goodbye", run = function() io.stdout:write("bye\n") end }]])
    -- always replaces way 1: A B A C A in one 2-way set misses 4 times (LRU: 3)
    write(dir .. "/policies/first_way.lua", [[
local cache = require "retrace.cache"
return cache.policy{ name = "first_way", victim = function(set) return 1 end }]])
    write(dir .. "/t.din", "0 0\n0 100\n0 0\n0 200\n0 0\n")
  end)
  teardown(function()
    h.remove_tree(dir)
    h.remove_tree(home)
  end)

  it("runs a command of $RETRACE_PATH before the config folder's, and lists both", function()
    local env = "HOME=" .. h.quote(home) .. " XDG_CONFIG_HOME= RETRACE_PATH=" .. h.quote(dir)
    local code, out, err = run(env, "hello", "world")
    assert.equals(3, code, err)
    assert.equals("hello, world\n", out)
    code, out = run(env, "bye")
    assert.equals(0, code)
    assert.equals("bye\n", out)
    code, out = run(env, "help")
    assert.equals(0, code)
    assert.matches("\n  hello%s+greet someone\n", out)
    assert.matches("\n  bye%s+say goodbye\n", out)
    assert.matches("\n  stats ", out)
    -- without RETRACE_PATH, ~/.config/retrace's own
    code, out = run("HOME=" .. h.quote(home) .. " XDG_CONFIG_HOME= RETRACE_PATH=", "hello")
    assert.equals(0, code)
    assert.equals("from the config folder\n", out)
    -- no user folder: an unknown command
    code, _, err = run("HOME=/nonexistent XDG_CONFIG_HOME= RETRACE_PATH=", "hello")
    assert.equals(2, code)
    assert.matches("unknown command 'hello'", err)
  end)

  it("takes --policy NAME from a user folder's policies/", function()
    local args = { "cache", "--size", "32", "--line", "16", "--ways", "2", "--json", "--policy", "first_way",
      dir .. "/t.din" }
    local env = "HOME=/nonexistent XDG_CONFIG_HOME= RETRACE_PATH=" .. h.quote(dir)
    local code, out, err = run(env, table.unpack(args))
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals("first_way", j.config.policy)
    assert.equals(4, j.misses)
    code, out = run(env, "cache", "--size", "32", "--line", "16", "--ways", "2", "--json", dir .. "/t.din")
    assert.equals(3, cjson.decode(out).misses)
    code, _, err = run("HOME=/nonexistent XDG_CONFIG_HOME= RETRACE_PATH=", table.unpack(args))
    assert.equals(2, code)
    assert.matches("unknown 'first_way'", err)
  end)
end)

describe("retrace help", function()
  it("shows a subcommand's help: retrace help picl dump", function()
    local code, out = h.retrace("help", "picl", "dump")
    assert.equals(0, code)
    assert.matches("^Usage: retrace picl dump ", out)
    assert.matches("print each record annotated in words", out)
    local code2, out2 = h.retrace("picl", "dump", "--help")
    assert.equals(0, code2)
    assert.equals(out2, out)
    local code3, _, err = h.retrace("help", "picl", "nope")
    assert.equals(2, code3)
    assert.equals("retrace: 'retrace picl' has no subcommand 'nope'; subcommands: stats, dump, convert\n", err)
  end)

  it("lists every environment variable the sources read (help env)", function()
    local code, out = h.retrace("help", "env")
    assert.equals(0, code)
    -- those a user sets: every RETRACE_ variable the sources read, but the ones the program
    -- passes to its own children or tests set
    local internal = { RETRACE_ALLOC_FD = true, RETRACE_ALLOC_VALGRIND_ONLY = true, RETRACE_PAR_STATS = true,
      RETRACE_PAR_TEXT_BATCH = true, RETRACE_PG_CHUNK = true }
    local p = io.popen("grep -rhoE 'getenv\\(\"RETRACE_[A-Z_]+\"\\)' " .. h.quote(h.source) .. "/lua " ..
      h.quote(h.source) .. "/scripts " .. h.quote(h.source) .. "/bindings " .. h.quote(h.source) .. "/core")
    local n = 0
    for name in p:read("a"):gmatch("RETRACE_[A-Z_]+") do
      if not internal[name] then
        n = n + 1
        assert.matches("\n  " .. name .. "\n", out, nil, true)
      end
    end
    p:close()
    assert.is_true(n >= 10, "found " .. n .. " variables")
    assert.matches("\n  RETRACE_PATH\n", out, nil, true)
  end)
end)
