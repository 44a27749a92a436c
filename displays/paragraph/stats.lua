--- ParaGraph statistical summary (end of run): a table per processor and in
-- total: percent busy / overhead / idle, messages and bytes sent and
-- received, the largest queue, time in tasks and time on the critical path;
-- under it each task's mean processors and the critical path's length. The
-- command also writes it as stats.json and stats.csv with --data.
local common = require "retrace.displays.paragraph.common"
local pgapp = require "retrace.paragraph_app"

local M, D = common.display(false)

function D:finish(state)
  self.stats = pgapp.stats(state, state.rp, self.ctx.tasks, self.ctx.path)
end

local HEAD = { "P", "busy%", "ovh%", "idle%", "sent", "sent B", "recv", "recv B", "max q", "task", "path" }
-- the order in which columns go when the panel is narrow
local DROP = { 9, 6, 8, 10, 11, 7, 5 }

-- A count or byte total in at most 5 characters: 950, 12345 -> 12.3k, 6.5e7 -> 65M.
local function short(v)
  if v < 1e4 then return string.format("%g", v) end
  for _, u in ipairs({ { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } }) do
    if v >= u[1] then return string.format("%.3g%s", v / u[1], u[2]) end
  end
end
M.short = short

--- The time unit of the table for a span: {name, seconds}.
function M.time_unit(span)
  if span >= 1 then return "s", 1 elseif span >= 1e-3 then return "ms", 1e-3 end
  return "us", 1e-6
end

function D:draw(cv, rect)
  local st = self.stats
  if not st then
    self.d = common.placeholder(cv, rect, "shown at the end of the run")
    return
  end
  local rows = {}
  local uname, us = M.time_unit(st.span)
  local head = { table.unpack(HEAD) }
  head[10], head[11] = "task " .. uname, "path " .. uname
  local function fmt(r, id)
    return { id, string.format("%.1f", r.busy), string.format("%.1f", r.overhead), string.format("%.1f", r.idle),
             short(r.sent), short(r.sent_bytes), short(r.received), short(r.received_bytes), short(r.max_queue), string.format("%.4g", r.task_time / us),
             string.format("%.4g", r.path_time / us) }
  end
  for _, r in ipairs(st.processors) do rows[#rows + 1] = fmt(r, tostring(r.id)) end
  rows[#rows + 1] = fmt(st.total, "total")
  local extra = {}
  local tl = {}
  for _, k in ipairs(st.tasks) do tl[#tl + 1] = string.format("%s: %.3g", k.id, k.mean_processors) end
  if #tl > 0 then extra[#extra + 1] = "mean processors per task  " .. table.concat(tl, ", ") end
  if st.critical_path then
    extra[#extra + 1] = string.format("critical path %.6g %s: %d segments, %d messages",
      st.critical_path.length / us, uname, st.critical_path.segments, st.critical_path.messages)
  end
  extra[#extra + 1] = string.format("messages %d, tachyons %d", st.total.messages or 0, st.total.tachyons or 0)
  -- each column as wide as its widest text (header bold, cells), measured at the
  -- font size tried; columns that do not fit even at 7 points go, least needed first
  local function widths(size)
    cv:save()
    cv:font("DejaVu Sans", size, true)
    local w = {}
    for j = 1, #HEAD do
      w[j] = cv:text_size(head[j])
      for _, r in ipairs(rows) do w[j] = math.max(w[j], (cv:text_size(r[j]))) end
      w[j] = w[j] + 6
    end
    cv:restore()
    return w
  end
  local function total(w, keep)
    local t = 0
    for j = 1, #HEAD do if keep[j] then t = t + w[j] end end
    return t
  end
  local avail = rect.w - 8
  local keep = { true, true, true, true, true, true, true, true, true, true, true }
  local w7 = widths(7)
  for _, j in ipairs(DROP) do
    if total(w7, keep) <= avail then break end
    keep[j] = false
  end
  local size, w = 7, w7
  for s = 9, 8, -1 do
    local ws = widths(s)
    if total(ws, keep) <= avail then size, w = s, ws break end
  end
  local cols = {}
  for j = 1, #HEAD do if keep[j] then cols[#cols + 1] = j end end
  -- the spare width shared out evenly; x[c]: the right edge of column c
  local spare = math.max(0, avail - total(w, keep)) / #cols
  local x, edge = {}, rect.x + 4
  for c, j in ipairs(cols) do
    edge = edge + w[j] + spare
    x[c] = edge - 3
  end
  local lh = size + 4
  local fit = math.floor((rect.h - 4 - (#extra + 1) * lh) / lh)
  local shown = math.min(#rows, math.max(1, fit))
  local d = { stats = st, cells = {}, rows = shown, columns = {} }
  d.column_right, d.column_text = {}, {} -- right edges in pixels, widest text of each column
  for c, j in ipairs(cols) do
    d.columns[c] = HEAD[j]
    d.column_right[c] = x[c]
    d.column_text[c] = w[j] - 6
  end
  cv:save()
  cv:clip_rect(rect.x, rect.y, rect.w, rect.h)
  local y = rect.y + 2
  for c, j in ipairs(cols) do
    cv:text(x[c], y, head[j], { align = "right", valign = "top", size = size, bold = true,
      color = "black" })
  end
  y = y + lh
  for i = 1, shown do
    -- the total row always shows: the last line
    local r = (i == shown) and rows[#rows] or rows[i]
    if i % 2 == 0 then cv:rect(rect.x + 2, y - 1, rect.w - 4, lh, "#eeeeee") end
    for c, j in ipairs(cols) do
      cv:text(x[c], y, r[j], { align = "right", valign = "top", size = size, color = "black",
        bold = r[1] == "total" })
    end
    d.cells[#d.cells + 1] = { row = r[1], x = rect.x + 2, y = y - 1, w = rect.w - 4, h = lh,
                              striped = i % 2 == 0 }
    y = y + lh
  end
  for _, e in ipairs(extra) do
    cv:text(rect.x + 6, y + 2, e, { valign = "top", size = size, color = "black" })
    y = y + lh
  end
  cv:restore()
  self.d = d
end

return M
