--- ParaGraph spacetime diagram: a horizontal line per processor drawn while it
-- is busy or in overhead, blank while idle; every message a line from (send
-- time, sender) to (receive time, receiver) in its size colour; collective
-- instances as translucent bands across their participants.
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"

local M, D = common.display(true)

-- colours of message sizes met (the mode is fixed for a run; reset in init)
local size_colour = {}

function D:init() size_colour = {} end

local function colour(bytes)
  local col = size_colour[bytes]
  if not col then col = colors.message_size(bytes); size_colour[bytes] = col end
  return col
end

-- The collectives completed since the display last looked, into the per-column cover of
-- the window [lo, hi] (W columns): the rows each column's bands span, the largest size.
local function add_bands(self, m, lo, hi, W, slot, natural)
  local P = self.ctx.P
  local bkey = lo .. " " .. hi .. " " .. W
  local colls, cseq, reset = common.new_collectives(m, self.band_key == bkey and self.cseq or 0)
  if reset or self.band_key ~= bkey then self.band_key, self.cover, self.nbands = bkey, {}, 0 end
  self.cseq = cseq
  local cover = self.cover
  for _, c in ipairs(colls) do
    if c.t1 >= lo and c.t0 <= hi then
      local c0 = math.max(1, math.floor((c.t0 - lo) / (hi - lo) * W) + 1)
      local c1 = math.min(W, math.floor((c.t1 - lo) / (hi - lo) * W) + 1)
      -- the places its processors take in the display order, first and last
      local slo, shi = c.lo, c.hi
      if not natural then
        slo, shi = P, -1
        for p = c.lo, c.hi do
          slo, shi = math.min(slo, slot[p]), math.max(shi, slot[p])
        end
      end
      for k = c0, c1 do
        local e = cover[k]
        if not e then cover[k] = { slo, shi, c.bytes / math.max(1, c.n) }
        else
          if slo < e[1] then e[1] = slo end
          if shi > e[2] then e[2] = shi end
          if c.bytes / math.max(1, c.n) > e[3] then e[3] = c.bytes / math.max(1, c.n) end
        end
      end
      self.nbands = self.nbands + 1
    end
  end
end

-- The messages received since the display last looked, each drawn once into the layer
-- of the window [lo, hi] over the plot box pr (batched by size colour; past a few hundred
-- lines crisp, as Cairo strokes many long crossing antialiased lines slowly). Returns the
-- layer and its offset.
local function add_messages(self, m, lo, hi, pr, slot)
  return common.message_layer(self, m, lo, hi, pr, slot, function(list, px, py, layer, ox, oy, new)
    if new then self.nlines, self.listed = 0, {} end
    local packs, order, nnew = {}, {}, 0
    for _, x in ipairs(list) do
      if not (x.recv < lo or x.send > hi) then
        local col = colour(x.bytes)
        local x0, y0, x1, y1 = px(x.send), py(x.src), px(x.recv), py(x.dst)
        local pk = packs[col]
        if not pk then pk = canvas.pack(4); packs[col] = pk; order[#order + 1] = col end
        pk:push(x0 - ox, y0 - oy, x1 - ox, y1 - oy)
        nnew = nnew + 1
        if #self.listed < 500 then
          self.listed[#self.listed + 1] = { src = x.src, dst = x.dst, send = x.send, recv = x.recv, bytes = x.bytes,
            color = col, x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
        end
      end
    end
    self.nlines = self.nlines + nnew
    if nnew > 0 then
      layer:save()
      if self.nlines > 300 then layer:antialias(false) end
      for _, col in ipairs(order) do
        layer:segments(packs[col], { color = col, width = self.nlines > 300 and 1 or 1.5 })
      end
      layer:restore()
    end
  end)
end

--- Between frames: take the messages and collectives new in the view into the kept
-- pictures and cover.
D.absorb = common.absorber(function(self, m, lo, hi, pr, slot, natural)
  add_bands(self, m, lo, hi, math.max(1, math.floor(pr.w)), slot, natural)
  add_messages(self, m, lo, hi, pr, slot)
end)

function D:draw(cv, rect)
  local ctx, m = self.ctx, self.model
  local lo, hi = common.window(ctx)
  local P = ctx.P
  local list, slot, natural = common.slots(ctx)
  -- the legend: message sizes, and the collective bands (a band is its largest
  -- message's size colour, translucent); always listed, so the plot keeps its place
  -- from frame to frame (the bands' per-column cover is kept for that place)
  local legend = colors.message_size_legend()
  legend[#legend + 1] = { "collective: a band in its size colour", { 0.5, 0.5, 0.5, 0.25 } }
  local d = common.time_frame(cv, rect, lo, hi, common.proc_axis(P, nil, list), legend)
  local pr = d.plot
  self.pr = pr
  local W = math.max(1, math.floor(pr.w))
  local function px(t) return pr.x + (t - lo) / (hi - lo) * pr.w end
  local function py(p) return pr.y + (P - 1 - slot[p] + 0.5) * pr.h / P end
  d.messages, d.bands = {}, 0
  local tl = common.proc_timeline(ctx, W, pr.h)
  if not m then self.d = d; return end
  cv:save()
  cv:clip_rect(pr.x, pr.y, pr.w, pr.h)
  -- collective bands: per pixel column the rows covered, drawn as runs; the columns'
  -- cover is kept while the window stays, and a frame adds the instances new since the last
  add_bands(self, m, lo, hi, W, slot, natural)
  d.bands = self.nbands
  local cover = self.cover
  local k = 1
  while k <= W do
    local e = cover[k]
    if e then
      local j = k
      while cover[j + 1] and cover[j + 1][1] == e[1] and cover[j + 1][2] == e[2] do j = j + 1 end
      local col = colors.message_size(e[3])
      local y0, y1 = pr.y + (P - 1 - e[2]) * pr.h / P, pr.y + (P - e[1]) * pr.h / P
      local r, g, b = colors.parse(col)
      cv:rect(pr.x + k - 1, y0, j - k + 1, y1 - y0, { fill = { r, g, b, 0.25 } })
      k = j + 1
    else
      k = k + 1
    end
  end
  -- processor lines: the columns where the processor is mostly busy or in overhead
  d.rows_per_line = common.activity_lines(self, cv, tl, m, pr, lo, hi, W, "black")
  -- messages received: each drawn once into the display's layer, which holds the
  -- window's lines; those in flight dashed from their send to now, every frame
  local layer, ox, oy = add_messages(self, m, lo, hi, pr, slot)
  cv:draw_image(layer, ox, oy)
  for i, x in ipairs(self.listed) do d.messages[i] = x end
  local dashed, dorder = {}, {}
  for _, x in ipairs(m.pending) do
    local t0, t1 = x.send_time, m.now
    if not (t1 < lo or t0 > hi) then
      local col = colour(x.bytes)
      local x0, y0, x1, y1 = px(t0), py(x.src), px(t1), py(x.dst)
      local pk = dashed[col]
      if not pk then pk = canvas.pack(4); dashed[col] = pk; dorder[#dorder + 1] = col end
      pk:push(x0, y0, x1, y1)
      if #d.messages < 500 then
        d.messages[#d.messages + 1] = { src = x.src, dst = x.dst, send = t0, bytes = x.bytes, color = col,
          x0 = x0, y0 = y0, x1 = x1, y1 = y1 }
      end
    end
  end
  local ndashed = 0
  for _, col in ipairs(dorder) do ndashed = ndashed + #dashed[col] end
  cv:save()
  if ndashed > 300 then cv:antialias(false) end
  for _, col in ipairs(dorder) do
    cv:segments(dashed[col], { color = col, width = ndashed > 300 and 1 or 1.5, dash = { 3, 2 } })
  end
  cv:restore()
  d.lines = self.nlines
  cv:restore()
  d.window = { lo, hi }
  self.d = d
end

return M
