--- SHMAP's legend: the PEs' numbers and colours, and which PEs share which cache.
local common = require "retrace.displays.shmap.common"

local M = { name = "legend", title = "PEs" }

function M.view_opts() return {} end

local D = {}
D.__index = D

function M.new(ctx) return setmetatable({ ctx = ctx }, D) end

function D:update() end

function D:draw(cv, rect)
  local ctx = self.ctx
  local inner = common.inner(rect)
  local size = common.text_size
  local item_w, lh = 58, size + 5
  local per_row = math.max(1, math.floor(inner.w / item_w))
  common.title(cv, rect, M.title, ctx.gray and "gray levels" or nil)
  local out = { items = {}, caches = {} }
  for p = 0, ctx.pes - 1 do
    local x = inner.x + (p % per_row) * item_w
    local y = inner.y + (p // per_row) * lh
    local hex = ctx.palette:hex(common.pe_index(p, 0, ctx.shades))
    cv:rect(x, y + 1, 14, size, hex)
    cv:rect(x + 0.5, y + 1.5, 13, size - 1, { stroke = "#808080", width = 1 })
    cv:text(x + 18, y + 1, "PE " .. p, { valign = "top", size = size, color = common.ink })
    out.items[p + 1] = { pe = p, color = hex, x = x, y = y + 1, w = 14, h = size }
  end
  local y = inner.y + math.ceil(ctx.pes / per_row) * lh + 4
  if ctx.ncaches > 0 then
    for c = 0, ctx.ncaches - 1 do
      local list = {}
      for p = 0, ctx.pes - 1 do
        if (p * ctx.ncaches) // ctx.pes == c then list[#list + 1] = p end
      end
      local text = string.format("cache %d: PE %s", c, table.concat(list, ", "))
      if y + lh <= inner.y + inner.h then
        cv:text(inner.x, y, text, { valign = "top", size = size, color = common.ink })
      end
      out.caches[c + 1] = list
      y = y + lh
    end
  else
    cv:text(inner.x, y, "no cache", { valign = "top", size = size, color = common.ink })
  end
  self.out = out
  return self
end

function D:data() return self.out end

return M
