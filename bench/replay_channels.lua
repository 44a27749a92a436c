-- Memory of the message matching when every message has a tag of its own (a
-- program that numbers its messages): 16 processors in a ring, each step a send to
-- the right and a receive from the left on a new tag, at 2x10^4 and 2x10^5 steps
-- (3.2x10^5 and 3.2x10^6 messages). `retrace stats` (one replay) and
-- `retrace paragraph --static` (pre-pass, replay, raster) run under
-- /usr/bin/time: wall time and peak memory. Memory must not grow with the number
-- of channels met, only with the channels in flight (16 here).
--   build/retrace bench/replay_channels.lua [STEPS]   (default 20000; 10x is run too)
local steps = tonumber(arg and arg[1]) or 20000
local bin = arg and arg[-1] or "build/retrace"
local dir = os.tmpname()
os.remove(dir)
assert(os.execute("mkdir -p " .. dir))

local function generate(path, n)
  local cmd = ([[awk -v S=%d 'BEGIN { t = 0; P = 16
    for (s = 0; s < S; s++) { tag = s + 100
      for (p = 0; p < P; p++) { t += 1e-6; printf "-3 -21 %%.6f %%d 0 3 2 1024 %%d %%d\n", t, p, tag, (p + 1) %% P
                                t += 1e-6; printf "-4 -21 %%.6f %%d 0 0\n", t, p }
      for (p = 0; p < P; p++) { t += 1e-6; printf "-3 -52 %%.6f %%d 0 2 2 %%d %%d\n", t, p, tag, (p + P - 1) %% P
                                t += 2e-6; printf "-4 -52 %%.6f %%d 0 3 2 1024 %%d %%d\n", t, p, tag, (p + P - 1) %% P } } }' > %s]])
    :format(n, path)
  assert(os.execute(cmd))
end

local function measure(args)
  local tf = dir .. "/time.txt"
  assert(os.execute(("/usr/bin/time -f '%%e %%M' -o %s %s %s > /dev/null"):format(tf, bin, args)))
  local f = assert(io.open(tf))
  local secs, kb = f:read("n", "n")
  f:close()
  return secs, kb / 1024
end

print(("%-10s %-12s %-22s %10s %10s"):format("steps", "messages", "command", "seconds", "peak MiB"))
for _, n in ipairs({ steps, steps * 10 }) do
  local trace = dir .. "/tags.trf"
  generate(trace, n)
  for _, c in ipairs({ { "stats", "stats " .. trace },
                       { "paragraph --static", "paragraph " .. trace .. " --static -o " .. dir .. "/g.png" } }) do
    local s, mib = measure(c[2])
    print(("%-10d %-12d %-22s %10.2f %10.1f"):format(n, n * 16, c[1], s, mib))
  end
  os.remove(trace)
end
os.execute("rm -rf " .. dir)
