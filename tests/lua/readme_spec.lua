-- The README is valid Markdown: every heading line outside code blocks comes out
-- as a heading (a stray fence would swallow the ones after it), no paragraph is
-- there twice, and it links the gallery.
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

describe("README.md", function()
  local text = h.slurp(h.source .. "/README.md")

  it("closes every code fence, and cmark shows every heading as a heading", function()
    local want, open = headings(text)
    assert.is_false(open, "a ``` fence is never closed")
    assert.is_true(#want >= 10)
    if not has_cmark() then
      print("cmark not installed: headings checked from the source only")
      return
    end
    local p = io.popen("cmark " .. h.quote(h.source .. "/README.md"))
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

  it("links the gallery the demo writes", function()
    assert.truthy(text:find("(build/gallery/index.html)", 1, true))
  end)
end)
