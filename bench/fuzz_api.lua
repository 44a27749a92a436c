-- Fuzz of the Lua API: every function of require("retrace.core") called with
-- wrong arguments (wrong types, negative and huge sizes, NaN, missing), then
-- objects made from good inputs used after close, closed twice, and with
-- callbacks that raise. Each call is in pcall: a call may fail, the process
-- must not crash or report a sanitizer error (run it with the ASan build).
--   Usage: build-asan/retrace bench/fuzz_api.lua
local core = require "retrace.core"
local lfs = require "lfs"
-- The calls run in a scratch folder on copies of the fixtures: some write files
-- named by their arguments ("1", "x", or an input path given as an output).
local SCRATCH = "/tmp/retrace-fuzz-api"
os.execute("rm -rf " .. SCRATCH .. " && mkdir -p " .. SCRATCH .. " && cp -r tests/fixtures " .. SCRATCH)
assert(lfs.chdir(SCRATCH))
local FX = SCRATCH .. "/fixtures/"

local bad = { {}, { nil }, { 1 }, { -1 }, { 0 }, { math.huge }, { 0 / 0 }, { "x" }, { "" },
  { {} }, { true }, { print }, { -2 ^ 62 }, { 2 ^ 62 }, { "/nonexistent/x" },
  { FX .. "info/refs.din" }, { FX .. "info/refs.din", -1 }, { FX .. "info/refs.din", {} },
  { FX .. "info/refs.din", { format = 7, size = -64, line = 0 } },
  { { size = -1, line = -1, ways = 0, pes = -3 } }, { { size = 2 ^ 62 } }, { 1, 2, 3, 4, 5, 6 } }

local calls, raised = 0, 0
local function try(f, ...)
  calls = calls + 1
  local ok, r = pcall(f, ...)
  if not ok then raised = raised + 1 end
  return ok, r
end

-- Every method of a value (through its metatable's __index), with bad arguments,
-- then closed and every method again.
local function hammer(obj)
  local mt = getmetatable(obj)
  local idx = mt and mt.__index
  if type(idx) ~= "table" then return end
  for _, pass in ipairs({ "open", "closed" }) do
    for name, m in pairs(idx) do
      if type(m) == "function" and name ~= "close" then
        for _, a in ipairs(bad) do
          try(m, obj, table.unpack(a, 1, 6))
        end
        try(m, obj, function() error("raised from a callback") end)
        try(m, obj, function() return m(obj) end) -- re-entrant
      end
    end
    if pass == "open" then
      if idx.close then try(idx.close, obj); try(idx.close, obj) end
      if mt.__close then try(mt.__close, obj) end
    end
  end
end

local made = {}
for mname, mod in pairs(core) do
  if type(mod) == "table" then
    for fname, f in pairs(mod) do
      if type(f) == "function" then
        for _, a in ipairs(bad) do
          local ok, r = try(f, table.unpack(a, 1, 6))
          if ok and type(r) == "userdata" then made[#made + 1] = r end
        end
      end
    end
  end
end
-- objects from good inputs
local good = {
  function() return core.shmap.open(FX .. "shmap/machine.shm") end,
  function() return core.picl.open(FX .. "picl/old.trf") end,
  function() return core.picl.open(FX .. "picl/tasks.trf") end,
  function() return core.util.lines(FX .. "info/refs.din") end,
  function() return core.seq.new() end,
  function() return core.replay.new() end,
  function() return core.medea.new() end,
}
for _, g in ipairs(good) do
  local ok, r = try(g)
  if ok and type(r) == "userdata" then made[#made + 1] = r end
end
for _, o in ipairs(made) do hammer(o) end

-- Re-entrancy: a Lua cache policy that closes, steps or accesses the object
-- running it (the call must fail cleanly, the object stay usable).
local cache = require "retrace.cache"
local shmap = require "retrace.shmap"
for _, what in ipairs({ "close", "access", "flush", "reset", "stats" }) do
  local c
  local p = cache.policy{ name = "evil", victim = function()
    if what == "access" then c:access(7) else c[what](c) end
    return 1
  end, hit = function() c:close() end }
  c = cache.new{ size = 2, line = 1, policy = p }
  for a = 1, 6 do try(c.access, c, a % 4) end
  try(c.stats, c)
  c:close()
end
for _, what in ipairs({ "close", "load", "clip", "undo", "length", "chain" }) do
  local ses = core.seq.new()
  try(ses.load, ses, FX .. "chitra/philosophers2.pes", function()
    if what == "load" then ses:load(FX .. "chitra/philosophers2.pes") else ses[what](ses, 1, 1) end
  end, 16)
  try(ses.length, ses)
  ses:close()
end
for _, what in ipairs({ "close", "step", "run", "run_until", "finish", "totals" }) do
  local rp
  local t = core.picl.open(FX .. "picl/critical.trf")
  rp = core.replay.new(t, { on_state = function() rp[what](rp, 1) end,
    on_record = function() t:close() end })
  try(rp.run, rp)
  try(rp.totals, rp)
  rp:close()
end
for _, what in ipairs({ "close", "step", "run", "stats", "on_access" }) do
  local sim
  local p = cache.policy{ name = "evil", victim = function() sim[what](sim, 1); return 1 end,
    fill = function() sim:close() end }
  sim = shmap.sim{ trace = FX .. "shmap/policy.shm", cache_size = 4, line = 1, policy = p }
  try(sim.run, sim)
  try(sim.stats, sim)
  sim:on_access(function() sim:close() end)
  try(sim.run, sim)
  sim:close()
end
collectgarbage()
collectgarbage()
print(("fuzz_api: %d calls, %d raised, %d objects hammered, no crash"):format(calls, raised, #made))
