--- retrace.pretty: readable text for any Lua value (used by the REPL).
-- pretty.format(v [, opts]) -> string; opts: depth (default 4), width (line
-- width before a table is broken over lines, default 78), max_items (default 50).
local M = {}

local keywords = {}
for w in ([[and break do else elseif end false for function goto if in
  local nil not or repeat return then true until while]]):gmatch("%a+") do
  keywords[w] = true
end

local function is_identifier(k)
  return type(k) == "string" and k:match("^[%a_][%w_]*$") and not keywords[k]
end

local function scalar(v)
  if type(v) == "string" then
    return (string.format("%q", v):gsub("\\\n", "\\n"))
  end
  return tostring(v) -- also __tostring, or "retrace.Lines: 0x..." from __name
end

local key_order = require("retrace.json").key_less

local function format(v, opts, indent, seen, depth)
  if type(v) ~= "table" then return scalar(v) end
  local mt = getmetatable(v)
  if type(mt) == "table" and mt.__tostring then return tostring(v) end
  if seen[v] then return "<cycle>" end
  if depth >= opts.depth then return "{...}" end
  seen[v] = true
  local parts, n = {}, #v
  for i = 1, math.min(n, opts.max_items) do
    parts[#parts + 1] = format(v[i], opts, indent .. "  ", seen, depth + 1)
  end
  if n > opts.max_items then parts[#parts + 1] = "... (" .. n .. " items)" end
  local keys = {}
  for k in pairs(v) do
    if not (math.type(k) == "integer" and k >= 1 and k <= n) then keys[#keys + 1] = k end
  end
  table.sort(keys, key_order)
  local shown = 0
  for _, k in ipairs(keys) do
    shown = shown + 1
    if shown > opts.max_items then
      parts[#parts + 1] = "... (" .. #keys .. " keys)"
      break
    end
    local ks = is_identifier(k) and k or "[" .. scalar(k) .. "]"
    parts[#parts + 1] = ks .. " = " .. format(v[k], opts, indent .. "  ", seen, depth + 1)
  end
  seen[v] = nil
  if #parts == 0 then return "{}" end
  local flat = "{ " .. table.concat(parts, ", ") .. " }"
  if #flat + #indent <= opts.width and not flat:find("\n") then return flat end
  return "{\n" .. indent .. "  " .. table.concat(parts, ",\n" .. indent .. "  ") .. "\n" .. indent .. "}"
end

function M.format(v, opts)
  opts = opts or {}
  local o = {
    depth = opts.depth or 4,
    width = opts.width or 78,
    max_items = opts.max_items or 50,
  }
  return format(v, o, "", {}, 0)
end

return M
