-- capture_bench.lua: what `retrace capture` adds to valgrind lackey's own time, and the
-- size of a capture folder per million references.
--   build/retrace bench/capture_bench.lua [ROUNDS]     (ROUNDS of examples/capture/conflict.c, 400)
-- Plain lackey is timed writing its log to a file (what a user keeps), through a pipe to
-- `cat >/dev/null` (streamed to a reader that keeps nothing) and to /dev/null (lackey
-- alone, its output thrown away); the capture streams the same log through the RTMB
-- converter. Valgrind writes each line of the log with its own write(2), so a pipe or a
-- file costs it a system call per line that /dev/null makes nearly free.
local rounds = tonumber(arg and arg[1]) or 400

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function now()
  local f = io.popen("date +%s.%N")
  local t = tonumber(f:read("l"))
  f:close()
  return t
end
local function run(cmd)
  local t0 = now()
  local ok = os.execute(cmd .. " >/dev/null 2>&1")
  local t = now() - t0
  assert(ok, "failed: " .. cmd)
  return t
end
local function size(path)
  local f = assert(io.open(path, "rb"))
  local n = f:seek("end")
  f:close()
  return n
end

if not os.execute("valgrind --version >/dev/null 2>&1") then
  print("capture_bench: valgrind missing, nothing measured (make deps installs it)")
  return
end
local exe = arg and arg[-1] or "build/retrace"
local tmp = os.tmpname()
os.remove(tmp)
os.execute("mkdir -p " .. q(tmp))
local prog = tmp .. "/conflict"
assert(os.execute("cc -O1 -g -o " .. q(prog) .. " examples/capture/conflict.c"), "cc failed")

local best = {}
local function best_of(name, cmd)
  for _ = 1, 3 do
    local t = run(cmd)
    if not best[name] or t < best[name] then best[name] = t end
  end
end
best_of("lackey_file", ("valgrind --tool=lackey --trace-mem=yes --log-file=%s %s %d"):format(q(tmp .. "/log"), q(prog), rounds))
local text_bytes = size(tmp .. "/log")
best_of("lackey_null", ("valgrind --tool=lackey --trace-mem=yes --log-file=/dev/null %s %d"):format(q(prog), rounds))
-- lackey streaming its log to a reader that keeps nothing: cat, and a reader that reads
-- as the capture does (a 1 MiB pipe, 1 MiB reads, a 2 ms nap after a short one) and
-- converts nothing, the least any consumer of lackey's stream can cost
local idle = tmp .. "/idle_reader"
do
  local f = assert(io.open(idle .. ".c", "w"))
  f:write([[
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
    static char b[1 << 20];
    fcntl(0, F_SETPIPE_SZ, 1 << 20);
    for (;;) {
        ssize_t n = read(0, b, sizeof b);
        if (n <= 0)
            return 0;
        if (n < (64 << 10)) {
            struct timespec t = {0, 2000000};
            nanosleep(&t, NULL);
        }
    }
}
]])
  f:close()
  assert(os.execute("cc -O2 -o " .. q(idle) .. " " .. q(idle .. ".c")), "cc failed")
end
local function piped(reader)
  return ("sh -c %s"):format(q(("valgrind --tool=lackey --trace-mem=yes --log-fd=3 %s %d 3>&1 >/dev/null 2>/dev/null | %s")
    :format(q(prog), rounds, reader)))
end
best_of("lackey_pipe", piped("cat >/dev/null"))
best_of("lackey_idle", piped(q(idle)))
best_of("capture", ("%s capture --lackey -o %s -- %s %d"):format(q(exe), q(tmp .. "/cap"), q(prog), rounds))

local refs, instr = 0, 0
local out = io.popen(("%s cache %s --json"):format(q(exe), q(tmp .. "/cap")))
local j = out:read("a")
out:close()
refs = tonumber(j:match('"reads":(%d+)')) + tonumber(j:match('"writes":(%d+)'))
instr = tonumber(j:match('"ignored":(%d+)'))
local rtmb = size(tmp .. "/cap/trace.rtmb")
local folder = 0
for _, part in ipairs{ "trace.rtmb", "alloc.msp", "alloc.raw", "alloc.fdlog", "loadmap", "cmdline", "status" } do
  folder = folder + size(tmp .. "/cap/" .. part)
end
print(("capture_bench: %d rounds, %.2f M data references, %.2f M instructions (best of 3, wall seconds)")
  :format(rounds, refs / 1e6, instr / 1e6))
print(("  lackey, log to a file   %7.2f s  (%.1f MB of text)"):format(best.lackey_file, text_bytes / 1e6))
print(("  lackey, log to /dev/null%7.2f s"):format(best.lackey_null))
print(("  lackey, log piped to cat%7.2f s"):format(best.lackey_pipe))
print(("  lackey, piped to an idle%7.2f s  (a reader that converts nothing: %.2f x lackey to /dev/null)")
  :format(best.lackey_idle, best.lackey_idle / best.lackey_null))
print(("  retrace capture         %7.2f s  = %.2f x lackey to a file, %.2f x lackey piped to cat,")
  :format(best.capture, best.capture / best.lackey_file, best.capture / best.lackey_pipe))
print(("                                     %.2f x lackey piped to the idle reader, %.2f x lackey to /dev/null")
  :format(best.capture / best.lackey_idle, best.capture / best.lackey_null))
print(("  trace.rtmb %.2f bytes per record (data + instruction), %.2f bytes per data reference")
  :format(rtmb / (refs + instr), rtmb / refs))
print(("  whole folder %.2f MB per million data references"):format(folder / refs))
os.execute("rm -rf " .. q(tmp))
