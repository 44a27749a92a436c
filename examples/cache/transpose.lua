-- Writes the din trace of a naive transpose B = A^T of an N x N matrix of doubles
-- (row-major, A at 0x100000, B right after it): for each element a read of A[i][j]
-- and a write of B[j][i]. The bundled examples/cache/transpose.din is N = 64:
--   retrace examples/cache/transpose.lua 64 examples/cache/transpose.din
local n = tonumber(arg[1]) or 64
local out = assert(io.open(assert(arg[2], "usage: transpose.lua N OUT.din"), "w"))
local a, b = 0x100000, 0x100000 + n * n * 8
for i = 0, n - 1 do
  for j = 0, n - 1 do
    out:write(("0 %x\n1 %x\n"):format(a + (i * n + j) * 8, b + (j * n + i) * 8))
  end
end
assert(out:close())
