--- MRU: evict the most recently referenced line (good for loops over data
-- larger than the cache, where LRU evicts exactly the line needed next).
-- Ties to the lowest way.
local cache = require "retrace.cache"

local function touch(set, way, now)
  set.state[way] = now
end

return cache.policy{
  name = "mru",
  hit = touch,
  fill = touch,
  victim = function(set, now)
    local st, best, t = set.state, 1, set.state[1]
    for w = 2, set.ways do
      if st[w] > t then best, t = w, st[w] end
    end
    return best
  end,
}
