-- Fuzz of the Lua API: every function of require("retrace.core") called with
-- wrong arguments (wrong types, negative and huge sizes, NaN, missing), then
-- objects made from good inputs used after close, closed twice, and with
-- callbacks that raise. Each call is in pcall: a call may fail, the process
-- must not crash or report a sanitizer error (run it with the ASan build).
--   Usage: build-asan/retrace bench/fuzz_api.lua
local core = require "retrace.core"
local FX = "tests/fixtures/"

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
collectgarbage()
collectgarbage()
print(("fuzz_api: %d calls, %d raised, %d objects hammered, no crash"):format(calls, raised, #made))
