-- retrace paragraph keeps, for its displays, only what they have not drawn yet when the
-- window jumps whole pages (the default): the view's lists stay bounded by the records
-- between two frames, not by the window or the run; and what the displays show is the
-- same as when the view keeps the whole window (smooth scrolling, an application display).
local h = require "helpers"
local cjson = require "cjson"

-- A PICL ring of P processors and `steps` steps (4 P records a step; bench's writer).
local write_ring = dofile(h.source .. "/bench/picl_ring.lua")
local function ring(path, P, steps) return write_ring(path, P, 4 * P * steps) end

local function run(trace, ...)
  local code, out, err = h.retrace("paragraph", trace, "-o", h.temp_dir(), "--json", ...)
  assert.are.equal(0, code, err)
  return cjson.decode(out)
end

describe("paragraph's view kept bounded", function()
  it("holds the records between two frames with jump scrolling, the window otherwise", function()
    local dir = h.temp_dir()
    local short, long = dir .. "/short.trf", dir .. "/long.trf"
    local n1, n2 = ring(short, 8, 150), ring(long, 8, 1500)
    local displays = "gantt,spacetime,traffic,critical_path,utilization_count"
    local a = run(short, "--display", displays, "--size", "640x360")
    local b = run(long, "--display", displays, "--size", "640x360")
    assert.are.equal(n1, a.records)
    assert.are.equal(n2, b.records)
    assert.are.equal(100, a.frames)
    assert.are.equal(100, b.frames)
    -- a frame every n / 100 records; each record leaves at most a few items (a state
    -- change, a message, two pending deltas): the peak is a few frames' worth
    assert.is_true(b.view_kept <= 8 * n2 / 100, "kept " .. b.view_kept .. " of " .. n2)
    assert.is_true(a.view_kept <= 8 * n1 / 100, "kept " .. a.view_kept .. " of " .. n1)
    -- smooth scrolling redraws the window every frame: it keeps the window (a quarter of the
    -- run by default), ten times more records, about ten times more items
    local s = run(long, "--display", displays, "--size", "640x360", "--scroll", "smooth")
    assert.is_true(s.view_kept > 10 * b.view_kept, "smooth " .. s.view_kept .. ", jump " .. b.view_kept)
    assert.is_true(s.view_kept > n2 / 8, "smooth keeps its window: " .. s.view_kept .. " of " .. n2)
  end)

  it("draws the same bands, collective series and lines as a run that keeps the window", function()
    local f = h.shared_file("picl/mpicl-10.trf")
    if not f then pending("../shared/data is absent: mpicl-10 skipped") return end
    -- an application display makes the run keep the window for it (it may draw from the
    -- model's history); the other displays must not see a difference
    local app = h.temp_file([[
return { id = "none", title = "Nothing", new = function(ctx)
  return { draw = function(self, cv, rect) end, update = function() end, data = function() return {} end }
end }
]], ".lua")
    for _, pace in ipairs({ "time:5", "records:4000" }) do
      local d1, d2 = h.temp_dir(), h.temp_dir()
      local code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display", "spacetime,traffic",
        "--data", d1, "--pace", pace, "--json")
      assert.are.equal(0, code, err)
      code, _, err = h.retrace("paragraph", f, "-o", h.temp_dir(), "--display", "spacetime,traffic",
        "--data", d2, "--pace", pace, "--json", "--app", app)
      assert.are.equal(0, code, err)
      local s1 = cjson.decode(assert(io.open(d1 .. "/summary.json")):read("a"))
      local s2 = cjson.decode(assert(io.open(d2 .. "/summary.json")):read("a"))
      assert.is_true(s1.view_kept < s2.view_kept, pace .. ": " .. s1.view_kept .. " vs " .. s2.view_kept)
      assert.is_true(s1.frames > 3)
      for i = 1, s1.frames do
        local name = string.format("/frame_%06d.json", i)
        local x = cjson.decode(assert(io.open(d1 .. name)):read("a")).displays
        local y = cjson.decode(assert(io.open(d2 .. name)):read("a")).displays
        assert.are.equal(y.spacetime.bands, x.spacetime.bands, pace .. " frame " .. i)
        assert.are.equal(y.spacetime.lines, x.spacetime.lines, pace .. " frame " .. i)
        assert.are.same(y.traffic.window, x.traffic.window)
        assert.are.same(y.traffic.series, x.traffic.series, pace .. " frame " .. i)
        assert.are.same(y.traffic.collective_series, x.traffic.collective_series, pace .. " frame " .. i)
      end
      assert.is_true(s1.displays.spacetime.bands > 0)
      local top = 0
      for _, v in ipairs(s1.displays.traffic.collective_series) do top = math.max(top, v) end
      assert.is_true(top > 0, pace .. ": collectives in the traffic's series")
    end
  end)

  it("takes what is new between frames (every N records) with the same pictures' numbers", function()
    local f = h.shared_file("picl/mpicl-10.trf")
    if not f then pending("../shared/data is absent: mpicl-10 skipped") return end
    local function frames(chunk)
      local d = h.temp_dir()
      local env = chunk and ("RETRACE_PG_CHUNK=" .. chunk .. " ") or ""
      local cmd = string.format("%s%s paragraph %s -o %s --display spacetime,traffic,critical_path " ..
        "--data %s --pace time:5 --json > %s/out.json 2>&1", env, h.quote(h.bin), h.quote(f), h.temp_dir(), d, d)
      assert.is_true(os.execute(cmd))
      local s = cjson.decode(assert(io.open(d .. "/summary.json")):read("a"))
      local out = { summary = s }
      for i = 1, s.frames do
        out[i] = cjson.decode(assert(io.open(string.format("%s/frame_%06d.json", d, i))):read("a")).displays
      end
      return out
    end
    local whole, chunked = frames(nil), frames(300)
    assert.are.equal(whole.summary.frames, chunked.summary.frames)
    assert.is_true(chunked.summary.view_kept < whole.summary.view_kept / 3,
      chunked.summary.view_kept .. " vs " .. whole.summary.view_kept)
    for i = 1, whole.summary.frames do
      local x, y = whole[i], chunked[i]
      assert.are.equal(x.spacetime.bands, y.spacetime.bands, "frame " .. i)
      assert.are.equal(x.spacetime.lines, y.spacetime.lines, "frame " .. i)
      assert.are.same(x.traffic.series, y.traffic.series, "frame " .. i)
      assert.are.same(x.traffic.collective_series, y.traffic.collective_series, "frame " .. i)
      assert.are.equal(x.critical_path.tachyons, y.critical_path.tachyons, "frame " .. i)
    end
  end)
end)
