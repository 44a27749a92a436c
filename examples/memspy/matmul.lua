-- Write a .msp trace of the seed's blocked matrix multiply (its Figure 1):
-- main allocates three N x N matrices of doubles (Matrix.X, Matrix.Y, Matrix.Z,
-- row-major), ClearProduct zeroes Z, BlkMultiply computes Z = Z + X * Y block by
-- block (B x B blocks of Y reused across the rows of X).
--   retrace examples/memspy/matmul.lua N B OUT.msp
--   retrace memspy OUT.msp --size 2K      (N = 64, B = 16: a block of Y fills the cache)
-- Each inner iteration reads Z[i,j] and Y[k,j] and writes Z[i,j]; two busy
-- cycles per multiply-add are recorded per row of the block (B records).
local n, b, out = math.tointeger(tonumber(arg[1] or "")), math.tointeger(tonumber(arg[2] or "")), arg[3]
if not (n and b and out) or n < 1 or b < 1 then
  io.stderr:write("usage: retrace examples/memspy/matmul.lua N B OUT.msp\n")
  os.exit(2)
end
local f = assert(io.open(out, "w"))
local buf, nb = {}, 0
local function w(s)
  nb = nb + 1
  buf[nb] = s
  if nb == 4096 then f:write(table.concat(buf, "\n", 1, nb), "\n"); nb = 0 end
end
local size = n * n * 8
local X, Y, Z = 0x100000, 0x100000 + size + 4096, 0x100000 + 2 * (size + 4096)
local function at(m, i, j) return string.format("%x", m + ((i - 1) * n + (j - 1)) * 8) end
w("msp 1")
w(("# blocked matrix multiply, N = %d, B = %d (examples/memspy/matmul.lua)"):format(n, b))
w("E 0 main")
w(("A 0 %x %d Matrix.X mm.c:31"):format(X, size))
w(("A 0 %x %d Matrix.Y mm.c:32"):format(Y, size))
w(("A 0 %x %d Matrix.Z mm.c:33"):format(Z, size))
-- main fills X and Y
for i = 1, n do
  for j = 1, n do
    w("W 0 " .. at(X, i, j))
    w("W 0 " .. at(Y, i, j))
  end
end
w("E 0 ClearProduct mm.c:35")
for i = 1, n do
  for j = 1, n do w("W 0 " .. at(Z, i, j)) end
end
w("X 0 ClearProduct")
w("E 0 BlkMultiply mm.c:36")
for kk = 1, n, b do
  for jj = 1, n, b do
    for i = 1, n do
      for k = kk, math.min(kk + b - 1, n) do
        w("R 0 " .. at(X, i, k))
        local jl = math.min(jj + b - 1, n)
        for j = jj, jl do
          local z = at(Z, i, j)
          w("R 0 " .. z)
          w("R 0 " .. at(Y, k, j))
          w("W 0 " .. z)
        end
        w(("B 0 %d"):format(2 * (jl - jj + 1)))
      end
    end
  end
end
w("X 0 BlkMultiply")
w("X 0 main")
f:write(table.concat(buf, "\n", 1, nb), "\n")
f:close()
