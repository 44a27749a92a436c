-- The gallery page (retrace.gallery) and its generator (examples/gallery.lua).
local h = require "helpers"
local canvas = require "retrace.canvas"
local gallery = require "retrace.gallery"
local fs = require "retrace.fs"

local function png(path, color)
  local cv = canvas.image(20, 10, color)
  assert(cv:write_png(path))
end

local function has_xmllint()
  return os.execute("command -v xmllint >/dev/null 2>&1")
end

describe("retrace.gallery", function()
  it("writes one page: every picture linked relatively, with its caption and command", function()
    local d = h.temp_dir()
    assert(fs.mkdir_p(d .. "/a"))
    png(d .. "/a/one.png", "red")
    png(d .. "/two.png", "blue")
    local entries = {
      { family = "Canvas", image = "a/one.png", caption = "A <red> picture", command = "retrace render x.lua -o a" },
      { family = "MEDEA", image = "two.png", caption = "Blue & more", command = "retrace medea 'dir with space'" },
      { family = "Canvas", image = "two.png", caption = "Again", command = "retrace render y.lua" },
    }
    local path = assert(gallery.write(d, entries, { title = "test gallery", skipped = { "z.png: data absent" } }))
    assert.are.equal(d .. "/index.html", path)
    local page = h.slurp(path)
    assert.truthy(page:find("<!DOCTYPE html>", 1, true))
    assert.truthy(page:find("<title>test gallery</title>", 1, true))
    -- each picture: a relative image link, the escaped caption and the command
    assert.truthy(page:find('<img src="a/one.png" alt="A &lt;red&gt; picture" />', 1, true))
    assert.truthy(page:find("A &lt;red&gt; picture<code>retrace render x.lua -o a</code>", 1, true))
    assert.truthy(page:find("Blue &amp; more<code>retrace medea &#39;dir with space&#39;</code>", 1, true))
    assert.truthy(page:find("<li>z.png: data absent</li>", 1, true))
    -- families in first-seen order, pictures in list order within each
    local canvas_at, medea_at = page:find('<section id="canvas">', 1, true), page:find('<section id="medea">', 1, true)
    assert.is_true(canvas_at < medea_at)
    local again_at = page:find("Again<code>", 1, true)
    assert.is_true(again_at > canvas_at and again_at < medea_at)
    assert.truthy(page:find('<a href="#canvas">Canvas (2)</a><a href="#medea">MEDEA (1)</a>', 1, true))
    local imgs = 0
    for src in page:gmatch('<img src="([^"]+)"') do
      imgs = imgs + 1
      assert.is_nil(src:match("^/"), src)
      assert.truthy(io.open(d .. "/" .. src), src)
    end
    assert.are.equal(3, imgs)
    if has_xmllint() then
      assert.is_true(os.execute("xmllint --noout " .. h.quote(path) .. " 2>/dev/null") == true, "not well-formed")
    else
      print("xmllint not installed: well-formedness not checked")
    end
    h.remove_tree(d)
  end)

  it("refuses entries whose picture is missing or outside the folder, naming them", function()
    local d = h.temp_dir()
    png(d .. "/ok.png", "red")
    local ok, err = gallery.write(d, {
      { family = "A", image = "ok.png", caption = "fine", command = "retrace x" },
      { family = "B", image = "gone.png", caption = "lost", command = "retrace y" },
      { family = "C", image = "/etc/passwd", caption = "abs", command = "retrace z" },
      { family = "D", image = "ok.png", command = "retrace w" },
    })
    assert.is_nil(ok)
    assert.are.equal("entry 2 (B): image gone.png not found in " .. d ..
      "; entry 3 (C): image /etc/passwd must be a path inside " .. d ..
      "; entry 4 (D): caption missing", err)
    assert.is_nil(io.open(d .. "/index.html"))
    h.remove_tree(d)
  end)

  it("links an entry's other outputs (a player, a page, an export), which must exist", function()
    local d = h.temp_dir()
    png(d .. "/ok.png", "red")
    local f = assert(io.open(d .. "/player.html", "w"))
    f:write("<html></html>")
    f:close()
    local ok, err = gallery.write(d, {
      { family = "A", image = "ok.png", caption = "fine", command = "retrace x",
        links = { { "the player", "player.html" }, { "the export", "gone.json" } } },
    })
    assert.is_nil(ok)
    assert.are.equal("entry 1 (A): link gone.json not found in " .. d, err)
    local path = assert(gallery.write(d, {
      { family = "A", image = "ok.png", caption = "fine", command = "retrace x",
        links = { { "the player", "player.html" } } },
    }))
    assert.truthy(h.slurp(path):find('<a href="player.html">the player</a>', 1, true))
    h.remove_tree(d)
  end)
end)

describe("examples/gallery.lua", function()
  local g = dofile(h.source .. "/examples/gallery.lua")

  it("has entries that each run a command and name a picture, a glob or nothing (a step)", function()
    assert.is_true(#g.entries >= 10)
    for i, e in ipairs(g.entries) do
      assert.is_table(e.run, "entry " .. i)
      if e.image or e.glob then
        assert.is_string(e.caption, "entry " .. i)
        assert.is_string(e.family, "entry " .. i)
      end
    end
  end)

  it("runs a tiny manifest: pictures made, globs expanded, absent data skipped, failures named", function()
    local d = h.temp_dir()
    local script = d .. "/square.lua"
    assert(fs.write_file(script, "return { width = 30, height = 20, frames = 2, " ..
      "draw = function(cv, i) cv:rect(0, 0, 10 * i, 10, 'red') end }"))
    local out = d .. "/gallery"
    local list = {
      { family = "Tiny", caption = "last frame", run = { "render", "{ex}/square.lua", "-o", "{out}/sq/frames" },
        image = "sq/frames/frame_000002.png" },
      { family = "Tiny", caption = "frame %s", run = { "render", "{ex}/square.lua", "-o", "{out}/sq/frames" },
        glob = "sq/frames/frame_*.png" },
      { family = "Tiny", caption = "needs data", needs = "{data}/nope.trf", run = { "info", "{data}/nope.trf" },
        image = "never.png" },
      { family = "Tiny", caption = "fails", run = { "render", "{ex}/missing.lua", "-o", "{out}/m" }, image = "m.png" },
    }
    local pictures, skipped, failed = g.make(list, { retrace = h.bin, out = out, ex = d, data = d .. "/data",
                                                     quiet = true })
    assert.are.same({ "sq/frames/frame_000002.png", "sq/frames/frame_000001.png", "sq/frames/frame_000002.png" },
      { pictures[1].image, pictures[2].image, pictures[3].image })
    assert.are.same({ "last frame", "frame 000001", "frame 000002" },
      { pictures[1].caption, pictures[2].caption, pictures[3].caption })
    assert.are.equal("retrace render " .. d .. "/square.lua -o " .. out .. "/sq/frames", pictures[1].command)
    assert.are.same({ "never.png: " .. d .. "/data/nope.trf is absent" }, skipped)
    assert.are.equal(1, #failed)
    assert.truthy(failed[1]:find("^entry 4: retrace render " .. d:gsub("%p", "%%%0") .. "/missing%.lua .* failed %(exit 1%)$"),
      failed[1])
    -- and the page made from them
    local path = assert(gallery.write(out, pictures, { skipped = skipped }))
    local page = h.slurp(path)
    for _, p in ipairs(pictures) do
      assert.truthy(page:find(p.caption .. "<code>" .. gallery.escape(p.command) .. "</code>", 1, true))
    end
    h.remove_tree(d)
  end)
end)
