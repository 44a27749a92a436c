--- retrace.numbers: numbers printed for people, with no more digits than they need.
--
--   numbers.format_number(v [, digits])  -> "0.0015", "6e-5", "-1.05353", "1.23457e6"
--   numbers.tick_labels(values [, step]) -> the fewest digits that tell adjacent ticks apart
--   numbers.format_signed_term(c, term [, first [, digits]]) -> "- 1.054 x", "+ 3 x^2"
-- (used by retrace.plot for axes and by analyses that print formulas).
local M = {}

-- v rounded to `digits` significant digits, as a string without trailing zeros.
local function sig(v, digits)
  local s = string.format("%." .. digits .. "g", v)
  local mant, exp = s:match("^([^e]*)e([-+]%d+)$")
  if mant then
    if mant:find("%.") then mant = mant:gsub("0+$", ""):gsub("%.$", "") end
    local e = tonumber(exp)
    return mant .. "e" .. e
  end
  if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
  return s
end

--- A time in seconds for people: the unit (s, ms, us, ns) that keeps the number
-- plain, at most `digits` significant digits (6): 11.5826 s, -1 us, 250 ms, 0 s.
function M.format_seconds(v, digits)
  if v ~= v or v == math.huge or v == -math.huge then return M.format_number(v) .. " s" end
  local a = math.abs(v)
  if a == 0 or a >= 1 then return M.format_number(v, digits) .. " s" end
  if a >= 1e-3 then return M.format_number(v * 1e3, digits) .. " ms" end
  if a >= 1e-6 then return M.format_number(v * 1e6, digits) .. " us" end
  return M.format_number(v * 1e9, digits) .. " ns"
end

--- v with at most `digits` significant digits (default 6), trailing zeros dropped;
-- plain notation from 1e-4 to 1e6 (whole numbers to 1e15), otherwise "1.5e7", "6e-5".
function M.format_number(v, digits)
  digits = digits or 6
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" end
  if v == -math.huge then return "-inf" end
  if v == 0 then return "0" end
  local a = math.abs(v)
  if a >= 1e-4 and a < 1e6 then
    -- %g switches to exponents by its own rule; print plain with enough decimals
    local e = math.floor(math.log(a, 10))
    local r = tonumber(string.format("%." .. digits .. "g", v))
    if r == 0 then return "0" end
    local dec = math.max(0, digits - 1 - e)
    local s = string.format("%." .. dec .. "f", r)
    if s:find("%.") then s = s:gsub("0+$", ""):gsub("%.$", "") end
    if s == "-0" then s = "0" end
    return s
  end
  if a >= 1e6 and a < 1e15 and v == math.floor(v) and digits >= 15 then
    return string.format("%d", math.floor(v))
  end
  return sig(v, digits)
end

--- Labels for a list of tick values: the fewest significant digits (1..15) with
-- which every label reads back within 1e-6 of the tick step and no two adjacent
-- labels are equal.
function M.tick_labels(values, step)
  local n = #values
  if n == 0 then return {} end
  if not step then
    step = math.huge
    for i = 2, n do step = math.min(step, math.abs(values[i] - values[i - 1])) end
    if step == math.huge or step == 0 then step = math.max(math.abs(values[1]), 1e-300) end
  end
  for digits = 1, 15 do
    local out, ok = {}, true
    for i, v in ipairs(values) do
      local s = M.format_number(v, digits)
      out[i] = s
      if math.abs((tonumber(s) or math.huge) - v) > step * 1e-6 then ok = false; break end
      if i > 1 and s == out[i - 1] then ok = false; break end
    end
    if ok then return out end
  end
  local out = {}
  for i, v in ipairs(values) do out[i] = M.format_number(v, 15) end
  return out
end

--- A signed term of a formula: "- 1.05 x", "+ 2 x^2"; first = true for the
-- leading term ("-1.05 x", "2 x^2"). term may be "" for a constant. digits: 4.
function M.format_signed_term(c, term, first, digits)
  local num = M.format_number(math.abs(c), digits or 4)
  local body = (term and term ~= "") and (num .. " " .. term) or num
  if first then return (c < 0 and "-" or "") .. body end
  return (c < 0 and "- " or "+ ") .. body
end

return M
