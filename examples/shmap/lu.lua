-- Write a SHMAP trace of LU decomposition (no pivoting) of an N x N matrix.
--   retrace examples/shmap/lu.lua ORDER N OUT [NB]
-- ORDER: kji  right-looking: scale column k, then update the trailing columns,
--             one parallel group per column (a parallel section per k)
--        jki  left-looking: column j gathers the updates of columns 1..j-1, then is scaled
--        blocked  right-looking by blocks of NB columns (default 4): unblocked panel,
--             triangular solve of the block row, and a matrix multiply of the
--             trailing matrix whose columns run in parallel groups (SGEMM as SGEMV per column)
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local W = dofile(here .. "/writer.lua")
local order, n, out, nb = arg[1], math.tointeger(tonumber(arg[2] or "")), arg[3], tonumber(arg[4] or "4")
if not (order and n and out) or not (order == "kji" or order == "jki" or order == "blocked") then
  io.stderr:write("usage: retrace examples/shmap/lu.lua kji|jki|blocked N OUT [NB]\n")
  os.exit(2)
end
local A = 1
local w = W.new(out)
w:define(A, n, n)
w:info(A, ("LU decomposition of a %d x %d matrix, %s"):format(n, n, order))

-- scale column k below the diagonal by the pivot
local function scale(k, last)
  last = last or n
  w:flops(A, last - k, "sscal")
  w:load(A, k, k, k, k)
  w:load(A, k + 1, last, k, k)
  w:store(A, k + 1, last, k, k)
end

-- column j -= column k (rows k+1..last) times A(k, j)
local function axpy(k, j, last)
  last = last or n
  w:flops(A, 2 * (last - k), "saxpy")
  w:load(A, k, k, j, j)
  w:load(A, k + 1, last, k, k)
  w:load(A, k + 1, last, j, j)
  w:store(A, k + 1, last, j, j)
end

if order == "kji" then
  for k = 1, n - 1 do
    scale(k)
    w:par(true, "update trailing columns " .. (k + 1) .. ".." .. n)
    for j = k + 1, n do
      w:group(true, "column " .. j)
      axpy(k, j)
      w:group(false, "column " .. j)
    end
    w:par(false, "update")
  end
elseif order == "jki" then
  for j = 1, n do
    for k = 1, j - 1 do axpy(k, j) end
    if j < n then scale(j) end
  end
else
  for K = 1, n, nb do
    local Ke = math.min(K + nb - 1, n)
    -- panel: unblocked right-looking LU of columns K..Ke (rows K..n)
    for k = K, Ke do
      if k < n then scale(k) end
      for j = k + 1, Ke do axpy(k, j) end
    end
    if Ke < n then
      -- block row: U12 = L11^-1 A12, one column at a time
      for j = Ke + 1, n do
        w:flops(A, (Ke - K + 1) * (Ke - K), "strsv")
        w:load(A, K, Ke, K, Ke)
        w:load(A, K, Ke, j, j)
        w:store(A, K, Ke, j, j)
      end
      -- trailing update A22 -= A21 * A12: columns in parallel (SGEMM as SGEMV per column)
      w:par(true, "sgemm")
      for j = Ke + 1, n do
        w:group(true, "column " .. j)
        w:flops(A, 2 * (n - Ke) * (Ke - K + 1), "sgemv")
        w:load(A, Ke + 1, n, K, Ke)
        w:load(A, K, Ke, j, j)
        w:load(A, Ke + 1, n, j, j)
        w:store(A, Ke + 1, n, j, j)
        w:group(false, "column " .. j)
      end
      w:par(false, "sgemm")
    end
  end
end
w:close()
