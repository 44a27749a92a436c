--- retrace.doc: the doc comments of retrace's functions and modules, read at first use,
-- for help() in the REPL.
--
--   doc.of(f) -> {name = "retrace.cache.new", signature = "retrace.cache.new(opts)",
--                 text = "A cache object ..."} or nil: the `---` comment written above a
--                 Lua function's definition, or, for a C function of retrace.core, the
--                 comment above it in the bindings (ROOT/cdoc.lua, collected by the build)
--   doc.module(name) -> the header comment of module `name` ("retrace.cache"), or nil
--   doc.name(f) -> "retrace.cache.new" (where f is found among the loaded modules), or nil
local M = {}

-- Lines of a source file, read once.
local files = {}
local function lines_of(path)
  local l = files[path]
  if l then return l end
  l = {}
  local f = io.open(path, "r")
  if f then
    for line in f:lines() do l[#l + 1] = line end
    f:close()
  end
  files[path] = l
  return l
end

-- The comment block right above line i (its `--`, `---` marks taken off), or nil.
local function comment_above(lines, i)
  local block = {}
  local j = i - 1
  while j >= 1 and lines[j]:match("^%s*%-%-") do
    table.insert(block, 1, (lines[j]:gsub("^%s*%-%-%-?%s?", "")))
    j = j - 1
  end
  if #block == 0 then return nil end
  return table.concat(block, "\n")
end

-- The module tables loaded under retrace (retrace.*, and retrace.core's parts).
local function modules()
  local list = {}
  for name, t in pairs(package.loaded) do
    if type(t) == "table" and (name == "retrace" or name:match("^retrace%.")) then list[#list + 1] = { name, t } end
  end
  local core = package.loaded["retrace.core"]
  if type(core) == "table" then
    for k, t in pairs(core) do
      if type(k) == "string" and type(t) == "table" then list[#list + 1] = { "retrace.core." .. k, t } end
    end
  end
  table.sort(list, function(a, b) return a[1] < b[1] end)
  return list
end

--- Where f is found among the loaded retrace modules: "retrace.cache.new" and the
-- module's name and key ("retrace.cache", "new"), or nil.
function M.name(f)
  for _, m in ipairs(modules()) do
    for k, v in next, m[2] do
      if v == f and type(k) == "string" then return m[1] .. "." .. k, m[1], k end
    end
  end
  return nil
end

-- The source file of a Lua module, or nil.
local function module_file(name)
  return package.searchpath(name, package.path)
end

--- The header comment of a module ("retrace.cache"): the comment its file starts with.
function M.module(name)
  local path = module_file(name)
  if not path then return nil end
  local lines = lines_of(path)
  local n = 0
  while lines[n + 1] and lines[n + 1]:match("^%s*%-%-") do n = n + 1 end
  if n == 0 then return nil end
  return comment_above(lines, n + 1)
end

-- The definition of KEY in a module's file: `function X.KEY(` / `function X:KEY(` /
-- `X.KEY = `; returns its line number.
local function find_definition(lines, key)
  local k = key:gsub("%p", "%%%0")
  -- the module's own table (function M.key) before a deeper one (function a.b.key)
  for _, prefix in ipairs({ "[%w_]+", "[%w_.]+" }) do
    for i, line in ipairs(lines) do
      if line:match("^function%s+" .. prefix .. "[.:]" .. k .. "%s*%(") or line:match("^[%w_]+%." .. k .. "%s*=") then
        return i
      end
    end
  end
end

-- The signature of a definition line: "retrace.cache.new(opts)" from "function M.new(opts)".
local function signature(line, fullname)
  local name, params = line:match("function%s*([%w_.:]*)%s*(%b())")
  if params then return (fullname or name) .. params end
  return (line:gsub("^%s+", ""):gsub("%s*%-%-.*$", ""))
end

-- The collected doc of the C functions (ROOT/cdoc.lua), and its reverse map
-- function -> key, made at first use.
local cdoc, cnames
local function c_doc(f)
  if cdoc == nil then
    cdoc, cnames = false, {}
    local root = require("retrace").root
    local chunk = loadfile(root .. "/cdoc.lua", "t", {})
    local ok, t = pcall(chunk or error)
    if ok and type(t) == "table" then cdoc = t end
    if cdoc then
      local core = require "retrace.core"
      for mod, t in pairs(core) do
        if type(t) == "table" then
          for k, v in pairs(t) do
            if type(v) == "function" then cnames[v] = "core." .. mod .. "." .. k end
          end
        end
      end
      -- methods of the classes the bindings register (their metatables by name)
      local reg = debug.getregistry()
      for key in pairs(cdoc) do
        local class, meth = key:match("^(.-):([%w_]+)$")
        local mt = class and reg[class]
        if type(mt) == "table" then
          local methods = type(mt.__index) == "table" and mt.__index or mt
          local v = rawget(methods, meth)
          if type(v) == "function" then cnames[v] = key end
        end
      end
    end
  end
  if not cdoc then return nil end
  local key = cnames[f]
  return key and cdoc[key], key
end

--- A line of the loaded modules' header comments that shows method `name`, and
-- whether the line starts with the call (a list of methods: "c:stats() -> {...}")
-- rather than using it in an example; nil when none does. The doc of an object's
-- method that has no comment of its own.
function M.example(name, class)
  local pat = "[%w_]:" .. name:gsub("%p", "%%%0") .. "%("
  -- the module of the class ("retrace.Cache": retrace.cache), else every loaded one
  local mods = modules()
  if class then
    mods = {}
    for _, m in ipairs(modules()) do
      if m[1]:lower() == class:lower() then mods[1] = m end
    end
  end
  -- a line that starts with the call (a list of methods) before one that uses it
  for _, where in ipairs({ "^%s*[%w_]+:", "" }) do
    for _, m in ipairs(mods) do
      local header = M.module(m[1])
      if header then
        for line in header:gmatch("[^\n]+") do
          if line:find(pat) and (where == "" or line:match(where .. name:gsub("%p", "%%%0") .. "%(")) then
            return (line:gsub("^%s+", ""):gsub("%s+", " ")), where ~= ""
          end
        end
      end
    end
  end
end

-- The entry of KEY in a module's header listing ("pretty.format(v [, opts]) -> string; ..."
-- and its continuation lines, up to a blank line or the next entry): the doc of a
-- function written in the header rather than above it. Returns the signature and the
-- rest, or nil.
local function header_entry(modname, key)
  local header = M.module(modname)
  if not header then return nil end
  local k = key:gsub("%p", "%%%0")
  local entry
  for line in (header .. "\n"):gmatch("([^\n]*)\n") do
    local t = line:gsub("^%s+", "")
    if entry then
      if t == "" or t:match("^[%w_]+[.:][%w_]+%s*%(") then break end
      entry[#entry + 1] = t
    elseif t:match("^[%w_]+%." .. k .. "%s*%(") then
      entry = { t }
    end
  end
  if not entry then return nil end
  local text = table.concat(entry, "\n")
  local call, rest = text:match("^[%w_]+%.(" .. k .. "%s*%b())%s*(.*)$")
  if not call then return nil end
  return call, rest ~= "" and rest or nil
end

--- The doc of function f: {name, signature, text} (text nil when no comment was written).
function M.of(f)
  if type(f) ~= "function" then return nil end
  local full, modname, key = M.name(f)
  -- by name, in the source of the module that exports it (Lua or C functions alike)
  if modname then
    local path = module_file(modname)
    local lines = path and lines_of(path)
    local at = lines and find_definition(lines, key)
    if at then
      local text = comment_above(lines, at)
      local sig = signature(lines[at], full)
      if text and not lines[at]:match("^%s*function") then
        -- `M.key = core.x.key`: the parameters the C function's comment gives
        local ctext = debug.getinfo(f, "S").what == "C" and c_doc(f)
        sig = full .. (ctext and ctext:match("^[%w_.:]*(%b())") or "(...)")
      end
      if text then return { name = full, signature = sig, text = text } end
    end
    -- no comment above it: its entry in the module's header
    local call, rest = header_entry(modname, key)
    if call then return { name = full, signature = modname .. "." .. call, text = rest } end
  end
  local info = debug.getinfo(f, "S")
  if info.what == "Lua" and info.source:sub(1, 1) == "@" and info.linedefined > 0 then
    local lines = lines_of(info.source:sub(2))
    local line = lines[info.linedefined]
    if line then
      return { name = full, signature = signature(line, full), text = comment_above(lines, info.linedefined),
               where = info.short_src .. ":" .. info.linedefined }
    end
  elseif info.what == "C" then
    local text, ckey = c_doc(f)
    if text then
      return { name = full or ckey, signature = text:match("^[^\n]*"), text = text:match("^[^\n]*\n(.*)$") }
    end
    -- a method of a class the bindings register: the line of a module header that shows it
    for class, mt in pairs(debug.getregistry()) do
      if type(class) == "string" and class:match("^retrace%.") and type(mt) == "table" then
        local methods = type(mt.__index) == "table" and mt.__index or mt
        for k, v in pairs(methods) do
          if v == f and type(k) == "string" then
            local ex, listing = M.example(k, class)
            if ex and listing then
              local call, rest = ex:match("^(.-%b())%s*(.*)$")
              return { name = class .. ":" .. k, signature = call or ex, text = rest ~= "" and rest or nil }
            end
            return { name = class .. ":" .. k, signature = class .. ":" .. k .. "(...)",
                     text = ex and ("e.g. " .. ex) or nil }
          end
        end
      end
    end
    return { name = full or ckey, signature = (full or "a C function") .. "(...)" }
  end
  return { name = full, signature = full and (full .. "(...)") or "a function" }
end

return M
