--- Shared helpers for the busted specs.
local M = {}

M.bin = os.getenv("RETRACE_BIN") or "build/retrace"
M.source = os.getenv("RETRACE_SOURCE") or "."
M.shared = os.getenv("RETRACE_SHARED") or (M.source .. "/../shared/data")
M.fixtures = os.getenv("RETRACE_FIXTURES") or (M.source .. "/tests/fixtures")

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return "" end
  local s = f:read("a")
  f:close()
  return s
end
M.slurp = slurp

local function shell_quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end
M.quote = shell_quote

--- Run the retrace binary with arguments; returns exit code, stdout, stderr.
function M.retrace(...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = shell_quote((select(i, ...))) end
  local out, err = os.tmpname(), os.tmpname()
  local cmd = shell_quote(M.bin) .. " " .. table.concat(args, " ") ..
    " >" .. out .. " 2>" .. err
  local _, _, code = os.execute(cmd)
  local o, e = slurp(out), slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

--- Path of a shared sample trace, or nil when ../shared is absent (the spec
-- then skips, saying so).
function M.shared_file(rel)
  local p = M.shared .. "/" .. rel
  local f = io.open(p, "r")
  if not f then return nil end
  f:close()
  return p
end

--- Write text to a fresh temporary file; returns its path.
function M.temp_file(text, suffix)
  local p = os.tmpname() .. (suffix or "")
  local f = assert(io.open(p, "wb"))
  f:write(text)
  f:close()
  return p
end

--- A fresh empty temporary folder; returns its path.
function M.temp_dir()
  local d = os.tmpname()
  os.remove(d)
  assert(require("lfs").mkdir(d))
  return d
end

--- The colour of canvas pixel (x, y) (coordinates floored) as "#rrggbb".
function M.pixel_hex(cv, x, y)
  local r, g, b = cv:get_pixel(math.floor(x), math.floor(y))
  return string.format("#%02x%02x%02x", r, g, b)
end

--- Do two boxes {x, y, w, h} overlap (share more than an edge)?
function M.boxes_overlap(a, b)
  return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
end

--- Remove a folder and everything in it.
function M.remove_tree(d)
  os.execute("rm -rf " .. shell_quote(d))
end

return M
