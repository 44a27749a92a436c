--- ParaGraph trace display: the records around the current one (the one the
-- replay read last), one annotated line each, as many as fit; the current one
-- is marked. PICL traces (records come from the replay's record callback).
local common = require "retrace.displays.paragraph.common"
local pgapp = require "retrace.paragraph_app"

local M, D = common.display(true)

function D:draw(cv, rect)
  local x = self.ctx.tasks
  local recs = x and x.records or {}
  local size = 10
  local lh = size + 4
  local fit = math.max(1, math.floor((rect.h - 6) / lh))
  local first = math.max(1, #recs - fit + 1)
  local d = { lines = {}, current = nil }
  cv:save()
  cv:clip_rect(rect.x, rect.y, rect.w, rect.h)
  if #recs == 0 then
    d = common.placeholder(cv, rect, "no records read yet (PICL traces)")
  end
  for i = first, #recs do
    local r = recs[i]
    local y = rect.y + 3 + (i - first) * lh
    local cur = i == #recs
    local txt = string.format("%6d  %s", r.index or i, pgapp.describe(r))
    if cur then
      cv:rect(rect.x + 2, y - 1, rect.w - 4, lh, require("retrace.colors").ink("#ffe680"))
      d.highlight = { x = rect.x + 2, y = y - 1, w = rect.w - 4, h = lh }
    end
    cv:text(rect.x + 6, y + 1, (cur and "> " or "  ") .. txt, { valign = "top", size = size, color = "black",
      font = "DejaVu Sans Mono", bold = cur })
    d.lines[#d.lines + 1] = { index = r.index, time = r.time, proc = r.proc, text = txt, y = y, current = cur }
    if cur then d.current = r.index end
  end
  cv:restore()
  self.d = d
end

return M
