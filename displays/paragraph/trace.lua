--- ParaGraph trace display: the records up to the current one (the one the
-- replay read last), one annotated line each, as many as fit, the current one
-- marked at the bottom. The records come from the view in C (taken in batches
-- each frame, worded by the trace source: PICL records as PICL names them,
-- events of other formats). Records still to come are not shown: the display
-- reads nothing of its own, so a run reads the trace twice whatever it shows.
local colors = require "retrace.colors"
local common = require "retrace.displays.paragraph.common"
local pgapp = require "retrace.paragraph_app"

local M, D = common.display(true)

function D:draw(cv, rect)
  local x = self.ctx.tasks
  local recs = x and x.records or {}
  local size = 10
  local lh = size + 4
  local fit = math.max(1, math.floor((rect.h - 6) / lh))
  local cur = recs[#recs]
  local first = math.max(1, #recs - fit + 1)
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
      color = "black", font = "DejaVu Sans Mono", bold = kind == "current" })
    d.lines[#d.lines + 1] = { index = r.index, time = r.time, proc = r.proc, text = txt, y = y,
                              current = kind == "current" }
    y = y + lh
  end
  for i = first, #recs do line(recs[i], i == #recs and "current" or "before") end
  cv:restore()
  self.d = d
end

return M
