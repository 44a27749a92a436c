-- The slow model of `paragraph --export chrome-json` for chrome_export_spec: the
-- writer as it was in Lua, one callback per state change, interval and message.
-- The C writer (core/msg/rt_chrome.c) must give the same bytes.
local fs = require "retrace.fs"
local M = {}

-- A JSON string literal.
local function jstr(v)
  return '"' .. tostring(v):gsub('[%c"\\]', function(c)
    if c == '"' then return '\\"' elseif c == "\\" then return "\\\\" end
    return string.format("\\u%04x", c:byte())
  end) .. '"'
end

-- the state segments: the tracker retrace.pgscale keeps for its CSV writer
local state_tracker = require("retrace.pgscale").state_tracker

-- Microseconds with three decimals, from whole nanoseconds (so a slice's end, ts + dur, is
-- exact in the file and slices that touch do not overlap by a rounding).
local function ns(t) return math.floor(t * 1e9 + 0.5) end
local function us_of_ns(v)
  local a = v < 0 and -v or v
  return string.format("%s%d.%03d", v < 0 and "-" or "", a // 1000, a % 1000)
end

-- Tracks (Trace Event Format threads) of processor p's process (pid p + 1).
local TID_STATES, TID_REGIONS, TID_UNNESTED = 1, 2, 3

function M.chrome_json(path, file, opts)
  opts = opts or {}
  local replay = require "retrace.replay"
  local f <close>, ferr = fs.create(file)
  if not f then return nil, ferr end
  local n = { complete = 0, states = 0, user = 0, unnested = 0, flow = 0, threads = 0, markers = 0 }
  local first = true
  local function put(s)
    if first then f:write("\n", s) first = false else f:write(",\n", s) end
  end
  local function slice(name, cat, p, tid, from, to)
    local a = ns(from)
    put(string.format('{"name":%s,"cat":"%s","ph":"X","pid":%d,"tid":%d,"ts":%s,"dur":%s}', jstr(name), cat,
      p + 1, tid, us_of_ns(a), us_of_ns(math.max(0, ns(to) - a))))
    n.complete = n.complete + 1
  end
  f:write('{"displayTimeUnit":"ns","traceEvents":[')
  local t0 = opts.info and opts.info.span[1] or 0
  local seen, lanes_of = {}, {}
  local track = state_tracker(t0, function(p, st, from, to)
    slice(st, "state", p, TID_STATES, from, to)
    n.states = n.states + 1
  end, function(p) seen[#seen + 1] = p end)
  local state_of = track.touch
  -- a not-nested region [a, b] (b the latest exit so far on p) goes to the first lane where it
  -- nests: a lane keeps its outermost slices; those starting at or after a are inside it
  local function lane_for(p, a, b)
    local lanes = lanes_of[p]
    if not lanes then lanes = {} lanes_of[p] = lanes end
    for k = 1, #lanes + 1 do
      local l = lanes[k]
      if not l then l = {} lanes[k] = l end
      local top = #l
      while top > 0 and l[top][1] >= a do top = top - 1 end
      if top == 0 or l[top][2] <= a then
        for i = #l, top + 1, -1 do l[i] = nil end
        l[top + 1] = { a, b }
        return k
      end
    end
  end
  local user_class, names = {}, {}
  local rp
  local err
  rp, err = replay.open(path, {
    format = opts.format, prescan = opts.info and opts.info.ps or nil,
    on_state = track.change,
    on_interval = function(iv)
      local u = user_class[iv.event]
      if u == nil then -- definitions come as the records are read: look each region up once
        local r = rp:defs().regions[iv.event]
        u = r and r.class == "user" or false
        user_class[iv.event], names[iv.event] = u, r and r.name
      end
      if u and iv.exit then
        state_of(iv.proc)
        if iv.unnested then
          local a, b = ns(iv.entry), ns(iv.exit)
          slice(names[iv.event], "user", iv.proc, TID_UNNESTED - 1 + lane_for(iv.proc, a, b), iv.entry, iv.exit)
          n.unnested = n.unnested + 1
        else
          slice(names[iv.event], "user", iv.proc, TID_REGIONS, iv.entry, iv.exit)
        end
        n.user = n.user + 1
      end
    end,
    on_message = function(m)
      state_of(m.src); state_of(m.dst)
      n.flow = n.flow + 2
      local id = n.flow // 2
      local name = '"message","cat":"message","id":' .. id
      put(string.format('{"name":%s,"ph":"s","pid":%d,"tid":%d,"ts":%s,"args":{"bytes":%.17g,"tag":%d}}', name,
        m.src + 1, TID_STATES, us_of_ns(ns(m.send_time)), m.bytes, m.tag or 0))
      put(string.format('{"name":%s,"ph":"f","bp":"e","pid":%d,"tid":%d,"ts":%s}', name, m.dst + 1, TID_STATES,
        us_of_ns(ns(m.recv_time))))
    end,
  })
  if not rp then return nil, err end
  local ok, rerr = pcall(rp.run, rp)
  if not ok then return nil, tostring(rerr) end
  local _, t1 = rp:span()
  track.finish(t1)
  for _, m in ipairs(opts.markers or {}) do
    put(string.format('{"name":%s,"cat":"marker","ph":"i","s":"t","pid":%d,"tid":%d,"ts":%s,"args":%s}',
      jstr(m.name), m.proc + 1, TID_STATES, us_of_ns(ns(m.time)), require("retrace.json").encode(m.args or {})))
    n.markers = n.markers + 1
  end
  -- names last (the definitions are complete then): processes, then their tracks
  local procs = rp:defs().procs
  table.sort(seen)
  for _, p in ipairs(seen) do
    local d = procs[p + 1]
    local pname = d and d.name ~= "" and d.name or ("processor " .. p)
    put(string.format('{"name":"process_name","ph":"M","pid":%d,"args":{"name":%s}}', p + 1, jstr(pname)))
    put(string.format('{"name":"process_sort_index","ph":"M","pid":%d,"args":{"sort_index":%d}}', p + 1, p))
    local tracks = { [TID_STATES] = "states", [TID_REGIONS] = "regions" }
    for k = 1, #(lanes_of[p] or {}) do tracks[TID_UNNESTED - 1 + k] = "regions, not nested " .. k end
    for tid = 1, #tracks do
      put(string.format('{"name":"thread_name","ph":"M","pid":%d,"tid":%d,"args":{"name":"%s"}}', p + 1, tid,
        tracks[tid]))
      n.threads = n.threads + 1
    end
  end
  f:write("\n]}\n")
  local cok, cerr = f:commit()
  if not cok then return nil, cerr end
  return n
end

return M
