-- The viewer's screenshots for the gallery: runs the browser test (tests/browser/test_view.py)
-- with the screenshots going to OUT.
--   retrace tests/browser/gallery_shots.lua RETRACE OUT     (examples/gallery.lua runs it)
local retrace, out = arg[1], arg[2]
if not retrace or not out then
  io.stderr:write("usage: retrace tests/browser/gallery_shots.lua RETRACE OUT\n")
  os.exit(2)
end
local here = arg[0]:match("^(.*)/[^/]+$") or "."
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local cmd = string.format("RETRACE_BIN=%s RETRACE_VIEW_GALLERY=%s /usr/bin/python3 %s/test_view.py >&2", q(retrace), q(out), q(here))
local ok = os.execute(cmd)
os.exit(ok and 0 or 1)
