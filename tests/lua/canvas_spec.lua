local h = require "helpers"
local canvas = require "retrace.canvas"
local colors = require "retrace.colors"


local function px(cv, x, y)
  local r, g, b, a = cv:get_pixel(x, y)
  return { r, g, b, a }
end

-- Count pixels in a box that differ from the given colour.
local function count_not(cv, x0, y0, x1, y1, c)
  local n = 0
  for y = y0, y1 do
    for x = x0, x1 do
      local r, g, b = cv:get_pixel(x, y)
      if r ~= c[1] or g ~= c[2] or b ~= c[3] then n = n + 1 end
    end
  end
  return n
end

describe("retrace.canvas", function()
  it("fills a rectangle: its colour at the centre, the background outside (read back from PNG)", function()
    local d = h.temp_dir()
    local cv = canvas.image(200, 100, "white")
    cv:rect(50, 20, 60, 40, "#3366cc")
    assert.is_true(cv:write_png(d .. "/r.png"))
    local back = assert(canvas.load_png(d .. "/r.png"))
    assert.are.same({ 200, 100 }, { back:size() })
    assert.are.same({ 0x33, 0x66, 0xcc, 255 }, px(back, 80, 40))
    assert.are.same({ 255, 255, 255, 255 }, px(back, 49, 40))
    assert.are.same({ 255, 255, 255, 255 }, px(back, 110, 40))
    assert.are.same({ 255, 255, 255, 255 }, px(back, 80, 19))
    assert.are.same({ 0x33, 0x66, 0xcc, 255 }, px(back, 50, 20))
    assert.are.same({ 0x33, 0x66, 0xcc, 255 }, px(back, 109, 59))
    os.remove(d .. "/r.png")
  end)

  it("draws text inside its box and nothing outside (read back from PNG)", function()
    local drawn = canvas.image(300, 100, "white")
    local w, hgt = drawn:text(150, 50, "Retrace 123", { align = "center", valign = "middle", size = 20, color = "black" })
    local path = os.tmpname() .. ".png"
    assert.is_true(drawn:write_png(path))
    local cv = assert(canvas.load_png(path))
    os.remove(path)
    assert.is_true(w > 60 and w < 200)
    assert.is_true(hgt > 15 and hgt < 40)
    local x0, x1 = math.floor(150 - w / 2), math.ceil(150 + w / 2)
    local y0, y1 = math.floor(50 - hgt / 2), math.ceil(50 + hgt / 2)
    local inked = count_not(cv, x0, y0, x1, y1, { 255, 255, 255 })
    assert.is_true(inked > 50, "text drew " .. inked .. " pixels")
    assert.are.equal(0, count_not(cv, 0, 0, 299, y0 - 2, { 255, 255, 255 }))
    assert.are.equal(0, count_not(cv, 0, 0, x0 - 2, 99, { 255, 255, 255 }))
    assert.are.equal(0, count_not(cv, x1 + 2, 0, 299, 99, { 255, 255, 255 }))
  end)

  it("rotates text about its anchor", function()
    local cv = canvas.image(100, 200, "white")
    local w = cv:text(50, 100, "vertical label", { angle = -90, align = "center", valign = "middle", color = "black" })
    -- the ink runs up and down, not across
    assert.is_true(count_not(cv, 0, 0, 99, math.floor(100 - w / 2) - 2, { 255, 255, 255 }) == 0)
    assert.is_true(count_not(cv, 40, math.floor(100 - w / 2), 60, math.ceil(100 + w / 2), { 255, 255, 255 }) > 30)
    assert.is_true(count_not(cv, 0, 0, 35, 199, { 255, 255, 255 }) == 0)
  end)

  it("draws lines, circles, polygons and curves where they belong", function()
    local cv = canvas.image(200, 200, "black")
    cv:line(10, 10, 190, 10, { color = "white", width = 4 })
    assert.are.same({ 255, 255, 255, 255 }, px(cv, 100, 10))
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 100, 16))
    cv:circle(100, 100, 20, "red")
    assert.are.same({ 255, 0, 0, 255 }, px(cv, 100, 100))
    assert.are.same({ 255, 0, 0, 255 }, px(cv, 115, 100))
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 115, 115))
    cv:polygon({ 10, 190, 60, 190, 10, 140 }, "lime")
    assert.are.same({ 0, 255, 0, 255 }, px(cv, 20, 180))
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 55, 145))
    -- a curve bulging up from a horizontal chord passes above its end points' line
    cv:curve(120, 180, 190, 180, 0.25, { color = "yellow", width = 3 })
    assert.are.same({ 255, 255, 0, 255 }, px(cv, 155, 162))
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 155, 180))
  end)

  it("clips, saves and restores, translates and scales", function()
    local cv = canvas.image(100, 100, "white")
    cv:save()
    cv:clip_rect(0, 0, 50, 100)
    cv:rect(0, 0, 100, 100, "blue")
    cv:restore()
    assert.are.same({ 0, 0, 255, 255 }, px(cv, 25, 50))
    assert.are.same({ 255, 255, 255, 255 }, px(cv, 75, 50))
    cv:with(function(c)
      c:translate(60, 60)
      c:scale(2, 2)
      c:rect(0, 0, 10, 10, "red")
    end)
    assert.are.same({ 255, 0, 0, 255 }, px(cv, 79, 79))
    assert.are.same({ 255, 255, 255, 255 }, px(cv, 81, 81))
  end)

  it("blends RGBA colours", function()
    local cv = canvas.image(10, 10, "white")
    cv:rect(0, 0, 10, 10, { 0, 0, 0, 0.5 })
    local r, g, b = cv:get_pixel(5, 5)
    assert.is_true(math.abs(r - 128) <= 1 and r == g and g == b)
  end)

  it("dashes lines", function()
    local cv = canvas.image(100, 10, "white")
    cv:antialias(false)
    cv:line(0, 5, 100, 5, { color = "black", width = 2, dash = { 10, 10 } })
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 5, 5))
    assert.are.same({ 255, 255, 255, 255 }, px(cv, 15, 5))
    assert.are.same({ 0, 0, 0, 255 }, px(cv, 25, 5))
  end)

  it("writes pixels directly and reads them back", function()
    local cv = canvas.image(4, 4)
    cv:set_pixel(1, 2, 10, 20, 30)
    assert.are.same({ 10, 20, 30, 255 }, px(cv, 1, 2))
    assert.are.same({ 0, 0, 0, 0 }, px(cv, 0, 0))
    assert.has_error(function() cv:set_pixel(4, 0, 1, 1, 1) end, "pixel (4, 0) outside the 4 x 4 canvas")
  end)

  describe("grids", function()
    local pal = canvas.palette({ "red", "lime", "blue" })

    it("colours every cell through the palette, empty cells show the background", function()
      local g = canvas.grid(3, 2)
      g:set(0, 0, 0); g:set(1, 0, 1); g:set(2, 0, 2)
      g:set(0, 1, 2); g:set(1, 1, -1); g:set(2, 1, 7)
      local cv = canvas.image(30, 20, "white")
      cv:grid(g, pal, 0, 0, 30, 20)
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 5, 5))
      assert.are.same({ 0, 255, 0, 255 }, px(cv, 15, 5))
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 25, 5))
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 5, 15))
      assert.are.same({ 255, 255, 255, 255 }, px(cv, 15, 15))
      assert.are.same({ 255, 255, 255, 255 }, px(cv, 25, 15))
      -- cell edges: pixel 9 is in cell 0, pixel 10 in cell 1
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 9, 9))
      assert.are.same({ 0, 255, 0, 255 }, px(cv, 10, 9))
    end)

    it("draws the same picture on the fast path and the general path (random grid)", function()
      math.randomseed(7)
      local g = canvas.grid(37, 23)
      for y = 0, 22 do for x = 0, 36 do g:set(x, y, math.random(-1, 3)) end end
      local fast = canvas.image(111, 69, "white")
      fast:grid(g, pal, 0, 0, 111, 69)
      -- a rotation by a full turn is the identity but forces the general path
      local slow = canvas.image(111, 69, "white")
      slow:rotate(2 * math.pi)
      slow:antialias(false)
      slow:grid(g, pal, 0, 0, 111, 69)
      local diff = 0
      for y = 1, 68, 3 do
        for x = 1, 110, 3 do
          -- centres of 3x3 cells
          local a, b = px(fast, x, y), px(slow, x, y)
          if a[1] ~= b[1] or a[2] ~= b[2] or a[3] ~= b[3] then diff = diff + 1 end
          local v = g:get((x - 1) // 3, (y - 1) // 3)
          local want = ({ [0] = { 255, 0, 0 }, { 0, 255, 0 }, { 0, 0, 255 } })[v] or { 255, 255, 255 }
          assert.are.same(want, { a[1], a[2], a[3] })
        end
      end
      assert.are.equal(0, diff)
    end)

    it("draws a region, maps a value range, respects the clip and the transform", function()
      local g = canvas.grid(4, 4, 0)
      for y = 0, 3 do for x = 0, 3 do g:set(x, y, x * 10) end end
      local cv = canvas.image(40, 40, "white")
      cv:grid(g, pal, 0, 0, 40, 40, { region = { 1, 0, 2, 4 }, range = { 0, 30 } })
      -- columns 1, 2 hold 10, 20: bins [10, 20) and [20, 30] of the range
      assert.are.same({ 0, 255, 0, 255 }, px(cv, 10, 10))
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 30, 10))
      local cv2 = canvas.image(40, 40, "white")
      cv2:translate(10, 10)
      cv2:clip_rect(0, 0, 10, 10)
      cv2:grid(canvas.grid(2, 2, 0), pal, 0, 0, 20, 20)
      assert.are.same({ 255, 0, 0, 255 }, px(cv2, 15, 15))
      assert.are.same({ 255, 255, 255, 255 }, px(cv2, 25, 25))
      assert.are.same({ 255, 255, 255, 255 }, px(cv2, 5, 5))
      assert.has_error(function() cv:grid(g, pal, 0, 0, 1, 1, { region = { 3, 3, 2, 2 } }) end,
        "grid region 3,3 2 x 2 outside the 4 x 4 grid")
    end)

    it("leaves a gap between cells, on the fast path and the general one", function()
      local g = canvas.grid(2, 2, 0)
      for _, rotate in ipairs({ false, true }) do
        local cv = canvas.image(20, 20, "white")
        if rotate then cv:rotate(2 * math.pi); cv:antialias(false) end
        cv:grid(g, pal, 0, 0, 20, 20, { gap = 2 })
        assert.are.same({ 255, 0, 0, 255 }, px(cv, 4, 4))
        assert.are.same({ 255, 0, 0, 255 }, px(cv, 7, 7))
        assert.are.same({ 255, 255, 255, 255 }, px(cv, 8, 4)) -- the gap right of cell 0
        assert.are.same({ 255, 255, 255, 255 }, px(cv, 9, 4))
        assert.are.same({ 255, 255, 255, 255 }, px(cv, 4, 9)) -- and below it
        assert.are.same({ 255, 0, 0, 255 }, px(cv, 10, 10))
        assert.are.same({ 255, 255, 255, 255 }, px(cv, 19, 19))
      end
    end)

    it("flips a grid drawn into a box of negative height, and ignores an empty box", function()
      local g = canvas.grid(1, 2)
      g:set(0, 0, 0); g:set(0, 1, 2) -- red on top, blue below
      local cv = canvas.image(10, 20, "white")
      cv:grid(g, pal, 0, 20, 10, -20) -- y upwards: row 0 at the bottom
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 5, 15))
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 5, 5))
      cv:grid(g, pal, 0, 0, 0, 20)
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 5, 5))
    end)

    it("writes a grid 1:1 as pixels, loads and dumps cells as int32 strings", function()
      local g = canvas.grid(3, 1)
      g:load(string.pack("i4i4i4", 2, 0, 1))
      assert.are.same({ 2, 0, 1 }, { g:get(0, 0), g:get(1, 0), g:get(2, 0) })
      assert.are.equal(string.pack("i4i4i4", 2, 0, 1), g:dump())
      local cv = canvas.image(10, 10, "white")
      cv:scale(3, 3) -- ignored: pixels are device pixels
      cv:pixels(g, pal, 4, 5)
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 4, 5))
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 5, 5))
      assert.are.same({ 0, 255, 0, 255 }, px(cv, 6, 5))
      assert.are.same({ 255, 255, 255, 255 }, px(cv, 7, 5))
      assert.has_error(function() g:set(3, 0, 1) end, "cell (3, 0) outside the 3 x 1 grid")
    end)
  end)

  describe("packed arrays", function()
    it("draws many rectangles, segments and points coloured per item", function()
      local pal = canvas.palette({ "red", "blue" })
      local rects = canvas.pack(5)
      rects:push(0, 0, 10, 10, 0)
      rects:push(10, 0, 10, 10, 1)
      rects:load(string.pack("ddddd", 20, 0, 10, 10, 0))
      assert.are.equal(3, #rects)
      local cv = canvas.image(40, 40, "white")
      cv:rects(rects, { palette = pal })
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 5, 5))
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 15, 5))
      assert.are.same({ 255, 0, 0, 255 }, px(cv, 25, 5))
      local segs = canvas.pack(4)
      segs:push(0, 20.5, 40, 20.5)
      cv:segments(segs, { color = "black", width = 1 })
      assert.are.same({ 0, 0, 0, 255 }, px(cv, 30, 20))
      local pts = canvas.pack(3)
      pts:push(30, 32, 1)
      cv:points(pts, { palette = pal, radius = 2 })
      assert.are.same({ 0, 0, 255, 255 }, px(cv, 30, 32))
      assert.are.same({ 255, 255, 255, 255 }, px(cv, 30, 35))
      local xy = canvas.pack(2)
      xy:load("") -- nothing into an empty pack: no items, no undefined copy
      assert.are.equal(0, #xy)
      xy:load(string.pack("dddddd", 2, 36.5, 38, 36.5, 38, 39.5))
      cv:path(xy, { color = "lime", width = 1 })
      assert.are.same({ 0, 255, 0, 255 }, { cv:get_pixel(20, 36) })
      assert.are.same({ 255, 255, 255, 255 }, { cv:get_pixel(20, 38) })
      cv:path(xy, { color = "black", fill = true })
      assert.are.same({ 0, 0, 0, 255 }, { cv:get_pixel(36, 37) })
      assert.has_error(function() cv:rects(canvas.pack(4), { palette = pal }) end,
        "packed array of stride 4: need 5 values per item (with a palette index)")
    end)
  end)

  describe("PDF and SVG", function()
    it("writes a PDF with the pages drawn", function()
      local d = h.temp_dir()
      local path = d .. "/three.pdf"
      local cv = assert(canvas.pdf(path, 300, 200))
      for i = 1, 3 do
        cv:rect(10, 10, 100, 50, "red")
        cv:text(20, 100, "page " .. i, { size = 14 })
        cv:show_page()
      end
      assert.is_true(cv:finish())
      local p = io.popen("pdfinfo " .. h.quote(path) .. " 2>&1")
      local info = p:read("a")
      p:close()
      assert.truthy(info:match("Pages:%s+3"), info)
      assert.truthy(info:match("Page size:%s+300 x 200 pts"), info)
      local t = io.popen("pdftotext " .. h.quote(path) .. " - 2>&1")
      local text = t:read("a")
      t:close()
      assert.truthy(text:match("page 1") and text:match("page 3"), text)
      os.remove(path)
    end)

    it("writes a well-formed SVG with the drawing in it", function()
      local d = h.temp_dir()
      local path = d .. "/pic.svg"
      local cv = assert(canvas.svg(path, 120, 80))
      cv:rect(10, 10, 50, 30, "blue")
      cv:text(10, 70, "svg <&> text")
      -- a 2 x 2 grid in a 60 x 60 box is embedded at 60 x 60 pixels, so viewers
      -- that smooth images still show sharp cells
      cv:grid(canvas.grid(2, 2, 0), canvas.palette({ "red" }), 60, 10, 60, 60)
      assert.is_true(cv:finish())
      local svg = h.slurp(path)
      assert.truthy(svg:match("<svg"))
      assert.truthy(svg:match('<image[^>]* width="60" height="60"'), svg:sub(1, 400))
      assert.truthy(svg:match('width="120'))
      local ok = os.execute("xmllint --noout " .. h.quote(path) .. " 2>/dev/null")
      assert.is_true(ok)
      os.remove(path)
    end)
  end)

  it("picks the canvas kind from a file name and writes it", function()
    local d = h.temp_dir()
    for _, ext in ipairs({ "png", "pdf", "svg" }) do
      local path = d .. "/pic." .. ext
      local cv = assert(canvas.for_file(path, 40, 30))
      assert.are.equal(ext == "png" and "image" or ext, cv:kind())
      cv:rect(0, 0, 20, 20, "teal")
      assert.is_true(cv:write(path))
      assert.is_true(require("lfs").attributes(path, "size") > 0)
    end
    assert.are.same({ 0, 128, 128, 255 }, { assert(canvas.load_png(d .. "/pic.png")):get_pixel(10, 10) })
    local none, err = canvas.for_file(d .. "/pic.gif", 10, 10)
    assert.is_nil(none)
    assert.are.equal(d .. "/pic.gif: unknown picture type (use .png, .pdf or .svg)", err)
    local bad, berr = canvas.load_png(d .. "/pic.svg")
    assert.is_nil(bad)
    assert.are.equal(d .. "/pic.svg: not a readable PNG file", berr)
    h.remove_tree(d)
  end)

  it("records drawing once and replays it onto other canvases", function()
    local rec = canvas.recording(20, 20)
    rec:rect(0, 0, 10, 20, "red")
    rec:grid(canvas.grid(1, 1, 0), canvas.palette({ "blue" }), 10, 0, 10, 20)
    local a, b = canvas.image(20, 20, "white"), canvas.image(20, 20, "black")
    a:replay(rec)
    b:replay(rec)
    for _, cv in ipairs({ a, b }) do
      assert.are.same({ 255, 0, 0, 255 }, { cv:get_pixel(5, 10) })
      assert.are.same({ 0, 0, 255, 255 }, { cv:get_pixel(15, 10) })
    end
    assert.are.equal("recording", rec:kind())
    assert.has_error(function() a:replay(b) end)
  end)

  describe("bad input", function()
    it("names an unknown colour", function()
      local cv = canvas.image(10, 10)
      local ok, err = pcall(cv.rect, cv, 0, 0, 5, 5, "blurple")
      assert.is_false(ok)
      assert.truthy(err:match("unknown colour name 'blurple'$"), err)
      assert.is_nil(err:find("\n"))
    end)

    it("refuses a negative size", function()
      assert.has_error(function() canvas.image(-5, 10) end,
        "canvas size: -5 x 10, width and height must be positive integers")
      assert.has_error(function() require("retrace.core").canvas.image(10, -1) end,
        "canvas size: 10 x -1, width and height must be 1 to 32767")
      assert.has_error(function() canvas.grid(0, 3) end, "grid size: 0 x 3, both must be at least 1")
    end)

    it("reports an unwritable output folder in one line", function()
      local cv = canvas.image(10, 10)
      local ok, err = cv:write_png("/nonexistent/dir/x.png")
      assert.is_nil(ok)
      assert.are.equal("/nonexistent/dir/x.png: No such file or directory", err)
      local pdf, perr = canvas.pdf("/nonexistent/dir/x.pdf", 10, 10)
      assert.is_nil(pdf)
      assert.are.equal("/nonexistent/dir/x.pdf: No such file or directory", perr)
      local png, lerr = canvas.load_png("/nonexistent/x.png")
      assert.is_nil(png)
      assert.are.equal("/nonexistent/x.png: No such file or directory", lerr)
    end)

    it("refuses closed objects", function()
      local cv = canvas.image(10, 10)
      cv:finish()
      assert.are.equal("closed", cv:kind())
      assert.has_error(function() cv:rect(0, 0, 1, 1) end)
    end)
  end)
end)
