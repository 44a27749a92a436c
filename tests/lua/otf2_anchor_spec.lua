-- OTF2 archives whose anchor holds counts its files cannot (issue 25): the OTF2
-- library sizes tables by them (a property count read as 843 469 903 made it clear
-- 13 GB for 290 s); they are refused at once, in little memory, with one line naming
-- the anchor (rt_anchor_check.c). Variants: the property count, the location count,
-- the global definition count; an intact archive still reads.
local h = require "helpers"

local SRC = h.shared .. "/otf2/pingpong"

-- A copy of the ping-pong archive with bytes of its anchor replaced (offset -> bytes).
local function damaged(patch)
  local dir = h.temp_dir()
  assert(os.execute(("cp -r %s/traces %s/traces.def %s/traces.otf2 %s/"):format(h.quote(SRC), h.quote(SRC),
    h.quote(SRC), h.quote(dir))))
  local a = h.slurp(dir .. "/traces.otf2")
  for off, bytes in pairs(patch) do a = a:sub(1, off) .. bytes .. a:sub(off + #bytes + 1) end
  local f = assert(io.open(dir .. "/traces.otf2", "wb"))
  f:write(a)
  f:close()
  return dir
end

-- Peak memory (KiB), exit code and stderr of retrace stats on the archive.
local function stats(dir)
  local log, err = os.tmpname(), os.tmpname()
  local _, _, code = os.execute(("/usr/bin/time -f %%M -o %s timeout 60 %s stats %s >/dev/null 2>%s"):format(
    h.quote(log), h.quote(h.bin), h.quote(dir .. "/traces.otf2"), h.quote(err)))
  local kib, e = tonumber(h.slurp(log):match("(%d+)%s*$")), h.slurp(err)
  os.remove(log)
  os.remove(err)
  return kib, code, e
end

describe("an OTF2 anchor with counts its files cannot hold", function()
  if not io.open(SRC .. "/traces.otf2") then
    pending("../shared/data/otf2/pingpong is absent: no archive to damage")
    return
  end
  if not io.open("/usr/bin/time") then
    pending("/usr/bin/time is absent (Debian package time)")
    return
  end

  local cases = {
    -- the fuzzer's: the property count (at 0x3c after the three strings) read from text
    { "a property count of 843 469 903", { [0x3c] = "OTF2" }, "anchor: 843469903 properties do not fit" },
    { "a property count of 2^32 - 1", { [0x3c] = "\255\255\255\255" }, "anchor: 4294967295 properties" },
    -- the location count (uint64 at 30) and the global definition count (at 38)
    { "10^12 locations", { [30] = string.pack("<I8", 1000000000000) }, "anchor: 1000000000000 locations" },
    { "2^63 global definitions", { [38] = string.pack("<I8", 1 << 63) }, "9223372036854775808 global definitions" },
  }
  for _, c in ipairs(cases) do
    it("is refused for " .. c[1] .. ", in little memory", function()
      local dir = damaged(c[2])
      local kib, code, err = stats(dir)
      h.remove_tree(dir)
      assert.are.equal(1, code, err)
      assert.truthy(err:find(c[3], 1, true), err)
      assert.are.equal(1, select(2, err:gsub("\n", "")), err) -- one line
      assert.truthy(err:find("traces.otf2: anchor:", 1, true), err)
      assert.is_true(kib < 200 * 1024, kib .. " KiB")
    end)
  end

  it("leaves an intact archive to the library (its counts fit)", function()
    local dir = damaged {}
    local _, code, err = stats(dir)
    h.remove_tree(dir)
    assert.are.equal(0, code, err)
  end)
end)
