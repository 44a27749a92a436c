-- Peak memory of every command at two (or more) trace lengths: the numbers
-- must stay flat (bounded by what is drawn or simulated, never by the number
-- of events). Each input is generated under /tmp at each length; each command
-- runs in its own process under /usr/bin/time -v, which gives its maximum
-- resident set size and its wall time.
--
--   build/retrace bench/memory.lua [N1 N2 ...]   (default 1000000 10000000 events)
--   build/retrace bench/memory.lua 1e6 1e7 stats  (only the rows whose name holds "stats")
--   build/retrace bench/memory.lua 1e6 1e8 "(PICL)" chitra  (the rows naming either)
--
-- Rows: the command, the input's format, what the input stresses. A row whose
-- peak at the largest length is more than 1.5 times its peak at the smallest
-- is marked GROWS.
local sizes, only = {}, nil
for _, a in ipairs(arg or {}) do
  local n = tonumber(a)
  if n then sizes[#sizes + 1] = math.tointeger(n) or math.floor(n) else only = only or {}; only[#only + 1] = a end
end
local function wanted(name)
  if not only then return true end
  for _, o in ipairs(only) do
    if name:find(o, 1, true) then return true end
  end
  return false
end
if #sizes == 0 then sizes = { 1000000, 10000000 } end

local bin = arg and arg[-1] or "build/retrace"
local dir = (os.getenv("TMPDIR") or "/tmp") .. "/retrace-bench-memory"
os.execute("rm -rf '" .. dir .. "' && mkdir -p '" .. dir .. "'")

-- The C generator of the same lines (bench/gen_memory.c), when built beside retrace.
local fast = bin:gsub("[^/]*$", "") .. "bench/gen_memory"
if not io.open(fast) then fast = nil end
local making -- the input being made (a key of gen)

-- Write n lines made by line(k) (k = 0 .. n-1) after a head, in chunks.
local function write(path, head, n, line)
  local f = assert(io.open(path, "w"))
  f:write(head)
  if fast then -- the same bytes, fast enough for 10^8 events
    assert(f:close())
    assert(os.execute(("%q %s %d %q"):format(fast, making, n, path)))
    return path
  end
  local buf = {}
  for k = 0, n - 1 do
    buf[#buf + 1] = line(k)
    if #buf == 16384 then
      f:write(table.concat(buf))
      buf = {}
    end
  end
  f:write(table.concat(buf))
  assert(f:close())
  return path
end

-- ---- the inputs (n events each) ----
local gen = {}

-- PICL, new format, 16 processors: per processor a cycle of user 1 { user 2 { send } receive }.
local rectype = { -3, -3, -3, -4, -4, -3, -4, -4 }
local event = { 1, 2, -21, -21, 2, -52, -52, 1 }
local function picl(n, tag_per_message)
  return write(dir .. "/picl" .. (tag_per_message and "-tags" or "") .. "-" .. n .. ".trf", "", n, function(k)
    local cyc, proc = k // 16, k % 16
    local i = cyc % 8 + 1
    local rt, ev = rectype[i], event[i]
    local time = cyc * 1e-5 + proc * 1e-7
    if (ev == -21 and rt == -3) or (ev == -52 and rt == -4) then
      local tag = tag_per_message and (cyc // 8) or 7
      return string.format("%d %d %.6f %d 0 3 2 1024 %d %d\n", rt, ev, time, proc, tag,
        rt == -3 and (proc + 1) % 16 or (proc + 15) % 16)
    end
    return string.format("%d %d %.6f %d 0 0\n", rt, ev, time, proc)
  end)
end
gen.picl = function(n) return picl(n, false) end
gen.picl_tags = function(n) return picl(n, true) end

-- Pajé: 2 processes, a link per message, each with a key of its own (4 events a step).
gen.paje = function(n)
  local fixture = io.open((os.getenv("RETRACE_SOURCE") or ".") .. "/tests/fixtures/paje/small.trace"):read("a")
  local head = fixture:match("^(.*%%EndEventDef\n)")
  head = head .. '1 "Machine" 0 M\n1 "Process" M P\n2 S "MPI state" P\n4 "message" P P M L\n' ..
    '5 "MPI_Recv" S recv "1 0 0"\n5 "user code" S comp "0 1 0"\n6 "node one" 0.0 n1 0 M\n' ..
    '6 "rank 0" 0.0 p0 n1 P\n6 "rank 1" 0.0 p1 n1 P\n'
  return write(dir .. "/paje-" .. n .. ".trace", head, n, function(k)
    local step, i = k // 4, k % 4
    local t = step * 1e-3 + i * 1e-4
    if i == 0 then return string.format("10 comp p0 S %.4f\n", t) end
    if i == 1 then return string.format("15 k%d p0 1024 n1 L %.4f\n", step, t) end
    if i == 2 then return string.format("16 %.4f k%d p1 L 1024 n1\n", t, step) end
    return string.format("10 recv p1 S %.4f\n", t)
  end)
end

-- Paraver: 2 threads; thread 1's states overlap (each ends long after the next
-- begins), thread 2's records come in decreasing time order.
gen.paraver = function(n)
  local big = 100 * n
  return write(dir .. "/paraver-" .. n .. ".prv",
    ("#Paraver (01/01/20 at 10:00):%d_ns:1(2):1:2(1:1,1:1),0\n"):format(big + 10), n, function(k)
      if k % 2 == 0 then return ("1:1:1:1:1:%d:%d:%d\n"):format(k, k + 1000, 1 + k % 5) end
      local b = n - k
      return ("1:2:1:2:1:%d:%d:%d\n"):format(b, b + 1, 1 + k % 5)
    end)
end

-- Memory references: din, reads and writes over 1 MiB.
gen.din = function(n)
  return write(dir .. "/refs-" .. n .. ".din", "", n, function(k)
    return string.format("%d %x\n", k % 3 == 0 and 1 or 0, 0x100000 + (k * 40) % 0x100000)
  end)
end

-- SHMAP: one 64 x 64 matrix, loads and stores of blocks.
gen.shmap = function(n)
  return write(dir .. "/trace-" .. n .. ".shm", "0 1 64 64\n", n, function(k)
    local r = k % 61 + 1
    return string.format("%d 1 %d %d %d %d %d\n", k % 4 == 3 and 2 or 1, r, r + 3, r, r + 3, k + 1)
  end)
end

-- PES: 7 states in a cycle.
gen.pes = function(n)
  local names = { "compute", "send", "wait", "recv", "compute", "io", "idle" }
  return write(dir .. "/run-" .. n .. ".pes", "", n, function(k)
    return string.format("%s %d\n", names[k % 7 + 1], k)
  end)
end

-- ---- the rows: name, input, arguments (the trace is the last) ----
local rows = {
  { "stats (PICL)", "picl", { "stats" } },
  { "stats --json (PICL)", "picl", { "stats", "--json" } },
  { "stats (a new tag per message)", "picl_tags", { "stats" } },
  { "stats (Paje, a link key per message)", "paje", { "stats" } },
  { "stats (Paraver, overlapping and unsorted states)", "paraver", { "stats" } },
  { "info (PICL)", "picl", { "info" } },
  { "info (Paje)", "paje", { "info" } },
  { "info (PES)", "pes", { "info" } },
  { "info (din)", "din", { "info" } },
  { "cache", "din", { "cache" } },
  { "memspy", "din", { "memspy", "--procs", "4" } },
  { "shmap", "shmap", { "shmap" } },
  { "paragraph --static (PICL)", "picl", { "paragraph", "--static", "-o", dir .. "/static.png" } },
  { "medea (PICL)", "picl", { "medea" } },
  { "medea --profiles (PICL)", "picl", { "medea", "--profiles", dir .. "/profiles.json" } },
  { "chitra", "pes", { "chitra" } },
  { "chitra --project (PES)", "pes", { "chitra", "--project", "send,recv=comm" } },
  { "chitra --aggregate --project --clip (PES)", "pes",
    { "chitra", "--aggregate", "send,wait=sw", "--project", "sw,recv=comm", "--clip", "10:10" } },
  -- a filter, a component projection and an undo read the file once more each
  { "chitra --filter-event (PES)", "pes", { "chitra", "--filter-event", "2" } },
  { "chitra --filter-time (PES)", "pes", { "chitra", "--filter-time", "0.2" } },
  { "chitra --components (PES)", "pes",
    { "chitra", "--component-pattern", "%l+", "--components", "send=comm,recv=comm" } },
  { "chitra --project --undo --filter-time --aggregate (PES)", "pes",
    { "chitra", "--project", "send,recv=comm", "--undo", "--filter-time", "0.2", "--aggregate", "compute,send=cs" } },
}

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- Peak RSS (KiB), wall seconds and exit code of one run.
local function measure(args, trace)
  local cmd = { "/usr/bin/time", "-v", bin }
  for _, a in ipairs(args) do cmd[#cmd + 1] = a end
  cmd[#cmd + 1] = trace
  local quoted = {}
  for i, a in ipairs(cmd) do quoted[i] = q(a) end
  local log = dir .. "/time.log"
  local _, _, code = os.execute(table.concat(quoted, " ") .. " >/dev/null 2>" .. q(log))
  local text = io.open(log):read("a")
  local rss = tonumber(text:match("Maximum resident set size %(kbytes%): (%d+)"))
  local h, m, s = text:match("Elapsed %(wall clock%) time %(h:mm:ss or m:ss%): (%d*):?(%d+):([%d.]+)")
  local wall = (tonumber(h) or 0) * 3600 + tonumber(m or 0) * 60 + tonumber(s or 0)
  local err = text:match("^(retrace:[^\n]*)")
  return rss, wall, code, err
end

local results = {}
for _, n in ipairs(sizes) do
  local made = {}
  for _, row in ipairs(rows) do
    if wanted(row[1]) then
      local t0 = os.time()
      making = row[2]
      made[row[2]] = made[row[2]] or gen[row[2]](n)
      local rss, wall, code, err = measure(row[3], made[row[2]])
      results[row[1]] = results[row[1]] or {}
      results[row[1]][n] = { rss = rss, wall = wall, code = code, err = err }
      io.stderr:write(string.format("%-50s %10d events: %8.1f MB  %6.1f s%s\n", row[1], n, (rss or 0) / 1024, wall,
        code ~= 0 and ("  exit " .. code .. (err and (": " .. err) or "")) or ""))
      local _ = t0
    end
  end
  for _, p in pairs(made) do os.remove(p) end
end

-- The table: peak MB per size, and the ratio of the last to the first.
local head = { string.format("%-50s", "command (input)") }
for _, n in ipairs(sizes) do head[#head + 1] = string.format("%12s", string.format("%.0e ev MB", n)) end
print(table.concat(head, " ") .. "   ratio")
for _, row in ipairs(rows) do
  local r = results[row[1]]
  if r then
    local line = { string.format("%-50s", row[1]) }
    for _, n in ipairs(sizes) do
      local x = r[n]
      line[#line + 1] = string.format("%12s", x.code == 0 and string.format("%.1f", x.rss / 1024)
        or ("exit " .. tostring(x.code)))
    end
    local a, b = r[sizes[1]], r[sizes[#sizes]]
    local ratio = a.rss and b.rss and b.rss / a.rss or 0
    print(table.concat(line, " ") .. string.format("   %5.2f%s", ratio, ratio > 1.5 and "  GROWS" or ""))
  end
end
