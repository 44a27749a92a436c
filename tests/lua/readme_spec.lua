-- The README and every page of the manual (docs/*.md) are valid Markdown: every
-- heading line outside code blocks comes out as a heading (a stray fence would
-- swallow the ones after it), no paragraph is there twice, every relative link
-- names a file that exists, and a code block marked <!-- file: PATH --> is that
-- file's text. The README stays short (at most 400 lines), names the gallery, and
-- speaks of the project only (no machine it was measured on, no change notes).
local h = require "helpers"

local function has_cmark()
  return os.execute("command -v cmark >/dev/null 2>&1")
end

-- Heading texts of a Markdown file, read line by line outside ``` fences.
local function headings(text)
  local out, fenced = {}, false
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    if line:match("^```") then
      fenced = not fenced
    elseif not fenced then
      local title = line:match("^#+%s+(.+)$")
      if title then out[#out + 1] = title end
    end
  end
  return out, fenced
end

-- Heading texts in cmark's HTML, tags and entities undone to match the source.
local function html_headings(html)
  local out = {}
  for body in html:gmatch("<h%d>(.-)</h%d>") do
    body = body:gsub("<code>(.-)</code>", "`%1`"):gsub("<[^>]+>", "")
    body = body:gsub("&lt;", "<"):gsub("&gt;", ">"):gsub("&quot;", '"'):gsub("&amp;", "&")
    out[#out + 1] = body
  end
  return out
end

local function check(rel)
  local text = h.slurp(h.source .. "/" .. rel)
  describe(rel, function()

  it("closes every code fence, and cmark shows every heading as a heading", function()
    local want, open = headings(text)
    assert.is_false(open, "a ``` fence is never closed")
    assert.is_true(#want >= 1)
    if not has_cmark() then
      print("cmark not installed: headings checked from the source only")
      return
    end
    local p = io.popen("cmark " .. h.quote(h.source .. "/" .. rel))
    local html = p:read("a")
    p:close()
    assert.are.same(want, html_headings(html))
  end)

  it("says nothing twice", function()
    local seen, twice = {}, {}
    local fenced = false
    local para = {}
    local function flush()
      local s = table.concat(para, " "):gsub("%s+", " ")
      if #s > 60 and not s:match("^<!%-%-") then
        if seen[s] then twice[#twice + 1] = s:sub(1, 80) end
        seen[s] = true
      end
      para = {}
    end
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      if line:match("^```") then
        fenced = not fenced
        flush()
      elseif line:match("^%s*$") then
        flush()
      elseif not fenced then
        para[#para + 1] = line
      else
        -- code lines count one by one: a repeated block shows as repeated lines
        if #line > 30 then
          if seen[line] then twice[#twice + 1] = line end
          seen[line] = true
        end
      end
    end
    flush()
    assert.are.same({}, twice)
  end)

  it("links files that exist", function()
    local dir = rel:match("^(.*)/[^/]*$") or "."
    local fenced, missing = false, {}
    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
      if line:match("^```") then
        fenced = not fenced
      elseif not fenced then
        for target in line:gmatch("%]%(([^)#%s]+)[^)]*%)") do
          if not target:match("^%a+:") and not target:match("^build/") then
            local f = io.open(h.source .. "/" .. dir .. "/" .. target, "r")
            if f then f:close() else missing[#missing + 1] = target end
          end
        end
      end
    end
    assert.are.same({}, missing)
  end)

  it("shows the files it quotes as they are", function()
    for path, block in text:gmatch("<!%-%- file: (%S+) %-%->\n```%w*\n(.-)```") do
      assert.are.equal(h.slurp(h.source .. "/" .. path), block, path)
    end
  end)
  end)
end

check("README.md")
for name in require("lfs").dir(h.source .. "/docs") do
  if name:match("%.md$") then check("docs/" .. name) end
end

describe("README.md, a newcomer's page", function()
  local text = h.slurp(h.source .. "/README.md")

  it("is at most 400 lines and names the gallery the demo writes", function()
    local n = select(2, text:gsub("\n", ""))
    assert.is_true(n <= 400, n .. " lines")
    assert.truthy(text:find("build/gallery/index.html", 1, true))
  end)

  it("links every page of the manual from docs/index.md", function()
    local index = h.slurp(h.source .. "/docs/index.md")
    for name in require("lfs").dir(h.source .. "/docs") do
      if name:match("%.md$") and name ~= "index.md" then
        assert.truthy(index:find("(" .. name .. ")", 1, true), name)
      end
    end
  end)

  it("speaks of the project, not of a machine or of its past", function()
    for _, rel in ipairs { "README.md" } do
      local t = h.slurp(h.source .. "/" .. rel):lower()
      for _, word in ipairs { "2-core", "this machine", "the shared machine", "now also", "before this change" } do
        assert.is_nil(t:find(word, 1, true), rel .. ": " .. word)
      end
    end
  end)
end)
