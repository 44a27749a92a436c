-- Write a .msp trace whose MemSpy report is the seed's Figures 2 and 3 at 1/1000
-- scale: the blocked matrix multiply's code x data matrix of stall time (main,
-- ClearProduct, BlkMultiply x Matrix.X, Matrix.Y, Matrix.Z) and the detail of
-- Matrix.Y in BlkMultiply (12,880 reads, 8,710 replacement misses caused 90.0% by
-- Matrix.Y, 6.9% by Matrix.Z, 3.1% by Matrix.X).
--   retrace examples/memspy/figure2.lua OUT.msp
--   retrace memspy OUT.msp --size 32K --ref-cycles 0 --detail BlkMultiply:Matrix.Y
-- Construction: every address is a multiple of 32 KiB, so in a 32 KiB
-- direct-mapped cache all lines meet in set 0 and each reference to another line
-- misses and evicts the one before; the order of lines then decides every cause.
-- (loaded with the argument "--module" it returns the writer instead: tests do that)
local mode = ...
local M = {}

-- spread `total` over n slots as evenly as possible (the first ones get the extra)
local function spread(total, n)
  local t = {}
  for i = 1, n do t[i] = total // n + (i <= total % n and 1 or 0) end
  return t
end

function M.write(path)
  local f = assert(io.open(path, "w"))
  local function w(...) f:write(string.format(...), "\n") end
  local STEP = 32768
  local Y, X, Z = 0x0, 0x1000000, 0x2000000
  local NY, NX, NZ = 92, 82, 82
  w("msp 1")
  w("# the seed's Figures 2 and 3 at 1/1000 scale (examples/memspy/figure2.lua)")
  w("E 0 main")
  w("A 0 %x %d Matrix.Y mm.c:40", Y, NY * STEP)
  w("A 0 %x %d Matrix.X mm.c:41", X, NX * STEP)
  w("A 0 %x %d Matrix.Z mm.c:42", Z, NZ * STEP)
  -- main reads every line of Y, then of X: first-reference misses, plus hits
  local hy, hx = spread(200, NY), spread(192, NX)
  for i = 0, NY - 1 do
    for _ = 0, hy[i + 1] do w("R 0 %x", Y + i * STEP) end
  end
  for i = 0, NX - 1 do
    for _ = 0, hx[i + 1] do w("R 0 %x", X + i * STEP) end
  end
  w("B 0 5000")
  -- ClearProduct writes every line of Z
  w("E 0 ClearProduct mm.c:50")
  local hz = spread(178, NZ)
  for i = 0, NZ - 1 do
    for _ = 0, hz[i + 1] do w("W 0 %x", Z + i * STEP) end
  end
  w("B 0 3600")
  w("X 0 ClearProduct")
  -- BlkMultiply: 8710 Y misses in round robin; after some of them a Z or an X
  -- line, whose reference evicts that Y line (the cause of its next miss)
  w("E 0 BlkMultiply mm.c:51")
  local ZN, XN, YN = 786, 438, 8710
  local zw = 180                           -- Z misses that are writes
  local zwh, zrh, xrh = spread(6500, ZN), spread(4000, ZN), spread(1500, XN)
  local zi, xi, zc, xc = 0, 0, 0, 0
  local function z_ref()
    zc = zc + 1
    local a = Z + zi * STEP
    zi = (zi + 1) % NZ
    w("%s 0 %x", zc <= zw and "W" or "R", a)
    for _ = 1, zwh[zc] do w("W 0 %x", a) end
    for _ = 1, zrh[zc] do w("R 0 %x", a) end
  end
  local function x_ref()
    xc = xc + 1
    local a = X + xi * STEP
    xi = (xi + 1) % NX
    w("R 0 %x", a)
    for _ = 1, xrh[xc] do w("R 0 %x", a) end
  end
  local counted = YN - NY                  -- Y occurrences that are not their line's last
  local zbody, xbody = 0, 0
  for k = 0, YN - 1 do
    local a = Y + (k % NY) * STEP
    w("R 0 %x", a)
    if k < 4170 then w("R 0 %x", a) end    -- 4170 Y hits
    if k < counted then
      if k % 32 == 15 and xbody < 269 then
        xbody = xbody + 1
        x_ref()
      elseif k % 13 == 6 and zbody < 601 then
        zbody = zbody + 1
        z_ref()
      end
    end
  end
  assert(zbody == 601 and xbody == 269)
  for _ = 1, XN - xbody do z_ref(); x_ref() end
  while zc < ZN do z_ref() end
  w("B 0 130900")
  w("X 0 BlkMultiply")
  w("X 0 main")
  f:close()
end

if mode == "--module" then return M end
local out = arg and arg[1]
if not out then
  io.stderr:write("usage: retrace examples/memspy/figure2.lua OUT.msp\n")
  os.exit(2)
end
M.write(out)
