--- retrace.fs: the few file-system steps the views, frames and format library share.
--   fs.mkdir_p("out/views")            -- true, or nil, "out: not a folder"
--   fs.write_file("out/a.json", text)  -- true, or nil, message
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

return M
