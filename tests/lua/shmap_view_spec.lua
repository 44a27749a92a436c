-- The SHMAP animation from Lua and on the command line: the view's state on the
-- strsv example of the SHMAP paper (section 6), the layout exported as data,
-- pixel probes at element centres, repeatable frames, the HTML player, errors.
local h = require "helpers"
require "retrace"
local shmap = require "retrace.shmap"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local cjson = require "cjson"

local function fixture(name) return h.fixtures .. "/shmap/" .. name end
local STRSV = fixture("three_groups.shm")

local function hex_at(cv, x, y)
  local r, g, b = cv:get_pixel(math.floor(x), math.floor(y))
  return string.format("#%02x%02x%02x", r, g, b)
end

describe("retrace.shmap.regions (the memory canvases' layout, a pure function)", function()
  it("takes the largest cell size, wraps rows of regions, splits the spare space evenly", function()
    local l = shmap.regions({ { rows = 10, cols = 10 }, { rows = 10, cols = 10 }, { rows = 20, cols = 5 } }, 70, 50, 2)
    assert.are.equal(2, l.f)
    assert.are.equal(1, l.k)
    local got = {}
    for i, r in ipairs(l.regions) do got[i] = { r.x, r.y, r.w, r.h } end
    -- widths 20, 20, 10: spare 20 in 4 gaps at 5, 10, 15; heights centred in the row of 40
    assert.are.same({ { 5, 15, 20, 20 }, { 30, 15, 20, 20 }, { 55, 5, 10, 40 } }, got)
    l = shmap.regions({ { rows = 10, cols = 30 }, { rows = 10, cols = 30 } }, 70, 50, 2)
    assert.are.same({ 2, 2, 1, 2 }, { l.f, l.rows, l.regions[1].row, l.regions[2].row })
    assert.are.same({ 5, 3, 5, 26 }, { l.regions[1].x, l.regions[1].y, l.regions[2].x, l.regions[2].y })
  end)

  it("lets k x k elements share a pixel when even one pixel each does not fit", function()
    local l = shmap.regions({ { rows = 300, cols = 200 } }, 100, 60, 2)
    assert.are.same({ 1, 6, 34, 50, 33, 5 }, { l.f, l.k, l.regions[1].cw, l.regions[1].ch, l.regions[1].x, l.regions[1].y })
    l = shmap.regions({ { rows = 1, cols = 1 }, { rows = 1, cols = 1 }, { rows = 1, cols = 1 } }, 3, 3, 1)
    assert.are.equal(2, l.hidden)
    assert.are.same({ true, false, false }, { l.regions[1].shown, l.regions[2].shown, l.regions[3].shown })
  end)
end)

describe("retrace.shmap.view on the strsv example (three groups of flops, 2 loads, 1 store)", function()
  local function run(pes, opts)
    local t = assert(shmap.open(STRSV))
    local sim = assert(shmap.sim { trace = t, pes = pes, cache = false })
    local v = assert(shmap.view(sim, opts))
    return t, sim, v
  end

  it("keeps the active PEs of each step", function()
    for _, c in ipairs({ { 4, "012 012 012 012" }, { 2, "01 01 01 01 0 0 0 0" },
                         { 1, "0 0 0 0 0 0 0 0 0 0 0 0" } }) do
      local _, sim, v = run(c[1], { active = true })
      local steps = {}
      repeat
        local _, finished = sim:step(1)
        if not finished or v:info().step > #steps then steps[#steps + 1] = table.concat(v:info().active) end
      until finished
      assert.are.equal(c[2], table.concat(steps, " "))
      local kept = v:active_steps()
      assert.are.equal(#steps, #kept)
      sim:close()
    end
  end)

  it("builds the references histogram of matrix 1, one row per element, row-major", function()
    local t, sim, v = run(4, { refs = true })
    sim:run()
    local st = v:state(t:matrices())
    assert.are.equal(10000, #st.refs)
    local function refs(r, c) return table.concat(st.refs[(r - 1) * 100 + c]) end
    assert.are.equal("012", refs(1, 1))
    assert.are.equal("012", refs(16, 1))
    assert.are.equal("00", refs(17, 1))
    assert.are.equal("11", refs(32, 2))
    assert.are.equal("22", refs(20, 3))
    assert.are.equal("", refs(33, 1))
    assert.are.equal("", refs(1, 2))
    local nonempty = 0
    for _, r in ipairs(st.refs) do if #r > 0 then nonempty = nonempty + 1 end end
    assert.are.equal(16 + 3 * 16, nonempty)
    sim:close()
  end)

  it("counts 16 flashes at P = 3 with F = 0.01 (32 when nothing fades)", function()
    for _, c in ipairs({ { 0.01, 16 }, { 1, 32 } }) do
      local _, sim, v = run(3, { memory = true, fade = c[1] })
      sim:run()
      assert.are.equal(c[2], v:info().flashes)
      sim:close()
    end
  end)

  it("collects nothing for a panel that is off", function()
    local _, sim, v = run(3, { memory = true })
    local g = v:grids()
    assert.is_false(g.refs)
    assert.is_false(g.timeline)
    assert.are.same({}, g.caches)
    sim:run()
    assert.are.same({}, v:active_steps())
    local _, sim2, all = run(3, { memory = true, refs = true, timeline = true, active = true })
    sim2:run()
    assert.is_true(all:info().bytes > v:info().bytes)
    assert.are.equal(v:info().flashes, all:info().flashes)
    sim:close()
    sim2:close()
  end)

  it("refuses a fade period of 0 and a closed simulation", function()
    local t = assert(shmap.open(STRSV))
    local sim = assert(shmap.sim { trace = t, cache = false })
    local v, err = shmap.view(sim, { fade = 0, memory = true })
    assert.is_nil(v)
    assert.matches("fade", err)
    sim:close()
    assert.has_error(function() shmap.view(sim, { memory = true }) end)
  end)
end)

describe("retrace shmap --state", function()
  it("writes the view's state at a step as JSON", function()
    local d = h.temp_dir()
    local code, _, err = h.retrace("shmap", STRSV, "--pes", "4", "--no-cache", "--fade", "1", "--state", "4",
      d .. "/s.json")
    assert.are.equal(0, code, err)
    local st = cjson.decode(h.slurp(d .. "/s.json"))
    assert.are.equal(4, st.step)
    assert.are.equal(0.95, st.time)
    assert.are.same({ 0, 1, 2 }, st.active)
    assert.are.equal(32, st.flashes)
    local m = st.matrices[1]
    assert.are.same({ 1, 100, 100 }, { m.id, m.rows, m.cols })
    -- K = 4: PE 2's loads of rows 1-16 at full brightness; row 17 of columns 1-3 stored by PEs 0-2
    assert.are.equal(2 * 5, m.loads[1][1])
    assert.are.equal(2 * 5, m.loads[16][1])
    assert.are.equal(-1, m.loads[17][4])
    assert.are.same({ 0, 5, 10, -1 }, { m.stores[17][1], m.stores[17][2], m.stores[17][3], m.stores[17][4] })
    assert.are.same({ 0, 1, 2 }, st.refs[1])
    assert.are.same({}, st.refs[2])
    assert.are.same({ 0, 0 }, st.refs[16 * 100 + 1])
    assert.are.equal(1, st.layout.k)
    h.remove_tree(d)
  end)

  it("lists every cache word with the cache on", function()
    local d = h.temp_dir()
    local code, _, err = h.retrace("shmap", STRSV, "--pes", "3", "--cache-size", "64", "--fade", "0.01",
      "--state", "2", d .. "/s.json")
    assert.are.equal(0, code, err)
    local st = cjson.decode(h.slurp(d .. "/s.json"))
    assert.are.equal(1, #st.caches)
    assert.are.equal(64, #st.caches[1])
    -- step 2: PE 0 misses 4 lines (ways 0-3), PEs 1 and 2 hit them: PE 2 last, full brightness
    for w = 1, 16 do assert.are.equal(10, st.caches[1][w]) end
    assert.are.equal(-1, st.caches[1][17])
    assert.are.equal(16, st.flashes)
    -- the load canvas shows PE 0's misses, faded once by PE 1's load
    assert.are.equal(1, st.matrices[1].loads[1][1])
    h.remove_tree(d)
  end)

  it("names the last step when the step is past the end (exit 1)", function()
    local code, _, err = h.retrace("shmap", STRSV, "--pes", "4", "--state", "9", os.tmpname())
    assert.are.equal(1, code)
    assert.matches("step 9 is past the end of the trace %(the last step is 4%)", err)
  end)
end)

describe("retrace shmap usage errors (exit 2)", function()
  for _, c in ipairs({
    { { "--frames", "x", "--fade", "0" }, "--fade: 0 is not a positive" },
    { { "--frames", "x", "--every", "0" }, "--every: 0 is not a positive" },
    { { "--frames", "x", "--panels", "memory,colours" }, "unknown panel 'colours'" },
    { { "--frames", "x", "--size", "12" }, "--size" },
    { { "--frames", "x", "--every", "2", "--per-event" }, "choose one" },
    { { "--fade", "1" }, "only with --frames" },
    { { "--state", "x", "y" }, "--state: step 'x'" },
  }) do
    it(table.concat(c[1], " "), function()
      local code, _, err = h.retrace("shmap", STRSV, table.unpack(c[1]))
      assert.are.equal(2, code, err)
      assert.truthy(err:find(c[2], 1, true), err)
    end)
  end
end)

describe("the SHMAP frame", function()
  local frame = require "retrace.displays.shmap.frame"
  local memory = require "retrace.displays.shmap.memory"

  local function frame_after(steps, opts)
    local t = assert(shmap.open(STRSV))
    local sim = assert(shmap.sim { trace = t, pes = 3, cache = false })
    opts.width, opts.height = 1000, 500
    local f = assert(frame.new(sim, t, opts))
    sim:step(steps)
    local cv = canvas.image(1000, 500)
    cv:background("white")
    f:update()
    f:draw(cv)
    return cv, f, sim
  end

  it("paints element centres in the palette colour of the last accessing PE", function()
    for _, gray in ipairs({ false, true }) do
      local cv, f, sim = frame_after(4, { panels = { "memory", "legend" }, fade = 10, gray = gray })
      local d = f:data().panels.memory
      assert.is_true(d.f >= 3)
      -- gray mode draws with the frame's own banded gray palette (frame.gray_palette)
      local cp = colors.processors(3, { shades = 4 })
      local pal = { pe = function(_, p, s) return p * 5 + s end,
                    hex = function(_, i) return gray and f.ctx.palette:hex(i) or cp:hex(i) end }
      local function probe(which, r, c) return hex_at(cv, memory.element_center(d, 1, r, c, which)) end
      -- loads: rows 1-16 of column 1 last by PE 2 (step 2); rows 17-32 of column c by PE c-1 (step 3)
      assert.are.equal(pal:hex(pal:pe(2, 0)), probe("loads", 1, 1))
      assert.are.equal(pal:hex(pal:pe(2, 0)), probe("loads", 16, 1))
      assert.are.equal(pal:hex(pal:pe(0, 0)), probe("loads", 17, 1))
      assert.are.equal(pal:hex(pal:pe(1, 0)), probe("stores", 32, 2))
      assert.are.equal(pal:hex(pal:pe(2, 0)), probe("stores", 20, 3))
      assert.are.equal("#000000", probe("loads", 50, 50))
      assert.are.equal("#000000", probe("stores", 1, 1))
      -- the legend's swatches hold the same colours
      local lg = f:data().panels.legend
      for p = 0, 2 do
        local it = lg.items[p + 1]
        assert.are.equal(pal:hex(pal:pe(p, 0)), hex_at(cv, it.x + it.w / 2, it.y + it.h / 2))
      end
      sim:close()
    end
  end)

  it("draws a flashed cell black for one frame when frames are per event", function()
    local t = assert(shmap.open(STRSV))
    local sim = assert(shmap.sim { trace = t, pes = 3, cache = false })
    local f = assert(frame.new(sim, t, { panels = { "memory" }, width = 1000, height = 500, fade = 10,
                                         per_event = true }))
    -- step 1: three flops events; step 2: PEs 0, 1, 2 load rows 1-16 of column 1 in turn
    sim:step_events(6)
    local cv = canvas.image(1000, 500)
    f:update()
    f:draw(cv)
    local d = f:data().panels.memory
    assert.are.same({ loads = 16, stores = 0 }, d.flashed)
    assert.are.equal("#000000", hex_at(cv, memory.element_center(d, 1, 1, 1, "loads")))
    -- the next frame: the flash is over, the cell shows PE 2
    f.view:new_frame()
    sim:step_events(1)
    f:draw(cv)
    local pal = colors.processors(3, { shades = 4 })
    assert.are.same({ loads = 0, stores = 0 }, f:data().panels.memory.flashed)
    assert.are.equal(pal:hex(pal:pe(2, 0)), hex_at(cv, memory.element_center(d, 1, 1, 1, "loads")))
    sim:close()
  end)

  it("fades a cell one shade per period of trace time", function()
    -- F = 0.01: PE 0's load at 0.93333 is faded by PE 1's at 0.95; after step 2, rows 1-16 are PE 2's
    -- (full), after step 3 the new loads of rows 17-32 of column 1 (0.93333, PE 0) stay full since
    -- the clock stays 0.95
    local cv, f, sim = frame_after(3, { panels = { "memory" }, fade = 0.01 })
    local d = f:data().panels.memory
    local pal = colors.processors(3, { shades = 4 })
    assert.are.equal(pal:hex(pal:pe(2, 0)), hex_at(cv, memory.element_center(d, 1, 1, 1, "loads")))
    sim:close()
  end)

  it("renders a declared 2^20 x 2^20 matrix with k x k elements per pixel, and says so", function()
    local p = h.temp_file("0 1 1048576 1048576\n1 1 1 1 1 1 1.0\n2 1 1048576 1048576 1048576 1048576 2.0\n")
    local t = assert(shmap.open(p))
    local sim = assert(shmap.sim { trace = t, cache = false })
    local f = assert(frame.new(sim, t, { panels = "all", width = 640, height = 400, fade = 10 }))
    sim:run()
    local cv = canvas.image(640, 400)
    f:update()
    f:draw(cv)
    local d = f:data().panels.memory
    assert.is_true(d.k > 1000)
    assert.matches("elements share a pixel", d.note)
    local pal = colors.processors(1, { shades = 4 })
    assert.are.equal(pal:hex(0), hex_at(cv, memory.element_center(d, 1, 1, 1, "loads")))
    assert.are.equal(pal:hex(0), hex_at(cv, memory.element_center(d, 1, 1048576, 1048576, "stores")))
    sim:close()
    os.remove(p)
  end)
end)

describe("the SHMAP displays", function()
  it("follow the display protocol, and examples/shmap/animate.lua lays them out its own way", function()
    local display = require "retrace.display"
    for _, name in ipairs({ "memory", "cache", "active", "refs", "timeline", "stats", "legend" }) do
      local m = require("retrace.displays.shmap." .. name)
      local d = m.new({ info = { time_first = 0, time_last = 1 } })
      assert.are.equal(d, display.check(d))
      assert.is_function(m.view_opts)
    end
    local dir = h.temp_dir()
    local code, out, err = h.retrace(h.source .. "/examples/shmap/animate.lua", STRSV, dir, "3", "2")
    assert.are.equal(0, code, err)
    assert.matches("^2 frames", out)
    local img = assert(canvas.load_png(dir .. "/frame_000002.png"))
    assert.are.same({ 1280, 720 }, { img:size() })
    h.remove_tree(dir)
  end)
end)

describe("retrace shmap --frames", function()
  local function files_of(dir)
    local out = {}
    for name in require("lfs").dir(dir) do
      if name:match("%.png$") then out[#out + 1] = name end
    end
    table.sort(out)
    return out
  end

  it("writes the same frames byte for byte run after run", function()
    local d = h.temp_dir()
    for _, sub in ipairs({ "a", "b" }) do
      local code, out, err = h.retrace("shmap", STRSV, "--pes", "3", "--cache-size", "64", "--frames",
        d .. "/" .. sub, "--panels", "all", "--size", "640x400", "--fade", "0.01")
      assert.are.equal(0, code, err)
      assert.matches("4 frames %(640 x 400%)", out)
    end
    local a, b = files_of(d .. "/a"), files_of(d .. "/b")
    assert.are.same(a, b)
    assert.are.equal(4, #a)
    for _, name in ipairs(a) do
      assert.is_true(h.slurp(d .. "/a/" .. name) == h.slurp(d .. "/b/" .. name), name .. " differs")
    end
    h.remove_tree(d)
  end)

  it("draws one frame per event with --per-event, and by trace time with --every-time", function()
    local d = h.temp_dir()
    local code, out = h.retrace("shmap", STRSV, "--pes", "3", "--frames", d .. "/e", "--per-event",
      "--size", "320x200")
    assert.are.equal(0, code)
    assert.matches("^12 frames", out)
    code, out = h.retrace("shmap", STRSV, "--pes", "1", "--frames", d .. "/t", "--every-time", "0.5",
      "--size", "320x200")
    assert.are.equal(0, code)
    -- 12 steps at P = 1; time 0 until step 2 (0.93333): one frame there, then none until the end
    assert.matches("^2 frames", out)
    -- a period far below the times' resolution: a frame per step that moves the time,
    -- never a loop per period over the gaps between step times
    code, out = h.retrace("shmap", STRSV, "--pes", "1", "--frames", d .. "/tiny", "--every-time", "1e-300",
      "--size", "320x200")
    assert.are.equal(0, code)
    local tiny = tonumber(out:match("^(%d+) frames"))
    assert.is_true(tiny >= 2 and tiny <= 13, out)
    code, out = h.retrace("shmap", STRSV, "--pes", "1", "--frames", d .. "/r", "--from", "3", "--to", "5",
      "--size", "320x200")
    assert.are.equal(0, code)
    assert.matches("^3 frames", out)
    h.remove_tree(d)
  end)

  it("makes about 100 frames when no pace is given, whatever the run's length", function()
    local d = h.temp_dir()
    for _, n in ipairs { 16, 32 } do
      local trace = d .. "/lu" .. n .. ".shm"
      local code, _, err = h.retrace(h.source .. "/examples/shmap/lu.lua", "kji", tostring(n), trace)
      assert.are.equal(0, code, err)
      local jcode, jout = h.retrace("shmap", trace, "--pes", "4", "--json")
      assert.are.equal(0, jcode)
      local steps = math.tointeger(require("cjson").decode(jout).steps)
      assert.is_true(steps > 200, steps)
      local out
      code, out, err = h.retrace("shmap", trace, "--pes", "4", "--frames", d .. "/f" .. n, "--size", "320x200")
      assert.are.equal(0, code, err)
      local frames = tonumber(out:match("^(%d+) frames"))
      -- a frame every round(steps / 100) steps: between 67 and 150 frames
      assert.is_true(frames >= 66 and frames <= 151, ("%d steps: %s frames"):format(steps, tostring(frames)))
    end
    h.remove_tree(d)
  end)

  it("puts several traces side by side with --compare, one step of each per frame", function()
    local d = h.temp_dir()
    local code, out, err = h.retrace("shmap", STRSV, STRSV, "--pes", "1", "--compare", "--frames", d,
      "--size", "640x300", "--panels", "memory,active")
    assert.are.equal(0, code, err)
    assert.matches("^12 frames", out)
    code, _, err = h.retrace("shmap", STRSV, STRSV, "--frames", d)
    assert.are.equal(2, code)
    assert.matches("%-%-compare", err)
    h.remove_tree(d)
  end)

  it("plays in a headless browser", function()
    local browser
    for _, name in ipairs({ "chromium", "chromium-browser" }) do
      if not browser and os.execute("command -v " .. name .. " >/dev/null 2>&1") then browser = name end
    end
    if not browser then
      pending("chromium is not installed (make deps installs it): player not tested in a browser")
      return
    end
    local d = h.temp_dir()
    local code, _, err = h.retrace("shmap", STRSV, "--pes", "1", "--frames", d, "--html", "--size", "320x200",
      "--panels", "memory,stats")
    assert.are.equal(0, code, err)
    local driver = [[
<script>
window.addEventListener("load", function () {
  const img = document.getElementById("frame");
  const counter = document.getElementById("counter");
  const log = ["loaded=" + counter.textContent + "|" + img.naturalWidth];
  document.getElementById("play").click();
  setTimeout(function () {
    log.push("played=" + counter.textContent + "|" + img.naturalWidth);
    const pre = document.createElement("pre");
    pre.id = "testlog";
    pre.textContent = log.join("\n");
    document.body.appendChild(pre);
  }, 450);
});
</script>
</body>]]
    local page = h.slurp(d .. "/index.html"):gsub("</body>", function() return driver end)
    local f = assert(io.open(d .. "/test.html", "wb"))
    f:write(page)
    f:close()
    local profile = h.temp_dir()
    local p = io.popen(string.format("%s --headless --no-sandbox --disable-gpu --disable-quic --no-first-run " ..
      "--disable-background-networking --disable-component-update --disable-sync --user-data-dir=%s " ..
      "--virtual-time-budget=4000 --dump-dom %s 2>/dev/null", browser, h.quote(profile),
      h.quote("file://" .. d .. "/test.html")))
    local dom = p:read("a")
    p:close()
    h.remove_tree(profile)
    local log = dom:match('<pre id="testlog">(.-)</pre>')
    assert.truthy(log, dom:sub(1, 2000))
    assert.matches("loaded=frame 1 / 12|320", log)
    local played = tonumber(log:match("played=frame (%d+) / 12|320"))
    assert.is_true(played and played >= 3, log)
    h.remove_tree(d)
  end)
end)
