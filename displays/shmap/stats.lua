--- SHMAP's statistics panel: per PE its colour, loads, stores, flops and current
-- subroutine; per cache hits, misses and hit ratio; totals; the last information
-- message. Read from the simulation at every frame.
local common = require "retrace.displays.shmap.common"

local M = { name = "stats", title = "Statistics" }

function M.view_opts() return {} end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx }, D) end

function D:update() end

-- Columns: {header, x in pixels from the panel's left, alignment at x}; numbers are at
-- most 7 characters (retrace.displays.shmap.common.short). Columns past the panel's
-- right edge are left out.
local PE_COLS = { { "PE", 42, "right" }, { "loads", 112, "right" }, { "stores", 182, "right" },
                  { "flops", 252, "right" }, { "subroutine", 264, "left", 60 } }
local CACHE_COLS = { { "cache", 42, "right" }, { "hits", 112, "right" }, { "misses", 182, "right" },
                     { "hit ratio", 252, "right" } }

function D:draw(cv, rect)
  local ctx = self.ctx
  local s = ctx.sim:stats()
  local inner = common.inner(rect)
  local lh = common.text_size + 3
  local size = common.text_size
  common.title(cv, rect, M.title, "step " .. common.count(s.steps))
  local y = inner.y
  local rows_left = math.floor(inner.h / lh)
  local out = { pes = {}, caches = {}, rows = {} }
  local function line(cols, values, bold, swatch)
    if rows_left <= 0 then return false end
    for i, c in ipairs(cols) do
      if c[2] + (c[4] or 0) > inner.w then break end
      local x = inner.x + c[2]
      cv:text(x, y, values[i], { align = c[3], valign = "top", size = size, bold = bold, color = common.ink })
    end
    if swatch then
      cv:rect(inner.x, y + 1, 10, size - 1, swatch)
      cv:rect(inner.x + 0.5, y + 1.5, 9, size - 2, { stroke = "#808080", width = 1 })
    end
    out.rows[#out.rows + 1] = { y = y, values = values }
    y = y + lh
    rows_left = rows_left - 1
    return true
  end
  line(PE_COLS, { "PE", "loads", "stores", "flops", "subroutine" }, true)
  local shown = 0
  for i, p in ipairs(s.pes) do
    if rows_left <= (#s.caches > 0 and 4 + #s.caches or 3) and i < #s.pes then
      line(PE_COLS, { "", string.format("+%d PEs", #s.pes - shown), "", "", "" })
      break
    end
    local hex = ctx.palette:hex(common.pe_index(i - 1, 0, ctx.shades))
    line(PE_COLS, { tostring(i - 1), common.short(p.loads), common.short(p.stores), common.short(p.flops),
                    p.subroutine }, false, hex)
    out.pes[i] = { color = hex, loads = p.loads, stores = p.stores, flops = p.flops, subroutine = p.subroutine }
    shown = shown + 1
  end
  local t = s.totals
  line(PE_COLS, { "all", common.short(t.loads), common.short(t.stores), common.short(t.flops), "" }, true)
  if #s.caches > 0 then
    y = y + 4
    line(CACHE_COLS, { "cache", "hits", "misses", "hit ratio" }, true)
    for i, c in ipairs(s.caches) do
      line(CACHE_COLS, { tostring(i - 1), common.short(c.hits), common.short(c.misses),
                         string.format("%.1f%%", 100 * c.hit_ratio) })
      out.caches[i] = { hits = c.hits, misses = c.misses, hit_ratio = c.hit_ratio }
    end
    line(CACHE_COLS, { "all", common.short(t.hits), common.short(t.misses),
                       string.format("%.1f%%", 100 * t.hit_ratio) }, true)
  end
  local msg, pe = ctx.sim:last_info()
  if msg then
    y = y + 4
    local text = string.format("PE %d: %s", pe, msg)
    while #text > 4 and common.width(cv, text, size) > inner.w do text = text:sub(1, -5) .. "..." end
    line({ { "", 0, "left" } }, { text })
    out.message = msg
  end
  out.totals = t
  out.steps = s.steps
  self.out = out
  return self
end

function D:data() return self.out end

return M
