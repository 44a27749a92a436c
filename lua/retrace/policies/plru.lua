--- Tree pseudo-LRU: a binary tree of W-1 bits per set (W a power of two). Each
-- reference sets the bits on its path to point away from it; the victim is
-- found by following the bits from the root. Node k has children 2k and 2k+1;
-- leaves W..2W-1 are ways 1..W. A bit of 0 points left, 1 points right.
local cache = require "retrace.cache"

local function touch(set, way, now)
  local bits = set.state
  local node = set.ways + way - 1
  while node > 1 do
    local parent = node // 2
    -- point away from the child we came from
    bits[parent] = (node % 2 == 0) and 1 or 0
    node = parent
  end
end

return cache.policy{
  name = "plru",
  init = function(set)
    for k = 1, set.ways - 1 do set.state[k] = 0 end
  end,
  hit = touch,
  fill = touch,
  victim = function(set, now)
    local bits, node = set.state, 1
    while node < set.ways do
      node = 2 * node + (bits[node] or 0)
    end
    return node - set.ways + 1
  end,
}
