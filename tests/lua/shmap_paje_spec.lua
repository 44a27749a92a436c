-- `retrace shmap --paje`: a SHMAP run as a Pajé trace (one container per PE, one second per
-- step) for `retrace view` and `retrace stats`. Every step of every PE is checked against a
-- second simulation of the same machine stepped from Lua: the state named by the event
-- sim:active() reports, the hits and misses counted from sim:on_access.
local h = require "helpers"
local shmap = require "retrace.shmap"
local cjson = require "cjson"

local MACHINE = { "--pes", "4", "--caches", "2", "--cache-size", "64", "--line", "4", "--ways", "2" }

-- The name a step's event gets (what the writer promises in docs/shmap.md).
local function name_of(ev)
  if not ev then return "idle" end
  if ev.op == "load" or ev.op == "store" then return ev.op .. " matrix " .. ev.matrix end
  if ev.op == "flops" then return ev.name ~= "" and ev.name or "flops" end
  return "message"
end

-- The reference: per step per PE the state's name, hits and misses.
local function reference(path, opts)
  local t = assert(shmap.open(path))
  local o = { trace = t }
  for k, v in pairs(opts) do o[k] = v end
  local sim = assert(shmap.sim(o))
  local steps, hits, misses = {}, {}, {}
  sim:on_access(function(a)
    local key = a.step .. ":" .. a.pe
    if a.hit == true then hits[key] = (hits[key] or 0) + 1 elseif a.hit == false then misses[key] = (misses[key] or 0) + 1 end
  end)
  repeat
    local _, finished = sim:step(1)
    local act = sim:active()
    if not finished or act.count > 0 then
      local row = {}
      for p = 1, opts.pes do row[p] = name_of(act[p] or nil) end
      steps[act.step] = row
    end
  until finished
  sim:close()
  t:close()
  return steps, hits, misses
end

-- The file read back: per PE the state and counter values set at each time, as step functions.
local function read_back(path)
  local set = { S = {}, H = {}, M = {} }
  local destroyed = {}
  for line in io.lines(path) do
    local t, typ, pe, v = line:match('^5 (%d+) (S) pe(%d+) "(.*)"$')
    if not t then t, typ, pe, v = line:match("^6 (%d+) ([HM]) pe(%d+) (%d+)$") end
    if t then
      local per = set[typ]
      per[tonumber(pe)] = per[tonumber(pe)] or {}
      table.insert(per[tonumber(pe)], { tonumber(t), typ == "S" and v or tonumber(v) })
    end
    local dt, dpe = line:match("^4 (%d+) PE pe(%d+)$")
    if dt then destroyed[tonumber(dpe)] = tonumber(dt) end
  end
  -- the value holding at time x (nil before the first)
  local function at(typ, pe, x)
    local v
    for _, s in ipairs(set[typ][pe] or {}) do
      if s[1] <= x then v = s[2] else break end
    end
    return v
  end
  return at, destroyed
end

describe("retrace shmap --paje", function()
  local work
  setup(function() work = h.temp_dir() end)
  teardown(function() h.remove_tree(work) end)

  local function lu(variant, n)
    local trace = work .. "/lu_" .. variant .. n .. ".shm"
    local code, _, err = h.retrace(h.source .. "/examples/shmap/lu.lua", variant, tostring(n), trace)
    assert.equal(0, code, err)
    return trace
  end

  it("writes every PE's state, hits and misses of every step", function()
    for _, case in ipairs { { "kji", 12, {} }, { "jki", 10, { "--write-back" } } } do
      local trace = lu(case[1], case[2])
      local out = work .. "/" .. case[1] .. ".trace"
      local args = { "shmap", trace, table.unpack(MACHINE) }
      for _, a in ipairs(case[3]) do args[#args + 1] = a end
      args[#args + 1] = "--paje"
      args[#args + 1] = out
      args[#args + 1] = "--json"
      local code, json, err = h.retrace(table.unpack(args))
      assert.equal(0, code, err)
      local steps_run = cjson.decode(json).steps
      local steps, hits, misses = reference(trace, { pes = 4, caches = 2, cache_size = 64, line = 4, ways = 2,
        write_back = case[3][1] == "--write-back" })
      local at, destroyed = read_back(out)
      assert.equal(steps_run, #steps)
      local bad, seen_miss = 0, 0
      for k = 1, #steps do
        for p = 0, 3 do
          local key = k .. ":" .. p
          local want = { steps[k][p + 1], hits[key] or 0, misses[key] or 0 }
          local got = { at("S", p, k - 1), at("H", p, k - 1), at("M", p, k - 1) }
          if want[1] ~= got[1] or want[2] ~= got[2] or want[3] ~= got[3] then
            bad = bad + 1
            assert.are.same(want, got, ("step %d PE %d"):format(k, p))
          end
          seen_miss = seen_miss + want[3]
        end
      end
      assert.equal(0, bad)
      assert.is_true(seen_miss > 0) -- the machine misses: the counters are not all zero
      for p = 0, 3 do assert.equal(#steps, destroyed[p]) end
    end
  end)

  it("gives retrace stats the run's busy steps per PE and steps per kind of event", function()
    local trace = lu("kji", 12)
    local out = work .. "/stats.trace"
    local args = { "shmap", trace, table.unpack(MACHINE) }
    for _, a in ipairs { "--paje", out, "--json" } do args[#args + 1] = a end
    local code, json, err = h.retrace(table.unpack(args))
    assert.equal(0, code, err)
    local run = cjson.decode(json)
    local code2, sjson, err2 = h.retrace("stats", out, "--json")
    assert.equal(0, code2, err2)
    local st = cjson.decode(sjson)
    assert.are.same({ 0, run.steps }, st.span)
    local t = assert(shmap.open(trace))
    local info = t:info()
    t:close()
    local per_name = {}
    for i, p in ipairs(st.processors) do
      -- each event takes one step: busy time in seconds is the PE's events
      assert.equal(run.pes[i].events, p.busy)
      assert.equal(run.steps - run.pes[i].events, p.idle)
      for r, e in pairs(p.events) do
        local name = st.regions[r].name
        per_name[name] = (per_name[name] or 0) + e.time
      end
    end
    assert.equal(info.loads, per_name["load matrix 1"])
    assert.equal(info.stores, per_name["store matrix 1"])
  end)

  it("without caches writes states only", function()
    local trace = lu("kji", 6)
    local out = work .. "/nocache.trace"
    local code, _, err = h.retrace("shmap", trace, "--pes", "3", "--no-cache", "--paje", out)
    assert.equal(0, code, err)
    local text = h.slurp(out)
    assert.is_nil(text:find("PajeSetVariable\n.-\n6 ", 1))
    assert.is_nil(text:find("\n2 H ", 1, true))
    assert.truthy(text:find('\n5 0 S pe0 "', 1, true))
  end)

  it("refuses an unwritable output in one line and leaves nothing", function()
    local trace = lu("kji", 6)
    local out = work .. "/no/such/dir/run.trace"
    local code, _, err = h.retrace("shmap", trace, "--paje", out)
    assert.equal(1, code)
    assert.truthy(err:find("run.trace: cannot write", 1, true), err)
    assert.equal(1, select(2, err:gsub("\n", "")))
    local code2, _, err2 = h.retrace("shmap", trace, "--paje", work .. "/x.trace", "--frames", work .. "/f")
    assert.equal(2, code2)
    assert.truthy(err2:find("--paje", 1, true), err2)
    assert.is_nil(io.open(work .. "/x.trace"))
  end)
end)
