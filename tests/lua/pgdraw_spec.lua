-- retrace paragraph: what the displays draw from ParaGraph's view in C - the
-- Kiviat high-water mark and the phase portrait from the continuous replay
-- (the same at every --pace, checked against a slow sampling of the replay),
-- spokes for one or two processors and for a spike between idle neighbours,
-- the end-of-run matrix scale from the smallest nonzero square, grouping
-- past the pixels, the pictures kept between frames.
require "retrace"
local h = require "helpers"
local cjson = require "cjson"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local pg = require "retrace.paragraph"
local replay = require "retrace.replay"

local function read_json(path) return cjson.decode(h.slurp(path)) end

-- The command's summary (and output folder) on a trace with extra options.
local function run(trace, ...)
  local out = h.temp_dir()
  local args = { "paragraph", trace, "-o", out, "--json", ... }
  local code, stdout, err = h.retrace(table.unpack(args))
  assert.are.equal(0, code, err)
  return cjson.decode(stdout), out
end

local function last_png(out, s)
  return assert(canvas.load_png(string.format("%s/frame_%06d.png", out, s.frames)))
end

-- A PICL message: a send of `bytes` from p to q over [t0, t0 + d], received by q over [t1, t1 + d].
local function message(lines, p, q, bytes, tag, t0, t1, d)
  lines[#lines + 1] = string.format("-3 -21 %.6f %d 0 3 2 %d %d %d", t0, p, bytes, tag, q)
  lines[#lines + 1] = string.format("-4 -21 %.6f %d 0 0", t0 + d, p)
  lines[#lines + 1] = string.format("-3 -52 %.6f %d 0 2 2 %d %d", t1, q, tag, p)
  lines[#lines + 1] = string.format("-4 -52 %.6f %d 0 3 2 %d %d %d", t1 + d, q, bytes, tag, p)
end

-- PICL records sorted by time (field 3), as a trace file.
local function trace_file(lines)
  table.sort(lines, function(a, b)
    local ta, tb = tonumber(a:match("^%S+ %S+ (%S+)")), tonumber(b:match("^%S+ %S+ (%S+)"))
    if ta ~= tb then return ta < tb end
    return a < b
  end)
  return h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
end

describe("paragraph Kiviat and phase portrait from the continuous replay", function()
  local trace = h.shared_file("picl/mpicl-8a.trf")
  if not trace then
    pending("../shared/data/picl/mpicl-8a.trf is absent: skipped")
    return
  end
  local S = 0.005 -- seconds

  it("give the same high-water marks and trajectory at three paces", function()
    local runs = {}
    for i, pace in ipairs({ "records:7", "records:50", "time:1.37" }) do
      runs[i] = run(trace, "--display", "kiviat,phase_portrait", "--pace", pace, "--unit", "ms",
        "--smoothing", tostring(S * 1000))
    end
    assert.are_not.equal(runs[1].frames, runs[2].frames)
    assert.are_not.equal(runs[2].frames, runs[3].frames)
    local k1, p1 = runs[1].displays.kiviat, runs[1].displays.phase_portrait
    assert.is_true(k1.continuous and p1.continuous)
    local distinct = {}
    for _, v in ipairs(k1.high) do distinct[string.format("%.6f", v)] = true end
    assert.is_true(next(distinct, next(distinct)) ~= nil, "the marks should differ between processors")
    for i = 2, 3 do
      local k, p = runs[i].displays.kiviat, runs[i].displays.phase_portrait
      assert.are.equal(#k1.high, #k.high)
      for j = 1, #k1.high do
        assert.is_true(math.abs(k1.high[j] - k.high[j]) < 1e-12, string.format("P%d: %.15g vs %.15g", j - 1,
          k1.high[j], k.high[j]))
      end
      assert.are.equal(p1.corners, p.corners)
      assert.is_true(math.abs(p1.current.x - p.current.x) < 1e-9 and math.abs(p1.current.y - p.current.y) < 1e-9)
    end
  end)

  it("finds each processor's highest busy fraction over S, checked by sampling the replay finely", function()
    local s = run(trace, "--display", "kiviat", "--unit", "ms", "--smoothing", tostring(S * 1000))
    local high = s.displays.kiviat.high
    -- the slow reference: the busy fraction over [t - S, t] at N times, from a replay
    -- of its own (the view's kept state changes, not the trailing means)
    local info = assert(pg.prescan(trace))
    local m = pg.model(info)
    local rp = assert(replay.new(trace, { prescan = info.ps }))
    assert(m:attach(rp))
    local t0, t1 = info.span[1], info.span[2]
    local N = 4000
    local dt = (t1 - t0) / N
    local best = {}
    for i = 1, N do
      local t = t0 + i * dt
      rp:run_until(t)
      m:sync(rp, t)
      for p = 0, info.P - 1 do
        best[p + 1] = math.max(best[p + 1] or 0, m:busy_fraction(p, t - S, t))
      end
      m:keep(t - S)
    end
    -- the fraction moves at most 1/S per second: sampling every dt misses at most dt / S
    for p = 1, info.P do
      assert.is_true(high[p] >= best[p] - 1e-9, string.format("P%d: %g below the sampled %g", p - 1, high[p], best[p]))
      assert.is_true(high[p] <= best[p] + dt / S + 1e-9,
        string.format("P%d: %g above the sampled %g by more than %g", p - 1, high[p], best[p], dt / S))
    end
  end)
end)

describe("paragraph Kiviat spokes", function()
  it("draws one or two processors as spokes from the hub", function()
    local lines = {}
    message(lines, 0, 1, 100, 1, 1, 2, 0.5)
    for p = 0, 1 do -- both inside task 1 (busy) from 0 to 5
      lines[#lines + 1] = string.format("-3 1 0.0 %d 0 0", p)
      lines[#lines + 1] = string.format("-4 1 5.0 %d 0 0", p)
    end
    local s, out = run(trace_file(lines), "--display", "kiviat", "--unit", "s", "--smoothing", "2",
      "--pace", "time:1")
    local k = s.displays.kiviat
    assert.are.equal(2, #k.high)
    local img = last_png(out, s)
    -- P0 (up) and P1 (down): at half their highest radius, the spoke's blue (the thin
    -- grey axis runs along its middle: probe beside it); a few pixels aside, no blue
    for i, sign in ipairs({ -1, 1 }) do
      assert.is_true(k.high[i] > 0.2, "P" .. (i - 1) .. " high " .. k.high[i])
      local y = k.center[2] + sign * k.radius * k.high[i] / 2
      local r, _, b = colors.parse(h.pixel_hex(img, k.center[1] + 1, y))
      assert.is_true(b - r > 0.15, "spoke " .. i .. ": " .. h.pixel_hex(img, k.center[1] + 1, y))
      local r2, _, b2 = colors.parse(h.pixel_hex(img, k.center[1] + 6, y))
      assert.is_true(math.abs(b2 - r2) < 0.02, "beside spoke " .. i .. ": " .. h.pixel_hex(img, k.center[1] + 6, y))
    end
  end)
end)

describe("paragraph end-of-run matrix scale", function()
  it("runs from the smallest nonzero square and tells 800, 1600 and 2400 B apart", function()
    local lines = {}
    message(lines, 0, 1, 800, 1, 1, 2, 0.1)
    message(lines, 1, 2, 2400, 2, 3, 4, 0.1)
    message(lines, 2, 0, 1600, 3, 5, 6, 0.1)
    local s, out = run(trace_file(lines), "--display", "comm_matrix")
    local d = s.displays.comm_matrix
    assert.is_true(d.final)
    assert.are.equal(800, d.scale.lo)
    assert.are.equal(2400, d.scale.hi)
    local img = last_png(out, s)
    local got = {}
    for _, c in ipairs(d.cells) do got[c.bytes] = h.pixel_hex(img, c.x + c.w / 2, c.y + c.h / 2) end
    assert.are.equal(d.cells[1].color, got[d.cells[1].bytes])
    local function dist(a, b)
      local r1, g1, b1 = colors.parse(a)
      local r2, g2, b2 = colors.parse(b)
      return (math.abs(r1 - r2) + math.abs(g1 - g2) + math.abs(b1 - b2)) * 255
    end
    assert.is_true(dist(got[800], got[1600]) > 60, got[800] .. " ~ " .. got[1600])
    assert.is_true(dist(got[1600], got[2400]) > 60, got[1600] .. " ~ " .. got[2400])
  end)
end)

describe("paragraph displays past the pixels", function()
  -- a ring of 600 processors: more than the rows, spokes and discs a 1280 x 720 --all frame has room for
  local P = 600
  local lines = {}
  for p = 0, P - 1 do
    message(lines, p, (p + 1) % P, 1024, 1, 1 + p * 1e-4, 2 + p * 1e-4, 0.05)
    lines[#lines + 1] = string.format("-3 1 0.0 %d 0 0", p)
    lines[#lines + 1] = string.format("-4 1 3.0 %d 0 0", p)
  end
  local s = run(trace_file(lines), "--display",
    "kiviat,animation,queues,concurrency_profile,comm_matrix,spacetime,critical_path,phase_portrait,node_stats",
    "--unit", "s", "--smoothing", "0.5")
  local d = s.displays

  it("groups processors and says which each mark holds", function()
    assert.is_true(d.kiviat.group > 1)
    assert.are.same({ 0, d.kiviat.group - 1 }, d.kiviat.spoke_procs[1])
    assert.are.equal(P - 1, d.kiviat.spoke_procs[#d.kiviat.spoke_procs][2])
    assert.is_true(d.animation.group > 1)
    local n = d.animation.nodes[1]
    assert.are.equal(d.animation.group, #n.ids)
    assert.are.equal(d.animation.group, n.counts.busy + n.counts.overhead + n.counts.idle)
    assert.is_true(d.queues.bin > 1)
    assert.are.equal(P - 1, d.queues.bins[#d.queues.bins][2])
    -- the profile's bins add up to the percent of every count
    local b = d.concurrency_profile.bin
    assert.is_true(b > 1)
    local sum = 0
    for k = 1, b do sum = sum + d.concurrency_profile.busy[k] end
    assert.is_true(math.abs(sum - d.concurrency_profile.binned.busy[1]) < 1e-9)
    assert.is_true(d.comm_matrix.block > 1)
    assert.is_true(d.spacetime.rows_per_line > 1)
  end)

  it("draws each received message once into the spacetime's kept picture", function()
    assert.are.equal(P, d.spacetime.lines)
  end)
end)
