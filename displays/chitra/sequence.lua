--- Time and event views of a symbol execution sequence: the state (one row per
-- symbol, in order of first appearance) against time or event number, as a step
-- line, with zoom to a range and every occurrence of selected patterns shaded in
-- its own colour.
--
--   local view = require "retrace.displays.chitra.sequence"
--   local d = view.data(ses, {domain = "time" | "event", member = 1, range = {a, b},
--                             shade = {"A,B", {pattern = {"C", "D"}, color = "#ff000060"}}})
--   view.draw(cv, d, {x, y, w, h})        -- d is plain data (JSON / CSV ready)
local plot = require "retrace.displays.chitra.plot"
local canvas = require "retrace.canvas"

local M = {}

--- The view's data: {domain, member, labels = {name per row 0..}, x0 = {}, x1 = {},
-- y = {}, symbols = {}, range = {a, b}, shades = {{pattern, color, x0 = {}, x1 = {}}}}.
function M.data(ses, opts)
  opts = opts or {}
  local domain = opts.domain or "time"
  if domain ~= "time" and domain ~= "event" then
    return nil, "view: domain must be 'time' or 'event'"
  end
  local k = opts.member or 1
  local syms = ses:symbols(k)
  local starts, lens
  if domain == "time" then
    starts, lens = ses:entries(k), ses:times(k)
  end
  local rank, labels = {}, {}
  for _, s in ipairs(syms) do
    if not rank[s] then
      rank[s] = #labels
      labels[#labels + 1] = s
    end
  end
  local function x0(i) return starts and starts[i] or i - 1 end
  local function x1(i) return starts and starts[i] + lens[i] or i end
  local n = #syms
  local a = opts.range and opts.range[1] or (n > 0 and x0(1) or 0)
  local b = opts.range and opts.range[2] or (n > 0 and x1(n) or 1)
  if not (b > a) then return nil, "view: the zoom range is empty" end
  local d = { domain = domain, member = k, labels = labels, range = { a, b },
              x0 = {}, x1 = {}, y = {}, symbols = {}, shades = {} }
  for i = 1, n do
    if x1(i) >= a and x0(i) <= b then
      local j = #d.y + 1
      d.x0[j], d.x1[j], d.y[j], d.symbols[j] = x0(i), x1(i), rank[syms[i]], syms[i]
    end
  end
  for si, sh in ipairs(opts.shade or {}) do
    if type(sh) ~= "table" or sh.pattern == nil then sh = { pattern = sh } end
    local found, err = ses:find(sh.pattern)
    if not found then return nil, err end
    local m = #found.pattern
    local entry = { pattern = found.pattern, color = sh.color or plot.shades[(si - 1) % #plot.shades + 1],
                    count = found.count, events_share = found.events_share,
                    time_share = found.time_share, x0 = {}, x1 = {} }
    for _, occ in ipairs(found.occurrences) do
      if occ[1] == k then
        local s0, s1 = x0(occ[2]), x1(occ[2] + m - 1)
        if s1 >= a and s0 <= b then
          entry.x0[#entry.x0 + 1], entry.x1[#entry.x1 + 1] = s0, s1
        end
      end
    end
    d.shades[#d.shades + 1] = entry
  end
  return d
end

--- Draw the data into box {x, y, w, h} (default: the whole canvas is the caller's).
function M.draw(cv, d, box, opts)
  opts = opts or {}
  local ylabels = {}
  for i, name in ipairs(d.labels) do ylabels[i - 1] = name end
  local p = plot.frame(cv, box, {
    x = d.range, y = { -0.5, math.max(#d.labels - 0.5, 0.5) }, ylabels = ylabels,
    title = opts.title or (d.domain == "time" and "Time view" or "Event view"),
    xlabel = d.domain == "time" and "time" or "event", label_width = opts.label_width })
  local ix, iy, iw, ih = table.unpack(p.box)
  cv:save()
  cv:clip_rect(ix, iy, iw, ih)
  for _, sh in ipairs(d.shades) do
    local r = canvas.pack(4)
    for j = 1, #sh.x0 do
      local a, b = p.sx(sh.x0[j]), p.sx(sh.x1[j])
      r:push(a, iy, math.max(b - a, 1), ih)
    end
    cv:rects(r, { color = sh.color })
  end
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
  cv:segments(seg, { color = opts.color or "navy", width = opts.width or 1.5 })
  cv:restore()
  return p
end

--- Render a session's view straight into a file (.png, .pdf, .svg).
function M.render(ses, path, opts)
  opts = opts or {}
  local d, err = M.data(ses, opts)
  if not d then return nil, err end
  local h = opts.height or math.max(300, math.min(1400, 60 + 16 * #d.labels))
  return plot.render(M, d, path, opts.width or 1000, h, opts)
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
    draw = M.draw,
    render = function(ses, path, opts) return M.render(ses, path, fix(opts)) end,
  }
end

return M
