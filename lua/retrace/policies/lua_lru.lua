--- LRU written in Lua: the same choices as the built-in "lru" (least recently
-- referenced, a fill counting as a reference, ties to the lowest way). The
-- engine keeps the time of each way's last reference (recency), so the policy
-- is asked only for a victim, on a miss in a full set.
local cache = require "retrace.cache"

return cache.policy{
  name = "lua_lru",
  recency = true,
  stack = "last", -- a hierarchy's copy-back order: LRU's
  victim = function(set)
    local last, best = set.last, 1
    local t = last[1]
    for w = 2, set.ways do
      local v = last[w]
      if v < t then best, t = w, v end
    end
    return best
  end,
}
