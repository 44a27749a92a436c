--- retrace.repl: the Lua side of the interactive prompt (printing, completion).
local pretty = require "retrace.pretty"

local M = {}

--- Print the values of an expression: tables readably, several values by tabs.
function M.print(...)
  local n = select("#", ...)
  local out = {}
  for i = 1, n do
    out[i] = pretty.format((select(i, ...)))
  end
  io.stdout:write(table.concat(out, "\t"), "\n")
  io.stdout:flush()
end

-- Names a value offers after '.' (or ':' when methods_only).
local function fields(v, methods_only)
  local names, seen = {}, {}
  local function add(k, val)
    if type(k) == "string" and k:match("^[%a_][%w_]*$") and not seen[k] then
      if not methods_only or type(val) == "function" then
        seen[k] = true
        names[#names + 1] = k
      end
    end
  end
  local depth = 0
  while v ~= nil and depth < 5 do
    if type(v) == "table" then
      for k, val in next, v do add(k, val) end
    end
    local mt = getmetatable(v)
    if type(mt) ~= "table" then break end
    if type(mt.__complete) == "function" then
      local ok, extra = pcall(mt.__complete, v)
      if ok and type(extra) == "table" then
        for _, k in ipairs(extra) do add(k, function() end) end
      end
    end
    v = mt.__index
    if type(v) ~= "table" then break end
    depth = depth + 1
  end
  return names
end

--- Completions for the word before the cursor: "ret" -> {"retrace"},
-- "retrace.ve" -> {"retrace.version"}, "obj:me" -> {"obj:method"}.
function M.complete(word)
  local path, sep, partial = word:match("^(.-)([%.:])([%w_]*)$")
  local base
  if not path then
    path, sep, partial = "", "", word
    base = _G
  else
    base = _G
    for name in path:gmatch("[^%.:]+") do
      if type(base) ~= "table" and type(base) ~= "userdata" then return {} end
      local ok, nextv = pcall(function() return base[name] end)
      if not ok then return {} end
      base = nextv
    end
  end
  local candidates = fields(base, sep == ":")
  if sep == "" then
    for _, kw in ipairs { "function", "local", "return", "require", "then", "while", "repeat" } do
      candidates[#candidates + 1] = kw
    end
  end
  local out, prefix = {}, path .. sep
  for _, k in ipairs(candidates) do
    if k:sub(1, #partial) == partial then out[#out + 1] = prefix .. k end
  end
  table.sort(out)
  local uniq = {}
  for i, k in ipairs(out) do
    if k ~= out[i - 1] then uniq[#uniq + 1] = k end
  end
  return uniq
end

--- help() lists the retrace modules and commands; help(t) lists the fields of
-- a table or object; help("COMMAND") shows a command's options.
function M.help(v)
  local out = {}
  local function say(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  if v == nil then
    local retrace = require "retrace"
    say("retrace %s: the global `retrace` is the module.", retrace.version)
    say("modules: retrace.%s", table.concat(retrace.modules, ", retrace."))
    local ok, cli = pcall(require, "retrace.cli")
    if ok then say("commands (retrace COMMAND --help): %s", table.concat(cli.commands(), ", ")) end
    say("help(retrace.NAME) lists a module's functions; TAB completes names.")
  elseif type(v) == "string" then
    local cli = require "retrace.cli"
    local cmd, err = cli.load(v)
    if not cmd then error(err, 2) end
    out[1] = cli.parser(v, cmd):get_help()
  else
    local names = fields(v)
    table.sort(names)
    for _, k in ipairs(names) do
      local ok, val = pcall(function() return v[k] end)
      say("  %-24s %s", k, ok and type(val) or "?")
    end
    if #names == 0 then say("(no fields)") end
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
end

--- Install the REPL's globals (help).
function M.setup()
  _G.help = M.help
end

return M
