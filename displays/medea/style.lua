--- displays/medea/style: what the MEDEA displays share: cluster colours and
-- markers (distinct in gray mode too), the unit of each parameter, and the
-- axis options of a parameter.
local M = {}

-- Ten distinguishable colours for clusters (recycled past ten); each cluster also
-- gets its own marker, so clusters stay apart when printed in gray.
M.cluster_colors = { "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
                     "#7f7f7f", "#bcbd22", "#17becf" }
M.cluster_markers = { "circle", "square", "triangle", "diamond", "down", "cross", "ring", "plus" }

function M.cluster_color(h) return M.cluster_colors[(h - 1) % #M.cluster_colors + 1] end

function M.cluster_marker(h) return M.cluster_markers[(h - 1) % #M.cluster_markers + 1] end

--- The unit of a MEDEA parameter: times in seconds, data in bytes, counts and
-- processors without one.
function M.unit(name)
  name = tostring(name)
  if name:match("time$") then return "s" end
  if name:match("data$") then return "bytes" end
  return nil
end

--- Axis options for parameter `name` (retrace.plot): label, unit, log mode.
function M.axis(name, log, extra)
  local unit = M.unit(name)
  -- seconds print as s, ms, us or ns, whichever the range reads best in
  local ax = { label = name, unit = unit, time = unit == "s", log = log == nil and "auto" or log }
  for k, v in pairs(extra or {}) do ax[k] = v end
  return ax
end

return M
