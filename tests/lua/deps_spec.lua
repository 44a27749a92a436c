-- The dependency arrows point one way: commands (scripts/) and displays
-- (displays/) use the library (lua/retrace/), never the reverse. This scans every
-- library file for a require of a display module or of the command helpers.
local h = require "helpers"
local lfs = require "lfs"

-- The command layer that lives in lua/retrace/ for the host: the CLI helpers
-- themselves and the REPL, whose help() lists the commands. Nothing else may
-- require retrace.cli.
local FRONT_ENDS = { ["cli.lua"] = true, ["repl.lua"] = true }
-- init.lua defines the loader of the `retrace.displays.FAMILY.NAME` names (a
-- package searcher over ROOT/displays/), which commands and displays use. It is
-- the one library file that may name displays/; it requires none of them. Any
-- other mention of displays in library code (a require, a loadfile of
-- ROOT/displays/..., a name built at run time, a searcher of its own) is a
-- dependency on the display layer and fails here.
local LOADER = "init.lua"

local function lua_files(dir, rel, out)
  for entry in lfs.dir(dir) do
    if entry ~= "." and entry ~= ".." then
      local path, r = dir .. "/" .. entry, rel and (rel .. "/" .. entry) or entry
      local mode = lfs.attributes(path, "mode")
      if mode == "directory" then
        lua_files(path, r, out)
      elseif entry:match("%.lua$") then
        out[#out + 1] = { path = path, rel = r }
      end
    end
  end
  return out
end

-- Every offending line of a library file: "REL:LINE: text".
local function offences(file)
  local found = {}
  local n = 0
  for line in io.lines(file.path) do
    n = n + 1
    local code = line:gsub("%-%-.*$", "") -- comments may name the rule
    local bad = file.rel ~= LOADER and (code:match("retrace%.displays") or code:match("[\"'/]displays[/.\"']") or code:match("package%.searchers")
      or code:match("package%.preload"))
    if not bad and not FRONT_ENDS[file.rel] and code:match("retrace%.cli") then bad = true end
    if bad then found[#found + 1] = file.rel .. ":" .. n .. ": " .. line:gsub("^%s+", "") end
  end
  return found
end

describe("library dependencies", function()
  it("finds offences in a file that has them (the scan works)", function()
    local f = h.temp_file("local s = require 'retrace.displays.medea.scatter'\n" ..
      "-- require 'retrace.cli' in a comment is fine\nlocal cli = require(\"retrace.cli\")\n", ".lua")
    local got = offences({ path = f, rel = "x.lua" })
    assert.are.same({ "x.lua:1: local s = require 'retrace.displays.medea.scatter'",
                      "x.lua:3: local cli = require(\"retrace.cli\")" }, got)
    assert.are.same({ "init.lua:3: local cli = require(\"retrace.cli\")" },
      offences({ path = f, rel = "init.lua" }))
    assert.are.same({ "cli.lua:1: local s = require 'retrace.displays.medea.scatter'" },
      offences({ path = f, rel = "cli.lua" }))
    os.remove(f)
    local g = h.temp_file("local f = loadfile(root .. '/displays/x.lua')\n" ..
      "table.insert(package.searchers, 2, s)\n", ".lua")
    assert.are.same({ "y.lua:1: local f = loadfile(root .. '/displays/x.lua')",
                      "y.lua:2: table.insert(package.searchers, 2, s)" }, offences({ path = g, rel = "y.lua" }))
    os.remove(g)
  end)

  it("lua/retrace/ requires neither displays nor retrace.cli, and installs no searcher", function()
    local files = lua_files(h.source .. "/lua/retrace", nil, {})
    assert.is_true(#files > 20)
    local all = {}
    for _, f in ipairs(files) do
      for _, o in ipairs(offences(f)) do all[#all + 1] = o end
    end
    table.sort(all)
    assert.are.same({}, all)
  end)
end)
