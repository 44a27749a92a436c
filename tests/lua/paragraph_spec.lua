-- retrace paragraph: every display value of a hand-made 4-processor trace
-- (tests/fixtures/paragraph/pg4.trf), worked out here by hand, pixel probes
-- through data(), the real traces, and the usage / input errors.
--
-- pg4.trf (seconds): all four processors start busy at 0. Processor 0 nests
-- user event 2 (1..4) and inside it sends 100 B to 1 (overhead 2..3). Processor
-- 1 waits for it in a blocking receive (idle 2..4). Processor 2 sends 2000 B to
-- 3 (overhead 5..6) and has its last record at 6 (idle after it). Processor 3
-- waits for that message 7..8. The span is 0..8.
local h = require "helpers"
local cjson = require "cjson"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local plot = require "retrace.plot"
local pg = require "retrace.paragraph"

local fixture = h.fixtures .. "/paragraph/pg4.trf"

local function read_json(path)
  return cjson.decode(h.slurp(path))
end

-- Run the command on the fixture (a frame every 0.5 s); returns summary, frame(i), dir.
local function run(extra)
  local out, data = h.temp_dir(), h.temp_dir()
  local args = { "paragraph", fixture, "-o", out, "--all", "--pace", "time:0.5", "--unit", "s",
                 "--smoothing", "2", "--data", data }
  local width = true
  for _, a in ipairs(extra or {}) do args[#args + 1] = a; width = width and a ~= "--scale-width" end
  -- the values below are worked out over the whole run: a window as wide as the run (8 s)
  if width then args[#args + 1], args[#args + 2] = "--scale-width", "8" end
  local code, _, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  local function frame(i) return read_json(string.format("%s/frame_%06d.json", data, i)) end
  return read_json(data .. "/summary.json"), frame, out
end

local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end

local function same_list(expected, got, tol)
  assert.are.equal(#expected, #got)
  for i = 1, #expected do
    assert.is_true(close(expected[i], got[i], tol), string.format("[%d]: %s expected, got %s", i, expected[i], got[i]))
  end
end

-- distance between two colours "#rrggbb"
local function cdist(a, b)
  local ar, ag, ab = colors.parse(a)
  local br, bg, bb = colors.parse(b)
  return math.max(math.abs(ar - br), math.abs(ag - bg), math.abs(ab - bb)) * 255
end

describe("retrace.paragraph", function()
  it("orders processors by Gray code, skipping values >= P", function()
    assert.are.same({ 0, 1, 3, 2, 6, 7, 5, 4 }, pg.gray_order(8))
    assert.are.same({ 0, 1, 3, 2, 4 }, pg.gray_order(5))
    assert.are.same({ 0, 1, 2 }, pg.natural_order(3))
  end)
end)

describe("retrace paragraph on the hand-made trace", function()
  local summary, frame, out = run()

  it("reports the span and processors of the pre-pass", function()
    assert.are.equal(4, summary.processors)
    same_list({ 0, 8 }, summary.span)
    assert.are.equal(1, summary.max_pending)
    assert.are.equal(2000, summary.max_pending_bytes)
    assert.are.equal(16, summary.frames) -- 0.5 .. 7.5, then the end
  end)

  it("gives the utilization summary per processor, in percent of the span", function()
    -- p0 busy 0-2, 3-8, overhead 2-3; p1 idle 2-4; p2 overhead 5-6, idle 6-8 (finished); p3 idle 7-8
    local want = { { 87.5, 12.5, 0 }, { 75, 0, 25 }, { 62.5, 12.5, 25 }, { 87.5, 0, 12.5 } }
    local rows = summary.displays.utilization_summary.processors
    for i, w in ipairs(want) do
      assert.are.equal(i - 1, rows[i].id)
      same_list(w, { rows[i].busy, rows[i].overhead, rows[i].idle })
    end
  end)

  it("gives the concurrency profile of every state", function()
    -- busy: 4 busy 0-2, 4-5 (3 s); 3 busy 3-4, 5-6, 6-7 (3 s); 2 busy 2-3, 7-8 (2 s)
    local c = summary.displays.concurrency_profile
    same_list({ 0, 0, 25, 37.5, 37.5 }, c.busy)
    same_list({ 75, 25, 0, 0, 0 }, c.overhead)
    same_list({ 50, 37.5, 12.5, 0, 0 }, c.idle)
  end)

  it("meters the processors now, including after one has finished", function()
    local f = frame(5) -- t = 2.5: p0 overhead, p1 idle
    assert.are.equal(2.5, f.time)
    local m = f.displays.utilization_meter
    same_list({ 2, 1, 1 }, { m.busy, m.overhead, m.idle })
    m = frame(13).displays.utilization_meter -- t = 6.5: p2 finished at 6
    same_list({ 3, 0, 1 }, { m.busy, m.overhead, m.idle })
    m = frame(9).displays.utilization_meter -- t = 4.5: all busy
    same_list({ 4, 0, 0 }, { m.busy, m.overhead, m.idle })
  end)

  it("keeps queue high-water marks", function()
    local q = frame(5).displays.queues
    same_list({ 0, 1, 0, 0 }, q.current)
    q = frame(13).displays.queues
    same_list({ 0, 0, 0, 1 }, q.current)
    same_list({ 0, 1, 0, 1 }, q.high)
    local t = frame(13).displays.traffic
    assert.are.equal(1, t.pending_count)
    assert.are.equal(2000, t.pending_bytes)
  end)

  it("gives the Kiviat radii over the last S seconds", function()
    -- t = 4, S = 2: busy over [2, 4]: p0 3-4, p1 never, p2 and p3 always
    local k = frame(8).displays.kiviat
    same_list({ 0.5, 0, 1, 1 }, k.radii)
    -- t = 6.5: [4.5, 6.5]: p2 busy 4.5-5 only
    same_list({ 1, 1, 0.25, 1 }, frame(13).displays.kiviat.radii)
    same_list({ 1, 1, 1, 1 }, frame(13).displays.kiviat.high)
  end)

  it("gives the cumulative matrix at the end and the pending one while running", function()
    local m = summary.displays.comm_matrix
    assert.is_true(m.final)
    same_list({ 0, 100, 0, 0 }, m.bytes[1])
    same_list({ 0, 0, 0, 2000 }, m.bytes[3])
    same_list({ 0, 1, 0, 0 }, m.count[1])
    assert.are.equal(1, frame(5).displays.comm_matrix.count[1][2])
    assert.are.equal(0, frame(9).displays.comm_matrix.count[1][2])
  end)

  it("puts the matrix cells at their processors' positions in natural and Gray order", function()
    local nat = summary.displays.comm_matrix
    local s2 = run({ "--order", "gray" })
    local gray = s2.displays.comm_matrix
    same_list({ 0, 1, 3, 2 }, gray.order)
    -- the cell 2 -> 3: natural row 2 column 3; Gray (0 1 3 2) row 3 column 2
    local function cell(d, src, dst)
      for _, c in ipairs(d.cells) do if c.src == src and c.dst == dst then return c end end
    end
    local cn, cg = cell(nat, 2, 3), cell(gray, 2, 3)
    assert.is_true(close(cn.x, nat.grid.x + 3 * nat.grid.cell, 1e-6))
    assert.is_true(close(cn.y, nat.grid.y + 2 * nat.grid.cell, 1e-6))
    assert.is_true(close(cg.x, gray.grid.x + 2 * gray.grid.cell, 1e-6))
    assert.is_true(close(cg.y, gray.grid.y + 3 * gray.grid.cell, 1e-6))
    same_list(nat.bytes[3], gray.bytes[3]) -- the data stay indexed by processor number
  end)

  it("draws the Gantt pixel at (processor, time) in the state's colour", function()
    local f = frame(16) -- the last frame, t = 8
    local img = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, 16)))
    local g = f.displays.gantt
    local function probe(p, t)
      local x = plot.to_pixel(g, t, 0)
      return h.pixel_hex(img, x, g.rows[p + 1].y)
    end
    assert.are.equal(colors.state("overhead"), probe(0, 2.5))
    assert.are.equal(colors.state("idle"), probe(1, 3))
    assert.are.equal(colors.state("busy"), probe(1, 5))
    assert.are.equal(colors.state("idle"), probe(2, 7)) -- finished at 6
    assert.are.equal(colors.state("busy"), probe(3, 6.5))
  end)

  it("draws a message line whose midpoint has its size colour", function()
    local img = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, 16)))
    local st = frame(16).displays.spacetime
    local m
    for _, x in ipairs(st.messages) do if x.src == 0 and x.dst == 1 then m = x end end
    assert.is_truthy(m)
    assert.are.equal(colors.message_size(100), m.color)
    local got = h.pixel_hex(img, (m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2)
    assert.is_true(cdist(got, m.color) < 60, got .. " is not " .. m.color)
  end)

  it("colours a matrix cell while its message is pending and blanks it after", function()
    local f5, f9 = frame(5), frame(9)
    local img5 = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, 5)))
    local img9 = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, 9)))
    local c = f5.displays.comm_matrix.cells[1]
    assert.are.same({ 0, 1 }, { c.src, c.dst })
    assert.are.equal(colors.message_size(100), h.pixel_hex(img5, c.x + c.w / 2, c.y + c.h / 2))
    assert.are.equal(0, #f9.displays.comm_matrix.cells)
    assert.are.equal("#ffffff", h.pixel_hex(img9, c.x + c.w / 2, c.y + c.h / 2))
  end)
end)

describe("retrace paragraph options", function()
  it("keeps JSON times in trace seconds whatever --unit says, and prints the summary with --json", function()
    local data = h.temp_dir()
    local code, out, err = h.retrace("paragraph", fixture, "-o", h.temp_dir(), "--display", "utilization_meter",
      "--unit", "ms", "--pace", "time:500", "--data", data, "--json")
    assert.are.equal(0, code, err)
    assert.are.equal(0.5, read_json(data .. "/frame_000001.json").time)
    assert.are.equal(3.5, read_json(data .. "/frame_000007.json").time)
    local s = cjson.decode(out)
    assert.are.equal(0.001, s.unit)
    assert.are.equal(16, s.frames)
    same_list({ 8, 8, 6, 8 }, s.last)
  end)
end)

describe("retrace paragraph with smooth scrolling (the Lua raster)", function()
  it("draws the same Gantt states as the C raster", function()
    local _, frame, out = run({ "--scroll", "smooth", "--scale-width", "4" })
    local f = frame(12) -- t = 6: window 2 .. 6
    local img = assert(canvas.load_png(string.format("%s/frame_%06d.png", out, 12)))
    local g = f.displays.gantt
    same_list({ 2, 6 }, g.window)
    local function probe(p, t) return h.pixel_hex(img, (plot.to_pixel(g, t, 0)), g.rows[p + 1].y) end
    assert.are.equal(colors.state("overhead"), probe(0, 2.5))
    assert.are.equal(colors.state("idle"), probe(1, 3))
    assert.are.equal(colors.state("overhead"), probe(2, 5.5))
    assert.are.equal(colors.state("busy"), probe(3, 5.5))
  end)
end)

describe("retrace paragraph errors", function()
  local out = os.tmpname()
  local cases = {
    { { "--display", "nosuch" }, 2, "unknown display 'nosuch'" },
    { { "--group", "nosuch" }, 2, "unknown group 'nosuch'" },
    { { "--from", "5", "--to", "2" }, 2, "--from 5 is after --to 2" },
    { { "--all", "--grid", "3x3" }, 2, "--grid 3x3 has 9 cells for 25 displays" },
    { { "--from", "20", "--to", "30" }, 1, "spans 0 .. 8 s" },
    { { "--from", "-5", "--to", "-1" }, 1, "lies outside the trace" },
  }
  for _, c in ipairs(cases) do
    it("exits " .. c[2] .. " for " .. table.concat(c[1], " "), function()
      local args = { "paragraph", fixture, "-o", out }
      for _, a in ipairs(c[1]) do args[#args + 1] = a end
      local code, _, err = h.retrace(table.unpack(args))
      assert.are.equal(c[2], code)
      assert.is_truthy(err:find(c[3], 1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")))
    end)
  end
  it("takes a negative --from", function()
    local code, _, err = h.retrace("paragraph", fixture, "-o", h.temp_dir(), "--from", "-0.000001", "--to", "3",
      "--display", "gantt")
    assert.are.equal(0, code, err)
  end)
end)

describe("retrace paragraph on real traces", function()
  it("shows overhead on every processor of fft-16", function()
    local f = h.shared_file("picl/fft-16.trf")
    if not f then pending("../shared/data is absent: fft-16 skipped") return end
    local data = h.temp_dir()
    local code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display", "utilization_summary",
      "--data", data)
    assert.are.equal(0, code, err)
    local rows = read_json(data .. "/summary.json").displays.utilization_summary.processors
    assert.are.equal(16, #rows)
    local zero = 0
    for _, r in ipairs(rows) do if r.overhead <= 0 then zero = zero + 1 end end
    assert.are.equal(0, zero)
    -- without the compstats brackets the old format shows no overhead at all
    code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display", "utilization_summary",
      "--data", data, "--no-compstats")
    assert.are.equal(0, code, err)
    for _, r in ipairs(read_json(data .. "/summary.json").displays.utilization_summary.processors) do
      assert.are.equal(0, r.overhead)
    end
  end)

  it("shows the broadcasts of mpicl-10", function()
    local f = h.shared_file("picl/mpicl-10.trf")
    if not f then pending("../shared/data is absent: mpicl-10 skipped") return end
    local data = h.temp_dir()
    local code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display", "spacetime,traffic",
      "--data", data, "--pace", "time:2")
    assert.are.equal(0, code, err)
    local s = read_json(data .. "/summary.json")
    assert.is_true(s.displays.spacetime.bands > 1000, "bands: " .. tostring(s.displays.spacetime.bands))
    -- every frame that draws a band lists it in the legend
    local lfs, with_bands = require "lfs", 0
    for name in lfs.dir(data) do
      if name:match("^frame_%d+%.json$") then
        local st = read_json(data .. "/" .. name).displays.spacetime
        if st.bands > 0 then
          with_bands = with_bands + 1
          local last = st.legend.items[#st.legend.items]
          assert.are.equal("collective: a band in its size colour", last[1], name)
        end
      end
    end
    assert.is_true(with_bands > 0)
  end)
end)

describe("retrace paragraph on hand4.trf (the engine's fixture)", function()
  -- hand4.trf: 12 s span; states by hand (seconds): P0 busy 6 ovh 2 idle 4, P1 7 1 4,
  -- P2 6 2 4, P3 9 0 3; messages 0->1 100 B, 0->2 200 B, 1->3 300 B, 2->3 400 + 50 B
  local f = h.fixtures .. "/paragraph/hand4.trf"
  it("gives its summary, matrix and queue high-water marks", function()
    local data = h.temp_dir()
    local code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display",
      "utilization_summary,comm_matrix,queues", "--data", data)
    assert.are.equal(0, code, err)
    local s = read_json(data .. "/summary.json")
    local want = { { 6, 2, 4 }, { 7, 1, 4 }, { 6, 2, 4 }, { 9, 0, 3 } }
    for i, w in ipairs(want) do
      local r = s.displays.utilization_summary.processors[i]
      same_list({ w[1] / 12 * 100, w[2] / 12 * 100, w[3] / 12 * 100 }, { r.busy, r.overhead, r.idle }, 1e-9)
    end
    local b = s.displays.comm_matrix.bytes
    same_list({ 0, 100, 200, 0 }, b[1])
    same_list({ 0, 0, 0, 300 }, b[2])
    same_list({ 0, 0, 0, 450 }, b[3])
    same_list({ 0, 1, 1, 3 }, s.displays.queues.high)
  end)
end)

-- A random trace and a slow reference model of its states and messages.
-- Time is cut in unit slots; in each slot a processor computes, or sends one
-- message (overhead 0.1 .. 0.4 into the slot), or waits for one in a blocking
-- receive (idle from 0.2 to the receive, 0.25 .. 0.85 into the slot). Every
-- message has its own tag, is received in a later slot, and each processor
-- ends at a slot boundary of its own (idle after it).
local function random_trace(seed, P, slots)
  math.randomseed(seed)
  local recs, iv = {}, {}
  local function rec(t, line) recs[#recs + 1] = { t, #recs, line } end
  local busy_slot = {}
  local stop = {}
  for p = 0, P - 1 do
    stop[p] = math.random(slots // 2, slots)
    busy_slot[p] = {}
    iv[p] = {}
  end
  local msgs = {}
  local tag = 0
  for j = 0, slots - 2 do
    for src = 0, P - 1 do
      if j < stop[src] and not busy_slot[src][j] and math.random() < 0.35 then
        local dst = math.random(0, P - 1)
        local jr = j + math.random(1, 3)
        if dst ~= src and jr < stop[dst] and not busy_slot[dst][jr] then
          busy_slot[src][j], busy_slot[dst][jr] = true, true
          tag = tag + 1
          local bytes = math.random(1, 5000)
          local s0, s1 = j + 0.1, j + 0.4
          local r0 = jr + 0.2
          local r1 = tonumber(string.format("%.6f", jr + 0.25 + 0.6 * math.random())) -- as written
          rec(s0, string.format("-3 -21 %.6f %d 0 3 2 %d %d %d", s0, src, bytes, tag, dst))
          rec(s1, string.format("-4 -21 %.6f %d 0 0", s1, src))
          rec(r0, string.format("-3 -52 %.6f %d 0 2 2 %d %d", r0, dst, tag, src))
          rec(r1, string.format("-4 -52 %.6f %d 0 3 2 %d %d %d", r1, dst, bytes, tag, src))
          iv[src][#iv[src] + 1] = { s0, s1, 2 }
          iv[dst][#iv[dst] + 1] = { r0, r1, 3 }
          msgs[#msgs + 1] = { src = src, dst = dst, bytes = bytes, send = s0, recv = r1 }
        end
      end
    end
  end
  for p = 0, P - 1 do
    rec(0, string.format("-3 1 %.6f %d 0 0", 0, p))
    rec(stop[p], string.format("-4 1 %.6f %d 0 0", stop[p], p))
  end
  table.sort(recs, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
  local lines = {}
  for i, r in ipairs(recs) do lines[i] = r[3] end
  local T = 0
  for p = 0, P - 1 do T = math.max(T, stop[p]) end
  return table.concat(lines, "\n") .. "\n", { P = P, T = T, stop = stop, iv = iv, msgs = msgs }
end

-- The reference: the state of p at time t, straight from the generated intervals.
local function ref_state(m, p, t)
  if t >= m.stop[p] then return 3 end
  for _, x in ipairs(m.iv[p]) do
    if t >= x[1] and t < x[2] then return x[3] end
  end
  return 1
end

describe("retrace paragraph against a slow reference model", function()
  for _, seed in ipairs({ 1, 2, 3 }) do
    it("agrees on random trace " .. seed, function()
      local text, m = random_trace(seed, 5, 12)
      local path = h.temp_file(text, ".trf")
      local data = h.temp_dir()
      local code, _, err = h.retrace("paragraph", path, "-o", h.temp_dir(), "--display",
        "utilization_summary,concurrency_profile,comm_matrix,queues", "--data", data)
      assert.are.equal(0, code, err)
      local s = read_json(data .. "/summary.json").displays
      -- breakpoints of every processor's state
      local pts = { 0, m.T }
      for p = 0, m.P - 1 do
        pts[#pts + 1] = m.stop[p]
        for _, x in ipairs(m.iv[p]) do pts[#pts + 1], pts[#pts + 2] = x[1], x[2] end
      end
      table.sort(pts)
      local time = {}
      local prof = { {}, {}, {} }
      for k = 0, m.P do prof[1][k], prof[2][k], prof[3][k] = 0, 0, 0 end
      for p = 0, m.P - 1 do time[p] = { 0, 0, 0 } end
      for i = 1, #pts - 1 do
        local a, b = pts[i], pts[i + 1]
        if b > a then
          local n = { 0, 0, 0 }
          for p = 0, m.P - 1 do
            local st = ref_state(m, p, (a + b) / 2)
            time[p][st] = time[p][st] + (b - a)
            n[st] = n[st] + 1
          end
          for st = 1, 3 do prof[st][n[st]] = prof[st][n[st]] + (b - a) end
        end
      end
      for p = 0, m.P - 1 do
        local r = s.utilization_summary.processors[p + 1]
        same_list({ 100 * time[p][1] / m.T, 100 * time[p][2] / m.T, 100 * time[p][3] / m.T },
          { r.busy, r.overhead, r.idle }, 1e-6)
      end
      for st, name in ipairs({ "busy", "overhead", "idle" }) do
        local want = {}
        for k = 0, m.P do want[k + 1] = 100 * prof[st][k] / m.T end
        same_list(want, s.concurrency_profile[name], 1e-6)
      end
      -- messages: cumulative matrix and queue high-water marks (pending from send entry to receive)
      local bytes, high = {}, {}
      for p = 1, m.P do bytes[p] = {}; for q = 1, m.P do bytes[p][q] = 0 end; high[p] = 0 end
      for _, x in ipairs(m.msgs) do
        bytes[x.src + 1][x.dst + 1] = bytes[x.src + 1][x.dst + 1] + x.bytes
        local n = 0
        for _, y in ipairs(m.msgs) do
          if y.dst == x.dst and y.send <= x.send and y.recv > x.send then n = n + 1 end
        end
        high[x.dst + 1] = math.max(high[x.dst + 1], n)
      end
      for p = 1, m.P do same_list(bytes[p], s.comm_matrix.bytes[p]) end
      same_list(high, s.queues.high)
      assert.is_true(#m.msgs > 5)
    end)
  end
end)
