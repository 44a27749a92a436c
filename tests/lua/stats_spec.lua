-- retrace stats (the format-neutral name of retrace picl stats), the replay
-- over the trace dispatcher, and retrace info on message-passing files.
local h = require "helpers"
local cjson = require "cjson"

local function fixture(name) return h.fixtures .. "/picl/" .. name end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

describe("retrace stats", function()
  it("prints what retrace picl stats prints, text and JSON", function()
    for _, f in ipairs { "critical.trf", "fifo.trf" } do
      local c1, o1 = h.retrace("stats", fixture(f))
      local c2, o2 = h.retrace("picl", "stats", fixture(f))
      assert.are.equal(0, c1)
      assert.are.equal(0, c2)
      assert.are.equal(o2, o1)
      local _, j1 = h.retrace("stats", "--json", fixture(f))
      local _, j2 = h.retrace("picl", "stats", "--json", fixture(f))
      assert.are.same(cjson.decode(j2), cjson.decode(j1))
    end
  end)

  it("both names say so in --help", function()
    local _, out = h.retrace("stats", "--help")
    assert.truthy(out:find("`retrace picl stats` is the same command", 1, true))
    assert.truthy(out:find("OTF2", 1, true))
    _, out = h.retrace("picl", "--help")
    assert.truthy(out:find("`retrace stats`", 1, true))
  end)

  it("refuses companion files and unknown formats with one line", function()
    local d = h.temp_dir()
    local pcf = write(d .. "/run.pcf", "DEFAULT_OPTIONS\n\nSTATES\n0    Idle\n1    Running\n")
    local prv = write(d .. "/run.prv", "#Paraver (01/01/2000 at 00:00):100:1(1):1:1(1:1)\n")
    for _, cmd in ipairs { "stats", "picl" } do
      local argv = cmd == "picl" and { "picl", "stats", pcf } or { "stats", pcf }
      local code, out, err = h.retrace(table.unpack(argv))
      assert.are.equal(1, code)
      assert.are.equal("", out)
      assert.are.equal("retrace: " .. pcf .. ": a Paraver companion file (state and event names), not a trace; "
        .. "open " .. prv .. " instead\n", err)
    end
    local code, _, err = h.retrace("stats", "--format", "vampir", prv)
    assert.are.equal(2, code)
    assert.truthy(err:find("--format: unknown format 'vampir' (picl, old, new, picl-old, picl-new", 1, true))
    code, _, err = h.retrace("stats", d)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. d .. ": a directory without an OTF2 anchor (.otf2 file), not a trace\n", err)
    h.remove_tree(d)
  end)

  it("refuses a --from/--to window outside the trace, naming the window and the span (exit 1)", function()
    -- critical.trf spans 0 .. 9 s
    local f = fixture("critical.trf")
    for _, c in ipairs { { { "--from", "100" }, "window 100 .. inf s" }, { { "--to=-5" }, "window -inf .. -5 s" },
                          { { "--from", "9.5", "--to", "20", "--json" }, "window 9.5 .. 20 s" } } do
      local argv = { "stats" }
      for _, a in ipairs(c[1]) do argv[#argv + 1] = a end
      argv[#argv + 1] = f
      local code, out, err = h.retrace(table.unpack(argv))
      assert.are.equal(1, code)
      assert.are.equal("", out)
      assert.are.equal("retrace: " .. f .. ": " .. c[2] .. " lies outside the trace's span 0 .. 9 s\n", err)
    end
    -- a window overlapping the trace, also past its ends, or touching its end, is fine
    local code, out = h.retrace("stats", "--from=-1", "--to", "3", "--json", f)
    assert.are.equal(0, code)
    assert.are.same({ 0, 9 }, cjson.decode(out).span)
    code = h.retrace("stats", "--from", "9", f)
    assert.are.equal(0, code)
  end)
end)

describe("retrace.replay over the dispatcher", function()
  local replay = require "retrace.replay"

  it("opens a PICL trace through the neutral source, with its definitions", function()
    local rp = assert(replay.open(fixture("fifo.trf")))
    rp:run()
    local old = assert(replay.new(fixture("fifo.trf")))
    old:run()
    assert.are.equal(old:records(), rp:records())
    assert.are.same(old:totals(), rp:totals())
    for id = 0, rp:nprocs() - 1 do assert.are.same(old:proc(id), rp:proc(id)) end
    local defs = rp:defs()
    assert.are.equal("picl-new", defs.format)
    assert.are.equal("processor 0", defs.procs[1].name)
    assert.are.same({ id = -21, name = "send", class = "send", group = "send" }, defs.regions[-21])
    -- events: a send entry is an enter and a send, counted by kind
    local k = rp:totals().kinds
    assert.are.equal(rp:nevents(), k.enter + k.leave + k.send + k.receive + k.marker)
    assert.are.equal(k.send, rp:totals().messages + rp:totals().pending)
    rp:close()
    old:close()
  end)

  it("reads PICL's compstats option as an option of the PICL source", function()
    -- old format: a send at 200 bracketed by compstats at 200 and 500, a receive at 700 by 700 and 900
    local old = h.fixtures .. "/medea/old-compstats.trf"
    for _, open in ipairs({ function(o) return replay.open(old, o) end,
                            function(o) return replay.new(assert(require("retrace.picl").open(old)), o) end }) do
      local on, off = assert(open({ compstats = true })), assert(open({ compstats = false }))
      on:run()
      off:run()
      local a, b = on:totals().kinds, off:totals().kinds
      assert.are.equal(2, a.enter - b.enter)   -- two communication calls
      assert.are.equal(2, a.leave - b.leave)
      assert.are.equal(4, b.marker - a.marker) -- their four compstats records are markers without
    end
    -- the plain PICL fixture is new-format: the option changes nothing there
    local on = assert(replay.open(fixture("fifo.trf"), { compstats = true }))
    local off = assert(replay.open(fixture("fifo.trf"), { compstats = false }))
    on:run()
    off:run()
    assert.are.same(on:totals().kinds, off:totals().kinds)
  end)

  it("detect names formats and companions", function()
    local d = h.temp_dir()
    local row = write(d .. "/x.row", "LEVEL CPU SIZE 1\n1.cpu\n")
    local name, why = replay.detect(row)
    assert.are.equal("paraver-row", name)
    assert.truthy(why:find("processor names", 1, true))
    assert.are.equal("picl-new", (replay.detect(fixture("fifo.trf"))))
    assert.are.equal("directory", (replay.detect(d)))
    assert.is_nil((replay.detect(d .. "/missing")))
    h.remove_tree(d)
  end)
end)

describe("retrace info on message-passing files", function()
  it("a .pcf is a companion, never a trace", function()
    local d = h.temp_dir()
    local pcf = write(d .. "/qs.pcf", "STATES\n0    Idle\n1    Running\n")
    local code, out = h.retrace("info", "--json", pcf)
    assert.are.equal(0, code)
    local v = cjson.decode(out)[1]
    assert.are.equal("paraver-pcf", v.format)
    assert.are.equal("not a trace: open its .prv trace instead", v.note)
    h.remove_tree(d)
  end)

  it("detection reads a bounded prefix: a 2 MiB line is judged by its first 4096 bytes", function()
    local p = h.temp_file("-3 1 0.5 0 0 1 2 " .. string.rep("7", 2 * 1024 * 1024) .. "\n")
    local formats = require "retrace.formats"
    assert.are.equal("picl-new", (formats.detect(p)))
    os.remove(p)
  end)

  local dir = h.shared_file("otf2/pingpong")
  if dir then
    it("an OTF2 archive's directory and its parts", function()
      local code, out = h.retrace("info", "--json", dir, dir .. "/traces/0.evt")
      assert.are.equal(0, code)
      local v = cjson.decode(out)
      assert.are.equal("otf2", v[1].format)
      assert.are.equal("otf2-part", v[2].format)
      assert.are.equal("not a trace: open " .. dir .. "/traces.otf2 instead", v[2].note)
    end)
  else
    pending("../shared/data is absent: the OTF2 sample is skipped")
  end
end)
