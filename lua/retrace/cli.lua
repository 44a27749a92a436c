--- retrace.cli: subcommand dispatch and the command-line conventions.
--
-- A command is scripts/NAME.lua returning a table:
--   { summary = "one line", parser = function(p) ... end, run = function(args) ... end }
-- `parser` adds arguments to a lua-argparse parser named "retrace NAME"; `run`
-- gets the parsed arguments and returns an exit code (nil means 0).
-- Inside a command, report problems with cli.input_error (exit 1: unreadable or
-- malformed input) and cli.usage_error (exit 2: impossible options); both print
-- "retrace: message" and stop the command.
local M = {}

M.EXIT_OK, M.EXIT_INPUT, M.EXIT_USAGE = 0, 1, 2

local function root()
  return require("retrace").root
end

--- Raise a bad-input error (exit 1). msg: "FILE:LINE: what is wrong".
function M.input_error(msg)
  error({ exit = M.EXIT_INPUT, message = msg }, 0)
end

--- Raise a bad-usage error (exit 2).
function M.usage_error(msg)
  error({ exit = M.EXIT_USAGE, message = msg }, 0)
end

--- The values of a call that returns value(s) or nil, message: passed through when
-- the first is not nil, a bad-input error (exit 1) with the message otherwise.
--   local o <close> = cli.check_input(fs.create(path))
function M.check_input(v, msg, ...)
  if v == nil or v == false then M.input_error(tostring(msg)) end
  return v, msg, ...
end

--- Sorted names of the available commands (scripts/*.lua, and the user's
-- FOLDER/scripts/*.lua: retrace.userdirs).
function M.commands()
  local lfs = require "lfs"
  local names, seen = {}, {}
  local ok, iter, state = pcall(lfs.dir, root() .. "/scripts")
  if ok then
    for f in iter, state do
      local n = f:match("^([%w_%-]+)%.lua$")
      if n then names[#names + 1] = n; seen[n] = true end
    end
  end
  for _, n in ipairs(require("retrace.userdirs").names("scripts")) do
    if not seen[n] then names[#names + 1] = n end
  end
  table.sort(names)
  return names
end

--- Load the command table of NAME (a user's command first: retrace.userdirs), or nil
-- and a message.
function M.load(name)
  if not name:match("^[%w_%-]+$") then return nil, "bad command name '" .. name .. "'" end
  local path = require("retrace.userdirs").find("scripts", name) or (root() .. "/scripts/" .. name .. ".lua")
  local chunk, err = loadfile(path)
  if not chunk then
    local f = io.open(path)
    if f then f:close() return nil, err end
    return nil, "unknown command '" .. name .. "'; commands: " .. table.concat(M.commands(), ", ")
  end
  local cmd = chunk()
  if type(cmd) ~= "table" or type(cmd.run) ~= "function" then
    return nil, path .. ": a command must return a table with a run function"
  end
  return cmd
end

--- The argparse parser of a loaded command.
function M.parser(name, cmd)
  local argparse = require "argparse"
  local p = argparse("retrace " .. name, cmd.summary or "")
  if cmd.description then p:description(cmd.description) end
  if cmd.epilog then p:epilog(cmd.epilog) end
  if cmd.parser then cmd.parser(p) end
  return p
end

--- "--from -1e-6", "--zoom -1:5": after a long option that takes a value, a word that
-- starts with '-' and reads as numbers (one, or several joined by ':' or ',') is that
-- value, not an option (argparse would take it for one): passed as "--from=-1e-6".
function M.negative_values(p, argv)
  local takes = {}
  for _, o in ipairs(p._options or {}) do
    if (o._maxargs or 0) > 0 then
      for _, a in ipairs(o._aliases or {}) do takes[a] = true end
    end
  end
  local function numbers(w)
    if not w:match("^%-[%d.]") then return false end
    for part in (w .. ":"):gmatch("([^:,]*)[:,]") do
      if not tonumber(part) then return false end
    end
    return true
  end
  local out, i = {}, 1
  while i <= #argv do
    local a, b = argv[i], argv[i + 1]
    if takes[a] and a:match("^%-%-") and b and numbers(b) then
      out[#out + 1] = a .. "=" .. b
      i = i + 2
    else
      out[#out + 1] = a
      i = i + 1
    end
  end
  return out
end

M.EXIT_INTERRUPTED = 130 -- as a shell reports a command ended by Ctrl-C, so loops over files stop too

--- Whether an error caught by pcall is Ctrl-C (retrace.interrupted): raise it again.
M.interrupted = require("retrace").interrupted

local function report(err)
  if type(err) == "table" and err.exit then
    return err
  end
  -- Ctrl-C is no bug: one line, no traceback
  local first = tostring(err):match("^[^\n]*")
  if M.interrupted(err) then
    return { exit = M.EXIT_INTERRUPTED, message = "interrupted" }
  end
  -- memory running out (a cache too large for the machine, a trace too large for
  -- memory) is the size of the work, no bug: one line, without the Lua position
  if first:find("out of memory", 1, true) or first:find("not enough memory", 1, true) then
    return { exit = M.EXIT_INPUT, message = (first:gsub("^[^:\n]*%.lua:%d+: ", "")) }
  end
  return { exit = M.EXIT_INPUT, message = debug.traceback(tostring(err), 2) }
end

--- A message that says memory ran out names no file by itself: put the command's
-- input files (its arguments that name existing files or folders) in front.
-- Other messages are returned as they are (they name their place already).
function M.name_inputs(message, argv)
  local first = message:match("^[^\n]*")
  if not (first:find("out of memory", 1, true) or first:find("not enough memory", 1, true)) then
    return message
  end
  local files = {}
  for _, a in ipairs(argv) do
    if a:sub(1, 1) ~= "-" and not message:find(a, 1, true) and require("lfs").attributes(a, "mode") then
      files[#files + 1] = a
    end
  end
  if #files == 0 then return message end
  return table.concat(files, ", ") .. ": " .. message
end

-- Run the command; returns the exit code and the text to print on stderr (nil when none).
-- What each command reads (the families of formats.detect's names), and the command
-- suggested for a file of each family.
local FAMILY = {
  ["picl-new"] = "message", ["picl-old"] = "message", paje = "message", paraver = "message", otf2 = "message",
  din = "memory", xdin = "memory", lackey = "memory", bin = "memory", msp = "msp", shmap = "shmap", pes = "pes",
}
local READS = {
  stats = { message = true }, paragraph = { message = true }, medea = { message = true },
  view = { message = true, pes = true }, index = { message = true, pes = true }, picl = { message = true }, dump = { message = true },
  cache = { memory = true }, memspy = { memory = true, msp = true }, shmap = { shmap = true },
  chitra = { pes = true, message = true }, -- (traces with --states)
}
local SUGGEST = { message = "stats", memory = "cache", msp = "memspy", shmap = "shmap", pes = "chitra" }

--- When command `name` failed on its input, the traces it was given (its parsed
-- arguments `trace`, `pes` or `paths`) may be of a kind another command reads: then a
-- message saying so (what the file is, the command to try), else nil.
function M.wrong_command(name, args)
  local reads = READS[name]
  if not reads or args.format then return nil end -- (a format named: its reader's message stands)
  local formats = require "retrace.formats"
  local given = args.trace or args.pes or args.paths
  if type(given) ~= "table" then given = { given } end
  for _, a in ipairs(given) do
    if type(a) == "string" and require("lfs").attributes(a, "mode") == "file" then
      local f = formats.detect(a)
      local fam = f and FAMILY[f]
      if fam and not reads[fam] then
        local what = formats.descriptions[f] or f
        return string.format("%s is %s %s, which 'retrace %s' does not read; try 'retrace %s %s'", a,
          what:match("^[AEIOUaeiou]") and "an" or "a", what, name, SUGGEST[fam], a)
      end
    end
  end
  return nil
end

local function run(name, cmd, err, argv)
  if not name then
    return M.EXIT_USAGE, "retrace: missing command; try 'retrace help'\n"
  end
  if not cmd then
    return M.EXIT_USAGE, "retrace: " .. err .. "\n"
  end
  local p = M.parser(name, cmd)
  local rest = M.negative_values(p, table.move(argv, 2, #argv, 1, {}))
  local ok, args = p:pparse(rest)
  if not ok then
    return M.EXIT_USAGE, p:get_usage() .. "\n" .. "retrace: " .. name .. ": " .. args .. "\n"
  end
  local okrun, res = xpcall(cmd.run, report, args)
  io.stdout:flush()
  if not okrun then
    if type(res) ~= "table" then -- the handler itself failed (out of memory)
      res = { exit = M.EXIT_INPUT, message = tostring(res) }
    end
    -- a rank that failed because another one did holds no message (retrace.par.spread)
    if res.exit == M.EXIT_INPUT and res.message then
      local ok2, wrong = pcall(M.wrong_command, name, args)
      if ok2 and wrong then res.message = wrong end
    end
    return res.exit, res.message and ("retrace: " .. M.name_inputs(res.message, rest) .. "\n")
  end
  return math.tointeger(res) or 0
end

--- Seconds a failing rank of an MPI job waits for the others to reach the end of the
-- command before it ends the job alone (they may wait in a collective of the command).
M.PAR_PATIENCE = 3

--- Run `retrace NAME args...`; returns the exit code.
-- Under an MPI job of several ranks (retrace.par): a command whose table says
-- `parallel = true` runs on every rank, rank 0 alone writing standard output and files;
-- any other command runs on rank 0 alone while the other ranks end at once. A failure
-- gives one message (the lowest failing rank's) and the same exit code on every rank.
function M.main(argv)
  local par = require "retrace.par"
  local name = argv[1]
  local cmd, err
  if name then cmd, err = M.load(name) end
  local many = par.size() > 1
  if many and not (cmd and cmd.parallel) then
    if par.rank() ~= 0 then return M.EXIT_OK end
    par.mark_settled() -- the other ranks are done: a failure here needs no agreement
    par.solo(true)     -- and what the command opens is read by this rank alone
  elseif many and not par.speaks() then
    par.silence()
  end
  local code, text = run(name, cmd, err, argv)
  if many and cmd and cmd.parallel then
    local agreed, speak = par.settle(code, text ~= nil, code ~= 0 and M.PAR_PATIENCE or -1)
    if not agreed then -- another rank waits in a collective: this one ends the job
      if text then io.stderr:write(text) end
      io.stderr:flush()
      par.abort(code)
    end
    if speak then io.stderr:write(text) end
    return agreed
  end
  if text then io.stderr:write(text) end
  return code
end

--- "32768", "32k", "32K", "32KB", "32kb", "32KiB", "1M", "1MiB", "1G" -> bytes (K, M, G:
-- powers of 1024, in any case, with or without B / iB); nil when malformed.
function M.parse_bytes(s)
  local n, unit = tostring(s):match("^(%d+)%s*(%a*)$")
  if not n then return nil end
  local mult = ({ [""] = 1, b = 1, k = 1024, kb = 1024, kib = 1024,
                  m = 1 << 20, mb = 1 << 20, mib = 1 << 20,
                  g = 1 << 30, gb = 1 << 30, gib = 1 << 30 })[unit:lower()]
  if not mult then return nil end
  return math.tointeger(tonumber(n) * mult)
end

--- A whole number with commas between thousands: 1234567 -> "1,234,567".
function M.count(n)
  return (tostring(n):reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""):gsub("^%-,", "-"))
end

-- lua-cjson 2.1.0 cannot tell an empty array from an empty object and writes
-- both as {}. M.array puts this mark in place of an empty list; M.json writes
-- the mark as [].
local EMPTY_ARRAY = "\0retrace-empty-array\0"
local EMPTY_ARRAY_JSON = '"\\u0000retrace%-empty%-array\\u0000"'

--- t itself, or, when t is empty, a mark that M.json and M.print_json write as
-- [] (for a list that must stay a JSON array). The mark is for encoding only:
-- put it in the value handed to M.json, not in data still to be used in Lua.
function M.array(t)
  if next(t) == nil then return EMPTY_ARRAY end
  return t
end

--- v as JSON text (retrace.json: lua-cjson's values, objects' keys sorted, so a
-- run's output is the same bytes every time), with lists marked by M.array
-- written as arrays.
function M.json(v)
  local text = require("retrace.json").encode(v)
  -- a plain search for the marks: a pattern gsub over a 100 MB document of a
  -- million-symbol sequence took most of a second
  local mark = EMPTY_ARRAY_JSON:gsub("%%", "")
  local at = text:find(mark, 1, true)
  if not at then return text end
  local parts, from = {}, 1
  while at do
    parts[#parts + 1] = text:sub(from, at - 1)
    parts[#parts + 1] = "[]"
    from = at + #mark
    at = text:find(mark, from, true)
  end
  parts[#parts + 1] = text:sub(from)
  return table.concat(parts)
end

--- A warning on stderr, "retrace: warning: msg", from rank 0 alone in an MPI job (warnings of
-- the other ranks' shares reach rank 0 with their results).
function M.warning(msg)
  if require("retrace.par").speaks() then io.stderr:write("retrace: warning: ", msg, "\n") end
end

--- Print a value as JSON on stdout (M.json, then a newline).
function M.print_json(v)
  io.stdout:write(M.json(v), "\n")
end

--- A progress bar on stderr, shown only when stderr is a terminal (and not when
-- RETRACE_NO_PROGRESS is set), by rank 0 alone in an MPI job. bar:update(done) / bar:finish().
function M.progress(label, total)
  local tty = os.getenv("RETRACE_NO_PROGRESS") == nil and M.isatty_stderr() and require("retrace.par").speaks()
  local bar = { label = label, total = total or 0, last = -1 }
  function bar.update(self, done)
    if not tty or self.total <= 0 then return end
    local pct = math.floor(100 * done / self.total)
    if pct == self.last then return end
    self.last = pct
    local width = 30
    local fill = math.floor(width * done / self.total)
    io.stderr:write(string.format("\r%s [%s%s] %3d%%", self.label,
      string.rep("#", fill), string.rep(".", width - fill), pct))
  end
  function bar.finish(self)
    if tty and self.last >= 0 then io.stderr:write("\n") end
  end
  return bar
end

--- Is stderr a terminal?
function M.isatty_stderr()
  local core = require "retrace.core"
  return core.util.isatty and core.util.isatty(2) or false
end

return M
