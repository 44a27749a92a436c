-- Write a SHMAP trace of C = A * B for N x N matrices (IDs 1, 2, 3).
--   retrace examples/shmap/matmul.lua N OUT [seq|par]
-- par (default): the columns of C in one parallel section, one group each
-- (C(:,j) = A * B(:,j), as SGEMM splits into SGEMV); seq: the same, sequential,
-- with an inner loop over k that loads one column of A at a time.
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local W = dofile(here .. "/writer.lua")
local n, out, mode = math.tointeger(tonumber(arg[1] or "")), arg[2], arg[3] or "par"
if not (n and out) or not (mode == "seq" or mode == "par") then
  io.stderr:write("usage: retrace examples/shmap/matmul.lua N OUT [seq|par]\n")
  os.exit(2)
end
local A, B, C = 1, 2, 3
local w = W.new(out)
w:define(A, n, n)
w:define(B, n, n)
w:define(C, n, n)
w:info(C, ("C = A * B, %d x %d, %s"):format(n, n, mode))
if mode == "par" then
  w:par(true, "columns of C")
  for j = 1, n do
    w:group(true, "column " .. j)
    w:flops(C, 2 * n * n, "sgemv")
    w:load(A, 1, n, 1, n)
    w:load(B, 1, n, j, j)
    w:load(C, 1, n, j, j)
    w:store(C, 1, n, j, j)
    w:group(false, "column " .. j)
  end
  w:par(false, "columns of C")
else
  for j = 1, n do
    for k = 1, n do
      w:flops(C, 2 * n, "saxpy")
      w:load(B, k, k, j, j)
      w:load(A, 1, n, k, k)
      w:load(C, 1, n, j, j)
      w:store(C, 1, n, j, j)
    end
  end
end
w:close()
