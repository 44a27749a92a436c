-- Ctrl-C in the middle of writing an output: `paragraph --export chrome-json` and
-- `render --pdf` stop with "retrace: interrupted" (one line, exit 130) and leave
-- neither the output nor its temporary (.NAME.PID-N.part) behind; a file that was
-- there before keeps its content. The signal is sent as soon as the output's
-- temporary appears, so it lands while the output is written on any machine; the
-- inputs are large enough (a second or more of writing) that a run that ignored
-- the signal would finish with exit 0 instead.
local h = require "helpers"
local lfs = require "lfs"

local function names(dir)
  local t = {}
  for n in lfs.dir(dir) do
    if n ~= "." and n ~= ".." then t[#t + 1] = n end
  end
  table.sort(t)
  return t
end

-- The awk program that prints a PICL ring of 16 processors, n records (user regions,
-- sends and receives); n = nil: endless.
local function picl_awk(n)
  return ("awk 'BEGIN { split(\"-3 -3 -3 -4 -4 -3 -4 -4\", rt, \" \"); " ..
    "split(\"1 2 -21 -21 2 -52 -52 1\", ev, \" \"); for (k = 0; %s; k++) { c = int(k / 16); p = k %% 16; " ..
    "i = c %% 8 + 1; t = c * 1e-5 + p * 1e-7; " ..
    "if ((ev[i] == -21 && rt[i] == -3) || (ev[i] == -52 && rt[i] == -4)) " ..
    "printf \"%%d %%d %%.6f %%d 0 3 2 1024 7 %%d\\n\", rt[i], ev[i], t, p, rt[i] == -3 ? (p + 1) %% 16 : (p + 15) %% 16; " ..
    "else printf \"%%d %%d %%.6f %%d 0 0\\n\", rt[i], ev[i], t, p } }'"):format(n and ("k < " .. n) or "")
end

local function picl(path, n)
  assert(os.execute(picl_awk(n) .. " > " .. h.quote(path)))
end

describe("Ctrl-C while an output is written", function()
  local dir = h.temp_dir()
  local trace = dir .. "/ring.trf"
  setup(function()
    picl(trace, 1600000)
  end)
  teardown(function() h.remove_tree(dir) end)

  it("paragraph --export chrome-json: exit 130, one line, no file and no temporary", function()
    local out = dir .. "/out"
    lfs.mkdir(out)
    local code, err = h.interrupted({ file = out .. "/.t.json.*.part" }, "paragraph", trace, "--export", "chrome-json", out .. "/t.json")
    assert.are.equal(130, code, err)
    assert.are.equal("retrace: interrupted\n", err)
    assert.are.same({}, names(out))
    -- an earlier export at that name is kept as it was
    local f = assert(io.open(out .. "/t.json", "w"))
    f:write('{"traceEvents":[]}\n')
    f:close()
    code, err = h.interrupted({ file = out .. "/.t.json.*.part" }, "paragraph", trace, "--export", "chrome-json", out .. "/t.json")
    assert.are.equal(130, code, err)
    assert.are.equal("retrace: interrupted\n", err)
    assert.are.same({ "t.json" }, names(out))
    assert.are.equal('{"traceEvents":[]}\n', h.slurp(out .. "/t.json"))
  end)

  it("paragraph --timeline-html: the same, its trace an endless pipe", function()
    -- the page is built in memory and written at the end (a second for 6.4 M
    -- records): an endless trace on standard input keeps the run in its pass until
    -- the signal, on any machine
    local out = dir .. "/html"
    lfs.mkdir(out)
    local code, err = h.interrupted({ after = 0.5, feed = picl_awk(nil) }, "paragraph", "-", "--timeline-html", out .. "/t.html")
    assert.are.equal(130, code, err)
    assert.are.equal("retrace: interrupted\n", err)
    assert.are.same({}, names(out))
  end)

  it("render --pdf: exit 130, one line, no PDF; the frames written are whole PNGs", function()
    local s = dir .. "/slow.lua"
    local f = assert(io.open(s, "w"))
    -- each frame busy for a while (many small boxes), many frames
    f:write([[
return { frames = 100000, width = 200, height = 100, draw = function(cv, i)
  for k = 1, 4000 do cv:rect((k * 7 + i) % 200, (k * 3) % 100, 2, 2, k % 2 == 0 and "navy" or "orange") end
end }
]])
    f:close()
    local frames, pdf = dir .. "/frames", dir .. "/pdf"
    lfs.mkdir(pdf)
    local code, err = h.interrupted({ file = pdf .. "/.all.pdf.*.part", after = 0.5 }, "render", s, "-o", frames, "--pdf", pdf .. "/all.pdf")
    assert.are.equal(130, code, err)
    assert.are.equal("retrace: interrupted\n", err)
    assert.are.same({}, names(pdf))
    local canvas = require "retrace.canvas"
    local n = 0
    for _, name in ipairs(names(frames)) do
      assert.truthy(name == ".retrace.lock" or name:match("^frame_%d+%.png$"), name)
      if name:match("%.png$") then
        n = n + 1
        local img = assert(canvas.load_png(frames .. "/" .. name))
        assert.are.same({ 200, 100 }, { img:size() })
      end
    end
    assert.truthy(n >= 1 and n < 100000, n)
  end)
end)
