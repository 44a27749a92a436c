--- retrace: analyse and picture program traces.
-- `require "retrace"` gives this table. Submodules (retrace.cli, retrace.pretty,
-- and those later issues add: cache, canvas, picl, chitra, medea, ...) load on
-- first use: `retrace.pretty` is `require "retrace.pretty"`.
-- Display modules live under displays/ and load as `retrace.displays.FAMILY.NAME`.
local core = require "retrace.core"

local M = {
  version = core.version,
  core = core,
}

--- Whether an error caught by pcall is Ctrl-C (the host's "interrupted!", possibly
-- raised inside a progress callback and carrying its traceback): code that catches
-- errors to report them raises this one again, so the run ends as interrupted (exit
-- 130, one line) and its outputs are dropped.
function M.interrupted(err)
  return type(err) ~= "table" and tostring(err):match("^[^\n]*"):match("interrupted!$") ~= nil
end

-- The data root holds lua/, scripts/, displays/ (build tree and install alike). Loaded by
-- the system Lua from an install's PREFIX/share/lua/5.4/retrace (a link to the tree),
-- the root is PREFIX/share/retrace.
local src = debug.getinfo(1, "S").source
M.root = src:match("^@(.*)/lua/retrace/init%.lua$")
  or (src:match("^@(.*)/share/lua/[%d.]+/retrace/init%.lua$") or "") .. "/share/retrace"
if M.root == "/share/retrace" then M.root = "." end

local function exists(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

-- Names of the submodules found next to this file, for lazy loading and completion.
local function discover()
  local ok, lfs = pcall(require, "lfs")
  local names = {}
  if not ok then return names end
  local dir = M.root .. "/lua/retrace"
  local okdir, iter, state = pcall(lfs.dir, dir)
  if not okdir then return names end
  for entry in iter, state do
    local name = entry:match("^([%w_]+)%.lua$")
    if name and name ~= "init" then
      names[#names + 1] = name
    elseif not name and entry:match("^[%w_]+$") and exists(dir .. "/" .. entry .. "/init.lua") then
      names[#names + 1] = entry
    end
  end
  table.sort(names)
  return names
end

M.modules = discover()
local known = {}
for _, n in ipairs(M.modules) do known[n] = true end

-- `retrace.displays.FAMILY.NAME` -> ROOT/displays/FAMILY/NAME.lua
local function display_searcher(name)
  local rest = name:match("^retrace%.displays%.(.+)$")
  if not rest then return nil end
  local path = M.root .. "/displays/" .. rest:gsub("%.", "/") .. ".lua"
  if not exists(path) then
    return "\n\tno display file '" .. path .. "'"
  end
  local chunk, err = loadfile(path)
  if not chunk then error(err, 0) end
  return chunk, path
end

local installed = false
for _, s in ipairs(package.searchers) do
  if s == display_searcher then installed = true end
end
if not installed then table.insert(package.searchers, 2, display_searcher) end

setmetatable(M, {
  __index = function(t, k)
    if type(k) == "string" and known[k] then
      local mod = require("retrace." .. k)
      rawset(t, k, mod)
      return mod
    end
  end,
  -- for REPL completion: fields that load on demand
  __complete = function() return M.modules end,
})

return M
