--- SHMAP's legend: the PEs' numbers and colours, and which PEs share which cache.
-- Every PE and every cache is listed: items flow in columns, and the type shrinks
-- (11 down to 7 points) until they all fit; past that the last line says how many
-- are left out.
local common = require "retrace.displays.shmap.common"

local M = { name = "legend", title = "PEs" }

function M.view_opts() return {} end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx }, D) end

function D:update() end

--- The PEs of cache c among P PEs and C caches: the first and the last (PE p uses
-- cache floor(p*C/P), so they are consecutive), or nil when none.
function M.pes_of(c, ncaches, pes)
  local lo, hi
  for p = 0, pes - 1 do
    if (p * ncaches) // pes == c then
      lo = lo or p
      hi = p
    end
  end
  return lo, hi
end

local function cache_text(c, ncaches, pes)
  local lo, hi = M.pes_of(c, ncaches, pes)
  if not lo then return string.format("cache %d: no PE", c) end
  return string.format("cache %d: PE %s", c, lo == hi and tostring(lo) or (lo .. "-" .. hi))
end

-- Rows needed for n items of width iw in w pixels, and the items per row.
local function rows_of(n, iw, w)
  local per = math.max(1, math.floor(w / iw))
  return math.ceil(n / per), per
end

--- The layout of the legend in a w x h area: size, line height, PE item width,
-- cache item width, rows of each, per row (a pure function of the measured
-- widths: wpe(size) and wcache(size) give the widest item's text at size).
function M.arrange(pes, ncaches, w, h, wpe, wcache)
  for _, size in ipairs({ 11, 10, 9, 8, 7 }) do
    local lh = size + 5
    local pe_w = size + 8 + wpe(size) + 10
    local ca_w = ncaches > 0 and (wcache(size) + 14) or 0
    local pr, pper = rows_of(pes, pe_w, w)
    local cr, cper = 0, 1
    if ncaches > 0 then cr, cper = rows_of(ncaches, ca_w, w) end
    local need = (pr + math.max(cr, 1)) * lh + 4
    if need <= h or size == 7 then
      return { size = size, lh = lh, pe_w = pe_w, ca_w = ca_w, pe_rows = pr, pe_per = pper, ca_rows = cr,
               ca_per = cper, fits = need <= h }
    end
  end
end

function D:draw(cv, rect)
  local ctx = self.ctx
  local inner = common.inner(rect)
  common.title(cv, rect, M.title, ctx.gray and "gray levels" or nil)
  local last = ctx.pes - 1
  local a = M.arrange(ctx.pes, ctx.ncaches, inner.w, inner.h,
    function(size) return common.width(cv, "PE " .. last, size) end,
    function(size)
      local m = 0
      for c = 0, ctx.ncaches - 1 do m = math.max(m, common.width(cv, cache_text(c, ctx.ncaches, ctx.pes), size)) end
      return m
    end)
  local size, lh = a.size, a.lh
  local out = { items = {}, caches = {}, size = size }
  local bottom = inner.y + inner.h
  local left = { pes = 0, caches = 0 }
  for p = 0, last do
    local x = inner.x + (p % a.pe_per) * a.pe_w
    local y = inner.y + (p // a.pe_per) * lh
    if y + lh <= bottom - (a.fits and 0 or lh) then
      local hex = ctx.palette:hex(common.pe_index(p, 0, ctx.shades))
      cv:rect(x, y + 1, size + 3, size, hex)
      cv:rect(x + 0.5, y + 1.5, size + 2, size - 1, { stroke = "#808080", width = 1 })
      cv:text(x + size + 7, y + 1, "PE " .. p, { valign = "top", size = size, color = common.ink })
      out.items[p + 1] = { pe = p, color = hex, x = x, y = y + 1, w = size + 3, h = size }
    else
      left.pes = left.pes + 1
    end
  end
  local y0 = inner.y + a.pe_rows * lh + 4
  if ctx.ncaches > 0 then
    for c = 0, ctx.ncaches - 1 do
      local x = inner.x + (c % a.ca_per) * a.ca_w
      local y = y0 + (c // a.ca_per) * lh
      local lo, hi = M.pes_of(c, ctx.ncaches, ctx.pes)
      local list = {}
      for p = lo or 0, hi or -1 do list[#list + 1] = p end
      if y + lh <= bottom - (a.fits and 0 or lh) then
        cv:text(x, y, cache_text(c, ctx.ncaches, ctx.pes), { valign = "top", size = size, color = common.ink })
        out.caches[c + 1] = { cache = c, pes = list, x = x, y = y, h = lh }
      else
        left.caches = left.caches + 1
      end
    end
  else
    cv:text(inner.x, y0, "no cache", { valign = "top", size = size, color = common.ink })
  end
  if left.pes + left.caches > 0 then
    out.cut = string.format("%d PEs and %d caches do not fit", left.pes, left.caches)
    cv:text(inner.x, bottom - lh, out.cut, { valign = "top", size = size, color = common.ink })
  end
  self.out = out
  return self
end

--- A one-line key of PE colours in rect (drawn by the frame under the memory
-- panel when there is no legend panel): swatches and numbers at the largest size
-- (11 down to 7) that fits every PE, else as many as fit and "+N". Returns
-- {items = {{pe, color, x, y, w, h}...}, left = N}.
function M.key(cv, rect, ctx)
  local out = { items = {}, left = 0 }
  local size, step
  for _, s in ipairs({ 11, 10, 9, 8, 7 }) do
    size = s
    step = s + 8 + common.width(cv, tostring(ctx.pes - 1), s) + 6
    if ctx.pes * step + common.width(cv, "PE", s) + 6 <= rect.w then break end
  end
  local x = rect.x
  x = x + cv:text(x, rect.y + 1, "PE", { valign = "top", size = size, bold = true, color = common.ink }) + 6
  for p = 0, ctx.pes - 1 do
    if x + step > rect.x + rect.w - (p < ctx.pes - 1 and 30 or 0) then
      out.left = ctx.pes - p
      cv:text(x, rect.y + 1, "+" .. out.left, { valign = "top", size = size, color = common.ink })
      break
    end
    local hex = ctx.palette:hex(common.pe_index(p, 0, ctx.shades))
    cv:rect(x, rect.y + 2, size + 3, size, hex)
    cv:rect(x + 0.5, rect.y + 2.5, size + 2, size - 1, { stroke = "#808080", width = 1 })
    cv:text(x + size + 6, rect.y + 1, tostring(p), { valign = "top", size = size, color = common.ink })
    out.items[p + 1] = { pe = p, color = hex, x = x, y = rect.y + 2, w = size + 3, h = size }
    x = x + step
  end
  return out
end

function D:data() return self.out end

return M
