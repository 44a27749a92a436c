--- The order in which ParaGraph displays lay processors out (--order): natural
-- (0, 1, 2, ...) or Gray code (the binary reflected Gray code, so that
-- neighbours along an axis differ in one bit of their number: hypercube
-- neighbours). Every display that orders processors asks this module; the
-- sequence itself is the library's (retrace.paragraph gray_order, which the
-- command also uses for ctx.order), so the rule lives once.
--
--   local order = require "retrace.displays.paragraph.order"
--   order.gray(8)              -> {0, 1, 3, 2, 6, 7, 5, 4}  position i (1-based) -> processor
--   order.list("gray", P)      -> the same, or order.natural(P) for "natural"
--   order.rank(g)              -> the place of g in the Gray sequence (0-based): rank(6) = 4
--   order.positions(list)      -> {[processor] = position (1-based)}
--   order.kinds                -> {"natural", "gray"}
--   order.of(ctx), order.name(ctx) -> the list a display uses and its name
local pg = require "retrace.paragraph"

local M = {}

M.kinds = { "natural", "gray" }

--- The inverse of the Gray code: the rank of code g in the sequence (prefix XOR
-- of g's shifts).
function M.rank(g)
  local i, s = g, 1
  while (g >> s) > 0 do
    i = i ~ (g >> s)
    s = s + 1
  end
  return i
end

--- Gray-code order of P processors; codes of P or more (P not a power of two)
-- are left out, keeping the rest in sequence.
function M.gray(P) return pg.gray_order(P) end

--- Natural order 0 .. P - 1.
function M.natural(P) return pg.natural_order(P) end

--- The order named kind ("natural" or "gray") of P processors; nil and a message
-- for an unknown kind.
function M.list(kind, P)
  if kind == nil or kind == "natural" then return M.natural(P) end
  if kind == "gray" then return M.gray(P) end
  return nil, "order '" .. tostring(kind) .. "': use " .. table.concat(M.kinds, " or ")
end

--- Positions {[processor] = position} of an order (the inverse of the list).
function M.positions(list)
  local pos = {}
  for i, p in ipairs(list) do pos[p] = i end
  return pos
end

--- The order a display uses: ctx.order (set by the command) or natural.
function M.of(ctx)
  return ctx.order or M.natural(ctx.P)
end

--- The name of the order a display uses: ctx.order_kind when the command set
-- it, else "natural" or "gray" by the list itself ("custom" for any other).
function M.name(ctx)
  if ctx.order_kind then return ctx.order_kind end
  local list = M.of(ctx)
  local natural, gray = true, true
  local g = M.gray(#list)
  for i, p in ipairs(list) do
    natural = natural and p == i - 1
    gray = gray and p == g[i]
  end
  return natural and "natural" or gray and "gray" or "custom"
end

return M
