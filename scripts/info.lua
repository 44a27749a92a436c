-- retrace info FILES: what each trace file is (format, size, lines).
local cli = require "retrace.cli"
local formats = require "retrace.formats"
local core = require "retrace.core"

return {
  summary = "recognise trace files and report their format and size",
  parser = function(p)
    p:argument("files", "trace files"):args("+")
    p:flag("--json", "print JSON on stdout")
  end,
  run = function(args)
    local out = {}
    for _, path in ipairs(args.files) do
      local fmt, why = formats.detect(path)
      if not fmt then cli.input_error(why) end
      local lines, bytes = core.util.count_lines(path)
      if not lines then cli.input_error(bytes) end
      out[#out + 1] = { file = path, format = fmt, description = formats.descriptions[fmt],
                        lines = lines, bytes = bytes, evidence = why }
    end
    if args.json then
      cli.print_json(out)
    else
      for _, r in ipairs(out) do
        io.stdout:write(string.format("%s: %s (%s)\n  %d lines, %d bytes; %s\n",
          r.file, r.format, r.description, r.lines, r.bytes, r.evidence))
      end
    end
    return 0
  end,
}
