-- SHMAP of real programs: what recording costs and how fast the recording animates.
--   1. `retrace shmap --blas`: examples/shmap/blas_matmul.c (C = A * B in NB x NB
--      blocks, each a cblas_dgemm) at N = 256 and 512 (NB = 32 and 64: 512 calls
--      each... and 4096 at N = 512, NB = 32): the program's wall time alone and with
--      libretrace_blas.so preloaded, the trace's size.
--   2. the animation of the N = 512, NB = 64 recording at 1280x720 with every panel,
--      a frame per step (one block access), end to end (`retrace shmap --frames`:
--      simulation, drawing, PNG encoding): frames per second (target >= 30).
--   3. `retrace capture` + `retrace shmap --from-capture` of examples/shmap/matmul_blocked.c
--      at N = 32 and N = 69 (ten times the references): capture, conversion.
-- Usage: retrace bench/shmap_capture.lua   (RETRACE_BIN, RETRACE_SOURCE: the binary and the
-- source tree, default build/retrace and .; needs cc, libblas-dev and valgrind)
require "retrace"
local clock = require("retrace.core").frames.clock
local bin = os.getenv("RETRACE_BIN") or "build/retrace"
local src = os.getenv("RETRACE_SOURCE") or "."
local tmp = "/tmp/retrace-bench-shmapcap"
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
os.execute("rm -rf " .. q(tmp) .. " && mkdir -p " .. q(tmp))

local function run(cmd)
  local t0 = clock()
  local ok = os.execute(cmd .. " >/dev/null 2>&1")
  local dt = clock() - t0
  assert(ok, "failed: " .. cmd)
  return dt
end
local function best(n, cmd)
  local b = math.huge
  for _ = 1, n do b = math.min(b, run(cmd)) end
  return b
end
local function size(path)
  local f = assert(io.open(path, "rb"))
  local n = f:seek("end")
  f:close()
  return n
end

local function loadavg()
  local f = io.open("/proc/loadavg")
  local v = f and f:read("l"):match("^(%S+)") or "?"
  if f then f:close() end
  return v
end
io.write("load average at start: ", loadavg(), "\n")

-- 1. BLAS recording
local mm = tmp .. "/blas_matmul"
assert(os.execute(("cc -O2 -o %s %s/examples/shmap/blas_matmul.c -lblas"):format(q(mm), q(src))),
  "cc or libblas-dev missing")
local lib = require("retrace.shmap_capture").blas_lib()
for _, c in ipairs({ { 256, 32 }, { 512, 64 }, { 512, 32 } }) do
  local n, nb = c[1], c[2]
  local plain = best(3, ("%s %d %d"):format(q(mm), n, nb))
  local out = ("%s/mm-%d-%d.shm"):format(tmp, n, nb)
  local rec = best(3, ("env LD_PRELOAD=%s RETRACE_BLAS_TRACE=%s %s %d %d"):format(q(lib), q(out), q(mm), n, nb))
  local calls = (math.ceil(n / nb)) ^ 3
  io.write(string.format("--blas N=%d NB=%d: %d calls; program %.3f s, recorded %.3f s (+%.1f ms, %.1f us a call); " ..
    "trace %d bytes\n", n, nb, calls, plain, rec, 1000 * (rec - plain), 1e6 * (rec - plain) / calls, size(out)))
end

-- 2. the animation of the 512 / 64 recording
local trace = tmp .. "/mm-512-64.shm"
local frames_dir = tmp .. "/frames"
-- wall time, and the CPU seconds (user + system, every thread) /usr/bin/time reports: on a
-- machine busy with other work the wall time says more about the others than about retrace
local cpu_file = tmp .. "/cpu"
local t = best(1, ("rm -rf %s && /usr/bin/time -f '%%U %%S %%M' -o %s %s shmap %s --pes 1 --caches 1 " ..
  "--cache-size 4096 --line 8 --frames %s --panels all"):format(q(frames_dir), q(cpu_file), q(bin), q(trace),
  q(frames_dir)))
local f = assert(io.open(cpu_file))
local user, sys, kb = f:read("a"):match("([%d.]+) ([%d.]+) (%d+)")
f:close()
local cpu = tonumber(user) + tonumber(sys)
local nframes = 0
for e in require("lfs").dir(frames_dir) do if e:match("%.png$") then nframes = nframes + 1 end end
io.write(string.format("animation of the 512 x 512 / 64 recording, 1280x720, all panels, a frame per step " ..
  "(drawn and encoded to PNG): %d frames in %.2f s wall = %.1f frames/s; %.2f CPU s = %.1f frames per CPU second; " ..
  "peak RSS %d KiB\n", nframes, t, nframes / t, cpu, nframes / cpu, tonumber(kb)))

-- 3. valgrind capture and conversion
local have_vg = os.execute("valgrind --version >/dev/null 2>&1")
if not have_vg then
  io.write("valgrind missing: the capture part is skipped\n")
  return
end
for _, n in ipairs({ 32, 69 }) do
  local exe = ("%s/mmb-%d"):format(tmp, n)
  assert(os.execute(("cc -g -O1 -DN=%d -DNB=8 -o %s %s/examples/shmap/matmul_blocked.c"):format(n, q(exe), q(src))))
  local plain = best(3, q(exe))
  local cap = ("%s/mmb-%d.cap"):format(tmp, n)
  local tc = best(1, ("%s capture -o %s -- %s"):format(q(bin), q(cap), q(exe)))
  local shm = ("%s/mmb-%d.shm"):format(tmp, n)
  local tv = best(1, ("%s shmap --from-capture %s --trace-out %s --no-cache"):format(q(bin), q(cap), q(shm)))
  local tr = best(1, ("%s shmap %s --no-cache"):format(q(bin), q(shm)))
  local refs = 0
  for line in io.lines(shm) do if line:match("^[12] ") then refs = refs + 1 end end
  io.write(string.format("capture N=%d: program %.3f s, retrace capture %.2f s, --from-capture (convert + simulate) " ..
    "%.2f s of which the simulation of the trace alone %.2f s; %d element accesses, trace %d bytes\n",
    n, plain, tc, tv, tr, refs, size(shm)))
end
