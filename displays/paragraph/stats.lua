--- ParaGraph statistical summary (end of run): a table per processor and in
-- total: percent busy / overhead / idle, messages and bytes sent and
-- received, the largest queue, time in tasks and time on the critical path;
-- under it each task's mean processors and the critical path's length. The
-- command also writes it as stats.json and stats.csv with --data.
--
-- When the processors outnumber the rows the panel holds, the table shows
-- groups of processors taken in the display order (--order; each row the mean
-- per processor of its group) and, over all processors, the least, the mean
-- and the most of each column with the processor holding each extreme named
-- ("at" rows), above the total; a note under the table says so.
local common = require "retrace.displays.paragraph.common"
local order = require "retrace.displays.paragraph.order"
local pgapp = require "retrace.paragraph_app"

local M, D = common.display(false)

function D:finish(state)
  self.stats = pgapp.stats(state, state.rp, self.ctx.tasks, self.ctx.path)
end

local HEAD = { "P", "busy%", "ovh%", "idle%", "sent", "sent B", "recv", "recv B", "max q", "task", "path" }
-- the order in which columns go when the panel is narrow
local DROP = { 9, 6, 8, 10, 11, 7, 5 }

-- A count or byte total in at most 5 characters: 950, 12345 -> 12.3k, 6.5e7 -> 65M;
-- a mean in 3 digits: 1.78378 -> 1.78.
local function short(v)
  if v < 1e4 then return string.format(v == math.floor(v) and "%g" or "%.3g", v) end
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

-- the rows of summary over all processors, and which go first when rows are scarce
local SUMMARY = { "min", "min at", "mean", "max", "max at" }
local KEEP = { "max", "max at", "mean", "min", "min at" }
-- the numeric fields of a row, in column order after "P"
local FIELDS = { "busy", "overhead", "idle", "sent", "sent_bytes", "received", "received_bytes", "max_queue",
                 "task_time", "path_time" }

--- Least, mean and most of every field over rows (in the order given), with the
-- first processor holding each extreme and how many share it:
-- {min = {[field] = v}, max = ..., mean = ..., min_at = {[field] = id}, max_at, min_ties, max_ties}.
function M.summary(rows)
  local s = { min = {}, max = {}, mean = {}, min_at = {}, max_at = {}, min_ties = {}, max_ties = {} }
  for _, f in ipairs(FIELDS) do
    local lo, hi, sum, lo_at, hi_at, nlo, nhi = math.huge, -math.huge, 0, nil, nil, 0, 0
    for _, r in ipairs(rows) do
      local v = r[f]
      sum = sum + v
      if v < lo then lo, lo_at, nlo = v, r.id, 1 elseif v == lo then nlo = nlo + 1 end
      if v > hi then hi, hi_at, nhi = v, r.id, 1 elseif v == hi then nhi = nhi + 1 end
    end
    s.min[f], s.max[f], s.mean[f] = lo, hi, #rows > 0 and sum / #rows or 0
    s.min_at[f], s.max_at[f], s.min_ties[f], s.max_ties[f] = lo_at, hi_at, nlo, nhi
  end
  return s
end

--- Groups of the processors' rows in the display order: at most n groups of
-- equal size (the last may be smaller); each {procs = {ids}, mean = {[field] = v}}.
function M.groups(rows, list, n)
  local by_id = {}
  for _, r in ipairs(rows) do by_id[r.id] = r end
  local size = math.ceil(#list / math.max(1, n))
  local out = {}
  for a = 1, #list, size do
    local g = { procs = {}, mean = {} }
    for _, f in ipairs(FIELDS) do g.mean[f] = 0 end
    for i = a, math.min(#list, a + size - 1) do
      local r = by_id[list[i]]
      g.procs[#g.procs + 1] = r.id
      for _, f in ipairs(FIELDS) do g.mean[f] = g.mean[f] + r[f] end
    end
    for _, f in ipairs(FIELDS) do g.mean[f] = g.mean[f] / #g.procs end
    out[#out + 1] = g
  end
  return out, size
end

--- Text that fits w pixels at the canvas's current font: cut with an ellipsis.
local function fit_text(cv, text, w)
  if cv:text_size(text) <= w then return text end
  local lo, hi = 0, #text
  while lo < hi do
    local mid = (lo + hi + 1) // 2
    if cv:text_size(text:sub(1, mid) .. "...") <= w then lo = mid else hi = mid - 1 end
  end
  return text:sub(1, lo) .. "..."
end

function D:draw(cv, rect)
  local st = self.stats
  if not st then
    self.d = common.placeholder(cv, rect, "shown at the end of the run")
    return
  end
  local uname, us = M.time_unit(st.span)
  local head = { table.unpack(HEAD) }
  head[10], head[11] = "task " .. uname, "path " .. uname
  local function fmt(r, id)
    return { id, string.format("%.1f", r.busy), string.format("%.1f", r.overhead), string.format("%.1f", r.idle),
             short(r.sent), short(r.sent_bytes), short(r.received), short(r.received_bytes), short(r.max_queue), string.format("%.4g", r.task_time / us),
             string.format("%.4g", r.path_time / us) }
  end
  local P = #st.processors
  local list = common.slots(self.ctx)
  -- "at" rows: the processor holding the extreme of each column
  -- ("all" when every processor holds it, "P7+" when others share it with P7)
  local function at(ids, ties, label)
    local r = { label }
    for j, f in ipairs(FIELDS) do
      local n = ties[f]
      r[j + 1] = ids[f] == nil and "" or n >= P and "all" or ("P" .. common.proc_label(list, ids[f]) .. (n > 1 and "+" or ""))
    end
    return r
  end
  local extra = {}
  local tl = {}
  for _, k in ipairs(st.tasks) do tl[#tl + 1] = string.format("%s: %.3g", k.id, k.mean_processors) end
  if #tl > 0 then extra[#extra + 1] = "mean processors per task  " .. table.concat(tl, ", ") end
  if st.critical_path then
    extra[#extra + 1] = string.format("critical path %.6g %s: %d segments, %d messages",
      st.critical_path.length / us, uname, st.critical_path.segments, st.critical_path.messages)
  end
  extra[#extra + 1] = string.format("messages %d, tachyons %d", st.total.messages or 0, st.total.tachyons or 0)
  local summ
  -- the rows of the table at a font size: every processor when they fit, else
  -- (first) the total and the summary rows, the note, the lines under the table,
  -- then groups with what is left; returns the rows ({text = {...}, kind, id |
  -- procs}), the note and how many of the lines under the table show
  local function layout(size)
    local lh = size + 4
    local note
    local lines = math.max(1, math.floor((rect.h - 4) / lh) - 1) -- under the header
    local rows = {}
    if P + 1 + #extra <= lines then
      local by_id = {}
      for _, r in ipairs(st.processors) do by_id[r.id] = r end
      for _, id in ipairs(list) do
        if by_id[id] then
          rows[#rows + 1] = { text = fmt(by_id[id], common.proc_label(list, id)), kind = "processor", id = id }
        end
      end
      rows[#rows + 1] = { text = fmt(st.total, "total"), kind = "total" }
      return rows, nil, #extra
    end
    summ = summ or M.summary(st.processors)
    local budget = math.max(1, lines - 2) -- two lines for the note
    local keep = {}
    local nsum = math.min(#KEEP, budget - 1)
    for k = 1, nsum do keep[KEEP[k]] = true end
    local rest = budget - 1 - nsum
    local nextra = math.max(0, math.min(#extra, rest))
    local ngroups = rest - nextra
    if ngroups >= 2 then
      local groups, gsize = M.groups(st.processors, list, ngroups)
      for _, g in ipairs(groups) do
        local label = #g.procs == 1 and tostring(g.procs[1]) or (g.procs[1] .. "-" .. g.procs[#g.procs])
        rows[#rows + 1] = { text = fmt(g.mean, label), kind = "group", procs = g.procs, values = g.mean }
      end
      note = string.format("%d processors in %d groups of %d (%s order), each row the mean per processor; "
        .. "at: who holds the least or the most (+: others too)", P, #groups, gsize, order.name(self.ctx))
    else
      note = string.format("%d processors: least, mean and most over all; at: who holds it (+: others too)", P)
    end
    for _, k in ipairs(SUMMARY) do
      if keep[k] then
        if k == "min at" then rows[#rows + 1] = { text = at(summ.min_at, summ.min_ties, "at"), kind = "min at", at = summ.min_at }
        elseif k == "max at" then rows[#rows + 1] = { text = at(summ.max_at, summ.max_ties, "at"), kind = "max at", at = summ.max_at }
        else rows[#rows + 1] = { text = fmt(summ[k], k), kind = k } end
      end
    end
    rows[#rows + 1] = { text = fmt(st.total, "total"), kind = "total" }
    return rows, note, nextra
  end
  -- each column as wide as its widest text (header bold, cells), measured at the
  -- font size tried; columns that do not fit even at 7 points go, least needed first
  local function widths(size, rows)
    cv:save()
    cv:font("DejaVu Sans", size, true)
    local w = {}
    for j = 1, #HEAD do
      w[j] = cv:text_size(head[j])
      for _, r in ipairs(rows) do w[j] = math.max(w[j], (cv:text_size(r.text[j]))) end
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
  local rows7, note7, nx7 = layout(7)
  local w7 = widths(7, rows7)
  for _, j in ipairs(DROP) do
    if total(w7, keep) <= avail then break end
    keep[j] = false
  end
  local size, w, rows, note, nextra = 7, w7, rows7, note7, nx7
  for s = 9, 8, -1 do
    local rs, ns, nx = layout(s)
    local ws = widths(s, rs)
    if total(ws, keep) <= avail then size, w, rows, note, nextra = s, ws, rs, ns, nx break end
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
  local d = { stats = st, cells = {}, rows = #rows, columns = {}, grouped = note ~= nil, note = note,
              processors = P, rect = { x = rect.x, y = rect.y, w = rect.w, h = rect.h } }
  if summ then
    d.summary = { min = summ.min, max = summ.max, mean = summ.mean, min_at = summ.min_at, max_at = summ.max_at,
                  min_ties = summ.min_ties, max_ties = summ.max_ties }
  end
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
  for i, r in ipairs(rows) do
    if i % 2 == 0 then cv:rect(rect.x + 2, y - 1, rect.w - 4, lh, "#eeeeee") end
    local summary_row = r.kind ~= "processor" and r.kind ~= "group"
    for c, j in ipairs(cols) do
      cv:text(x[c], y, r.text[j], { align = "right", valign = "top", size = size, color = "black",
        bold = r.kind == "total", italic = summary_row and r.kind ~= "total" })
    end
    d.cells[#d.cells + 1] = { row = r.text[1], kind = r.kind, id = r.id, procs = r.procs, at = r.at, values = r.values,
                              x = rect.x + 2, y = y - 1, w = rect.w - 4, h = lh, striped = i % 2 == 0 }
    y = y + lh
  end
  cv:save()
  cv:font("DejaVu Sans", size)
  local lines = {}
  if note then
    -- the note in up to two lines, cut at a space
    local first = fit_text(cv, note, rect.w - 10)
    if first ~= note then
      local cut = first:sub(1, -4):match("^(.*) ") or first:sub(1, -4)
      lines[1], lines[2] = cut, note:sub(#cut + 2)
    else
      lines[1] = note
    end
  end
  local nnote = #lines
  for i = 1, nextra do lines[#lines + 1] = extra[i] end
  d.notes = {}
  for i, e in ipairs(lines) do
    local t = fit_text(cv, e, rect.w - 10)
    cv:text(rect.x + 6, y + 2, t, { valign = "top", size = size, color = i <= nnote and "dimgray" or "black" })
    d.notes[#d.notes + 1] = { text = t, x = rect.x + 6, y = y + 2, h = lh }
    y = y + lh
  end
  cv:restore()
  cv:restore()
  self.d = d
end

return M
