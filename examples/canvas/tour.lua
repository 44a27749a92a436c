-- A tour of the canvas: an animated, labelled picture that uses every feature
-- (surfaces through `retrace render`, primitives, text, clipping, transforms,
-- grids through the processor palette with fading, packed segments and points,
-- traffic-light, task and message-size colours, axes, legends, a scrolling
-- time window). Render it:
--   retrace render examples/canvas/tour.lua -o /tmp/tour --html --pdf /tmp/tour.pdf
--   retrace render examples/canvas/tour.lua -o /tmp/tour-gray -n 8 gray   (monochrome)
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local layout = require "retrace.layout"

local W, H = 1024, 720
local NPE, SHADES = 8, 6
local G = 40 -- memory canvas: G x G matrix elements

local pal, grid, age_of, owner_of, window, history, msgs, lines, dots, counts, heat, busy_line

local function setup(args)
  if args[1] == "gray" then colors.set_mode("gray") end
  pal = colors.processors(NPE, { shades = SHADES })
  grid = canvas.grid(G, G) -- palette index per element, -1 = not touched
  age_of, owner_of = {}, {}
  window = layout.time_window(40, { mode = "jump" })
  history = {}
  msgs = canvas.pack(5)  -- x1, y1, x2, y2, message-size class
  lines = canvas.pack(4) -- processor activity lines
  dots = canvas.pack(3)  -- x, y, palette index
  counts = canvas.grid(G, G, 0) -- accesses per element so far
  heat = colors.ramp(32)
  busy_line = canvas.pack(2) -- x, y of the busy count, one long polyline
end

-- The "engine": each PE sweeps its own block of rows; touched elements light up
-- in the PE's colour and fade one shade per frame, then go back to empty.
local function step_memory(i)
  for k, age in pairs(age_of) do
    if age >= SHADES then
      age_of[k], owner_of[k] = nil, nil
      grid:set(k % G, k // G, -1)
    else
      age_of[k] = age + 1
      grid:set(k % G, k // G, pal:pe(owner_of[k], age + 1))
    end
  end
  for pe = 0, NPE - 1 do
    local rows = G // NPE
    for t = 0, 5 do
      local step = (i * 6 + t) % (rows * G)
      local x, y = (step * 7 + pe * 3) % G, pe * rows + (step // G) % rows
      local k = y * G + x
      age_of[k], owner_of[k] = 0, pe
      grid:set(x, y, pal:pe(pe, 0))
      counts:set(x, y, counts:get(x, y) + 1)
    end
  end
end

-- Busy / overhead / idle counts over time (a made-up but smooth load).
local function utilization(t)
  local busy = math.floor(NPE * (0.55 + 0.35 * math.sin(t / 6)) + 0.5)
  local over = math.min(NPE - busy, 1 + t % 3)
  return busy, over, NPE - busy - over
end

local function draw_memory(cv, inner)
  local side = math.min(inner.w - 110, inner.h - 14)
  cv:rect(inner.x, inner.y, side, side, colors.background("processors"))
  cv:grid(grid, pal, inner.x, inner.y, side, side)
  layout.legend(cv, inner.x + side + 12, inner.y + 4, colors.processor_legend(pal), { size = 11 })
  -- access counts so far: one device pixel per element, through a value range
  local hx, hy = inner.x + side + 12, inner.y + 158
  cv:text(hx, hy - 4, "accesses: grid | pixels", { size = 10, color = "black" })
  cv:with(function(c)
    c:clip_rect(hx, hy, G, G)
    c:rect(hx, hy, G, G, "black")
    c:grid(counts, heat, hx, hy, G, G, { range = { 1, 4 } })
  end)
  cv:pixels(counts, heat, math.floor(hx + G + 8), math.floor(hy), { range = { 1, 4 } }) -- 1:1 pixels
  local _, bh = layout.colorbar(cv, hx, hy + G + 6, 2 * G + 8, 8, heat, 1, 4, { size = 9 })
  cv:text(hx + G + 4, hy + G + 6 + bh, "accesses / element", { align = "center", valign = "top", size = 9, color = "black" })
  cv:text(inner.x, inner.y + side + 2, string.format("matrix %d x %d elements: column ->, row v", G, G),
    { valign = "top", size = 9, color = "black" })
  -- one fade sequence, as swatches
  for s = 0, SHADES do
    cv:rect(inner.x + side + 12 + s * 12, inner.y + side - 14, 12, 12, pal:hex(pal:pe(2, s)))
  end
  cv:text(inner.x + side + 12, inner.y + side - 18, "fade of PE 2", { size = 10, color = "black" })
end

local function draw_utilization(cv, inner, i)
  local lo, hi = window:update(i)
  local s = layout.axes(cv, layout.inset(inner, 0, 0, 0, 36),
    { x = { lo, hi, label = "time (ms)" }, y = { 0, NPE, label = "processors (count)", ticks = 4 }, grid = "#e0e0e0" })
  cv:save()
  cv:clip_rect(s.plot.x, s.plot.y, s.plot.w, s.plot.h)
  for t = math.max(0, math.floor(lo)), i do
    local busy, over, idle = utilization(t)
    local x0, x1 = s.x(t), s.x(t + 1)
    local y = 0
    for _, part in ipairs({ { busy, "busy" }, { over, "overhead" }, { idle, "idle" } }) do
      cv:rect(x0, s.y(y + part[1]), x1 - x0, s.y(y) - s.y(y + part[1]), colors.state(part[2]))
      y = y + part[1]
    end
  end
  busy_line:clear()
  for t = math.max(0, math.floor(lo)), i do busy_line:push(s.x(t + 0.5), s.y((utilization(t)))) end
  cv:path(busy_line, { color = "black", width = 1.5, dash = { 4, 2 } })
  cv:restore()
  layout.legend(cv, inner.x + 4, inner.y + inner.h - 16,
    { { "busy", colors.state("busy") }, { "overhead", colors.state("overhead") }, { "idle", colors.state("idle") } },
    { size = 10, horizontal = true })
end

local function draw_spacetime(cv, inner, i)
  local s = layout.axes(cv, layout.inset(inner, 0, 0, 84, 0),
    { x = { 0, 40, label = "time (ms)" }, y = { -0.5, NPE - 0.5, label = "processor (number)", ticks = NPE } })
  msgs:clear()
  lines:clear()
  for pe = 0, NPE - 1 do lines:push(s.x(0), s.y(pe), s.x(math.min(i, 40)), s.y(pe)) end
  for m = 0, math.min(i, 40) - 2 do
    local from, to = m % NPE, (m * 3 + 1) % NPE
    local bytes = 2 ^ (m % 16)
    local _, class = colors.message_size(bytes)
    msgs:push(s.x(m), s.y(from), s.x(m + 1.5), s.y(to), class - 1)
  end
  cv:segments(lines, { color = "black", width = 2 })
  local sizes = {}
  for k, c in ipairs(colors.message_size_classes) do sizes[k] = colors.mode == "gray" and c.gray or c.color end
  cv:segments(msgs, { palette = canvas.palette(sizes), width = 1.5 })
  -- the size classes the lines are coloured by, beside the plot
  local lx = inner.x + inner.w - 78
  cv:text(lx, inner.y + 2, "message size", { valign = "top", size = 9, bold = true, color = "black" })
  layout.legend(cv, lx, inner.y + 14, colors.message_size_legend(), { size = 9 })
end

local function draw_network(cv, inner, i)
  local cx, cy = inner.x + inner.h / 2 + 10, inner.y + inner.h / 2
  local rad = inner.h / 2 - 24
  local pos = {}
  for pe = 0, NPE - 1 do
    local a = 2 * math.pi * pe / NPE - math.pi / 2
    pos[pe] = { cx + rad * math.cos(a), cy + rad * math.sin(a) }
  end
  -- curved arcs along hypercube links (solid) and virtual links (dashed)
  for k = 0, 2 do
    local a, b = (i + k) % NPE, (i + k * 3 + 2) % NPE
    local d = a ~ b
    local physical = d == 1 or d == 2 or d == 4
    cv:curve(pos[a][1], pos[a][2], pos[b][1], pos[b][2], 0.2,
      { color = colors.ink(physical and "steelblue" or "crimson"), width = 2, dash = not physical and { 6, 4 } or nil })
  end
  for pe = 0, NPE - 1 do
    local fill = colors.task(pe + i // 4)
    cv:circle(pos[pe][1], pos[pe][2], 14, { fill = fill, stroke = "black", width = 1 })
    cv:text(pos[pe][1], pos[pe][2], tostring(pe), { align = "center", valign = "middle", size = 11, bold = true,
      color = colors.contrast(fill) })
  end
  -- a small Kiviat diagram in the ring: each spoke is one processor's load
  local kv = {}
  for pe = 0, NPE - 1 do
    local a = 2 * math.pi * pe / NPE - math.pi / 2
    local load = 0.35 + 0.3 * (1 + math.sin(i / 5 + pe)) / 2
    kv[#kv + 1] = cx + rad * 0.6 * load * math.cos(a)
    kv[#kv + 1] = cy + rad * 0.6 * load * math.sin(a)
  end
  cv:polygon(kv, { fill = colors.ink("#4d80e659"), stroke = colors.ink("navy"), width = 1 })
  cv:polyline({ cx - 6, cy, cx + 6, cy }, { color = "black", width = 1 })
  cv:polyline({ cx, cy - 6, cx, cy + 6 }, { color = "black", width = 1 })
  -- message-size histogram on a log axis, drawn with packed points
  local hx = cx + rad + 40
  local box = { x = hx, y = inner.y, w = inner.x + inner.w - hx, h = inner.h - 4 }
  local s = layout.axes(cv, box, { x = { 1, 65536, log = true, label = "message size (bytes)" }, y = { 0, 10, label = "messages (count)" }, size = 9 })
  dots:clear()
  local sizes = {}
  for k, c in ipairs(colors.message_size_classes) do sizes[k] = colors.mode == "gray" and c.gray or c.color end
  for e = 0, 16, 2 do
    local n = (e * 7 + i) % 10
    local _, class = colors.message_size(2 ^ e)
    for c = 1, n do dots:push(s.x(2 ^ e), s.y(c - 0.5), class - 1) end
  end
  cv:points(dots, { palette = canvas.palette(sizes), radius = 3, round = true })
end

local function draw(cv, i, n)
  step_memory(i)
  cv:background("#eeeeee")
  cv:text(16, 12, "retrace canvas tour", { valign = "top", size = 22, bold = true, color = "black" })
  cv:text(W - 40, 14, string.format("frame %d / %d", i, n), { align = "right", valign = "top", size = 14, color = "dimgray" })
  -- progress: an arc that closes as the animation runs
  cv:arc_path(W - 22, 22, 9, -90, -90 + 360 * i / n, { color = colors.ink("steelblue"), width = 4, cap = "round" })
  layout.compose(cv, { x = 30, y = 48, w = W - 40, h = H - 58 }, 2, 2, {
    { title = "Memory accesses (processor colours, fading)", draw = function(c, r) draw_memory(c, r) end },
    { title = "Utilization count (scrolling window)", draw = function(c, r) draw_utilization(c, r, i) end },
    { title = "Spacetime: messages coloured by size", draw = function(c, r) draw_spacetime(c, r, i) end },
    { title = "Hypercube links, tasks, message sizes", draw = function(c, r) draw_network(c, r, i) end },
  }, { gap = 10, fill = "white" })
  cv:text(14, H / 2, "colour mode: " .. colors.mode, { angle = -90, align = "center", valign = "middle", size = 12, color = "gray" })
  -- a scaled and translated badge in the 4 KiB message colour
  cv:with(function(c)
    c:translate(300, 16)
    c:scale(0.6, 0.6)
    c:rect(0, 0, 90, 24, { fill = colors.message_size(4096), stroke = "black" })
    c:text(45, 12, "4 KiB", { align = "center", valign = "middle", size = 16, color = "black" })
  end)
end

return { width = W, height = H, frames = 48, fps = 12, title = "retrace canvas tour",
         background = "#eeeeee", setup = setup, draw = draw }
