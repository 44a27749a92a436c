-- A small writer of SHMAP traces, shared by the generators in this folder.
--   local w = dofile(here .. "/writer.lua").new(path)
--   w:define(1, n, n); w:load(1, r1, r2, c1, c2); w:store(...); w:flops(1, 2*n, "daxpy")
--   w:info(1, "text"); w:par(true|false, label); w:group(true|false, label); w:close()
-- Time stamps advance by one unit per load or store (an ordering, as in SHMAP).
local W = {}
W.__index = W

function W.new(path)
  local f = assert(io.open(path, "w"))
  return setmetatable({ f = f, t = 0 }, W)
end

function W:define(id, rows, cols) self.f:write(("0 %d %d %d\n"):format(id, rows, cols)) end

local function block(self, op, id, r1, r2, c1, c2)
  if r1 > r2 or c1 > c2 then return end -- an empty block is no access
  self.t = self.t + 1
  self.f:write(("%d %d %d %d %d %d %d.0\n"):format(op, id, r1, r2, c1, c2, self.t))
end
function W:load(id, r1, r2, c1, c2) block(self, 1, id, r1, r2, c1, c2) end
function W:store(id, r1, r2, c1, c2) block(self, 2, id, r1, r2, c1, c2) end

function W:info(id, text) self.f:write(("3 %d %s\n"):format(id, text)) end
function W:flops(id, n, name) self.f:write(("5 %d %d %s\n"):format(id, n, name)) end
function W:par(start, label) self.f:write(("%d %s\n"):format(start and 6 or 7, label or "")) end
function W:group(start, label) self.f:write(("%d %s\n"):format(start and 8 or 9, label or "")) end
function W:close() self.f:close() end

return W
