-- paragraph --static / --timeline-html / --export chrome-json: one replay in C feeds
-- every whole-run output (retrace.pgscale.pass), so the trace is read twice in all
-- (pre-pass and this pass) whatever is asked, and no Lua function runs per record.
-- The C export is checked byte for byte against the Lua writer it replaced (a slow
-- model, tests/lua/chrome_ref.lua), the rasters against static_raster's own replay.
local h = require "helpers"
local cjson = require "cjson"
local core = require "retrace.core"
local pg = require "retrace.paragraph"
local pgscale = require "retrace.pgscale"
local ref = require "chrome_ref"

local read = h.slurp

local function traces()
  local list = { h.fixtures .. "/paragraph/hand4.trf" }
  for _, rel in ipairs({ "picl/fft-16.trf", "picl/mpicl-8b.trf", "otf2/pingpong/traces.otf2",
                         "paraver/qsort_beo3.prv", "paje/ms.trace", "paje/simu-mardi.trace" }) do
    local p = h.shared_file(rel)
    if p then list[#list + 1] = p end
  end
  return list
end

describe("the whole-run pass", function()
  if not h.shared_file("picl/fft-16.trf") then
    it("runs on the shared samples", function() pending("../shared is absent: only hand4.trf is checked") end)
  end

  for _, trace in ipairs(traces()) do
    local name = trace:match("[^/]+$")
    it("writes the chrome-json export of " .. name .. " as the Lua writer did, byte for byte", function()
      local info = assert(pg.prescan(trace))
      local dir = h.temp_dir()
      local want = assert(ref.chrome_json(trace, dir .. "/ref.json", { info = info,
        markers = { { proc = 0, time = info.span[1], name = "start \"here\"", args = { cluster = 2 } } } }))
      local got = assert(pgscale.chrome_json(trace, dir .. "/c.json", { info = info,
        markers = { { proc = 0, time = info.span[1], name = "start \"here\"", args = { cluster = 2 } } } }))
      assert.are.same(want, got)
      local a, b = read(dir .. "/ref.json"), read(dir .. "/c.json")
      assert.is_true(a == b, "the exports differ")
      assert.is_truthy(cjson.decode(b).traceEvents)
      h.remove_tree(dir)
    end)

    it("gives " .. name .. "'s rasters as static_raster's own replay does", function()
      local info = assert(pg.prescan(trace))
      local t0, t1 = info.span[1], info.span[2]
      if t1 <= t0 then t1 = t0 + 1 end
      local events = {}
      for i, p in ipairs(info.ps.procs) do events[i] = p.events end
      local asks = {
        a = { cols = 300, rows = math.min(info.P, 7), t0 = t0, t1 = t1, max_lines = 5 },
        b = { cols = 64, rows = info.P, t0 = t0 + (t1 - t0) / 3, t1 = t1, times = true, mix = 8 },
        c = { cols = 200, rows = info.P, t0 = t0, t1 = t1, sel = { info.P - 1, 0 } },
      }
      local res = assert(pgscale.pass(trace, info, { rasters = asks }))
      for k, o in pairs(asks) do
        local want = assert(core.paragraph.static_raster(trace, { cols = o.cols, rows = o.rows,
          procs = info.P, t0 = o.t0, t1 = o.t1, sel = o.sel, max_lines = o.max_lines or 10000, levels = 8,
          times = o.times, mix = o.mix, events = events }))
        local got = res.rasters[k]
        for _, f in ipairs({ "cols", "rows", "nsel", "messages", "tachyons", "max_count" }) do
          assert.are.equal(want[f], got[f], k .. "." .. f)
        end
        for _, f in ipairs({ "state", "lines", "density", "busy", "overhead", "idle", "counts" }) do
          assert.is_true(want[f] == got[f], k .. "." .. f .. " differs")
        end
        assert.are.same(want.row_first, got.row_first)
        assert.are.same(want.row_count, got.row_count)
      end
    end)
  end

  it("reads the trace twice for --static, --timeline-html and --export together, with the same files", function()
    local trace = h.shared_file("picl/mpicl-8b.trf") or (h.fixtures .. "/paragraph/hand4.trf")
    local dir = h.temp_dir()
    local code, out, err = h.retrace("paragraph", trace, "--static", "-o", dir .. "/all.png", "--timeline-html",
      dir .. "/all.html", "--export", "chrome-json", dir .. "/all.json", "--json")
    assert.are.equal(0, code, err)
    local s = cjson.decode(out)
    assert.are.equal(2, s.reads)
    -- each output alone: the same bytes
    local alone = {
      { "--static", "-o", dir .. "/one.png" },
      { "--timeline-html", dir .. "/one.html" },
      { "--export", "chrome-json", dir .. "/one.json" },
    }
    for _, a in ipairs(alone) do
      local c1, o1, e1 = h.retrace("paragraph", trace, "--json", table.unpack(a))
      assert.are.equal(0, c1, e1)
      assert.are.equal(2, cjson.decode(o1).reads)
    end
    assert.is_true(read(dir .. "/all.png") == read(dir .. "/one.png"), "the pictures differ")
    assert.is_true(read(dir .. "/all.html") == read(dir .. "/one.html"), "the pages differ")
    assert.is_true(read(dir .. "/all.json") == read(dir .. "/one.json"), "the exports differ")
    h.remove_tree(dir)
  end)

  it("names an export it cannot write, and leaves nothing behind", function()
    local trace = h.fixtures .. "/paragraph/hand4.trf"
    local dir = h.temp_dir()
    local code, _, err = h.retrace("paragraph", trace, "--export", "chrome-json", dir .. "/no/such/x.json")
    assert.are.equal(1, code)
    assert.matches("no/such/x.json", err, 1, true)
    -- a full disk: the write fails at the end, said in one line naming the file
    local c2, _, e2 = h.retrace("paragraph", trace, "--export", "chrome-json", "/dev/full")
    assert.are.equal(1, c2)
    assert.matches("/dev/full", e2, 1, true)
    assert.are.equal(1, select(2, e2:gsub("\n", "")))
    -- and the pass's own writer, asked from Lua, leaves nothing in the folder
    local ok = pgscale.chrome_json(trace, dir .. "/no/x.json", { info = assert(pg.prescan(trace)) })
    assert.is_nil(ok)
    local left = {}
    for f in require("lfs").dir(dir) do if f ~= "." and f ~= ".." then left[#left + 1] = f end end
    assert.are.same({}, left)
    h.remove_tree(dir)
  end)
end)
