-- retrace.viewer: the index of a trace and the server of `retrace view`.
--   viewer.index_path(trace)           where the index of a trace lives by default
--   viewer.ensure(trace, opts)         an up-to-date index: reused when it matches, else built
--   viewer.serve(trace, index, opts)   a running server (see bindings/lviewer.c)
--   viewer.critical_path(trace, opts)  the run's critical path, cut to windows for the page
local core = require("retrace.core").viewer

local M = {}

M.index_version = core.index_version

local function writable_dir(dir)
  local probe = dir .. "/.retrace-probe-" .. tostring(os.time()) .. "-" .. tostring(math.random(1 << 30))
  local f = io.open(probe, "w")
  if not f then return false end
  f:close()
  os.remove(probe)
  return true
end

-- The cache folder for indexes of traces in folders retrace cannot write to.
local function cache_dir()
  local base = os.getenv("XDG_CACHE_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or "/tmp") .. "/.cache" end
  return base .. "/retrace"
end

--- Where the index of trace goes: TRACE.rtidx beside it (an OTF2 archive given by its
-- folder: FOLDER.rtidx), or, when that folder is not writable, the cache folder
-- ($XDG_CACHE_HOME/retrace or ~/.cache/retrace) under a name made from the trace's path.
function M.index_path(trace)
  local t = trace:gsub("/+$", "")
  local dir = t:match("^(.*)/[^/]*$") or "."
  if dir == "" then dir = "/" end
  if writable_dir(dir) then return t .. ".rtidx" end
  local lfs = require "lfs"
  local abs = t:sub(1, 1) == "/" and t or (lfs.currentdir() .. "/" .. t)
  local cache = cache_dir()
  local acc = ""
  for part in cache:gmatch("[^/]+") do
    acc = acc .. "/" .. part
    lfs.mkdir(acc)
  end
  return cache .. "/" .. abs:gsub("[^%w%.%-]", "_") .. ".rtidx"
end

--- An index for trace that matches it now. opts: index (path), format, rebuild (force),
-- log (function(message) told what happens). Returns path, info, built (true when it
-- was (re)built) or nil, message.
function M.ensure(trace, opts)
  opts = opts or {}
  local path = opts.index or M.index_path(trace)
  local log = opts.log or function() end
  if not opts.rebuild then
    local info, err, status = core.check(path, trace)
    if info then return path, info, false end
    if status ~= "io" then log(err .. "; building it again") end
  end
  local built, berr = core.build(trace, path, opts.format)
  if not built then return nil, berr end
  local info, cerr = core.check(path, trace)
  if not info then return nil, cerr end
  for k, v in pairs(built) do info[k] = v end
  return path, info, true
end

--- The format to open trace with: given (--format) when there is one; "pes" for a program
-- execution sequence (Chitra's, shown as one processor whose regions are its states: the
-- source core/seq/rt_pes_source.c); nil (by content) otherwise.
function M.format_of(trace, given)
  if given then return given end
  return require("retrace.formats").detect(trace) == "pes" and "pes" or nil
end

--- The folder of the page's files.
function M.assets()
  return require("retrace").root .. "/lua/retrace/viewer"
end

--- The communicators of a trace with their processors (0-based, rank order), for the page's
-- filter: {{id, name, members}}, those whose members are known; {} when the trace defines none.
function M.comms(trace, format)
  local rp = require("retrace.replay").open(trace, { format = format })
  if not rp then return {} end
  local out = {}
  for _, c in ipairs(rp:defs().comms or {}) do
    if c.members and #c.members > 0 then out[#out + 1] = { id = c.id, name = c.name, members = c.members } end
  end
  rp:close()
  return out
end

--- Start serving: opts bind, port, token, title, format, second = {trace, index} (a second trace to
-- compare: queries with trace=1). Returns the server or nil, message. api/meta lists the trace's
-- communicators (M.comms).
function M.serve(trace, index, opts)
  opts = opts or {}
  local second = opts.second or {}
  local srv, err, status = core.serve { index = index, trace = trace, assets = opts.assets or M.assets(),
    title = opts.title or trace, bind = opts.bind, port = opts.port or 0, token = opts.token,
    index2 = second.index, trace2 = second.trace, title2 = second.trace }
  if not srv then return nil, err, status end
  local comms = M.comms(trace, opts.format)
  srv:set_meta('"comms":' .. (#comms > 0 and require("retrace.json").encode(comms) or "[]"))
  return srv
end

-- Parts of the path an answer lists for drawing (the length, counts and shares cover all of it).
M.CRITPATH_DRAWN = 20000

--- The critical path of the whole run (the replay `retrace stats` does, once, on first use) and,
-- for a window of it, what the page's critical-path panel shows: path:window(lo, hi) (seconds) ->
-- {from, to, start, stop, length, nsegments, nmessages, procs = {{proc, time}} (the time the path
-- spends on each processor inside the window), flight (its messages' flight time there),
-- segments = {{proc, from, to}}, messages = {{src, dst, send, recv, bytes}} (at most
-- CRITPATH_DRAWN each; truncated = true when more)} or nil, message. The window's cut is
-- retrace.critpath's rule, through picl.critical_path_head and critical_path_batches: the same
-- numbers as `retrace stats --from lo --to hi`. opts: format.
function M.critical_path(trace, opts)
  opts = opts or {}
  local picl = require "retrace.picl"
  local whole, werr
  local self = {}
  function self.window(_, lo, hi)
    if not whole then
      whole, werr = picl.summary(trace, { format = opts.format })
      if not whole then return nil, werr end
    end
    local run = whole.critical_path
    if not run or not run.path then
      return { from = lo, to = hi, length = 0, nsegments = 0, nmessages = 0, procs = {}, flight = 0, segments = {},
        messages = {} }
    end
    local w = require("retrace.critpath").clip({ start = run.start, stop = run.stop }, lo, hi)
    local cp = { path = run.path, window = { lo, hi } }
    local ok, err = picl.critical_path_head(cp)
    if not ok then return nil, err end
    local out = { from = lo, to = hi, start = w.start, stop = w.stop, length = cp.length, nsegments = cp.nsegments,
      nmessages = cp.nmessages, procs = {}, flight = 0, segments = {}, messages = {}, truncated = false }
    local per, keep = {}, M.CRITPATH_DRAWN
    ok, err = picl.critical_path_batches(cp, 4096, function(segs, msgs)
      for _, g in ipairs(segs) do
        per[g.proc] = (per[g.proc] or 0) + (g.to - g.from)
        if #out.segments < keep then out.segments[#out.segments + 1] = { g.proc, g.from, g.to }
        else out.truncated = true end
      end
      for _, m in ipairs(msgs) do
        local s, r = m.send_time, m.recv_time
        out.flight = out.flight + math.max(0, math.min(r, hi) - math.max(s, lo))
        if #out.messages < keep then out.messages[#out.messages + 1] = { m.src, m.dst, s, r, m.bytes }
        else out.truncated = true end
      end
    end)
    if not ok then return nil, err end
    for p, t in pairs(per) do out.procs[#out.procs + 1] = { proc = p, time = t } end
    table.sort(out.procs, function(a, b) return a.proc < b.proc end)
    return out
  end
  return self
end

return M
