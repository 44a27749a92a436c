-- The doc test: every command of a page of the documentation runs as written.
--   retrace tests/doc/doc_commands.lua SOURCE BUILD PAGE.md
-- Each ```sh block of PAGE runs with bash -e -o pipefail, in order, in one scratch
-- folder per page that looks like the top of the repository after `make demo`
-- (build/, examples/, core/, lua/, displays/, bench/, tests/ link to the real ones;
-- ../shared links to the shared sample traces when they exist). A block fails the
-- test on a non-zero exit; a block that names ../shared is skipped, saying so, when
-- the samples are absent. `make demo` and `make test` lines are not run (this test
-- is part of `make test`); every other line is.
local source, build, page = arg[1], arg[2], arg[3]
assert(source and build and page, "usage: doc_commands.lua SOURCE BUILD PAGE.md")

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local function run(cmd) local ok, _, code = os.execute(cmd); return ok and 0 or code end

local f = assert(io.open(source .. "/" .. page))
local text = f:read("a")
f:close()

local blocks, fenced, lang, cur, first = {}, false, nil, nil, nil
local lineno = 0
for line in (text .. "\n"):gmatch("([^\n]*)\n") do
  lineno = lineno + 1
  local fence = line:match("^```(%S*)")
  if fence and not fenced then
    fenced, lang, cur, first = true, fence, {}, lineno + 1
  elseif fence and fenced then
    if lang == "sh" then blocks[#blocks + 1] = { line = first, text = table.concat(cur, "\n") } end
    fenced = false
  elseif fenced then
    if not line:match("^%s*make%s+demo") and not line:match("^%s*make%s+test") then
      cur[#cur + 1] = line
    end
  end
end

local scratch = os.tmpname()
os.remove(scratch)
local top = scratch .. "/top"
assert(run("mkdir -p " .. quote(top)) == 0)
local links = { "examples", "core", "lua", "displays", "bench", "tests", "scripts", "bindings" }
local setup = { "ln -s " .. quote(build) .. " " .. quote(top .. "/build") }
for _, d in ipairs(links) do
  setup[#setup + 1] = "ln -s " .. quote(source .. "/" .. d) .. " " .. quote(top .. "/" .. d)
end
local shared = os.getenv("RETRACE_SHARED") or (source .. "/../shared/data")
local have_shared = run("test -d " .. quote(shared)) == 0
if have_shared then
  setup[#setup + 1] = "ln -s " .. quote(shared:gsub("/data$", "")) .. " " .. quote(scratch .. "/shared")
end
assert(run(table.concat(setup, " && ")) == 0)

local failed, ran, skipped = 0, 0, 0
for _, b in ipairs(blocks) do
  if b.text:find("../shared", 1, true) and not have_shared then
    skipped = skipped + 1
    print(("%s:%d: skipped: ../shared/data is absent"):format(page, b.line))
  else
    ran = ran + 1
    local script = scratch .. "/block.sh"
    local o = assert(io.open(script, "w"))
    o:write("set -e -o pipefail\nexport PATH=" .. quote(build) .. ":$PATH\n", b.text, "\n")
    o:close()
    local log = scratch .. "/block.log"
    local code = run(("cd %s && timeout 600 bash %s > %s 2>&1"):format(quote(top), quote(script), quote(log)))
    if code ~= 0 then
      failed = failed + 1
      local l = io.open(log):read("a")
      print(("%s:%d: the block exited with %d:\n%s\n--- its output (last 2000 bytes):\n%s"):format(
        page, b.line, code, b.text, l:sub(-2000)))
    end
  end
end
run("rm -rf " .. quote(scratch))
print(("%s: %d blocks run, %d failed, %d skipped"):format(page, ran, failed, skipped))
os.exit(failed == 0 and 0 or 1)
