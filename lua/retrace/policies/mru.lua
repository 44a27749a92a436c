--- MRU: evict the most recently referenced line (good for loops over data
-- larger than the cache, where LRU evicts exactly the line needed next).
-- Ties to the lowest way. The engine records each way's last reference
-- (recency), so the policy is asked only for victims.
local cache = require "retrace.cache"

return cache.policy{
  name = "mru",
  recency = true,
  victim = function(set)
    local last, best = set.last, 1
    local t = last[1]
    for w = 2, set.ways do
      local v = last[w]
      if v > t then best, t = w, v end
    end
    return best
  end,
}
