-- Simulate N dining philosophers and write their program execution sequence (PES).
--
--   retrace examples/chitra/philosophers.lua N X STATES [SEED] > run.pes
--
-- Philosopher i loops: think (state T), take its first utensil (A1), take its
-- second (A2), eat (E), put back the first (R1), put back the second (R2). Even
-- philosophers take their right utensil first, odd ones their left. Think and eat
-- last about X time units; a taken utensil makes the next philosopher wait (busy
-- waiting: it stays in A1 or A2). The program state is the list of all
-- philosophers' states ("ETA1R2" for three), written with the time it was entered.
local N = math.tointeger(tonumber(arg[1] or "2"))
local X = tonumber(arg[2] or "10")
local STATES = math.tointeger(tonumber(arg[3] or "2000"))
local SEED = math.tointeger(tonumber(arg[4] or "1"))
if not N or N < 2 or not X or X <= 0 or not STATES or STATES < 2 or not SEED then
  io.stderr:write("usage: philosophers.lua N X STATES [SEED]\n")
  os.exit(2)
end
math.randomseed(SEED)

local held = {}                       -- utensil -> philosopher holding it
local function first(i) return i % 2 == 1 and i - 1 or i end
local function second(i) return i % 2 == 1 and i or (i - 1) % N end

local function jitter(base) return base + math.random(0, math.max(1, math.floor(base / 10))) end

-- state of philosopher i and the time its current statement completes (nil: waiting)
local state, done = {}, {}
for i = 0, N - 1 do
  state[i] = "T"
  done[i] = jitter(X) + i * 3
end

local out, last = {}, nil
local function record(t)
  local parts = {}
  for i = 0, N - 1 do parts[#parts + 1] = state[i] end
  local s = table.concat(parts)
  if s ~= last then
    out[#out + 1] = string.format("%s %d", s, t)
    last = s
  end
end

local function try_take(i, utensil, t)
  if held[utensil] == nil then
    held[utensil] = i
    done[i] = t + math.random(2, 4)
    return true
  end
  done[i] = nil -- waits until the holder puts it back
  return false
end

local t = 0
record(t)
while #out < STATES do
  -- the next statement to complete
  local who, when = nil, math.huge
  for i = 0, N - 1 do
    if done[i] and done[i] < when then who, when = i, done[i] end
  end
  t = when
  local i = who
  if state[i] == "T" then
    state[i] = "A1"
    try_take(i, first(i), t)
  elseif state[i] == "A1" then
    state[i] = "A2"
    try_take(i, second(i), t)
  elseif state[i] == "A2" then
    state[i], done[i] = "E", t + jitter(X)
  elseif state[i] == "E" then
    state[i], done[i] = "R1", t + math.random(3, 6)
  elseif state[i] == "R1" then
    held[first(i)] = nil
    state[i], done[i] = "R2", t + math.random(3, 6)
  else -- R2
    held[second(i)] = nil
    state[i], done[i] = "T", t + jitter(X)
  end
  -- wake a philosopher waiting for a utensil just put back
  for j = 0, N - 1 do
    if not done[j] then
      local u = state[j] == "A1" and first(j) or second(j)
      if held[u] == nil then try_take(j, u, t) end
    end
  end
  record(t)
end
io.write(string.format("# %d dining philosophers, think and eat time %g, seed %d\n", N, X, SEED))
io.write(table.concat(out, "\n"), "\n")
