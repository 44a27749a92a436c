--- Tree pseudo-LRU (W a power of two): a binary tree over the ways whose every
-- node points away from the half that was referenced last; the victim is
-- found by following the pointers from the root. A node's pointer is set by
-- the last reference passing through it, that is the latest reference among
-- its ways, so the policy reads it from the engine's record of each way's
-- last reference (recency) and needs no call per hit. The same choices as the
-- hierarchy's built-in "plru" (Dinero IV's -lN-Trepl p).
local cache = require "retrace.cache"

return cache.policy{
  name = "plru",
  recency = true,
  victim = function(set)
    local last, lo, hi = set.last, 1, set.ways + 1
    while hi - lo > 1 do
      local mid = (lo + hi) // 2
      local left, right = 0, 0
      for w = lo, mid - 1 do
        if last[w] > left then left = last[w] end
      end
      for w = mid, hi - 1 do
        if last[w] > right then right = last[w] end
      end
      if left > right then lo = mid else hi = mid end -- away from the latest
    end
    return lo
  end,
}
