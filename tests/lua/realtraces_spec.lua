-- Real traces as their own tools read them (issue 24), at the command line:
-- the chrome-json export checked against the Trace Event Format's nesting rule
-- on every sample trace, a trace whose regions do not nest, the warning total,
-- and `info` on an OTF2 anchor.
local h = require "helpers"
local cjson = require "cjson"
local lfs = require "lfs"

-- Nanoseconds of a microsecond time written with three decimals.
local function ns(us) return math.floor(us * 1000 + 0.5) end

--- The Trace Event Format's rule for complete events ("X"): on one track
-- (pid, tid), any two are disjoint or one contains the other. Returns true,
-- or false and a message naming the track and the two events.
local function check_nesting(doc)
  local tracks = {}
  for _, e in ipairs(doc.traceEvents) do
    if e.ph == "X" then
      local key = string.format("%d:%d", e.pid, e.tid)
      local t = tracks[key] or {}
      tracks[key] = t
      local a = ns(e.ts)
      t[#t + 1] = { a = a, b = a + ns(e.dur), name = e.name, cat = e.cat }
    end
  end
  for key, t in pairs(tracks) do
    table.sort(t, function(x, y)
      if x.a ~= y.a then return x.a < y.a end
      return x.b > y.b
    end)
    local stack = {}
    for _, s in ipairs(t) do
      while #stack > 0 and stack[#stack].b <= s.a do stack[#stack] = nil end
      local top = stack[#stack]
      if top and s.b > top.b then
        return false, string.format("track %s: %s [%d, %d] ns overlaps %s [%d, %d] ns without nesting", key,
          s.name, s.a, s.b, top.name, top.a, top.b)
      end
      stack[#stack + 1] = s
    end
  end
  return true, tracks
end

-- Every flow start has its end, and tracks hold states or regions, never both.
local function check_tracks(doc, tracks)
  local starts, ends = {}, {}
  for _, e in ipairs(doc.traceEvents) do
    if e.ph == "s" then starts[e.id] = e end
    if e.ph == "f" then ends[e.id] = e end
  end
  for id, s in pairs(starts) do
    assert.truthy(ends[id], "flow " .. id .. " has no end")
    assert.is_true(ends[id].ts >= s.ts or s.ts - ends[id].ts > 0) -- tachyons are allowed to run backwards
  end
  for key, t in pairs(tracks) do
    local cats = {}
    for _, s in ipairs(t) do cats[s.cat] = true end
    assert.is_false(cats.state and cats.user or false, "track " .. key .. " mixes states and regions")
  end
end

local function export(trace)
  local out = os.tmpname() .. ".json"
  local code, so, err = h.retrace("paragraph", trace, "--export", "chrome-json", out)
  assert.are.equal(0, code, err)
  local doc = cjson.decode(h.slurp(out))
  os.remove(out)
  return doc, so
end

-- Every sample trace (a file, or an OTF2 archive's anchor).
local function sample_traces()
  local out = {}
  local root = h.shared
  if not lfs.attributes(root, "mode") then return out end
  local function walk(dir)
    for name in lfs.dir(dir) do
      if name ~= "." and name ~= ".." then
        local p = dir .. "/" .. name
        local mode = lfs.attributes(p, "mode")
        if mode == "directory" then
          walk(p)
        elseif name:match("%.otf2$") or name:match("%.trf$") or name:match("%.trace$") or name:match("%.prv$") then
          out[#out + 1] = p
        end
      end
    end
  end
  walk(root)
  table.sort(out)
  return out
end

describe("chrome-json export", function()
  it("passes the nesting rule of the Trace Event Format on every sample trace", function()
    local traces = sample_traces()
    if #traces == 0 then
      print("../shared/data is absent: the sample traces are skipped")
      return
    end
    assert.is_true(#traces >= 9)
    for _, trace in ipairs(traces) do
      local doc = export(trace)
      local ok, tracks = check_nesting(doc)
      assert.is_true(ok, trace .. ": " .. tostring(tracks))
      check_tracks(doc, tracks)
    end
  end)

  it("mpicl-10: states and regions on separate tracks of each processor", function()
    local trace = h.shared_file("picl/mpicl-10.trf")
    if not trace then
      print("../shared/data is absent: mpicl-10 skipped")
      return
    end
    local doc = export(trace)
    local names, threads = {}, {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "M" and e.name == "process_name" then names[e.pid] = e.args.name end
      if e.ph == "M" and e.name == "thread_name" then
        threads[string.format("%d:%d", e.pid, e.tid)] = e.args.name
      end
    end
    for p = 0, 9 do
      assert.are.equal("processor " .. p, names[p + 1])
      assert.are.equal("states", threads[(p + 1) .. ":1"])
      assert.are.equal("regions", threads[(p + 1) .. ":2"])
    end
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "X" then assert.are.equal(e.cat == "state" and 1 or 2, e.tid) end
    end
  end)

  it("regions that do not nest go to a track of their own, each track nested", function()
    -- user events 1 and 2 interleave on processor 0: 1 [0, 2], 2 [1, 3]; 3 [4, 5] nests normally
    local trace = h.temp_file(table.concat({
      "-3 1 0.0 0 0 0", "-3 2 1.0 0 0 0", "-4 1 2.0 0 0 0", "-4 2 3.0 0 0 0",
      "-3 3 4.0 0 0 0", "-4 3 5.0 0 0 0", "" }, "\n"), ".trf")
    local doc, so = export(trace)
    local ok, tracks = check_nesting(doc)
    assert.is_true(ok, tostring(tracks))
    local where = {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "X" and e.cat == "user" then where[e.name] = { e.tid, e.ts, e.dur } end
    end
    assert.are.same({ 3, 0, 2e6 }, where["user event 1"])     -- closed while 2 was open: not nested 1
    assert.are.same({ 2, 1e6, 2e6 }, where["user event 2"])
    assert.are.same({ 2, 4e6, 1e6 }, where["user event 3"])
    local tn = {}
    for _, e in ipairs(doc.traceEvents) do
      if e.ph == "M" and e.name == "thread_name" then tn[math.tointeger(e.tid)] = e.args.name end
    end
    assert.are.equal("regions, not nested 1", tn[3])
    assert.truthy(so:find("complete", 1, true))
    -- the stated rule is counted by stats
    local _, out = h.retrace("stats", trace)
    assert.truthy(out:find("1 exit closed a region while regions of its group opened inside it were open", 1, true),
      out)
    os.remove(trace)
  end)
end)

describe("warnings", function()
  it("stats reports the total and how many were kept", function()
    local lines = {}
    for i = 1, 250 do lines[#lines + 1] = string.format("-4 5 %d.0 0 0 0", i) end
    local trace = h.temp_file(table.concat(lines, "\n") .. "\n", ".trf")
    local code, out = h.retrace("stats", trace)
    assert.are.equal(0, code)
    assert.truthy(out:find("250 warnings (the first 200 kept):", 1, true), out)
    local _, js = h.retrace("stats", "--json", trace)
    local j = cjson.decode(js)
    assert.are.equal(250, j.warnings_total)
    assert.are.equal(200, #j.warnings)
    os.remove(trace)
  end)
end)

describe("retrace info on an OTF2 anchor", function()
  it("gives its bytes, no line count and no detector score", function()
    local anchor = h.shared_file("otf2/pingpong/traces.otf2")
    if not anchor then
      print("../shared/data is absent: the OTF2 archive is skipped")
      return
    end
    local code, out = h.retrace("info", anchor)
    assert.are.equal(0, code)
    local size = lfs.attributes(anchor, "size")
    assert.truthy(out:find("\n  " .. size .. " bytes; an OTF2 anchor (.otf2)\n", 1, true), out)
    assert.falsy(out:find("lines", 1, true))
    assert.falsy(out:find("score", 1, true))
    local _, js = h.retrace("info", "--json", anchor)
    local j = cjson.decode(js)[1]
    assert.is_nil(j.lines)
    assert.are.equal(size, j.bytes)
    -- a text trace keeps its line count, and its evidence is no score either
    local _, t = h.retrace("info", h.shared_file("picl/fft-16.trf"))
    assert.truthy(t:find("624 lines", 1, true))
    assert.falsy(t:find("score", 1, true))
  end)
end)
