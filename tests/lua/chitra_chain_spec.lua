-- Chitra chain pictures laid out by Graphviz (retrace.graph, displays/chitra/chain):
-- labels on their arcs, arcs from box to box, --min-prob, composites in natural order,
-- probabilities printed with enough digits; the frequency view's reduced columns,
-- peaks and labels; the library's dependency direction.
local h = require "helpers"
require "retrace"
local chitra = require "retrace.chitra"
local chain_mod = require "retrace.chitra.chain"
local graph = require "retrace.graph"
local canvas = require "retrace.canvas"
local chainv = require "retrace.displays.chitra.chain"
local freqv = require "retrace.displays.chitra.frequency"
local views = require "retrace.displays.chitra.views"
local cjson = require "cjson"

local PHIL4 = h.source .. "/examples/chitra/phil4_x100.pes"

local function phil4_chain()
  local ses = assert(chitra.load(PHIL4))
  assert(ses:apply(assert(chitra.recipe("philosophers"))))
  return assert(ses:chain()), ses
end

describe("probabilities and composite names", function()
  it("prints probabilities with enough digits, never 0% or 100% for 0 < p < 1", function()
    local cases = { { 1, "100%" }, { 0.5, "50%" }, { 0.125, "12.5%" }, { 0.005, "0.5%" },
                    { 0.0049, "0.49%" }, { 0.003, "0.3%" }, { 0.0004, "0.04%" }, { 0.000012, "0.0012%" },
                    { 0.99996, "99.996%" }, { 0.1234, "12.3%" }, { 0, "0%" } }
    for _, c in ipairs(cases) do assert.equal(c[2], chain_mod.percent(c[1]), tostring(c[1])) end
    math.randomseed(4)
    for _ = 1, 2000 do
      local p = math.random() ^ 8 -- many tiny ones
      local s = chain_mod.percent(p)
      assert.are_not.equal("0%", s)
      assert.are_not.equal("100%", s)
      assert.near(100 * p, tonumber(s:sub(1, -2)), 100 * p * 0.06 + 0.05) -- within the digits shown
    end
  end)

  it("sorts composites T1, T2, ..., T10 in natural order", function()
    assert.same({ "A", "T1", "T2", "T3", "T10", "T21" }, chain_mod.natural_sort { "T10", "T2", "T1", "T21", "T3", "A" })
    local ses = assert(chitra.load(PHIL4))
    assert(ses:filter_event(2))
    local names = ses:chain():composite_names()
    assert.truthy(#names >= 10)
    for i, n in ipairs(names) do assert.equal("T" .. i, n) end
    local code, out = h.retrace("chitra", PHIL4, "--filter-event", "2")
    assert.equal(0, code)
    local listed = {}
    for n in out:gmatch("\n  (T%d+) = ") do listed[#listed + 1] = n end
    assert.same(names, listed)
  end)
end)

describe("graph layout (Graphviz)", function()
  -- a hand-made 3-state chain: A -> B -> C -> A, a back arc B -> A and a self-loop on B
  local nodes = { { w = 60, h = 30 }, { w = 80, h = 40 }, { w = 50, h = 30 } }
  local edges = { { from = 1, to = 2, weight = 5, label_w = 30, label_h = 12 }, { from = 2, to = 3 },
                  { from = 3, to = 1, label_w = 30, label_h = 12 }, { from = 2, to = 1, label_w = 24, label_h = 12 },
                  { from = 2, to = 2, label_w = 24, label_h = 12 } }

  for _, engine in ipairs { "dot", "neato" } do
    it("puts every edge's ends on its nodes' boxes (" .. engine .. ")", function()
      local l = assert(graph.layout { nodes = nodes, edges = edges, engine = engine })
      assert.equal(3, #l.nodes)
      for j, e in ipairs(edges) do
        local le = l.edges[j]
        local a, b = l.nodes[e.from], l.nodes[e.to]
        assert.equal(0, (#le.points // 2 - 1) % 3) -- 1 + 3k Bezier points
        local d0 = graph.box_distance(le.points[1], le.points[2], a[1], a[2], nodes[e.from].w, nodes[e.from].h)
        local d1 = graph.box_distance(le.head[1], le.head[2], b[1], b[2], nodes[e.to].w, nodes[e.to].h)
        assert.truthy(math.abs(d0) < 2, "edge " .. j .. " starts " .. d0 .. " from its tail")
        assert.truthy(math.abs(d1) < 2, "edge " .. j .. " ends " .. d1 .. " from its head")
        assert.equal(e.label_w ~= nil, le.label ~= nil)
        if le.label then
          assert.truthy(graph.distance(le.label[1], le.label[2], graph.flatten(le.points)) < 30)
        end
      end
    end)
  end

  it("refuses edges to missing nodes and bad sizes", function()
    local ok, err = pcall(graph.layout, { nodes = nodes, edges = { { from = 1, to = 4 } } })
    assert.is_false(ok)
    assert.truthy(err:find("layout: edge 1: from and to must be node numbers 1..3", 1, true))
    local l, why = graph.layout { nodes = { { w = 0, h = 3 } }, edges = {} }
    assert.is_nil(l)
    assert.equal("layout: node 1: width and height must be positive", why)
    assert.equal(0, #assert(graph.layout { nodes = {}, edges = {} }).nodes)
  end)

  it("measures distances to polylines and boxes", function()
    assert.equal(5, graph.distance(3, 4, { 0, 0 }))
    assert.equal(2, graph.distance(5, 2, { 0, 0, 10, 0 }))
    assert.equal(5, graph.distance(13, 4, { 0, 0, 10, 0 }))
    assert.equal(0, graph.box_distance(10, 0, 0, 0, 20, 10))
    assert.equal(3, graph.box_distance(13, 0, 0, 0, 20, 10))
    local line = graph.flatten { 0, 0, 10, 0, 20, 0, 30, 0 }
    assert.equal(18, #line)
    assert.equal(30, line[17])
  end)
end)

describe("chain picture", function()
  it("lays out the philosophers' chain by Graphviz with every label by its arc", function()
    local chain = phil4_chain()
    assert.equal(60, #chain.states)
    local path = os.tmpname() .. ".png"
    local d = assert(chainv.render(chain, path, { min_prob = 0 }))
    os.remove(path)
    assert.equal("dot", d.engine)
    assert.equal(#chain.arcs, #d.arcs)
    assert.equal(0, d.hidden)
    local labelled = 0
    for j, arc in ipairs(d.arcs) do
      local pl = d.placed.arcs[j]
      assert.truthy(#pl.poly >= 8)
      if arc.p < 1 then
        labelled = labelled + 1
        assert.equal(chain_mod.percent(arc.p), arc.label)
        local dist = graph.distance(pl.label[1], pl.label[2], pl.poly)
        assert.truthy(dist <= 20, string.format("label %s of %s -> %s is %.1f px from its arc",
          arc.label, arc.from, arc.to, dist))
      else
        assert.is_nil(arc.label)
      end
      -- the arc leaves its tail's box and its arrow reaches its head's box
      local a, b = d.placed.states[arc.from], d.placed.states[arc.to]
      assert.truthy(math.abs(graph.box_distance(pl.poly[1], pl.poly[2], a[1], a[2], a[3], a[4])) < 3)
      assert.truthy(math.abs(graph.box_distance(pl.poly[#pl.poly - 1], pl.poly[#pl.poly], b[1], b[2],
        b[3], b[4])) < 3)
    end
    assert.truthy(labelled > 50)
    -- wider arcs for more frequent transitions
    table.sort(d.arcs, function(x, y) return x.count < y.count end)
    for j = 2, #d.arcs do assert.truthy(d.arcs[j].width >= d.arcs[j - 1].width) end
  end)

  it("draws a hand-made 3-state chain with every arc from box to box", function()
    local chain = assert(chain_mod.from_table {
      states = { A = { n = 10, mean = 2, var = 1 }, B = { n = 10, mean = 3, var = 0 }, C = { n = 4, mean = 1, var = 0 } },
      transitions = { A = { B = 1 }, B = { C = 0.4, A = 0.6 }, C = { A = 1 } }, initial = "A" })
    local disp = assert(chainv.new(chain))
    disp:draw(canvas.image(500, 500, "white"), { x = 0, y = 0, w = 500, h = 500 })
    local d = disp:data()
    assert.equal(3, #d.states)
    assert.equal(4, #d.arcs)
    local by = {}
    for _, st in ipairs(d.states) do by[st.name] = st end
    for j, arc in ipairs(d.arcs) do
      -- in the layout (points) and where it was drawn (pixels)
      local a, b = by[arc.from], by[arc.to]
      assert.truthy(math.abs(graph.box_distance(arc.points[1], arc.points[2], a.x, a.y, a.w, a.h)) < 2)
      assert.truthy(math.abs(graph.box_distance(arc.head[1], arc.head[2], b.x, b.y, b.w, b.h)) < 2)
      local pl, pa, pb = d.placed.arcs[j], d.placed.states[arc.from], d.placed.states[arc.to]
      assert.truthy(math.abs(graph.box_distance(pl.poly[1], pl.poly[2], pa[1], pa[2], pa[3], pa[4])) < 2)
      assert.truthy(math.abs(graph.box_distance(pl.poly[#pl.poly - 1], pl.poly[#pl.poly], pb[1], pb[2],
        pb[3], pb[4])) < 2)
      assert.equal(arc.p < 1, pl.label ~= nil)
    end
    -- the boxes sit inside the picture and apart
    local names = { "A", "B", "C" }
    for i, n in ipairs(names) do
      local p = d.placed.states[n]
      assert.truthy(p[1] - p[3] / 2 >= 0 and p[1] + p[3] / 2 <= 500 and p[2] - p[4] / 2 >= 0)
      for k = 1, i - 1 do
        local q = d.placed.states[names[k]]
        assert.truthy(math.abs(p[1] - q[1]) >= (p[3] + q[3]) / 2 or math.abs(p[2] - q[2]) >= (p[4] + q[4]) / 2)
      end
    end
    assert.same({ "B", "A", "60%" }, { d.arcs[2].from, d.arcs[2].to, d.arcs[2].label })
    assert.same({ "B", "C", "40%" }, { d.arcs[3].from, d.arcs[3].to, d.arcs[3].label })
  end)

  it("hides arcs below --min-prob and says how many", function()
    local chain = phil4_chain()
    local rare = 0
    for _, a in ipairs(chain.arcs) do if a.p < 0.1 then rare = rare + 1 end end
    assert.truthy(rare > 5)
    local disp = assert(chainv.new(chain, { min_prob = 0.1 }))
    disp:draw(canvas.image(1600, 2600, "white"), { x = 0, y = 0, w = 1600, h = 2600 })
    local d = disp:data()
    assert.equal(rare, d.hidden)
    assert.equal(#chain.arcs - rare, #d.arcs)
    for _, a in ipairs(d.arcs) do assert.truthy(a.p >= 0.1) end
    assert.truthy(d.notes[#d.notes]:find(rare .. " arcs below 10% hidden.", 1, true))
    assert.is_nil(chainv.data(chain, { min_prob = 1 }))
    -- without min_prob a dense chain keeps its max_arcs most probable arcs
    local keep, p = chainv.auto_arcs(chain, 40)
    local kept, top_dropped = 0, 0
    for _, a in ipairs(chain.arcs) do
      if keep[a] then kept = kept + 1; assert.truthy(a.p >= p)
      elseif a.p > top_dropped then top_dropped = a.p end
    end
    assert.equal(40, kept)
    assert.truthy(top_dropped <= p) -- no dropped arc is more probable than a kept one
    local _, none = chainv.auto_arcs(chain, #chain.arcs)
    assert.equal(0, none)
  end)

  it("draws a cycle of 160 states, every arc of probability 1 (ranks, not a threshold)", function()
    local states, times = {}, {}
    for i = 1, 3 * 160 do states[i] = "C" .. ((i - 1) % 160); times[i] = i end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    local chain = assert(ses:chain())
    assert.truthy(#chain.arcs > 150)
    local disp = assert(chainv.new(chain))
    local d = disp:data()
    assert.equal(150, #d.arcs)
    assert.equal(#chain.arcs - 150, d.hidden)
    for _, a in ipairs(d.arcs) do assert.equal(1, a.p) end
    -- and through the command line, views included (it exited 2 with "min_prob must be ...")
    local pes = os.tmpname()
    local f = assert(io.open(pes, "w"))
    for i = 1, #states do f:write(states[i], " ", times[i], "\n") end
    f:close()
    local dir = os.tmpname(); os.remove(dir)
    local code, _, err = h.retrace("chitra", pes, "--views", dir, "--chain", dir .. "/c.json")
    assert.equal(0, code, err)
    local v = cjson.decode(h.slurp(dir .. "/views.json"))
    assert.equal(150, #v.chain.picture.arcs)
    os.remove(pes)
  end)

  it("keeps a huge chain's picture to the states its shown arcs touch", function()
    local states, times = {}, {}
    for i = 1, 400 do states[i] = "D" .. i; times[i] = i end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    local d = assert(chainv.data(assert(ses:chain())))
    assert.equal(150, #d.arcs)
    assert.truthy(#d.states <= 151 + 1)
    assert.equal(#ses:chain().states - #d.states, d.hidden_states)
  end)

  it("takes --min-prob on the command line", function()
    local out = os.tmpname() .. ".svg"
    local code, _, err = h.retrace("chitra", PHIL4, "--recipe", "philosophers", "--chain", out, "--min-prob", "0.25")
    assert.equal(0, code, err)
    assert.truthy(h.slurp(out):find("<svg", 1, true))
    os.remove(out)
    code, _, err = h.retrace("chitra", PHIL4, "--chain", out, "--min-prob", "2")
    assert.equal(2, code)
    assert.equal("retrace: --min-prob expects a probability 0 <= P < 1, got '2'\n", err)
  end)
end)

describe("frequency view of long sequences", function()
  local function random_ses(n, nsym, seed)
    math.randomseed(seed)
    local states, times, t = {}, {}, 0
    for i = 1, n do
      states[i] = "S" .. math.random(nsym)
      times[i] = t
      t = t + math.random(1, 9)
    end
    return assert(chitra.from_states { { states = states, times = times } })
  end

  -- The spectrum by its definition (a direct DFT, O(L^2) per segment): Hann-windowed
  -- segments of L samples overlapping by half, each segment's mean removed,
  -- |X_k|^2 / sum(w^2) averaged over the segments.
  local function direct_welch(x, L)
    local N = #x
    if L == 0 or L >= N then L = N end
    local hop = math.max(1, L // 2)
    local segs = L == N and 1 or (N - L) // hop + 1
    local w, wsum = {}, 0
    for j = 0, L - 1 do w[j] = 0.5 - 0.5 * math.cos(2 * math.pi * j / L); wsum = wsum + w[j] ^ 2 end
    local p = {}
    for k = 0, L // 2 do p[k] = 0 end
    for sg = 0, segs - 1 do
      local mean = 0
      for j = 0, L - 1 do mean = mean + x[sg * hop + j + 1] end
      mean = mean / L
      for k = 0, L // 2 do
        local re, im = 0, 0
        for j = 0, L - 1 do
          local v = (x[sg * hop + j + 1] - mean) * w[j]
          re = re + v * math.cos(2 * math.pi * k * j / L)
          im = im - v * math.sin(2 * math.pi * k * j / L)
        end
        p[k] = p[k] + (re * re + im * im) / wsum
      end
    end
    for k = 0, L // 2 do p[k] = p[k] / segs end
    return p, L, segs
  end

  -- the state signal: each element's row (order of first appearance)
  local function ranks(ses)
    local rank, x, next_row = {}, {}, 0
    for i, sym in ipairs(ses:symbols(1)) do
      if not rank[sym] then rank[sym] = next_row; next_row = next_row + 1 end
      x[i] = rank[sym]
    end
    return x
  end

  it("reduces the whole-signal spectrum to pixel columns in C, as a direct computation does", function()
    local ses = random_ses(1001, 7, 2) -- 1000 elements
    local p = direct_welch(ranks(ses), 0)
    -- column counts sharing no factor with the 500 bins: no bin on a column edge
    for _, w in ipairs { 1, 53, 331 } do
      local d = assert(freqv.data(ses, { columns = w, peaks = 6, full = true }))
      assert.is_nil(d.freq) -- 500 bins, more than the columns: no per-bin lists
      assert.equal(500, d.bins)
      assert.equal(1, d.segments)
      local c = d.columns
      assert.equal(w, #c.count)
      local count, lo, hi, sum = {}, {}, {}, {}
      for i = 1, w do count[i], sum[i] = 0, 0 end
      for k = 1, 500 do
        local i = math.min(w, math.floor(k / 1000 / d.fmax * w) + 1)
        count[i] = count[i] + 1
        sum[i] = sum[i] + p[k]
        lo[i] = math.min(lo[i] or p[k], p[k])
        hi[i] = math.max(hi[i] or p[k], p[k])
      end
      assert.same(count, c.count)
      for i = 1, w do
        if count[i] > 0 then
          assert.near(lo[i], c.min[i], 1e-9 * (1 + hi[i]))
          assert.near(hi[i], c.max[i], 1e-9 * (1 + hi[i]))
          assert.near(sum[i] / count[i], c.mean[i], 1e-9 * (1 + hi[i]))
        end
      end
      -- the labels: the strongest bins that are the largest within max(2, bins / columns)
      -- either side and reach 1% of the strongest bin
      local guard, top, cand = math.max(2, 500 // w), 0, {}
      for k = 1, 500 do top = math.max(top, p[k]) end
      for k = 1, 500 do
        local best = p[k] >= 0.01 * top
        for j = math.max(1, k - guard), math.min(500, k + guard) do
          if p[j] > p[k] or (p[j] == p[k] and j < k) then best = false end
        end
        if best then cand[#cand + 1] = p[k] end
      end
      table.sort(cand, function(x, y) return x > y end)
      assert.equal(math.min(6, #cand), #d.peaks)
      for j = 1, #d.peaks do assert.near(cand[j], d.peaks[j].power, 1e-9 * cand[1]) end
    end
  end)

  it("averages Hann-windowed segments sized to the picture (Welch), as a direct computation does", function()
    local ses = random_ses(300, 5, 4) -- 299 elements
    local d = assert(freqv.data(ses, { columns = 32, peaks = 3 }))
    assert.equal(64, freqv.segment_for(32))
    assert.equal(128, freqv.segment_for(33))
    local p, L, segs = direct_welch(ranks(ses), 64)
    assert.equal(64, d.segment)
    assert.equal(segs, d.segments)
    assert.equal(8, segs) -- (299 - 64) // 32 + 1
    assert.equal(L // 2, d.bins)
    for k = 1, L // 2 do assert.near(p[k], d.power[k], 1e-9 * (1 + p[k])) end
    assert.near(0.5, d.fmax, 1e-12)
    -- a zoom: events 100..220 only
    local z = assert(freqv.data(ses, { columns = 32, range = { 100, 220 } }))
    local x = ranks(ses)
    -- the rank of each symbol stays the whole run's (the rows of the views)
    local pz = direct_welch(table.move(x, 101, 220, 1, {}), 64)
    for k = 1, 32 do assert.near(pz[k], z.power[k], 1e-9 * (1 + pz[k])) end
    assert.equal(2, z.segments) -- 120 samples: (120 - 64) / 32 + 1
  end)

  it("labels no side lobe of a strong peak", function()
    -- a cycle of period 10 over a length that is no multiple of it: the energy
    -- leaks into the neighbouring bins, whose local maxima are side lobes
    local states, times = {}, {}
    for i = 1, 1005 do states[i] = "C" .. (i % 10); times[i] = i end
    local ses = assert(chitra.from_states { { states = states, times = times } })
    for _, full in ipairs { true, false } do
      local d = assert(freqv.data(ses, { columns = 900, peaks = 8, full = full }))
      assert.truthy(#d.peaks >= 3)
      for _, pk in ipairs(d.peaks) do
        -- every label is at a harmonic j / 10 (within the bin spacing and the lobe)
        local j = math.floor(pk.freq * 10 + 0.5)
        assert.truthy(j >= 1 and math.abs(pk.freq - j / 10) <= 2.5 / (2 * d.bins),
          string.format("peak at %g (full %s) is no harmonic of 1/10", pk.freq, tostring(full)))
      end
    end
  end)

  it("labels peaks without overlapping text", function()
    local ses = random_ses(4000, 12, 9)
    local disp = assert(freqv.new(ses, { peaks = 40, columns = 500 }))
    local cv = canvas.image(600, 300, "white")
    disp:draw(cv, { x = 0, y = 0, w = 600, h = 300 })
    local d = disp:data()
    local drawn = d.placed_labels.drawn
    assert.truthy(#drawn >= 5)
    assert.truthy(#d.placed_labels.dropped > 0) -- 40 peaks do not all fit
    for i = 1, #drawn do
      for j = 1, i - 1 do
        local a, b = drawn[i].box, drawn[j].box
        local overlap = a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h
        assert.is_false(overlap, drawn[i].text .. " overlaps " .. drawn[j].text)
      end
    end
    -- the strongest peak is at its pixel: the plot's mapping finds the marker
    local px, py = require("retrace.plot").to_pixel(d, d.peaks[1].freq, d.peaks[1].power)
    local r, g, b = cv:get_pixel(math.floor(px), math.floor(py))
    assert.truthy(r > 150 and g < 80 and b < 100, string.format("%d,%d,%d", r, g, b)) -- crimson
  end)

  it("keeps views.json bounded whatever the length", function()
    local sizes = {}
    for i, n in ipairs { 20000, 200000 } do
      local dir = h.temp_dir()
      assert(views.write_all(random_ses(n, 9, i), dir, { shade = { "S1,S2" } }))
      local text = h.slurp(dir .. "/views.json")
      sizes[i] = #text
      local data = cjson.decode(text)
      assert.is_nil(data.frequency.freq)
      assert.is_nil(data.time.x0)
      assert.truthy(data.time.columns)
      h.remove_tree(dir)
    end
    assert.truthy(sizes[2] < 1.25 * sizes[1], sizes[1] .. " -> " .. sizes[2])
    assert.truthy(sizes[2] < 1000000)
  end)
end)

describe("objects", function()
  it("print what they are", function()
    local chain, ses = phil4_chain()
    assert.equal("retrace.chitra session (1 member, 2000 symbols, 1 transforms)", tostring(ses))
    assert.equal(string.format("retrace.chitra chain (60 states, %d arcs)", #chain.arcs), tostring(chain))
    local disp = assert(chainv.new(chain, { min_prob = 0.5 }))
    assert.truthy(tostring(disp):find("^retrace.Display%(chitra chain, 60 states, %d+ arcs%)$"))
    assert.equal("retrace.Display(chitra frequency)", tostring(assert(freqv.new(ses))))
    ses:close()
    assert.equal("retrace.chitra session (closed)", tostring(ses))
  end)
end)

describe("dependency direction", function()
  it("the Chitra library requires neither displays nor the CLI helpers", function()
    local files = { h.source .. "/lua/retrace/graph.lua" }
    local p = io.popen("ls " .. h.quote(h.source .. "/lua/retrace/chitra") .. "/*.lua "
      .. h.quote(h.source .. "/lua/retrace/chitra/recipes") .. "/*.lua")
    for f in p:lines() do files[#files + 1] = f end
    p:close()
    assert.truthy(#files >= 4)
    for _, f in ipairs(files) do
      local text = h.slurp(f)
      for _, bad in ipairs { "retrace%.cli", "retrace%.displays", "displays%." } do
        assert.is_nil(text:find("require[%s%(]*[\"']" .. bad), f .. " requires " .. bad)
      end
    end
  end)
end)
