-- medea on a folder: each trace once (by device and inode) whatever the
-- symbolic links, loops followed once, what cannot be read named in a warning;
-- and a Paraver trace's companion warnings (a missing .pcf) shown.
local h = require "helpers"
local json = require "cjson"

local function sh(cmd) assert(os.execute(cmd), cmd) end
local q = h.quote

-- Run as an unprivileged user when we are root (root reads files whatever
-- their permissions): the prefix to put before the command, or "".
local function as_user()
  local id = io.popen("id -u"):read("l")
  if id ~= "0" then return "" end
  if not os.execute("command -v setpriv >/dev/null") then return nil end
  return "setpriv --reuid=65534 --regid=65534 --clear-groups "
end

local function medea_json(prefix, dir)
  local out, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute(prefix .. q(h.bin) .. " medea --json " .. q(dir) .. " >" .. out .. " 2>" .. err)
  local o, e = h.slurp(out), h.slurp(err)
  os.remove(out)
  os.remove(err)
  local traces = {}
  if code == 0 then
    for _, c in ipairs(json.decode(o).components) do traces[#traces + 1] = c.trace:gsub("^.*/walk/", "") end
    table.sort(traces)
  end
  return code, traces, e
end

-- A tree under a fresh folder readable by everyone: walk/a/{x.trf, b/{y.trf, z.trf}}.
local function tree()
  local root = h.temp_dir()
  sh("chmod 755 " .. q(root))
  local a = root .. "/walk/a"
  sh("mkdir -p " .. q(a .. "/b") .. " && chmod -R 755 " .. q(root .. "/walk"))
  local ring = h.source .. "/examples/picl/ring4.trf"
  for _, f in ipairs { "/x.trf", "/b/y.trf", "/b/z.trf" } do sh("cp " .. q(ring) .. " " .. q(a .. f)) end
  sh("chmod 644 " .. q(a) .. "/x.trf " .. q(a) .. "/b/*.trf")
  return root, a
end

describe("medea on a folder", function()
  it("takes each trace once: a loop, a second name, a linked folder", function()
    local variants = {
      { "a link up the tree (a loop)", "ln -s .. %s/b/up" },
      { "a link to the folder itself", "ln -s . %s/b/self" },
      { "a second name of a trace", "ln -s ../x.trf %s/b/again.trf" },
      { "a hard link to a trace (the shallower name kept)", "ln %s/x.trf %s/b/hard.trf" },
      { "a link to the tree from inside", "ln -s %s %s/b/root" },
    }
    for _, v in ipairs(variants) do
      local root, a = tree()
      sh(v[2]:format(a, a))
      local code, traces, err = medea_json("", a)
      assert.are.equal(0, code, v[1] .. ": " .. err)
      assert.are.same({ "a/b/y.trf", "a/b/z.trf", "a/x.trf" }, traces, v[1])
      sh("rm -rf " .. q(root))
    end
  end)

  it("includes a folder linked from elsewhere once, under the link's name", function()
    local root, a = tree()
    sh("mkdir -p " .. q(root .. "/walk/other") .. " && cp " .. q(a .. "/x.trf") .. " " .. q(root .. "/walk/other/w.trf"))
    sh("ln -s ../../other " .. q(a .. "/b/o") .. " && ln -s " .. q(root .. "/walk/other") .. " " .. q(a .. "/b/o2"))
    local code, traces = medea_json("", a)
    assert.are.equal(0, code)
    assert.are.same({ "a/b/o/w.trf", "a/b/y.trf", "a/b/z.trf", "a/x.trf" }, traces)
    sh("rm -rf " .. q(root))
  end)

  it("names what it cannot read in a warning and goes on", function()
    local prefix = as_user()
    if not prefix then
      pending("running as root without setpriv: permissions cannot be tested")
      return
    end
    local root, a = tree()
    sh("ln -s nowhere " .. q(a .. "/dangling.trf"))
    sh("cp " .. q(a .. "/x.trf") .. " " .. q(a .. "/secret.trf") .. " && chmod 000 " .. q(a .. "/secret.trf"))
    sh("mkdir " .. q(a .. "/closed") .. " && cp " .. q(a .. "/x.trf") .. " " .. q(a .. "/closed/c.trf") ..
      " && chmod 000 " .. q(a .. "/closed"))
    local code, traces, err = medea_json(prefix, a)
    assert.are.equal(0, code, err)
    assert.are.same({ "a/b/y.trf", "a/b/z.trf", "a/x.trf" }, traces)
    assert.truthy(err:find("retrace: warning: " .. a .. "/secret.trf: Permission denied (left out)", 1, true), err)
    assert.truthy(err:find("retrace: warning: " .. a .. "/dangling.trf: a symbolic link to nothing", 1, true), err)
    assert.truthy(err:find("retrace: warning: " .. a .. "/closed: cannot list this folder", 1, true), err)
    sh("chmod 755 " .. q(a .. "/closed") .. " && rm -rf " .. q(root))
  end)
end)

-- The warnings of a run, one entry per line that says "warning".
local function warnings(err)
  local out = {}
  for l in err:gmatch("[^\n]+") do
    if l:find("warning", 1, true) then out[#out + 1] = l end
  end
  table.sort(out)
  return out
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

describe("medea on a folder with files that are not traces", function()
  -- the tree, plus: text, binary bytes, a PES (a trace of another kind), an empty file,
  -- and the files that belong to a trace (a Paraver .pcf and .row, an OTF2 archive's
  -- parts and Score-P's files beside its anchor, an index retrace wrote), which pass silently
  local function mixed()
    local root, a = tree()
    write_file(a .. "/notes.txt", "not a trace at all\n")
    write_file(a .. "/b/bytes.bin", "\0\1\2\255\254 junk\n")
    sh("cp " .. q(h.source .. "/examples/chitra/fragment.pes") .. " " .. q(a .. "/b/run.pes"))
    write_file(a .. "/empty", "")
    -- the index `retrace view` writes beside a trace belongs to it too
    local icode, _, ierr = h.retrace("index", a .. "/x.trf")
    assert.are.equal(0, icode, ierr)
    assert.truthy(io.open(a .. "/x.trf.rtidx"))
    local data = h.shared
    local otf2 = io.open(data .. "/otf2/pingpong/traces.otf2") and data .. "/otf2/pingpong"
    if otf2 then
      sh("cp -r " .. q(otf2) .. " " .. q(a .. "/pp"))
      sh("cp " .. q(data .. "/paraver/qsort_beo3.pcf") .. " " .. q(a .. "/b/y.pcf"))
    end
    sh("chmod -R a+rX " .. q(root))
    local expect = { "notes.txt", "b/bytes.bin", "b/run.pes", "empty" }
    for i, e in ipairs(expect) do expect[i] = a .. "/" .. e end
    return root, a, expect, otf2
  end

  local function check(err, expect)
    local w = warnings(err)
    assert.are.equal(#expect, #w, err)
    for _, path in ipairs(expect) do
      local n = 0
      for _, l in ipairs(w) do
        if l:find("retrace: warning: " .. path .. ": ", 1, true) and l:find("(left out)", 1, true) then n = n + 1 end
      end
      assert.are.equal(1, n, path .. " in:\n" .. err)
    end
  end

  it("names each of them in one warning line and goes on", function()
    local root, a, expect, otf2 = mixed()
    local code, traces, err = medea_json("", a)
    assert.are.equal(0, code, err)
    local want = { "a/b/y.trf", "a/b/z.trf", "a/x.trf" }
    if otf2 then table.insert(want, 3, "a/pp/traces.otf2") end
    assert.are.same(want, traces)
    check(err, expect)
    sh("rm -rf " .. q(root))
  end)

  it("says it once under mpirun (rank 0)", function()
    local ok, why = h.have_mpi()
    if not ok then pending(why) return end
    local root, a, expect = mixed()
    local code, out, err = h.mpirun(2, "medea", "--json", a)
    assert.are.equal(0, code, err)
    assert.truthy(out:find('"components"', 1, true))
    check(err, expect)
    sh("rm -rf " .. q(root))
  end)

  it("refuses a folder with no trace at all (exit 1, naming the folder), serial and under mpirun", function()
    local root = h.temp_dir()
    local d = root .. "/nothing here"
    sh("mkdir -p " .. q(d .. "/sub") .. " && chmod -R a+rX " .. q(root))
    write_file(d .. "/a.txt", "text\n")
    write_file(d .. "/sub/b.pes", "A 0\nB 1\n")
    local runs = { { h.retrace("medea", d) } }
    if h.have_mpi() then runs[2] = { h.mpirun(2, "medea", d) } end
    for _, r in ipairs(runs) do
      local code, _, err = r[1], r[2], r[3]
      assert.are.equal(1, code, err)
      assert.truthy(err:find("retrace: " .. d .. ": no message-passing trace files in this directory\n", 1, true), err)
      check(err, { d .. "/a.txt", d .. "/sub/b.pes" })
    end
    -- an empty folder too
    sh("rm -rf " .. q(d) .. " && mkdir " .. q(d))
    local code, _, err = h.retrace("medea", d)
    assert.are.equal(1, code, err)
    assert.truthy(err:find(d .. ": no message-passing trace files", 1, true), err)
    sh("rm -rf " .. q(root))
  end)
end)

describe("a Paraver trace without its .pcf", function()
  it("says so among the warnings of stats (raised at open, shown when the replay listens)", function()
    local dir = h.temp_dir()
    local prv = dir .. "/t.prv"
    sh("cp " .. q(h.fixtures .. "/paraver/small.prv") .. " " .. q(prv))
    local code, out = h.retrace("stats", prv)
    assert.are.equal(0, code)
    assert.truthy(out:find("1 warning:\n  " .. prv .. ": no .pcf (" .. dir .. "/t.pcf: No such file or directory)", 1, true), out)
    local jcode, jout = h.retrace("stats", "--json", prv)
    assert.are.equal(0, jcode)
    local w = json.decode(jout).warnings
    assert.truthy(w[1]:find("no .pcf", 1, true), jout)
    -- with the .pcf beside it the warning is gone
    sh("cp " .. q(h.fixtures .. "/paraver/small.pcf") .. " " .. q(dir .. "/t.pcf"))
    local _, out2 = h.retrace("stats", prv)
    assert.falsy(out2:find("no .pcf", 1, true), out2)
    sh("rm -rf " .. q(dir))
  end)
end)
