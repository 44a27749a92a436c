--- retrace.capture: capture folders of real programs run under Valgrind: the project's own
-- tool (core/capture/vg, "--tool=retrace") when it was built, else lackey and an interposer.
--   local capture = require "retrace.capture"
--   local res = assert(capture.run{ dir = "out", argv = {"./prog", "1"} })
--   local f = assert(capture.open("out"))     -- f.trace, f.alloc, f.status, f.complete, ...
--
-- A capture folder holds
--   trace.rtmb   the memory trace (RTMB; fetches, loads and stores in order)
--   alloc.msp    the allocation log (README: "Memory traces with an allocation log"):
--                C records (functions), N records (static data, the stack), then the
--                program's A and F records stamped @SEQ; names from the symbols
--   alloc.lines.msp  the same with the program's code charged by source line (memspy --lines)
--   alloc.raw    the interposer's records as they came, stamped (addresses, return PCs)
--   loadmap      one loaded object a line: LO HI BIAS PATH (hex)
--   cmdline      the program and its arguments, one a line
--   status       "complete", or "incomplete" and why (exit status, signal, interrupted)
--   threads      how many threads ran (memspy's default --procs; lackey: with --threads)
--   valgrind.log Valgrind's own messages (the tool)
--   startup      the code segments of the dynamic loader and the C library's start-up and
--                exit, one a line (reports fold them into "(startup)")
--
-- MPI programs (README: "Tracing your own MPI program"):
--   local res = capture.run_mpi{ dir = "run.otf2", argv = {"mpirun", "-np", "4", "./prog"} }
--   -- res.ranks, res.events, res.complete, res.why, res.anchor (libretrace-mpi's OTF2 archive)
--   capture.mpi_check(dir) checks an archive libretrace-mpi wrote; capture.mpi_lib() finds the library.
local M = {}

local core = require "retrace.core"

M.PARTS = { "trace.rtmb", "alloc.msp", "loadmap", "cmdline", "status" }

-- the data root (the folder holding lua/), from package.path
local function data_root()
  for entry in package.path:gmatch("[^;]+") do
    local root = entry:match("^(.*)/lua/%?%.lua$")
    if root then
      local f = io.open(root .. "/lua/retrace/init.lua")
      if f then f:close(); return root end
    end
  end
end

--- Where libretrace_alloc.so is: $RETRACE_ALLOC_LIB, else beside the data root
-- (ROOT/../../lib/retrace/ in the build tree and an install with lib/, or lib/ARCH/retrace).
function M.alloc_lib()
  local env = os.getenv("RETRACE_ALLOC_LIB")
  if env and env ~= "" then return env end
  local root = data_root()
  if not root then return nil end
  local lfs = require "lfs"
  local cands = { root .. "/../../lib/retrace/libretrace_alloc.so" }
  local libdir = root .. "/../../lib"
  if lfs.attributes(libdir, "mode") == "directory" then
    for e in lfs.dir(libdir) do
      if e ~= "." and e ~= ".." then cands[#cands + 1] = libdir .. "/" .. e .. "/retrace/libretrace_alloc.so" end
    end
  end
  for _, c in ipairs(cands) do
    if lfs.attributes(c, "mode") == "file" then return c end
  end
end

--- The folder holding the retrace Valgrind tool (retrace-PLATFORM and its preload) beside
-- links to the stock tools' files, for VALGRIND_LIB: $RETRACE_VALGRIND_LIB, else
-- lib/retrace/valgrind beside libretrace_alloc.so. nil when the tool was not built.
function M.vgtool_dir()
  local lfs = require "lfs"
  local function has_tool(d)
    if lfs.attributes(d, "mode") ~= "directory" then return false end
    for e in lfs.dir(d) do
      if e:find("^retrace%-[%w_]+%-linux$") then return true end
    end
    return false
  end
  local env = os.getenv("RETRACE_VALGRIND_LIB")
  if env and env ~= "" then return has_tool(env) and env or nil end
  local lib = M.alloc_lib()
  if not lib then return nil end
  local d = lib:gsub("libretrace_alloc%.so$", "valgrind")
  if has_tool(d) then return d end
end

local function write(path, text)
  assert(require("retrace.fs").write_file(path, text))
end

local function hex(s) return math.tointeger(tonumber(s, 16)) end

local function basename(p) return (p:gsub("^.*/", "")) end

-- no blanks in an .msp name
local function word(s) return (s:gsub("%s", "_")) end

--- Read alloc.raw for what naming needs: the load map, the stack, and each distinct call
-- path of the A records ({[text] = {pc, ...}}); the records themselves are streamed later.
local function read_raw(path)
  local objs, paths, stack = {}, {}, nil
  local texts, others = core.capture.raw_scan(path) -- the pass over every record is in C
  if not texts then error(others, 0) end
  for _, pcs in ipairs(texts) do
    local list = {}
    for pc in pcs:gmatch("%x+") do list[#list + 1] = hex(pc) end
    paths[pcs] = list
  end
  for _, o in ipairs(others) do
    local kind, rest = o[1], o[2]
    if kind == "L" then
      local lo, hi, bias, file = rest:match("^(%x+) (%x+) (%x+) (.+)$")
      if lo then objs[#objs + 1] = { lo = hex(lo), hi = hex(hi), bias = hex(bias), path = file } end
    elseif kind == "K" then
      local lo, hi = rest:match("^(%x+) (%x+)$")
      if lo then stack = { lo = hex(lo), hi = hex(hi) } end
    end
  end
  -- the program first: under Valgrind it is mapped below the loader and the libraries
  table.sort(objs, function(x, y) return x.lo < y.lo end)
  return objs, paths, stack
end

local function object_of(objs, pc)
  for _, o in ipairs(objs) do
    if pc >= o.lo and pc < o.hi then return o end
  end
end

-- the interposer, valgrind's preloads and the retrace tool itself are not the program's code
local function skipped(o)
  local b = basename(o.path)
  return b:find("^libretrace_alloc") or b:find("^vgpreload_") or b:find("^retrace%-[%w_]+%-linux$")
end

--- Name every return address of the A records: pc -> {func, file, line}.
local function name_pcs(objs, paths)
  local by_obj = {}
  for _, list in pairs(paths) do
    for _, pc in ipairs(list) do
      local o = object_of(objs, pc)
      if o then
        by_obj[o] = by_obj[o] or {}
        by_obj[o][pc] = true
      end
    end
  end
  local names = {}
  for o, set in pairs(by_obj) do
    local syms = core.capture.symbols(o.path)
    if syms then
      local pcs, addrs = {}, {}
      for pc in pairs(set) do
        pcs[#pcs + 1] = pc
        addrs[#addrs + 1] = pc - 1 - o.bias -- a return address: the call is just before it
      end
      for i, place in ipairs(syms:lookup_many(addrs)) do
        place.object = o
        -- the variable the call's result goes to, when DWARF says so (optimised code)
        place.var, place.type = syms:result_var(pcs[i] - o.bias)
        names[pcs[i]] = place
      end
      syms:close()
    end
  end
  return names
end

-- The call path of an allocation, innermost first: its frames up to main.
local function frames_of(pcs, objs, names)
  local out = {}
  for _, pc in ipairs(pcs) do
    local p = names[pc]
    local o = object_of(objs, pc)
    if not (o and skipped(o)) then
      -- inlined code: each function it was inlined into is a frame of its own
      local chain = p and p.inlined or { p or {} }
      local done
      for k, f in ipairs(chain) do
        local fn = f.func or string.format("0x%x", pc)
        out[#out + 1] = { func = fn, file = f.file and basename(f.file), line = f.line,
          var = k == 1 and p and p.var or nil, type = k == 1 and p and p.type or nil }
        if fn == "main" then done = true; break end
      end
      if done then break end
    end
  end
  return out
end

local function short_frame(f)
  return f.line and (f.func .. ":" .. f.line) or f.func
end

local function long_frame(f)
  return f.file and string.format("%s@%s:%d", f.func, f.file, f.line) or f.func
end

-- the C library's start-up and exit code, folded with the dynamic loader's into "(startup)"
-- by the reports unless asked (memspy --startup)
local LIBC_STARTUP = { _start = true, __libc_start_main = true, __libc_start_call_main = true,
  __libc_csu_init = true, __libc_csu_fini = true, _init = true, _fini = true, __libc_early_init = true,
  __libc_init_first = true, __libc_setup_tls = true, __libc_init_secure = true, _IO_cleanup = true,
  __run_exit_handlers = true, exit = true, __call_tls_dtors = true, __libc_atexit = true,
  _IO_flush_all_lockp = true, _IO_unbuffer_all = true, __cxa_finalize = true, __libc_freeres = true,
  _vgnU_freeres = true, init_cacheinfo = true, __init_misc = true, _dl_relocate_static_pie = true,
  _dl_non_dynamic_init = true, __libc_global_ctors = true, frame_dummy = true,
  register_tm_clones = true, deregister_tm_clones = true, __do_global_dtors_aux = true }

local function is_loader(o)
  local b = basename(o.path)
  return b:find("^ld%-linux") ~= nil or b:find("^ld%.so") ~= nil or b:find("^ld%d*%-") ~= nil
end

--- Write alloc.msp from alloc.raw and the objects' symbols. Returns the number of
-- A records and of named static ranges.
function M.make_alloc_log(dir)
  local raw = dir .. "/alloc.raw"
  local objs, raw_paths, stack = read_raw(raw)
  local lm = {}
  for _, o in ipairs(objs) do
    lm[#lm + 1] = string.format("%x %x %x %s\n", o.lo, o.hi, o.bias, o.path)
  end
  write(dir .. "/loadmap", table.concat(lm))
  -- alloc.msp charges code by function; alloc.lines.msp (memspy --lines) by source line in
  -- the program itself (its line table; other objects by function there too)
  local head, head_lines, out = { "msp 1\n" }, { "msp 1\n" }, {}
  local startup, startup_seen = {}, {}
  local nstatic = 0
  local main_obj = objs[1] -- dl_iterate_phdr lists the program first
  for i, o in ipairs(objs) do
    local syms = not skipped(o) and core.capture.symbols(o.path)
    if syms then
      local funcs, datas = syms:list()
      local lines = i == 1 and o == main_obj and syms:lines() or {}
      for _, l in ipairs(lines) do
        head_lines[#head_lines + 1] = string.format("@0 C %x %d %s:%d\n", l.addr + o.bias, l.size,
          word(l.func or "?"), l.line)
      end
      local seen = {}
      for _, f in ipairs(funcs) do
        local a = f.addr + o.bias
        if not seen[a] then
          seen[a] = true
          local rec = string.format("@0 C %x %d %s\n", a, f.size, word(f.name))
          head[#head + 1] = rec
          if #lines == 0 then head_lines[#head_lines + 1] = rec end
          local w = word(f.name)
          if (is_loader(o) or LIBC_STARTUP[w]) and not startup_seen[w] then
            startup_seen[w] = true
            startup[#startup + 1] = w .. "\n"
          end
        end
      end
      if i == 1 and o == main_obj then -- the program's own static data
        local dseen = {}
        for _, d in ipairs(datas) do
          local a = d.addr + o.bias
          if not dseen[a] then
            dseen[a] = true
            nstatic = nstatic + 1
            out[#out + 1] = string.format("@0 N %x %d %s\n", a, d.size, word(d.name))
          end
        end
      end
      syms:close()
    end
  end
  if stack then
    out[#out + 1] = string.format("@0 N %x %d stack\n", stack.lo, stack.hi - stack.lo)
  end
  local names = name_pcs(objs, raw_paths)
  -- short names: the allocating frame, and its callers while that is shared by several paths
  local paths, by_site, key_of, long_of = {}, {}, {}, {}
  for text, pcs in pairs(raw_paths) do
    local frames = frames_of(pcs, objs, names)
    local key, long = {}, {}
    for k, f in ipairs(frames) do key[k] = short_frame(f) end
    for j = #frames, 1, -1 do long[#long + 1] = long_frame(frames[j]) end
    key = table.concat(key, "<")
    key_of[text], long_of[text] = key, word(#long > 0 and table.concat(long, ">") or "?")
    local site = frames[1] and short_frame(frames[1]) or "?"
    by_site[site] = by_site[site] or {}
    by_site[site][key] = true
    paths[key] = frames
  end
  local short = {}
  for site, keys in pairs(by_site) do
    local list = {}
    for k in pairs(keys) do list[#list + 1] = k end
    for _, k in ipairs(list) do
      local fr, n = paths[k], 1
      if #list > 1 then -- extend until the paths part
        n = #fr
        for depth = 1, #fr do
          local prefix = {}
          for j = 1, depth do prefix[j] = short_frame(fr[j]) end
          local p, unique = table.concat(prefix, "<"), true
          for _, other in ipairs(list) do
            if other ~= k and (other == p or other:sub(1, #p + 1) == p .. "<") then unique = false end
          end
          if unique then n = depth; break end
        end
      end
      local parts = {}
      for j = 1, math.min(n, #fr) do parts[j] = short_frame(fr[j]) end
      local v = fr[1] and fr[1].var
      local head = v and ((fr[1].type ~= "" and fr[1].type or "?") .. "." .. v) or "alloc"
      short[k] = word(head .. "@" .. (#parts > 0 and table.concat(parts, "<") or site))
    end
  end
  -- the records, streamed from alloc.raw into both logs (written whole or not at all), in C
  local tails = {}
  for pcs in pairs(raw_paths) do tails[pcs] = " " .. short[key_of[pcs]] .. " " .. long_of[pcs] .. "\n" end
  local nalloc, rerr = core.capture.raw_rewrite(raw, { dir .. "/alloc.msp", dir .. "/alloc.lines.msp" },
    { table.concat(head), table.concat(head_lines) }, table.concat(out), tails)
  if not nalloc then error(rerr, 0) end
  write(dir .. "/startup", table.concat(startup))
  return nalloc, nstatic
end

--- Run argv under Valgrind into the folder opts.dir: the retrace tool when it was built
-- (M.vgtool_dir), else (or with opts.lackey) lackey with libretrace_alloc.so. opts: dir,
-- argv (program and arguments), lackey, keep_text and threads (lackey only), valgrind
-- (the program, "valgrind").
-- Returns a result {refs, ifetches, records, allocs, exit_code, signal, interrupted,
-- complete, why, tool = "retrace" or "lackey"}, or nil, message, exit code (1 input, 2 usage).
function M.run(opts)
  local fs = require "retrace.fs"
  local dir = opts.dir
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, err, 1 end
  local lfs = require "lfs"
  local prog = opts.argv[1]
  local found = prog:find("/", 1, true) and lfs.attributes(prog, "mode") == "file"
  if not prog:find("/", 1, true) then
    for d in (os.getenv("PATH") or ""):gmatch("[^:]+") do
      if lfs.attributes(d .. "/" .. prog, "mode") == "file" then found = true; break end
    end
  end
  if not found then
    write(dir .. "/status", "incomplete\n" .. prog .. ": no such program\n")
    write(dir .. "/cmdline", table.concat(opts.argv, "\n") .. "\n")
    return nil, prog .. ": no such program" .. (prog:find("/", 1, true) and "" or " on PATH"), 1
  end
  local vgdir = not opts.lackey and M.vgtool_dir()
  local lib = not vgdir and M.alloc_lib()
  if not vgdir and not lib then
    return nil, "capture: neither the retrace Valgrind tool nor libretrace_alloc.so was found " ..
      "(set RETRACE_VALGRIND_LIB or RETRACE_ALLOC_LIB)", 1
  end
  -- marked incomplete until the end: an interrupted or crashed capture never looks whole
  write(dir .. "/status", "incomplete\nrunning\n")
  write(dir .. "/cmdline", table.concat(opts.argv, "\n") .. "\n")
  local argv, spec
  if vgdir then
    -- the tool: every thread's references with its thread number, the allocator wrapped by
    -- the tool's preload; Valgrind's own messages into the folder, the program's output alone.
    -- The fair (ticket) lock hands the CPU round-robin rather than to whichever thread wakes first.
    argv = { opts.valgrind or "valgrind", "--tool=retrace", "--fair-sched=try",
      "--log-file=" .. dir .. "/valgrind.log", "--" }
    spec = { env = { "VALGRIND_LIB=" .. vgdir }, tool = true }
  else
    argv = { opts.valgrind or "valgrind", "--tool=lackey", "--trace-mem=yes" }
    -- --threads: the scheduler's lines say which thread runs
    if opts.threads then argv[#argv + 1] = "--trace-sched=yes"; argv[#argv + 1] = "--fair-sched=try" end
    argv[#argv + 1] = "--"
    spec = { env = { "LD_PRELOAD=" .. lib, "RETRACE_ALLOC_VALGRIND_ONLY=1" }, fdlog = dir .. "/alloc.fdlog",
      text = opts.keep_text and (dir .. "/trace.lackey") or nil }
  end
  for _, a in ipairs(opts.argv) do argv[#argv + 1] = a end
  spec.argv, spec.rtmb, spec.alloc = argv, dir .. "/trace.rtmb", dir .. "/alloc.raw"
  local res, rerr = core.capture.run(spec)
  if not res then
    write(dir .. "/status", "incomplete\n" .. rerr .. "\n")
    return nil, rerr, 1
  end
  local why
  if res.interrupted then
    why = "interrupted"
  elseif res.signal ~= 0 then
    why = "killed by signal " .. res.signal
  elseif res.exit_code ~= 0 then
    why = "exit status " .. res.exit_code
  end
  local okl, lerr = pcall(M.make_alloc_log, dir)
  if not okl then why = why or ("allocation log: " .. tostring(lerr)) end
  res.complete = why == nil
  res.why = why
  res.tool = vgdir and "retrace" or "lackey"
  if opts.threads or vgdir then write(dir .. "/threads", math.max(res.threads, 1) .. "\n") end
  write(dir .. "/status", why and ("incomplete\n" .. why .. "\n") or "complete\n")
  return res
end

-- ---- MPI programs: libretrace-mpi writes an OTF2 archive ----

--- Where libretrace-mpi.so is: $RETRACE_MPI_LIB, else beside libretrace_alloc.so.
function M.mpi_lib()
  local env = os.getenv("RETRACE_MPI_LIB")
  if env and env ~= "" then return env end
  local alloc = M.alloc_lib()
  if not alloc then return nil end
  local lib = alloc:gsub("libretrace_alloc%.so$", "libretrace-mpi.so")
  if require("lfs").attributes(lib, "mode") == "file" then return lib end
end

local function shell_quote(s)
  return "'" .. s:gsub("'", "'\\''") .. "'"
end

local LAUNCHERS = { mpirun = true, mpiexec = true, orterun = true }
local SIGKILL_DELAY = "OMPI_MCA_odls_base_sigkill_timeout"

--- Whether argv[1] is an Open MPI launcher (its --version says so): it then gets
-- -x NAME for each variable the ranks need on other nodes.
local function open_mpi_launcher(prog)
  if not LAUNCHERS[basename(prog)] then return false end
  local p = io.popen(shell_quote(prog) .. " --version 2>&1")
  if not p then return false end
  local text = p:read("a") or ""
  p:close()
  return text:find("Open MPI", 1, true) ~= nil or text:find("OpenRTE", 1, true) ~= nil
end

--- The default archive name for an MPI command: the program the launcher runs.
function M.mpi_default_output(argv)
  local lfs = require "lfs"
  for i = LAUNCHERS[basename(argv[1])] and 2 or 1, #argv do
    local a = argv[i]
    if not a:find("^%-") and not a:find("^%d+$") and lfs.attributes(a, "mode") == "file" then
      return basename(a) .. ".otf2"
    end
  end
  return basename(argv[1]) .. ".otf2"
end

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  return require("lfs").currentdir() .. "/" .. path
end

--- Check an archive libretrace-mpi wrote: every rank's event file, the anchor, the marker.
-- Returns {ranks, events, complete, why, anchor}.
function M.mpi_check(dir)
  local lfs = require "lfs"
  local res = { anchor = dir .. "/traces.otf2", ranks = 0, events = 0 }
  local mf = io.open(dir .. "/traces.incomplete")
  local notes = {}
  local started
  if mf then
    local first = mf:read("l") or ""
    started = math.tointeger(tonumber(first:match("(%d+) ranks started")))
    for l in mf:lines() do notes[#notes + 1] = l end
    mf:close()
  end
  if lfs.attributes(res.anchor, "mode") ~= "file" then
    res.why = "no archive written (" .. res.anchor .. " missing; did the program call MPI_Init?)"
    return res
  end
  local replay = require "retrace.replay"
  local ps, err = replay.prescan(res.anchor)
  if not ps then
    res.why = "archive unreadable: " .. tostring(err)
    return res
  end
  res.ranks, res.events = ps.processors, ps.events
  local missing = {}
  for r = 0, (started or ps.processors) - 1 do
    local evt = string.format("%s/traces/%d.evt", dir, r)
    local size = lfs.attributes(evt, "size")
    if not size or size == 0 then missing[#missing + 1] = tostring(r) end
  end
  if #missing > 0 then
    notes[#notes + 1] = "no events from rank" .. (#missing > 1 and "s " or " ") .. table.concat(missing, ", ")
  end
  if mf then
    table.insert(notes, 1, "not every rank reached MPI_Finalize")
  end
  res.complete = #notes == 0
  res.why = #notes > 0 and table.concat(notes, "; ") or nil
  return res
end

--- Run an MPI command (argv: the launcher and its arguments) with libretrace-mpi
-- preloaded into the ranks, writing the OTF2 archive folder opts.dir. Returns
-- {ranks, events, complete, why, anchor, exit_code, signal}, or nil, message, exit code.
function M.run_mpi(opts)
  local lib = M.mpi_lib()
  if not lib then
    return nil, "libretrace-mpi.so not found (retrace was built without MPI, or set RETRACE_MPI_LIB)", 1
  end
  local fs = require "retrace.fs"
  local dir = absolute(opts.dir)
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, err, 1 end
  local env = { LD_PRELOAD = absolute(lib), RETRACE_MPI_ARCHIVE = dir }
  local pre = os.getenv("LD_PRELOAD")
  if pre and pre ~= "" then env.LD_PRELOAD = env.LD_PRELOAD .. ":" .. pre end
  -- when one rank fails, Open MPI's launcher sends the others SIGTERM and soon after SIGKILL:
  -- a few seconds between the two let their handlers write what they hold
  local names = { "LD_PRELOAD", "RETRACE_MPI_ARCHIVE" }
  if not os.getenv(SIGKILL_DELAY) then env[SIGKILL_DELAY] = "5"; names[#names + 1] = SIGKILL_DELAY end
  local words = {}
  for _, k in ipairs(names) do words[#words + 1] = k .. "=" .. shell_quote(env[k]) end
  words[#words + 1] = shell_quote(opts.argv[1])
  if open_mpi_launcher(opts.argv[1]) then
    for _, k in ipairs({ "-x", "LD_PRELOAD", "-x", "RETRACE_MPI_ARCHIVE" }) do words[#words + 1] = k end
  end
  for i = 2, #opts.argv do words[#words + 1] = shell_quote(opts.argv[i]) end
  local okx, how, code = os.execute(table.concat(words, " "))
  local res = M.mpi_check(dir)
  res.anchor = opts.dir .. "/traces.otf2"
  if how == "signal" then
    res.signal = code
    res.why = (res.why and res.why .. "; " or "") .. "killed by signal " .. code
    res.complete = false
  elseif not okx then
    res.exit_code = code
    res.why = (res.why and res.why .. "; " or "") .. "exit status " .. tostring(code)
    res.complete = false
  end
  return res
end

--- The capture's threads taking turns, quantum data references each (an approximation of a
-- parallel run: Valgrind ran them one at a time). trace and alloc: the capture's trace and
-- allocation log. Returns the interleaved trace's and log's paths (in a temporary folder)
-- and a function that removes them, or nil and a message.
function M.interleave(trace, alloc, quantum)
  local tmp = os.tmpname()
  os.remove(tmp)
  local ok, err = require("retrace.fs").mkdir_p(tmp)
  if not ok then return nil, err end
  local t, a = tmp .. "/trace.rtmb", tmp .. "/alloc.msp"
  local function cleanup()
    os.remove(t)
    os.remove(a)
    os.remove(tmp)
  end
  local done, ierr = core.capture.interleave{ trace = trace, alloc = alloc, out_trace = t, out_alloc = a,
    quantum = quantum }
  if not done then cleanup(); return nil, ierr end
  return t, a, cleanup
end

--- The names of the capture folder's start-up code segments (its startup file; {} when absent).
function M.startup_names(dir)
  local list = {}
  local f = io.open(dir .. "/startup")
  if not f then return list end
  for l in f:lines() do if l ~= "" then list[#list + 1] = l end end
  f:close()
  return list
end

--- Open a capture folder: its parts' paths and status. Returns
-- {dir, trace, alloc, status, complete, why, cmdline}, or nil and "DIR: missing PART".
-- opts.allow_incomplete lets an incomplete capture through (its why is kept).
function M.open(dir, opts)
  opts = opts or {}
  local lfs = require "lfs"
  if lfs.attributes(dir, "mode") ~= "directory" then return nil, dir .. ": not a capture folder" end
  for _, part in ipairs(M.PARTS) do
    if lfs.attributes(dir .. "/" .. part, "mode") ~= "file" then
      return nil, dir .. "/" .. part .. ": missing (not a whole capture folder)"
    end
  end
  local f = assert(io.open(dir .. "/status"))
  local first, why = f:read("l"), f:read("l")
  f:close()
  local st = { dir = dir, trace = dir .. "/trace.rtmb", alloc = dir .. "/alloc.msp",
    alloc_lines = lfs.attributes(dir .. "/alloc.lines.msp", "mode") == "file" and (dir .. "/alloc.lines.msp") or nil,
    complete = first == "complete", why = why }
  local tf = io.open(dir .. "/threads")
  if tf then
    st.threads = math.tointeger(tonumber(tf:read("l")))
    tf:close()
  end
  if first ~= "complete" and first ~= "incomplete" then
    return nil, dir .. "/status:1: status: expected complete or incomplete, got '" .. tostring(first) .. "'"
  end
  if not st.complete and not opts.allow_incomplete then
    return nil, dir .. ": incomplete capture (" .. tostring(why) .. ")"
  end
  return st
end

--- Whether path is a folder (a capture folder to open).
function M.is_folder(path)
  return require("lfs").attributes(path, "mode") == "directory"
end

return M
