-- `retrace shmap --blas`: a program's CBLAS calls recorded by libretrace_blas.so as a
-- SHMAP trace. A blocked dgemm program's trace gives the same per-element load and
-- store counts (and flops) as a hand-written SHMAP trace of the same blocks; a
-- blocked LU's dtrsm reads the strictly lower triangle column by column, its dger
-- reads a row of the matrix as one block. Skips (saying so) without cc or CBLAS.
local h = require "helpers"
require "retrace"
local shmap = require "retrace.shmap"

local function have(cmd) return os.execute(cmd .. " >/dev/null 2>&1") end

local tmp = h.temp_dir()
local function build(name, extra)
  local exe = tmp .. "/" .. name
  local ok = have("cc -O1 -o " .. h.quote(exe) .. " " .. h.quote(h.source .. "/examples/shmap/" .. name .. ".c")
    .. " -lblas " .. (extra or ""))
  return ok and exe or nil
end
local MATMUL = build("blas_matmul")
local LU = build("blas_lu", "-lm")

-- Per-element counts and flops of a trace on one PE, no cache.
local function counts(path)
  local t = assert(shmap.open(path))
  local sim = assert(shmap.sim { trace = t, pes = 1, cache = false })
  sim:run()
  local out = { flops = sim:stats().totals.flops }
  for i, m in ipairs(t:matrices()) do out[i] = sim:elements(m.id) end
  sim:close()
  t:close()
  return out
end

if not (MATMUL and LU) then
  describe("retrace shmap --blas", function()
    pending("cc or the CBLAS library (libblas-dev) is missing: BLAS capture tests skipped")
  end)
  return
end

describe("retrace shmap --blas", function()
  it("records a blocked dgemm as the same blocks a hand-written SHMAP trace has", function()
    local n, nb = 10, 4 -- uneven blocks at the edges
    local got = tmp .. "/mm.shm"
    local code, out, err = h.retrace("shmap", "--blas", got, "--", MATMUL, tostring(n), tostring(nb))
    assert.are.equal(0, code, err)
    assert.matches("CBLAS calls", out)
    -- the same product written by hand: A = 1, B = 2, C = 3, blocks j, k, i
    local lines = { ("0 1 %d %d"):format(n, n), ("0 2 %d %d"):format(n, n), ("0 3 %d %d"):format(n, n) }
    local time = 0
    for j = 1, n, nb do
      for k = 1, n, nb do
        for i = 1, n, nb do
          local i2, j2, k2 = math.min(i + nb - 1, n), math.min(j + nb - 1, n), math.min(k + nb - 1, n)
          time = time + 1
          lines[#lines + 1] = ("5 3 %d dgemm"):format(2 * (i2 - i + 1) * (j2 - j + 1) * (k2 - k + 1))
          lines[#lines + 1] = ("1 1 %d %d %d %d %d"):format(i, i2, k, k2, time)
          lines[#lines + 1] = ("1 2 %d %d %d %d %d"):format(k, k2, j, j2, time)
          if k > 1 then lines[#lines + 1] = ("1 3 %d %d %d %d %d"):format(i, i2, j, j2, time) end
          lines[#lines + 1] = ("2 3 %d %d %d %d %d"):format(i, i2, j, j2, time)
        end
      end
    end
    local want = h.temp_file(table.concat(lines, "\n") .. "\n", ".shm")
    local a, b = counts(got), counts(want)
    assert.are.equal(b.flops, a.flops)
    for id = 1, 3 do
      assert.are.same(b[id].loads, a[id].loads, "loads of matrix " .. id)
      assert.are.same(b[id].stores, a[id].stores, "stores of matrix " .. id)
      assert.are.same({ n, n }, { a[id].rows, a[id].cols })
    end
    -- a hand check: A(1,1) is read once per block column of C, C(1,1) stored once per k block
    local blocks = math.ceil(n / nb)
    assert.are.equal(blocks, a[1].loads[1])
    assert.are.equal(blocks, a[3].stores[1])
    os.remove(want)
  end)

  it("records a blocked LU's triangles, rows and columns of the one matrix", function()
    local got = tmp .. "/lu.shm"
    local code, _, err = h.retrace("shmap", "--blas", got, "--", LU, "8", "4")
    assert.are.equal(0, code, err)
    local text = h.slurp(got)
    assert.matches("^0 1 8 8\n", text)
    -- dger of the first column: the row A(1, 2:4) is one block (stride = the leading dimension)
    assert.truthy(text:find("5 1 42 dger\n1 1 2 8 1 1 2\n1 1 1 1 2 4 2\n1 1 2 8 2 4 2\n2 1 2 8 2 4 2\n", 1, true))
    -- dtrsm, unit lower 4 x 4: below the diagonal, column by column, then B read and written
    assert.truthy(text:find("5 1 64 dtrsm\n1 1 2 4 1 1 8\n1 1 3 4 2 2 8\n1 1 4 4 3 3 8\n1 1 1 4 5 8 8\n2 1 1 4 5 8 8\n",
      1, true))
    -- flops: panel 1 dscal 7+6+5+4, dger 2*(7*3 + 6*2 + 5*1), dtrsm 4*4*4, dgemm 2*4*4*4;
    -- panel 2 dscal 3+2+1+0, dger 2*(3*3 + 2*2 + 1*1)
    assert.are.equal(22 + 76 + 64 + 128 + 6 + 28, counts(got).flops)
  end)

  it("records only: --frames with --blas is a usage error (exit 2)", function()
    local code, _, err = h.retrace("shmap", "--blas", tmp .. "/y.shm", "--frames", tmp .. "/f", "--", MATMUL, "4", "2")
    assert.are.equal(2, code)
    assert.matches("records the trace only", err)
  end)

  it("says when the program made no CBLAS call (exit 1, no trace)", function()
    local code, _, err = h.retrace("shmap", "--blas", tmp .. "/none.shm", "--", "true")
    assert.are.equal(1, code)
    assert.matches("made no double%-precision CBLAS call", err)
    assert.is_nil(io.open(tmp .. "/none.shm"))
  end)

  it("says when the program does not exist (exit 1)", function()
    local code, _, err = h.retrace("shmap", "--blas", tmp .. "/x.shm", "--", tmp .. "/no-such-program")
    assert.are.equal(1, code)
    assert.matches("no such program", err)
  end)
end)
