--- LRU written in Lua: the same choices as the built-in "lru" (least recently
-- referenced, a fill counting as a reference, ties to the lowest way).
local cache = require "retrace.cache"

local function touch(set, way, now)
  set.state[way] = now
end

return cache.policy{
  name = "lua_lru",
  hit = touch,
  fill = touch,
  victim = function(set, now)
    local st, best, t = set.state, 1, set.state[1]
    for w = 2, set.ways do
      if st[w] < t then best, t = w, st[w] end
    end
    return best
  end,
}
