-- The SHMAP panels keep every number: at 16 PEs and 16 caches in 1280 x 720 with
-- every panel, each PE's row and each cache's hit ratio are in the statistics
-- panel's data() and drawn inside it; the legend lists every cache; a panel too
-- small says what it left out; separators, axes, IDs, the key line; --state last.
local h = require "helpers"
require "retrace"
local shmap = require "retrace.shmap"
local canvas = require "retrace.canvas"
local cjson = require "cjson"
local frame = require "retrace.displays.shmap.frame"

local function matmul_trace(n)
  local path = os.tmpname()
  local code, _, err = h.retrace(h.source .. "/examples/shmap/matmul.lua", tostring(n), path)
  assert(code == 0, err)
  return path
end

local function inside(x, y, r)
  return x >= r.x and y >= r.y and x < r.x + r.w and y < r.y + r.h
end

-- A frame of panels after `steps` steps on P PEs and C caches, drawn on a W x H image.
local function render(path, panels, P, C, W, H, steps)
  local t = assert(shmap.open(path))
  local sim = assert(shmap.sim { trace = t, pes = P, caches = C, cache_size = 256, line = 4 })
  local f = assert(frame.new(sim, t, { panels = panels, width = W, height = H, shades = 4, fade = 50,
                                       machine = { line = 4, cache_size = 256 } }))
  sim:step(steps)
  local cv = canvas.image(W, H)
  cv:background("white")
  f:update()
  f:draw(cv)
  return f, cv, sim
end

describe("the SHMAP statistics panel at 16 PEs and 16 caches, 1280 x 720, every panel", function()
  local path = matmul_trace(32)
  local f, cv, sim = render(path, "all", 16, 16, 1280, 720, 40)
  local d = f:data()
  local st = d.panels.stats
  local rect = d.rects.stats
  local stats = sim:stats()

  it("has every PE's row, inside the panel, with the PE's colour swatch drawn there", function()
    for p = 0, 15 do
      local row = st.pes[p + 1]
      assert.truthy(row, "PE " .. p)
      assert.are.same({ p, stats.pes[p + 1].loads, stats.pes[p + 1].stores },
        { row.pe, row.loads, row.stores })
      assert.truthy(inside(row.x, row.y, rect) and inside(row.x, row.y + row.h - 1, rect), "PE " .. p)
      assert.are.equal(row.color, h.pixel_hex(cv, row.x + 3, row.y + 4), "swatch of PE " .. p)
    end
  end)

  it("has every cache's hit ratio, inside the panel, and the totals", function()
    for c = 0, 15 do
      local row = st.caches[c + 1]
      assert.truthy(row, "cache " .. c)
      assert.are.equal(stats.caches[c + 1].hit_ratio, row.hit_ratio)
      assert.are.equal(string.format("%.1f%%", 100 * stats.caches[c + 1].hit_ratio), row.text)
      assert.truthy(inside(row.x, row.y + row.h - 1, rect), "cache " .. c)
    end
    assert.is_nil(st.cut)
    local last = st.rows[#st.rows]
    assert.truthy(last.y + st.size <= rect.y + rect.h)
    assert.are.equal(stats.totals.loads, st.totals.loads)
  end)

  it("keeps its text inside the panel: ink in the rows, none in the columns past its right", function()
    -- some dark ink on the row of PE 15 (the numbers), and the panel's right strip of
    -- the next pixels is the frame's white
    local row = st.pes[16]
    local ink = 0
    for x = row.x + 14, rect.x + rect.w - 1 do
      local r = cv:get_pixel(x, math.floor(row.y + row.h / 2))
      if r < 128 then ink = ink + 1 end
    end
    assert.truthy(ink > 20, "ink on PE 15's row: " .. ink)
  end)

  it("lists every cache in the legend, each with its PEs", function()
    local lg = d.panels.legend
    for c = 0, 15 do
      local item = lg.caches[c + 1]
      assert.truthy(item, "cache " .. c)
      assert.are.same({ c }, item.pes)
      assert.truthy(inside(item.x, item.y + item.h - 1, d.rects.legend), "cache " .. c)
    end
    assert.is_nil(lg.cut)
  end)

  it("draws line separators in the cache window and axes on the references", function()
    -- drawn again after the frame's flashes are cleared (white outlines would cover them)
    f.view:new_frame()
    f:update()
    f:draw(cv)
    local cd = f:data().panels.cache
    assert.truthy(cd.separators.lines)
    local r1 = cd.regions[1]
    -- the separator between line rows 1 and 2 of cache 0 (one line per row)
    local y = math.floor(r1.y + cd.cell - 1)
    assert.are.equal(require("retrace.displays.shmap.cache").line_sep, h.pixel_hex(cv, math.floor(r1.x + 1), y))
    local rf = d.panels.refs
    assert.are.equal(3, #rf.axes.y)
    assert.are.equal(2, rf.dot_w)
  end)

  it("labels each memory region with its matrix ID", function()
    local mem = d.panels.memory
    for i = 1, 3 do assert.are.equal(i, mem.ids[i].id) end
    local r = mem.ids[1]
    assert.are.equal(require("retrace.displays.shmap.memory").id_bg,
      h.pixel_hex(cv, mem.loads.x + r.x + r.w - 1, mem.loads.y + r.y + 1))
    -- the label says the matrix's shape when the region is wide enough, else its number
    for i = 1, 3 do
      local reg, id = mem.regions[i], mem.ids[i]
      local long = ("matrix %d (%d x %d)"):format(i, reg.rows, reg.cols)
      assert.truthy(id.label == long or id.label == tostring(i), id.label)
      if id.last_col then -- the last column's number is drawn (light pixels) where data says
        local lit = 0
        for dx = 0, 8 do
          for dy = 2, 8 do
            local hex = h.pixel_hex(cv, mem.loads.x + id.last_col.x + dx, mem.loads.y + id.last_col.y + dy)
            if hex ~= "#000000" then lit = lit + 1 end
          end
        end
        assert.is_true(lit > 0)
      end
    end
  end)
  os.remove(path)
end)

describe("the SHMAP panels when space runs out", function()
  it("the statistics say in the panel how many rows were left out", function()
    local path = matmul_trace(8)
    local f = render(path, "stats,active", 16, 16, 400, 200, 3)
    local st = f:data().panels.stats
    assert.truthy(st.cut, "a note")
    assert.matches("PE rows", st.cut)
    assert.matches("cache rows", st.cut)
    assert.are.equal(7, st.size)
    local shown = 0
    for _ in pairs(st.pes) do shown = shown + 1 end
    assert.truthy(shown < 16)
    os.remove(path)
  end)

  it("the lone memory panel gets a key line with every PE's colour", function()
    local path = matmul_trace(8)
    local f, cv = render(path, "memory", 16, 4, 1280, 720, 3)
    local key = f:data().key
    assert.truthy(key)
    assert.are.equal(0, key.left)
    for p = 0, 15 do
      local it = key.items[p + 1]
      assert.are.equal(it.color, h.pixel_hex(cv, it.x + 2, it.y + 2))
    end
    os.remove(path)
  end)

  it("flashes on cells under 5 pixels are outlined in white outside the cell", function()
    local path = matmul_trace(32)
    local f, cv = render(path, "memory", 4, 1, 300, 200, 3)
    local mem = f:data().panels.memory
    assert.truthy(mem.f < 5)
    assert.truthy(mem.small_flash)
    assert.truthy(mem.flashed.loads > 0)
    -- some white pixels on the load canvas (nothing else there is white)
    local white = 0
    for y = mem.loads.y, mem.loads.y + mem.loads.h - 1 do
      for x = mem.loads.x, mem.loads.x + mem.loads.w - 1 do
        if h.pixel_hex(cv, x, y) == "#ffffff" then white = white + 1 end
      end
    end
    assert.truthy(white > 0)
    os.remove(path)
  end)
end)

describe("retrace shmap --state last", function()
  it("writes the state after the last step, the same as naming that step", function()
    local fx = h.fixtures .. "/shmap/three_groups.shm"
    local d = h.temp_dir()
    local c1, _, e1 = h.retrace("shmap", fx, "--pes", "4", "--no-cache", "--fade", "1", "--state", "last", d .. "/a.json")
    assert.are.equal(0, c1, e1)
    local c2, _, e2 = h.retrace("shmap", fx, "--pes", "4", "--no-cache", "--fade", "1", "--state", "4", d .. "/b.json")
    assert.are.equal(0, c2, e2)
    local a, b = cjson.decode(h.slurp(d .. "/a.json")), cjson.decode(h.slurp(d .. "/b.json"))
    assert.are.equal(4, a.step)
    assert.are.same(b, a)
    h.remove_tree(d)
  end)

  it("refuses a step that is neither a number nor 'last' (exit 2)", function()
    local code, _, err = h.retrace("shmap", h.fixtures .. "/shmap/three_groups.shm", "--state", "final", "x.json")
    assert.are.equal(2, code)
    assert.matches("neither a whole number nor 'last'", err)
  end)
end)

describe("the SHMAP gray palette", function()
  it("keeps every PE's shades inside its own band of lightness, darker as they fade", function()
    for _, c in ipairs({ { 4, 4 }, { 16, 4 }, { 16, 8 }, { 3, 0 } }) do
      local P, K = c[1], c[2]
      local _, levels = frame.gray_palette(P, K)
      assert.are.equal(P * (K + 1), #levels)
      for p = 0, P - 1 do
        for s = 0, K do
          local v = levels[p * (K + 1) + s + 1]
          if s > 0 then assert.truthy(v < levels[p * (K + 1) + s], "fades darker") end
          -- above every level of the next PE, below every level of the previous one
          if p + 1 < P then assert.truthy(v > levels[(p + 1) * (K + 1) + 1], ("P=%d K=%d p=%d s=%d"):format(P, K, p, s)) end
          if p > 0 then assert.truthy(v < levels[(p - 1) * (K + 1) + K + 1]) end
          assert.truthy(v >= 64 and v <= 255)
        end
      end
    end
  end)

  it("is the palette a --gray frame draws with", function()
    local path = matmul_trace(8)
    local t = assert(shmap.open(path))
    local sim = assert(shmap.sim { trace = t, pes = 4, caches = 1, cache = false })
    local f = assert(frame.new(sim, t, { panels = "memory,legend", width = 800, height = 400, shades = 4, fade = 1,
                                         gray = true }))
    local _, levels = frame.gray_palette(4, 4)
    local v = levels[1 * 5 + 2 + 1] -- PE 1, shade 2
    assert.are.equal(string.format("#%02x%02x%02x", v, v, v), f.ctx.palette:hex(1 * 5 + 2))
    sim:close()
    os.remove(path)
  end)
end)
