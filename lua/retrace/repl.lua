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

-- The first sentence (or line) of a doc text, at most `width` characters.
local function summary(text, width)
  if not text then return "" end
  local s = text:gsub("\n%s*", " ")
  s = s:match("^(.-[.:])%s+%u") or s:match("^(.-%.)$") or s
  if #s > width then s = s:sub(1, width - 3) .. "..." end
  return s
end

-- The loaded module whose table is t ("retrace.cache"), or nil.
local function module_name(t)
  for name, v in pairs(package.loaded) do
    if v == t and type(name) == "string" and (name == "retrace" or name:match("^retrace%.")) then return name end
  end
  local core = package.loaded["retrace.core"]
  if type(core) == "table" then
    for k, v in pairs(core) do
      if v == t then return "retrace.core." .. k end
    end
  end
end

--- help() lists the retrace modules and commands; help(f) prints a function's signature
-- and doc comment; help(t) a module's header and its fields, each function with its
-- signature and first sentence (an object: its methods); help("COMMAND") (or
-- "COMMAND SUBCOMMAND") shows a command's options.
function M.help(v)
  local doc = require "retrace.doc"
  local out = {}
  local function say(fmt, ...) out[#out + 1] = string.format(fmt, ...) end
  if v == nil then
    local retrace = require "retrace"
    say("retrace %s: the global `retrace` is the module.", retrace.version)
    say("modules: retrace.%s", table.concat(retrace.modules, ", retrace."))
    local ok, cli = pcall(require, "retrace.cli")
    if ok then say("commands (retrace COMMAND --help): %s", table.concat(cli.commands(), ", ")) end
    say("help(retrace.NAME) lists a module's functions, help(f) shows one; TAB completes names.")
  elseif type(v) == "string" then
    local cli = require "retrace.cli"
    local words = {}
    for w in v:gmatch("%S+") do words[#words + 1] = w end
    local p, err = cli.load("help").find_parser(words)
    if not p then error(err, 2) end
    out[1] = p:get_help()
  elseif type(v) == "function" then
    local d = doc.of(v)
    say("%s", d.signature)
    if d.text then
      for line in (d.text .. "\n"):gmatch("([^\n]*)\n") do say("  %s", line) end
    else
      say("  (no doc comment)")
    end
  else
    local mod = type(v) == "table" and module_name(v)
    local header = mod and doc.module(mod)
    if header then
      say("%s: %s", mod, (header:match("^(.-)\n%s*\n") or header):gsub("^[%w_.]+: ", ""))
    end
    local mt = getmetatable(v)
    local object = type(v) == "userdata" and type(mt) == "table" and type(mt.__name) == "string" and mt.__name
    if object then say("a %s object; its methods:", object) end
    local names = fields(v)
    table.sort(names)
    local width = 0
    local rows = {}
    for _, k in ipairs(names) do
      local ok, val = pcall(function() return v[k] end)
      local label, text
      if ok and type(val) == "function" then
        local d = doc.of(val)
        local params = d.signature:match("^[%w_.:]*(%b())") or "(...)"
        label, text = k .. params, summary(d.text, 72)
        if not d.text and object then
          local ex, listing = doc.example(k, object)
          if ex then label, text = k, listing and ex or ("e.g. " .. ex) end
        elseif object and d.name and d.name:find(":", 1, true) then
          label, text = d.signature, d.text or ""
        end
      else
        label, text = k, ok and type(val) or "?"
      end
      rows[#rows + 1] = { label, text }
      width = math.max(width, #label)
    end
    width = math.min(width, 32)
    for _, r in ipairs(rows) do say("  %-" .. width .. "s  %s", r[1], r[2]) end
    if #names == 0 then say("(no fields)") end
  end
  io.stdout:write(table.concat(out, "\n"), "\n")
end

--- Install the REPL's globals (help).
function M.setup()
  _G.help = M.help
end

return M
