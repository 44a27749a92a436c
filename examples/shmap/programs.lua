-- Compile and capture the ordinary C programs of examples/shmap (naive and
-- blocked matrix multiply, LU) so that `retrace shmap --from-capture` animates them:
--   retrace examples/shmap/programs.lua OUTDIR [N]
-- makes OUTDIR/matmul_naive.cap, OUTDIR/matmul_blocked.cap and OUTDIR/lu.cap
-- (cc -g -O1 -DN=N, default 32; valgrind runs them), and the SHMAP traces of the
-- CBLAS calls of a 512 x 512 multiply in 64 x 64 blocks and of a blocked LU
-- (OUTDIR/blas_matmul.shm, OUTDIR/blas_lu.shm: no valgrind, the calls are recorded
-- by libretrace_blas.so); then for instance
--   retrace shmap --from-capture OUTDIR/matmul_naive.cap OUTDIR/matmul_blocked.cap --compare \
--     --pes 1 --cache-size 256 --frames mm --panels memory,stats --every 500
local capture = require "retrace.capture"
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local out, n = arg[1], math.tointeger(tonumber(arg[2] or "32"))
if not out or not n or n < 2 or n > 1024 then
  io.stderr:write("usage: retrace examples/shmap/programs.lua OUTDIR [N (2..1024)]\n")
  os.exit(2)
end
assert(require("retrace.fs").mkdir_p(out))
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
for _, name in ipairs({ "matmul_naive", "matmul_blocked", "lu" }) do
  local exe = out .. "/" .. name
  local ok = os.execute(("cc -g -O1 -DN=%d -o %s %s"):format(n, q(exe), q(here .. "/" .. name .. ".c")))
  if not ok then
    io.stderr:write("programs.lua: cc failed on ", name, ".c (install gcc)\n")
    os.exit(1)
  end
  local res, err = capture.run { dir = out .. "/" .. name .. ".cap", argv = { exe } }
  if not res or not res.complete then
    io.stderr:write("programs.lua: capture of ", name, ": ", tostring(err or res.why), "\n")
    os.exit(1)
  end
  print(string.format("%s/%s.cap: %d data references", out, name, res.refs))
end

local sc = require "retrace.shmap_capture"
for _, p in ipairs({ { "blas_matmul", { "512", "64" } }, { "blas_lu", { "256", "32" } } }) do
  local name = p[1]
  local exe = out .. "/" .. name
  local ok = os.execute(("cc -O2 -o %s %s -lblas -lm"):format(q(exe), q(here .. "/" .. name .. ".c")))
  if not ok then
    io.stderr:write("programs.lua: cc failed on ", name, ".c (install libblas-dev)\n")
    os.exit(1)
  end
  local argv = { exe, table.unpack(p[2]) }
  local res, err = sc.run_blas { argv = argv, out = out .. "/" .. name .. ".shm" }
  if not res or res.exit_code ~= 0 then
    io.stderr:write("programs.lua: ", name, ": ", tostring(err or ("exit status " .. res.exit_code)), "\n")
    os.exit(1)
  end
  print(string.format("%s: the CBLAS calls of %s", res.trace, table.concat(argv, " ")))
end
