--- Time and event views of a symbol execution sequence: the state (one row per
-- symbol, in order of first appearance) against time or event number, as a step
-- line, with zoom to a range and every occurrence of selected patterns shaded in
-- its own colour.
--
--   local view = require "retrace.displays.chitra.sequence"
--   local d = view.data(ses, {domain = "time" | "event", member = 1, range = {a, b},
--                             shade = {"A,B", {pattern = {"C", "D"}, color = "#ff000060"}}})
--   local disp = view.new(ses, opts)     -- a display: disp:draw(cv, rect), disp:data()
--   view.render(ses, "time.png", opts)   -- -> disp:data() or nil, message
-- d is plain data (JSON / CSV ready); the frame is a retrace.plot, the step line is
-- drawn into its plot area from C (decimated to the pixels) or from d's own lists.
local plot = require "retrace.plot"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local view = require "retrace.displays.chitra.view"

local M = {}

-- The session each data table came from (not part of the data, so the data stays
-- plain): draw asks it for the step line, decimated in C to the picture's pixels.
local sources = setmetatable({}, { __mode = "k" })

--- The view's data: {domain, member, labels = {name per row 0..}, range = {a, b},
-- count (elements touching the range), shades = {{pattern, color, x0 = {}, x1 = {}}}}
-- and either the elements, x0 = {}, x1 = {}, y = {} (rows), symbols = {}, when there
-- are at most opts.max_elements (4 per column) of them, or else what a picture opts.columns
-- (1000) pixels wide shows: columns = {count =, lo = {}, hi = {}}, the lowest and
-- highest row present in each column (-1: none), and the shades' occurrences less than
-- a column apart merged into one interval.
function M.data(ses, opts)
  opts = opts or {}
  local domain = opts.domain or "time"
  if domain ~= "time" and domain ~= "event" then
    return nil, "view: domain must be 'time' or 'event'"
  end
  local core = ses -- the library session (retrace.chitra)
  local k = opts.member or 1
  local n = core:length(k)
  local labels = core:rows(k)
  local a, b
  if opts.range then
    a, b = opts.range[1], opts.range[2]
  elseif n > 0 then
    a = core:view_slice(k, domain, 1, 1)[1]
    b = select(2, core:view_slice(k, domain, n, 1))[1]
  else
    a, b = 0, 1
  end
  if not (b > a) then return nil, "view: the zoom range is empty" end
  local first, count = core:view_span(k, domain, a, b)
  local d = { domain = domain, member = k, labels = labels, range = { a, b }, count = count,
              shades = {} }
  if count <= (opts.max_elements or 4 * (opts.columns or 1000)) then
    d.x0, d.x1, d.y, d.symbols = core:view_slice(k, domain, first, count)
  else
    local c = opts.columns or 1000
    d.columns = { count = c }
    d.columns.lo, d.columns.hi = core:view_columns(k, domain, a, b, c)
  end
  sources[d] = { core = core, depth = core:depth(), length = n }
  for si, sh in ipairs(opts.shade or {}) do
    if type(sh) ~= "table" or sh.pattern == nil then sh = { pattern = sh } end
    local entry, err
    if d.columns then
      -- a long sequence: the occurrences come from C, those less than a column apart merged
      entry, err = M.long_shade(core, k, domain, sh.pattern, a, b, d.columns.count)
    else
      entry, err = M.short_shade(ses, k, domain, sh.pattern, a, b)
    end
    if not entry then return nil, err end
    entry.color = sh.color or view.shade(si)
    d.shades[#d.shades + 1] = entry
  end
  return d
end

--- The shading of a pattern: {pattern, count, events_share, time_share, x0 = {}, x1 = {}},
-- the extent of every occurrence in member k touching [a, b].
function M.short_shade(ses, k, domain, pattern, a, b)
  local core = ses -- the library session (retrace.chitra)
  local starts, lens
  if domain == "time" then starts, lens = core:entries(k), core:times(k) end
  local function x0(i) return starts and starts[i] or i - 1 end
  local function x1(i) return starts and starts[i] + lens[i] or i end
  local found, err = ses:find(pattern)
  if not found then return nil, err end
  local m = #found.pattern
  local entry = { pattern = found.pattern, count = found.count, events_share = found.events_share,
                  time_share = found.time_share, x0 = {}, x1 = {} }
  for _, occ in ipairs(found.occurrences) do
    if occ[1] == k then
      local s0, s1 = x0(occ[2]), x1(occ[2] + m - 1)
      if s1 >= a and s0 <= b then
        entry.x0[#entry.x0 + 1], entry.x1[#entry.x1 + 1] = s0, s1
      end
    end
  end
  return entry
end

--- The shading of a pattern on a long sequence, as in data's shades, its occurrences
-- less than (b - a) / ncols apart merged into one interval.
function M.long_shade(core, k, domain, pattern, a, b, ncols)
  pattern = require("retrace.chitra").split_list(pattern)
  if #pattern == 0 then return nil, "find: the pattern is empty" end
  local count, time, x0, x1 = core:view_shade(k, domain, pattern, a, b, ncols)
  if not count then return nil, time end
  local events = 0
  for j = 1, core:members() do events = events + core:length(j) end
  local _, T = core:totals()
  return { pattern = pattern, count = count, events_share = events > 0 and count * #pattern / events or 0,
           time_share = T > 0 and time / T or 0, x0 = x0, x1 = x1 }
end

-- The session behind d when it still holds the sequence d was made from.
local function source(d)
  local src = sources[d]
  if not src then return nil end
  local ok, depth = pcall(src.core.depth, src.core)
  if ok and depth == src.depth and src.core:length(d.member) == src.length then return src.core end
end

-- The legend entry of a shaded pattern: the pattern, its occurrences, its shares.
local function shade_label(sh)
  local pat = table.concat(sh.pattern, ",")
  if #pat > 28 then pat = pat:sub(1, 25) .. "..." end
  return string.format("%s: %d, %s of time", pat, sh.count, plot.format_number(100 * sh.time_share, 3) .. "%")
end

--- The frame of d (not drawn): rows named on y (every k-th name when they would
-- crowd, k from the height of rect), x the time or event range, one legend entry
-- per shaded pattern (outside the plot, so it hides no step).
function M.plot(d, opts, rect)
  opts = opts or {}
  local n = #d.labels
  local ih = math.max(40, (rect and rect.h or 400) - 90)
  local every = math.max(1, math.ceil(n * 13 / ih))
  local names = {}
  for i, name in ipairs(d.labels) do
    if (i - 1) % every == 0 then names[i - 1] = name end
  end
  local p = plot.new { title = opts.title or (d.domain == "time" and "Time view" or "Event view"),
    legend = "outside",
    x = { label = d.domain == "time" and "time" or "event", unit = d.domain == "time" and "PES time units" or nil,
          lo = d.range[1], hi = d.range[2], pad = 0 },
    y = { labels = names, lo = -0.5, hi = math.max(n - 0.5, 0.5) } }
  if every > 1 then p:note(string.format("every %d%s state named (%d states)", every,
    every == 2 and "nd" or every == 3 and "rd" or "th", n)) end
  for _, sh in ipairs(d.shades) do
    p:bars({}, {}, { color = sh.color, label = shade_label(sh) })
  end
  return p
end

-- The shading and the step line, inside the frame the plot drew.
local function draw_marks(cv, p, d, opts)
  local pd = p:data()
  -- whole pixels: one reduced column per device pixel column
  local ix, iy = math.floor(pd.plot.x + 0.5), math.floor(pd.plot.y + 0.5)
  local iw, ih = math.floor(pd.plot.x + pd.plot.w + 0.5) - ix, math.floor(pd.plot.y + pd.plot.h + 0.5) - iy
  d.marks = { x = ix, y = iy, w = iw, h = ih }
  local yb = math.max(#d.labels - 0.5, 0.5)
  local sx = function(v) return ix + (v - d.range[1]) / (d.range[2] - d.range[1]) * iw end
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  for _, sh in ipairs(d.shades) do
    local r = canvas.pack(4)
    for j = 1, #sh.x0 do
      local a, b = sx(sh.x0[j]), sx(sh.x1[j])
      r:push(a, iy, math.max(b - a, 1), ih)
    end
    cv:rects(r, { color = colors.ink(sh.color) })
  end
  local core, seg = source(d), nil
  if core then
    seg = assert(core:view_segments(d.member, { domain = d.domain, a = d.range[1], b = d.range[2],
      ix = ix, iy = iy, iw = iw, ih = ih, ya = -0.5, yb = yb }))
  else
    local sy = function(v) return iy + ih - (v + 0.5) / (yb + 0.5) * ih end
    local frame = { box = { ix, iy, iw, ih }, sx = sx, sy = sy }
    if d.columns then
      seg = canvas.pack(4)
      local c, lo, hi = d.columns.count, d.columns.lo, d.columns.hi
      for j = 1, c do
        if lo[j] >= 0 then
          local x = ix + (j - 0.5) / c * iw
          seg:push(x, sy(lo[j]) + 0.5, x, sy(hi[j]) - 0.5)
        end
      end
    else
      seg = M.lua_segments(d, frame)
    end
  end
  cv:segments(seg, { color = colors.ink(opts.color or "navy"), width = opts.width or 1.5 })
  cv:restore()
end

--- The view of a session as a display (opts as M.data, plus title, color, width).
function M.new(ses, opts)
  local d, err = M.data(ses, opts)
  if not d then return nil, err end
  return view.display(d, M.plot, opts, draw_marks, d.domain .. " view")
end

--- Draw data d (M.data) into box {x, y, w, h}; returns the display (its data() says
-- where it drew).
function M.draw(cv, d, box, opts)
  local disp = view.display(d, M.plot, opts, draw_marks, d.domain .. " view")
  disp:draw(cv, box)
  return disp
end

-- The step line of data's own element lists (data without a session).
function M.lua_segments(d, p)
  local ix, iw = p.box[1], p.box[3]
  local seg = canvas.pack(4)
  local n = #d.y
  if n > 4 * iw then
    -- more steps than pixels: one vertical bar per pixel column spanning the rows seen
    local lo, hi = {}, {}
    for j = 1, n do
      local c = math.floor(p.sx(d.x0[j]) - ix)
      local v = d.y[j]
      if not lo[c] or v < lo[c] then lo[c] = v end
      if not hi[c] or v > hi[c] then hi[c] = v end
    end
    for c, v in pairs(lo) do seg:push(ix + c + 0.5, p.sy(v) + 0.5, ix + c + 0.5, p.sy(hi[c]) - 0.5) end
  else
    for j = 1, n do
      local y = p.sy(d.y[j])
      seg:push(p.sx(d.x0[j]), y, p.sx(d.x1[j]), y)
      if j < n then seg:push(p.sx(d.x1[j]), y, p.sx(d.x1[j]), p.sy(d.y[j + 1])) end
    end
  end
  return seg
end

--- Render a session's view straight into a file (.png, .pdf, .svg); returns the
-- display's data or nil, message.
function M.render(ses, path, opts)
  opts = opts or {}
  local w = opts.width or 1000
  local o = {}
  for key, v in pairs(opts) do o[key] = v end
  o.columns = o.columns or math.max(1, w - 120) -- about the plot's pixels
  local disp, err = M.new(ses, o)
  if not disp then return nil, err end
  local h = opts.height or math.max(300, math.min(1400, 90 + 14 * #disp.d.labels))
  return view.render(disp, path, w, h)
end

--- The same view with the domain fixed (displays/chitra/time.lua and event.lua).
function M.for_domain(domain)
  local function fix(opts)
    local o = {}
    for k, v in pairs(opts or {}) do o[k] = v end
    o.domain = domain
    return o
  end
  return {
    data = function(ses, opts) return M.data(ses, fix(opts)) end,
    new = function(ses, opts) return M.new(ses, fix(opts)) end,
    draw = M.draw,
    render = function(ses, path, opts) return M.render(ses, path, fix(opts)) end,
  }
end

return M
