-- Failures a hostile user meets: outputs that cannot be written.
local h = require "helpers"

--- Run retrace with stdout sent to /dev/full; returns the exit code and stderr.
local function to_full(...)
  local args = {}
  for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
  local err = os.tmpname()
  local _, _, code = os.execute(h.quote(h.bin) .. " " .. table.concat(args, " ") .. " >/dev/full 2>" .. err)
  local e = h.slurp(err)
  os.remove(err)
  return code, e
end

describe("a full disk on standard output", function()
  local full = io.open("/dev/full", "w")
  if not full then
    pending("/dev/full is absent on this system: cannot test a full disk")
    return
  end
  full:close()

  it("fails a script that prints (exit 1, one line naming standard output)", function()
    local code, err = to_full("-e", "print(1)")
    assert.are.equal(1, code)
    assert.are.equal("retrace: standard output: No space left on device\n", err)
  end)

  it("fails retrace picl stats --json", function()
    local code, err = to_full("picl", "stats", "--json", h.source .. "/examples/picl/ring4.trf")
    assert.are.equal(1, code)
    assert.truthy(err:find("standard output: No space left on device", 1, true))
  end)

  it("fails retrace cache on a trace", function()
    local code, err = to_full("cache", h.fixtures .. "/info/refs.din")
    assert.are.equal(1, code)
    assert.truthy(err:find("standard output: No space left on device", 1, true))
  end)

  it("keeps a failing command's own exit code and message", function()
    local code, err = to_full("info", "/nonexistent/trace.shm")
    assert.are.equal(1, code)
    assert.truthy(err:find("/nonexistent/trace.shm: No such file or directory", 1, true))
  end)
end)

describe("SHMAP traces that declare or touch huge matrices", function()
  it("refuses a block larger than the element budget at its line, at once and in little memory", function()
    local p = h.temp_file("0 1 30000 30000\n1 1 1 30000 1 30000 0.0\n")
    local code, out, err = h.retrace("shmap", p)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(("retrace: %s:2: matrix 1: load of rows 1..30000, columns 1..30000 of 30000 x 30000: "
      .. "the elements touched exceed the limit of 16777216 (--max-elements)\n"):format(p), err)
    os.remove(p)
  end)

  it("runs a trace declaring 5000 matrices of 1000 x 1000 touching a few elements", function()
    local lines = {}
    for i = 1, 5000 do lines[i] = ("0 %d 1000 1000"):format(i) end
    lines[#lines + 1] = "1 4999 1 10 1 10 0.0"
    local p = h.temp_file(table.concat(lines, "\n") .. "\n")
    local code, out = h.retrace("shmap", "--json", p)
    assert.are.equal(0, code)
    assert.are.equal(100, require("cjson").decode(out).totals.loads)
    os.remove(p)
  end)

  it("takes --max-elements, and refuses a value that is not a positive integer (exit 2)", function()
    local p = h.temp_file("0 1 64 64\n1 1 1 64 1 64 0.0\n")
    local code, _, err = h.retrace("shmap", "--max-elements", "1024", p)
    assert.are.equal(1, code)
    assert.truthy(err:find(":2: matrix 1: load of rows 1..64, columns 1..64 of 64 x 64", 1, true))
    code = h.retrace("shmap", "--max-elements", "4096", p)
    assert.are.equal(0, code)
    code, _, err = h.retrace("shmap", "--max-elements", "0", p)
    assert.are.equal(2, code)
    assert.are.equal("retrace: --max-elements: '0' is not a positive integer\n", err)
    os.remove(p)
  end)
end)

describe("a trace that is one huge line", function()
  -- 200 MB in one line: format detection and the readers stop at the 64 MiB line
  -- rule without holding the line (run under a 200 MB address-space limit; the
  -- sanitizer build reserves far more address space, so it only checks the message)
  local path = os.tmpname()
  local function make()
    assert(os.execute(("head -c 200000000 /dev/zero | tr '\\0' '1' | sed 's/^/0 /' > %s && echo >> %s")
      :format(h.quote(path), h.quote(path))))
  end
  local limit = os.getenv("ASAN_OPTIONS") and "" or "ulimit -v 200000; "

  local function run(...)
    local args = {}
    for i = 1, select("#", ...) do args[i] = h.quote((select(i, ...))) end
    local err = os.tmpname()
    local _, _, code = os.execute(("sh -c %s 2>%s"):format(
      h.quote(limit .. "exec " .. h.quote(h.bin) .. " " .. table.concat(args, " ") .. " >/dev/null"), err))
    local e = h.slurp(err)
    os.remove(err)
    return code, e
  end

  it("is refused by retrace cache (format detected from a bounded prefix) and retrace info", function()
    make()
    for _, cmd in ipairs({ { "cache", path }, { "info", path }, { "cache", "--format", "din", path } }) do
      local code, err = run(table.unpack(cmd))
      assert.are.equal(1, code, table.concat(cmd, " "))
      assert.truthy(err:find(path .. ":1: line longer than 64 MiB", 1, true), err)
    end
    os.remove(path)
  end)
end)

describe("a Lua cache policy that fails", function()
  local din = h.temp_file("0 0\n0 40\n0 80\n0 c0\n")
  local function policy(body)
    return h.temp_file('local cache = require "retrace.cache"\n'
      .. 'return cache.policy{\n  name = "bad",\n  victim = function(set, now)\n' .. body .. '\n  end,\n}\n', ".lua")
  end

  it("names its file and line and shows a non-string error object's tostring", function()
    local p = policy('    error(setmetatable({}, {__tostring = function() return "no victim today" end}))')
    local code, out, err = h.retrace("cache", "--size", "128", "--line", "64", "--ways", "2", "--policy", p, din)
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.are.equal(("retrace: policy bad: victim: %s:5: no victim today (an error object, not a message)\n")
      :format(p), err)
    os.remove(p)
  end)

  it("names its file and line for a runtime error, in one line", function()
    local p = policy("    local t = nil\n    return t.x")
    local code, _, err = h.retrace("shmap", "--cache-size", "8", "--line", "4", "--policy", p,
      h.source .. "/examples/hello/lu4.shm")
    assert.are.equal(1, code)
    assert.are.equal(("retrace: policy bad: victim: %s:6: attempt to index a nil value (local 't')\n"):format(p), err)
    os.remove(p)
  end)
end)

describe("retrace render's cost and outputs", function()
  local script = h.temp_file([[
local canvas = require "retrace.canvas"
return { frames = 2, width = 10, height = 10, draw = function(cv, i, n)
  for k = 1, (i == 1 and 3 or 150) do cv:line(0, k % 10, 10, 0, "black") end
  cv:rect(1, 1, 3, 3, "red")
  local p = canvas.pack(4)
  for k = 1, 5 do p:push(0, k, 9, k) end
  cv:segments(p, { color = "blue" })
end }
]], ".lua")

  it("reports each frame's marks in --json and warns when a frame draws more marks than pixels", function()
    local dir = h.temp_dir()
    local code, out, err = h.retrace("render", script, "-o", dir, "--json")
    assert.are.equal(0, code)
    local j = require("cjson").decode(out)
    -- frame 1: 3 strokes + 1 fill + 5 segments; frame 2: 150 strokes + 1 + 5
    assert.are.same({ 9, 156 }, j.primitives)
    assert.are.equal(156, j.max_primitives)
    assert.are.equal(("retrace: %s: frame 2 drew 156 marks on 100 pixels; draw many lines or boxes in one "
      .. "call (cv:segments, cv:rects, cv:path with a pack) to make it faster\n"):format(script), err)
  end)

  it("names the PDF it could not write (a full disk)", function()
    local dir = h.temp_dir()
    local code, _, err = h.retrace("render", script, "-o", dir, "--pdf", "/dev/full")
    assert.are.equal(1, code)
    assert.truthy(err:find("/dev/full: No space left on device", 1, true), err)
    assert.falsy(err:find("canvas output", 1, true))
  end)
end)

describe("a message that memory ran out", function()
  local cli = require "retrace.cli"
  local f = h.temp_file("x\n", ".trf")

  it("gets the command's input files in front when it names none", function()
    assert.are.equal(f .. ": not enough memory", cli.name_inputs("not enough memory", { "--json", f, "-o", "/nonexistent/out" }))
    assert.are.equal(f .. ": replay: out of memory", cli.name_inputs("replay: out of memory", { f }))
  end)

  it("is left alone when it names a file already, and other messages always are", function()
    assert.are.equal(f .. ":3: out of memory", cli.name_inputs(f .. ":3: out of memory", { f }))
    assert.are.equal("bad thing", cli.name_inputs("bad thing", { f }))
    assert.are.equal("out of memory", cli.name_inputs("out of memory", { "--json" }))
  end)
end)
