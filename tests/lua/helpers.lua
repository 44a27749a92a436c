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
  return M.retrace_env("", ...)
end

--- M.retrace with environment settings in front ("VAR=value VAR2=value", shell-quoted).
function M.retrace_env(env, ...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = shell_quote((select(i, ...))) end
  local out, err = os.tmpname(), os.tmpname()
  local cmd = env .. " " .. shell_quote(M.bin) .. " " .. table.concat(args, " ") ..
    " >" .. out .. " 2>" .. err
  local _, _, code = os.execute(cmd)
  local o, e = slurp(out), slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

--- M.retrace(command, FIFO, ...) where FIFO is a named pipe fed with the file at input (an
-- input read once); returns exit code (124: still running after 60 s), stdout, stderr, and
-- the FIFO's path (removed by then).
function M.retrace_fifo(input, command, ...)
  local fifo = os.tmpname()
  os.remove(fifo)
  assert(os.execute("mkfifo " .. shell_quote(fifo)))
  local args = {}
  for i = 1, select("#", ...) do args[i] = shell_quote((select(i, ...))) end
  local out, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute(("cat %s > %s & timeout 60 %s %s %s %s > %s 2> %s"):format(shell_quote(input),
    shell_quote(fifo), shell_quote(M.bin), shell_quote(command), shell_quote(fifo), table.concat(args, " "), out, err))
  local o, e = slurp(out), slurp(err)
  os.remove(fifo)
  os.remove(out)
  os.remove(err)
  return code, o, e, fifo
end

--- Names in folder d (hidden ones too), sorted.
function M.names(d)
  local out = {}
  for n in require("lfs").dir(d) do
    if n ~= "." and n ~= ".." then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

--- Run the retrace binary with arguments under a file-size limit of 0 blocks (every
-- write to a regular file fails with EFBIG, as on a full disk); messages come through
-- a pipe, which the limit does not touch. Returns the exit code and stderr (bash:
-- PIPESTATUS gives retrace's exit code, not cat's).
function M.run_full(...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = shell_quote((select(i, ...))) end
  local err = os.tmpname()
  local cmd = ("(ulimit -f 0; trap '' XFSZ; exec %s %s) 2>&1 >/dev/null | cat > %s; exit ${PIPESTATUS[0]}")
    :format(shell_quote(M.bin), table.concat(args, " "), shell_quote(err))
  local _, _, code = os.execute("bash -c " .. shell_quote(cmd))
  local e = slurp(err)
  os.remove(err)
  return code, e
end

--- Run the retrace binary with arguments in the background and send it SIGINT
-- (Ctrl-C) once it is ready for one: a background job of a script starts with SIGINT
-- ignored until retrace installs its handler, so the wait begins once /proc says the
-- process catches SIGINT (under load that can take a while). `when` is a number of
-- seconds to wait after that, or a table:
--   after = seconds (default 0);
--   file = a shell glob: wait until a file matches it (an output's temporary, say),
--          so the signal lands while that output is written, on any machine;
--   feed = a shell command piped to retrace's standard input; an endless feed
--          ("yes ...") keeps a command busy for as long as it ignores the signal.
-- A run that ignores the signal ends by the timeout (exit 124). Returns the exit code
-- and stderr.
function M.interrupted(when, ...)
  if type(when) ~= "table" then when = { after = when } end
  local args = {}
  for i = 1, select("#", ...) do args[i] = shell_quote((select(i, ...))) end
  local err = os.tmpname()
  local wait_file = ""
  if when.file then
    wait_file = ("for i in $(seq 6000); do compgen -G %s >/dev/null && break; " ..
      "kill -0 $pid 2>/dev/null || break; sleep 0.005; done; "):format(shell_quote(when.file))
  end
  local run = ("%s %s >/dev/null 2>%s & pid=$!; " ..
    "for i in $(seq 1000); do c=$(awk '/^SigCgt/ { print $2 }' /proc/$pid/status 2>/dev/null); " ..
    "[ -z \"$c\" ] && break; (( (16#$c & 2) != 0 )) && break; sleep 0.01; done; " ..
    "%ssleep %s; kill -INT $pid 2>/dev/null; wait $pid")
    :format(shell_quote(M.bin), table.concat(args, " "), err, wait_file, when.after or 0)
  local script = (when.feed and (when.feed .. " | ") or "") .. run
  local _, _, code = os.execute("timeout 60 bash -c " .. shell_quote(script))
  local e = slurp(err)
  os.remove(err)
  return code, e
end

--- A Paraver trace written in dir: run.prv with the text prv and, beside it, run.pcf
-- with the text pcf (state names, as Paraver writes them). Returns the trace's path.
function M.paraver(dir, prv, pcf)
  local trace = dir .. "/run.prv"
  local f = assert(io.open(trace, "w"))
  f:write(prv)
  f:close()
  f = assert(io.open(dir .. "/run.pcf", "w"))
  f:write(pcf)
  f:close()
  return trace
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

--- Seconds an h.mpirun job may take before it is killed (exit code 124 then).
M.mpirun_timeout = tonumber(os.getenv("RETRACE_MPIRUN_TIMEOUT")) or 120

local mpi_state -- nil: not yet asked; otherwise {ok = boolean, why = string}

--- Can the specs start MPI jobs of retrace? Returns true, or false and the reason (for
-- pending(...)): mpirun must be on PATH and retrace built with MPI (retrace.par.built()).
function M.have_mpi()
  if not mpi_state then
    local _, _, code = os.execute("command -v mpirun >/dev/null 2>&1")
    if code ~= 0 then
      mpi_state = { ok = false, why = "mpirun absent: MPI runs skipped (make deps installs openmpi-bin)" }
    else
      local c, o = M.retrace("-e", 'print(require"retrace.par".built())')
      if c == 0 and o:match("^true") then
        mpi_state = { ok = true, why = "" }
      else
        mpi_state = { ok = false, why = "retrace built without MPI: MPI runs skipped" }
      end
    end
  end
  return mpi_state.ok, mpi_state.why
end

--- Run the retrace binary as an MPI job of n ranks (mpirun, as root and with more ranks than
-- cores allowed, its own help messages quieted); returns exit code, stdout, stderr like
-- h.retrace. A job still running after M.mpirun_timeout seconds is killed (exit code 124).
-- Environment variables for the job: put "NAME=value" strings in a table as the first argument
-- after n, e.g. h.mpirun(2, {"RETRACE_PAR_STATS=/tmp/s"}, "stats", trace).
function M.mpirun(n, ...)
  local args, first = {}, 1
  local env = {}
  if type((...)) == "table" then
    for _, kv in ipairs((...)) do env[#env + 1] = "-x " .. shell_quote(kv) end
    first = 2
  end
  for i = first, select("#", ...) do args[#args + 1] = shell_quote((select(i, ...))) end
  -- the sanitizer build: Open MPI's own leaks cannot be suppressed (tests/lsan.supp says why)
  local asan = os.getenv("ASAN_OPTIONS")
  if asan then env[#env + 1] = "-x " .. shell_quote("ASAN_OPTIONS=" .. asan .. ":detect_leaks=0") end
  local out, err = os.tmpname(), os.tmpname()
  local cmd = "timeout -k 5 " .. M.mpirun_timeout ..
    " mpirun --allow-run-as-root --oversubscribe -q -np " .. math.tointeger(n) .. " " ..
    table.concat(env, " ") .. " " .. shell_quote(M.bin) .. " " .. table.concat(args, " ") ..
    " </dev/null >" .. out .. " 2>" .. err
  local _, _, code = os.execute(cmd)
  local o, e = slurp(out), slurp(err)
  os.remove(out)
  os.remove(err)
  return code, o, e
end

--- A small seeded generator for random tests: lcg(seed)(n) -> an integer in [0, n).
function M.lcg(seed)
  local x = seed
  return function(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return (x >> 16) % n
  end
end

return M
