-- retrace.viewer: the index of a trace and the server of `retrace view`.
--   viewer.index_path(trace)           where the index of a trace lives by default
--   viewer.ensure(trace, opts)         an up-to-date index: reused when it matches, else built
--   viewer.serve(trace, index, opts)   a running server (see bindings/lviewer.c)
local core = require("retrace.core").viewer

local M = {}

M.index_version = core.index_version

local function writable_dir(dir)
  local probe = dir .. "/.retrace-probe-" .. tostring(os.time()) .. "-" .. tostring(math.random(1 << 30))
  local f = io.open(probe, "w")
  if not f then return false end
  f:close()
  os.remove(probe)
  return true
end

-- The cache folder for indexes of traces in folders retrace cannot write to.
local function cache_dir()
  local base = os.getenv("XDG_CACHE_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or "/tmp") .. "/.cache" end
  return base .. "/retrace"
end

--- Where the index of trace goes: TRACE.rtidx beside it (an OTF2 archive given by its
-- folder: FOLDER.rtidx), or, when that folder is not writable, the cache folder
-- ($XDG_CACHE_HOME/retrace or ~/.cache/retrace) under a name made from the trace's path.
function M.index_path(trace)
  local t = trace:gsub("/+$", "")
  local dir = t:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  if writable_dir(dir) then return t .. ".rtidx" end
  local lfs = require "lfs"
  local abs = t:sub(1, 1) == "/" and t or (lfs.currentdir() .. "/" .. t)
  local cache = cache_dir()
  local acc = ""
  for part in cache:gmatch("[^/]+") do
    acc = acc .. "/" .. part
    lfs.mkdir(acc)
  end
  return cache .. "/" .. abs:gsub("[^%w%.%-]", "_") .. ".rtidx"
end

--- An index for trace that matches it now. opts: index (path), format, rebuild (force),
-- log (function(message) told what happens). Returns path, info, built (true when it
-- was (re)built) or nil, message.
function M.ensure(trace, opts)
  opts = opts or {}
  local path = opts.index or M.index_path(trace)
  local log = opts.log or function() end
  if not opts.rebuild then
    local info, err, status = core.check(path, trace)
    if info then return path, info, false end
    if status ~= "io" then log(err .. "; building it again") end
  end
  local built, berr = core.build(trace, path, opts.format)
  if not built then return nil, berr end
  local info, cerr = core.check(path, trace)
  if not info then return nil, cerr end
  for k, v in pairs(built) do info[k] = v end
  return path, info, true
end

--- The folder of the page's files.
function M.assets()
  return require("retrace").root .. "/lua/retrace/viewer"
end

--- Start serving: opts bind, port, token, title. Returns the server or nil, message.
function M.serve(trace, index, opts)
  opts = opts or {}
  return core.serve { index = index, trace = trace, assets = opts.assets or M.assets(), title = opts.title or trace,
    bind = opts.bind, port = opts.port or 0, token = opts.token }
end

return M
