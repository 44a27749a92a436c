-- Every userdata object prints a one-line summary (tostring, the REPL, error
-- messages), and says when it is closed.
local h = require "helpers"
local core = require "retrace.core"
local cache = require "retrace.cache"
local canvas = require "retrace.canvas"
local replay = require "retrace.replay"
local shmap = require "retrace.shmap"

describe("tostring of retrace objects", function()
  it("a cache names its size, associativity, policy and line", function()
    local c = cache.new{ size = 32768, line = 64, ways = 8 }
    assert.are.equal("retrace.Cache: 32 KiB 8-way LRU, 64 B lines", tostring(c))
    c:close()
    assert.are.equal("retrace.Cache (closed)", tostring(c))
    assert.are.equal("retrace.Cache: 1 KiB fully associative FIFO, 8 B lines",
      tostring(core.cache.new{ size = 1024, line = 8, policy = "fifo" }))
    assert.are.equal("retrace.Cache: 64 B 4-way LRU, 8 B lines", tostring(cache.new{ size = 64, line = 8, ways = 4 }))
    assert.are.equal("retrace.Cache: 4 MiB 16-way MRU, 128 B lines",
      tostring(cache.new{ size = 4 * 1024 * 1024, line = 128, ways = 16, policy = "mru" }))
  end)

  it("a replay counts processors and records", function()
    local rp = assert(replay.new(h.source .. "/examples/picl/ring4.trf"))
    assert.are.equal("retrace.Replay: 0 processors, 0 records replayed", tostring(rp))
    rp:run()
    local t = assert(core.picl.open(h.source .. "/examples/picl/ring4.trf"))
    while t:next() do end
    assert.are.equal("retrace.Replay: 4 processors, " .. t:count() .. " records replayed (finished)", tostring(rp))
    t:close()
    rp:close()
    assert.are.equal("retrace.Replay (closed)", tostring(rp))
  end)

  it("readers, simulations, canvases and buffers", function()
    local t = assert(core.picl.open(h.source .. "/examples/picl/ring4.trf"))
    t:next()
    assert.matches("^retrace%.PiclTrace: .*ring4%.trf, 1 records read$", tostring(t))
    t:close()
    assert.are.equal("retrace.PiclTrace (closed)", tostring(t))
    local tr = assert(shmap.open(h.source .. "/examples/hello/lu4.shm"))
    assert.matches("^retrace%.ShmapTrace: .*lu4%.shm, %d+ matrices$", tostring(tr))
    local sim = assert(shmap.sim{ trace = tr, pes = 4, caches = 2 })
    assert.are.equal("retrace.ShmapSim: 4 PEs, 2 caches, time 0.0", tostring(sim))
    sim:close()
    assert.are.equal("retrace.ShmapSim (closed)", tostring(sim))
    assert.are.equal("retrace.Canvas: image 80 x 60", tostring(canvas.image(80, 60)))
    assert.are.equal("retrace.Canvas: recording 80 x 60", tostring(canvas.recording(80, 60)))
    assert.are.equal("retrace.Grid: 32 x 16 cells", tostring(canvas.grid(32, 16)))
    local pk = canvas.pack(4)
    pk:push(1, 2, 3, 4)
    assert.are.equal("retrace.Pack: 1 items of 4", tostring(pk))
    assert.are.equal("retrace.Palette: 3 colours", tostring(canvas.palette({ "red", "green", "blue" })))
    local acc = core.medea.new()
    assert.are.equal("retrace.MedeaAcc: 0 processors, 0 events", tostring(acc))
    local enc = core.frames.encoder(1, 0, 1)
    assert.are.equal("retrace.Encoder: 1 threads, 0 frames written", tostring(enc))
    enc:close()
    local p = h.temp_file("a\nb\n")
    local _, _, _, closer = core.util.lines(p)
    assert.matches("^retrace%.Lines: .*, line 0$", tostring(closer))
    os.remove(p)
  end)

  it("a class that gives no summary still prints its name", function()
    local recipe = core.seq
    if recipe and recipe.session then
      assert.matches("^retrace%.", tostring(recipe.session()))
    end
    local mt = debug.getregistry()["retrace.Ses"]
    assert.is_function(mt.__tostring)
    assert.is_nil(mt.__index.__tostring)
  end)
end)
