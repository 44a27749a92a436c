-- retrace paragraph at scale (part 2): whole-window pictures from the C raster
-- (--static), the chrome-json export, and the critical path kept in bounded
-- memory. Values worked out by hand (hand4.trf: see tests/fixtures/paragraph
-- and the pgengine notes) or in closed form (a generated 4096-processor trace).
local h = require "helpers"
require "retrace"
local cjson = require "cjson"
local colors = require "retrace.colors"
local display = require "retrace.display"
local pg = require "retrace.paragraph"
local pgscale = require "retrace.pgscale"
local replay = require "retrace.replay"
local whole_run = require "retrace.displays.paragraph.whole_run"

local hand4 = h.fixtures .. "/paragraph/hand4.trf"

-- Generated: 4096 processors, processor p busy (user event 1) from s_p = p % 100
-- to 100 s; those with p % 8 < 5 and s_p < 90 in a send (overhead) from 90 to
-- 100. Cell c of the raster covers [c, c + 1) s with 100 columns, so each
-- processor is in one state for the whole cell:
--   overhead if it sends and c >= 90, busy if s_p <= c, else idle.
local P = 4096
local function s_of(p) return p % 100 end
local function sends(p) return p % 8 < 5 and s_of(p) < 90 end
local function state_of(p, c)
  if sends(p) and c >= 90 then return "overhead" end
  if s_of(p) <= c then return "busy" end
  return "idle"
end
-- the state that holds most of a row's time (ties: busy, overhead, idle)
local function dominant(procs, c)
  local n = { busy = 0, overhead = 0, idle = 0 }
  for _, p in ipairs(procs) do local s = state_of(p, c); n[s] = n[s] + 1 end
  if n.busy >= n.overhead and n.busy >= n.idle then return "busy" end
  if n.overhead >= n.idle then return "overhead" end
  return "idle"
end

local generated
local function gen_trace()
  if generated then return generated end
  local ev = {}
  for p = 0, P - 1 do
    ev[#ev + 1] = { s_of(p), 0, string.format("-3 1 %d %d 0 0", s_of(p), p) }
    if sends(p) then
      ev[#ev + 1] = { 90, 1, string.format("-3 -21 90 %d 0 3 2 8 1 %d", p, (p + 1) % P) }
      ev[#ev + 1] = { 100, 0, string.format("-4 -21 100 %d 0 0", p) }
    end
    ev[#ev + 1] = { 100, 1, string.format("-4 1 100 %d 0 0", p) }
  end
  table.sort(ev, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    return a[3] < b[3]
  end)
  local lines = {}
  for i, e in ipairs(ev) do lines[i] = e[3] end
  generated = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
  return generated
end

describe("retrace paragraph --static", function()
  it("the raster of hand4 holds the hand schedule, a row per processor", function()
    local info = assert(pg.prescan(hand4))
    local r = assert(pgscale.raster(hand4, info, { cols = 12, rows = 4, t0 = 0, t1 = 12 }))
    local want = {
      [0] = "BOBOBBBBIIII", [1] = "BBIBOBBBBIII", [2] = "IBBBBIBOBOII", [3] = "BBBBBBBBIBII" }
    local letter = { busy = "B", overhead = "O", idle = "I" }
    for row = 0, 3 do
      local got = {}
      for c = 0, 11 do got[#got + 1] = letter[r:cell(c, row)] end
      assert.are.equal(want[row], table.concat(got), "processor " .. row)
    end
    assert.are.equal(5, r.messages)
    assert.are.equal(0, r.tachyons)
    local l = r:line_list()
    assert.are.equal(5, #l)
    table.sort(l, function(a, b) return a.send < b.send end)
    assert.are.same({ 0, 1, 1, 3 }, { l[1].src, l[1].dst, l[1].send, l[1].recv })
    assert.are.same({ 2, 3, 9, 12 }, { l[5].src, l[5].dst, l[5].send, l[5].recv })
  end)

  it("a subset of processors (--procs 1,3) keeps only their rows and the messages between them", function()
    local info = assert(pg.prescan(hand4))
    local sel = assert(pgscale.parse_procs("3,1", info.P))
    assert.are.same({ 1, 3 }, sel)
    local r = assert(pgscale.raster(hand4, info, { cols = 12, rows = 4, t0 = 0, t1 = 12, sel = sel }))
    assert.are.equal(2, r.rows)
    assert.are.same({ 1 }, r:row_procs(0))
    assert.are.same({ 3 }, r:row_procs(1))
    assert.are.equal("idle", r:cell(2, 0))      -- processor 1 waits 2..3
    assert.are.equal("idle", r:cell(8, 1))      -- processor 3 waits 8..9
    assert.are.equal(1, r.messages)             -- only 1 -> 3 (sent 4, received 9)
    local l = r:line_list()[1]
    assert.are.same({ 1, 3, 4, 9 }, { l.src, l.dst, l.send, l.recv })
  end)

  it("--mix: a row of two processors tells the share of each state (in quarters)", function()
    local info = assert(pg.prescan(hand4))
    local r = assert(pgscale.raster(hand4, info, { cols = 12, rows = 2, t0 = 0, t1 = 12, mix = 4 }))
    assert.are.same({ 0, 1 }, r:row_procs(0))
    -- row 0 = processors 0 and 1: 1..2 s overhead + busy, 2..3 busy + idle, 9..10 idle + idle
    assert.are.same({ 2, 2, 0 }, { r:cell(1, 0) })
    assert.are.same({ 2, 0, 2 }, { r:cell(2, 0) })
    assert.are.same({ 0, 0, 4 }, { r:cell(9, 0) })
    -- row 1 = processors 2 and 3: 7..8 overhead + busy, 0..1 idle + busy
    assert.are.same({ 2, 2, 0 }, { r:cell(7, 1) })
    assert.are.same({ 2, 0, 2 }, { r:cell(0, 1) })
    -- and the picture blends the state colours by those shares
    local d = whole_run.picture({ "gantt" }, { 0, 1, 2, 3 }, 0, 12, 600, 300, function()
      return r
    end)
    local cv, data = display.image(d, 600, 300)
    local g = data.panels[1].data
    local pal = whole_run.mix_palette(4)
    local row0 = g.rows[1]
    local x = g.plot.x + 2.5 / 12 * g.plot.w
    assert.are.equal(pal:hex(2 * 5 + 0), h.pixel_hex(cv, x, row0.y + row0.h / 2))
  end)

  it("beyond max_lines the messages become a per-pixel density", function()
    local info = assert(pg.prescan(hand4))
    local r = assert(pgscale.raster(hand4, info, { cols = 12, rows = 4, t0 = 0, t1 = 12, max_lines = 2 }))
    assert.is_nil(r.lines)
    assert.are.equal(5, r.messages)
    -- the lines 0->2 (3..6) and 1->3 (4..9) both cross row 1 in column 4: the most crossed cells hold 2
    assert.are.equal(2, r.max_count)
    local lv = string.unpack("i4", r.density, 1 + 4 * (1 * 12 + 4))
    assert.are.equal(7, lv)                     -- the top of 8 levels
    assert.are.equal(-1, string.unpack("i4", r.density, 1 + 4 * (0 * 12 + 11)))
  end)

  it("the static Gantt of a generated 4096-processor trace has the closed-form colours", function()
    local path = gen_trace()
    local info = assert(pg.prescan(path))
    assert.are.equal(P, info.P)
    -- the raster: 100 columns of 1 s, 512 rows of 8 processors
    local r = assert(pgscale.raster(path, info, { cols = 100, rows = 512, t0 = 0, t1 = 100 }))
    assert.are.equal(512, r.rows)
    local bad = 0
    for row = 0, 511 do
      local procs = r:row_procs(row)
      assert.are.equal(8, #procs)
      for c = 0, 99 do
        if r:cell(c, row) ~= dominant(procs, c) then bad = bad + 1 end
      end
    end
    assert.are.equal(0, bad)
    -- the picture: pixel probes through data() (rows of the plot's height, each naming its processors)
    local sel = {}
    for p = 0, P - 1 do sel[p + 1] = p end
    local d, rr = whole_run.picture({ "gantt" }, sel, 0, 100, 900, 600, function(cols, rows)
      return pgscale.raster(path, info, { cols = cols, rows = rows, t0 = 0, t1 = 100 })
    end)
    local cv, data = display.image(d, 900, 600)
    local g = data.panels[1].data
    assert.are.equal(rr.rows, #g.rows)
    assert.is_true(rr.rows < P and rr.rows > 100)
    local hex = { busy = colors.hex(colors.state("busy")), overhead = colors.hex(colors.state("overhead")),
                  idle = colors.hex(colors.state("idle")) }
    local checked = 0
    for _, row in ipairs({ 0, 37, 200, #g.rows - 1 }) do
      local info_row = g.rows[row + 1]
      local procs = {}
      for p = info_row.first, info_row.last do procs[#procs + 1] = p end
      assert.are.equal(info_row.count, #procs)
      for _, t in ipairs({ 2.5, 30.5, 60.5, 95.5 }) do
        -- a column inside the second [floor(t), floor(t)+1): all its time in one state per processor
        local x = g.plot.x + t / 100 * g.plot.w
        local col = math.floor(t / 100 * rr.cols)
        local c0, c1 = col * 100 / rr.cols, (col + 1) * 100 / rr.cols
        if math.floor(c0) == math.floor(c1 - 1e-9) then
          local y = info_row.y + info_row.h / 2
          assert.are.equal(hex[dominant(procs, math.floor(t))], h.pixel_hex(cv, x, y),
            string.format("row %d (processors %d..%d) at %.1f s", row, info_row.first, info_row.last, t))
          checked = checked + 1
        end
      end
    end
    assert.is_true(checked >= 12)
  end)

  it("writes PNG, PDF and SVG and says what it drew", function()
    for _, ext in ipairs({ "png", "pdf", "svg" }) do
      local out = os.tmpname() .. "." .. ext
      local code, so, err = h.retrace("paragraph", hand4, "--static", "-o", out, "--size", "800x500", "--json")
      assert.are.equal(0, code, err)
      local s = cjson.decode(so)
      assert.are.equal(4, s.static.rows)
      assert.are.equal(5, s.static.messages)
      assert.are.equal("lines", s.static.mode)
      assert.are.equal(2, #s.static.panels)
      assert.are.same({ first = 3, last = 3, count = 1 },
        { first = s.static.panels[1].rows[4].first, last = s.static.panels[1].rows[4].last,
          count = s.static.panels[1].rows[4].count })
      local f = assert(io.open(out, "rb"))
      assert.is_true(#f:read("a") > 500)
      f:close()
      os.remove(out)
    end
  end)

  it("a zoom window and a processor subset", function()
    local out = os.tmpname() .. ".png"
    local code, so, err = h.retrace("paragraph", hand4, "--static", "-o", out, "--zoom", "2:10", "--procs", "0-1",
      "--json")
    assert.are.equal(0, code, err)
    local s = cjson.decode(so)
    assert.are.same({ 2, 10 }, s.window)
    assert.are.equal(2, s.drawn)
    assert.are.equal(1, s.static.messages)      -- 0 -> 1 only (received at 3, inside the window)
    os.remove(out)
  end)

  it("usage errors: bad --procs, --zoom, output, display", function()
    local cases = {
      { { "--static", "-o", "x.png", "--procs", "0-9" }, "processors 0..3" },
      { { "--static", "-o", "x.png", "--procs", "3-1" }, "backwards" },
      { { "--static", "-o", "x.png", "--zoom", "5:2" }, "T0 must be before T1" },
      { { "--static", "-o", "x.png", "--zoom", "50:60" }, "outside the trace" },
      { { "--static", "-o", "x.txt" }, "F.png" },
      { { "--static", "-o", "x.png", "--display", "kiviat" }, "not 'kiviat'" },
      { { "--export", "csv", "x" }, "use chrome-json" },
      { {}, "-o DIR is needed" },
    }
    for _, c in ipairs(cases) do
      local code, _, err = h.retrace("paragraph", hand4, table.unpack(c[1]))
      assert.are.equal(2, code, err)
      assert.truthy(err:find(c[2], 1, true), err)
    end
  end)
end)

describe("retrace paragraph --export chrome-json", function()
  it("hand4: 24 state and 7 user complete events, 5 flows, 4 processes of 2 tracks, valid JSON", function()
    local out = os.tmpname() .. ".json"
    local code, so, err = h.retrace("paragraph", hand4, "--export", "chrome-json", out)
    assert.are.equal(0, code, err)
    assert.truthy(so:find("31 complete and 10 flow events", 1, true), so)
    local doc = cjson.decode(h.slurp(out))
    local n = {}
    for _, e in ipairs(doc.traceEvents) do
      local k = e.ph .. ":" .. tostring(e.cat)
      n[k] = (n[k] or 0) + 1
    end
    -- states by hand: P0 6 (B O B O B I), P1 6 (B I B O B I), P2 8 (I B I B O B O I), P3 4 (B I B I;
    -- the zero-length busy at 11 s leaves one idle 10..12)
    assert.are.equal(24, n["X:state"])
    -- user events: P0 1 and 2, P1 1 and 2, P2 2, P3 1 and 2
    assert.are.equal(7, n["X:user"])
    assert.are.equal(5, n["s:message"])
    assert.are.equal(5, n["f:message"])
    -- per processor: its process name and sort index, and its states and regions tracks
    assert.are.equal(16, n["M:nil"])
    -- processor 3's states in microseconds
    local p3 = {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "X" and e.cat == "state" and e.pid == 4 then
        assert.are.equal(1, e.tid) -- the states track
        p3[#p3 + 1] = { e.name, e.ts, e.dur }
      end
    end
    table.sort(p3, function(a, b) return a[2] < b[2] end)
    assert.are.same({ { "busy", 0, 8e6 }, { "idle", 8e6, 1e6 }, { "busy", 9e6, 1e6 }, { "idle", 10e6, 2e6 } }, p3)
    -- every flow start has its end with the same id, on the receiver
    local starts = {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "s" then starts[e.id] = e end
    end
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "f" then
        assert.truthy(starts[e.id])
        assert.are.equal("e", e.bp)
        assert.is_true(e.ts >= starts[e.id].ts)
      end
    end
    os.remove(out)
  end)

  it("an unwritable file or a missing trace is an input error (exit 1, one line naming it)", function()
    -- a plain file where a folder should be: nothing can be written below it (even as root)
    local file = h.temp_file("not a folder")
    local cases = {
      { { hand4, "--export", "chrome-json", file .. "/x.json" }, file .. "/x.json" },
      { { hand4, "--timeline-html", file .. "/x.html" }, file .. "/x.html" },
      { { hand4, "--static", "-o", file .. "/x.png" }, file },
      { { "/nonexistent/trace.trf", "--static", "-o", "x.png" }, "/nonexistent/trace.trf" },
    }
    for _, c in ipairs(cases) do
      local code, _, err = h.retrace("paragraph", table.unpack(c[1]))
      assert.are.equal(1, code, err)
      assert.truthy(err:find(c[2], 1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")), err)
    end
  end)
end)

describe("the critical path in bounded memory", function()
  -- a 16-processor ring where every receive is entered before its message is
  -- sent: 16 waits a step, so 400 steps keep 6400 waits, past the 4096 held in
  -- memory (the rest go through the temporary file). The path: back from
  -- processor 15's last receive, one message per step, 400 in all.
  it("a path through more waits than one memory block", function()
    local lines, t = {}, 0
    local function add(s) lines[#lines + 1] = s end
    for step = 0, 399 do
      for p = 0, 15 do t = t + 1; add(string.format("-3 -52 %d %d 0 2 2 %d %d", t, p, step % 8, (p + 15) % 16)) end
      for p = 0, 15 do
        t = t + 1; add(string.format("-3 -21 %d %d 0 3 2 1024 %d %d", t, p, step % 8, (p + 1) % 16))
        t = t + 1; add(string.format("-4 -21 %d %d 0 0", t, p))
      end
      for p = 0, 15 do t = t + 1; add(string.format("-4 -52 %d %d 0 3 2 1024 %d %d", t, p, step % 8, (p + 15) % 16)) end
    end
    local path = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
    local rp = assert(replay.open(path, { critical_path = true }))
    rp:run()
    local cp = rp:critical_path()
    assert.are.equal(400, #cp.messages)
    assert.are.equal(401, #cp.segments)
    -- step k (0-based, 64 records of 1 s): the path leaves processor 14 at its send, 16 + 2*14 + 1 s into the step
    -- (the send's entry), and ends at processor 15's receive at the step's end
    local last = cp.messages[400]
    assert.are.equal(14, last.src)
    assert.are.equal(15, last.dst)
    assert.are.equal(399 * 64 + 16 + 29, last.send_time)
    assert.are.equal(400 * 64, cp.segments[401].to)
    -- the same through retrace stats --json, with the display data keys
    local code, so, err = h.retrace("stats", "--json", path)
    assert.are.equal(0, code, err)
    local j = cjson.decode(so).critical_path
    assert.are.equal(400, #j.messages)
    assert.are.same({ src = 14, dst = 15, send = 399 * 64 + 16 + 29, recv = 400 * 64, bytes = 1024 }, j.messages[400])
    assert.are.same({ proc = 15, from = 400 * 64, to = 400 * 64 }, j.segments[401])
    assert.are.equal(cp.length, j.length)
    os.remove(path)
  end)

  it("stats --json of hand4: the path follows messages sent before the waits they ended", function()
    -- back from P3 (last 12): its wait 11..12 ended by P2's 50 B sent at 9 -> P2 at 9; P2's wait 5..6
    -- ended by P0's 200 B sent at 3 -> P0 at 3, down to 0. 3 + 3 + 0 on processors, 3 + 3 in transfer: 12
    local code, so, err = h.retrace("stats", "--json", hand4)
    assert.are.equal(0, code, err)
    local j = cjson.decode(so)
    assert.are.same({ length = 12,
      segments = { { proc = 0, from = 0, to = 3 }, { proc = 2, from = 6, to = 9 }, { proc = 3, from = 12, to = 12 } },
      messages = { { src = 0, dst = 2, send = 3, recv = 6, bytes = 200 }, { src = 2, dst = 3, send = 9, recv = 12, bytes = 50 } } },
      j.critical_path)
    -- tasks: 1 spans 0..12 (100 %), 2 spans 1..9 (8 of 12 s)
    assert.are.equal(2, #j.tasks)
    assert.are.same({ 1, 0, 12, 100 }, { j.tasks[1].id, j.tasks[1].start, j.tasks[1]["end"], j.tasks[1].percent })
    assert.are.same({ 2, 1, 9 }, { j.tasks[2].id, j.tasks[2].start, j.tasks[2]["end"] })
    assert.is_true(math.abs(j.tasks[2].percent - 800 / 12) < 1e-9)
  end)
end)

describe("retrace paragraph --timeline-html", function()
  local function chromium()
    for _, name in ipairs({ "chromium", "chromium-browser" }) do
      if os.execute("command -v " .. name .. " >/dev/null 2>&1") then return name end
    end
  end

  it("writes one file whose levels halve down to 16 columns", function()
    local out = os.tmpname() .. ".html"
    local code, so, err = h.retrace("paragraph", hand4, "--timeline-html", out, "--json")
    assert.are.equal(0, code, err)
    local s = cjson.decode(so).timeline_html
    -- 8192, 4096, ..., 16 columns: 10 levels
    assert.are.equal(10, s.levels)
    assert.are.same({ 8192, 4, 5 }, { s.cols, s.rows, s.messages })
    local page = h.slurp(out)
    assert.is_nil(page:find("src=\"http", 1, true))   -- nothing fetched: it opens from disk
    assert.is_nil(page:find("{{", 1, true))
    os.remove(out)
  end)

  it("loads, zooms with the wheel and tells what is under the pointer in headless chromium", function()
    local browser = chromium()
    if not browser then
      pending("chromium is not installed (make deps installs it): timeline not tested in a browser")
      return
    end
    local d = h.temp_dir()
    local out = d .. "/t.html"
    local code, _, err = h.retrace("paragraph", hand4, "--timeline-html", out)
    assert.are.equal(0, code, err)
    -- the real page plus a driver using it as a person would: wheel over the Gantt chart, then hover
    local driver = [[
<script>
window.addEventListener("load", function () {
  const log = [];
  const c = document.getElementById("gantt");
  const seen = function (tag) { log.push(tag + "=" + document.body.getAttribute("data-level") + "|" +
                                          document.body.getAttribute("data-window")); };
  seen("loaded");
  const box = c.getBoundingClientRect(), ax = window.pgtimeline.ax;
  for (let i = 0; i < 12; i++)
    c.dispatchEvent(new WheelEvent("wheel", { deltaY: -100, clientX: box.left + ax + (c.width - ax) / 2,
                                              clientY: box.top + 20, bubbles: true, cancelable: true }));
  seen("zoomed");
  // hover over processor 0 (the bottom row) in the middle of the view
  c.dispatchEvent(new MouseEvent("mousemove", { clientX: box.left + ax + (c.width - ax) / 2,
                                               clientY: box.top + c.height - 20 - 5, bubbles: true }));
  log.push("tip=" + String(window.pgtip).replace(/\n/g, "/"));
  const pre = document.createElement("pre");
  pre.id = "testlog";
  pre.textContent = log.join("\n");
  document.body.appendChild(pre);
});
</script>
</body>]]
    local page = h.slurp(out):gsub("</body>", function() return driver end)
    local f = assert(io.open(d .. "/test.html", "wb"))
    f:write(page)
    f:close()
    local profile = h.temp_dir()
    local p = io.popen(string.format("%s --headless --no-sandbox --disable-gpu --no-first-run " ..
      "--user-data-dir=%s --window-size=1300,900 --virtual-time-budget=3000 --dump-dom %s 2>/dev/null",
      browser, h.quote(profile), h.quote("file://" .. d .. "/test.html")))
    local dom = p:read("a")
    p:close()
    h.remove_tree(profile)
    local log = dom:match('<pre id="testlog">(.-)</pre>')
    assert.truthy(log, "no test log in the page:\n" .. dom:sub(1, 2000))
    local got = {}
    for tag, level, a, b in log:gmatch("(%w+)=(%d+)|(%S+) (%S+)") do
      got[tag] = { level = tonumber(level), a = tonumber(a), b = tonumber(b) }
    end
    -- whole run first, at a coarser level than the finest
    assert.are.same({ 0, 12 }, { got.loaded.a, got.loaded.b })
    assert.is_true(got.loaded.level > 0, log)
    -- twelve wheel steps of 0.8 around the middle (6 s): 12 * 0.8^12 = 0.824 s wide, centred on 6 s
    assert.is_true(math.abs((got.zoomed.b - got.zoomed.a) - 12 * 0.8 ^ 12) < 1e-6, log)
    assert.is_true(math.abs((got.zoomed.a + got.zoomed.b) / 2 - 6) < 0.02, log)
    assert.is_true(got.zoomed.level < got.loaded.level, log)
    -- processor 0 is busy 4..8
    local tip = log:match("tip=([^\n]*)")
    assert.truthy(tip:find("processor 0/", 1, true), tip)
    assert.truthy(tip:find("busy", 1, true), tip)
    h.remove_tree(d)
  end)
end)

describe("retrace paragraph --data: CSV files", function()
  local function read_csv(path)
    local rows, header = {}, nil
    for line in io.lines(path) do
      local f = {}
      for v in line:gmatch("[^,]+") do f[#f + 1] = tonumber(v) or v end
      if not header then header = f else rows[#rows + 1] = f end
    end
    return header, rows
  end

  it("hold hand4's state intervals, messages, tasks, concurrency profile and matrix, read back exactly", function()
    local out, data = h.temp_dir(), h.temp_dir()
    local code, _, err = h.retrace("paragraph", hand4, "-o", out, "--display", "gantt", "--pace", "time:6",
      "--unit", "s", "--data", data)
    assert.are.equal(0, code, err)
    local hd, st = read_csv(data .. "/states.csv")
    assert.are.same({ "proc", "state", "start", "end" }, hd)
    local p2 = {}
    for _, r in ipairs(st) do if r[1] == 2 then p2[#p2 + 1] = { r[2], r[3], r[4] } end end
    assert.are.same({ { "idle", 0, 1 }, { "busy", 1, 5 }, { "idle", 5, 6 }, { "busy", 6, 7 }, { "overhead", 7, 8 },
                      { "busy", 8, 9 }, { "overhead", 9, 10 }, { "idle", 10, 12 } }, p2)
    assert.are.equal(24, #st)
    local _, ms = read_csv(data .. "/messages.csv")
    assert.are.same({ { 0, 1, 5, 100, 1, 3 }, { 0, 2, 5, 200, 3, 6 }, { 1, 3, 7, 300, 4, 9 }, { 2, 3, 7, 400, 7, 11 },
                      { 2, 3, 8, 50, 9, 12 } }, ms)
    local _, tk = read_csv(data .. "/tasks.csv")
    assert.are.same({ 1, 0, 12, 100, 3 }, tk[1])
    assert.are.same({ 2, 1, 9 }, { tk[2][1], tk[2][2], tk[2][3] })
    assert.are.equal(800 / 12, tk[2][4])              -- %.17g reads back to the same double
    -- seconds with exactly k processors busy / in overhead / idle (worked out from the schedule)
    local _, cc = read_csv(data .. "/concurrency.csv")
    assert.are.same({ { 0, 2, 7, 5 }, { 1, 1, 5, 3 }, { 2, 1, 0, 2 }, { 3, 7, 0, 0 }, { 4, 1, 0, 2 } }, cc)
    local _, mx = read_csv(data .. "/matrix.csv")
    assert.are.same({ { 0, 1, 1, 100 }, { 0, 2, 1, 200 }, { 1, 3, 1, 300 }, { 2, 3, 2, 450 } }, mx)
    h.remove_tree(out)
    h.remove_tree(data)
  end)
end)
