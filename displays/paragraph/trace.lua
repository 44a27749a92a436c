--- ParaGraph trace display: the records around the current one (the one the
-- replay read last), one annotated line each, as many as fit; the current one
-- is marked, the ones before it above, the ones still to come below (greyed).
-- The records come from the view in C (taken in batches each frame, worded by
-- the trace source: PICL records as PICL names them, events of other formats);
-- on PICL, those to come from a reader of the display's own that keeps ahead
-- (new format only: the old format reaches the replay converted, record numbers differ).
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"
local pgapp = require "retrace.paragraph_app"
local replay = require "retrace.replay"

local M, D = common.display(true)

-- Records after index `cur` (up to n of them), read ahead from the trace file.
local function ahead(self, cur, n)
  if self.no_ahead then return {} end
  local ctx = self.ctx
  if not self.reader then
    local ok = ctx.trace and replay.is_picl(ctx.trace, ctx.format)
    local t = ok and require("retrace.picl").open(ctx.trace, ctx.format and { format = ctx.format:gsub("^picl%-", "") })
    if not t then self.no_ahead = true return {} end
    self.reader, self.buf, self.read = t, {}, 0
    self.iter, self.state = t:records()
  end
  local buf = self.buf
  while #buf > 0 and buf[1].index <= cur do table.remove(buf, 1) end
  while self.read < cur + n do
    local r = self.iter(self.state)
    if not r then break end
    if r.format ~= "new" then self.no_ahead = true return {} end
    self.read = self.read + 1
    r.index = self.read
    if r.index > cur then buf[#buf + 1] = r end
  end
  local out = {}
  for i = 1, math.min(n, #buf) do out[i] = buf[i] end
  return out
end

function D:draw(cv, rect)
  local x = self.ctx.tasks
  local recs = x and x.records or {}
  local size = 10
  local lh = size + 4
  local fit = math.max(1, math.floor((rect.h - 6) / lh))
  local cur = recs[#recs]
  local later = cur and ahead(self, cur.index, fit // 2) or {}
  local before = math.max(1, fit - #later)
  local first = math.max(1, #recs - before + 1)
  local d = { lines = {}, current = cur and cur.index or nil }
  if not cur then
    self.d = common.placeholder(cv, rect, "no records read yet")
    return
  end
  cv:save()
  cv:clip_rect(rect.x, rect.y, rect.w, rect.h)
  local y = rect.y + 3
  local function line(r, kind)
    local txt = string.format("%6d  %s", r.index, pgapp.describe(r))
    if kind == "current" then
      cv:rect(rect.x + 2, y - 1, rect.w - 4, lh, colors.ink("#ffe680"))
      d.highlight = { x = rect.x + 2, y = y - 1, w = rect.w - 4, h = lh }
    end
    cv:text(rect.x + 6, y + 1, (kind == "current" and "> " or "  ") .. txt, { valign = "top", size = size,
      color = kind == "later" and "#808080" or "black", font = "DejaVu Sans Mono", bold = kind == "current" })
    d.lines[#d.lines + 1] = { index = r.index, time = r.time, proc = r.proc, text = txt, y = y,
                              current = kind == "current", later = kind == "later" }
    y = y + lh
  end
  for i = first, #recs do line(recs[i], i == #recs and "current" or "before") end
  for _, r in ipairs(later) do line(r, "later") end
  cv:restore()
  self.d = d
end

return M
