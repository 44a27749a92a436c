--- retrace.fs: the few file-system steps the views, frames and format library share.
--   fs.mkdir_p("out/views")            -- true, or nil, "out: not a folder"
--   fs.write_file("out/a.json", text)  -- true, or nil, message
--   fs.write_csv("out/a.csv", {"x", "y"}, {{1, 2.5}, {2, nil}})  -- true, or nil, message
--   local o = assert(fs.create("out/r.txt")); o:write(...); assert(o:commit())
--   fs.not_an_input("out.json", {trace})  -- true, or nil, "out.json: is the input ..."
--
-- Every output is written whole or not at all: fs.create writes to a hidden
-- temporary beside the target, checks every write and the close, and renames it
-- onto the target at o:commit(). An error raised before the commit (a full disk,
-- Ctrl-C, a bug) removes the temporary when the object is closed or collected, so
-- the target keeps its old content and nothing complete-looking is left.
local util = require("retrace.core").util

local M = {}

--- Start an output at path: an object with o:write(s, ...) (strings, numbers),
-- o:commit() -> true | nil, "PATH: reason", and o:abort(). Use `local o <close> =`
-- so that an error before the commit leaves nothing behind. Returns nil, message
-- when the folder cannot take the file.
function M.create(path)
  return util.create(path)
end

--- true, or nil and a message when path names the same file as one of inputs
-- (writing it would destroy the input before it is read).
function M.not_an_input(path, inputs)
  for _, input in ipairs(inputs) do
    if type(input) == "string" and util.same_file(path, input) then
      return nil, path .. ": is the input " .. input .. "; refusing to overwrite it"
    end
  end
  return true
end

--- Make the folder dir and any missing parents (like mkdir -p). Returns true, or nil
-- and "PATH: not a folder" / "PATH: cannot create folder: reason".
function M.mkdir_p(dir)
  local lfs = require "lfs"
  local path = dir:sub(1, 1) == "/" and "/" or ""
  for part in dir:gmatch("[^/]+") do
    path = path .. part
    local mode = lfs.attributes(path, "mode")
    if mode == nil then
      local ok, err = lfs.mkdir(path)
      if not ok and lfs.attributes(path, "mode") ~= "directory" then
        return nil, path .. ": cannot create folder: " .. tostring(err)
      end
    elseif mode ~= "directory" then
      return nil, path .. ": not a folder"
    end
    path = path .. "/"
  end
  return true
end

--- Write text to the file at path (replacing it, whole or not at all). Returns true,
-- or nil and "PATH: reason" (the folder's, or the write's when the disk is full).
function M.write_file(path, text)
  local o <close>, err = M.create(path)
  if not o then return nil, err end
  o:write(text)
  return o:commit()
end

-- One CSV cell: nil is empty, integral floats print as integers, other floats with 15
-- significant digits (17 where 15 would not read back exactly); text with , " or a
-- newline is quoted.
local function csv_field(v)
  if v == nil then return "" end
  if math.type(v) == "float" then
    if v == math.floor(v) and math.abs(v) < 2 ^ 53 then
      v = string.format("%d", v)
    else
      local s = string.format("%.15g", v)
      if tonumber(s) ~= v then s = string.format("%.17g", v) end
      v = s
    end
  end
  v = tostring(v)
  if v:find('[,"\n]') then v = '"' .. v:gsub('"', '""') .. '"' end
  return v
end

--- Write rows (a list of lists, as wide as header; nil cells are empty) as CSV under a
-- header line, whole or not at all. Returns true, or nil and "PATH: reason".
function M.write_csv(path, header, rows)
  local o <close>, err = M.create(path)
  if not o then return nil, err end
  local cells = {}
  for i = 1, #header do cells[i] = csv_field(header[i]) end
  o:write(table.concat(cells, ","), "\n")
  for _, r in ipairs(rows) do
    for i = 1, #header do cells[i] = csv_field(r[i]) end
    o:write(table.concat(cells, ","), "\n")
  end
  return o:commit()
end

return M
