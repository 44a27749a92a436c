-- retrace paragraph at thousands of processors, part C: the statistics table,
-- processor status and hypercube stay legible (groups, summary rows, notes),
-- the hypercube's layouts on a 16-node cube worked out by hand, and the Gray
-- order (displays/paragraph/order.lua).
--
-- Generated traces (closed form): processor p is busy (user event 1) from
-- s_p = (p % 100) + 0.5 to 100.5 s and idle otherwise; frames come every 7.25 s
-- from 0.5, so at a frame time t processor p is busy exactly when s_p <= t, never
-- on a boundary. Time in the run: the busy share of p over the span [0.5, 100.5]
-- is (100 - p % 100) / 100.
require "retrace"
local h = require "helpers"
local cjson = require "cjson"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local order = require "retrace.displays.paragraph.order"
local hypercube = require "retrace.displays.paragraph.hypercube"
local status = require "retrace.displays.paragraph.processor_status"

local function read_json(path) return cjson.decode(h.slurp(path)) end
local function close(a, b, tol) return math.abs(a - b) <= (tol or 1e-9) end

local traces = {}
local function gen_trace(P)
  if traces[P] then return traces[P] end
  local ev = {}
  for p = 0, P - 1 do
    local s = p % 100 + 0.5
    ev[#ev + 1] = { s, string.format("-3 1 %.1f %d 0 0", s, p) }
    ev[#ev + 1] = { 100.5, string.format("-4 1 100.5 %d 0 0", p) }
  end
  table.sort(ev, function(a, b) if a[1] ~= b[1] then return a[1] < b[1] end return a[2] < b[2] end)
  local lines = {}
  for i, e in ipairs(ev) do lines[i] = e[2] end
  traces[P] = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
  return traces[P]
end

local function busy_at(p, t)
  assert(math.abs((t - 0.5) - math.floor(t - 0.5 + 0.5)) > 0.1, "a frame on a boundary")
  return p % 100 + 0.5 <= t
end

-- The command on a trace; returns the summary, frame(i), the frames folder.
local function run(trace, extra)
  local out, data = h.temp_dir(), h.temp_dir()
  local args = { "paragraph", trace, "-o", out, "--data", data }
  for _, a in ipairs(extra) do args[#args + 1] = a end
  local code, _, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  local function frame(i) return read_json(string.format("%s/frame_%06d.json", data, i)) end
  return read_json(data .. "/summary.json"), frame, out
end
local function png(out, i) return assert(canvas.load_png(string.format("%s/frame_%06d.png", out, i))) end

local function inside(box, rect)
  return box.x >= rect.x - 1e-6 and box.y >= rect.y - 1e-6 and box.x + box.w <= rect.x + rect.w + 1e-6
     and box.y + box.h <= rect.y + rect.h + 1e-6
end

describe("paragraph Gray order (order.lua)", function()
  it("is the binary reflected Gray code, cut to P, with its inverse", function()
    assert.are.same({ 0, 1, 3, 2, 6, 7, 5, 4 }, order.gray(8))
    -- codes 0 1 3 2 6 7 5 4: those under 5 in sequence
    assert.are.same({ 0, 1, 3, 2, 4 }, order.gray(5))
    assert.are.same({ 0, 1, 2, 3, 4 }, order.natural(5))
    for i, g in ipairs(order.gray(1024)) do assert.are.equal(i - 1, order.rank(g)) end
    assert.are.equal(4, order.rank(6))
    -- neighbours (and the last and first) differ in exactly one bit
    local g = order.gray(64)
    for i = 1, 64 do
      local x = g[i] ~ g[i % 64 + 1]
      assert.is_true(x > 0 and x & (x - 1) == 0, "positions " .. i)
    end
    assert.are.same(order.gray(16), require("retrace.paragraph").gray_order(16))
    assert.are.same({ [0] = 1, [1] = 2, [3] = 3, [2] = 4 }, order.positions({ 0, 1, 3, 2 }))
    assert.is_nil((order.list("zigzag", 4)))
    assert.are.equal("gray", order.name({ P = 8, order = order.gray(8) }))
    assert.are.equal("natural", order.name({ P = 8 }))
  end)
end)

describe("paragraph hypercube layouts of a 16-node cube (positions by hand)", function()
  local function near(want, got, what)
    assert.is_true(close(want[1], got[1], 1e-9) and close(want[2], got[2], 1e-9),
      string.format("%s: (%g, %g) expected, got (%g, %g)", what, want[1], want[2], got[1], got[2]))
  end
  local s2 = math.sqrt(2) / 2

  it("cube: bit k moves along vector k (x, y, depth (0.45, 0.3), then (cos 135, sin 135))", function()
    local r = hypercube.raw("cube", 16)
    near({ 0, 0 }, r[0], "0")
    near({ 1, 0 }, r[1], "1")
    near({ 1.45, 1.3 }, r[7], "7")
    near({ -s2, s2 }, r[8], "8")
    near({ 1.45 - s2, 1.3 + s2 }, r[15], "15")
    -- normalized: x from -s2 (8) to 1.45 (7), y from 0 to 1.3 + s2 (15)
    local u = hypercube.positions("cube", 16)
    near({ (1 + s2) / (1.45 + s2), 0 }, u[1], "unit 1")
  end)

  it("tesseract and polytope: two cubes 2.1 apart; bit k along the angle 45 (k - 1) degrees", function()
    local t = hypercube.raw("tesseract", 16)
    near({ 2.1, 0 }, t[8], "8")
    near({ 3.55, 1.3 }, t[15], "15")
    local p = hypercube.raw("polytope", 16)
    near({ 1, 0 }, p[1], "1")
    near({ s2, s2 }, p[2], "2")
    near({ 0, 1 }, p[4], "4")
    near({ 1 + s2 + 0 - s2, 0 + s2 + 1 + s2 }, p[15], "15")
  end)

  it("ring and linear: Gray order round a circle and along a line", function()
    local r = hypercube.raw("ring", 16)
    near({ 0, -1 }, r[0], "0 at the top")
    near({ math.cos(-math.pi / 2 + math.pi / 4), math.sin(-math.pi / 2 + math.pi / 4) }, r[3], "3: third in Gray order")
    -- 8 is last in Gray order (rank 15): just left of the top
    near({ math.cos(-math.pi / 2 - math.pi / 8), math.sin(-math.pi / 2 - math.pi / 8) }, r[8], "8")
    local l = hypercube.raw("linear", 16)
    near({ 2, 0 }, l[3], "3")
    near({ 15, 0 }, l[8], "8")
  end)

  it("ring of rings: four rings of four (low two bits), the rings round a unit circle (high two bits)", function()
    local r = hypercube.raw("rings", 16)
    -- ring of p >> 2 = k (Gray rank g) centred at angle -90 + 90 g; on it, the low
    -- bits' Gray rank j at angle (-90 + 90 j) + 90 + (ring angle) + 45, radius 0.5 sin 45
    local rho = 0.5 * s2
    local function want(p)
      local g, j = order.rank(p >> 2), order.rank(p & 3)
      local b = math.rad(-90 + 90 * g)
      local c = math.rad(-90 + 90 * j + 90 + 45) + b
      return { math.cos(b) + rho * math.cos(c), math.sin(b) + rho * math.sin(c) }
    end
    -- 0: ring 0 at (0, -1), angle -45 -> (rho s2, -1 - rho s2) = (0.25, -1.25)
    near({ 0.25, -1.25 }, r[0], "0")
    -- 13 = 0b1101: ring 3 (Gray rank 2: centre (0, 1)), low 01 (rank 1): angle 0 + 135 + 90 = 225
    near({ -0.25, 0.75 }, r[13], "13")
    for p = 0, 15 do near(want(p), r[p], tostring(p)) end
  end)

  it("web: rings of radius (rank + 1) / 4 by the high bits, angle by the low bits", function()
    local r = hypercube.raw("web", 16)
    near({ 0, -0.25 }, r[0], "0: innermost ring, top")
    near({ 0.25, 0 }, r[1], "1: innermost, a quarter on")
    -- 14 = 0b1110: high 11 (rank 2: radius 3/4), low 10 (rank 3: angle 180)
    near({ -0.75, 0 }, r[14], "14")
    -- 8 = 0b1000: high 10 (rank 3: radius 1), low 00: top
    near({ 0, -1 }, r[8], "8")
  end)

  it("lateral cubes: two 3-cubes side by side, 2 apart; nested cubes: the second 1/0.35 times the first", function()
    local l = hypercube.raw("lateral", 16)
    -- corners of a 3-cube at -1/2 and +1/2 along x, y and depth (0.45, 0.3)
    near({ -0.5 - 0.225, -0.5 - 0.15 }, l[0], "0")
    near({ 0.5 + 0.225, 0.5 + 0.15 }, l[7], "7")
    near({ 2 - 0.5 - 0.225, -0.5 - 0.15 }, l[8], "8")
    local n = hypercube.raw("nested", 16)
    -- nested uses depth (0.3, 0.2); the inner cube (bit 3 clear) scaled 0.35, the outer 1
    near({ 0.35 * (-0.5 - 0.15), 0.35 * (-0.5 - 0.1) }, n[0], "0")
    near({ 0.5 + 0.15, 0.5 + 0.1 }, n[15], "15")
    near({ 0.35 * (0.5 + 0.15), 0.35 * (-0.5 + 0.1) }, n[5], "5")
  end)

  it("mesh and tree keep their hand shape", function()
    local m = hypercube.raw("mesh", 16)
    -- columns: Gray rank of the low two bits, rows: of the high two
    near({ 3, 2 }, m[14], "14 = 11|10")
    local t = hypercube.raw("tree", 16)
    assert.are.equal(2, t[5][2]) -- depth: bits set
  end)

  it("draws subcubes beyond 256 processors", function()
    assert.are.equal(0, hypercube.group_bits(16, 500, 300))
    assert.are.equal(0, hypercube.group_bits(256, 1200, 700))
    -- 4732 processors: 13 bits; groups of 2^s until at most 64 groups with 6 px discs
    local s = hypercube.group_bits(4732, 500, 300)
    assert.is_true(s > 0)
    local G = (4731 >> s) + 1
    assert.is_true(G <= 64)
    assert.is_true(math.min(500, 300) / (2.5 * math.sqrt(G)) >= 6)
    assert.is_true(((4731 >> (s - 1)) + 1 > 64) or math.min(500, 300) / (2.5 * math.sqrt((4731 >> (s - 1)) + 1)) < 6)
  end)
end)

describe("paragraph processor status at scale", function()
  it("fits cells of a few pixels, several processors a cell when needed", function()
    assert.are.equal(1, status.per_cell(16, 100, 60))
    local k = status.per_cell(4732, 150, 60)
    local g = status.fit(math.ceil(4732 / k), 150, 60)
    assert.is_true(g.side >= status.MIN_SIDE)
    assert.is_true(g.cols * g.side <= 150 + 1e-9 and g.rows * g.side <= 60 + 1e-9)
    assert.is_true(status.fit(math.ceil(4732 / (k - 1)), 150, 60).side < status.MIN_SIDE)
    -- the majority state; ties: busy, overhead, idle
    local v = { state = { "idle", "busy", "busy", "overhead", "idle", "overhead" } }
    assert.are.equal("busy", (status.cell_value(v, "state", { 0, 1, 2 }, 1, 3)))
    assert.are.equal("overhead", (status.cell_value(v, "state", { 3, 4, 5 }, 1, 3)))
    assert.are.equal("busy", (status.cell_value(v, "state", { 0, 1, 2, 3 }, 1, 4)))
    local s, n = status.cell_value(v, "state", { 0, 4, 3 }, 1, 3)
    assert.are.equal("idle", s)
    assert.are.same({ busy = 0, overhead = 1, idle = 2 }, n)
    assert.are.equal(7, status.cell_value({ sending = { 3, 0, 4 } }, "sending", { 0, 1, 2 }, 1, 3))
  end)

  for _, P in ipairs({ 4732, 16 }) do
    it("groups " .. P .. " processors in a panel of --all, each cell the majority, inside its quadrant", function()
      local trace = gen_trace(P)
      -- the panels of --all at the default size (6 x 5 of 1280 x 720), without
      -- the displays of other parts
      local _, frame, out = run(trace, { "--display", "processor_status,stats,hypercube", "--grid", "6x5",
        "--pace", "time:7.25", "--unit", "s", "--order", "gray" })
      local f = frame(7)
      local t = f.time
      assert.is_true(close(51.25, t, 1e-6), "frame 7 at " .. t)
      local d = f.displays.processor_status
      local list = order.gray(P)
      local img = png(out, 7)
      local rect = d.rect
      local seen = {}
      for _, key in ipairs({ "state", "task", "sending", "receiving" }) do
        local cells = d.grids[key]
        assert.are.equal(math.ceil(P / d.per_cell), #cells)
        local pos = 0
        for _, c in ipairs(cells) do
          assert.is_true(inside(c, rect), key .. " cell outside the panel")
          local procs = c.procs or { c.id }
          for _, p in ipairs(procs) do
            pos = pos + 1
            assert.are.equal(list[pos], p) -- in Gray order, each once
          end
          if key == "state" then
            local nb = 0
            for _, p in ipairs(procs) do
              seen[p] = true
              if busy_at(p, t) then nb = nb + 1 end
            end
            local want = nb * 2 >= #procs and "busy" or "idle"
            assert.are.equal(want, c.value)
            if c.counts then assert.are.same({ busy = nb, overhead = 0, idle = #procs - nb }, c.counts) end
            assert.are.equal(colors.state(want), h.pixel_hex(img, c.x + c.w / 2, c.y + c.h / 2))
          end
        end
        assert.are.equal(P, pos)
      end
      for p = 0, P - 1 do assert.is_true(seen[p], "processor " .. p) end
      if P == 4732 then
        assert.is_true(d.per_cell > 1)
        assert.is_truthy(d.note:match("^%d+ processors a cell %(gray order%)$"))
      else
        assert.are.equal(1, d.per_cell)
        assert.is_nil(d.note)
      end
      -- the four grids apart
      local boxes = {}
      for key, cells in pairs(d.grids) do
        local x0, y0, x1, y1 = math.huge, math.huge, -math.huge, -math.huge
        for _, c in ipairs(cells) do
          x0, y0 = math.min(x0, c.x), math.min(y0, c.y)
          x1, y1 = math.max(x1, c.x + c.w), math.max(y1, c.y + c.h)
        end
        boxes[#boxes + 1] = { x = x0, y = y0, w = x1 - x0, h = y1 - y0, key = key }
      end
      for i = 1, #boxes do
        for j = i + 1, #boxes do
          assert.is_false(h.boxes_overlap(boxes[i], boxes[j]), boxes[i].key .. " over " .. boxes[j].key)
        end
      end
    end)
  end
end)

describe("paragraph statistics table at scale", function()
  -- busy share of p in percent, over the span [0.5, 100.5]
  local function busy(p) return 100 - p % 100 end

  it("shows groups and min / mean / max naming the extremes at 4732 processors", function()
    local P = 4732
    local s = run(gen_trace(P), { "--display", "stats", "--size", "640x400", "--pace", "time:50", "--unit", "s" })
    local d = s.displays.stats
    assert.is_true(d.grouped)
    assert.are.equal(P, d.processors)
    -- least busy: p % 100 = 99 (first P99, others share it); most: p % 100 = 0 (P0 and others)
    assert.is_true(close(1, d.summary.min.busy, 1e-6))
    assert.are.equal(99, d.summary.min_at.busy)
    assert.are.equal(47, d.summary.min_ties.busy) -- 99, 199, ..., 4699
    assert.is_true(close(100, d.summary.max.busy, 1e-6))
    assert.are.equal(0, d.summary.max_at.busy)
    assert.are.equal(48, d.summary.max_ties.busy) -- 0, 100, ..., 4700
    local sum = 0
    for p = 0, P - 1 do sum = sum + busy(p) end
    assert.is_true(close(sum / P, d.summary.mean.busy, 1e-6))
    -- group rows: consecutive processors, every one once, each row their mean
    local kinds, nextp, ngroups = {}, 0, 0
    for _, c in ipairs(d.cells) do
      kinds[#kinds + 1] = c.kind
      assert.is_true(inside(c, d.rect), c.row .. " outside the panel")
      if c.kind == "group" then
        ngroups = ngroups + 1
        local m = 0
        for _, p in ipairs(c.procs) do
          assert.are.equal(nextp, p)
          nextp = nextp + 1
          m = m + busy(p)
        end
        assert.is_true(close(m / #c.procs, c.values.busy, 1e-6), c.row)
        assert.are.equal(string.format("%d-%d", c.procs[1], c.procs[#c.procs]), c.row)
      end
    end
    assert.are.equal(P, nextp)
    assert.is_true(ngroups >= 2)
    assert.are.same({ "min", "min at", "mean", "max", "max at", "total" }, { table.unpack(kinds, ngroups + 1) })
    local at = d.cells[#d.cells - 1].at
    assert.are.equal(0, at.busy)
    assert.is_truthy(d.note:match("^4732 processors in " .. ngroups .. " groups of %d+ %(natural order%)"))
    -- the notes inside the panel, and the columns apart
    for _, n in ipairs(d.notes) do assert.is_true(n.y + n.h <= d.rect.y + d.rect.h + 2, n.text) end
    for c = 2, #d.columns do
      assert.is_true(d.column_right[c] - d.column_text[c] >= d.column_right[c - 1] + 2, d.columns[c])
    end
  end)

  it("lists 16 processors when they fit, in the chosen order, and groups them when they do not", function()
    local trace = gen_trace(16)
    local s, _, out = run(trace, { "--display", "stats", "--size", "700x400", "--order", "gray" })
    local d = s.displays.stats
    assert.is_false(d.grouped)
    local rows = {}
    for i, c in ipairs(d.cells) do rows[i] = c.row end
    local want = {}
    for i, p in ipairs(order.gray(16)) do want[i] = tostring(p) end
    want[17] = "total"
    assert.are.same(want, rows)
    local img = png(out, s.frames)
    for _, c in ipairs(d.cells) do
      assert.are.equal(c.striped and "#eeeeee" or "#ffffff", h.pixel_hex(img, c.x + 1, c.y + c.h / 2))
    end
    -- 200 pixels high: no room for 17 rows
    s, _, out = run(trace, { "--display", "stats", "--size", "700x200" })
    d = s.displays.stats
    assert.is_true(d.grouped)
    local n = 0
    for _, c in ipairs(d.cells) do
      assert.is_true(inside(c, d.rect))
      if c.kind == "group" then
        local m = 0
        for _, p in ipairs(c.procs) do m = m + busy(p) end
        assert.is_true(close(m / #c.procs, c.values.busy, 1e-6))
        n = n + #c.procs
      end
    end
    assert.is_true(n == 16 or n == 0)
    -- p = 15 is least busy (85%), alone; p = 0 most (100%)
    assert.are.equal(15, d.summary.min_at.busy)
    assert.are.equal(1, d.summary.min_ties.busy)
    assert.is_true(close(85, d.summary.min.busy, 1e-6))
    img = png(out, s.frames)
    for _, c in ipairs(d.cells) do
      assert.are.equal(c.striped and "#eeeeee" or "#ffffff", h.pixel_hex(img, c.x + 1, c.y + c.h / 2))
    end
  end)
end)

describe("paragraph hypercube at scale", function()
  it("draws 4732 processors as subcube pies of their states, with a note", function()
    local P = 4732
    local _, frame, out = run(gen_trace(P), { "--display", "hypercube", "--size", "640x360",
      "--pace", "time:7.25", "--unit", "s" })
    local f = frame(7)
    local t = f.time
    local d = f.displays.hypercube
    assert.is_true(d.grouped)
    assert.is_truthy(d.note:match(string.format("^%%d+ groups of %d processors", d.per_group)))
    local img = png(out, 7)
    local nextp = 0
    for _, g in ipairs(d.groups) do
      assert.are.equal(nextp, g.first)
      assert.are.equal(math.min(P - 1, nextp + d.per_group - 1), g.last)
      nextp = g.last + 1
      local nb = 0
      for p = g.first, g.last do if busy_at(p, t) then nb = nb + 1 end end
      assert.are.same({ busy = nb, overhead = 0, idle = g.last - g.first + 1 - nb }, g.counts)
      assert.is_true(inside({ x = g.x - g.r, y = g.y - g.r, w = 2 * g.r, h = 2 * g.r }, d.rect))
      -- the pie starts at the top, clockwise: busy, then idle; probed in the middle
      -- of each slice wide enough to hold a pixel there
      local share = g.shares.busy
      local function at(angle) return h.pixel_hex(img, g.x + 0.6 * g.r * math.sin(angle), g.y - 0.6 * g.r * math.cos(angle)) end
      if share >= 0.1 then assert.are.equal(colors.state("busy"), at(math.pi * share)) end
      if share <= 0.9 then assert.are.equal(colors.state("idle"), at(2 * math.pi * share + math.pi * (1 - share))) end
    end
    assert.are.equal(P, nextp)
  end)
end)

describe("paragraph legibility with --all at 1280 x 720", function()
  -- the width of text at a size, as the canvas measures it
  local function text_w(text, size)
    local cv = canvas.image(4, 4)
    cv:font("DejaVu Sans", size)
    return (cv:text_size(text))
  end

  for _, gray in ipairs({ false, true }) do
    it("keeps the meters' titles, the clock and the colour code whole" .. (gray and " (--gray)" or ""), function()
      local trace = h.shared_file("picl/fft-16.trf")
      if not trace then
        pending("../shared/data/picl/fft-16.trf is absent")
        return
      end
      local extra = { "--all", "--pace", "records:100" }
      if gray then extra[#extra + 1] = "--gray" end
      local s, frame, out = run(trace, extra)
      colors.set_mode(gray and "gray" or "color")
      local f = frame(3)
      local img = png(out, 3)
      for _, id in ipairs({ "comm_meter", "utilization_meter" }) do
        local d = f.displays[id]
        -- the y-axis title (10 points, turned, centred on the plot's height) stays
        -- between the legend strip and the panel's bottom
        local tw = text_w(d.axes.y.title, 10)
        local mid = d.plot.y + d.plot.h / 2
        assert.is_true(mid - tw / 2 >= d.legend.y + d.legend.h and mid + tw / 2 <= d.rect.y + d.rect.h,
          id .. ": '" .. d.axes.y.title .. "' is cut")
        assert.is_true(inside(d.plot, d.rect), id .. ": the plot leaves its panel")
        -- the legend's items fit its strip (9 points, a 14-pixel swatch each)
        local w = 0
        for _, it in ipairs(d.legend.items) do w = w + 14 + text_w(it[1], 9) + 8 end
        assert.is_true(w <= d.rect.w, id .. ": the legend is wider than the panel")
      end
      assert.are.equal("pending (%)", f.displays.comm_meter.axes.y.title)
      assert.are.equal("messages, % of the most", f.displays.comm_meter.legend.items[1][1])
      -- the utilization meter's bar: busy at the bottom in the state colour of the mode
      local um = f.displays.utilization_meter
      if um.busy > 0 then
        assert.are.equal(colors.state("busy"), h.pixel_hex(img, um.plot.x + um.plot.w / 2, um.plot.y + um.plot.h - 2))
      end
      local c = f.displays.clock
      assert.is_true(c.reading.size >= 10)
      assert.is_true(inside(c.reading, c.rect), "the clock's reading leaves its panel")
      assert.is_true(inside(c.bar, c.rect))
      local cc = f.displays.color_code
      assert.are.equal(7, #cc.items)
      for i, it in ipairs(cc.items) do
        assert.is_true(it.size >= 8, it.label .. " at " .. it.size .. " points")
        assert.is_true(inside(it, cc.rect))
        assert.are.equal(it.color, h.pixel_hex(img, it.x + it.w / 2, it.y + it.h / 2))
        if i > 1 then assert.is_true(it.y >= cc.items[i - 1].y + cc.items[i - 1].h) end
      end
      -- stats (end of run) and processor status inside their panels, notes included
      local st = s.displays.stats
      for _, n in ipairs(st.notes) do
        assert.is_true(n.y + n.h <= st.rect.y + st.rect.h + 2 and text_w(n.text, 7) <= st.rect.w + 2, n.text)
      end
      colors.set_mode("color")
    end)
  end
end)

describe("legends in small panels", function()
  local common = require "retrace.displays.paragraph.common"
  it("draws a long scale as one row of swatches between its ends past a quarter of the panel", function()
    local items = colors.message_size_legend()
    assert.is_true(#items >= 4)
    -- a wide panel: every entry with its label (one row)
    local cv = canvas.image(1200, 400)
    local _, box = common.strip_legend(cv, { x = 0, y = 0, w = 1200, h = 400 }, items)
    assert.are.equal(14, box.h) -- a row of 9-point type and its spacing
    -- a panel of --all at 1280x720 (about 210 x 140): one row of swatches, not three rows
    cv = canvas.image(210, 140)
    cv:rect(0, 0, 210, 140, "white")
    local r, box2 = common.strip_legend(cv, { x = 0, y = 0, w = 210, h = 140 }, items)
    assert.are.equal(14, box2.h)
    assert.are.equal(126, r.h)
    -- the swatches follow the first label, each in its colour (probed at their centres)
    cv:save()
    cv:font(nil, 9)
    local x0 = 4 + cv:text_size(items[1][1]) + 4
    cv:restore()
    for i, it in ipairs(items) do
      assert.are.equal(colors.hex(it[2]), h.pixel_hex(cv, x0 + (i - 1) * 11 + 4.5, 1 + 2 + 4.5), it[1])
    end
  end)
end)
