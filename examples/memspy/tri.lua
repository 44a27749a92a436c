-- Write a .msp trace of a sparse lower-triangular solve L x = b on P processors
-- (the seed's case study `tri`), in three versions:
--   seq    one processor, rows in order;
--   orig   rows of each dependency level dealt round-robin to the processors;
--          a processor spins on Ready[col] before using x[col] and sets
--          Ready[row] after writing x[row];
--   step1  the paper's tuning step 1: rows renumbered so each processor's rows are
--          contiguous in the order it solves them (spatial locality); Ready kept
--          (renumbered with x, which is where cross-interference between the two
--          can appear);
--   step2  (also `tuned`) step 1 and Ready gone: x itself is the flag (NaN until
--          written), so waiting reads x[col];
--   step3  step 2 with the paper's last heuristic: each row goes to the processor
--          that solved most of the rows it needs (ties: the one with the fewest rows
--          of the level so far, then the lowest).
--   retrace examples/memspy/tri.lua VERSION P G OUT.msp
-- The matrix is the 5-point stencil's lower triangle on a G x G grid: row r
-- has the unit diagonal and non-zeros at r - 1 and r - G; the dependency level
-- of grid point (i, j) is i + j. Storage: M.nz (doubles) and col (ints) by row,
-- rowptr, x, b and Ready, allocated by main. The processors' reference streams
-- are interleaved a row at a time, round-robin (lockstep).
--   retrace memspy orig.msp --procs 4 --save orig.json   (then tuned, seq; compare)
local version, P, G, out = arg[1], math.tointeger(tonumber(arg[2] or "")), math.tointeger(tonumber(arg[3] or "")), arg[4]
local known = { seq = true, orig = true, step1 = true, step2 = true, tuned = true, step3 = true }
if not known[version] or not (P and G and out) or P < 1 or G < 2 then
  io.stderr:write("usage: retrace examples/memspy/tri.lua seq|orig|step1|step2|tuned|step3 P G OUT.msp\n")
  os.exit(2)
end
if version == "tuned" then version = "step2" end
local ready = version == "orig" or version == "step1"   -- the Ready flags are read and written
local reorder = version == "step1" or version == "step2" or version == "step3"

if version == "seq" then P = 1 end
local N = G * G
-- the rows each processor solves, in order
local rows = {}
for p = 1, P do rows[p] = {} end
if version == "seq" then
  for r = 0, N - 1 do rows[1][#rows[1] + 1] = r end
else
  local k, owner = 0, {}
  for level = 0, 2 * (G - 1) do
    local in_level = {}
    for p = 1, P do in_level[p] = 0 end
    for i = math.max(0, level - (G - 1)), math.min(level, G - 1) do
      local j = level - i
      local r = i * G + j
      local p = k % P + 1
      if version == "step3" then
        -- the processor owning most of the rows r needs (r - 1 and r - G)
        local votes = {}
        if j > 0 then votes[owner[r - 1]] = (votes[owner[r - 1]] or 0) + 1 end
        if i > 0 then votes[owner[r - G]] = (votes[owner[r - G]] or 0) + 1 end
        local best
        for q = 1, P do
          local v, bv = votes[q] or 0, best and (votes[best] or 0) or -1
          if v > bv or (v == bv and in_level[q] < in_level[best]) then best = q end
        end
        p = best
      end
      rows[p][#rows[p] + 1] = r
      owner[r] = p
      in_level[p] = in_level[p] + 1
      k = k + 1
    end
  end
end
-- storage order of the rows: the original numbering, or (tuned) each processor's rows contiguous
local slot = {}
if reorder then
  local s = 0
  for p = 1, P do
    for _, r in ipairs(rows[p]) do slot[r] = s; s = s + 1 end
  end
else
  for r = 0, N - 1 do slot[r] = r end
end
-- non-zeros of each row (off-diagonal columns in the original numbering)
local function cols(r)
  local c = {}
  if r % G ~= 0 then c[#c + 1] = r - 1 end
  if r >= G then c[#c + 1] = r - G end
  return c
end
-- start of each stored row in M.nz / col, by storage order
local start, s = {}, 0
local by_slot = {}
for r = 0, N - 1 do by_slot[slot[r]] = r end
for k = 0, N - 1 do
  start[by_slot[k]] = s
  s = s + #cols(by_slot[k]) + 1
end
local NNZ = s
local base = 0x1000000
local function alloc(bytes)
  local a = base
  base = base + ((bytes + 4095) // 4096 + 1) * 4096
  return a
end
local NZ, COL, PTR, X, B, READY = alloc(NNZ * 8), alloc(NNZ * 4), alloc((N + 1) * 4), alloc(N * 8), alloc(N * 8), alloc(N * 4)
local f = assert(io.open(out, "w"))
local function w(s) f:write(s, "\n") end
w("msp 1")
w(("# sparse triangular solve, %s, P = %d, %d x %d grid (examples/memspy/tri.lua)"):format(version, P, G, G))
for p = 0, P - 1 do w(("E %d main"):format(p)) end
w(("A 0 %x %d double*.M.nz tri.c:20"):format(NZ, NNZ * 8))
w(("A 0 %x %d int*.col tri.c:21"):format(COL, NNZ * 4))
w(("A 0 %x %d int*.rowptr tri.c:22"):format(PTR, (N + 1) * 4))
w(("A 0 %x %d double*.x tri.c:23"):format(X, N * 8))
w(("A 0 %x %d double*.b tri.c:24"):format(B, N * 8))
if ready then w(("A 0 %x %d int*.Ready tri.c:25"):format(READY, N * 4)) end
for p = 0, P - 1 do w(("E %d Solve tri.c:40"):format(p)) end
-- the records of one row solved by processor p (0-based)
local function row_records(p, r)
  local t = {}
  local k = slot[r]
  t[#t + 1] = ("R %d %x 4"):format(p, PTR + k * 4)
  t[#t + 1] = ("R %d %x"):format(p, B + k * 8)
  local c = cols(r)
  for q, cc in ipairs(c) do
    local e = start[r] + q - 1
    if ready then t[#t + 1] = ("R %d %x 4"):format(p, READY + slot[cc] * 4) end
    t[#t + 1] = ("R %d %x"):format(p, NZ + e * 8)
    t[#t + 1] = ("R %d %x 4"):format(p, COL + e * 4)
    t[#t + 1] = ("R %d %x"):format(p, X + slot[cc] * 8)
    t[#t + 1] = ("B %d 2"):format(p)
  end
  t[#t + 1] = ("W %d %x"):format(p, X + k * 8)
  if ready then t[#t + 1] = ("W %d %x 4"):format(p, READY + k * 4) end
  return t
end
local pos, left = {}, P
for p = 1, P do pos[p] = 1 end
while left > 0 do
  left = 0
  for p = 1, P do
    local r = rows[p][pos[p]]
    if r then
      for _, rec in ipairs(row_records(p - 1, r)) do w(rec) end
      pos[p] = pos[p] + 1
      if rows[p][pos[p]] then left = left + 1 end
    end
  end
end
for p = 0, P - 1 do w(("X %d Solve"):format(p)); w(("X %d main"):format(p)) end
f:close()
