--- SHMAP's statistics panel: per PE its colour, loads, stores, flops and current
-- subroutine; per cache hits, misses and hit ratio; totals; the last information
-- message. Read from the simulation at every frame.
--
-- Every number is kept: the two tables are laid out at the largest type size (11
-- down to 7 points) at which they fit, one above the other or side by side, the
-- columns as wide as their widest value. Only when nothing fits at the smallest
-- size are rows left out, and the panel's last line says how many.
local common = require "retrace.displays.shmap.common"

local M = { name = "stats", title = "Statistics" }

function M.view_opts() return {} end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx }, D) end

function D:update() end

M.sizes = { 11, 10, 9, 8, 7 }
local PAD = 8      -- between columns
local GAP = 14     -- between the two tables side by side
local SWATCH = 12  -- the PE colour swatch before the PE number
local MIN_SUB = 7  -- characters of a subroutine name kept at least (then "...")

local function pct(r) return string.format("%.1f%%", 100 * r) end

-- The rows of the two tables as text: {header, rows..., total}.
local function tables(s)
  local pe = { { "PE", "loads", "stores", "flops", "subroutine" } }
  for i, p in ipairs(s.pes) do
    pe[#pe + 1] = { tostring(i - 1), common.short(p.loads), common.short(p.stores), common.short(p.flops),
                    p.subroutine or "" }
  end
  local t = s.totals
  pe[#pe + 1] = { "all", common.short(t.loads), common.short(t.stores), common.short(t.flops), "" }
  local ca
  if #s.caches > 0 then
    ca = { { "cache", "hits", "misses", "hit ratio" } }
    for i, c in ipairs(s.caches) do
      ca[#ca + 1] = { tostring(i - 1), common.short(c.hits), common.short(c.misses), pct(c.hit_ratio) }
    end
    ca[#ca + 1] = { "all", common.short(t.hits), common.short(t.misses), pct(t.hit_ratio) }
  end
  return pe, ca
end

-- Column widths of a table at a size (bold headers); the last column of the PE
-- table (subroutine) counts at most MIN_SUB characters: longer names are cut.
local function widths(cv, rows, size, flexible)
  local w = {}
  for r, row in ipairs(rows) do
    for c, v in ipairs(row) do
      if flexible and c == #row and r > 1 and #v > MIN_SUB then v = v:sub(1, MIN_SUB) .. "..." end
      w[c] = math.max(w[c] or 0, common.width(cv, v, size, r == 1 or r == #rows))
    end
  end
  w[1] = w[1] + SWATCH + 2
  local total = 0
  for _, v in ipairs(w) do total = total + v end
  return w, total + PAD * (#w - 1)
end

--- The arrangement of the tables in a w x h area: {size, lh, side (true: side by
-- side), pe_w, ca_w, pe_rows, ca_rows} with the rows of each table that are shown
-- (the rest are counted in a note line), for text widths measured on cv.
function M.arrange(cv, pe, ca, w, h, has_msg)
  local extra = has_msg and 1 or 0
  for _, size in ipairs(M.sizes) do
    local lh = size + 3
    local pw, pwt = widths(cv, pe, size, true)
    local cw, cwt = {}, 0
    if ca then cw, cwt = widths(cv, ca, size) end
    local stacked_h = (#pe + (ca and #ca or 0) + extra) * lh + (ca and 6 or 0)
    if stacked_h <= h and math.max(pwt, cwt) <= w then
      return { size = size, lh = lh, side = false, pe_w = pw, ca_w = cw, pe_rows = #pe, ca_rows = ca and #ca or 0 }
    end
    local side_h = (math.max(#pe, ca and #ca or 0) + extra) * lh
    if ca and side_h <= h and pwt + GAP + cwt <= w then
      return { size = size, lh = lh, side = true, pe_w = pw, ca_w = cw, pe_rows = #pe, ca_rows = #ca }
    end
  end
  -- nothing fits: the smallest size, side by side when the width allows, rows cut;
  -- the header and the total of each table stay, one line says what is left out
  local size = M.sizes[#M.sizes]
  local lh = size + 3
  local pw, pwt = widths(cv, pe, size, true)
  local cw, cwt = {}, 0
  if ca then cw, cwt = widths(cv, ca, size) end
  local lines = math.max(0, math.floor(h / lh) - extra - 1)
  local a = { size = size, lh = lh, pe_w = pw, ca_w = cw, cut = true }
  if ca and pwt + GAP + cwt <= w then
    a.side = true
    a.pe_rows, a.ca_rows = math.min(#pe, lines), math.min(#ca, lines)
  else
    a.side = false
    local both = #pe + (ca and #ca or 0)
    a.pe_rows = math.min(#pe, math.max(2, math.floor(lines * #pe / both)))
    a.ca_rows = ca and math.min(#ca, math.max(0, lines - a.pe_rows)) or 0
  end
  return a
end

-- Cut s (with "...") to at most w pixels at size.
local function fit_text(cv, s, w, size)
  if common.width(cv, s, size) <= w then return s end
  while #s > 1 and common.width(cv, s .. "...", size) > w do s = s:sub(1, -2) end
  return s .. "..."
end

-- Draw the first n rows of a table (the header, then data rows, the total last
-- even when rows are left out) at x, y; returns the rows drawn as
-- {y, values, index} and how many data rows were left out.
local function draw_table(cv, rows, cw, n, x, y, a, swatch_of, flex_w)
  local drawn, data_rows = {}, #rows - 2
  local keep = math.max(0, n - 2) -- data rows shown
  local order = { 1 }
  for r = 2, 1 + math.min(keep, data_rows) do order[#order + 1] = r end
  if n >= 2 then order[#order + 1] = #rows end
  for _, r in ipairs(order) do
    local bold = r == 1 or r == #rows
    local cx = x
    for c, v in ipairs(rows[r]) do
      local w = cw[c]
      if c == 1 then
        local sw = swatch_of and r > 1 and r < #rows and swatch_of(r - 1)
        if sw then
          cv:rect(cx, y + 1, SWATCH - 2, a.size - 1, sw)
          cv:rect(cx + 0.5, y + 1.5, SWATCH - 3, a.size - 2, { stroke = "#808080", width = 1 })
        end
        cv:text(cx + w, y, v, { align = "right", valign = "top", size = a.size, bold = bold, color = common.ink })
      elseif c == #rows[r] and flex_w then
        cv:text(cx, y, fit_text(cv, v, flex_w, a.size), { valign = "top", size = a.size, bold = bold, color = common.ink })
      else
        cv:text(cx + w, y, v, { align = "right", valign = "top", size = a.size, bold = bold, color = common.ink })
      end
      cx = cx + w + PAD
    end
    drawn[#drawn + 1] = { y = y, x = x, values = rows[r], index = r }
    y = y + a.lh
  end
  return drawn, data_rows - math.min(keep, data_rows), y
end

function D:draw(cv, rect)
  local ctx = self.ctx
  local s = ctx.sim:stats()
  local inner = common.inner(rect)
  common.title(cv, rect, M.title, "step " .. common.count(s.steps))
  local pe, ca = tables(s)
  local msg, mpe = ctx.sim:last_info()
  local a = M.arrange(cv, pe, ca, inner.w, inner.h, msg ~= nil or nil)
  local out = { pes = {}, caches = {}, rows = {}, size = a.size, side = a.side }
  local function swatch(p) return ctx.palette:hex(common.pe_index(p - 1, 0, ctx.shades)) end
  -- the subroutine column takes what is left of the PE table's width
  local fixed = 0
  for c = 1, 4 do fixed = fixed + a.pe_w[c] + PAD end
  local avail = a.side and (inner.w - GAP - (function() local t = 0 for _, v in ipairs(a.ca_w) do t = t + v + PAD end return t end)())
    or inner.w
  -- as wide as the longest name when there is room, never narrower than the arrangement's
  local natural = 0
  for r = 2, #pe - 1 do natural = math.max(natural, common.width(cv, pe[r][5], a.size)) end
  local flex_w = math.max(a.pe_w[5], math.min(natural, avail - fixed))
  local pe_drawn, pe_left, y1 = draw_table(cv, pe, a.pe_w, a.pe_rows, inner.x, inner.y, a, swatch, flex_w)
  local ca_drawn, ca_left, y2 = {}, 0, y1
  if ca then
    local cx = a.side and (inner.x + fixed + flex_w + GAP - PAD) or inner.x
    local cy = a.side and inner.y or (y1 + 6)
    ca_drawn, ca_left, y2 = draw_table(cv, ca, a.ca_w, a.ca_rows, cx, cy, a)
  end
  local y = math.max(y1, y2)
  for _, d in ipairs(pe_drawn) do
    local r = d.index
    out.rows[#out.rows + 1] = { y = d.y, x = d.x, values = d.values }
    if r > 1 and r < #pe then
      local p = s.pes[r - 1]
      out.pes[r - 1] = { pe = r - 2, color = swatch(r - 1), loads = p.loads, stores = p.stores, flops = p.flops,
                         subroutine = p.subroutine, x = d.x, y = d.y, h = a.lh }
    end
  end
  for _, d in ipairs(ca_drawn) do
    local r = d.index
    out.rows[#out.rows + 1] = { y = d.y, x = d.x, values = d.values }
    if r > 1 and r < #ca then
      local c = s.caches[r - 1]
      out.caches[r - 1] = { cache = r - 2, hits = c.hits, misses = c.misses, hit_ratio = c.hit_ratio,
                            text = d.values[4], x = d.x, y = d.y, h = a.lh }
    end
  end
  local notes = {}
  if msg then notes[#notes + 1] = string.format("PE %d: %s", mpe, msg) end
  if pe_left > 0 or ca_left > 0 then
    local parts = {}
    if pe_left > 0 then parts[#parts + 1] = string.format("%d PE rows", pe_left) end
    if ca_left > 0 then parts[#parts + 1] = string.format("%d cache rows", ca_left) end
    local cut = table.concat(parts, " and ") .. " do not fit (--json has them)"
    notes[#notes + 1] = cut
    out.cut = cut
  end
  for _, text in ipairs(notes) do
    if y + a.lh > inner.y + inner.h then y = inner.y + inner.h - a.lh end
    cv:text(inner.x, y, fit_text(cv, text, inner.w, a.size), { valign = "top", size = a.size, color = common.ink })
    out.rows[#out.rows + 1] = { y = y, x = inner.x, values = { text } }
    y = y + a.lh
  end
  out.message = msg
  out.totals = s.totals
  out.steps = s.steps
  self.out = out
  return self
end

function D:data() return self.out end

return M
