--- retrace.medea.functional: the functional description of clusters.
--
--   members(components, assign, k) -> { [h] = {name, ...} }
--   breakdown(names, assign, k) -> { {field = i, values = {v = {[h] = count}}} , ... }
-- Names are split on dots: "pstswm.02.4.x" has fields pstswm, 02, 4, x (the
-- application, algorithm, protocol and buffering of the case-study naming).
local M = {}

--- Fields of a dot-separated name.
function M.fields(name)
  local out = {}
  for f in tostring(name):gmatch("[^%.]+") do out[#out + 1] = f end
  return out
end

--- Names of the members of each cluster, in component order.
function M.members(names, assign, k)
  local out = {}
  for h = 1, k do out[h] = {} end
  for i, name in ipairs(names) do
    local m = out[assign[i]]
    m[#m + 1] = name
  end
  return out
end

--- For each field position, how many members of each cluster carry each value.
-- Returns a list by field position: { field = i, values = { value = {[h] = count} } }
-- (counts are 0 for clusters without that value, so every row is complete).
function M.breakdown(names, assign, k)
  local out = {}
  for i, name in ipairs(names) do
    for pos, v in ipairs(M.fields(name)) do
      out[pos] = out[pos] or { field = pos, values = {} }
      local row = out[pos].values[v]
      if not row then
        row = {}
        for h = 1, k do row[h] = 0 end
        out[pos].values[v] = row
      end
      row[assign[i]] = row[assign[i]] + 1
    end
  end
  return out
end

return M
