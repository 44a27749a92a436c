-- retrace help [COMMAND]: list the commands, or show one command's help.
local cli = require "retrace.cli"

return {
  summary = "list the commands, or show the help of one",
  parser = function(p)
    p:argument("command", "command to describe"):args("?")
  end,
  run = function(args)
    if args.command then
      local cmd, err = cli.load(args.command)
      if not cmd then cli.usage_error(err) end
      io.stdout:write(cli.parser(args.command, cmd):get_help(), "\n")
      return 0
    end
    io.stdout:write("usage: retrace COMMAND [options] FILES   (retrace COMMAND --help for details)\n",
      "       retrace [FILE.lua [args] | -e CODE | -i]   (scripts and the REPL; retrace --help)\n\n",
      "commands:\n")
    for _, name in ipairs(cli.commands()) do
      local cmd = cli.load(name)
      io.stdout:write(string.format("  %-10s %s\n", name, cmd and cmd.summary or "(does not load)"))
    end
    return 0
  end,
}
