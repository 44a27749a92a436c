--- displays/memspy/flow: the causes of replacements as a flow from the data
-- bins whose references evicted lines (left) to the data bins whose lines
-- were evicted and missed again (right). Each band is as thick as the number of
-- such replacement misses; nodes are sorted by their totals (descending), at
-- most `top` a side (8), the rest folded into "(other)".
--
--   local d = flow.new(ctx, {run = run [, code = name] [, top = n] [, title =]})
--   d:draw(cv, rect); d:data() -> {left = {{name, total, x, y, w, h}}, right = {...},
--     flows = {{from, to, count, x0, y0, y1, x1, z0, z1, color}}, total = n}
--   (a band leaves the left node between y0 and y1 and enters the right one
--   between z0 and z1)
local colors = require "retrace.colors"
local style = require "retrace.displays.memspy.style"

local M = {}
local D = {}
D.__index = D
D.__tostring = function() return "retrace.memspy.Flow" end

M.palette = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
              "#17becf", "#7f7f7f" }

-- gray mode: levels far apart, alternating dark and light so neighbours differ
M.gray_palette = { "#2a2a2a", "#9a9a9a", "#5c5c5c", "#c8c8c8", "#444444", "#b0b0b0", "#767676", "#dcdcdc" }

function M.new(_, o) return setmetatable({ o = o }, D) end

-- {[evictor][victim] = count} folded to the top n of each side
local function flows(run, code, n)
  local raw, lt, rt = {}, {}, {}
  for _, b in ipairs(run.bins) do
    if not code or b.code == code then
      for e, c in pairs(b.causes) do
        raw[#raw + 1] = { from = e, to = b.data, count = c }
        lt[e] = (lt[e] or 0) + c
        rt[b.data] = (rt[b.data] or 0) + c
      end
    end
  end
  local function keep(t)
    local names = {}
    for k in pairs(t) do names[#names + 1] = k end
    table.sort(names, function(a, b) if t[a] ~= t[b] then return t[a] > t[b] end return a < b end)
    local set = {}
    for i, k in ipairs(names) do if i < n or #names == n then set[k] = true end end
    return set
  end
  local lk, rk = keep(lt), keep(rt)
  local merged, order = {}, {}
  for _, f in ipairs(raw) do
    local a, b = lk[f.from] and f.from or "(other)", rk[f.to] and f.to or "(other)"
    local key = a .. "\0" .. b
    if not merged[key] then
      merged[key] = { from = a, to = b, count = 0 }
      order[#order + 1] = merged[key]
    end
    merged[key].count = merged[key].count + f.count
  end
  return order
end

local function nodes(list, side)
  local t, names = {}, {}
  for _, f in ipairs(list) do
    local k = f[side]
    if not t[k] then t[k] = 0; names[#names + 1] = k end
    t[k] = t[k] + f.count
  end
  table.sort(names, function(a, b)
    if (a == "(other)") ~= (b == "(other)") then return b == "(other)" end
    if t[a] ~= t[b] then return t[a] > t[b] end
    return a < b
  end)
  local out = {}
  for i, k in ipairs(names) do out[i] = { name = k, total = t[k] } end
  return out
end

function D:draw(cv, rect)
  local o = self.o
  local list = flows(o.run, o.code, o.top or 8)
  local left, right = nodes(list, "from"), nodes(list, "to")
  local total = 0
  for _, f in ipairs(list) do total = total + f.count end
  local out = { left = left, right = right, flows = {}, total = total }
  cv:save()
  cv:set_rgba(0, 0, 0, 1)
  cv:font(nil, 14, true)
  cv:text(rect.x + rect.w / 2, rect.y + 8, o.title or ("Causes of replacements" .. (o.code and (" in " .. o.code) or "")),
    { align = "center", valign = "top" })
  cv:font(nil, 11)
  cv:text(rect.x + rect.w / 2, rect.y + 28,
    string.format("%d replacement misses: whose references evicted (left) whose lines (right)", total),
    { align = "center", valign = "top", color = "#404040" })
  local lw = 0
  for _, side in ipairs({ left, right }) do
    for _, n in ipairs(side) do lw = math.max(lw, cv:text_size(n.name .. "  100.0%")) end
  end
  lw = math.min(lw + 10, rect.w * 0.28)
  local top, bottom = rect.y + 76, rect.y + rect.h - 16
  local nw = 16
  local xl, xr = rect.x + 10 + lw, rect.x + rect.w - 10 - lw - nw
  cv:text(xl + nw / 2, top - 10, "evicting", { align = "center", valign = "bottom", bold = true })
  cv:text(xr + nw / 2, top - 10, "evicted", { align = "center", valign = "bottom", bold = true })
  local colour = {}
  local pal = colors.mode == "gray" and M.gray_palette or M.palette
  for i, n in ipairs(left) do colour[n.name] = pal[(i - 1) % #pal + 1] end
  local function place(side, x, align)
    local gap = 8
    local avail = bottom - top - gap * math.max(#side - 1, 0)
    local y = top
    for _, n in ipairs(side) do
      n.x, n.y, n.w = x, y, nw
      n.h = total > 0 and math.max(1, avail * n.total / total) or 0
      n.next = y
      y = y + n.h + gap
      local lx = align == "right" and x - 6 or x + nw + 6
      local label = style.fit(cv, n.name, lw - 60) .. string.format("  %.1f%%", 100 * n.total / total)
      cv:text(lx, n.y + n.h / 2, label, { align = align, valign = "middle" })
    end
  end
  if total > 0 then
    place(left, xl, "right")
    place(right, xr, "left")
    local byname = { from = {}, to = {} }
    for _, n in ipairs(left) do byname.from[n.name] = n end
    for _, n in ipairs(right) do byname.to[n.name] = n end
    -- bands in the order of their nodes, so they leave and enter without crossing inside a node
    table.sort(list, function(a, b)
      local la, lb = byname.from[a.from], byname.from[b.from]
      if la ~= lb then return la.y < lb.y end
      return byname.to[a.to].y < byname.to[b.to].y
    end)
    for _, f in ipairs(list) do
      local a, b = byname.from[f.from], byname.to[f.to]
      local h1 = a.h * f.count / a.total
      local h2 = b.h * f.count / b.total
      local y0, z0 = a.next, b.next
      a.next, b.next = a.next + h1, b.next + h2
      local x0, x1 = xl + nw, xr
      local mx = (x0 + x1) / 2
      local r, g, bl = colors.parse(colour[f.from])
      cv:new_path()
      cv:move_to(x0, y0)
      cv:curve_to(mx, y0, mx, z0, x1, z0)
      cv:line_to(x1, z0 + h2)
      cv:curve_to(mx, z0 + h2, mx, y0 + h1, x0, y0 + h1)
      cv:close_path()
      cv:set_rgba(r, g, bl, 0.55)
      cv:fill()
      out.flows[#out.flows + 1] = { from = f.from, to = f.to, count = f.count, x0 = x0, y0 = y0, y1 = y0 + h1,
                                    x1 = x1, z0 = z0, z1 = z0 + h2, color = colour[f.from] }
    end
    for _, n in ipairs(left) do cv:rect(n.x, n.y, n.w, n.h, { fill = colour[n.name], stroke = "#202020", width = 0.5 }) end
    for _, n in ipairs(right) do cv:rect(n.x, n.y, n.w, n.h, { fill = "#808080", stroke = "#202020", width = 0.5 }) end
  else
    cv:text(rect.x + rect.w / 2, rect.y + rect.h / 2, "no replacement misses", { align = "center", valign = "middle" })
  end
  for _, side in ipairs({ left, right }) do
    for _, n in ipairs(side) do n.next = nil end
  end
  cv:restore()
  self.out = out
  return self
end

function D:data() return self.out end

function M.draw(cv, rect, o) return M.new(nil, o):draw(cv, rect):data() end

return M
