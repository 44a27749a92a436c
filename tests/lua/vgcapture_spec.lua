-- `retrace capture` with the retrace Valgrind tool, measured against cachegrind: on a
-- linked-list walk, a naive and a blocked matrix multiply and a two-thread program
-- (examples/capture/*.c), the data references and the misses of a 32 KiB 8-way data
-- cache of 64-byte lines are within 2% of cachegrind's D1 (both count a modify as one
-- load); the tool's preload (the recorder) leaves no reference; the three matrices of
-- an inlined allocator are three data bins. Skips, saying so, without valgrind, a C
-- compiler or the built tool.
local H = require "helpers"
local cjson = require "cjson"
local capture = require "retrace.capture"

local function have(cmd)
  return os.execute(cmd .. " >/dev/null 2>&1") == true
end

local WHY
if not have("valgrind --version") then
  WHY = "valgrind missing (make deps installs it)"
elseif not have("cc --version") then
  WHY = "no C compiler"
elseif not capture.vgtool_dir() then
  WHY = "the retrace Valgrind tool was not built (valgrind's tool libraries missing)"
end
local function skipped()
  if WHY then
    pending("vgcapture skipped: " .. WHY)
    return true
  end
end

local tmp
local progs = {}
local function build(name)
  if not progs[name] then
    local out = tmp .. "/" .. name
    assert(have(("cc -g -O1 -pthread -o %s %s"):format(H.quote(out),
      H.quote(H.source .. "/examples/capture/" .. name .. ".c"))))
    progs[name] = out
  end
  return progs[name]
end

local GEOM = { "--size", "32K", "--ways", "8", "--line", "64" }

-- cachegrind's D refs, D1 misses and I refs on argv
local function cachegrind(argv)
  local words = { "valgrind", "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=/dev/null",
    "--D1=32768,8,64", "--I1=32768,8,64", "--LL=8388608,16,64" }
  for _, a in ipairs(argv) do words[#words + 1] = H.quote(a) end
  local p = assert(io.popen(table.concat(words, " ") .. " 2>&1 >/dev/null"))
  local text = p:read("a")
  p:close()
  local function num(pat)
    local s = assert(text:match(pat), "cachegrind: no " .. pat .. " in\n" .. text)
    return math.tointeger(tonumber((s:gsub(",", ""))))
  end
  return { refs = num("D   refs:%s+([%d,]+)"), misses = num("D1  misses:%s+([%d,]+)"), irefs = num("I   refs:%s+([%d,]+)") }
end

-- capture argv into a fresh folder; the `retrace cache` figures of the same geometry
local function ours(name, argv)
  local dir = tmp .. "/" .. name .. ".cap"
  local args = { "capture", "-o", dir, "--" }
  for _, a in ipairs(argv) do args[#args + 1] = a end
  local code, out, err = H.retrace(table.unpack(args))
  assert.equal(0, code, err)
  local refs, inst = out:match("([%d,]+) data references %(([%d,]+) instructions%)")
  local code2, js, err2 = H.retrace("cache", dir, "--json", table.unpack(GEOM))
  assert.equal(0, code2, err2)
  local j = cjson.decode(js)
  return { dir = dir, refs = j.refs, misses = j.misses,
    captured = math.tointeger(tonumber((refs:gsub(",", "")))),
    irefs = math.tointeger(tonumber((inst:gsub(",", "")))) }
end

local function within(pct, got, want, what)
  local dev = math.abs(got - want) / want * 100
  assert(dev <= pct, ("%s: %d against cachegrind's %d (%.2f%% apart, more than %g%%)"):format(what, got, want, dev, pct))
end

local CASES = {
  { name = "listwalk", argv = function() return { build("listwalk"), "20000", "6" } end },
  { name = "naive", argv = function() return { build("matmul"), "naive", "96" } end },
  { name = "blocked", argv = function() return { build("matmul"), "blocked", "96", "24" } end },
  { name = "threads2", argv = function() return { build("threads2"), "65536", "8" } end },
}

describe("capture with the retrace tool against cachegrind", function()
  setup(function() if not WHY then tmp = H.temp_dir() end end)
  teardown(function() if tmp then H.remove_tree(tmp) end end)

  for _, c in ipairs(CASES) do
    it(c.name .. ": references, instructions and misses within 2% of cachegrind's", function()
      if skipped() then return end
      local argv = c.argv()
      local cg, rt = cachegrind(argv), ours(c.name, argv)
      within(2, rt.captured, cg.refs, c.name .. " data references")
      within(2, rt.refs, cg.refs, c.name .. " references through the cache")
      within(2, rt.irefs, cg.irefs, c.name .. " instructions")
      within(2, rt.misses, cg.misses, c.name .. " D1 misses")
      c.result = rt
    end)
  end

  it("listwalk: the recorder adds nothing per allocation (40,000 calls, counts as cachegrind's)", function()
    if skipped() then return end
    -- 20,000 mallocs and 20,000 frees: a wrapper traced would add tens of references a call
    local argv = { build("listwalk"), "20000", "1" }
    local cg, rt = cachegrind(argv), ours("list1", argv)
    within(0.5, rt.captured, cg.refs, "data references")
    within(0.5, rt.irefs, cg.irefs, "instructions")
    local allocs = 0
    for l in io.lines(rt.dir .. "/alloc.msp") do
      if l:find("^@%d+ A ") then allocs = allocs + 1 end
    end
    assert(allocs >= 20001, "allocation records: " .. allocs)
  end)

  it("matmul: the three matrices of the inlined allocator are three data bins", function()
    if skipped() then return end
    local src = H.source .. "/examples/capture/matmul.c"
    local calls, helper, n = {}, nil, 0
    for l in io.lines(src) do
      n = n + 1
      if l:find("= new_matrix%(n") then calls[#calls + 1] = n end
      if l:find("double %*m = malloc") then helper = n end
    end
    assert.equal(3, #calls)
    local dir = tmp .. "/inl.cap"
    local code, _, err = H.retrace("capture", "-o", dir, "--", build("matmul"), "naive", "32")
    assert.equal(0, code, err)
    local code2, out, err2 = H.retrace("memspy", dir, "--json", "--threshold", "0")
    assert.equal(0, code2, err2)
    local j = cjson.decode(out)
    local bins = {}
    for _, d in ipairs(j.data) do bins[d] = true end
    for _, line in ipairs(calls) do
      local want = ("alloc@new_matrix:%d<main:%d"):format(helper, line)
      assert.truthy(bins[want], want .. " among " .. table.concat(j.data, ", "))
    end
  end)

  it("two threads: thread switches in the log, one processor a thread", function()
    if skipped() then return end
    local dir = tmp .. "/thr.cap"
    local code, _, err = H.retrace("capture", "-o", dir, "--", build("threads2"), "4096", "2")
    assert.equal(0, code, err)
    assert.equal("3\n", H.slurp(dir .. "/threads")) -- main and two workers
    local procs = {}
    for l in io.lines(dir .. "/alloc.msp") do
      local p = l:match("^@%d+ S (%d+)$")
      if p then procs[tonumber(p)] = true end
    end
    assert.truthy(procs[0] and procs[1] and procs[2])
  end)

  describe("reports on a capture", function()
    local dir
    local function cap()
      if not dir then
        dir = tmp .. "/rep.cap"
        local code, _, err = H.retrace("capture", "-o", dir, "--", build("matmul"), "naive", "48")
        assert.equal(0, code, err)
      end
      return dir
    end
    -- matrix.csv of `memspy DIR ARGS... --csv`: {code name = row total}
    local function rows(...)
      local out = tmp .. "/csv"
      local code, _, err = H.retrace("memspy", cap(), "--csv", out, ...)
      assert.equal(0, code, err)
      local t, n = {}, 0
      for l in io.lines(out .. "/matrix.csv") do
        n = n + 1
        local name, total = l:match('^"?(.-)"?,([%d.]+),')
        if n > 1 and name then t[name] = tonumber(total) end
      end
      return t
    end
    local function count(t)
      local n = 0
      for _ in pairs(t) do n = n + 1 end
      return n
    end

    it("folds rows under 0.1% into 'other' and the loader's start-up into '(startup)'", function()
      if skipped() then return end
      local all = rows("--threshold", "0", "--startup")
      local folded = rows()
      assert.truthy(folded["(startup)"])
      assert.truthy(folded.other)
      assert.is_nil(all["(startup)"])
      assert.is_nil(all.other)
      assert.truthy(all._dl_relocate_object or all._dl_lookup_symbol_x or all._dl_start, "a loader function")
      assert.is_true(count(all) > count(folded) + 5, count(all) .. " rows, folded " .. count(folded))
      for name, total in pairs(folded) do
        if name ~= "other" then assert(total >= 0.1 - 1e-9, name .. ": " .. total) end
      end
      -- folding moves stall time, never loses it
      local sum = 0
      for _, v in pairs(folded) do sum = sum + v end
      assert.near(100, sum, 0.01)
      -- start-up apart but still thresholded: no '(startup)' row, the loader under 'other'
      assert.is_nil(rows("--startup")["(startup)"])
    end)

    it("--detail prints only the detail", function()
      if skipped() then return end
      local code, out, err = H.retrace("memspy", cap(), "--detail", "main:")
      assert.equal(0, code, err)
      assert.truthy(out:find("^DETAILED OUTPUT: %(all%) in main"), out)
      assert.falsy(out:find("TOTAL APPLICATION STATISTICS", 1, true))
      assert.falsy(out:find("Percentage of Total Memory Stall Time, broken down", 1, true))
    end)

    it("--lines charges the program's code by source line", function()
      if skipped() then return end
      local inner, n = nil, 0
      for l in io.lines(H.source .. "/examples/capture/matmul.c") do
        n = n + 1
        if l:find("s %+= a%[i %* n %+ k%] %* b%[k %* n %+ j%]") then inner = n end
      end
      -- a 4 KiB cache: the column walk of b misses on every step
      local t = rows("--lines", "--size", "4K")
      local key = "naive:" .. inner -- naive() is inlined into main: named by its own line
      assert.truthy(t[key], key)
      assert.is_true(t[key] > 50, key .. ": " .. tostring(t[key]))
      -- by function the same stall is main's
      assert.is_true(rows("--size", "4K").main > 50)
    end)
  end)

  it("--interleave: threads take turns; the same references, sharing misses by the quantum", function()
    if skipped() then return end
    local prog = tmp .. "/falseshare"
    assert(have(("cc -g -O1 -pthread -o %s %s"):format(H.quote(prog),
      H.quote(H.source .. "/examples/capture/falseshare.c"))))
    local dir = tmp .. "/fs.cap"
    local code, out, err = H.retrace("capture", "-o", dir, "--", prog, "100000")
    assert.equal(0, code, err)
    assert.truthy(out:find("valgrind runs one thread at a time", 1, true), out)
    local function run(...)
      local c, o, e = H.retrace("memspy", dir, "--json", ...)
      assert.equal(0, c, e)
      local j = cjson.decode(o)
      local inval = 0
      for _, b in ipairs(j.bins) do inval = inval + b.invalidation end
      return j.totals, inval
    end
    local t0, i0 = run()
    local t100, i100 = run("--interleave", "100")
    local t10, i10 = run("--interleave", "10")
    -- the same references, reordered
    assert.equal(t0.refs, t100.refs)
    assert.equal(t0.refs, t10.refs)
    assert.equal(t0.writes, t10.writes)
    -- serialised: a few sharing misses at slice ends; in turns of N references each turn of
    -- the two workers costs each an invalidation miss on the shared line, so ten times
    -- shorter turns give about ten times the misses
    assert.is_true(i100 > 20 * math.max(i0, 1), i0 .. " then " .. i100)
    local ratio = i10 / i100
    assert(ratio > 8 and ratio < 12, "quantum 10 against 100: " .. i10 .. " / " .. i100)
    local c, _, e = H.retrace("memspy", dir, "--interleave", "0")
    assert.equal(2, c)
    assert.truthy(e:find("--interleave", 1, true), e)
  end)
end)
