--- retrace.gallery: one HTML page showing pictures with their captions and the
-- commands that made them (the page `make demo` ends with, build/gallery/index.html).
--
--   local gallery = require "retrace.gallery"
--   local path, err = gallery.write("build/gallery", {
--     { family = "Canvas", image = "canvas/tour.png", caption = "The canvas tour",
--       command = "retrace render examples/canvas/tour.lua -o build/gallery/canvas",
--       links = { { "player", "canvas/tour/index.html" } } },
--   }, { title = "retrace gallery" })
--
-- Images are linked by paths relative to the page's folder, so the folder can be
-- moved or opened from the file system without a server. An entry's links (label,
-- path) name other outputs of its command: a player, a zoomable page, an export. Families appear in the
-- order they first occur in the list, and pictures in list order within a family.
local fs = require "retrace.fs"

local M = {}

local function escape(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
    ['"'] = "&quot;", ["'"] = "&#39;" }))
end
M.escape = escape

-- An id usable as an HTML anchor.
local function anchor(s)
  return (s:lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", ""))
end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() return true end
  return false
end

local STYLE = [[
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 24px; color: #202020; background: #fafafa; }
h1 { margin: 0 0 4px 0; } p.lead { margin: 0 0 16px 0; color: #505050; }
nav a { margin-right: 12px; }
h2 { border-bottom: 1px solid #c0c0c0; padding-bottom: 4px; margin-top: 32px; }
.grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(420px, 1fr)); gap: 18px; }
figure { margin: 0; background: white; border: 1px solid #d0d0d0; padding: 8px; }
figure img { width: 100%; height: auto; display: block; }
figcaption { margin-top: 6px; font-size: 14px; }
figcaption code { display: block; margin-top: 4px; font-size: 12px; background: #f0f0f0; padding: 4px;
  white-space: pre-wrap; word-break: break-all; }
ul.skipped { color: #805000; }
span.links { display: block; margin-top: 4px; font-size: 13px; }
]]

--- Check the entries: each needs family, image, caption and command (strings);
-- the image must exist under dir. Returns true, or nil and a message naming
-- every bad entry ("entry 3 (Canvas): image canvas/x.png not found in build/gallery").
function M.check(dir, entries)
  local bad = {}
  for i, e in ipairs(entries) do
    local what = string.format("entry %d (%s)", i, tostring(e.family))
    for _, k in ipairs({ "family", "image", "caption", "command" }) do
      if type(e[k]) ~= "string" or e[k] == "" then bad[#bad + 1] = what .. ": " .. k .. " missing" end
    end
    if type(e.image) == "string" then
      if e.image:match("^/") or e.image:match("%.%.") then
        bad[#bad + 1] = what .. ": image " .. e.image .. " must be a path inside " .. dir
      elseif not exists(dir .. "/" .. e.image) then
        bad[#bad + 1] = what .. ": image " .. e.image .. " not found in " .. dir
      end
    end
    for _, l in ipairs(e.links or {}) do
      if type(l[1]) ~= "string" or type(l[2]) ~= "string" or l[2]:match("^/") or l[2]:match("%.%.") then
        bad[#bad + 1] = what .. ": a link needs a label and a path inside " .. dir
      elseif not exists(dir .. "/" .. l[2]) then
        bad[#bad + 1] = what .. ": link " .. l[2] .. " not found in " .. dir
      end
    end
  end
  if #bad > 0 then return nil, table.concat(bad, "; ") end
  return true
end

--- The page as a string. opts: title, lead (a sentence under the title),
-- skipped (a list of one-line notes: entries not made, and why).
function M.html(entries, opts)
  opts = opts or {}
  local title = opts.title or "retrace gallery"
  local families, by = {}, {}
  for _, e in ipairs(entries) do
    if not by[e.family] then
      by[e.family] = {}
      families[#families + 1] = e.family
    end
    table.insert(by[e.family], e)
  end
  local out = {}
  local function add(...) for i = 1, select("#", ...) do out[#out + 1] = select(i, ...) end end
  add("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\" />\n<title>", escape(title),
    "</title>\n<style>\n", STYLE, "</style>\n</head>\n<body>\n<h1>", escape(title), "</h1>\n")
  if opts.lead then add("<p class=\"lead\">", escape(opts.lead), "</p>\n") end
  add("<nav>")
  for _, f in ipairs(families) do
    add("<a href=\"#", anchor(f), "\">", escape(f), " (", #by[f], ")</a>")
  end
  add("</nav>\n")
  for _, f in ipairs(families) do
    add("<section id=\"", anchor(f), "\">\n<h2>", escape(f), "</h2>\n<div class=\"grid\">\n")
    for _, e in ipairs(by[f]) do
      add("<figure>\n<a href=\"", escape(e.image), "\"><img src=\"", escape(e.image), "\" alt=\"",
        escape(e.caption), "\" /></a>\n<figcaption>", escape(e.caption))
      if e.links and #e.links > 0 then
        add("<span class=\"links\">")
        for i, l in ipairs(e.links) do
          add(i > 1 and " · " or "", "<a href=\"", escape(l[2]), "\">", escape(l[1]), "</a>")
        end
        add("</span>")
      end
      add("<code>", escape(e.command), "</code></figcaption>\n</figure>\n")
    end
    add("</div>\n</section>\n")
  end
  if opts.skipped and #opts.skipped > 0 then
    add("<h2>Not made this time</h2>\n<ul class=\"skipped\">\n")
    for _, s in ipairs(opts.skipped) do add("<li>", escape(s), "</li>\n") end
    add("</ul>\n")
  end
  add("</body>\n</html>\n")
  return table.concat(out)
end

--- Check the entries and write dir/index.html. Returns its path, or nil and a
-- message (a bad entry, an unwritable folder).
function M.write(dir, entries, opts)
  local ok, err = M.check(dir, entries)
  if not ok then return nil, err end
  local path = dir .. "/index.html"
  local wok, werr = fs.write_file(path, M.html(entries, opts))
  if not wok then return nil, werr end
  return path
end

return M
