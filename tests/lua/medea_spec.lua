-- retrace.medea parameters from traces and the `retrace medea` command.
local h = require "helpers"
local medea = require "retrace.medea"
local cjson = require "cjson"

local table5 = h.fixtures .. "/medea/table5.trf"

local function near(a, b, tol)
  tol = tol or 1e-12
  assert(math.abs(a - b) <= tol * math.max(1, math.abs(b)), string.format("%.15g ~= %.15g", a, b))
end

describe("medea.parameters", function()
  it("reproduces the worked user-event example exactly", function()
    local comps = assert(medea.parameters(table5, "event"))
    local e0
    for _, c in ipairs(comps) do
      if c.processor == 6 and c.event == 0 then e0 = c.params end
    end
    near(e0.ctime, 0.002051)
    near(e0.stime, 0.000388)
    near(e0.utime, 0.001302)
    near(e0.hstime, 0.000871)
    assert.same({ 1, 1, 1, 2, 1 }, { e0.cnum, e0.snum, e0.unum, e0.hsnum, e0.hunum })
    -- one summed component per event type, processor "all"
    local all = 0
    for _, c in ipairs(comps) do if c.processor == "all" then all = all + 1 end end
    assert.equals(3, all)
  end)

  it("gives program parameters as span, means over processors and sums", function()
    local acc = require("retrace.core").medea.new(true)
    -- processor 0: computes 0..1, sends 1..2 (10 bytes), computes 2..4
    acc:add(-3, 5, 0, 0)
    acc:add(-3, -21, 1, 0, 10)
    acc:add(-4, -21, 2, 0)
    acc:add(-4, 5, 4, 0)
    -- processor 1: 1..2 receive blocked (10 bytes), 2..5 computing
    acc:add(-3, -52, 1, 1)
    acc:add(-4, -52, 2, 1, 10)
    acc:add(-2, -12, 5, 1)
    local prog = medea.parameters(acc, "program", "x.y")[1]
    assert.equals("all", prog.processor)
    local p = prog.params
    near(p.extime, 5)
    assert.equals(2, p.prnum)
    near(p.trtime, 0.5)
    near(p.rctime, 0.5)
    near(p.cmtime, 1)
    near(p.cptime, (3 + 3) / 2)
    near(p.trdata, 10)
    near(p.rcdata, 10)
    near(p.ttdata, 20)
    assert.equals(1, p.trnum)
    local procs = medea.parameters(acc, "processor", "x.y")
    assert.equals(2, #procs)
    near(procs[2].params.extime, 4)
    assert.equals("x.y/1", procs[2].name)
    local prof = medea.profiles(acc)
    assert.same({ 0, 1, 4, 5 }, prof.exec.times)
    assert.same({ 1, 2, 1, 0 }, prof.exec.counts)
    assert.same({ 1, 2 }, prof.comm.times)
    assert.same({ 2, 0 }, prof.comm.counts)
    acc:close()
  end)

  it("computes processor parameters of every shared real trace, cptime + system time = extime", function()
    local any = false
    for _, name in ipairs({ "fft-16.trf", "mpicl-8a.trf", "mpicl-8b.trf", "mpicl-10.trf" }) do
      local path = h.shared_file("picl/" .. name)
      if path then
        any = true
        local comps = assert(medea.parameters(path, "processor"))
        assert.is_true(#comps >= 8)
        for _, c in ipairs(comps) do
          local p = c.params
          local sys = 0
          for _, t in ipairs(medea.system_times) do sys = sys + p[t] end
          near(p.cptime + sys, p.extime, 1e-9)
          assert.is_true(p.extime > 0, name .. " processor " .. c.processor)
          assert.is_true(p.cptime >= -1e-9)
          near(p.cmtime, p.trtime + p.rctime + p.cotime, 1e-9)
        end
      end
    end
    if not any then pending("../shared/data absent, skipped") end
  end)

  it("reports a missing or malformed trace as nil, message", function()
    local c, msg = medea.parameters(h.fixtures .. "/medea/none.trf")
    assert.is_nil(c)
    assert.matches("none.trf: No such file or directory", msg)
    local acc = require("retrace.core").medea.new()
    local ok, err = acc:feed(h.fixtures .. "/medea/bad.trf", true)
    assert.is_nil(ok)
    assert.equals(h.fixtures .. "/medea/bad.trf:2: time: 'oops' is not a number", err)
    assert.equals(1, acc:feed(h.fixtures .. "/medea/bad.trf"))
    assert.equals("processor: id -1 outside 0..1048575", select(2, acc:add(-3, 1, 0, -1)))
    acc:close()
    assert.has_error(function() acc:processors() end)
  end)
end)

describe("retrace medea", function()
  it("prints the JSON shape of the issue for the event approach", function()
    local code, out = h.retrace("medea", table5, "--approach", "event", "--json")
    assert.equals(0, code)
    local j = cjson.decode(out)
    assert.equals(3, #j.components) -- per processor by default (issue 18 item 2)
    assert.equals("per-processor", j.clusters.components)
    local c = j.components[1]
    assert.equals("table5.trf/6/0", c.name)
    assert.equals(6, c.processor)
    assert.equals(0, c.event)
    near(c.params.hstime, 0.000871)
    assert.is_number(j.clusters.k)
    assert.is_table(j.clusters.w)
    assert.is_table(j.clusters.h)
    assert.is_table(j.clusters.members)
    local share = 0
    for _, row in ipairs(j.clusters.table) do share = share + row.share end
    near(share, 1)
  end)

  it("clusters a directory of traces and writes CSV", function()
    local dir = h.shared_file("picl")
    if not dir then return pending("../shared/data absent, skipped") end
    local csv = os.tmpname()
    local code, out, err = h.retrace("medea", dir, "--approach", "processor", "--k", "3", "--json",
      "--csv", csv)
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals(16 + 8 + 8 + 10, #j.components)
    assert.equals(3, j.clusters.k)
    assert.equals(3, #j.clusters.table)
    local lines = {}
    for l in io.lines(csv) do lines[#lines + 1] = l end
    assert.equals(#j.components + 1, #lines)
    assert.equals("name,trace,processor,event,cluster," .. table.concat(medea.params.processor, ","), lines[1])
    assert.matches("^fft%-16%.trf/0,[^,]*fft%-16%.trf,0,,%d+,", lines[2])
    os.remove(csv)
  end)

  it("saves, lists and reuses formats from the library folder", function()
    local dir = os.tmpname()
    os.remove(dir)
    local env = "RETRACE_FORMATS=" .. h.quote(dir) .. " "
    local function run(...)
      local args = {}
      for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
      local p = io.popen(env .. h.quote(h.bin) .. " " .. table.concat(args, " ") .. " 2>&1")
      local o = p:read("a")
      local _, _, code = p:close()
      return code, o
    end
    local code, out = run("medea", table5, "--approach", "event", "--params", "ctime,hstime",
      "--save-format", "mine", "--json")
    assert.equals(0, code, out)
    assert.equals("# retrace medea format\napproach event\nparams ctime,hstime\n", h.slurp(dir .. "/mine.fmt"))
    code, out = run("medea", "--list-formats")
    assert.equals(0, code)
    assert.matches("mine%s+event%s+ctime,hstime", out)
    assert.matches("times%s+program", out)
    code, out = run("medea", table5, "--params-set", "mine", "--json")
    assert.equals(0, code, out)
    local j = cjson.decode(out)
    assert.same({ "ctime", "hstime" }, j.clusters.params)
    assert.equals("event", j.clusters.approach)
    os.remove(dir .. "/mine.fmt")
    os.remove(dir)
  end)

  it("rejects bad usage with exit 2 and bad input with exit 1", function()
    local code, _, err = h.retrace("medea", table5, "--params", "extime,bogus")
    assert.equals(2, code)
    assert.matches("'bogus' is not a program parameter", err)
    code, _, err = h.retrace("medea", table5, "--approach", "thread")
    assert.equals(2, code)
    assert.matches("'thread' is not program, processor or event", err)
    code, _, err = h.retrace("medea", table5, "--scale", "log")
    assert.equals(2, code)
    code, _, err = h.retrace("medea", table5, "--k", "9")
    assert.equals(2, code)
    assert.matches("%-%-k 9: only 1 components", err)
    code, _, err = h.retrace("medea", table5, "--params-set", "nosuch")
    assert.equals(2, code)
    assert.matches("no format 'nosuch'", err)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/missing.trf")
    assert.equals(1, code)
    assert.matches("missing.trf: No such file or directory", err)
    code, _, err = h.retrace("medea", h.fixtures .. "/medea/bad.trf", "--strict")
    assert.equals(1, code)
    assert.matches("bad.trf:2: time: 'oops' is not a number", err)
    code, _, err = h.retrace("medea", table5, "--csv", "/nonexistent/dir/x.csv")
    assert.equals(1, code)
    assert.matches("%-%-csv: /nonexistent/dir/x.csv", err)
  end)
end)

describe("the example workload", function()
  it("writes 90 ring-algorithm traces whose messages balance and which cluster", function()
    local dir = os.tmpname()
    os.remove(dir)
    local code, _, err = h.retrace(h.source .. "/examples/medea/pstswm.lua", dir)
    assert.equals(0, code, err)
    local lfs = require "lfs"
    local names = {}
    for f in lfs.dir(dir) do if f:match("^pstswm") then names[#names + 1] = f end end
    table.sort(names)
    assert.equals(7 * 6 * 2 + 3 * 2, #names)
    assert.equals("pstswm.00.0.0", names[1])
    assert.equals("pstswm.13.6.x", names[#names])
    for _, n in ipairs({ "pstswm.02.3.x", "pstswm.11.6.0", "pstswm.12.4.0" }) do
      local p = assert(medea.parameters(dir .. "/" .. n, "program"))[1].params
      assert.equals(16, p.prnum)
      assert.equals(p.trnum, p.rcnum)
      assert.equals(p.trdata, p.rcdata)
      -- 2 (P - 1) data messages per processor, plus as many ready messages under protocol 6
      assert.equals(n:match("%.6%.") and 16 * 30 * 2 or 16 * 30, p.trnum)
      assert.is_true(p.cptime > 0 and p.cmtime > 0 and p.extime > p.cptime)
    end
    local out
    code, out, err = h.retrace("medea", dir, "--kmax", "5", "--json")
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals(90, #j.components)
    for f in lfs.dir(dir) do if f:match("^pstswm") then os.remove(dir .. "/" .. f) end end
    os.remove(dir)
  end)
end)

describe("retrace medea parallel metrics and fits", function()
  -- runs of one program "app" on 1, 2, 4 and 8 processors taking T(p) = 1 + 8/p
  local function runs()
    local dir = os.tmpname()
    os.remove(dir)
    assert(require("lfs").mkdir(dir))
    for _, p in ipairs({ 1, 2, 4, 8 }) do
      local f = assert(io.open(string.format("%s/app.p%d", dir, p), "w"))
      for q = 0, p - 1 do
        f:write(string.format("-3 1 0.000000 %d 0 0\n", q))
        f:write(string.format("-3 -21 0.100000 %d 0 3 2 %d 1 %d\n", q, 100 * p, (q + 1) % p))
        f:write(string.format("-4 -21 0.200000 %d 0 0\n", q))
        f:write(string.format("-4 1 %.6f %d 0 0\n", 1 + 8 / p, q))
      end
      f:close()
    end
    return dir
  end

  it("gives speedup, efficiency, efficacy, the execution signature and fits, with pictures", function()
    local dir = runs()
    local plots = dir .. "/plots"
    local code, out, err = h.retrace("medea", dir, "--json", "--kmax", "3", "--fit", "extime~prnum:inverse",
      "--fit", "trdata~prnum:polynomial:2", "--plots", plots)
    assert.equals(0, code, err)
    local j = cjson.decode(out)
    assert.equals(1, #j.metrics)
    local m = j.metrics[1]
    assert.equals("app", m.program)
    assert.same({ 1, 2, 4, 8 }, { m.rows[1].p, m.rows[2].p, m.rows[3].p, m.rows[4].p })
    near(m.rows[4].speedup, 9 / 2, 1e-9)
    near(m.rows[4].efficiency, 9 / 16, 1e-9)
    near(m.rows[4].efficacy, 81 / 32, 1e-9)
    near(m.signature.a, 1, 1e-6)
    near(m.signature.b, 8, 1e-6)
    near(j.fits[1].coef[1], 1, 1e-6)
    near(j.fits[1].coef[2], 8, 1e-6)
    assert.equals("inverse", j.fits[1].model)
    -- trdata = 100 p * p (every processor sends 100 p bytes)
    near(j.fits[2].coef[3], 100, 1e-6)
    near(j.fits[2].r2, 1, 1e-9)
    local lfs = require "lfs"
    for _, base in ipairs({ "speedup_app", "signature_app", "fit_extime_prnum_inverse", "fit_trdata_prnum_polynomial2" }) do
      assert.equals("file", lfs.attributes(plots .. "/" .. base .. ".png", "mode"), base)
      local d = cjson.decode(h.slurp(plots .. "/" .. base .. ".json"))
      assert.is_table(d)
    end
    local d = cjson.decode(h.slurp(plots .. "/speedup_app.json"))
    near(d.rows[4].speedup, 9 / 2, 1e-9)
    os.execute("rm -rf " .. h.quote(dir))
  end)

  it("rejects a malformed or impossible --fit", function()
    local code, _, err = h.retrace("medea", table5, "--fit", "extime")
    assert.equals(2, code)
    assert.matches("'extime' is not Y~X", err)
    code, _, err = h.retrace("medea", table5, "--fit", "extime~bogus")
    assert.equals(2, code)
    assert.matches("'bogus' is not a program parameter", err)
    code, _, err = h.retrace("medea", table5, "--fit", "extime~cptime:cubic")
    assert.equals(2, code)
    assert.matches("unknown model 'cubic'", err)
    code, _, err = h.retrace("medea", table5, "--fit", "extime~cptime")
    assert.equals(1, code)
    assert.matches("%-%-fit extime~cptime: fit: linear needs at least 2 points, got 1", err)
  end)
end)
