-- retrace render SCRIPT.lua: run a display script into a folder of frames
-- (and a PDF, an MP4, an HTML player on request).
--
-- The script returns either a function draw(cv, i, n) or a table
--   { width = 800, height = 600, frames = 30, fps = 10, title = "...", background = "white",
--     setup = function(args) ... end,   -- optional; args: the words after the script name
--     draw = function(cv, i, n) ... end }
-- draw paints frame i of n on a canvas cleared to the background.
local cli = require "retrace.cli"
local frames = require "retrace.frames"

-- First line of an error, without the traceback the host adds.
local function one_line(err)
  return (tostring(err):match("^[^\n]*"))
end

local function load_script(path, script_args)
  local chunk, err = loadfile(path)
  if not chunk then cli.input_error(one_line(err)) end
  local ok, spec = pcall(chunk, table.unpack(script_args))
  if not ok then cli.input_error(one_line(spec)) end
  if type(spec) == "function" then spec = { draw = spec } end
  if type(spec) ~= "table" or type(spec.draw) ~= "function" then
    cli.input_error(path .. ": a render script must return a draw function or a table with draw")
  end
  return spec
end

local function parse_size(s)
  local w, h = s:match("^(%-?%d+)x(%-?%d+)$")
  w, h = math.tointeger(tonumber(w)), math.tointeger(tonumber(h))
  if not w or w < 1 or h < 1 or w > 32767 or h > 32767 then
    cli.usage_error("--size " .. s .. ": use WIDTHxHEIGHT with both 1 to 32767 (e.g. 800x600)")
  end
  return w, h
end

return {
  summary = "run a display script into numbered PNG frames (PDF, MP4, HTML player)",
  parser = function(p)
    p:argument("script", "display script (returns draw(cv, i, n) or {draw = ..., ...})")
    p:argument("args", "arguments for the script's setup"):args("*")
    p:option("-o --output", "frames folder (default: NAME-frames here, for NAME.lua)")
    p:option("-n --frames", "number of frames (default: the script's, else 1)"):convert(tonumber)
    p:option("--size", "frame size WIDTHxHEIGHT (default: the script's, else 800x600)")
    p:option("--fps", "frames per second for the player and the MP4"):convert(tonumber)
    p:option("--pdf", "also draw every frame as a page of this PDF")
    p:option("--mp4", "also make this MP4 with ffmpeg (when installed)")
    p:option("--svg", "also draw the last frame as this SVG")
    p:option("--threads", "PNG encoder threads (default: one per core)"):convert(tonumber)
    p:flag("--html", "write index.html, a player that opens from the file system")
    p:flag("--json", "print the result as JSON")
  end,
  run = function(args)
    local spec = load_script(args.script, args.args)
    local n = args.frames or spec.frames or 1
    if math.type(n) ~= "integer" and not (type(n) == "number" and n == math.floor(n)) or n < 1 then
      cli.usage_error("--frames " .. tostring(n) .. ": must be a positive whole number")
    end
    n = math.tointeger(n)
    local w, h
    if args.size then
      w, h = parse_size(args.size)
    else
      w, h = spec.width or 800, spec.height or 600
    end
    local fps = args.fps or spec.fps or 10
    if fps <= 0 then cli.usage_error("--fps " .. tostring(fps) .. ": must be positive") end
    if args.threads and (args.threads < 1 or args.threads > 64) then
      cli.usage_error("--threads " .. tostring(args.threads) .. ": must be 1 to 64")
    end
    local dir = args.output or ((args.script:match("([^/]+)$"):gsub("%.lua$", "")) .. "-frames")
    if spec.setup then
      local ok, err = pcall(spec.setup, args.args)
      if not ok then cli.input_error(one_line(err)) end
    end
    local ok, fw, err = pcall(frames.writer, dir, {
      width = w, height = h, fps = fps, pdf = args.pdf, threads = args.threads,
      background = spec.background, progress = cli.progress("render", n), title = spec.title or args.script,
    })
    if not ok then cli.input_error(one_line(fw)) end
    if not fw then cli.input_error(err) end
    local okd, derr = pcall(function()
      for i = 1, n do
        fw:frame(function(cv) spec.draw(cv, i, n) end)
      end
    end)
    if not okd then
      fw:abort()
      if cli.interrupted(derr) then error(derr, 0) end -- exit 130, one line
      cli.input_error(one_line(derr))
    end
    local okf, result = pcall(fw.finish, fw, { html = args.html, mp4 = args.mp4 })
    if not okf then
      if cli.interrupted(result) then error(result, 0) end
      cli.input_error(one_line(result))
    end
    if args.svg then
      local canvas = require "retrace.canvas"
      local svg, serr = canvas.svg(args.svg, w, h)
      if not svg then cli.input_error(serr) end
      local oks, e = pcall(function()
        svg:background(spec.background or "white")
        spec.draw(svg, n, n)
      end)
      if not oks then cli.input_error(one_line(e)) end
      local okw, werr = svg:finish()
      if not okw then cli.input_error(args.svg .. ": " .. werr) end
      result.svg = args.svg
    end
    -- a frame drawing more marks than it has pixels is slow for nothing: say so, and how to batch
    local most, at = 0, 0
    for i, k in ipairs(result.primitives) do
      if k > most then most, at = k, i end
    end
    if most > w * h then
      io.stderr:write(("retrace: %s: frame %d drew %d marks on %d pixels; draw many lines or boxes in one "
        .. "call (cv:segments, cv:rects, cv:path with a pack) to make it faster\n"):format(args.script, at, most, w * h))
    end
    if args.json then
      cli.print_json({ frames = result.frames, dir = result.dir, pdf = result.pdf,
        html = result.html, mp4 = result.mp4, svg = result.svg, errors = result.errors,
        width = w, height = h, fps = fps, files = result.files,
        primitives = cli.array(result.primitives), max_primitives = most })
    else
      io.stdout:write(string.format("%d frames (%d x %d) in %s/", result.frames, w, h, result.dir))
      if result.pdf then io.stdout:write(", PDF ", result.pdf) end
      if result.html then io.stdout:write(", player ", result.html) end
      if result.mp4 then io.stdout:write(", MP4 ", result.mp4) end
      if result.svg then io.stdout:write(", SVG ", result.svg) end
      io.stdout:write("\n")
    end
    if #result.errors > 0 then cli.input_error(table.concat(result.errors, "; ")) end
    return 0
  end,
}
