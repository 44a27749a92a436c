-- `retrace capture --lackey`: examples/capture/conflict.c run under valgrind lackey with the
-- allocation interposer; MemSpy and `retrace cache` on the capture folder; the errors.
-- Skips (saying so) where valgrind or a C compiler is missing.
local H = require "helpers"
local cjson = require "cjson"

local function have(cmd)
  local ok = os.execute(cmd .. " >/dev/null 2>&1")
  return ok == true
end

local HAVE = have("valgrind --version") and have("cc --version")
local function skip_if_missing()
  if not HAVE then
    pending("valgrind or cc missing: capture tests skipped (make deps installs valgrind)")
    return true
  end
end

local SRC = H.source .. "/examples/capture/conflict.c"

-- the line numbers of the source lines matching patterns (in order of appearance)
local function lines_of(pattern)
  local out, n = {}, 0
  for l in io.lines(SRC) do
    n = n + 1
    if l:find(pattern) then out[#out + 1] = n end
  end
  return out
end

local ROUNDS = 30 -- a and c take turns in the same lines this many times
local tmp, prog, dir
local function setup_capture()
  tmp = H.temp_dir()
  prog = tmp .. "/conflict"
  assert(have("cc -g -O1 -o " .. H.quote(prog) .. " " .. H.quote(SRC)))
  dir = tmp .. "/cap"
  local code, out, err = H.retrace("capture", "-o", dir, "--lackey", "--keep-text", "--", prog, tostring(ROUNDS))
  assert.equal(0, code, err)
  assert.truthy(out:find("complete", 1, true))
end

describe("capture: the conflict example", function()
  setup(function() if HAVE then setup_capture() end end)
  teardown(function() if tmp then H.remove_tree(tmp) end end)

  it("writes a whole folder marked complete", function()
    if skip_if_missing() then return end
    for _, part in ipairs{ "trace.rtmb", "alloc.msp", "loadmap", "cmdline", "status", "trace.lackey" } do
      assert.truthy(io.open(dir .. "/" .. part), part)
    end
    assert.equal("complete\n", H.slurp(dir .. "/status"))
    assert.equal(prog .. "\n" .. ROUNDS .. "\n", H.slurp(dir .. "/cmdline"))
    -- the launcher's own allocations are not there: the first object of the load map is the program
    assert.equal(prog, H.slurp(dir .. "/loadmap"):match("^%x+ %x+ %x+ ([^\n]+)"))
  end)

  -- cc -O1 keeps make_array's p in the result register at malloc's return, and DWARF says
  -- so: its allocations are named by the variable; the block of c, stored straight into
  -- a callee-saved register, is named by its site
  it("names the two call paths of make_array, the block of c and the static table", function()
    if skip_if_missing() then return end
    local helper = lines_of("malloc%(n %* sizeof")[1]
    local calls = lines_of("= make_array%(N%)")
    local block = lines_of("char %*block = malloc")[1]
    local a = ("double*.p@make_array:%d<main:%d"):format(helper, calls[1])
    local b = ("double*.p@make_array:%d<main:%d"):format(helper, calls[2])
    local c = ("alloc@main:%d"):format(block)
    local code, out, err = H.retrace("memspy", dir, "--size", "32K", "--ways", "1", "--json")
    assert.equal(0, code, err)
    local j = cjson.decode(out)
    local data = {}
    for _, d in ipairs(j.data) do data[d] = true end
    assert.truthy(data[a], a)
    assert.truthy(data[b], b)
    assert.truthy(data[c], c)
    assert.truthy(data.table)
    assert.truthy(data.stack)
    -- a's misses in main are replacements, nearly all caused by c's block
    local repl, by_c, refs_table = 0, 0, 0
    for _, bin in ipairs(j.bins) do
      if bin.data == a and bin.code == "main" then
        repl = bin.replacement
        by_c = bin.causes[c] or 0
      end
      if bin.data == "table" then refs_table = refs_table + bin.refs end
    end
    -- each round reads a's 256 lines, each evicted by c since the last round
    assert.is_true(repl >= (ROUNDS - 1) * 256, "replacement misses of a: " .. repl)
    assert.is_true(by_c >= 0.95 * repl, ("caused by c: %d of %d"):format(by_c, repl))
    assert.is_true(refs_table >= ROUNDS * 2048, "references to table: " .. refs_table)
    -- the code axis: the helper's initialisation loop is charged to make_array
    local code_set = {}
    for _, cname in ipairs(j.code) do code_set[cname] = true end
    assert.truthy(code_set.make_array)
  end)

  it("with one processor, totals equal retrace cache on the same lackey trace", function()
    if skip_if_missing() then return end
    local code, out, err = H.retrace("memspy", dir, "--size", "32K", "--ways", "1", "--json")
    assert.equal(0, code, err)
    local m = cjson.decode(out)
    local first, repl = 0, 0
    for _, bin in ipairs(m.bins) do
      first, repl = first + bin.first, repl + bin.replacement
    end
    local code2, out2, err2 = H.retrace("cache", dir .. "/trace.lackey", "--size", "32K", "--ways", "1",
      "--classify", "--json")
    assert.equal(0, code2, err2)
    local c = cjson.decode(out2)
    assert.equal(c.refs, m.totals.refs)
    assert.equal(c.misses, m.totals.misses)
    assert.equal(c.compulsory, first)
    assert.equal(c.capacity + c.conflict, repl)
    -- and the folder's RTMB trace is the same trace
    local code3, out3 = H.retrace("cache", dir, "--size", "32K", "--ways", "1", "--json")
    assert.equal(0, code3)
    local r = cjson.decode(out3)
    assert.same({ c.refs, c.misses, c.writebacks }, { r.refs, r.misses, r.writebacks })
  end)

  it("cache --by data and --by function add up to the totals", function()
    if skip_if_missing() then return end
    for _, axis in ipairs{ "data", "function" } do
      local code, out, err = H.retrace("cache", dir, "--size", "32K", "--ways", "1", "--by", axis, "--json")
      assert.equal(0, code, err)
      local j = cjson.decode(out)
      local sum = 0
      for _, row in ipairs(j.by) do sum = sum + row.misses end
      assert.equal(j.misses, sum)
      assert.equal(axis == "data" and ("double*.p@make_array:%d<main:%d"):format(
        lines_of("malloc%(n %* sizeof")[1], lines_of("= make_array%(N%)")[1]) or "main", j.by[1].name)
    end
  end)
end)

describe("capture --threads: false sharing", function()
  it("gives one processor per thread, and invalidation misses written by each", function()
    if skip_if_missing() then return end
    local work = H.temp_dir()
    local prog = work .. "/falseshare"
    assert(have("cc -g -O1 -pthread -o " .. H.quote(prog) .. " " .. H.quote(H.source .. "/examples/capture/falseshare.c")))
    local d = work .. "/cap"
    local code, out, err = H.retrace("capture", "--threads", "-o", d, "--", prog, "300000")
    assert.equal(0, code, err)
    assert.truthy(out:find("serialis", 1, true) or out:find("one thread at a time", 1, true))
    assert.equal("2\n", H.slurp(d .. "/threads"))
    local c2, o2, e2 = H.retrace("memspy", d, "--detail", "worker:counters")
    assert.equal(0, c2, e2)
    assert.truthy(o2:find("Procs: 2", 1, true) or o2:find("processor 1", 1, true), o2)
    local inval = tonumber(o2:match("Inval Miss: (%d+)"))
    -- 30 yields of each thread: about one invalidation miss per switch of thread
    assert.is_true(inval >= 20, "invalidation misses: " .. tostring(inval))
    assert.truthy(o2:find("processor 0: %d"), o2)
    assert.truthy(o2:find("processor 1: %d"), o2)
    H.remove_tree(work)
  end)
end)

describe("capture: bad input", function()
  local work
  setup(function() work = H.temp_dir() end)
  teardown(function() H.remove_tree(work) end)

  it("a program that does not exist: reported, folder marked incomplete", function()
    if skip_if_missing() then return end
    local d = work .. "/missing"
    local code, _, err = H.retrace("capture", "-o", d, "--", work .. "/no-such-program")
    assert.equal(1, code)
    assert.equal("retrace: capture: " .. work .. "/no-such-program: no such program\n", err)
    assert.equal("incomplete\n" .. work .. "/no-such-program: no such program\n", H.slurp(d .. "/status"))
    local c2, _, e2 = H.retrace("capture", "-o", d, "--", "no-such-program-on-path")
    assert.equal(1, c2)
    assert.equal("retrace: capture: no-such-program-on-path: no such program on PATH\n", e2)
  end)

  it("a program exiting non-zero: its status reported, the trace kept and marked incomplete", function()
    if skip_if_missing() then return end
    local d = work .. "/false"
    local code, _, err = H.retrace("capture", "-o", d, "--", "false")
    assert.equal(1, code)
    assert.truthy(err:find("exit status 1", 1, true), err)
    assert.equal("incomplete\nexit status 1\n", H.slurp(d .. "/status"))
    assert.truthy(#H.slurp(d .. "/trace.rtmb") > 16)
    local c2, _, e2 = H.retrace("memspy", d)
    assert.equal(1, c2)
    assert.truthy(e2:find("incomplete capture (exit status 1)", 1, true), e2)
    local c3 = H.retrace("memspy", d, "--incomplete")
    assert.equal(0, c3)
  end)

  it("valgrind missing: one line naming the package", function()
    local d = work .. "/novg"
    local out = os.tmpname()
    local cmd = "PATH=/nonexistent " .. H.quote(H.bin) .. " capture -o " .. H.quote(d) .. " -- /bin/true 2>" .. out
    local _, _, code = os.execute(cmd)
    local err = H.slurp(out)
    os.remove(out)
    assert.equal(1, code)
    assert.equal("retrace: capture: valgrind: not found on PATH (install the Debian package valgrind)\n", err)
  end)

  it("a folder with a missing part: an error naming it", function()
    if skip_if_missing() then return end
    local d = work .. "/part"
    assert.equal(0, (H.retrace("capture", "-o", d, "--", "true")))
    os.remove(d .. "/alloc.msp")
    local code, _, err = H.retrace("memspy", d)
    assert.equal(1, code)
    assert.truthy(err:find("alloc.msp: missing", 1, true), err)
    local code2, _, err2 = H.retrace("cache", d)
    assert.equal(1, code2)
    assert.truthy(err2:find("alloc.msp: missing", 1, true), err2)
  end)

  it("--by needs a capture folder and a known axis", function()
    local code, _, err = H.retrace("cache", H.fixtures .. "/memspy/two.msp", "--by", "data")
    assert.equal(2, code)
    assert.truthy(err:find("--by", 1, true))
    local code2, _, err2 = H.retrace("cache", work, "--by", "line")
    assert.equal(2, code2)
    assert.truthy(err2:find("expected function or data", 1, true), err2)
  end)

  it("Ctrl-C leaves a folder marked incomplete", function()
    if skip_if_missing() then return end
    local prog = work .. "/conflict"
    assert(have("cc -O1 -o " .. H.quote(prog) .. " " .. H.quote(SRC)))
    local d = work .. "/int"
    local sh = ("%s capture -o %s -- %s 100000 >/dev/null 2>&1 & p=$!; sleep 2; kill -INT $p; wait $p; echo $?")
      :format(H.quote(H.bin), H.quote(d), H.quote(prog))
    local f = io.popen(sh)
    local rc = f:read("a")
    f:close()
    assert.equal("1\n", rc)
    assert.equal("incomplete\ninterrupted\n", H.slurp(d .. "/status"))
  end)
end)
