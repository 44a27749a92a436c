--- retrace.paragraph_app: what ParaGraph's task, other and application displays
-- need beyond retrace.paragraph's model: tasks per processor, the records as
-- they are replayed (the trace display and the user's application displays),
-- and the statistical summary (the critical path comes from the pre-pass:
-- retrace.paragraph.prescan with critical_path).
--
--   local app = require "retrace.paragraph_app"
--   local x = app.tracker(info [, {keep = K}])  -- tasks and records
--   x:attach(model [, {events = true}])         -- tasks (and records) from the model's view in C
--   x:sync(t)                                   -- every frame, after model:sync
--   x:listen(fn)                                -- fn(rec) for every record (PICL) or event (other formats)
--   x:task_time(id, t) / x:mean_processors() / x:task_summary(t0, t1)
--   app.stats(model, rp, x, cp) -> {processors = {...}, total = {...}}
--   app.stats_csv(stats) -> text
--
-- Tasks: a processor's task is its innermost open user region (the engine's
-- on_task); task t is in progress while some processor is in it, done once
-- none is (and back in progress when it is entered again). Attached, the
-- tracker reads them from the view each frame; unattached, x:switch feeds it.
local replay = require "retrace.replay"

local M = {}

local Tracker = {}
Tracker.__index = Tracker

--- A task and record tracker for a trace described by `info` (retrace.paragraph's
-- prescan). opts.keep: records kept for the trace display (default 64).
function M.tracker(info, opts)
  opts = opts or {}
  local self = setmetatable({
    P = info.P, cur = {}, since = {}, hist = {}, tasks = {}, order = {}, latest = nil,
    records = {}, keep = opts.keep or 64, nrec = 0, listeners = {}, now = info.span[1],
  }, Tracker)
  for p = 0, info.P - 1 do self.hist[p] = { { -math.huge, false } } end
  for _, id in ipairs(info.tasks or {}) do self:task(id) end
  return self
end

--- The record of task `id` (created on first use).
function Tracker:task(id)
  local k = self.tasks[id]
  if not k then
    k = { id = id, start = nil, stop = nil, ptime = 0, inside = 0, status = "waiting" }
    self.tasks[id] = k
    self.order[#self.order + 1] = id
    table.sort(self.order)
  end
  return k
end

-- Processor p leaves task `old` and enters task `new` at t (nil: none).
function Tracker:switch(p, t, old, new)
  if p < 0 or p >= self.P then return end
  if t > self.now then self.now = t end
  old = self.cur[p]
  if old == new then return end
  if old then
    local k = self:task(old)
    k.ptime = k.ptime + (t - self.since[p])
    k.inside = k.inside - 1
    if not k.stop or t > k.stop then k.stop = t end
    if k.inside == 0 then k.status = "done" end
  end
  if new then
    local k = self:task(new)
    k.inside = k.inside + 1
    k.status = "progress"
    if not k.start or t < k.start then k.start = t end
    self.latest = new
  end
  self.cur[p], self.since[p] = new, t
  local h = self.hist[p]
  if h[#h][1] == t then h[#h][2] = new or false else h[#h + 1] = { t, new or false } end
end

--- Add a listener fn(rec) called with every record the replay reads (taken in batches
-- from the view at each sync: PICL records as the PICL reader gives them, events of
-- other formats).
function Tracker:listen(fn)
  self.listeners[#self.listeners + 1] = fn
end

-- Keep record rec (index set) for the trace display and hand it to the listeners.
local function add_record(self, rec)
  local r = self.records
  r[#r + 1] = rec
  if #r > 2 * self.keep then table.move(r, #r - self.keep + 1, #r, 1); for i = #r, self.keep + 1, -1 do r[i] = nil end end
  for _, fn in ipairs(self.listeners) do fn(rec) end
end

--- Name the tasks after their regions (formats whose regions have names of their own:
-- OTF2, Paraver, Pajé; PICL's user events stay "task N"): self.names[id] = name.
-- Regions may be defined as the replay meets them: names are looked up again when a
-- task appears (Tracker:sync).
function Tracker:name_tasks(rp)
  self.naming = rp
  local defs = rp:defs()
  self.named = #self.order
  if defs.format == "picl-old" or defs.format == "picl-new" then self.naming = nil return self end
  self.names = {}
  for id, r in pairs(defs.regions or {}) do
    if r.class == "user" and r.name and r.name ~= "" then self.names[id] = r.name end
  end
  return self
end

--- Read tasks from the view of `model` (retrace.paragraph, attached to a replay)
-- at every sync. opts.events: the records are the view's events (any format; PICL:
-- one per record of the file, numbered as in the file).
function Tracker:attach(model, opts)
  self.model = model
  self.events = opts and opts.events or false
  return self
end

--- Bring the tasks (and events) to the view's state at time t.
function Tracker:sync(t)
  local view = self.model and self.model.view
  if not view then return end
  if t > self.now then self.now = t end
  for _, k in ipairs(view:tasks()) do
    local x = self:task(k.id)
    x.start, x.stop, x.ptime, x.inside = k.start, k.stop, k.ptime, k.inside
    x.status = not k.start and "waiting" or k.inside > 0 and "progress" or "done"
  end
  if self.naming and self.named ~= #self.order then self:name_tasks(self.naming) end
  for p = 0, self.P - 1 do self.cur[p], self.since[p] = view:task_of(p) end
  local latest = view:info().latest_task
  self.latest = latest ~= -1 and latest or nil -- task ids may be negative (Paraver's Running is -2)
  if self.events then
    local evs = view:events()
    local last = self.records[#self.records]
    for _, e in ipairs(evs) do
      if not last or e.index > last.index then add_record(self, e) end
    end
    view:take_events()
  end
end

--- Processor-seconds spent in task id up to time t (open stays counted to t).
function Tracker:task_time(id, t)
  local k = self.tasks[id]
  if not k then return 0 end
  local s = k.ptime
  for p = 0, self.P - 1 do
    if self.cur[p] == id and t > self.since[p] then s = s + (t - self.since[p]) end
  end
  return s
end

--- Processors now in each task: {{id, count}, ...} by task id.
function Tracker:counts()
  local out = {}
  for i, id in ipairs(self.order) do out[i] = { id = id, count = self.tasks[id].inside } end
  return out
end

--- Mean number of processors of each task over its lifetime: processor-time in
-- it / (last end - first start); a task never ended counts to t. With a window
-- starting at lo: its lifetime cut to [lo, t], before[id] its processor-time before lo.
function Tracker:mean_processors(t, lo, before)
  local out = {}
  t = t or self.now
  for _, id in ipairs(self.order) do
    local k = self.tasks[id]
    local start = k.start and math.max(k.start, lo or -math.huge)
    local stop = k.start and math.min(k.inside > 0 and t or k.stop, t)
    if k.start and stop >= start then
      local span = stop - start
      local pt = self:task_time(id, stop) - (before and before[id] or 0)
      out[#out + 1] = { id = id, mean_processors = span > 0 and pt / span or 0, start = start, ["end"] = stop }
    end
  end
  return out
end

--- Each task's span clipped to the window [t0, t1] and its percent of the window
-- (tasks wholly outside it left out).
function Tracker:task_summary(t0, t1)
  local out = {}
  for _, id in ipairs(self.order) do
    local k = self.tasks[id]
    local start = k.start and math.max(k.start, t0)
    local stop = k.start and math.min(k.inside > 0 and t1 or k.stop, t1)
    if k.start and stop >= start then
      out[#out + 1] = { id = id, start = start, ["end"] = stop,
                        percent = t1 > t0 and 100 * (stop - start) / (t1 - t0) or 0 }
    end
  end
  return out
end

--- Time per task per column for processor p over [lo, hi] (W columns) up to now:
-- add(col, task, seconds), col 1-based.
function Tracker:raster(p, lo, hi, W, now, add)
  local h = self.model and self.model.view and self.model.view:task_changes(p) or self.hist[p]
  now = math.min(now, hi)
  local dt = (hi - lo) / W
  for i = 1, #h do
    local task = h[i][2]
    local a, b = math.max(h[i][1], lo), math.min(h[i + 1] and h[i + 1][1] or now, now)
    if task and b > a then
      local c0 = math.floor((a - lo) / dt)
      local c1 = math.min(math.floor((b - lo) / dt), W - 1)
      for c = c0, c1 do
        local x0, x1 = math.max(a, lo + c * dt), math.min(b, lo + (c + 1) * dt)
        if x1 > x0 then add(c + 1, task, x1 - x0) end
      end
    end
  end
end

--- Per processor time on the critical path (seconds) inside [lo, hi] (default: all): {[p] = s}.
function M.path_time(cp, P, lo, hi)
  local out = {}
  lo, hi = lo or -math.huge, hi or math.huge
  for p = 0, P - 1 do out[p] = 0 end
  for _, s in ipairs(cp and cp.segments or {}) do
    local a, b = math.max(s.from, lo), math.min(s.to, hi)
    if out[s.proc] and b > a then out[s.proc] = out[s.proc] + (b - a) end
  end
  return out
end

--- The statistical summary per processor and in total at the end of a run.
function M.stats(model, rp, x, cp)
  local P = model.P
  -- over the model's window (--from / --to) clipped to the run
  local lo, hi = math.max(model.from, model.info.span[1]), math.min(model.to, model.info.span[2])
  local span = hi - lo
  local on_path = M.path_time(cp, P, lo, hi)
  local rows, tot = {}, { busy = 0, overhead = 0, idle = 0, sent = 0, sent_bytes = 0, received = 0,
                          received_bytes = 0, max_queue = 0, task_time = 0, path_time = 0 }
  local summ = model:summary()
  for p = 0, P - 1 do
    local pr = rp:proc(require("retrace.paragraph").source_id(model.info, p)) or {}
    local in_tasks = 0
    if model.view then
      in_tasks = model.view:proc_task_time(p, hi) - (model.task_time_before and model.task_time_before[p] or 0)
    else
      for _, id in ipairs(x.order) do
        -- processor-time of p in tasks: its history
        local h = x.hist[p]
        for i = 1, #h do
          if h[i][2] == id then
            local b = h[i + 1] and h[i + 1][1] or model.info.span[2]
            in_tasks = in_tasks + (b - h[i][1])
          end
        end
      end
    end
    local s = summ[p + 1]
    local r = { id = p, busy = s.busy, overhead = s.overhead, idle = s.idle,
                sent = pr.sent or 0, sent_bytes = pr.sent_bytes or 0, received = pr.received or 0,
                received_bytes = pr.received_bytes or 0, max_queue = pr.max_queue or 0,
                task_time = in_tasks, path_time = on_path[p] }
    rows[p + 1] = r
    for k in pairs(tot) do
      if k == "max_queue" then tot[k] = math.max(tot[k], r[k]) else tot[k] = tot[k] + r[k] end
    end
  end
  for _, k in ipairs({ "busy", "overhead", "idle" }) do tot[k] = P > 0 and tot[k] / P or 0 end
  local t = rp:totals()
  tot.messages, tot.tachyons = t.messages, cp and cp.tachyons or t.tachyons
  return { span = span, processors = rows, total = tot,
           tasks = x:mean_processors(hi, lo, model.task_ptime_before),
           critical_path = cp and { length = cp.length, segments = #cp.segments, messages = #cp.messages } or nil }
end

M.stats_columns = { "id", "busy", "overhead", "idle", "sent", "sent_bytes", "received", "received_bytes",
                    "max_queue", "task_time", "path_time" }

--- The per-processor table as CSV (a last row "total").
function M.stats_csv(st)
  local lines = { table.concat(M.stats_columns, ",") }
  local function row(r, id)
    local v = {}
    for i, k in ipairs(M.stats_columns) do
      v[i] = k == "id" and id or string.format("%.10g", r[k] or 0)
    end
    lines[#lines + 1] = table.concat(v, ",")
  end
  for _, r in ipairs(st.processors) do row(r, tostring(r.id)) end
  row(st.total, "total")
  return table.concat(lines, "\n") .. "\n"
end

--- A record in one line for the trace display: "t proc kind event data".
function M.describe(rec)
  if rec.text then return rec.text end -- an event of the view, described in C
  local parts = { string.format("%.9g", rec.time), "P" .. tostring(rec.proc), rec.kind or "?" }
  if rec.name then parts[#parts + 1] = rec.name elseif rec.event then parts[#parts + 1] = "event " .. rec.event end
  if rec.bytes then parts[#parts + 1] = string.format("%g B", rec.bytes) end
  if rec.dest then parts[#parts + 1] = "to " .. rec.dest end
  if rec.src then parts[#parts + 1] = "from " .. rec.src end
  if rec.to then parts[#parts + 1] = "to " .. rec.to end
  if rec.from then parts[#parts + 1] = "from " .. rec.from end
  if rec.tag then parts[#parts + 1] = "tag " .. rec.tag end
  if (rec.kind == "mark" or rec.code == 22) and rec.data and #rec.data > 0 then
    local d = {}
    for i = 1, math.min(#rec.data, 8) do d[i] = tostring(rec.data[i]) end
    parts[#parts + 1] = "[" .. table.concat(d, " ") .. "]"
  end
  return table.concat(parts, "  ")
end

--- Load an application display: FILE.lua returns a module with new(ctx, opts) (the
-- display protocol; record(rec) is called for every record). Returns the module
-- or nil, message.
function M.load(file)
  local chunk, err = loadfile(file, "t", setmetatable({}, { __index = _G }))
  if not chunk then return nil, err end
  local ok, mod = pcall(chunk)
  if not ok then return nil, file .. ": " .. tostring(mod) end
  if type(mod) ~= "table" or type(mod.new) ~= "function" then
    return nil, file .. ": an application display returns a table with new(ctx, opts)"
  end
  return mod
end

--- A proxy of application display `d` whose methods (record, update, finish,
-- draw, data; data() defaults to {}) report an error through fail(message) instead of raising it with
-- a traceback. The message names the method; the error's own text names the file.
function M.guard(d, fail)
  if type(d.draw) ~= "function" then return fail("application display: no draw(cv, rect) method") end
  local g = { data = function() return {} end }
  for _, name in ipairs({ "record", "update", "finish", "draw", "data" }) do
    if type(d[name]) == "function" then
      g[name] = function(_, ...)
        local res = table.pack(pcall(d[name], d, ...))
        if not res[1] then
          local msg = tostring(res[2]):gsub("\n.*", "")
          return fail(string.format("application display, %s(): %s", name, msg))
        end
        return table.unpack(res, 2, res.n)
      end
    end
  end
  return g
end

return M
