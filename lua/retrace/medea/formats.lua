--- retrace.medea.formats: the format library (named subsets of parameters).
--
-- A format is a file NAME.fmt in the library folder:
--     # comment
--     approach program
--     params extime,cptime,cmtime,rctime,trtime
-- The folder is $RETRACE_FORMATS when set, else
-- $XDG_CONFIG_HOME/retrace/medea-formats (XDG_CONFIG_HOME defaults to ~/.config).
-- Built-in formats (below) are listed too; a file of the same name overrides one.
local M = {}

M.builtin = {
  times = { approach = "program", params = { "extime", "cptime", "cmtime", "rctime", "trtime" },
            description = "execution, computation, communication, receive and transmit time" },
  processor = { approach = "processor", params = { "extime", "cptime", "cmtime", "rctime", "trtime" },
                description = "the same times per processor" },
  events = { approach = "event", params = { "ctime", "stime", "utime", "hstime" },
             description = "user-event times" },
}

--- The library folder.
function M.folder()
  local env = os.getenv("RETRACE_FORMATS")
  if env and env ~= "" then return env end
  local xdg = os.getenv("XDG_CONFIG_HOME")
  if not xdg or xdg == "" then xdg = (os.getenv("HOME") or ".") .. "/.config" end
  return xdg .. "/retrace/medea-formats"
end

local function valid_name(name)
  return type(name) == "string" and name:match("^[%w_%-%.]+$") ~= nil
end

--- Parse the text of a format file; returns {approach=, params=} or nil, message.
function M.parse(text, name)
  local fmt = { name = name }
  local lineno = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    lineno = lineno + 1
    line = line:gsub("#.*", ""):match("^%s*(.-)%s*$")
    if line ~= "" then
      local key, value = line:match("^(%S+)%s+(.+)$")
      if key == "approach" then
        if value ~= "program" and value ~= "processor" and value ~= "event" then
          return nil, string.format("%s:%d: approach: '%s' is not program, processor or event", name, lineno, value)
        end
        fmt.approach = value
      elseif key == "params" then
        fmt.params = {}
        for p in value:gmatch("[^,%s]+") do fmt.params[#fmt.params + 1] = p end
      elseif key == "description" then
        fmt.description = value
      else
        return nil, string.format("%s:%d: unknown field '%s' (approach, params, description)", name, lineno,
          key or line)
      end
    end
  end
  if not fmt.params or #fmt.params == 0 then return nil, name .. ": no params line" end
  fmt.approach = fmt.approach or "program"
  return fmt
end

--- Load a format by name (the library folder first, then the built-ins).
function M.load(name)
  if not valid_name(name) then return nil, "format name '" .. tostring(name) .. "': use letters, digits, _ - ." end
  local path = M.folder() .. "/" .. name .. ".fmt"
  local f = io.open(path, "r")
  if f then
    local text = f:read("a")
    f:close()
    local fmt, err = M.parse(text, path)
    if fmt then fmt.name = name end
    return fmt, err
  end
  local b = M.builtin[name]
  if b then return { name = name, approach = b.approach, params = b.params, description = b.description } end
  return nil, "no format '" .. name .. "' in " .. M.folder() .. " (retrace medea --list-formats)"
end

--- Save a format; returns its path or nil, message.
function M.save(name, params, approach, description)
  if not valid_name(name) then return nil, "format name '" .. tostring(name) .. "': use letters, digits, _ - ." end
  local ok, err = require("retrace.fs").mkdir_p(M.folder())
  if not ok then return nil, "format library: " .. err end
  local path = M.folder() .. "/" .. name .. ".fmt"
  local text = { "# retrace medea format\n" }
  if description then text[#text + 1] = "description " .. description .. "\n" end
  text[#text + 1] = "approach " .. (approach or "program") .. "\n"
  text[#text + 1] = "params " .. table.concat(params, ",") .. "\n"
  local wok, werr = require("retrace.fs").write_file(path, table.concat(text))
  if not wok then return nil, werr end
  return path
end

--- All formats: list of {name=, approach=, params=, source="builtin"|path}, sorted by name.
function M.list()
  local byname = {}
  for name, b in pairs(M.builtin) do
    byname[name] = { name = name, approach = b.approach, params = b.params, source = "builtin",
                     description = b.description }
  end
  local lfs = require "lfs"
  local dir = M.folder()
  local ok, iter, state = pcall(lfs.dir, dir)
  if ok then
    for entry in iter, state do
      local name = entry:match("^(.+)%.fmt$")
      if name and valid_name(name) then
        local fmt = M.load(name)
        if fmt then
          fmt.source = dir .. "/" .. entry
          byname[name] = fmt
        end
      end
    end
  end
  local out = {}
  for _, f in pairs(byname) do out[#out + 1] = f end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out
end

return M
