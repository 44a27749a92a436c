-- retrace chitra, issue 25: clip, project, aggregate, the filters, the component
-- projection and undo applied to one PES as it is read (chitra.stream with steps: the sequence is never held) give the loaded
-- session's chain, length, history and notes, on random sequences and random steps;
-- the command streams them and prints the loaded session's report.
local h = require "helpers"
local chitra = require "retrace.chitra"

-- A PES of n states over names (times repeat now and then: zero-length states).
local function random_pes(names, n)
  local t, lines = 0, {}
  for i = 1, n do
    t = t + (math.random() < 0.2 and 0 or math.random(1, 9) * 0.25)
    lines[i] = ("%s %s"):format(names[math.random(#names)], t)
  end
  return h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
end

local function pick(list, k)
  local out = {}
  for i = 1, k do out[i] = list[math.random(#list)] end
  return out
end

-- Random steps over the names (and the names earlier steps made, and some absent).
local function random_steps(names, trial)
  local pool = { table.unpack(names) }
  pool[#pool + 1] = "NOPE"
  local steps = {}
  for i = 1, math.random(1, 5) do
    local r = math.random(7)
    if r == 4 then
      steps[i] = { "filter_time", math.random(1, 9) / 10 }
    elseif r == 5 then
      steps[i] = { "filter_event", math.random(1, 12) }
    elseif r == 6 then
      -- components of the names (A1B -> A1, B), some absent
      local map = {}
      for _ = 1, math.random(1, 3) do map[pick({ "A", "A1", "B", "C", "Q9" }, 1)[1]] = pick({ "A", "D", "E1" }, 1)[1] end
      steps[i] = { "project_components", map }
    elseif r == 7 then
      steps[i] = { "undo" }
    elseif r == 1 then
      steps[i] = { "clip", math.random(0, 4), math.random(0, 4) }
    elseif r == 2 then
      -- a new name, or an existing symbol (runs of it merge with the projected ones)
      local to = math.random() < 0.7 and ("P" .. i .. "x" .. trial) or names[math.random(#names)]
      steps[i] = { "project", pick(pool, math.random(1, 3)), to }
      pool[#pool + 1] = to
    else
      local name = "Z" .. i .. "x" .. trial
      steps[i] = { "aggregate", pick(pool, math.random(1, 3)), name }
      pool[#pool + 1] = name
    end
  end
  return steps
end

local function same_chain(a, b)
  assert.are.equal(a.other, b.other)
  assert.are.same(a.states, b.states) -- names, counts, means, variances, totals: bit for bit
  assert.are.same(a.arcs, b.arcs)
  assert.are.same(a.composites, b.composites) -- the definitions' prefix trees
end

describe("chitra transforms as a stream", function()
  it("give the loaded session's chain, history and notes, on random input and steps", function()
    math.randomseed(2525)
    local names = { "A", "B", "C", "OTHER", "T1", "A1B", "CA1" }
    local streamed, refused, declined, filtered = 0, 0, 0, 0
    for trial = 1, 400 do
      local p = random_pes(pick(names, math.random(2, #names)), math.random(2, 80))
      local steps = random_steps(names, trial)
      local ses = assert(chitra.load(p))
      local ok, why = true, nil
      for _, s in ipairs(steps) do
        ok, why = ses[s[1]](ses, table.unpack(s, 2))
        if not ok then break end
      end
      local st, serr, empty = chitra.stream(p, { steps = steps })
      -- a step after a filter naming a composite T<k>: the stream declines, the command loads
      local after_filter = false
      for _, s in ipairs(steps) do
        if s[1]:match("^filter") then after_filter = true
        elseif after_filter and require("cjson").encode(s):match("\"T%d+\"") then after_filter = "names" break end
      end
      if ok and after_filter == "names" and not st then
        assert.are.equal("empty", empty, serr)
        declined = declined + 1
      elseif not ok or ses:length(1) == 0 then
        -- a refusal or nothing left: the command loads the file for the loaded session's words
        if st then io.stderr:write(require("cjson").encode(steps), tostring(why), "\n") end
        assert.is_nil(st)
        assert.are.equal("empty", empty, serr)
        refused = refused + 1
      else
        assert.is_truthy(st, serr)
        streamed = streamed + 1
        for _, s in ipairs(steps) do
          if s[1]:match("^filter") then filtered = filtered + 1 break end
        end
        same_chain(ses:chain(), st:chain())
        assert.are.equal(ses:length(1), st:length(1))
        assert.are.same(ses:history(), st:history())
        if not require("luassert.util").deepcompare(ses.notes, st.notes) then io.stderr:write(require("cjson").encode(steps), "\n") end
        assert.are.same(ses.notes, st.notes)
      end
      ses:close()
      os.remove(p)
    end
    -- both sides of the comparison were exercised
    assert.is_true(streamed > 200, streamed)
    assert.is_true(filtered > 80, filtered)
    assert.is_true(refused > 5, refused)
    assert.is_true(declined < 60, declined)
  end)

  it("keep every step's map and pattern alive while the file streams", function()
    -- the steps' symbol maps and patterns are scratch memory of the call: a collection while
    -- the file is read (here forced from the progress callback, which then reuses the freed
    -- memory) must not reach them (it once did, rarely, as a silently different chain)
    local p = h.temp_file((("B 1.75 C 2.25 CA1 2.25 C 3.25 C 3.25 CA1 5.5 CA1 6.5 CA1 7.5 CA1 8.75 CA1 9.75 C 10.0 CA1 10.0 C 12.25 CA1 14.25 CA1 14.25 C 16.5 CA1 16.5 B 16.5 C 17.0 CA1 19.0 C 20.75 C 21.75 B 21.75 CA1 22.25 C 23.0 CA1 24.5 B 26.75 CA1 26.75 C 26.75 CA1 28.75 C 30.75 C 31.25 CA1 33.25 C 33.5 C 34.5 C 36.0 CA1 36.0 C 38.25 CA1 38.25 C 40.25 CA1 41.75 CA1 42.25 C 42.5 C 43.5 C 45.5 C 47.5"):gsub("(%S+) (%S+) ?", "%1 %2\n")), ".pes")
    local steps = { { "project", { "C" }, "X" }, { "aggregate", { "X", "CA1" }, "Z" }, { "project", { "B" }, "Y" },
                    { "aggregate", { "Z", "X" }, "W" }, { "project", { "Y", "W" }, "V" } }
    local ses = assert(chitra.load(p))
    for _, s in ipairs(steps) do assert(ses[s[1]](ses, table.unpack(s, 2))) end
    local junk, calls = {}, 0
    local function churn()
      calls = calls + 1
      collectgarbage()
      collectgarbage()
      for i = 1, 200 do junk[i] = string.rep("\255", i % 40 + 8) .. i end
    end
    for _ = 1, 5 do
      local st = assert(chitra.stream(p, { steps = steps, progress = churn, progress_step = 1 }))
      same_chain(ses:chain(), st:chain())
      assert.are.equal(ses:length(1), st:length(1))
    end
    assert.is_true(calls > 40, calls) -- the collections ran while the file was read
    ses:close()
    os.remove(p)
  end)

  it("walk composites longer than a block of the original states kept in memory", function()
    -- runs of 10 000 projected states: the definition reads the spilled originals back
    local lines = {}
    for i = 0, 59999 do lines[#lines + 1] = ((i // 10000) % 2 == 0 and (i % 2 == 0 and "a" or "b") or "c") .. " " .. i end
    local p = h.temp_file(table.concat(lines, "\n") .. "\n", ".pes")
    local steps = { { "project", { "a", "b" }, "AB" }, { "project", { "c" }, "CC" },
                    { "aggregate", { "AB", "CC" }, "ABC" } }
    local ses = assert(chitra.load(p))
    for _, s in ipairs(steps) do assert(ses[s[1]](ses, table.unpack(s, 2))) end
    local st = assert(chitra.stream(p, { steps = steps }))
    same_chain(ses:chain(), st:chain())
    assert.are.equal(3, st:length(1)) -- ABC ABC ABC
    assert.are.equal(1, #st:chain().composites) -- ABC = a,b,...,a,b,c,...,c (2 x 10 000 long)
    ses:close()
    os.remove(p)
  end)

  it("retrace chitra prints the loaded report with streamed steps", function()
    local p = h.temp_file("A 0\nB 1\nA 3\nC 4\nA 4.5\nB 5\nEND 6\n", ".pes")
    -- --steady needs the sequence: the same steps on the loaded session
    local code, out, err = h.retrace("chitra", p, "--project", "B,C=X", "--aggregate", "A,X=AX", "--clip", "0:1")
    assert.are.equal(0, code, err)
    -- A X A X A X, then AX AX AX, then the last one clipped
    assert.truthy(out:find("2 symbols after 3 transforms", 1, true), out)
    assert.truthy(out:find("  1. project B,C -> X\n  2. aggregate A X -> AX\n  3. clip 0 1\n", 1, true), out)
    -- AX held 3 (0..3) and 1.5 (3..4.5)
    assert.truthy(out:find("  AX                      2     100%         2.25        1.061        1.125", 1, true), out)
    assert.truthy(out:find("  AX = A,B\n     | A,C\n", 1, true), out)
    -- a FIFO cannot be read twice: it is loaded, with the same answer
    local fifo = os.tmpname()
    os.remove(fifo)
    assert(os.execute("mkfifo " .. h.quote(fifo)))
    local log = os.tmpname()
    local _, _, code2 = os.execute(("cat %s > %s & timeout 60 %s chitra %s --project B,C=X --aggregate A,X=AX "
      .. "--clip 0:1 > %s"):format(h.quote(p), h.quote(fifo), h.quote(h.bin), h.quote(fifo), h.quote(log)))
    local out2 = h.slurp(log)
    os.remove(fifo)
    os.remove(log)
    assert.are.equal(0, code2)
    assert.are.equal(out:gsub("^[^\n]*:", ""), out2:gsub("^[^\n]*:", ""))
    os.remove(p)
  end)
  it("retrace chitra streams the filters, --components and --undo with the loaded report", function()
    -- the same command on the file (streamed) and on a FIFO (which cannot be read twice: loaded)
    local p = h.source .. "/examples/chitra/phil4_x100.pes"
    local cases = {
      { "--filter-event", "2" },
      { "--filter-time", "0.05" },
      { "--components", "A1=A,A2=A,R1=R,R2=R", "--filter-event", "2" },
      { "--components", "A1=A,A2=A,R1=R,R2=R", "--filter-event", "2", "--undo", "--filter-time", "0.1" },
      { "--project", "TETE,ETET=X", "--filter-time", "0.2", "--aggregate", "X,TTTT=Y", "--clip", "3:2" },
      { "--filter-event", "5", "--filter-event", "200", "--undo", "--undo", "--filter-time", "0.3" },
    }
    for _, args in ipairs(cases) do
      local code, out, err = h.retrace("chitra", p, table.unpack(args))
      assert.are.equal(0, code, err)
      local code2, out2, err2 = h.retrace_fifo(p, "chitra", table.unpack(args))
      assert.are.equal(0, code2, err2)
      assert.are.equal(out2:gsub("^[^\n]*:", ""), out:gsub("^[^\n]*:", ""), table.concat(args, " "))
      assert.are.equal(err2, err)
      assert.truthy(out:find("filter_", 1, true) or out:find("project", 1, true), out)
    end
  end)
end)
