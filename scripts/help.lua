-- retrace help [COMMAND [SUBCOMMAND]] | help env: list the commands, show the help of
-- one (or of one of its subcommands: `retrace help picl dump`), or list the environment
-- variables retrace reads.
local cli = require "retrace.cli"

--- The environment variables retrace reads: {name, what}, in the order shown.
local ENVIRONMENT = {
  { "RETRACE_PATH", "colon-separated folders of your own commands (FOLDER/scripts/NAME.lua, run as "
    .. "`retrace NAME`) and cache policies (FOLDER/policies/NAME.lua, given as `--policy NAME`); "
    .. "searched before $XDG_CONFIG_HOME/retrace (~/.config/retrace), then what ships" },
  { "RETRACE_HOME", "the folder holding retrace's lua/, scripts/ and displays/ (default: "
    .. "share/retrace beside the program's bin/)" },
  { "RETRACE_HISTORY", "the REPL's history file (default ~/.retrace_history)" },
  { "RETRACE_NO_PROGRESS", "when set, no progress bars on standard error" },
  { "RETRACE_PAR_DEBUG", "when set under mpirun, each rank says on standard error when a Pajé trace "
    .. "it cannot read in byte ranges is read by rank 0 instead" },
  { "RETRACE_READ_AHEAD", "0: read a din trace on the simulating thread (by default a regular din file "
    .. "is parsed ahead on a second thread)" },
  { "RETRACE_FORMATS", "the folder of MEDEA's named parameter sets (default "
    .. "$XDG_CONFIG_HOME/retrace/medea-formats)" },
  { "XDG_CONFIG_HOME", "where the user folder lies (default ~/.config): retrace/scripts, "
    .. "retrace/policies, retrace/medea-formats" },
  { "XDG_CACHE_HOME", "where `retrace view` keeps its trace indexes (default ~/.cache/retrace)" },
  { "RETRACE_ALLOC_LIB", "the allocation interposer `retrace capture` preloads (default: "
    .. "lib/retrace/libretrace_alloc.so of the install)" },
  { "RETRACE_VALGRIND", "the valgrind program `retrace capture` runs (default: valgrind on PATH)" },
  { "RETRACE_VALGRIND_LIB", "the folder of retrace's valgrind tool (default: lib/retrace/valgrind)" },
  { "RETRACE_MPI_LIB", "libretrace-mpi.so for `retrace capture --mpi` (default: lib/retrace/)" },
  { "RETRACE_MPI_ARCHIVE", "libretrace-mpi: the folder of the OTF2 archive it writes" },
  { "RETRACE_MPI_FUNCTIONS", "libretrace-mpi: comma-separated MPI functions to record (default: all)" },
  { "RETRACE_MPI_STATS", "libretrace-mpi: when set, each rank prints its event counts at the end" },
  { "RETRACE_BLAS_LIB", "libretrace_blas.so for `retrace shmap --blas` (default: lib/retrace/)" },
  { "RETRACE_BLAS_TRACE", "libretrace_blas: the SHMAP trace file it writes" },
}

-- The words of a paragraph wrapped to `width` columns after `indent` spaces.
local function wrap(text, indent, width)
  local lines, line = {}, ""
  for word in text:gmatch("%S+") do
    if #line > 0 and indent + #line + 1 + #word > width then
      lines[#lines + 1] = string.rep(" ", indent) .. line
      line = word
    else
      line = #line > 0 and (line .. " " .. word) or word
    end
  end
  if #line > 0 then lines[#lines + 1] = string.rep(" ", indent) .. line end
  return table.concat(lines, "\n")
end

local function environment_text()
  local out = { "environment variables retrace reads:" }
  for _, e in ipairs(ENVIRONMENT) do
    out[#out + 1] = "  " .. e[1]
    out[#out + 1] = wrap(e[2], 6, 88)
  end
  return table.concat(out, "\n")
end

--- The argparse parser of `retrace NAME [SUB...]`, or nil and a message (exit 2).
local function find_parser(words)
  local cmd, err = cli.load(words[1])
  if not cmd then return nil, err end
  local p = cli.parser(words[1], cmd)
  for i = 2, #words do
    local found
    for _, c in ipairs(p._commands or {}) do
      for _, alias in ipairs(c._aliases or { c._name }) do
        if alias == words[i] then found = c end
      end
    end
    if not found then
      local names = {}
      for _, c in ipairs(p._commands or {}) do names[#names + 1] = c._name end
      return nil, string.format("'retrace %s' has no subcommand '%s'%s", table.concat(words, " ", 1, i - 1),
        words[i], #names > 0 and ("; subcommands: " .. table.concat(names, ", ")) or "")
    end
    p = found
  end
  return p
end

return {
  summary = "list the commands, show the help of one (or of a subcommand), or `help env`",
  description = "Without arguments, list the commands. `retrace help COMMAND` is `retrace COMMAND --help`; "
    .. "`retrace help picl dump` shows a subcommand's help; `retrace help env` lists the environment "
    .. "variables retrace reads.",
  environment = ENVIRONMENT,
  environment_text = environment_text,
  find_parser = find_parser,
  parser = function(p)
    p:argument("command", "command (and subcommand) to describe, or env"):args("*")
  end,
  run = function(args)
    local words = args.command
    if #words == 1 and words[1] == "env" then
      io.stdout:write(environment_text(), "\n")
      return 0
    end
    if #words > 0 then
      local p, err = find_parser(words)
      if not p then cli.usage_error(err) end
      io.stdout:write(p:get_help(), "\n")
      return 0
    end
    io.stdout:write("usage: retrace COMMAND [options] FILES   (retrace COMMAND --help for details)\n",
      "       retrace [FILE.lua [args] | -e CODE | -i]   (scripts and the REPL; retrace --help)\n\n",
      "commands:\n")
    for _, name in ipairs(cli.commands()) do
      local cmd = cli.load(name)
      io.stdout:write(string.format("  %-10s %s\n", name, cmd and cmd.summary or "(does not load)"))
    end
    io.stdout:write("\n`retrace help env` lists the environment variables; your own commands go in "
      .. "~/.config/retrace/scripts (or a folder of $RETRACE_PATH).\n")
    return 0
  end,
}
