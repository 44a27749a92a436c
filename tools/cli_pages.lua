-- Generate, from the commands' own help, a man page per command and the bash
-- completion of `retrace` (run by the build: `retrace tools/cli_pages.lua OUT RETRACE`).
--   OUT/man/man1/retrace.1, OUT/man/man1/retrace-COMMAND.1
--   OUT/bash-completion/completions/retrace
-- RETRACE is the program, whose --help gives the main page's synopsis.
local cli = require "retrace.cli"
local retrace = require "retrace"

local out, program = arg[1], arg[2]
if not out or not program then
  io.stderr:write("usage: retrace tools/cli_pages.lua OUTDIR RETRACE\n")
  os.exit(2)
end

local function mkdirs(path)
  local lfs = require "lfs"
  local at = ""
  for part in path:gmatch("[^/]+") do
    at = (at == "" and path:sub(1, 1) == "/") and ("/" .. part) or (at == "" and part or (at .. "/" .. part))
    if not lfs.attributes(at, "mode") then assert(lfs.mkdir(at)) end
  end
end

-- Write a file whole: a temporary beside it, renamed over it.
local function write(path, text)
  local f = assert(io.open(path .. ".tmp", "wb"))
  f:write(text)
  f:close()
  assert(os.rename(path .. ".tmp", path))
end

-- ---------------------------------------------------------------- man pages

-- Text for roff: backslashes escaped, hyphens as minus signs, no line starting with '.' or "'".
local function roff(s)
  s = s:gsub("\\", "\\e"):gsub("%-", "\\-")
  return (s:gsub("^([.'])", "\\&%1"):gsub("\n([.'])", "\n\\&%1"))
end

-- argparse's help text split into usage lines, description paragraphs and sections
-- ("Arguments", "Options", "Commands") of {label, text} entries.
local function parse_help(text)
  local usage, paras, sections = {}, {}, {}
  local state, cur, entry = "usage", nil, nil
  local para = {}
  local function end_para()
    if #para > 0 then paras[#paras + 1] = table.concat(para, " ") end
    para = {}
  end
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if state == "usage" then
      if line == "" then state = "desc" else usage[#usage + 1] = (line:gsub("^Usage: ", "")) end
    elseif line:match("^%u[%a ]*:$") then
      end_para()
      cur = { title = line:sub(1, -2), entries = {} }
      sections[#sections + 1] = cur
      state, entry = "section", nil
    elseif state == "desc" then
      if line == "" then end_para() else para[#para + 1] = line end
    elseif line ~= "" then
      local label, desc = line:match("^   (%S.-)%s%s+(%S.*)$")
      if not label and line:match("^   %S") then label, desc = line:match("^   (.-)%s*$"), "" end
      if label then
        entry = { label = label, text = desc }
        cur.entries[#cur.entries + 1] = entry
      elseif entry then
        entry.text = (entry.text == "" and "" or (entry.text .. " ")) .. line:match("^%s*(.-)%s*$")
      end
    end
  end
  end_para()
  return usage, paras, sections
end

-- The roff of one parser's help: synopsis, description, sections. The command's own
-- (top) help gets sections DESCRIPTION, ARGUMENTS, OPTIONS...; a subcommand's sits
-- under its heading with bold titles.
local function help_roff(p, heading, top)
  local usage, paras, sections = parse_help(p:get_help())
  local o = {}
  o[#o + 1] = heading
  o[#o + 1] = ".nf"
  for _, u in ipairs(usage) do o[#o + 1] = roff((u:gsub("^%s+", "    "))) end
  o[#o + 1] = ".fi"
  if top and #paras > 0 then o[#o + 1] = ".SH DESCRIPTION" end
  for _, para in ipairs(paras) do
    o[#o + 1] = ".PP"
    o[#o + 1] = roff(para)
  end
  for _, s in ipairs(sections) do
    if top then
      o[#o + 1] = ".SH " .. roff(s.title:upper())
    else
      o[#o + 1] = ".PP"
      o[#o + 1] = ".B " .. roff(s.title)
    end
    for _, e in ipairs(s.entries) do
      o[#o + 1] = ".TP"
      o[#o + 1] = ".B " .. roff(e.label)
      o[#o + 1] = roff(e.text)
    end
  end
  return table.concat(o, "\n")
end

local TH = '.TH "%s" 1 "" "retrace %s" "retrace manual"'

local function command_page(name, cmd)
  local p = cli.parser(name, cmd)
  local o = {
    string.format(TH, ("RETRACE-" .. name):upper(), retrace.version),
    ".SH NAME",
    roff("retrace-" .. name) .. " \\- " .. roff(cmd.summary or ""),
    help_roff(p, ".SH SYNOPSIS", true),
  }
  for _, sub in ipairs(p._commands or {}) do
    o[#o + 1] = help_roff(sub, ".SH " .. roff(("retrace " .. name .. " " .. sub._name):upper()))
  end
  o[#o + 1] = ".SH SEE ALSO"
  o[#o + 1] = ".BR retrace (1)"
  return table.concat(o, "\n") .. "\n"
end

local function main_page(names, helpcmd)
  local f = assert(io.popen("'" .. program:gsub("'", "'\\''") .. "' --help"))
  local text = f:read("a")
  f:close()
  local o = {
    string.format(TH, "RETRACE", retrace.version),
    ".SH NAME",
    "retrace \\- analyse and picture program traces",
    ".SH SYNOPSIS",
    ".nf",
  }
  local rest = {}
  for line in text:gmatch("[^\n]+") do
    local u = line:match("^usage: (.*)$")
    if u then o[#o + 1] = roff(u) else rest[#rest + 1] = line end
  end
  o[#o + 1] = ".fi"
  o[#o + 1] = ".SH OPTIONS"
  o[#o + 1] = ".nf"
  for _, l in ipairs(rest) do o[#o + 1] = roff(l) end
  o[#o + 1] = ".fi"
  o[#o + 1] = ".SH COMMANDS"
  o[#o + 1] = "Each command has its page, and prints its help with"
  o[#o + 1] = ".BR \"retrace COMMAND \\-\\-help\" ."
  for _, n in ipairs(names) do
    local cmd = cli.load(n)
    o[#o + 1] = ".TP"
    o[#o + 1] = ".BR retrace\\-" .. roff(n) .. " (1)"
    o[#o + 1] = roff(cmd and cmd.summary or "")
  end
  o[#o + 1] = ".SH ENVIRONMENT"
  for _, e in ipairs(helpcmd.environment) do
    o[#o + 1] = ".TP"
    o[#o + 1] = ".B " .. roff(e[1])
    o[#o + 1] = roff(e[2])
  end
  o[#o + 1] = ".SH FILES"
  o[#o + 1] = ".TP"
  o[#o + 1] = ".I ~/.config/retrace/scripts/NAME.lua"
  o[#o + 1] = roff("your own command, run as `retrace NAME` (a folder of $RETRACE_PATH is searched first)")
  o[#o + 1] = ".TP"
  o[#o + 1] = ".I ~/.config/retrace/policies/NAME.lua"
  o[#o + 1] = roff("your own cache policy, given as `retrace cache --policy NAME`")
  return table.concat(o, "\n") .. "\n"
end

-- ---------------------------------------------------------------- bash completion

-- Options of a parser: every alias, and the choices of those that have some.
local function options_of(p)
  local words, choices = {}, {}
  for _, o in ipairs(p._options or {}) do
    if not o._hidden then
      for _, a in ipairs(o._aliases or {}) do
        words[#words + 1] = a
        if o._choices then choices[a] = table.concat(o._choices, " ") end
      end
    end
  end
  return words, choices
end

local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The case arms completing one parser's words: options after '-', an option's choices
-- after it, subcommand names, else file names.
local function completion_arm(p)
  local words, choices = options_of(p)
  local o = {}
  o[#o + 1] = "      opts=" .. shq(table.concat(words, " "))
  local subs = {}
  for _, s in ipairs(p._commands or {}) do subs[#subs + 1] = s._name end
  o[#o + 1] = "      subs=" .. shq(table.concat(subs, " "))
  local arms = {}
  for a, c in pairs(choices) do arms[#arms + 1] = "        " .. a .. ") choices=" .. shq(c) .. " ;;" end
  table.sort(arms)
  if #arms > 0 then
    o[#o + 1] = '      case "$prev" in'
    for _, a in ipairs(arms) do o[#o + 1] = a end
    o[#o + 1] = "      esac"
  end
  return table.concat(o, "\n")
end

local function completion(names)
  local o = {
    "# bash completion of retrace (generated from the commands' help by tools/cli_pages.lua)",
    "_retrace() {",
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
    "  local opts='' subs='' choices='' key=''",
    "  COMPREPLY=()",
    "  if [ \"$COMP_CWORD\" -eq 1 ]; then",
    "    COMPREPLY=( $(compgen -W " .. shq(table.concat(names, " ") .. " -e -i -h --help -v --version")
      .. ' -- "$cur") $(compgen -f -X \'!*.lua\' -- "$cur") )',
    "    return",
    "  fi",
    "  key=${COMP_WORDS[1]}",
    "  # a subcommand (retrace picl dump) completes as its own command",
    "  if [ \"$COMP_CWORD\" -gt 2 ]; then key=\"$key ${COMP_WORDS[2]}\"; fi",
    '  case "$key" in',
  }
  for _, n in ipairs(names) do
    local cmd = cli.load(n)
    if cmd then
      local p = cli.parser(n, cmd)
      for _, s in ipairs(p._commands or {}) do
        o[#o + 1] = "    " .. shq(n .. " " .. s._name) .. ")"
        o[#o + 1] = completion_arm(s)
        o[#o + 1] = "      ;;"
      end
      o[#o + 1] = "    " .. shq(n) .. "|" .. shq(n) .. "\\ *)"
      o[#o + 1] = completion_arm(p)
      o[#o + 1] = "      ;;"
    end
  end
  o[#o + 1] = "  esac"
  o[#o + 1] = '  if [ -n "$choices" ]; then COMPREPLY=( $(compgen -W "$choices" -- "$cur") ); return; fi'
  o[#o + 1] = '  if [[ "$cur" == -* ]]; then COMPREPLY=( $(compgen -W "$opts" -- "$cur") ); return; fi'
  o[#o + 1] = '  if [ -n "$subs" ] && [ "$COMP_CWORD" -eq 2 ]; then COMPREPLY=( $(compgen -W "$subs" -- "$cur") ); return; fi'
  o[#o + 1] = '  COMPREPLY=( $(compgen -f -- "$cur") )'
  o[#o + 1] = "}"
  o[#o + 1] = "complete -o filenames -o bashdefault -F _retrace retrace"
  return table.concat(o, "\n") .. "\n"
end

-- ---------------------------------------------------------------- main

-- the shipped commands only (not a user's folder of the machine that builds)
local lfs = require "lfs"
local names = {}
for f in lfs.dir(retrace.root .. "/scripts") do
  local n = f:match("^([%w_%-]+)%.lua$")
  if n then names[#names + 1] = n end
end
table.sort(names)

local mandir = out .. "/man/man1"
local compdir = out .. "/bash-completion/completions"
mkdirs(mandir)
mkdirs(compdir)
for _, n in ipairs(names) do
  local cmd, err = cli.load(n)
  if not cmd then error(err) end
  write(mandir .. "/retrace-" .. n .. ".1", command_page(n, cmd))
end
write(mandir .. "/retrace.1", main_page(names, cli.load("help")))
write(compdir .. "/retrace", completion(names))
