--- retrace.chitra.states: a program execution sequence from a message-passing trace.
--
--   local m, err = states.from_trace(path, proc)   -- {label=, states={...}, times={...}}
--
-- One processor's event nesting, replayed by the engine (any format it reads):
-- the state at each moment is the innermost open event (tracing events left out),
-- and outside every event the processor's state: busy, overhead or idle. A state
-- lasts until the next change; zero-length occurrences are left out. Names are
-- the trace's region names with every run of characters other than letters,
-- digits, '.', '-' and '_' made one '_' ("send (nonblocking)" -> "send_nonblocking").
-- The last entry is END at the processor's last record (a PES lists one time
-- more than it has states). The result feeds retrace.chitra.from_states.
local replay = require "retrace.replay"

local M = {}

local function clean(name)
  return (tostring(name):gsub("[^%w%.%-_]+", "_"):gsub("^_+", ""):gsub("_+$", ""))
end
M.clean = clean

function M.from_trace(path, proc)
  local marks = {} -- {time, order, kind, depth, name}: order sorts exits, states, entries
  local n = 0
  local opts = {
    on_interval = function(iv)
      if iv.proc == proc and iv.depth >= 0 and iv.exit > iv.entry then
        marks[n + 1] = { iv.entry, 2, "in", iv.depth, iv.event }
        marks[n + 2] = { iv.exit, 0, "out", iv.depth }
        n = n + 2
      end
    end,
    on_state = function(p, t, _, new)
      if p == proc then
        n = n + 1
        marks[n] = { t, 1, "state", 0, new }
      end
    end,
  }
  local rp, err = replay.open(path, opts)
  if not rp then return nil, err end
  local ok, rerr = pcall(rp.run, rp)
  if not ok then rp:close() return nil, tostring(rerr) end
  local p = rp:proc(proc)
  if not p or (p.records or 0) == 0 then
    local np = rp:nprocs()
    rp:close()
    return nil, string.format("%s: no processor %d in the trace (processors 0..%d)", path, proc, np - 1)
  end
  local last = p.last
  local regions = rp:defs().regions or {}
  rp:close()
  for i, m in ipairs(marks) do m[6] = i end
  table.sort(marks, function(a, b)
    if a[1] ~= b[1] then return a[1] < b[1] end
    if a[2] ~= b[2] then return a[2] < b[2] end
    if a[2] == 0 and a[4] ~= b[4] then return a[4] > b[4] end -- deeper exits first
    if a[2] == 2 and a[4] ~= b[4] then return a[4] < b[4] end -- shallower entries first
    return a[6] < b[6]
  end)
  local stack, state = {}, "idle"
  local syms, times = {}, {}
  local function label()
    local top = stack[#stack]
    if top then
      local r = regions[top]
      return clean(r and r.name or ("event " .. top))
    end
    return state
  end
  local current
  local i = 1
  while i <= #marks do
    local t = marks[i][1]
    while i <= #marks and marks[i][1] == t do
      local m = marks[i]
      if m[3] == "in" then
        stack[#stack + 1] = m[5]
      elseif m[3] == "out" then
        stack[#stack] = nil
      else
        state = m[5]
      end
      i = i + 1
    end
    local l = label()
    if l ~= current then
      if #syms > 0 and times[#times] == t then
        syms[#syms] = l -- a state of no length: replaced
      else
        syms[#syms + 1], times[#times + 1] = l, t
      end
      if #syms >= 2 and syms[#syms - 1] == l then -- merged with the one before
        syms[#syms], times[#times] = nil, nil
      end
      current = syms[#syms]
    end
  end
  if #syms == 0 then return nil, string.format("%s: processor %d has no events", path, proc) end
  if #syms > 1 and times[#times] >= last then
    syms[#syms], times[#times] = nil, nil -- the state the end of the trace sets has no length
  end
  syms[#syms + 1], times[#times + 1] = "END", math.max(last, times[#times])
  return { label = string.format("%s:processor %d", path, proc), states = syms, times = times }
end

return M
