-- `retrace shmap --from-capture`: a captured C program's static 2-D array becomes a
-- SHMAP matrix whose rows and columns come from DWARF, and the animation's load
-- canvas lights exactly the elements the program touched (pixel probes at the
-- element centres data() gives). Also: a shape hint, the nearest square, errors.
-- Skips (saying so) without valgrind or a C compiler.
local h = require "helpers"
require "retrace"
local shmap = require "retrace.shmap"
local canvas = require "retrace.canvas"
local sc = require "retrace.shmap_capture"

local function have(cmd) return os.execute(cmd .. " >/dev/null 2>&1") end
local HAVE = have("valgrind --version") and have("cc --version")

if not HAVE then
  describe("retrace shmap --from-capture", function()
    pending("valgrind or cc missing: capture tests skipped (make deps installs valgrind)")
  end)
  return
end

local tmp = h.temp_dir()
local prog = tmp .. "/touch2d"
assert(have("cc -g -O0 -o " .. h.quote(prog) .. " " .. h.quote(h.fixtures .. "/shmap/touch2d.c")))
local cap = tmp .. "/touch.cap"
local code, _, cerr = h.retrace("capture", "-o", cap, "--", prog)
-- the program exits 0 (a[5][9] is 0)
assert(code == 0, cerr)

describe("retrace shmap --from-capture", function()
  it("makes the static double a[6][10] a 6 x 10 matrix from DWARF", function()
    local out = tmp .. "/t.shm"
    local res = assert(sc.from_capture(cap, { out = out }))
    local a
    for _, m in ipairs(res.matrices) do if m.name == "a" then a = m end end
    assert.truthy(a, "a bin named a")
    assert.are.same({ 6, 10, false, 8 }, { a.rows, a.cols, a.col_major, a.elem })
    assert.matches("DWARF double%[6%]%[10%]", a.how)
    assert.are.equal(1, res.threads)
  end)

  it("names each step by function and source line", function()
    local out = tmp .. "/lines.shm"
    assert(sc.from_capture(cap, { out = out }))
    local steps = {}
    for l in io.lines(out) do
      local name = l:match("^5 %d+ %d+ (.+)$")
      if name then steps[name] = true end
    end
    -- touch2d.c: the += of line 11 and the read of line 12, both in main
    assert.is_true(steps["main:11"], "a step named main:11")
    assert.is_true(steps["main:12"], "a step named main:12")
  end)

  it("lights on the load canvas exactly the elements the program read", function()
    local out = tmp .. "/t.shm"
    local res = assert(sc.from_capture(cap, { out = out }))
    local t = assert(shmap.open(out))
    local id
    for _, m in ipairs(res.matrices) do if m.name == "a" then id = m.id end end
    local sim = assert(shmap.sim { trace = t, pes = 1, cache = false })
    local frame = require "retrace.displays.shmap.frame"
    local memory = require "retrace.displays.shmap.memory"
    -- a fade period past the trace's end: every element read stays at full brightness
    local f = assert(frame.new(sim, t, { panels = "memory", width = 800, height = 400, shades = 4, fade = 1e12 }))
    sim:run()
    local cv = canvas.image(800, 400)
    cv:background("white")
    f:update()
    f:draw(cv)
    local d = f:data().panels.memory
    local index
    for i, r in ipairs(d.regions) do if r.id == id then index = i end end
    assert.are.same({ 6, 10 }, { d.regions[index].rows, d.regions[index].cols })
    local lit_colour = f.ctx.palette:hex(0) -- PE 0, full brightness
    local bg = require("retrace.displays.shmap.common").canvas_bg
    local lit = {}
    for _, i in ipairs({ 0, 2, 4 }) do
      for _, j in ipairs({ 1, 4, 7 }) do lit[(i + 1) * 100 + j + 1] = true end
    end
    lit[6 * 100 + 10] = true -- a[5][9], read once
    local n = 0
    for r = 1, 6 do
      for c = 1, 10 do
        local x, y = memory.element_center(d, index, r, c, "loads")
        local got = h.pixel_hex(cv, x, y)
        if lit[r * 100 + c] then
          assert.are.equal(lit_colour, got, ("a(%d,%d) read"):format(r, c))
          n = n + 1
        else
          assert.are.equal(bg, got, ("a(%d,%d) not read"):format(r, c))
        end
      end
    end
    assert.are.equal(10, n)
    -- and the simulation counted one load per read element, one store per written one
    local e = sim:elements(id)
    assert.are.equal(1, e.loads[(2 - 1) * 6 + 1]) -- column-major index of (1, 2)
    assert.are.equal(1, e.stores[(2 - 1) * 6 + 1])
    assert.are.equal(0, e.stores[(10 - 1) * 6 + 6])
    sim:close()
    t:close()
  end)

  it("takes a shape hint, and the nearest square when nothing says", function()
    local out = tmp .. "/h.shm"
    local res = assert(sc.from_capture(cap, { out = out, shapes = assert(sc.parse_shapes({ "a=10x6,col" })) }))
    for _, m in ipairs(res.matrices) do
      if m.name == "a" then
        assert.are.same({ 10, 6, true }, { m.rows, m.cols, m.col_major })
        assert.matches("hint", m.how)
      end
    end
    assert.is_nil(sc.parse_shapes({ "a=10by6" }))
    local ok, err = sc.parse_shapes({ "a=0x6" })
    assert.is_nil(ok)
    assert.matches("NAME=ROWSxCOLS", err)
    -- without debug information: 60 elements make ceil(sqrt(60)) = 8 columns of 8 rows
    local bare = tmp .. "/touch2d-nodebug"
    assert(have("cc -O0 -o " .. h.quote(bare) .. " " .. h.quote(h.fixtures .. "/shmap/touch2d.c")))
    local cap2 = tmp .. "/bare.cap"
    local c, _, e = h.retrace("capture", "-o", cap2, "--", bare)
    assert.are.equal(0, c, e)
    local res2 = assert(sc.from_capture(cap2, { out = tmp .. "/n.shm" }))
    local a
    for _, m in ipairs(res2.matrices) do if m.name == "a" then a = m end end
    assert.are.same({ 8, 8, false }, { a.rows, a.cols, a.col_major })
    assert.matches("nearest square of 60 elements", a.how)
  end)

  it("runs from the command line with --frames, --shape notes and --state last", function()
    local d = tmp .. "/frames"
    local code2, _, err = h.retrace("shmap", "--from-capture", cap, "--pes", "1", "--no-cache", "--frames", d,
      "--every", "1000", "--state", "last", tmp .. "/s.json")
    assert.are.equal(0, code2, err)
    assert.matches("matrix %d is a: 6 x 10 row%-major %(DWARF double%[6%]%[10%]%)", err)
    assert.truthy(h.slurp(d .. "/frame_000001.png"))
  end)

  it("makes each thread of a --threads capture a PE", function()
    local fs = tmp .. "/falseshare"
    assert(have("cc -g -O1 -pthread -o " .. h.quote(fs) .. " " .. h.quote(h.source .. "/examples/capture/falseshare.c")))
    local fcap = tmp .. "/fs.cap"
    local c, _, e = h.retrace("capture", "--threads", "-o", fcap, "--", fs, "200")
    assert.are.equal(0, c, e)
    local out = tmp .. "/fs.shm"
    local res = assert(sc.from_capture(fcap, { out = out, min_elements = 1 }))
    assert.are.equal(2, res.threads)
    local id
    for _, m in ipairs(res.matrices) do if m.name == "counters" then id = m.id end end
    assert.truthy(id, "the counters bin")
    local t = assert(shmap.open(out))
    local sim = assert(shmap.sim { trace = t, pes = 2, cache = false })
    sim:run()
    -- falseshare's worker thread increments counters[1] `200` times: a load and a store each
    local e2 = sim:elements(id)
    assert.are.equal(200, e2.stores[2])
    assert.truthy(sim:stats().pes[2].stores >= 200, "PE 1 ran the worker thread")
    sim:close()
    t:close()
  end)

  it("refuses a folder that is no capture (exit 1) and a bad --shape (exit 2)", function()
    local c1, _, e1 = h.retrace("shmap", "--from-capture", tmp)
    assert.are.equal(1, c1)
    assert.matches("missing", e1)
    local c2, _, e2 = h.retrace("shmap", "--from-capture", cap, "--shape", "a=3")
    assert.are.equal(2, c2)
    assert.matches("%-%-shape", e2)
  end)
end)
