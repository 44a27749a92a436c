-- A Pajé trace read in byte ranges under mpirun: each rank reads its range, the ranks number
-- processors, regions and counters by first use as the serial reader does, pair each link's
-- ends wherever they are, and replay their own containers. The results, warnings, static
-- picture and chrome-json export must be the serial run's byte for byte, and no rank may fall
-- back to reading the whole file (RETRACE_PAR_DEBUG tells when it does).
local h = require "helpers"

local HEADER = [[
%EventDef PajeDefineContainerType 0
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineStateType 1
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineEventType 2
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineVariableType 3
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeDefineLinkType 4
% Alias string
% Type string
% StartContainerType string
% EndContainerType string
% Name string
%EndEventDef
%EventDef PajeDefineEntityValue 5
% Alias string
% Type string
% Name string
%EndEventDef
%EventDef PajeCreateContainer 6
% Time date
% Alias string
% Type string
% Container string
% Name string
%EndEventDef
%EventDef PajeDestroyContainer 7
% Time date
% Type string
% Name string
%EndEventDef
%EventDef PajeSetState 8
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePushState 9
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajePopState 10
% Time date
% Type string
% Container string
%EndEventDef
%EventDef PajeResetState 11
% Time date
% Type string
% Container string
%EndEventDef
%EventDef PajeNewEvent 12
% Time date
% Type string
% Container string
% Value string
%EndEventDef
%EventDef PajeSetVariable 13
% Time date
% Type string
% Container string
% Value double
%EndEventDef
%EventDef PajeAddVariable 14
% Time date
% Type string
% Container string
% Value double
%EndEventDef
%EventDef PajeSubVariable 15
% Time date
% Type string
% Container string
% Value double
%EndEventDef
%EventDef PajeStartLink 16
% Time date
% Type string
% Container string
% StartContainer string
% Value string
% Key string
%EndEventDef
%EventDef PajeEndLink 17
% Time date
% Type string
% Container string
% EndContainer string
% Value string
% Key string
%EndEventDef
%EventDef PajeSomethingElse 18
% Time date
%EndEventDef
]]

-- A trace of about `steps` event lines over machines and processes that come and go:
-- states set, pushed, popped (some on empty stacks), reset; values used by alias, by name,
-- and one used before its definition; variables on processes and on machines (never
-- processors), added to across the file; links with reused keys, ends read before their
-- starts, one never ended; a time that goes backwards; comments, blank and unknown lines.
local function paje_text(steps, seed, backwards)
  local x = seed
  local function rnd(n) -- a small LCG: the same trace on every run
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n
  end
  local out = { HEADER,
    '0 M 0 "Machine"', '0 P M "Process"', '1 S P "State"', '2 E P "Mark"', '3 V P "Queue"',
    '3 W M "Load"', '4 L 0 P P "Link"',
    '5 v1 S "compute"', '5 v2 S "MPI Send"', '5 l8 L "8"' }
  local t = 0
  local procs, nproc, machines = {}, 0, { "m1", "m2", "m3" }
  local function line(s) out[#out + 1] = s end
  for i, m in ipairs(machines) do line(('6 0 %s M 0 "machine %d"'):format(m, i)) end
  local function new_proc()
    nproc = nproc + 1
    local m = machines[rnd(#machines) + 1]
    local name = "p" .. nproc
    line(('6 %.6f %s P %s "rank %d"'):format(t, name, m, nproc))
    procs[#procs + 1] = name
  end
  for _ = 1, 6 do new_proc() end
  local values = { "v1", "compute", "v2", "MPI Send", "idle", "later" }
  local open = {}      -- keys of links started and not yet ended
  local kseq = 0
  for s = 1, steps do
    t = t + rnd(100) / 1000
    if backwards and s == math.floor(steps * 0.6) then t = t - 0.5 end -- the time goes backwards once
    if s == math.floor(steps * 0.4) then line('5 vl S "later"') end -- "later" was used before
    local p = procs[rnd(#procs) + 1]
    local r = rnd(100)
    if r < 20 then
      line(('8 %.6f S %s "%s"'):format(t, p, values[rnd(#values) + 1]))
    elseif r < 28 then
      line(('9 %.6f S %s %s'):format(t, p, (s > steps * 0.4 and rnd(2) == 0) and "vl" or "later"))
    elseif r < 36 then
      line(('10 %.6f S %s'):format(t, p))
    elseif r < 38 then
      line(('11 %.6f S %s'):format(t, p))
    elseif r < 42 then
      line(('12 %.6f E %s "mark %d"'):format(t, p, rnd(3)))
    elseif r < 50 then
      local kind = 13 + rnd(3)
      if rnd(3) == 0 then
        line(('%d %.6f W %s %d'):format(kind, t, machines[rnd(#machines) + 1], rnd(9)))
      else
        line(('%d %.6f V %s %d.5'):format(kind, t, p, rnd(9)))
      end
    elseif r < 75 then
      -- a link: start now (or its end first), the other end later; keys reused now and then
      local key
      if rnd(5) == 0 then key = "k" .. rnd(4) else kseq = kseq + 1; key = "u" .. kseq end
      local first = rnd(12) == 0 and 17 or 16
      line(('%d %.6f L 0 %s %s %s'):format(first, t, p, rnd(2) == 0 and "l8" or "100", key))
      open[#open + 1] = { key = key, kind = first == 16 and 17 or 16, lag = rnd(60) }
    elseif r < 78 then
      line(('18 %.6f'):format(t))
    elseif r < 80 then
      line(rnd(2) == 0 and "# a comment" or "")
    elseif r < 82 and #procs < 40 then
      new_proc()
    elseif r < 83 and #procs > 4 then
      local k = rnd(#procs) + 1
      line(('7 %.6f P %s'):format(t, procs[k]))
      table.remove(procs, k)
    end
    -- ends of links whose lag is over
    local keep = {}
    for _, l in ipairs(open) do
      l.lag = l.lag - 1
      if l.lag < 0 then
        line(('%d %.6f L 0 %s %s %s'):format(l.kind, t, procs[rnd(#procs) + 1], "100", l.key))
      else
        keep[#keep + 1] = l
      end
    end
    open = keep
  end
  line(('16 %.6f L 0 %s 100 never'):format(t, procs[1])) -- one link never ends
  line(('7 %.6f M m2'):format(t)) -- a machine goes with its processes and their open states
  return table.concat(out, "\n") .. "\n"
end

local function write(dir, name, text)
  local p = dir .. "/" .. name
  local f = assert(io.open(p, "w"))
  f:write(text)
  f:close()
  return p
end

local function readall(p)
  local f = io.open(p, "rb")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- A run's JSON without its warnings, and its warnings sorted: under mpirun each rank's warnings
-- are merged by the key of the event they came with, so their order can differ from the serial
-- run's (the processors' numbers cannot).
local function split(out)
  if not out:match("^%s*{") then return out, {} end -- not JSON: the text itself
  local j = require("cjson").decode(out)
  local w = j.warnings or {}
  j.warnings = nil
  j.reads = nil -- (paragraph's count of passes is the serial run's own: each rank reads its part)
  table.sort(w)
  return j, w
end

local function lines_sorted(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  table.sort(t)
  return t
end

describe("Pajé read in byte ranges under mpirun", function()
  local ok, why = h.have_mpi()
  if not ok then
    it("needs mpirun (" .. why .. ")", function() pending(why) end)
    return
  end

  local dir = h.temp_dir()
  local trace = write(dir, "gen.trace", paje_text(2000, 7))
  local back = write(dir, "back.trace", paje_text(2000, 11, true))

  -- the serial run's numbers, warnings and files at 2, 3 and 4 ranks, read in ranges (no fall-back)
  local function same_everywhere(args, outputs, env)
    local code, serial, err = h.retrace(table.unpack(args))
    assert.are.equal(0, code, err)
    local want = {}
    for i, o in ipairs(outputs or {}) do want[i] = readall(o) end
    local sj, sw = split(serial)
    for n = 2, 4 do
      local e = { "RETRACE_PAR_DEBUG=1" }
      for _, kv in ipairs(env or {}) do e[#e + 1] = kv end
      local c, out, e2 = h.mpirun(n, e, table.unpack(args))
      assert.are.equal(0, c, n .. " ranks: " .. e2)
      assert.is_nil(e2:find("read by rank 0", 1, true), n .. " ranks fell back: " .. e2)
      local pj, pw = split(out)
      assert.are.same(sj, pj, n .. " ranks")
      assert.are.same(sw, pw, n .. " ranks: warnings")
      assert.are.same(lines_sorted(err), lines_sorted(e2), n .. " ranks: standard error")
      for i, o in ipairs(outputs or {}) do
        assert.is_true(readall(o) == want[i], o .. " differs on " .. n .. " ranks")
      end
    end
    return sj, sw
  end

  it("the generated trace exercises what the ranges must agree on", function()
    local j, w = split(select(2, h.retrace("stats", "--json", trace)))
    assert.is_true(#j.processors >= 20, "processes made on the way")
    assert.is_true(j.messages > 300, "links")
    assert.is_true(j.warnings_total < 200, "every warning kept")
    local all = table.concat(w, "\n")
    assert.truthy(all:find("PajePopState: no state", 1, true), "a pop on an empty stack")
    assert.truthy(all:find("links? with one end only"), "a link never ended")
    local names = {}
    for _, r in pairs(j.regions) do names[r.name] = (names[r.name] or 0) + 1 end
    assert.are.equal(2, names["later"], "a value used by name before its definition: two regions")
    assert.is_true(names["compute"] == 1 and names["MPI Send"] == 1, "values by alias and by name: one region each")
  end)

  it("stats --json and its warnings: the serial ones at 2, 3 and 4 ranks", function()
    same_everywhere({ "stats", "--json", trace })
  end)

  it("with 64-byte exchanges (many rounds in every step)", function()
    same_everywhere({ "stats", "--json", trace }, nil, { "RETRACE_PAR_TEXT_BATCH=64" })
  end)

  it("paragraph --static --json: the same numbers and the same PNG", function()
    local png = dir .. "/g.png"
    same_everywhere({ "paragraph", "--static", "--json", "-o", png, trace }, { png })
  end)

  it("the chrome-json export: the same bytes, a link's tag the line of its first end", function()
    local js = dir .. "/c.json"
    same_everywhere({ "paragraph", "--export", "chrome-json", js, trace }, { js })
    -- the first link of the trace (key u1): its tag is the line of its first end
    local n, first = 0, nil
    for l in io.lines(trace) do
      n = n + 1
      if not first and l:match(" u1$") then first = n end
    end
    assert.truthy(readall(js):find('"tag":' .. first .. "}", 1, true), "tag " .. tostring(first))
  end)

  it("a time that goes backwards: told once at its line, as the serial reader tells it", function()
    local code, serial = h.retrace("stats", "--json", back)
    assert.are.equal(0, code)
    local sj, sw = split(serial)
    local told = {}
    for _, w in ipairs(sw) do if w:find("Time: .* is before") then told[#told + 1] = w end end
    assert.are.equal(1, #told)
    for n = 2, 4 do
      local c, out, e = h.mpirun(n, { "RETRACE_PAR_DEBUG=1" }, "stats", "--json", back)
      assert.are.equal(0, c, e)
      assert.is_nil(e:find("read by rank 0", 1, true))
      local pj, pw = split(out)
      -- (the replay's own "records are not in time order" is told by each rank that meets it)
      sj.warnings_total, pj.warnings_total = nil, nil
      assert.are.same(sj, pj, n .. " ranks")
      local ptold = {}
      for _, w in ipairs(pw) do if w:find("Time: .* is before") then ptold[#ptold + 1] = w end end
      assert.are.same(told, ptold)
    end
  end)

  it("a trace whose header comes back among the events is read by rank 0, with the serial results", function()
    local p = write(dir, "late.trace", paje_text(300, 3) .. "%EventDef PajeSomethingMore 19\n% Time date\n%EndEventDef\n19 1.0\n")
    local code, serial = h.retrace("stats", "--json", p)
    assert.are.equal(0, code)
    local c, out, e = h.mpirun(3, { "RETRACE_PAR_DEBUG=1" }, "stats", "--json", p)
    assert.are.equal(0, c, e)
    assert.truthy(e:find("read by rank 0", 1, true))
    local sj, sw = split(serial)
    local pj, pw = split(out)
    assert.are.same(sj, pj)
    assert.are.same(sw, pw)
  end)

  it("a bad line in a later range: the serial error on every rank, exit 1", function()
    local text = paje_text(400, 5)
    local nl = text:find("\n", #text * 3 // 4, true)
    local p = write(dir, "bad.trace", text:sub(1, nl) .. '8 1.0 S nosuchcontainer "v1"\n' .. text:sub(nl + 1))
    local code, _, err = h.retrace("stats", p)
    assert.are.equal(1, code)
    local msg = err:match("[^\n]*unknown container[^\n]*")
    assert.truthy(msg, err)
    local c, _, e = h.mpirun(4, "stats", p)
    assert.are.equal(1, c)
    assert.truthy(e:find(msg, 1, true), e)
  end)
end)
