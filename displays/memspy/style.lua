--- displays/memspy/style: what the MemSpy pictures share: the colours of the
-- three miss causes (apart in gray too: their luminances differ), the heat
-- scale of the matrix, a name cut to fit a width.
local colors = require "retrace.colors"

local M = {}

-- first reference: blue (mid), replacement: orange (light), invalidation: dark plum
M.causes = {
  { key = "first", label = "first reference", color = "#3b75af" },
  { key = "replacement", label = "replacement", color = "#f5a442" },
  { key = "invalidation", label = "invalidation", color = "#5a1846" },
}

--- The colour of a cause in the current mode.
function M.cause_color(i) return colors.ink(M.causes[i].color) end

--- n steps of the matrix's heat scale: pale yellow to dark red (gray: white to black).
function M.heat(n)
  local stops = colors.mode == "gray" and { "#e0e0e0", "#202020" }
    or { "#ffe9a0", "#fdb050", "#e6550d", "#7f0000" }
  return colors.ramp(n, stops)
end

--- s cut with "..." in its middle to at most w device pixels on canvas cv at the current
-- font: the head and the tail stay, so names that differ only at their end (call paths
-- of captured allocations, `...<main:34` and `...<main:35`) stay apart.
function M.fit(cv, s, w)
  if cv:text_size(s) <= w then return s end
  local n = #s - 1
  local function cut(k)
    local head = (k + 1) // 2
    return s:sub(1, head) .. "..." .. s:sub(#s - (k - head) + 1)
  end
  while n > 1 and cv:text_size(cut(n)) > w do n = n - 1 end
  return cut(n)
end

return M
