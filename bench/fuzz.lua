-- Fuzz driver: every command on mutants of real inputs, each run watched for
-- what the house rule forbids. Seeds are the test fixtures, the examples and
-- slices of the shared traces (read in place, written only to /tmp); mutants
-- are byte flips, numbers made huge / negative / NaN / words, lines truncated,
-- duplicated, swapped or deleted, fields dropped or added, NUL bytes, very long
-- lines, empty files, and corrupted or truncated records of the binary memory
-- trace. A run is flagged for a signal, sanitizer output, an exit code other
-- than 0/1/2, a timeout, a Lua traceback, or an exit 1 whose message is not one
-- line naming the file.
--   Usage (from the repository root, best with the sanitizer build):
--     build-asan/retrace bench/fuzz.lua [MUTANTS_PER_SEED [SEED [ONLY]]]
--   ONLY restricts the run to the commands whose name contains it ("picl").
--   Flagged mutants are kept in DIR/fail/ with the command line, DIR being
--   $RETRACE_FUZZ_DIR or a fresh folder under /tmp (printed at the end), so
--   runs side by side do not share files.
local bin = os.getenv("RETRACE_FUZZ_BIN") or arg[-1] or "build-asan/retrace"
local per_seed = tonumber(arg[1]) or 3
local rng_seed = tonumber(arg[2]) or 1
local only = arg[3]
local TMP = os.getenv("RETRACE_FUZZ_DIR")
if not TMP then
  TMP = os.tmpname() -- a unique name; the file it made is replaced by the folder
  os.remove(TMP)
  TMP = TMP .. "-fuzz"
end
local TIMEOUT = 20

math.randomseed(rng_seed)
os.execute("rm -rf " .. TMP .. " && mkdir -p " .. TMP .. "/fail")

local function slurp(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

local function spit(path, s)
  local f = assert(io.open(path, "wb"))
  f:write(s)
  f:close()
end

local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The first n lines of a file (a slice of a long shared trace).
local function head(path, n)
  local s = slurp(path)
  if not s then return nil end
  local out, k = {}, 0
  for line in s:gmatch("[^\n]*\n?") do
    if line == "" or k >= n then break end
    out[#out + 1] = line
    k = k + 1
  end
  return table.concat(out)
end

---------------------------------------------------------------- mutators

local function lines_of(s)
  local t = {}
  for line in s:gmatch("([^\n]*)\n?") do t[#t + 1] = line end
  if t[#t] == "" then t[#t] = nil end
  return t
end

local function pick(t) return t[math.random(#t)] end

local odd_numbers = {
  "0", "-1", "-2147483649", "2147483648", "4294967296", "9223372036854775807",
  "9223372036854775808", "-9223372036854775808", "1e308", "1e309", "-1e309",
  "nan", "NaN", "inf", "-inf", "0x", "0xffffffffffffffffff", "1.5", "-0", "abc",
  "", "1e-320", "99999999999999999999999999999", "0.0000001", "+", "-", ".",
  -- past 32 bits: a field cut to an int would wrap (2^32 - 21 is PICL's send, -21)
  "2147483647", "4294967275", "4294967296", "99999999999", "-4294967297",
}

-- Replace one number of a random line by an odd value.
local function mut_number(t)
  for _ = 1, 8 do
    local i = math.random(#t)
    local spans = {}
    for a, b in t[i]:gmatch("()[-+]?[%x.]+()") do spans[#spans + 1] = { a, b } end
    if #spans > 0 then
      local s = pick(spans)
      t[i] = t[i]:sub(1, s[1] - 1) .. pick(odd_numbers) .. t[i]:sub(s[2])
      return t
    end
  end
  return t
end

local function mut_truncate_line(t)
  local i = math.random(#t)
  t[i] = t[i]:sub(1, math.random(0, #t[i]))
  return t
end

local function mut_dup_line(t)
  local i = math.random(#t)
  table.insert(t, i, t[i])
  return t
end

local function mut_swap_lines(t)
  local i, j = math.random(#t), math.random(#t)
  t[i], t[j] = t[j], t[i]
  return t
end

local function mut_delete_line(t)
  table.remove(t, math.random(#t))
  return t
end

local function fields(line)
  local f = {}
  for w in line:gmatch("%S+") do f[#f + 1] = w end
  return f
end

local function mut_drop_field(t)
  local i = math.random(#t)
  local f = fields(t[i])
  if #f > 0 then table.remove(f, math.random(#f)) end
  t[i] = table.concat(f, " ")
  return t
end

local function mut_add_field(t)
  local i = math.random(#t)
  local f = fields(t[i])
  table.insert(f, math.random(#f + 1), pick(odd_numbers) ~= "" and pick({ "7", "x", "-3", "1e99" }) or "0")
  t[i] = table.concat(f, " ")
  return t
end

local function mut_nul(t)
  local i = math.random(#t)
  local p = math.random(0, #t[i])
  t[i] = t[i]:sub(1, p) .. "\0" .. t[i]:sub(p + 1)
  return t
end

local function mut_long_line(t)
  local i = math.random(#t)
  local unit = pick({ "9", "A", " ", "1 ", "(X,1), " })
  t[i] = t[i] .. unit:rep(math.random(1, 3) == 1 and 300000 or 5000)
  return t
end

-- A NUL byte at the end of a line's first word (a state or event name).
local function mut_nul_name(t)
  local i = math.random(#t)
  t[i] = t[i]:gsub("^(%s*%S+)", "%1\0", 1)
  return t
end

-- Declared sizes made huge: SHMAP matrix definitions (opcode 0) of 2^20 x 2^20,
-- blocks spanning them, and big leading counts on any other line.
local function mut_huge_sizes(t)
  for i, line in ipairs(t) do
    local id = line:match("^%s*0%s+(%d+)%s+%d+%s+%d+%s*$")
    if id then t[i] = ("0 %s 1048576 1048576"):format(id) end
  end
  local i = math.random(#t)
  local f = fields(t[i])
  if #f >= 6 and (f[1] == "1" or f[1] == "2") then
    f[3], f[4], f[5], f[6] = "1", "1048576", "1", "1048576"
    t[i] = table.concat(f, " ")
  end
  return t
end

local function mut_many_lines(t)
  local i = math.random(#t)
  for _ = 1, 2000 do table.insert(t, i, t[i]) end
  return t
end

local line_mutators = {
  mut_number, mut_number, mut_number, mut_truncate_line, mut_dup_line, mut_swap_lines,
  mut_delete_line, mut_drop_field, mut_add_field, mut_nul, mut_nul_name, mut_long_line,
  mut_many_lines, mut_huge_sizes,
}

local function flip_bytes(s, n)
  local b = { s:byte(1, -1) }
  for _ = 1, n do
    if #b == 0 then break end
    local i = math.random(#b)
    b[i] = b[i] ~ (1 << math.random(0, 7))
  end
  -- string.char in chunks (its argument count is bounded)
  local out = {}
  for i = 1, #b, 4096 do out[#out + 1] = string.char(table.unpack(b, i, math.min(i + 4095, #b))) end
  return table.concat(out)
end

-- A text mutant: one to three line-level mutations, sometimes byte flips,
-- rarely an empty file or one line only.
local function mutate_text(s)
  local r = math.random(400)
  -- one line past the 64 MiB line rule, rarely (each costs a 65 MiB file)
  if r == 1 then return (s:match("^[^\n]*") or "") .. ("9"):rep(65 * 1024 * 1024) .. "\n" end
  r = r % 100 + 1
  if r <= 2 then return "" end
  if r <= 4 then return (s:match("^[^\n]*\n?")) end
  if r <= 12 then return flip_bytes(s, math.random(1, 4)) end
  local t = lines_of(s)
  if #t == 0 then return "\0" end
  for _ = 1, math.random(1, 3) do
    if #t == 0 then break end
    t = pick(line_mutators)(t)
  end
  return table.concat(t, "\n") .. (math.random(10) == 1 and "" or "\n")
end

-- A binary mutant: the header (first hdr bytes) kept, records corrupted or
-- cut short.
local function mutate_binary(s, hdr)
  local body = s:sub(hdr + 1)
  local r = math.random(6)
  if r == 1 then return s:sub(1, hdr + math.random(0, math.max(0, #body - 1))) end
  if r == 2 then return s:sub(1, math.random(0, hdr)) end
  if r == 3 then
    local junk = {}
    for i = 1, math.random(1, 64) do junk[i] = string.char(math.random(0, 255)) end
    local p = hdr + math.random(0, #body)
    return s:sub(1, p) .. table.concat(junk) .. s:sub(p + 1)
  end
  if r == 4 then
    local junk = {}
    for i = 1, math.random(1, 4096) do junk[i] = string.char(math.random(0, 255)) end
    return s:sub(1, hdr) .. table.concat(junk)
  end
  if r == 5 then return s .. string.char(math.random(0, 255)):rep(math.random(1, 9)) end
  return s:sub(1, hdr) .. flip_bytes(body, math.random(1, 8))
end

---------------------------------------------------------------- seeds

local FX = "tests/fixtures/"
local SH = os.getenv("RETRACE_SHARED") or "../shared/data"

-- Each target: a name, a list of seed files (path or {name, text}), the
-- argument list with FILE where the mutant goes, and the extension kept.
local targets = {}
local function target(name, args, seeds, opts)
  targets[#targets + 1] = { name = name, args = args, seeds = seeds, opts = opts or {} }
end

local memtext = { FX .. "info/refs.din", FX .. "info/refs.xdin", FX .. "info/refs.lackey" }
target("cache", { "cache", "FILE" }, memtext)
target("cache --classify", { "cache", "FILE", "--classify", "--size", "256", "--line", "16" }, memtext)
target("cache --sweep", { "cache", "FILE", "--sweep", "--json" }, memtext)
target("cache --ways fifo", { "cache", "FILE", "--ways", "2", "--size", "512", "--policy", "fifo", "--unified" }, memtext)
target("cache --convert", { "cache", "FILE", "--convert", TMP .. "/out.rtmb" }, memtext, { quiet = true })
target("cache bin", { "cache", "FILE", "--classify" }, { "BIN" }, { binary = true })
target("cache bin --sweep", { "cache", "FILE", "--sweep" }, { "BIN" }, { binary = true })

local shm = {}
for f in io.popen("ls " .. FX .. "shmap/*.shm examples/hello/*.shm 2>/dev/null"):lines() do shm[#shm + 1] = f end
target("shmap", { "shmap", "FILE" }, shm)
target("shmap wb", { "shmap", "FILE", "--write-back", "--pes", "4", "--caches", "2", "--ways", "2", "--policy", "clock", "--json" }, shm)
target("shmap lua", { "shmap", "FILE", "--policy", "mru" }, shm)
target("shmap --frames", { "shmap", "FILE", "--frames", TMP .. "/frames", "--panels", "all", "--size", "320x200",
                           "--every", "50", "--pes", "2" }, shm, { quiet = true })
target("shmap --state", { "shmap", "FILE", "--state", "3", TMP .. "/state.json", "--pes", "3" }, shm, { quiet = true })

target("memspy", { "memspy", "FILE", "--procs", "2", "--detail", "solve:" }, { FX .. "memspy/two.msp" })
target("memspy json", { "memspy", "FILE", "--procs", "4", "--size", "256", "--ways", "2", "--json" },
  { FX .. "memspy/two.msp" })
target("memspy shmap", { "memspy", "FILE", "--format", "shmap", "--pes", "3", "--size", "512" }, shm)

local trf = {}
for f in io.popen("ls " .. FX .. "picl/*.trf " .. FX .. "medea/*.trf examples/picl/*.trf 2>/dev/null"):lines() do trf[#trf + 1] = f end
for _, f in ipairs({ "picl/fft-16.trf", "picl/mpicl-10.trf", "picl/mpicl-8a.trf" }) do
  local s = head(SH .. "/" .. f, 300)
  if s then trf[#trf + 1] = { f:gsub("/", "-"), s } end
end
target("picl stats", { "picl", "stats", "FILE", "--json" }, trf)
target("picl stats strict", { "picl", "stats", "FILE", "--strict" }, trf)
target("picl dump", { "picl", "dump", "FILE" }, trf)
target("picl convert", { "picl", "convert", "FILE", TMP .. "/out.trf" }, trf, { quiet = true })
-- the format-neutral name: PICL seeds plus the other message-passing samples (their heads)
local mp = { table.unpack(trf) }
for _, f in ipairs({ "paraver/qsort_beo3.prv", "paraver/qsort_beo3.pcf", "paje/ms.trace" }) do
  local s = head(SH .. "/" .. f, 300)
  if s then mp[#mp + 1] = { f:gsub("/", "-"), s } end
end
target("stats", { "stats", "FILE", "--json" }, mp)
target("medea", { "medea", "FILE", "--kmax", "3" }, trf)
target("medea strict", { "medea", "FILE", "--strict", "--approach", "processor", "--kmax", "3" }, trf)

local pes = { FX .. "chitra/philosophers2.pes", FX .. "chitra/philosophers2.txt", "examples/chitra/fragment.pes",
  "examples/chitra/phil2_x10.pes", FX .. "info/run.pes" }
target("chitra", { "chitra", "FILE", "--json" }, pes)
target("chitra transforms", { "chitra", "FILE", "--clip", "1:1", "--filter-event", "2", "--json" }, pes)
target("chitra views", { "chitra", "FILE", "--views", TMP .. "/views", "--shade", "ET" }, pes, { quiet = true })

local all = {}
for _, l in ipairs({ memtext, shm, trf, pes }) do for _, f in ipairs(l) do all[#all + 1] = f end end
for _, f in ipairs({ FX .. "info/head.paje", FX .. "info/two.shm", FX .. "info/bad.din" }) do all[#all + 1] = f end
target("info", { "info", "FILE", "--json" }, all)
target("info bin", { "info", "FILE" }, { "BIN" }, { binary = true })

---------------------------------------------------------------- running

local function run(argv, mutant, out)
  local cmd = {}
  for i, a in ipairs(argv) do cmd[i] = q(a == "FILE" and mutant or a) end
  local line = table.concat(cmd, " ")
  local sh = ("ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 " ..
    "timeout -s KILL %d %s %s >%s 2>%s/err </dev/null; echo $?"):format(TIMEOUT, q(bin), line, out or "/dev/null", TMP)
  local p = io.popen(sh)
  local rc = tonumber(p:read("a"))
  p:close()
  return rc, slurp(TMP .. "/err") or "", line
end

local function problem(rc, err, mutant, full)
  if rc == 137 then return "timeout (" .. TIMEOUT .. " s) or killed" end
  if full and rc == 0 then return "exit 0 with standard output on a full disk" end
  if rc > 128 then return "signal " .. (rc - 128) end
  if err:find("Sanitizer") or err:find("runtime error:") then return "sanitizer" end
  if err:find("stack traceback") then return "Lua traceback" end
  if rc ~= 0 and rc ~= 1 and rc ~= 2 then return "exit " .. rc end
  if rc == 1 then
    local body = err:gsub("\r[^\n]*", ""):gsub("\n$", "")
    if body == "" then return "exit 1 with no message" end
    -- on a full disk, what the command said before (its warnings, an input error)
    -- stays; the last line must be the failed write
    if full and body:match("[^\n]*$"):find("standard output", 1, true) then return nil end
    if body:find("\n") then return "exit 1 with a multi-line message" end
    local base = mutant:match("[^/]+$")
    local names_out = full and body:find("standard output", 1, true)
    if not body:find(base, 1, true) and not names_out then return "exit 1 message without the file name" end
  end
  return nil
end

-- Binary seed: the text memory trace converted by the program itself.
local bin_seed
do
  os.execute(("%s cache %s --convert %s/seed.rtmb >/dev/null 2>&1"):format(q(bin), memtext[1], TMP))
  local a = slurp(TMP .. "/seed.rtmb") or ""
  os.execute(("%s cache %s --convert %s/seed2.rtmb >/dev/null 2>&1"):format(q(bin), memtext[3], TMP))
  bin_seed = { a, slurp(TMP .. "/seed2.rtmb") or "" }
end
local RTMB_HEADER = 16

local counts, flagged, total = {}, {}, 0
local t0 = os.time()
for _, t in ipairs(targets) do
  if not only or t.name:find(only, 1, true) then
    local n, rcs = 0, {}
    for si, seed in ipairs(t.seeds) do
      local text, name
      if seed == "BIN" then
        text, name = nil, "seed.rtmb"
      elseif type(seed) == "table" then
        name, text = seed[1], seed[2]
      else
        name, text = seed:match("[^/]+$"), slurp(seed)
      end
      for k = 1, per_seed do
        local m
        if t.opts.binary then
          m = mutate_binary(bin_seed[(k % #bin_seed) + 1], RTMB_HEADER)
        else
          m = mutate_text(text)
        end
        local ext = name:match("%.[^.]+$") or ""
        local path = ("%s/m%d-%d%s"):format(TMP, si, k, ext)
        spit(path, m)
        -- one run in five of a command that prints writes to a full disk
        local full = not t.opts.quiet and math.random(5) == 1 and "/dev/full" or nil
        local rc, err, line = run(t.args, path, full)
        if full then line = line .. " >/dev/full" end
        n = n + 1
        rcs[rc] = (rcs[rc] or 0) + 1
        local why = problem(rc, err, path, full)
        if why then
          local keep = ("%s/fail/%d%s"):format(TMP, #flagged + 1, ext)
          spit(keep, m)
          flagged[#flagged + 1] = { target = t.name, why = why, cmd = line:gsub(q(path), keep),
            err = err:sub(1, 600) }
          io.stderr:write(("FLAG %s: %s\n  %s %s\n  %s\n"):format(t.name, why, bin,
            flagged[#flagged].cmd, (err:gsub("\n", "\n  ")):sub(1, 600)))
        end
      end
    end
    counts[#counts + 1] = { t.name, n }
    total = total + n
    local tally = {}
    for rc, c in pairs(rcs) do tally[#tally + 1] = ("exit %d: %d"):format(rc, c) end
    table.sort(tally)
    io.stderr:write(("%-22s %5d mutants  (%s)\n"):format(t.name, n, table.concat(tally, ", ")))
  end
end

print(("fuzz: %d runs over %d commands in %d s, %d flagged (seed %d, %d per seed file)"):format(
  total, #counts, os.time() - t0, #flagged, rng_seed, per_seed))
local by = {}
for _, f in ipairs(flagged) do
  local key = f.target .. ": " .. f.why
  by[key] = (by[key] or 0) + 1
end
for k, v in pairs(by) do print(("  %4d  %s"):format(v, k)) end
if #flagged > 0 then
  print("flagged inputs and their command lines: " .. TMP .. "/fail/")
else
  os.execute("rm -rf " .. q(TMP))
end
os.exit(#flagged == 0 and 0 or 1)
