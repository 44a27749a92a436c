--- retrace.frames: numbered animation frames, encoded on a pool of threads.
--
--   local frames = require "retrace.frames"
--   local fw = assert(frames.writer("out", {width = 800, height = 600, fps = 10,
--                                           pdf = "out.pdf"}))
--   for i = 1, 100 do fw:frame(function(cv, i) ... end) end
--   local result = fw:finish({html = true, mp4 = "out.mp4"})
--
-- Each frame is drawn on one reusable image canvas and handed to the encoder,
-- which copies its pixels and writes out/frame_000001.png ... on worker threads
-- while the next frame is drawn. With `pdf`, every frame is also drawn as a
-- vector page of one PDF. finish() waits for the PNGs and then, on request,
-- writes a static HTML player (index.html beside the frames, no server needed)
-- and an MP4 through ffmpeg (run without a shell; when ffmpeg is missing the
-- result says so in result.errors).
--
-- A run owns its folder: it holds a lock on DIR/.retrace.lock while it writes (a
-- second run on the same folder stops with "in use by another retrace run"), and
-- it first removes what an earlier run wrote there (frame_NNNNNN.png, retrace's
-- index.html player, the hidden temporaries of an interrupted run), so the
-- folder, the player and the MP4 always show this run's frames. Other files are
-- left alone. Each PNG is written whole (a temporary renamed when complete).
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"
local fcore = require("retrace.core").frames
local fs = require "retrace.fs"

local M = {}

M.pattern = "frame_%06d.png"

local Writer = {}
Writer.__index = Writer

-- A retrace player page: the marker its template carries.
local function is_player(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local head = f:read(4096) or ""
  f:close()
  return head:find("Written by retrace", 1, true) ~= nil
end

--- Remove from dir what an earlier frame run left: its frames, its player page and
-- the temporaries of an interrupted run. Returns true, or nil and "PATH: reason".
function M.clean(dir)
  local lfs = require "lfs"
  for name in lfs.dir(dir) do
    local path = dir .. "/" .. name
    local stale = name:match("^frame_%d+%.png$") or name:match("^%..+%.%d+%-%d+%.part$")
      or (name == "index.html" and is_player(path))
    if stale then
      local ok, err = os.remove(path)
      if not ok then return nil, err end
    end
  end
  return true
end

--- Open a frame writer on folder `dir` (created when missing).
-- opts: width, height (required), background (default "white"), fps (10),
-- pdf (path of a multi-page PDF to draw alongside), threads (0: one per core),
-- level (zlib level, 1), title (HTML page title), progress (an object with
-- progress:update(frames_done) and progress:finish(), such as a command's
-- cli.progress bar; the library draws no bar of its own).
-- Returns the writer, or nil and a one-line message (unwritable folder, ...).
function M.writer(dir, opts)
  opts = opts or {}
  local w, h = opts.width, opts.height
  if math.type(w) ~= "integer" or math.type(h) ~= "integer" or w < 1 or h < 1 then
    error(string.format("frame size: %s x %s, width and height must be positive integers",
      tostring(w), tostring(h)), 2)
  end
  if opts.progress ~= nil and (type(opts.progress) ~= "table" or type(opts.progress.update) ~= "function") then
    error("frames.writer: progress must be an object with an update method", 2)
  end
  local ok, err = fs.mkdir_p(dir)
  if not ok then return nil, err end
  -- the lock also finds out now, not after drawing, whether the folder takes files
  local lock, lerr = require("retrace.core").util.lock(dir .. "/.retrace.lock")
  if not lock then
    if lerr:match("in use") then return nil, dir .. ": " .. lerr:match(": (in use.*)$") end
    return nil, dir .. ": cannot write frames: " .. (lerr:match(": ([^:]+)$") or lerr)
  end
  local cok, cerr = M.clean(dir)
  if not cok then
    lock:unlock()
    return nil, cerr
  end
  local self = setmetatable({
    dir = dir, width = w, height = h, fps = opts.fps or 10,
    background = opts.background or "white", title = opts.title or dir,
    count = 0, files = {}, primitives = {}, -- per frame drawn by frame(): marks on the canvas
    lock = lock,
  }, Writer)
  colors.parse(self.background, 2)
  self.cv = canvas.image(w, h)
  self.encoder = fcore.encoder(opts.threads or 0, 0, opts.level or 1)
  if opts.pdf then
    local pdf, perr = canvas.pdf(opts.pdf, w, h)
    if not pdf then
      self.encoder:close()
      return nil, perr
    end
    self.pdf, self.pdf_path = pdf, opts.pdf
  end
  self.progress = opts.progress
  return self
end

--- The path of frame i (1-based).
function Writer:path(i)
  return self.dir .. "/" .. string.format(M.pattern, i)
end

-- A frame that could not be written (a full disk): an error object with exit 1, the
-- convention commands use for bad input or output, so the run ends with one line.
-- (tostring gives the message, for callers that catch it with pcall).
local failure_mt = { __tostring = function(e) return e.message end }
local function write_failed(err)
  error(setmetatable({ exit = 1, message = err }, failure_mt), 0)
end

-- Queue the pixels of image canvas cv as the next PNG.
local function submit(self, cv)
  local i = self.count + 1
  local ok, err = self.encoder:submit(cv, self:path(i))
  if not ok then write_failed(err) end
  self.count = i
  self.files[i] = string.format(M.pattern, i)
  if self.progress then self.progress:update(i) end
  return i
end

-- Draw frame i on cv; returns the marks it drew (fills, strokes, texts, grid and pack items).
local function draw_on(cv, draw, i, background)
  cv:save()
  if background then cv:background(background) end
  local before = cv:primitives()
  local ok, err = pcall(draw, cv, i)
  local drawn = cv:primitives() - before
  cv:restore()
  if not ok then error(err, 0) end
  return drawn
end

--- Draw frame number count+1 with draw(cv, i) on a canvas cleared to the
-- background and queue its PNG. draw is called once per frame: when a PDF is
-- being written it draws on a recording that is played onto the image and onto
-- a new vector page. Raises on a write error (unwritable disk, ...), naming the file.
function Writer:frame(draw)
  local i = self.count + 1
  if not self.pdf then
    self.primitives[i] = draw_on(self.cv, draw, i, self.background)
    return submit(self, self.cv)
  end
  local rec = canvas.recording(self.width, self.height)
  self.primitives[i] = draw_on(rec, draw, i, self.background)
  self.cv:save()
  self.cv:clear(0, 0, 0, 0)
  self.cv:replay(rec)
  self.cv:restore()
  submit(self, self.cv)
  self.pdf:replay(rec)
  self.pdf:show_page()
  rec:finish()
  return i
end

--- Queue an already drawn image canvas as the next frame (a PDF being written
-- gets the frame's pixels as its page).
function Writer:add(cv)
  local i = submit(self, cv)
  if self.pdf then
    -- pixels as a page: not vector, but the same picture
    self.pdf:draw_image(cv, 0, 0)
    self.pdf:show_page()
  end
  return i
end

local function html_escape(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

--- Write index.html: the player for the frames in this folder.
function Writer:write_html()
  local cjson = require "cjson"
  local root = require("retrace").root
  local tf = assert(io.open(root .. "/lua/retrace/player.html", "rb"))
  local template = tf:read("a")
  tf:close()
  local page = template:gsub("{{(%u+)}}", {
    TITLE = html_escape(self.title),
    FRAMES = cjson.encode(self.files):gsub("\\/", "/"),
    FPS = tostring(math.max(1, math.min(60, math.floor(self.fps)))),
  })
  local path = self.dir .. "/index.html"
  local ok, err = fs.write_file(path, page)
  if not ok then return nil, err end
  return path
end

--- Make an MP4 of the frames with ffmpeg. Returns the path, or nil and a message
-- ("ffmpeg not found on PATH: ..." when it is not installed).
function Writer:write_mp4(path)
  if self.count == 0 then return nil, path .. ": no frames to encode" end
  local argv = {
    "ffmpeg", "-y", "-loglevel", "error", "-framerate", tostring(self.fps),
    "-i", self.dir .. "/" .. M.pattern, "-frames:v", tostring(self.count), -- not older frames left in the folder
    "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", path,
  }
  local code, err = fcore.run(argv)
  if not code then
    if err:match("not found on PATH") then
      return nil, "ffmpeg not found on PATH: " .. path ..
        " not made (install ffmpeg; the PNG frames are in " .. self.dir .. ")"
    end
    return nil, err
  end
  if code ~= 0 then return nil, path .. ": ffmpeg failed with exit code " .. code end
  return path
end

--- Wait for every frame, close the PDF, and make what opts asks for:
-- html = true (index.html), mp4 = path. Returns a result table
-- {frames, dir, files, pdf, html, mp4, errors = {...}}; errors lists what could
-- not be made (each a one-line message). Raises on a PNG write error.
--- End a run that failed or was interrupted: the frames queued are written (each
-- PNG whole), the lock goes, and the PDF being drawn is dropped, not finished, so
-- no complete-looking PDF is left. Errors while ending are ignored.
function Writer:abort()
  pcall(self.encoder.wait, self.encoder)
  pcall(self.encoder.close, self.encoder)
  pcall(self.lock.unlock, self.lock)
  if self.progress and self.progress.finish then pcall(self.progress.finish, self.progress) end
  if self.pdf then
    -- a vector canvas collected unfinished drops its output (the temporary is removed)
    self.pdf, self.pdf_path = nil, nil
    collectgarbage()
  end
end

function Writer:finish(opts)
  opts = opts or {}
  local ok, err = self.encoder:wait()
  local stats = self.encoder:stats()
  self.encoder:close()
  self.lock:unlock()
  if self.progress and self.progress.finish then self.progress:finish() end
  if not ok then write_failed(err) end
  local result = { frames = self.count, dir = self.dir, files = self.files, errors = {},
    primitives = self.primitives,
                   encoder = stats }
  if self.pdf then
    local pok, perr = self.pdf:finish()
    if pok then result.pdf = self.pdf_path else result.errors[#result.errors + 1] = perr end
  end
  if opts.html then
    local p, herr = self:write_html()
    if p then result.html = p else result.errors[#result.errors + 1] = herr end
  end
  if opts.mp4 then
    local p, merr = self:write_mp4(opts.mp4)
    if p then result.mp4 = p else result.errors[#result.errors + 1] = merr end
  end
  return result
end

return M
