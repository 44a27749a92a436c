local h = require "helpers"
local canvas = require "retrace.canvas"
local frames = require "retrace.frames"
local lfs = require "lfs"


local function run(cmd)
  local p = io.popen(cmd .. " 2>&1")
  local out = p:read("a")
  p:close()
  return out
end

-- A moving red square on white with the frame number written above it.
local function draw(cv, i)
  cv:rect(10 * i, 40, 20, 20, "red")
  cv:text(5, 20, "frame " .. i, { color = "black", size = 14 })
end

local function chromium()
  for _, name in ipairs({ "chromium", "chromium-browser" }) do
    if os.execute("command -v " .. name .. " >/dev/null 2>&1") then return name end
  end
end

-- Run headless Chromium on a file and return the DOM it ends with.
local function dump_dom(browser, file, budget_ms)
  local profile = h.temp_dir()
  local out = run(string.format("%s --headless --no-sandbox --disable-gpu --disable-quic " ..
    "--no-first-run --disable-background-networking --disable-component-update --disable-sync " ..
    "--user-data-dir=%s --virtual-time-budget=%d --dump-dom %s 2>/dev/null",
    browser, h.quote(profile), budget_ms, h.quote("file://" .. file)))
  h.remove_tree(profile)
  return out
end

describe("retrace.frames", function()
  it("writes numbered PNG frames drawn as asked, and a PDF with one page per frame", function()
    local d = h.temp_dir()
    local fw = assert(frames.writer(d .. "/out", { width = 120, height = 80, pdf = d .. "/all.pdf", threads = 2 }))
    local calls = 0
    for _ = 1, 6 do fw:frame(function(cv, i) calls = calls + 1; draw(cv, i) end) end
    assert.are.equal(6, calls) -- drawn once per frame, for the PNG and the PDF page alike
    local r = fw:finish()
    assert.are.equal(6, r.frames)
    assert.are.same({}, r.errors)
    assert.are.equal(6, r.encoder.frames)
    assert.are.equal(6, r.encoder.per_thread[1] + r.encoder.per_thread[2])
    for i = 1, 6 do
      local img = assert(canvas.load_png(string.format("%s/out/frame_%06d.png", d, i)))
      assert.are.same({ 120, 80 }, { img:size() })
      assert.are.same({ 255, 0, 0, 255 }, { img:get_pixel(10 * i + 10, 50) })
      assert.are.same({ 255, 255, 255, 255 }, { img:get_pixel(10 * i + 10, 70) })
      -- the square of the previous frame is gone
      if i > 2 then assert.are.same({ 255, 255, 255, 255 }, { img:get_pixel(10 * i - 15, 50) }) end
    end
    assert.truthy(run("pdfinfo " .. h.quote(d .. "/all.pdf")):match("Pages:%s+6"))
    assert.truthy(run("pdftotext " .. h.quote(d .. "/all.pdf") .. " -"):match("frame 6"))
    h.remove_tree(d)
  end)

  it("queues canvases drawn elsewhere", function()
    local d = h.temp_dir()
    local fw = assert(frames.writer(d, { width = 10, height = 10 }))
    local cv = canvas.image(10, 10, "blue")
    fw:add(cv)
    cv:background("lime")
    fw:add(cv) -- the first frame was copied: changing the canvas does not change it
    fw:finish()
    assert.are.same({ 0, 0, 255, 255 }, { assert(canvas.load_png(d .. "/frame_000001.png")):get_pixel(5, 5) })
    assert.are.same({ 0, 255, 0, 255 }, { assert(canvas.load_png(d .. "/frame_000002.png")):get_pixel(5, 5) })
    h.remove_tree(d)
  end)

  it("reports progress through the caller's object, one update per frame, then finish", function()
    local d = h.temp_dir()
    local seen, finished = {}, 0
    local progress = { update = function(_, i) seen[#seen + 1] = i end,
                       finish = function() finished = finished + 1 end }
    local fw = assert(frames.writer(d, { width = 10, height = 10, progress = progress }))
    for _ = 1, 3 do fw:frame(draw) end
    assert.are.same({ 1, 2, 3 }, seen)
    assert.are.equal(0, finished)
    fw:finish()
    assert.are.equal(1, finished)
    h.remove_tree(d)
    assert.has_error(function() frames.writer(d, { width = 10, height = 10, progress = 5 }) end,
      "frames.writer: progress must be an object with an update method")
  end)

  it("refuses an output folder it cannot write, in one line", function()
    local f = h.temp_file("not a folder")
    local fw, err = frames.writer(f .. "/frames", { width = 10, height = 10 })
    assert.is_nil(fw)
    assert.are.equal(f .. ": not a folder", err)
    os.remove(f)
    assert.has_error(function() frames.writer("/tmp/x", { width = -3, height = 10 }) end,
      "frame size: -3 x 10, width and height must be positive integers")
  end)

  it("reports a frame that cannot be written, naming the file", function()
    local d = h.temp_dir()
    local fw = assert(frames.writer(d .. "/gone", { width = 10, height = 10, threads = 1 }))
    h.remove_tree(d)
    local ok, err = pcall(function()
      for _ = 1, 4 do fw:frame(draw) end
      fw:finish()
    end)
    assert.is_false(ok)
    -- an error object with exit 1 (a command ends with that one line); tostring gives the message
    assert.are.equal(1, err.exit)
    assert.truthy(tostring(err):match("/gone/frame_00000%d%.png: No such file or directory$"), tostring(err))
  end)

  it("says clearly when ffmpeg is not installed", function()
    local d = h.temp_dir()
    local empty = h.temp_dir()
    local code, out, err
    local script = h.temp_file("return { width = 40, height = 30, frames = 2, draw = function(cv, i) cv:rect(0, 0, 10 * i, 10, 'red') end }", ".lua")
    local o, e = os.tmpname(), os.tmpname()
    local _, _, c = os.execute(string.format("PATH=%s %s render %s -o %s --mp4 %s >%s 2>%s",
      h.quote(empty), h.quote(h.bin), h.quote(script), h.quote(d .. "/f"), h.quote(d .. "/f.mp4"), o, e))
    code, out, err = c, h.slurp(o), h.slurp(e)
    os.remove(o); os.remove(e); os.remove(script)
    assert.are.equal(1, code, out .. err)
    assert.are.equal("retrace: ffmpeg not found on PATH: " .. d .. "/f.mp4 not made " ..
      "(install ffmpeg; the PNG frames are in " .. d .. "/f)\n", err)
    assert.truthy(lfs.attributes(d .. "/f/frame_000002.png"))
    h.remove_tree(d); h.remove_tree(empty)
  end)

  it("runs ffmpeg with an argument vector, no shell, and reports its failure", function()
    local d = h.temp_dir()
    local bin = d .. "/bin"
    assert(lfs.mkdir(bin))
    -- a stand-in ffmpeg: logs its arguments one per line, makes the output file
    local fake = assert(io.open(bin .. "/ffmpeg", "w"))
    fake:write('#!/bin/sh\nprintf "%s\\n" "$@" > "$FAKE_LOG"\nfor a; do last=$a; done\n: > "$last"\nexit "${FAKE_EXIT:-0}"\n')
    fake:close()
    os.execute("chmod +x " .. h.quote(bin .. "/ffmpeg"))
    local script = h.temp_file("return { width = 20, height = 10, frames = 3, draw = function(cv, i) end }", ".lua")
    local out = d .. "/odd $(touch pwned) name.mp4" -- a shell would make d/pwned (run from d)
    local function render(exit)
      local e = os.tmpname()
      local _, _, c = os.execute(string.format("cd %s && PATH=%s:$PATH FAKE_LOG=%s FAKE_EXIT=%d %s render %s -o %s --fps 7 --mp4 %s >/dev/null 2>%s",
        h.quote(d), h.quote(bin), h.quote(d .. "/args"), exit, h.quote(h.bin), h.quote(script), h.quote(d .. "/f"), h.quote(out), e))
      local err = h.slurp(e)
      os.remove(e)
      return c, err
    end
    local code, err = render(0)
    assert.are.equal(0, code, err)
    local args = {}
    for line in io.lines(d .. "/args") do args[#args + 1] = line end
    assert.are.same({ "-y", "-loglevel", "error", "-framerate", "7", "-i", d .. "/f/frame_%06d.png",
      "-frames:v", "3", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264", "-pix_fmt", "yuv420p", out }, args)
    assert.truthy(lfs.attributes(out))
    assert.is_nil(lfs.attributes(d .. "/pwned")) -- the name went through no shell
    code, err = render(3)
    assert.are.equal(1, code)
    assert.are.equal("retrace: " .. out .. ": ffmpeg failed with exit code 3\n", err)
    os.remove(script)
    h.remove_tree(d)
  end)

  it("makes an MP4 when ffmpeg is installed", function()
    if not os.execute("command -v ffmpeg >/dev/null 2>&1") then
      pending("ffmpeg is not installed: MP4 output not tested")
      return
    end
    local d = h.temp_dir()
    local fw = assert(frames.writer(d, { width = 64, height = 48, fps = 5 }))
    for _ = 1, 5 do fw:frame(draw) end
    local r = fw:finish({ mp4 = d .. "/movie.mp4" })
    assert.are.same({}, r.errors)
    assert.is_true(lfs.attributes(d .. "/movie.mp4", "size") > 0)
    h.remove_tree(d)
  end)

  describe("the HTML player", function()
    local browser = chromium()

    it("lists the frames and opens without a server", function()
      local d = h.temp_dir()
      local fw = assert(frames.writer(d, { width = 40, height = 30, fps = 7, title = "a <b> test" }))
      for _ = 1, 3 do fw:frame(draw) end
      local r = fw:finish({ html = true })
      local page = h.slurp(r.html)
      assert.truthy(page:find('const FRAMES = ["frame_000001.png","frame_000002.png","frame_000003.png"];', 1, true))
      assert.truthy(page:find("<title>a &lt;b&gt; test</title>", 1, true))
      assert.truthy(page:find("fps: 7", 1, true))
      assert.is_nil(page:find("fetch(", 1, true))
      h.remove_tree(d)
    end)

    it("loads, plays, and steps in a headless browser", function()
      if not browser then
        pending("chromium is not installed (make deps installs it): player not tested in a browser")
        return
      end
      local d = h.temp_dir()
      local fw = assert(frames.writer(d, { width = 200, height = 80, fps = 10 }))
      for _ = 1, 12 do fw:frame(draw) end
      local r = fw:finish({ html = true })
      -- the real page plus a driver that uses it the way a person would
      local driver = [[
<script>
window.addEventListener("load", function () {
  const log = [];
  const img = document.getElementById("frame");
  const counter = document.getElementById("counter");
  const key = function (k) { document.dispatchEvent(new KeyboardEvent("keydown", { key: k })); };
  const seen = function (tag) { log.push(tag + "=" + counter.textContent + "|" + img.getAttribute("src") + "|" + img.naturalWidth); };
  seen("loaded");
  document.getElementById("play").click();
  setTimeout(function () {
    seen("played");
    key(" ");                                   // pause
    seen("paused");
    key("ArrowRight"); seen("right");
    document.getElementById("next").click(); seen("next");
    key("ArrowLeft"); seen("left");
    key("End"); seen("end");
    key("Home"); seen("home");
    const scrub = document.getElementById("scrub");
    scrub.value = "7"; scrub.dispatchEvent(new Event("input")); seen("scrub");
    key("+"); log.push("speed=" + document.getElementById("fps").textContent);
    setTimeout(function () {
      seen("later");
      const pre = document.createElement("pre");
      pre.id = "testlog";
      pre.textContent = log.join("\n");
      document.body.appendChild(pre);
    }, 500);
  }, 450);
});
</script>
</body>]]
      local page = h.slurp(r.html):gsub("</body>", function() return driver end)
      local test_page = d .. "/test.html"
      local f = assert(io.open(test_page, "wb"))
      f:write(page)
      f:close()
      local dom = dump_dom(browser, test_page, 4000)
      local log = dom:match('<pre id="testlog">(.-)</pre>')
      assert.truthy(log, "no test log in the page:\n" .. dom:sub(1, 2000))
      local got = {}
      for tag, counter, src, width in log:gmatch("(%w+)=frame (%d+) / 12|([^|]*)|(%d+)") do
        got[tag] = { frame = tonumber(counter), src = src, width = tonumber(width) }
      end
      assert.are.same({ frame = 1, src = "frame_000001.png", width = 200 }, got.loaded)
      -- 450 ms at 10 frames/s: four or five frames on
      assert.is_true(got.played.frame >= 4 and got.played.frame <= 6, log)
      assert.are.equal("frame_" .. string.format("%06d", got.played.frame) .. ".png", got.played.src)
      assert.are.equal(got.played.frame, got.paused.frame)
      assert.are.equal(got.paused.frame + 1, got.right.frame)
      assert.are.equal(got.paused.frame + 2, got.next.frame)
      assert.are.equal(got.paused.frame + 1, got.left.frame)
      assert.are.equal(12, got["end"].frame)
      assert.are.equal(1, got.home.frame)
      assert.are.same({ 8, "frame_000008.png" }, { got.scrub.frame, got.scrub.src })
      assert.are.equal(8, got.later.frame) -- paused: no longer moving
      assert.truthy(log:find("speed=11 frames/s", 1, true))
      h.remove_tree(d)
    end)
  end)
end)
