-- Issue 25's classes, one test each with its own variants, on the commands of this pass
-- (medea, chitra, info): an output over an input is refused and the input kept; an
-- option that would mean work without end is refused at once (exit 2); an input read
-- once (a FIFO) gives what the file gives, streamed options too; a field out of its
-- rule is one line naming file and line, the same whether the sequence is streamed or
-- loaded; no run ends in a Lua traceback. Folders: medea_walk_spec; memory: memory_spec;
-- full disks and Ctrl-C: reliability_chitra_spec.
local h = require "helpers"

local PICL = h.source .. "/examples/picl/ring4.trf"
local PES = h.source .. "/examples/chitra/phil4_x100.pes"

local write = require("retrace.fs").write_file
local function copy(src, dst) assert(write(dst, h.slurp(src))) end

-- One line on stderr, no traceback.
local function one_line(err)
  assert.is_nil(err:find("traceback", 1, true), err)
  assert.is_nil(err:find("%.lua:%d+:"), err)
end

describe("an output naming an input", function()
  it("is refused (exit 1, naming both) and the input is kept, by every spelling of its path", function()
    local d = h.temp_dir()
    local t, p = d .. "/t.trf", d .. "/p.pes"
    copy(PICL, t)
    copy(PES, p)
    os.execute(("ln -s t.trf %s && ln %s %s && ln -s p.pes %s"):format(h.quote(d .. "/soft.trf"), h.quote(t),
      h.quote(d .. "/hard.trf"), h.quote(d .. "/soft.pes")))
    local cases = {
      { "medea --csv, the same path", { "medea", t, "--csv", t }, t },
      { "medea --profiles, through ./", { "medea", t, "--profiles", d .. "/./t.trf" }, d .. "/./t.trf" },
      { "medea --save-model, a symbolic link", { "medea", t, "--save-model", d .. "/soft.trf" }, d .. "/soft.trf" },
      { "medea --csv, a hard link", { "medea", t, "--csv", d .. "/hard.trf" }, d .. "/hard.trf" },
      { "medea --csv, a trace found in a folder", { "medea", d, "--csv", t }, t },
      { "chitra --out, the same path", { "chitra", p, "--simulate", "10", "--out", p }, p },
      { "chitra --out, a symbolic link", { "chitra", p, "--simulate", "10", "--out", d .. "/soft.pes" },
        d .. "/soft.pes" },
      { "chitra --chain, the model read", { "chitra", p, "--model", d .. "/m.json", "--chain", d .. "/m.json" },
        d .. "/m.json" },
    }
    assert.are.equal(0, (h.retrace("chitra", p, "--chain", d .. "/m.json")))
    local model = h.slurp(d .. "/m.json")
    for _, c in ipairs(cases) do
      local code, out, err = h.retrace(table.unpack(c[2]))
      assert.are.equal(1, code, c[1] .. ": " .. err)
      assert.are.equal("", out, c[1])
      assert.truthy(err:find("retrace: " .. c[3] .. ": is the input ", 1, true), c[1] .. ": " .. err)
      assert.truthy(err:find("refusing to overwrite it\n$"), c[1] .. ": " .. err)
    end
    assert.are.equal(h.slurp(PICL), h.slurp(t))
    assert.are.equal(h.slurp(PES), h.slurp(p))
    assert.are.equal(model, h.slurp(d .. "/m.json"))
    h.remove_tree(d)
  end)
end)

describe("an option that would mean work without end", function()
  it("is refused at once (exit 2, one line naming the option)", function()
    local cases = {
      { { "medea", PICL, "--restarts", "1000000000" }, "--restarts: 1000000000 is more than 1,000" },
      { { "medea", PICL, "--patience", "1000000000000" }, "--patience: 1000000000000 is more than 1,000" },
      { { "medea", PICL, "--fit-time", "cmtime", "--slices", "100000000" }, "--slices: 100000000 is more than 100,000" },
      { { "medea", PICL, "--fit-time", "cmtime", "--slices", "1000000000000" }, "--slices: 1000000000000 is more" },
      { { "chitra", PES, "--simulate", "1000000000000000" }, "--simulate: at most" },
      { { "chitra", PES, "--clip", "99999999999999999999:1" }, "--clip: the counts of '99999999999999999999:1' must be below 2^63" },
      { { "chitra", PES, "--filter-event", "inf" }, "--filter-event expects a number, got 'inf'" },
      { { "chitra", PES, "--filter-event", "1e400" }, "filter_event: p = inf must be a positive count" },
      { { "chitra", PES, "--filter-time", "1" }, "filter_time: p = 1 is outside (0, 1)" },
    }
    for _, c in ipairs(cases) do
      local code, out, err = h.retrace(table.unpack(c[1]))
      assert.are.equal(2, code, table.concat(c[1], " ") .. ": " .. err)
      assert.are.equal("", out)
      assert.truthy(err:find(c[2], 1, true), err)
      one_line(err)
    end
    -- the largest counts allowed still run (and end)
    local code, _, err = h.retrace("medea", PICL, "--patience", "1000", "--restarts", "1000", "--kmax", "1")
    assert.are.equal(0, code, err)
    code, _, err = h.retrace("medea", PICL, "--fit-time", "cmtime", "--slices", "100000")
    assert.are.equal(0, code, err)
  end)
end)

describe("an input read once (a FIFO)", function()
  it("gives what the file gives: medea, info, and chitra with streamed transforms", function()
    local cases = {
      { "medea", PICL },
      { "info", PICL },
      { "chitra", PES, "--filter-event", "3" },
      { "chitra", PES, "--components", "A1=A,A2=A", "--undo", "--filter-time", "0.1" },
      { "chitra", PES, "--clip", "5:5", "--project", "TETE,ETET=X" },
    }
    for _, c in ipairs(cases) do
      local code, out, err = h.retrace(table.unpack(c))
      assert.are.equal(0, code, err)
      local code2, out2, err2, fifo = h.retrace_fifo(c[2], c[1], table.unpack(c, 3))
      assert.are.equal(0, code2, table.concat(c, " ") .. ": " .. err2) -- (124: the run hung)
      local function plain(s)
        for _, name in ipairs { c[2], fifo, c[2]:match("[^/]*$"), fifo:match("[^/]*$") } do
          s = s:gsub(name:gsub("%p", "%%%0"), "F")
        end
        return (s:gsub("[ \t]+", " ")) -- (medea pads its columns to the names)
      end
      if c[1] ~= "info" then -- (info tells what kind of file it read)
        assert.are.equal(plain(out), plain(out2), table.concat(c, " "))
      end
      assert.are.equal(plain(err), plain(err2))
    end
  end)
end)

describe("a field out of its rule", function()
  it("is one line naming file and line, streamed or loaded alike", function()
    local d = h.temp_dir()
    local cases = {
      { "a span past the largest double", "A -1.7e308\nB 0\nC 1.7e308\nD 1.79e308\n", ":3: time: " },
      { "a time that is no number", "A 0\nB nan\nC 3\n", ":2: time: 'nan' is not a number" },
      { "an overflowing time", "A 0\nB 1e400\nC 3\n", ":2: time: '1e400' is not a number" },
      { "a time going back", "A 0\nB 2\nC 1\n", ":3: time: 1 is less than the previous time 2" },
      { "a NUL byte in a name", "A 0\nB 1\nA\0X 2\nC 3\n", ":3: state: 'A\\x00X' holds a NUL byte" },
    }
    local options = { {}, { "--filter-event", "2" }, { "--components", "A=B", "--undo", "--filter-time", "0.5" },
                      { "--json" }, { "--views", d .. "/views" } }
    for i, c in ipairs(cases) do
      local p = d .. "/bad" .. i .. ".pes"
      write(p, c[2])
      for _, o in ipairs(options) do
        local code, out, err = h.retrace("chitra", p, table.unpack(o))
        local what = c[1] .. " " .. table.concat(o, " ")
        assert.are.equal(1, code, what .. ": " .. err .. out)
        assert.are.equal("", out, what)
        assert.truthy(err:find("retrace: " .. p .. c[3], 1, true), what .. ": " .. err)
        one_line(err)
      end
      local code, out, err = h.retrace("info", p)
      if c[2]:find("\0", 1, true) then -- (info describes it: not a PES, binary data)
        assert.are.equal(0, code, err)
        assert.truthy(out:find("binary data (NUL bytes)", 1, true), out)
      else
        assert.are.equal(1, code, err)
        assert.truthy(err:find(p .. c[3], 1, true), err)
        one_line(err)
      end
    end
    h.remove_tree(d)
  end)
end)
