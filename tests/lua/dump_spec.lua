-- retrace dump: one line per event for every format the replay reads, checked against
-- otf2-print on the shared OTF2 sample and by hand on small traces.
local h = require "helpers"

local function lines(text)
  local t = {}
  for l in text:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

describe("retrace dump", function()
  it("prints the events of the shared OTF2 sample in otf2-print's order", function()
    local archive = h.shared_file("otf2/pingpong/traces.otf2")
    if not archive then return pending("../shared/data is absent") end
    local p = io.popen("command -v otf2-print")
    local have = p:read("a") ~= ""
    p:close()
    if not have then return pending("otf2-print is not installed (make deps installs otf2-tools)") end
    -- otf2-print: KIND LOCATION TIMESTAMP Region: "name" <id> / Receiver: n ... Tag: t, Length: b
    local want = {}
    local kinds = { ENTER = "enter", LEAVE = "leave", MPI_SEND = "send", MPI_RECV = "receive" }
    local f = io.popen("otf2-print " .. h.quote(archive))
    for line in f:lines() do
      local kind, loc = line:match("^(%u[%u_]*)%s+(%d+)%s+%d+")
      if kind and kinds[kind] then
        local what
        if kind == "ENTER" or kind == "LEAVE" then
          what = line:match('Region: "(.-)" <')
        else
          local peer = line:match("Receiver: (%d+)") or line:match("Sender: (%d+)")
          what = string.format("%s B  %s %s  tag %s", line:match("Length: (%d+)"),
            kind == "MPI_SEND" and "to" or "from", peer, line:match("Tag: (%d+)"))
        end
        want[#want + 1] = string.format("P%s  %s  %s", loc, kinds[kind], what)
      end
    end
    f:close()
    assert.equals(116, #want) -- 42 enters, 42 leaves, 16 sends, 16 receives
    local code, out, err = h.retrace("dump", archive)
    assert.equals(0, code, err)
    local got = {}
    local last = -math.huge
    for _, l in ipairs(lines(out)) do
      local t, rest = l:match("^(%S+)  (.*)$")
      assert.is_true(tonumber(t) >= last, "time order at " .. l)
      last = tonumber(t)
      got[#got + 1] = rest
    end
    assert.same(want, got)
  end)

  it("prints a PICL trace's events, hand-checked, with --from/--to and --procs", function()
    local ring = h.source .. "/examples/picl/ring4.trf"
    local code, out, err = h.retrace("dump", ring)
    assert.equals(0, code, err)
    local all = lines(out)
    assert.equals(104, #all)
    assert.equals("0  P0  enter  tracing", all[1])
    -- "-3 -21 0.001100 1 0 3 2 1024 0 2": P1 sends 1 KiB to P2 with tag 0
    local i = 1
    while all[i] and not all[i]:find("^0%.0011  P1  send") do i = i + 1 end
    assert.equals("0.0011  P1  send  1024 B  to 2  tag 0", all[i])
    assert.equals("0.0011  P1  enter  send", all[i - 1])
    -- the window and the processors: exactly the lines of the whole dump that qualify
    code, out = h.retrace("dump", "--procs", "1,3", "--from", "0.001", "--to", "0.002", ring)
    assert.equals(0, code)
    local want = {}
    for _, l in ipairs(all) do
      local t, p = l:match("^(%S+)  P(%d+)")
      t, p = tonumber(t), tonumber(p)
      if t >= 0.001 and t <= 0.002 and (p == 1 or p == 3) then want[#want + 1] = l end
    end
    assert.is_true(#want >= 8, "the window holds " .. #want .. " lines")
    assert.same(want, lines(out))
    assert.equals("0.0011  P1  enter  send", want[1])
    -- standard input
    local p = io.popen(h.quote(h.bin) .. " dump - < " .. h.quote(ring))
    local piped = p:read("a")
    p:close()
    assert.same(all, lines(piped))
  end)

  it("prints Paraver and Paje events, hand-checked", function()
    local code, out, err = h.retrace("dump", h.fixtures .. "/paraver/small.prv")
    assert.equals(0, code, err)
    local l = lines(out)
    assert.equals(19, #l)
    -- 2:1:1:1:1:5:60000019:1:50000001:2 - two event values at 5 ns, whole
    assert.equals("5e-09  P0  marker  User functions  [1 60000019]", l[4])
    -- 3:1:1:1:1:10:12:2:1:2:1:15:30:64:7 - 64 bytes, tag 7, sent at 12 ns, received at 30 ns
    assert.equals("1.2e-08  P0  send  64 B  to 2  tag 7", l[8])
    assert.equals("3e-08  P2  receive  64 B  from 0  tag 7", l[11])
    assert.equals("0  P0  enter  Running", l[1])
    code, out, err = h.retrace("dump", h.fixtures .. "/paje/small.trace")
    assert.equals(0, code, err)
    l = lines(out)
    assert.equals(18, #l)
    assert.equals("1  P0  enter  user code", l[1])
    -- 17 4.6 p0 V 3.5: the variable "queue length" set to 3.5, a counter sample
    assert.equals("4.6  P0  counter  queue length = 3.5", l[12])
    assert.equals("2  P1  enter  MPI_Recv", l[3])
    -- a link's tag: the line of its first end (113: "15 k1 p0 1024 n1 L 2.5")
    assert.equals("2.5  P0  send  1024 B  to 1  tag 113", l[4])
    assert.equals("3  P1  receive  1024 B  from 0  tag 113", l[5])
    assert.equals("3.5  P0  marker  checkpoint A", l[7])
    code, out = h.retrace("dump", "--procs", "1", h.fixtures .. "/paje/small.trace")
    assert.equals(0, code)
    for _, x in ipairs(lines(out)) do assert.matches("^%S+  P1  ", x) end
    assert.equals(6, #lines(out))
  end)

  it("refuses bad input and bad usage with one line", function()
    local code, _, err = h.retrace("dump", "nosuch.trf")
    assert.equals(1, code)
    assert.equals("retrace: nosuch.trf: No such file or directory\n", err)
    local junk = h.temp_file("\0\1\2\3 no trace\n", ".bin")
    code, _, err = h.retrace("dump", junk)
    os.remove(junk)
    assert.equals(1, code)
    assert.matches("not a message%-passing trace", err)
    -- a trace of another kind: what it is, and the command that reads it
    local din = h.temp_file("0 0\n0 100\n1 200\n", ".din")
    code, _, err = h.retrace("dump", din)
    os.remove(din)
    assert.equals(1, code)
    assert.matches("is a Dinero IV din trace %(LABEL HEXADDR%), which 'retrace dump' does not read; try 'retrace cache ", err)
    code, _, err = h.retrace("dump", "--from", "2", "--to", "1", h.source .. "/examples/picl/ring4.trf")
    assert.equals(2, code)
    assert.equals("retrace: --from 2 is after --to 1\n", err)
    local archive = h.shared_file("otf2/pingpong/traces.otf2")
    if archive then
      code, _, err = h.retrace("dump", "--procs", "0,5", archive)
      assert.equals(2, code)
      assert.equals("retrace: --procs '5': the trace has processors 0..1\n", err)
    end
  end)
end)
