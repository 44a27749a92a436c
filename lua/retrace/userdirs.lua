--- retrace.userdirs: the user's folders of commands and cache policies.
--
-- The folders are each entry of $RETRACE_PATH (colon-separated), then
-- $XDG_CONFIG_HOME/retrace (XDG_CONFIG_HOME defaults to ~/.config). In each,
-- scripts/NAME.lua is a command (`retrace NAME`, the same table as the shipped
-- scripts/*.lua) and policies/NAME.lua a cache policy (`--policy NAME`). The
-- first folder holding a name wins, and a user's file wins over a shipped one.
local M = {}

--- The user folders, in search order (existing or not).
function M.dirs()
  local dirs = {}
  local env = os.getenv("RETRACE_PATH")
  if env and env ~= "" then
    for d in env:gmatch("[^:]+") do dirs[#dirs + 1] = d end
  end
  local xdg = os.getenv("XDG_CONFIG_HOME")
  if not xdg or xdg == "" then
    local home = os.getenv("HOME")
    xdg = home and home ~= "" and (home .. "/.config") or nil
  end
  if xdg then dirs[#dirs + 1] = xdg .. "/retrace" end
  return dirs
end

local function readable(path)
  local f = io.open(path, "r")
  if f then f:close() return true end
  return false
end

--- The path of KIND/NAME.lua ("scripts" or "policies") in the first user folder
-- holding it, or nil.
function M.find(kind, name)
  for _, d in ipairs(M.dirs()) do
    local path = d .. "/" .. kind .. "/" .. name .. ".lua"
    if readable(path) then return path end
  end
  return nil
end

--- The names NAME of every KIND/NAME.lua in the user folders (unsorted, unique).
function M.names(kind)
  local ok, lfs = pcall(require, "lfs")
  local names, seen = {}, {}
  if not ok then return names end
  for _, d in ipairs(M.dirs()) do
    local okdir, iter, state = pcall(lfs.dir, d .. "/" .. kind)
    if okdir then
      for f in iter, state do
        local n = f:match("^([%w_%-]+)%.lua$")
        if n and not seen[n] then
          seen[n] = true
          names[#names + 1] = n
        end
      end
    end
  end
  return names
end

return M
