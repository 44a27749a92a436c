-- A display of your own: a message-passing run replayed frame by frame, one bar per
-- processor split into its shares of busy, overhead and idle time so far (the state
-- colours of retrace's displays), with the time of the frame. Render it into PNG frames, an HTML
-- player and an MP4:
--   retrace render examples/render/states.lua -o states --html --mp4 states.mp4 examples/picl/ring4.trf
local replay = require "retrace.replay"
local colors = require "retrace.colors"

local W, H, N = 640, 360, 40 -- size, frames
local rp, t0, t1

local function setup(args)
  local path = assert(args[1], "states.lua: give a trace after the script")
  rp = assert(replay.open(path))
  rp:run() -- a first pass for the span, then replay again frame by frame
  t0, t1 = rp:span()
  rp = assert(replay.open(path))
end

local function draw(cv, i, n)
  local t = t0 + (t1 - t0) * i / n
  rp:run_until(t)
  cv:rect(0, 0, W, H, "white")
  local ink = { size = 12, color = "black", valign = "middle" }
  cv:text(20, 24, ("time %.6f s of %.6f s; share of each processor's time so far"):format(t - t0, t1 - t0), ink)
  local np = rp:nprocs()
  local bar, left, width = math.min(40, (H - 90) / np), 110, W - 140
  for p = 0, np - 1 do
    local s = rp:proc(p)
    local y = 50 + p * (bar + 6)
    cv:text(20, y + bar / 2, "processor " .. p, ink)
    local x, total = left, s.busy + s.overhead + s.idle
    for _, state in ipairs { "busy", "overhead", "idle" } do
      local w = total > 0 and width * s[state] / total or 0
      cv:rect(x, y, w, bar, colors.state(state))
      x = x + w
    end
  end
  local x = left
  for _, state in ipairs { "busy", "overhead", "idle" } do
    cv:rect(x, H - 30, 14, 14, colors.state(state))
    x = x + 20 + cv:text(x + 20, H - 23, state, ink) + 20
  end
end

return { width = W, height = H, frames = N, title = "processor states", setup = setup, draw = draw }
