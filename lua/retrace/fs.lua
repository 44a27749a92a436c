--- retrace.fs: the few file-system steps the views, frames and format library share.
--   fs.mkdir_p("out/views")            -- true, or nil, "out: not a folder"
--   fs.write_file("out/a.json", text)  -- true, or nil, message
--   fs.write_csv("out/a.csv", {"x", "y"}, {{1, 2.5}, {2, nil}})  -- true, or nil, message
local M = {}

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

--- Write text to the file at path (replacing it). Returns true, or nil and
-- "PATH: reason" (io.open's message, or the write's when the disk is full).
function M.write_file(path, text)
  local f, err = io.open(path, "wb")
  if not f then return nil, err end
  local ok, werr = f:write(text)
  local cok, cerr = f:close()
  if not ok or not cok then return nil, path .. ": " .. tostring(werr or cerr) end
  return true
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
-- header line. Returns true, or nil and io.open's message.
function M.write_csv(path, header, rows)
  local f, err = io.open(path, "wb")
  if not f then return nil, err end
  local cells = {}
  for i = 1, #header do cells[i] = csv_field(header[i]) end
  f:write(table.concat(cells, ","), "\n")
  for _, r in ipairs(rows) do
    for i = 1, #header do cells[i] = csv_field(r[i]) end
    f:write(table.concat(cells, ","), "\n")
  end
  f:close()
  return true
end

return M
