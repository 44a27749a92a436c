--- Pieces the ParaGraph displays share: the time-axis frame, the state palette,
-- the placeholder of end-of-run displays, runs of equal cells.
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local plot = require "retrace.plot"
local order = require "retrace.displays.paragraph.order"

local M = {}

-- An order list (M.slots) -> the replay's ids of the processors drawn, when only some
-- are (ctx.info.ids); weak, so lists made for one frame go
local ids_of = setmetatable({}, { __mode = "k" })

--- A display module and its class: mod.new(ctx, opts) makes {ctx, opts} and
-- calls D.init(self) when there is one; D:data() returns self.d (set by draw);
-- with `animated`, D:update(state, t) keeps the model and the time.
function M.display(animated)
  local mod, D = {}, {}
  D.__index = D
  function mod.new(ctx, opts)
    local self = setmetatable({ ctx = ctx, opts = opts or {} }, D)
    if D.init then D.init(self) end
    return self
  end
  function D:data() return self.d end
  if animated then
    function D:update(state, t) self.model, self.t = state, t end
  end
  return mod, D
end

--- Legend items of the three states.
function M.state_items()
  return { { "busy", colors.state("busy") }, { "overhead", colors.state("overhead") },
           { "idle", colors.state("idle") } }
end

--- Palette: entry s - 1 is state s (1 busy, 2 overhead, 3 idle).
function M.state_palette()
  return colors.palette({ colors.state("busy"), colors.state("overhead"), colors.state("idle") })
end

--- A one-line legend across the top of rect (wrapping when needed); returns
-- the rest of rect and the legend's box.
function M.strip_legend(cv, rect, items)
  if not items or #items == 0 then return rect end
  local x, y, size = rect.x + 4, rect.y + 1, 9
  local rowh = size + 4
  local function width(t) return (cv:text_size(t, size)) end
  -- rows the entries take; past a quarter of a small panel, one row instead: the swatches
  -- side by side between the first entry's label and the last's (a scale such as sizes)
  local rows, cx = 1, x
  for _, it in ipairs(items) do
    local tw = width(it[1])
    if cx + 14 + tw > rect.x + rect.w and cx > rect.x + 4 then cx, rows = rect.x + 4, rows + 1 end
    cx = cx + 14 + tw + 8
  end
  if #items >= 4 and rows * rowh > rect.h / 4 then
    local a, b = items[1][1], items[#items][1]
    cv:text(x, y + 1, a, { valign = "top", size = size, color = "black" })
    x = x + width(a) + 4
    for _, it in ipairs(items) do
      cv:rect(x, y + 2, 9, 9, { fill = it[2], stroke = "#808080", width = 0.5 })
      x = x + 11
    end
    cv:text(x + 3, y + 1, b, { valign = "top", size = size, color = "black" })
  else
    for _, it in ipairs(items) do
      local tw = width(it[1])
      if x + 14 + tw > rect.x + rect.w and x > rect.x + 4 then x, y = rect.x + 4, y + rowh end
      cv:rect(x, y + 2, 9, 9, { fill = it[2], stroke = "#808080", width = 0.5 }) -- outlined: white shows
      cv:text(x + 12, y + 1, it[1], { valign = "top", size = size, color = "black" })
      x = x + 14 + tw + 8
    end
  end
  local used = y + rowh - rect.y
  return { x = rect.x, y = rect.y + used, w = rect.w, h = rect.h - used },
         { x = rect.x, y = rect.y, w = rect.w, h = used }
end

--- A plot over the scrolling time window [lo, hi] (seconds), drawn into rect;
-- y: axis options. legend: items {{label, colour}} drawn in a strip on top.
function M.time_frame(cv, rect, lo, hi, y, legend)
  local r, box = M.strip_legend(cv, rect, legend)
  local p = plot.new{ x = { label = "time", unit = "s", time = true, lo = lo, hi = hi }, y = y,
                      size = 10, legend = false }
  p:draw(cv, r)
  local d = p:data()
  d.legend = box and { x = box.x, y = box.y, w = box.w, h = box.h, where = "strip top", items = legend } or nil
  return d
end

--- A plot drawn with its legend in a strip on top (plot.new options, series added by fill(p)).
function M.plot_with_strip(cv, rect, opts, legend, fill)
  local r, box = M.strip_legend(cv, rect, legend)
  opts.legend, opts.size = false, opts.size or 10
  local p = plot.new(opts)
  fill(p)
  p:draw(cv, r)
  local d = p:data()
  d.legend = box and { x = box.x, y = box.y, w = box.w, h = box.h, where = "strip top", items = legend } or nil
  return d
end

--- Text in the middle of rect (an end-of-run display before the end).
function M.placeholder(cv, rect, text)
  cv:text(rect.x + rect.w / 2, rect.y + rect.h / 2, text,
    { align = "center", valign = "middle", size = 10, color = "dimgray" })
  return { placeholder = text }
end

--- A grid of W x R cells (reused between frames).
function M.grid(self, W, R)
  if not self.g or self.gw ~= W or self.gr ~= R then
    self.g, self.gw, self.gr = canvas.grid(W, R), W, R
  end
  self.g:fill(-1)
  return self.g
end

--- The C raster (retrace.timeline) of W columns x R rows over the shared window,
-- attached to the replay; nil when there can be none (smooth scrolling, no
-- replay in ctx, or asked for only after the replay started: the first frame is
-- laid out before the replay runs, so every display gets its raster then). The
-- command moves every raster's window when the shared one jumps and advances it
-- to the frame time.
function M.timeline(ctx, W, R)
  -- the raster's rows are the replay's processors: none when only some are drawn
  -- (ctx.info.ids); the displays then draw from the view, which holds those only
  if not ctx.rp or ctx.no_timeline or (ctx.info and ctx.info.ids) then return nil end
  ctx.timelines = ctx.timelines or {}
  local key = W .. "x" .. R
  local tl = ctx.timelines[key]
  if tl or ctx.started then return tl end
  local ok, timeline = pcall(require, "retrace.timeline")
  if not ok or not (ctx.hi > ctx.lo) then return nil end
  -- rows in the display order (--order): row r holds the places r * P / R ..
  local list, _, natural = M.slots(ctx)
  tl = timeline.new{ cols = W, rows = R, procs = ctx.P, t0 = ctx.lo, t1 = ctx.hi, order = not natural and list or nil }
  tl:attach(ctx.rp)
  ctx.timelines[key] = tl
  return tl
end

--- Palette of the timeline's state grid (0 idle, 1 overhead, 2 busy).
function M.timeline_palette()
  return colors.palette({ colors.state("idle"), colors.state("overhead"), colors.state("busy") })
end

--- The runs of columns (a, b: 1-based, inclusive) of [lo, hi] in W columns where
-- processor p spent more than half the column outside idle, from the model's view.
function M.active_runs(model, p, lo, hi, W)
  local row = model.view:active_row(p, lo, hi, W)
  local c = 1
  return function()
    local a, b = row:find("\1+", c)
    if a then c = b + 1 end
    return a, b
  end
end

--- ParaGraph's view in C behind the run (retrace.paragraph's model attached to
-- the replay), nil when there is none (a display made without a replay).
function M.view(ctx)
  local m = ctx.model or (ctx.tasks and ctx.tasks.model)
  return m and m.view or nil
end

--- Turn on the view's trailing means over ctx.smoothing (Kiviat, phase portrait),
-- before the replay runs; cols x rows: the trajectory's raster (nil: none yet).
-- Returns the view, or nil when there is none or no smoothing.
function M.trend(ctx, cols, rows)
  local view = M.view(ctx)
  local S = ctx.smoothing
  if not view or not S or not (S > 0) or S == math.huge then return nil end
  local bytes = ctx.volume == "bytes"
  local top = ctx.info and (bytes and ctx.info.max_pending_bytes or ctx.info.max_pending) or 0
  local ok = view:trend{ smoothing = S, bytes = bytes, top = (top and top > 0) and top or 1,
                         cols = cols, rows = rows, mod = 6 }
  return ok and view or nil
end

--- A picture a display keeps between frames: an image canvas over the plot box
-- pr (whole pixels around it), made again empty when `key` changes (the window
-- moved). Returns the canvas, its offset x, y in the frame, and whether it is new.
-- Draw into it at frame coordinates minus the offset; put it on the frame
-- with cv:draw_image(layer, x, y).
function M.layer(self, name, key, pr)
  self.layers = self.layers or {}
  local x, y = math.floor(pr.x), math.floor(pr.y)
  local w, h = math.max(1, math.ceil(pr.x + pr.w) - x), math.max(1, math.ceil(pr.y + pr.h) - y)
  key = string.format("%s %.17g %.17g %.17g %.17g", key, pr.x, pr.y, pr.w, pr.h)
  local l = self.layers[name]
  if l and l.key == key then return l.cv, x, y, false end
  self.layers[name] = { key = key, cv = canvas.image(w, h) }
  return self.layers[name].cv, x, y, true
end

--- The messages received that a display has not drawn yet into its layer (new:
-- the layer was just made, every message kept counts). Without a view in C
-- (no messages_after), every kept message, the layer cleared.
function M.new_messages(self, m, layer, new)
  local view = m.view
  if not (view and view.messages_after) then
    layer:clear(0, 0, 0, 0)
    return m.done, true
  end
  if new then self.msg_seq = 0 end
  local list, seq = view:messages_after(self.msg_seq or 0)
  self.msg_seq = seq
  return list, new
end

--- The collective instances a display has not counted yet: those completed
-- after `seq` (0 or nil: every one kept), the new seq, and whether the display
-- must clear its sums first (without a view in C: every kept one, every frame).
function M.new_collectives(m, seq)
  local view = m.view
  if not (view and view.collectives_after) then return m.coll_list, 0, true end
  local list, s = view:collectives_after(seq or 0)
  return list, s, false
end

--- The received messages a display has not drawn yet, for its layer of the window
-- [lo, hi] over the plot box pr (rows by slot): calls draw(list, px, py, layer, ox, oy,
-- new) with the messages, the time and processor to pixel functions (frame
-- coordinates), the layer and its offset, and whether the layer is new. Returns the
-- layer and its offset.
function M.message_layer(self, m, lo, hi, pr, slot, draw)
  local P = self.ctx.P
  local function px(t) return pr.x + (t - lo) / (hi - lo) * pr.w end
  local function py(p) return pr.y + (P - 1 - slot[p] + 0.5) * pr.h / P end
  local layer, ox, oy, new = M.layer(self, "messages", lo .. " " .. hi, pr)
  local list
  list, new = M.new_messages(self, m, layer, new)
  draw(list, px, py, layer, ox, oy, new)
  return layer, ox, oy
end

--- D:absorb for a display that keeps pictures over time: between frames, take(self,
-- model, lo, hi, pr, slot, natural) adds what the view holds that is new, so the view
-- can let it go (the plot box of the display's last drawing, self.pr).
function M.absorber(take)
  return function(self)
    local m, pr = self.model, self.pr
    if not (m and pr) then return end
    local lo, hi = M.window(self.ctx)
    local _, slot, natural = M.slots(self.ctx)
    take(self, m, lo, hi, pr, slot, natural)
  end
end

--- Processor lines (spacetime, critical path): per processor the columns of
-- [lo, hi] (W columns over the plot box pr) where it was mostly busy or in
-- overhead, in `color`. From the C raster tl when there is one (a row per
-- processor, or per group of processors when they outnumber the pixel rows:
-- returns the group size, nil when 1), else from the model's view row by row.
function M.activity_lines(self, cv, tl, m, pr, lo, hi, W, color)
  local P = m.P
  if tl then
    local g = tl:grid("state")
    local _, R = tl:size()
    local rowh = pr.h / R
    self.linepal = self.linepal or colors.palette({ { 0, 0, 0, 0 }, color, color })
    local h = rowh < 2 and rowh or math.max(1, math.min(3, rowh / 4))
    M.timeline_rows(cv, g, R, self.linepal, pr, W, rowh / 2 - h / 2, h)
    return R < P and math.ceil(P / R) or nil
  end
  local _, slot = M.slots(self.ctx)
  local seg = canvas.pack(4)
  for p = 0, P - 1 do
    local y = pr.y + (P - 1 - slot[p] + 0.5) * pr.h / P
    for a, b in M.active_runs(m, p, lo, hi, W) do seg:push(pr.x + a - 1, y, pr.x + b, y) end
  end
  cv:segments(seg, { color = color, width = math.max(1, math.min(3, pr.h / P / 4)) })
  return nil
end

--- Window [lo, hi] of a display from the shared context.
function M.window(ctx)
  return ctx.lo, ctx.hi
end

--- Processor axis: {lo, hi, label, labels} for P processors (integers 0..P-1);
-- with list (the display order, position -> processor) place i shows list[i + 1],
-- or, past 16 processors in an order other than the natural one, the axis says
-- that its numbers are places.
function M.proc_axis(P, label, list)
  local labels
  label = label or "processor"
  if P <= 16 then
    labels = {}
    for i = 0, P - 1 do labels[i] = M.proc_label(list, list and list[i + 1] or i) end
  elseif list and ids_of[list] then
    label = label .. " (place among those drawn)"
  elseif list then
    for i, p in ipairs(list) do
      if p ~= i - 1 then
        label = label .. " (" .. order.name({ P = P, order = list }) .. " place)"
        break
      end
    end
  end
  return { label = label, lo = -0.5, hi = P - 0.5, labels = labels }
end

--- The label of processor p (the model's numbering) on an axis whose order list came
-- from M.slots: the replay's id when only some processors are drawn.
function M.proc_label(list, p)
  local ids = list and ids_of[list]
  return tostring(ids and ids[p + 1] or p)
end

--- The display order of ctx (--order): the list (position, 1-based -> processor),
-- the places {[processor] = place, 0-based} and whether it is the natural one.
function M.slots(ctx)
  local list = order.of(ctx)
  ids_of[list] = ctx.info and ctx.info.ids -- labels: the replay's ids of the processors drawn
  local slot, natural = {}, true
  for i, p in ipairs(list) do
    slot[p] = i - 1
    natural = natural and p == i - 1
  end
  return list, slot, natural
end

--- The C raster of processor rows for a plot h pixels high (see M.timeline): a
-- row per processor, or per run of consecutive places of the display order when
-- they outnumber the pixel rows.
function M.proc_timeline(ctx, W, h)
  return M.timeline(ctx, W, math.max(1, math.min(ctx.P, math.floor(h))))
end

--- Put the R rows of the timeline's state grid g on the plot box pr, place 0 at
-- the bottom, pal its palette, y0 and h the line's offset and height in a row
-- (default the whole row).
function M.timeline_rows(cv, g, R, pal, pr, W, y0, h)
  local rowh = pr.h / R
  for r = 0, R - 1 do
    cv:grid(g, pal, pr.x, pr.y + (R - 1 - r) * rowh + (y0 or 0), W, h or rowh, { region = { 0, r, W, 1 } })
  end
end

--- The rows of a processor chart: {id, y, h} in processor order (data()).
function M.proc_rows(pr, P, slot)
  local rows = {}
  for p = 0, P - 1 do
    rows[p + 1] = { id = p, slot = slot[p], y = pr.y + (P - 1 - slot[p] + 0.5) * pr.h / P, h = pr.h / P }
  end
  return rows
end

return M
