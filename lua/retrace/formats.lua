--- retrace.formats: recognise a trace file's format from its first lines.
-- formats.detect(path) -> name, why   (or nil, message when unreadable)
-- Names: shmap, picl-new, picl-old, din, xdin, lackey, bin, pes, paje, paraver, otf2, unknown.
local M = {}

M.descriptions = {
  shmap = "SHMAP memory-access trace (opcodes 0-9)",
  ["picl-new"] = "PICL trace, new (MPICL) record format",
  ["picl-old"] = "PICL trace, old (ParaGraph) record format",
  din = "Dinero IV din trace (LABEL HEXADDR)",
  xdin = "Dinero IV extended din trace (r|w|i|m|c|v HEXADDR HEXSIZE)",
  lackey = "Valgrind lackey --trace-mem=yes log",
  bin = "retrace binary memory-reference trace (RTMB)",
  pes = "program execution sequence (STATE TIME per line)",
  paje = "Paje trace",
  paraver = "Paraver trace",
  otf2 = "OTF2 anchor file",
  unknown = "not recognised",
}

local function classify(line)
  if line:match("^%%EventDef") then return "paje" end
  if line:match("^#Paraver") then return "paraver" end
  if line:match("^==%d+==") then return "lackey" end
  if line:match("^ ?[ILSM]%s+%x+,%d+") then return "lackey" end
  if line:match("^[rwimcv]%s+%x+%s+%x+%s*$") then return "xdin" end
  local f = {}
  for w in line:gmatch("%S+") do f[#f + 1] = w end
  if #f == 0 then return nil end
  local first = tonumber(f[1])
  if math.type(first) == "integer" and first <= -2 and #f >= 6 then return "picl-new" end
  if #f == 2 and math.type(first) == "integer" and f[2]:match("^%x+$") and first >= 0 and first <= 4 then
    return "din"
  end
  if first == 0 and #f == 4 then return "shmap", 5 end
  if (first == 1 or first == 2) and #f == 7 then
    local ok = true
    for i = 3, 6 do
      local v = math.tointeger(tonumber(f[i]))
      if not v or v < 1 then ok = false end
    end
    if ok then return "shmap" end
  end
  if first and first >= 3 and first <= 9 and #f >= 2 and not tonumber(f[2]) then return "shmap", 2 end
  if math.type(first) == "integer" and first >= 1 and first <= 30 and #f >= 4
    and tonumber(f[2]) and tonumber(f[3]) and tonumber(f[4]) then
    return "picl-old"
  end
  if #f == 2 and not tonumber(f[1]) and tonumber(f[2]) then return "pes" end
  if line:match("^%s*%(") and line:match("%)") then return "pes" end
  return nil
end

function M.detect(path)
  if path:match("%.otf2$") then return "otf2", "file name" end
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local head, rerr = f:read(4096)
  if not head and rerr then
    f:close()
    return nil, path .. ": " .. rerr:gsub("^.-: ", "")
  end
  head = head or ""
  if head:sub(1, 8) == "RTMB\r\n\26\n" then
    f:close()
    return "bin", "magic RTMB"
  end
  if head:find("\0", 1, true) then
    f:close()
    return "unknown", "binary data (NUL bytes) and no known magic number"
  end
  f:seek("set", 0)
  local votes, n = {}, 0
  for line in f:lines() do
    if not line:match("^%s*#") or line:match("^#Paraver") then
      local kind, weight = classify(line)
      if kind then
        votes[kind] = (votes[kind] or 0) + (weight or 1)
        if kind == "paje" or kind == "paraver" then break end
      end
      n = n + 1
      if n >= 50 then break end
    end
  end
  f:close()
  local best, count = "unknown", 0
  for k, c in pairs(votes) do
    if c > count or (c == count and k < best) then best, count = k, c end
  end
  return best, count > 0 and ("score " .. count .. " over the first " .. n .. " lines") or "no line recognised"
end

return M
