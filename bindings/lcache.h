/*
 * lcache.h - what other bindings need from the cache binding: turning a Lua
 * value into a replacement policy for an rt_cache_config.
 */
#ifndef RT_LCACHE_H
#define RT_LCACHE_H

#include <lua.h>

#include "rt_cache.h"

/*
 * Set cfg->policy / cfg->policy_ud from the Lua value at idx:
 *   - a built-in name ("lru", "lfu", "fifo", "lifo", "clock", "random");
 *   - a policy table made by retrace.cache.policy{...} (or any table with a
 *     victim function and optional init / hit / fill functions and a name);
 *   (a shipped Lua policy by name, or FILE.lua, is first turned into such a
 *   table by retrace.cache.resolve_policy: the one lookup of Lua policies).
 * Pushes exactly one value: the policy instance (a userdata owning the Lua
 * side: the hook functions and the per-set tables), or nil for a built-in.
 * The caller keeps that value alive for as long as the cache lives (store it
 * as a user value of the userdata that owns the rt_cache) and creates one
 * instance per cache. The rt_cache does not own it (policy->free is NULL).
 * Raises a Lua error on a bad value (a name that is not a built-in, with the
 * core's message listing them; a table without victim).
 */
void rt_lcache_policy(lua_State *L, int idx, rt_cache_config *cfg);

#endif
