--- A replacement policy of your own: evict the least recently used of the two
-- oldest lines in the set (a blend of FIFO and LRU). The engine records each way's
-- last reference (set.last) and load (set.loaded) as clock values, so the policy is
-- asked only on a miss in a full set; ways count from 1.
--   retrace cache examples/cache/transpose.din --size 8K --ways 4 --policy examples/cache/lru_fifo.lua
local cache = require "retrace.cache"

return cache.policy{
  name = "lru-of-two-oldest",
  recency = "both",
  victim = function(set)
    local loaded, last = set.loaded, set.last
    local a, b = 1, nil -- the oldest and second-oldest loads
    for w = 2, set.ways do
      if loaded[w] < loaded[a] then a, b = w, a
      elseif not b or loaded[w] < loaded[b] then b = w end
    end
    if b and last[b] < last[a] then return b end
    return a
  end,
}
