--- An application display for `retrace paragraph --app`: a parallel sort.
-- The program logs, after every exchange, the keys each processor holds as a
-- tracemark (new PICL format: record type -2, event 1, the keys as data; old
-- format: code 22). The display draws a row per processor with its keys as
-- boxes, shaded by value, the ones that arrived with the last exchange outlined.
--   retrace paragraph examples/paragraph/sort.trf -o OUT --app examples/paragraph/sort.lua
local colors = require "retrace.colors"

local M = { id = "sort", title = "Parallel sort: keys per processor" }
local D = {}
D.__index = D

function M.new(ctx)
  return setmetatable({ P = ctx and ctx.P or 0, keys = {}, changed = {}, marks = 0, lo = math.huge,
                        hi = -math.huge, time = nil }, D)
end

-- Every record the replay reads: keep the tracemarks.
function D:record(rec)
  if not (rec.kind == "mark" or rec.code == 22) or not rec.data then return end
  local p, old, new = rec.proc, self.keys[rec.proc] or {}, {}
  local had = {}
  for _, k in ipairs(old) do had[k] = true end
  self.changed[p] = {}
  for i, k in ipairs(rec.data) do
    new[i] = k
    self.changed[p][i] = not had[k] and #old > 0
    if k < self.lo then self.lo = k end
    if k > self.hi then self.hi = k end
  end
  self.keys[p] = new
  if p + 1 > self.P then self.P = p + 1 end
  self.marks, self.time = self.marks + 1, rec.time
end

function D:draw(cv, rect)
  local d = { keys = {}, marks = self.marks, time = self.time, boxes = {} }
  local n = 1
  for p = 0, self.P - 1 do n = math.max(n, #(self.keys[p] or {})) end
  local rowh = (rect.h - 20) / math.max(self.P, 1)
  local bw = math.min(60, (rect.w - 40) / n)
  local pal = colors.ramp(64)
  for p = 0, self.P - 1 do
    local y = rect.y + 4 + p * rowh
    cv:text(rect.x + 4, y + rowh / 2, "P" .. p, { valign = "middle", size = 10, color = "black" })
    d.keys[p + 1] = self.keys[p] or {}
    for i, k in ipairs(self.keys[p] or {}) do
      local f = self.hi > self.lo and (k - self.lo) / (self.hi - self.lo) or 0.5
      local c = pal:hex(math.floor(f * 63))
      local x = rect.x + 30 + (i - 1) * bw
      local h = math.min(rowh - 4, 24)
      cv:rect(x, y + (rowh - h) / 2, bw - 3, h, { fill = c, stroke = self.changed[p][i] and "black" or c,
                                                 width = 2 })
      cv:text(x + (bw - 3) / 2, y + rowh / 2, tostring(k), { align = "center", valign = "middle", size = 9,
        color = colors.contrast(c) })
      d.boxes[#d.boxes + 1] = { proc = p, key = k, x = x, y = y + (rowh - h) / 2, w = bw - 3, h = h, color = c }
    end
  end
  cv:text(rect.x + rect.w / 2, rect.y + rect.h - 4, string.format("%d marks", self.marks),
    { align = "center", valign = "bottom", size = 9, color = "dimgray" })
  self.d = d
end

function D:data() return self.d or { keys = {}, marks = self.marks } end

return M
