-- The viewer's screenshots for the gallery: runs the browser tests (tests/browser/test_*.py)
-- with the screenshots going to OUT.
--   retrace tests/browser/gallery_shots.lua RETRACE OUT     (examples/gallery.lua runs it)
local retrace, out = arg[1], arg[2]
if not retrace or not out then
  io.stderr:write("usage: retrace tests/browser/gallery_shots.lua RETRACE OUT\n")
  os.exit(2)
end
local here = arg[0]:match("^(.*)/[^/]+$") or "."
local function q(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
-- the browser tests that take screenshots: the OTF2 sample's steps, counters, a Chitra sequence
local ok = true
for _, test in ipairs({ "test_view.py", "test_counters.py", "test_pes.py", "test_shmap.py" }) do
  local cmd = string.format("RETRACE_BIN=%s RETRACE_VIEW_GALLERY=%s /usr/bin/python3 %s/%s >&2", q(retrace), q(out),
    q(here), test)
  local done, _, code = os.execute(cmd)
  ok = (done or code == 77) and ok -- (77: skipped, a sample or the browser missing)
end
os.exit(ok and 0 or 1)
