/*
 * lcache.c - Lua face of core/cache and the memory-trace readers.
 *
 *   cache.new{size=, line=, ways=, policy=, write_back=, seed=} -> Cache
 *     c:access(addr, is_write) -> hit, way (1-based), line, evicted line | nil
 *     c:access_range(addr, size, is_write) -> misses
 *     c:probe(addr) -> boolean      c:stats() -> table    c:config() -> table
 *     c:flush([invalidate])         c:reset()             c:close()
 *     c:line_at(set, way) -> line | nil   (set from 0, way from 1)
 *   cache.run(path, {format=, size=, line=, ways=, policy=, seed=, write_back=,
 *                    unified=, classify=, sweep=, progress=fn(done, total)}) -> result | nil, msg
 *   cache.convert(path, format, out) -> records | nil, msg
 *   cache.policies -> {"lru", ...}     cache.lookup(name) -> name | nil, msg
 *   cache.check_geometry(size, line, ways[, unit]) -> true | nil, msg
 *   cache.hit_ratio(hits, misses) -> number
 *
 * A Lua policy is an operations table whose hooks call the policy's Lua
 * functions (ways from 1; each set a table {index=, ways=, state={}}, with
 * recency also last={} and/or loaded={}, the engine's clock at each way's
 * last reference and load, written before each victim call).
 */
#include "lcache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "rt_file.h"
#include "rt_hier.h"
#include "rt_memsim.h"
#include "rt_memtrace.h"

#define CACHE_T "retrace.Cache"
#define LPOLICY_T "retrace.LuaPolicy"

/* ---- Lua policies ---- */

typedef struct lpolicy {
    rt_policy_ops ops;    /* hooks below; name points into `name` */
    lua_State *L;         /* the main thread */
    int fn[4];            /* registry refs of init, hit, fill, victim (LUA_NOREF: absent) */
    int sets;             /* registry ref of the table of per-set tables */
    int recency;          /* REC_LAST | REC_LOADED: set.last, set.loaded kept for victim */
    int rec[2];           /* registry refs of the per-set last and loaded tables, by set + 1 */
    /* The victim hook runs on a thread of its own whose stack keeps what every
     * call needs (V_* below): a call pushes only the set, the times and now. */
    lua_State *T;
    int tref;             /* registry ref of T */
    /* what set.last and set.loaded hold, by set index * stride + way (0 after
     * lp_init): a victim call writes only the entries that changed. stride is
     * the ways of the first set made (shadow off, NULL, if another differs). */
    uint64_t *shadow[2];
    size_t nshadow;       /* entries of each shadow */
    unsigned stride;
    int noshadow;
    char name[64];
} lpolicy;

/* T's stack between victim calls */
enum { V_HANDLER = 1, V_FN, V_SETS, V_LAST, V_LOADED, V_TOP = V_LOADED };

enum { H_INIT, H_HIT, H_FILL, H_VICTIM };
enum { REC_LAST = 1, REC_LOADED = 2 };
static const char *const rec_names[] = {"last", "loaded"};
static const char *const hook_names[] = {"init", "hit", "fill", "victim"};

/* push fn and the set's table; returns the stack base to restore */
static void push_hook(lpolicy *p, int h, const rt_policy_set *s)
{
    lua_State *L = p->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->fn[h]);
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->sets);
    lua_rawgeti(L, -1, (lua_Integer)s->index + 1);
    lua_remove(L, -2);
}

/* A hook's call: the function and its nargs arguments above rt_msghandler,
 * pushed first by the caller at index base, so no rotation is needed (hooks
 * run once per miss or per reference). The caller pops down to base - 1. */
static int hook_call(lpolicy *p, int base, int nargs, int nresults)
{
    return lua_pcall(p->L, nargs, nresults, base);
}

/* below: the stack's top to restore (rt_docall's caller: under the error;
 * hook_call's: under its handler) */
static int hook_fail_on(lpolicy *p, lua_State *L, int h, rt_policy_set *s, int below)
{
    const char *msg = lua_tostring(L, -1); /* rt_msghandler made every error a string */
    if (!msg)
        msg = "error without a message";
    /* the first line: the message, without the traceback the handler appended */
    rt_err_set(s->err, RT_EINVAL, "policy %s: %s: %.*s", p->name, hook_names[h], (int)strcspn(msg, "\n"), msg);
    lua_settop(L, below);
    return RT_EINVAL;
}

static int hook_fail(lpolicy *p, int h, rt_policy_set *s, int below)
{
    return hook_fail_on(p, p->L, h, s, below);
}

static void shadow_off(lpolicy *p)
{
    for (int k = 0; k < 2; k++) {
        free(p->shadow[k]);
        p->shadow[k] = NULL;
    }
    p->nshadow = 0;
    p->noshadow = 1;
}

/* set s's entries of the shadows: 0, as lp_init wrote them */
static void shadow_init(lpolicy *p, const rt_policy_set *s)
{
    if (p->noshadow)
        return;
    if (!p->stride)
        p->stride = s->ways;
    if (p->stride != s->ways) {
        shadow_off(p);
        return;
    }
    size_t need = ((size_t)s->index + 1) * p->stride;
    if (need > p->nshadow) {
        size_t n = p->nshadow ? p->nshadow : 64 * (size_t)p->stride;
        while (n < need)
            n *= 2;
        for (int k = 0; k < 2; k++) {
            uint64_t *q = realloc(p->shadow[k], n * sizeof *q);
            if (!q) {
                shadow_off(p);
                return;
            }
            memset(q + p->nshadow, 0, (n - p->nshadow) * sizeof *q);
            p->shadow[k] = q;
        }
        p->nshadow = n;
    }
    for (int k = 0; k < 2; k++)
        memset(p->shadow[k] + (size_t)s->index * p->stride, 0, p->stride * sizeof(uint64_t));
}

static int lp_init(void *ud, rt_policy_set *s)
{
    lpolicy *p = ud;
    lua_State *L = p->L;
    if (!lua_checkstack(L, 8))
        return rt_err_set(s->err, RT_ENOMEM, "policy %s: Lua stack overflow", p->name);
    lua_rawgeti(L, LUA_REGISTRYINDEX, p->sets);
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, s->index);
    lua_setfield(L, -2, "index");
    lua_pushinteger(L, s->ways);
    lua_setfield(L, -2, "ways");
    lua_newtable(L);
    lua_setfield(L, -2, "state");
    for (int k = 0; k < 2; k++) {
        if (!(p->recency & (1 << k)))
            continue;
        lua_createtable(L, (int)s->ways, 0);
        for (unsigned w = 1; w <= s->ways; w++) {
            lua_pushinteger(L, 0);
            lua_rawseti(L, -2, w);
        }
        lua_rawgeti(L, LUA_REGISTRYINDEX, p->rec[k]); /* also by set number, for lp_victim */
        lua_pushvalue(L, -2);
        lua_rawseti(L, -2, (lua_Integer)s->index + 1);
        lua_pop(L, 1);
        lua_setfield(L, -2, rec_names[k]);
    }
    if (p->recency)
        shadow_init(p, s);
    lua_rawseti(L, -2, (lua_Integer)s->index + 1);
    lua_pop(L, 1);
    if (p->fn[H_INIT] == LUA_NOREF)
        return RT_OK;
    push_hook(p, H_INIT, s);
    if (rt_docall(L, 1, 0) != LUA_OK)
        return hook_fail(p, H_INIT, s, lua_gettop(L) - 1);
    return RT_OK;
}

static int lp_touch(lpolicy *p, int h, rt_policy_set *s, unsigned way, uint64_t now)
{
    lua_State *L = p->L;
    if (!lua_checkstack(L, 12))
        return rt_err_set(s->err, RT_ENOMEM, "policy %s: Lua stack overflow", p->name);
    lua_pushcfunction(L, rt_msghandler);
    int base = lua_gettop(L);
    push_hook(p, h, s);
    lua_pushinteger(L, (lua_Integer)way + 1);
    lua_pushinteger(L, (lua_Integer)now);
    if (hook_call(p, base, 3, 0) != LUA_OK)
        return hook_fail(p, h, s, base - 1);
    lua_settop(L, base - 1);
    return RT_OK;
}

static int lp_hit(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    return lp_touch(ud, H_HIT, s, way, now);
}

static int lp_fill(void *ud, rt_policy_set *s, unsigned way, uint64_t now)
{
    return lp_touch(ud, H_FILL, s, way, now);
}

static int lp_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    lpolicy *p = ud;
    lua_State *T = p->T;
    if (!lua_checkstack(T, 8))
        return rt_err_set(s->err, RT_ENOMEM, "policy %s: Lua stack overflow", p->name);
    lua_pushvalue(T, V_FN);
    lua_rawgeti(T, V_SETS, (lua_Integer)s->index + 1);
    for (int k = 0; k < 2 && s->last; k++) { /* the engine's record into set.last, set.loaded */
        if (!(p->recency & (1 << k)))
            continue;
        const uint64_t *v = k ? s->loaded : s->last;
        lua_rawgeti(T, V_LAST + k, (lua_Integer)s->index + 1);
        uint64_t *sh = p->shadow[k] && s->ways == p->stride
                               && ((size_t)s->index + 1) * p->stride <= p->nshadow
                           ? p->shadow[k] + (size_t)s->index * p->stride
                           : NULL;
        for (unsigned w = 0; w < s->ways; w++) {
            if (sh) {
                if (sh[w] == v[w])
                    continue;
                sh[w] = v[w];
            }
            lua_pushinteger(T, (lua_Integer)v[w]);
            lua_rawseti(T, -2, (lua_Integer)w + 1);
        }
        lua_pop(T, 1);
    }
    lua_pushinteger(T, (lua_Integer)now);
    if (lua_pcall(T, 2, 1, V_HANDLER) != LUA_OK)
        return hook_fail_on(p, T, H_VICTIM, s, V_TOP);
    int isint;
    lua_Integer w = lua_tointegerx(T, -1, &isint);
    if (!isint || w < 1 || w > (lua_Integer)s->ways) {
        rt_err_set(s->err, RT_ERANGE, "policy %s: victim: returned %s, not a way 1..%u", p->name,
                   luaL_tolstring(T, -1, NULL), s->ways);
        lua_settop(T, V_TOP);
        return RT_ERANGE;
    }
    lua_settop(T, V_TOP);
    *way = (unsigned)(w - 1);
    return RT_OK;
}

static int lpolicy_tostring(lua_State *L)
{
    lpolicy *p = luaL_checkudata(L, 1, LPOLICY_T);
    lua_pushfstring(L, LPOLICY_T ": %s", p->name);
    return 1;
}

static int lpolicy_gc(lua_State *L)
{
    lpolicy *p = luaL_checkudata(L, 1, LPOLICY_T);
    for (int h = 0; h < 4; h++) {
        luaL_unref(L, LUA_REGISTRYINDEX, p->fn[h]);
        p->fn[h] = LUA_NOREF;
    }
    luaL_unref(L, LUA_REGISTRYINDEX, p->sets);
    p->sets = LUA_NOREF;
    luaL_unref(L, LUA_REGISTRYINDEX, p->tref);
    p->tref = LUA_NOREF;
    p->T = NULL;
    shadow_off(p);
    for (int k = 0; k < 2; k++) {
        luaL_unref(L, LUA_REGISTRYINDEX, p->rec[k]);
        p->rec[k] = LUA_NOREF;
    }
    return 0;
}

/* table at idx -> pushes an lpolicy userdata and points cfg at it */
static void policy_from_table(lua_State *L, int idx, rt_cache_config *cfg)
{
    idx = lua_absindex(L, idx);
    lua_getfield(L, idx, "victim");
    if (lua_type(L, -1) != LUA_TFUNCTION)
        luaL_error(L, "policy: a victim function is required");
    lua_pop(L, 1);
    lpolicy *p = lua_newuserdatauv(L, sizeof *p, 0);
    memset(p, 0, sizeof *p);
    for (int h = 0; h < 4; h++)
        p->fn[h] = LUA_NOREF;
    p->sets = p->rec[0] = p->rec[1] = p->tref = LUA_NOREF;
    luaL_setmetatable(L, LPOLICY_T);
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_MAINTHREAD);
    p->L = lua_tothread(L, -1);
    lua_pop(L, 1);
    lua_getfield(L, idx, "name");
    const char *name = lua_tostring(L, -1);
    snprintf(p->name, sizeof p->name, "%s", name ? name : "lua");
    lua_pop(L, 1);
    for (int h = 0; h < 4; h++) {
        lua_getfield(L, idx, hook_names[h]);
        int t = lua_type(L, -1);
        if (t == LUA_TFUNCTION) {
            p->fn[h] = luaL_ref(L, LUA_REGISTRYINDEX);
        } else {
            lua_pop(L, 1);
            if (t != LUA_TNIL)
                luaL_error(L, "policy %s: %s must be a function, not a %s", p->name,
                           hook_names[h], lua_typename(L, t));
        }
    }
    /* recency: true or "last" (set.last), "loaded" (set.loaded) or "both" */
    lua_getfield(L, idx, "recency");
    const char *rec = lua_tostring(L, -1);
    p->recency = lua_isboolean(L, -1) ? (lua_toboolean(L, -1) ? REC_LAST : 0)
                 : !rec                   ? 0
                 : !strcmp(rec, "last")   ? REC_LAST
                 : !strcmp(rec, "loaded") ? REC_LOADED
                 : !strcmp(rec, "both")   ? REC_LAST | REC_LOADED
                                          : -1;
    if (p->recency < 0 || (rec == NULL && !lua_isnil(L, -1) && !lua_isboolean(L, -1)))
        luaL_error(L, "policy %s: recency must be true, \"last\", \"loaded\" or \"both\"", p->name);
    lua_pop(L, 1);
    lua_newtable(L);
    p->sets = luaL_ref(L, LUA_REGISTRYINDEX);
    for (int k = 0; k < 2; k++) {
        lua_newtable(L);
        p->rec[k] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    p->T = lua_newthread(L);
    p->tref = luaL_ref(L, LUA_REGISTRYINDEX);
    lua_pushcfunction(p->T, rt_msghandler);
    lua_rawgeti(p->T, LUA_REGISTRYINDEX, p->fn[H_VICTIM]);
    lua_rawgeti(p->T, LUA_REGISTRYINDEX, p->sets);
    lua_rawgeti(p->T, LUA_REGISTRYINDEX, p->rec[0]);
    lua_rawgeti(p->T, LUA_REGISTRYINDEX, p->rec[1]);
    p->ops.name = p->name;
    p->ops.recency = p->recency != 0;
    /* stack = "last": a hierarchy orders the set's stack by last reference (LRU's) */
    lua_getfield(L, idx, "stack");
    const char *stack = lua_tostring(L, -1);
    if (!lua_isnil(L, -1) && (!stack || (strcmp(stack, "last") && strcmp(stack, "loaded"))))
        luaL_error(L, "policy %s: stack must be \"last\" or \"loaded\"", p->name);
    p->ops.stack_by_last = stack && !strcmp(stack, "last");
    lua_pop(L, 1);
    p->ops.init = lp_init; /* always: it creates the set tables */
    p->ops.hit = p->fn[H_HIT] != LUA_NOREF ? lp_hit : NULL;
    p->ops.fill = p->fn[H_FILL] != LUA_NOREF ? lp_fill : NULL;
    p->ops.victim = lp_victim;
    cfg->policy = &p->ops;
    cfg->policy_ud = p;
}

void rt_lcache_policy(lua_State *L, int idx, rt_cache_config *cfg)
{
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) == LUA_TSTRING) {
        /* a name is a built-in here (the core says which names those are);
         * Lua policies by name or file are resolved by retrace.cache.resolve_policy */
        rt_err err;
        rt_err_clear(&err);
        const rt_policy_ops *b;
        if (rt_policy_lookup(lua_tostring(L, idx), &b, &err) != RT_OK)
            luaL_error(L, "%s", err.msg);
        cfg->policy = b;
        cfg->policy_ud = NULL;
        lua_pushnil(L);
        return;
    }
    if (lua_type(L, idx) == LUA_TTABLE) {
        policy_from_table(L, idx, cfg);
        return;
    }
    luaL_error(L, "policy: expected a name or a policy table, got %s", luaL_typename(L, idx));
}

/* ---- the Cache object ---- */

typedef struct cache_box {
    rt_cache *c; /* NULL once closed; user value 1: the policy instance */
    int busy;    /* inside a core call that may run Lua policy hooks */
} cache_box;

static cache_box *check_cache(lua_State *L, int i)
{
    cache_box *b = luaL_checkudata(L, i, CACHE_T);
    if (!b->c)
        luaL_argerror(L, i, "cache is closed");
    return b;
}

/* check_cache for the calls that change the cache: refused from inside one of its
 * own policy's hooks (the core is in the middle of an access on it). */
static cache_box *check_idle(lua_State *L, int i, const char *what)
{
    cache_box *b = check_cache(L, i);
    if (b->busy)
        luaL_error(L, "cannot %s a cache from its own policy", what);
    return b;
}

static int cache_close(lua_State *L)
{
    cache_box *b = luaL_checkudata(L, 1, CACHE_T);
    if (b->busy)
        return luaL_error(L, "cannot close a cache from its own policy");
    rt_cache_free(b->c);
    b->c = NULL;
    return 0;
}

/* read the geometry fields of table t into cfg (policy left to the caller) */
static void read_config(lua_State *L, int t, rt_cache_config *cfg, int write_back_default)
{
    *cfg = rt_cache_defaults(rt_opt_u64(L, t, "size", 32768), rt_opt_u64(L, t, "line", 64));
    cfg->ways = rt_opt_u64(L, t, "ways", 0);
    cfg->seed = rt_opt_u64(L, t, "seed", 1);
    cfg->write_back = rt_opt_bool(L, t, "write_back", write_back_default);
}

/* create a cache from table t with the policy value at pidx; pushes the box.
 * `fully` forces full associativity (the classification shadow). */
static cache_box *push_cache(lua_State *L, int t, int pidx, int write_back_default, int fully)
{
    cache_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    b->c = NULL;
    b->busy = 0;
    luaL_setmetatable(L, CACHE_T);
    rt_cache_config cfg;
    read_config(L, t, &cfg, write_back_default);
    if (fully)
        cfg.ways = 0;
    if (pidx && !lua_isnil(L, pidx)) {
        rt_lcache_policy(L, pidx, &cfg);
        lua_setiuservalue(L, -2, 1);
    }
    rt_err err;
    if (rt_cache_new(&cfg, &b->c, &err) != RT_OK)
        luaL_error(L, "%s", err.msg);
    return b;
}

static int l_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "policy");
    push_cache(L, 1, 2, 1, 0); /* write-back by default, as `retrace cache` */
    return 1;
}

static int c_access(lua_State *L)
{
    cache_box *b = check_idle(L, 1, "access");
    lua_Integer addr = luaL_checkinteger(L, 2);
    int w = lua_toboolean(L, 3);
    rt_cache_result r;
    b->busy = 1;
    int st = rt_cache_access(b->c, (uint64_t)addr, w, &r);
    b->busy = 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", rt_cache_error(b->c));
    if (r.bypassed) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushboolean(L, r.hit);
    lua_pushinteger(L, (lua_Integer)r.way + 1);
    lua_pushinteger(L, (lua_Integer)r.line);
    if (r.evicted)
        lua_pushinteger(L, (lua_Integer)r.evicted_line);
    else
        lua_pushnil(L);
    return 4;
}

static int c_access_range(lua_State *L)
{
    cache_box *b = check_idle(L, 1, "access");
    lua_Integer addr = luaL_checkinteger(L, 2);
    lua_Integer size = luaL_checkinteger(L, 3);
    unsigned m;
    b->busy = 1;
    int st = rt_cache_access_range(b->c, (uint64_t)addr, (uint64_t)size, lua_toboolean(L, 4), &m);
    b->busy = 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", rt_cache_error(b->c));
    lua_pushinteger(L, m);
    return 1;
}

static int c_probe(lua_State *L)
{
    cache_box *b = check_cache(L, 1);
    lua_pushboolean(L, rt_cache_probe(b->c, (uint64_t)luaL_checkinteger(L, 2)));
    return 1;
}

static void push_stats(lua_State *L, const rt_cache_stats *s)
{
    lua_createtable(L, 0, 12);
    rt_set_int(L, "refs", s->refs);
    rt_set_int(L, "hits", s->hits);
    rt_set_int(L, "misses", s->misses);
    rt_set_int(L, "reads", s->reads);
    rt_set_int(L, "writes", s->writes);
    rt_set_int(L, "read_misses", s->read_misses);
    rt_set_int(L, "write_misses", s->write_misses);
    rt_set_int(L, "evictions", s->evictions);
    rt_set_int(L, "writebacks", s->writebacks);
    rt_set_int(L, "bypassed_writes", s->bypassed_writes);
    rt_set_num(L, "hit_ratio", rt_hit_ratio(s->hits, s->misses));
}

static int c_stats(lua_State *L)
{
    push_stats(L, rt_cache_stats_get(check_cache(L, 1)->c));
    return 1;
}

static void push_config(lua_State *L, const rt_cache *c)
{
    const rt_cache_config *cfg = rt_cache_config_get(c);
    lua_createtable(L, 0, 7);
    rt_set_int(L, "size", cfg->size);
    rt_set_int(L, "line", cfg->line);
    rt_set_int(L, "ways", cfg->ways);
    rt_set_int(L, "sets", rt_cache_sets(c));
    rt_set_int(L, "seed", cfg->seed);
    rt_set_str(L, "policy", cfg->policy->name);
    rt_set_bool(L, "write_back", cfg->write_back);
}

static int c_config(lua_State *L)
{
    push_config(L, check_cache(L, 1)->c);
    return 1;
}

static int c_flush(lua_State *L)
{
    cache_box *b = check_idle(L, 1, "flush");
    b->busy = 1;
    int st = rt_cache_flush(b->c, lua_toboolean(L, 2));
    b->busy = 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", rt_cache_error(b->c));
    return 0;
}

static int c_reset(lua_State *L)
{
    cache_box *b = check_idle(L, 1, "reset");
    b->busy = 1;
    int st = rt_cache_reset(b->c);
    b->busy = 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", rt_cache_error(b->c));
    return 0;
}

static int c_line_at(lua_State *L)
{
    cache_box *b = check_cache(L, 1);
    lua_Integer set = luaL_checkinteger(L, 2), way = luaL_checkinteger(L, 3);
    uint64_t line = UINT64_MAX;
    if (set >= 0 && way >= 1 && set <= UINT32_MAX && way <= UINT32_MAX)
        line = rt_cache_line_at(b->c, (uint32_t)set, (uint32_t)(way - 1));
    if (line == UINT64_MAX)
        lua_pushnil(L);
    else
        lua_pushinteger(L, (lua_Integer)line);
    return 1;
}

/* ---- whole traces ---- */


static int check_format(lua_State *L, int t)
{
    lua_getfield(L, t, "format");
    const char *f = lua_tostring(L, -1);
    int fmt = rt_memfmt_from_name(f);
    if (fmt < 0)
        luaL_error(L, "format: expected din, xdin, lackey or bin, got %s", f ? f : "nothing");
    lua_pop(L, 1);
    return fmt;
}

/* the memory format named by argument i (one message for every function) */
static int memfmt_arg(lua_State *L, int i)
{
    int fmt = rt_memfmt_from_name(luaL_checkstring(L, i));
    if (fmt < 0)
        luaL_argerror(L, i, "expected din, xdin, lackey or bin");
    return fmt;
}

/* run(path, opts) -> result | nil, msg */
static int l_run(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int fmt = check_format(L, 2);
    int unified = rt_opt_bool(L, 2, "unified", 0);
    int classify = rt_opt_bool(L, 2, "classify", 0);
    int sweep = rt_opt_bool(L, 2, "sweep", 0);
    lua_getfield(L, 2, "policy");
    int pidx = lua_gettop(L);
    cache_box *main = push_cache(L, 2, pidx, 1, 0);
    cache_box *shadow = classify ? push_cache(L, 2, pidx, 1, 1) : NULL;
    lua_getfield(L, 2, "progress");
    rt_progress_ud pu = RT_PROGRESS_UD(L, lua_gettop(L));
    rt_memsim_opts o = {.unified = unified, .shadow = shadow ? shadow->c : NULL, .sweep = sweep};
    if (lua_isfunction(L, pu.fn)) {
        o.progress = rt_on_progress;
        o.progress_ud = &pu;
    }
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t)
        return rt_push_fail(L, &err);
    rt_memsim_result res;
    int st = rt_memsim_run(main->c, t, &o, &res, &err);
    rt_memtrace_free(t);
    rt_progress_check(&pu); /* the progress callback's error (Ctrl-C) wins */
    if (st != RT_OK)
        return rt_push_fail(L, &err);
    const rt_cache_stats *s = rt_cache_stats_get(main->c);
    push_stats(L, s);
    rt_set_int(L, "records", res.records);
    rt_set_int(L, "ignored", res.ignored);
    rt_set_int(L, "ifetches", res.ifetches);
    rt_set_int(L, "flushes", res.flushes);
    push_config(L, main->c);
    lua_setfield(L, -2, "config");
    if (res.classified) {
        rt_set_int(L, "compulsory", res.compulsory);
        rt_set_int(L, "capacity", res.capacity);
        rt_set_int(L, "conflict", res.conflict);
    }
    if (res.swept) {
        lua_createtable(L, (int)res.sweep_n, 0);
        for (unsigned k = 0; k < res.sweep_n; k++) {
            lua_createtable(L, 0, 3);
            rt_set_int(L, "size", res.sweep_size[k]);
            rt_set_int(L, "misses", res.sweep_misses[k]);
            lua_pushnumber(L, rt_hit_ratio(res.sweep_refs - res.sweep_misses[k], res.sweep_misses[k]));
            lua_setfield(L, -2, "hit_ratio");
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "sweep");
    }
    return 1;
}

/* convert(path, format, out) -> records | nil, msg */
static int l_convert(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int fmt = memfmt_arg(L, 2);
    const char *out = luaL_checkstring(L, 3);
    rt_err err;
    if (rt_same_file(path, out)) {
        rt_err_at(&err, RT_EINVAL, out, 0, "is the input trace (it would be overwritten while read)");
        return rt_push_fail(L, &err);
    }
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t)
        return rt_push_fail(L, &err);
    rt_rtmb_writer *w = rt_rtmb_create(out, &err);
    if (!w) {
        rt_memtrace_free(t);
        return rt_push_fail(L, &err);
    }
    rt_memref ref;
    int st;
    lua_Integer n = 0;
    while ((st = rt_memtrace_next(t, &ref, &err)) == RT_OK) {
        if ((st = rt_rtmb_write(w, &ref, &err)) != RT_OK)
            break;
        n++;
    }
    rt_memtrace_free(t);
    if (st != RT_EEOF) {
        rt_rtmb_abort(w);
        return rt_push_fail(L, &err);
    }
    if (rt_rtmb_close(w, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, n);
    return 1;
}

/* ---- hierarchies (rt_hier): Dinero IV's model ---- */

/* the config from opts: dinero = {"-l1-dsize", "32k", ...} and/or spec = "l1d:32k/64:8 ..." */
static int hier_config(lua_State *L, int t, rt_hier_config *cfg, rt_err *err)
{
    rt_hier_config_init(cfg);
    int st = RT_OK;
    lua_getfield(L, t, "dinero");
    if (lua_istable(L, -1)) {
        int n = (int)luaL_len(L, -1);
        const char **argv = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *argv, 0);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -2, i + 1);
            argv[i] = lua_tostring(L, -1);
            if (!argv[i])
                luaL_error(L, "dinero: option %d is not a string", i + 1);
            lua_pop(L, 1); /* the string stays alive in the table */
        }
        st = rt_hier_parse_dinero(cfg, n, argv, err);
        lua_pop(L, 1);
    } else if (!lua_isnil(L, -1)) {
        luaL_error(L, "dinero: expected a table of strings");
    }
    lua_pop(L, 1);
    if (st != RT_OK)
        return st;
    lua_getfield(L, t, "spec");
    const char *spec = lua_tostring(L, -1);
    if (spec)
        st = rt_hier_parse_short(cfg, spec, err);
    lua_pop(L, 1);
    if (st != RT_OK)
        return st;
    /* policies = { ["l1-d"] = policy table, ... }: Lua policies, one instance
     * per cache, left on the stack (they live as long as the call) */
    lua_getfield(L, t, "policies");
    if (lua_istable(L, -1)) {
        int pt = lua_gettop(L);
        lua_pushnil(L);
        while (lua_next(L, pt)) {
            const char *key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
            unsigned lev = 0;
            char kind = 0;
            if (sscanf(key, "l%u-%c", &lev, &kind) != 2 || lev < 1 || lev > cfg->levels
                || !strchr("uid", kind) || !cfg->c[lev - 1][strchr("uid", kind) - "uid"].present) {
                lua_pop(L, 2);
                return rt_err_set(err, RT_EINVAL, "policies: '%s' is not a cache of the hierarchy (l1-d, l2-u ...)", key);
            }
            rt_hcache_config *c = &cfg->c[lev - 1][strchr("uid", kind) - "uid"];
            rt_cache_config tmp = rt_cache_defaults(64, 64);
            rt_lcache_policy(L, -1, &tmp); /* pushes the instance */
            c->ops = tmp.policy;
            c->ops_ud = tmp.policy_ud;
            lua_insert(L, pt); /* keep the instance below the table */
            pt++;
            lua_pop(L, 1); /* the value; the key stays for lua_next */
        }
    }
    lua_pop(L, 1);
    lua_getfield(L, t, "cores");
    if (!lua_isnil(L, -1)) {
        lua_Integer v = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || v < 1 || v > RT_HIER_MAX_CORES)
            luaL_error(L, "cores: expected an integer from 1 to %d", RT_HIER_MAX_CORES);
        cfg->cores = (unsigned)v;
    }
    lua_pop(L, 1);
    static const char *const counts[] = {"skipcount", "flushcount", "maxcount"};
    uint64_t *dst[] = {&cfg->skipcount, &cfg->flushcount, &cfg->maxcount};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, t, counts[i]);
        if (!lua_isnil(L, -1)) {
            lua_Integer v = lua_tointeger(L, -1);
            if (v < 0 || !lua_isinteger(L, -1))
                luaL_error(L, "%s: expected a non-negative integer", counts[i]);
            *dst[i] = (uint64_t)v;
        }
        lua_pop(L, 1);
    }
    return rt_hier_check(cfg, err);
}

/* hier_policy_known(name) -> true when the hierarchy knows it without Lua
 * (Dinero IV's letters l f r p, the built-ins, plru, d4random) */
static int l_hier_policy_known(lua_State *L)
{
    rt_hier_config cfg;
    rt_err err;
    rt_hier_config_init(&cfg);
    const char *argv[] = {"-l1-urepl", luaL_checkstring(L, 1)};
    lua_pushboolean(L, rt_hier_parse_dinero(&cfg, 2, argv, &err) == RT_OK);
    return 1;
}

/* hier_describe(opts) -> text | nil, msg */
static int l_hier_describe(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_hier_config cfg;
    rt_err err;
    if (hier_config(L, 1, &cfg, &err) != RT_OK)
        return rt_push_fail(L, &err);
    char buf[4096];
    rt_hier_describe_buf(&cfg, buf, sizeof buf);
    lua_pushstring(L, buf);
    return 1;
}

static void push_by_type(lua_State *L, const uint64_t *v, const char *name)
{
    static const char *const types[] = {"read", "write", "instr", "misc"};
    lua_createtable(L, 0, 6);
    for (int i = 0; i < 4; i++)
        rt_set_int(L, types[i], (lua_Integer)v[i]);
    rt_set_int(L, "total", (lua_Integer)(v[0] + v[1] + v[2] + v[3]));
    lua_createtable(L, 0, 5);
    for (int i = 0; i < 4; i++)
        rt_set_int(L, types[i], (lua_Integer)v[RT_HIER_PF + i]);
    rt_set_int(L, "total", (lua_Integer)(v[8] + v[9] + v[10] + v[11]));
    lua_setfield(L, -2, "prefetch");
    lua_setfield(L, -2, name);
}

static void push_hier_stats(lua_State *L, const rt_hier_stats *s)
{
    push_by_type(L, s->fetch, "fetches");
    push_by_type(L, s->miss, "misses");
    push_by_type(L, s->blockmiss, "block_misses");
    push_by_type(L, s->comp, "compulsory");
    push_by_type(L, s->cap, "capacity");
    push_by_type(L, s->conf, "conflict");
    push_by_type(L, s->comp_block, "compulsory_block");
    push_by_type(L, s->cap_block, "capacity_block");
    push_by_type(L, s->conf_block, "conflict_block");
    rt_set_int(L, "multiblock", (lua_Integer)s->multiblock);
    rt_set_int(L, "bytes_from_memory", (lua_Integer)s->bytes_read);
    rt_set_int(L, "bytes_to_memory", (lua_Integer)s->bytes_written);
    rt_set_int(L, "back_invalidations", (lua_Integer)s->back_invalidations);
    rt_set_int(L, "victim_fills", (lua_Integer)s->victim_fills);
    rt_set_int(L, "invalidations_sent", (lua_Integer)s->inval_sent);
    rt_set_int(L, "invalidations_received", (lua_Integer)s->inval_recv);
    rt_set_int(L, "coherence_misses", (lua_Integer)s->coh_miss);
    rt_set_int(L, "snoop_writebacks", (lua_Integer)s->snoop_wb);
}

/* opts.switches = { record, core, record, core, ... } (records from 0, increasing) */
static int hier_switches(lua_State *L, int t, rt_hier *h, rt_err *err)
{
    lua_getfield(L, t, "switches");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return RT_OK;
    }
    if (!lua_istable(L, -1))
        luaL_error(L, "switches: expected an array of record, core pairs");
    size_t n = (size_t)luaL_len(L, -1) / 2;
    uint64_t *sw = n ? lua_newuserdatauv(L, 2 * n * sizeof *sw, 0) : NULL;
    for (size_t i = 0; i < 2 * n; i++) {
        lua_rawgeti(L, -1 - (n ? 1 : 0), (lua_Integer)i + 1);
        lua_Integer v = lua_tointeger(L, -1);
        if (!lua_isinteger(L, -1) || v < 0)
            luaL_error(L, "switches: item %d is not a non-negative integer", (int)i + 1);
        sw[i] = (uint64_t)v;
        lua_pop(L, 1);
    }
    int st = rt_hier_set_cores(h, sw, n, err);
    lua_pop(L, n ? 2 : 1);
    return st;
}

/* hier_run(path, opts) -> result | nil, msg; opts: format, dinero, spec, counts */
static int l_hier_run(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    int fmt = check_format(L, 2);
    rt_hier_config cfg;
    rt_err err;
    if (hier_config(L, 2, &cfg, &err) != RT_OK)
        return rt_push_fail(L, &err);
    rt_hier *h;
    if (rt_hier_new(&cfg, &h, &err) != RT_OK)
        return rt_push_fail(L, &err);
    if (hier_switches(L, 2, h, &err) != RT_OK) {
        rt_hier_free(h);
        return rt_push_fail(L, &err);
    }
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t) {
        rt_hier_free(h);
        return rt_push_fail(L, &err);
    }
    rt_hier_run_result res;
    int st = rt_hier_run(h, t, &res, &err);
    rt_memtrace_free(t);
    if (st != RT_OK) {
        rt_hier_free(h);
        return rt_push_fail(L, &err);
    }
    lua_createtable(L, 0, 8);
    rt_set_int(L, "records", (lua_Integer)res.records);
    rt_set_int(L, "simulated", (lua_Integer)res.simulated);
    lua_pushboolean(L, res.maxed);
    lua_setfield(L, -2, "maxed");
    lua_createtable(L, 0, 0);
    int n = 0;
    static const char *const kinds[] = {"unified", "instruction", "data"};
    unsigned cores = rt_hier_cores(h), np = cores > 1 ? rt_hier_private_levels(&cfg) : 0;
    for (unsigned l = 0; l < cfg.levels; l++)
        for (int k = 0; k < 3; k++) {
            if (!rt_hier_stats_get(h, l, k))
                continue;
            for (unsigned p = 0; p < (l < np ? cores : 1); p++) {
                lua_createtable(L, 0, 20);
                lua_pushfstring(L, "l%d-%ccache", (int)l + 1, "uid"[k]);
                lua_setfield(L, -2, "name");
                rt_set_int(L, "level", (lua_Integer)l + 1);
                lua_pushstring(L, kinds[k]);
                lua_setfield(L, -2, "kind");
                if (l < np)
                    rt_set_int(L, "core", (lua_Integer)p);
                lua_pushboolean(L, cores > 1 && l >= np);
                lua_setfield(L, -2, "shared");
                push_hier_stats(L, rt_hier_stats_core(h, p, l, k));
                lua_rawseti(L, -2, ++n);
            }
        }
    lua_setfield(L, -2, "caches");
    rt_set_int(L, "cores", (lua_Integer)cores);
    const rt_hier_stats *mem = rt_hier_stats_get(h, cfg.levels, 0);
    lua_createtable(L, 0, 2);
    push_by_type(L, mem->fetch, "fetches");
    lua_setfield(L, -2, "memory");
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        rt_hier_report(h, f);
        fclose(f);
        lua_pushlstring(L, buf, len);
        lua_setfield(L, -2, "report");
        free(buf);
    }
    char desc[4096];
    rt_hier_describe_buf(&cfg, desc, sizeof desc);
    lua_pushstring(L, desc);
    lua_setfield(L, -2, "hierarchy");
    rt_hier_free(h);
    return 1;
}

/* ---- memory traces from Lua, in batches ---- */

#define MEMTRACE_T "retrace.MemTrace"

typedef struct memtrace_box {
    rt_memtrace *t; /* NULL once closed */
    int fmt;
} memtrace_box;

static int memtrace_close(lua_State *L)
{
    memtrace_box *b = luaL_checkudata(L, 1, MEMTRACE_T);
    rt_memtrace_free(b->t);
    b->t = NULL;
    return 0;
}

/* memtrace_open(path, format) -> MemTrace | nil, msg */
static int l_memtrace_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    int fmt = memfmt_arg(L, 2);
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t)
        return rt_push_fail(L, &err);
    memtrace_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->t = t;
    b->fmt = fmt;
    luaL_setmetatable(L, MEMTRACE_T);
    return 1;
}

/* t:read([n = 4096]) -> { n, addr = {...}, size = {...}, kind = {...} } | nil at the end | raises on bad input */
static int mt_read(lua_State *L)
{
    memtrace_box *b = luaL_checkudata(L, 1, MEMTRACE_T);
    if (!b->t)
        return luaL_argerror(L, 1, "trace is closed");
    lua_Integer want = luaL_optinteger(L, 2, 4096);
    luaL_argcheck(L, want >= 1 && want <= (1 << 20), 2, "batch size from 1 to 1048576");
    rt_memref buf[1024];
    rt_err err;
    lua_createtable(L, 0, 4);
    lua_createtable(L, (int)want, 0);
    lua_createtable(L, (int)want, 0);
    lua_createtable(L, (int)want, 0);
    int tab = lua_gettop(L) - 3;
    lua_Integer got = 0;
    while (got < want) {
        size_t n = 0, cap = (size_t)(want - got) < 1024 ? (size_t)(want - got) : 1024;
        int st = rt_memtrace_read(b->t, buf, cap, &n, &err);
        if (st == RT_EEOF)
            break;
        if (st != RT_OK)
            return luaL_error(L, "%s", err.msg);
        for (size_t i = 0; i < n; i++) {
            got++;
            lua_pushinteger(L, (lua_Integer)buf[i].addr);
            lua_rawseti(L, tab + 1, got);
            lua_pushinteger(L, (lua_Integer)buf[i].size);
            lua_rawseti(L, tab + 2, got);
            lua_pushinteger(L, buf[i].kind);
            lua_rawseti(L, tab + 3, got);
        }
    }
    if (got == 0) {
        lua_pushnil(L);
        return 1;
    }
    lua_setfield(L, tab, "kind");
    lua_setfield(L, tab, "size");
    lua_setfield(L, tab, "addr");
    rt_set_int(L, "n", got);
    return 1;
}

static int mt_offset(lua_State *L)
{
    memtrace_box *b = luaL_checkudata(L, 1, MEMTRACE_T);
    if (!b->t)
        return luaL_argerror(L, 1, "trace is closed");
    lua_pushinteger(L, (lua_Integer)rt_memtrace_offset(b->t));
    lua_pushinteger(L, (lua_Integer)rt_memtrace_size(b->t));
    return 2;
}

static const luaL_Reg memtrace_methods[] = {
    {"read", mt_read},
    {"offset", mt_offset},
    {"close", memtrace_close},
    {NULL, NULL},
};

/* "retrace.Cache: 32 KiB 8-way LRU, 64 B lines" (fully associative: "fully associative") */
static int cache_tostring(lua_State *L)
{
    cache_box *b = luaL_checkudata(L, 1, CACHE_T);
    if (!b->c) {
        lua_pushstring(L, CACHE_T " (closed)");
        return 1;
    }
    const rt_cache_config *cfg = rt_cache_config_get(b->c);
    char size[32], line[32], pol[32];
    const char *name = cfg->policy && cfg->policy->name ? cfg->policy->name : "?";
    size_t i = 0;
    for (; name[i] && i < sizeof pol - 1; i++) /* built-ins read in capitals, as in the literature */
        pol[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
    pol[i] = 0;
    rt_size_text(size, sizeof size, cfg->size);
    rt_size_text(line, sizeof line, cfg->line);
    if (cfg->ways == cfg->size / cfg->line)
        lua_pushfstring(L, CACHE_T ": %sB fully associative %s, %sB lines", size, pol, line);
    else
        lua_pushfstring(L, CACHE_T ": %sB %d-way %s, %sB lines", size, (int)cfg->ways, pol, line);
    return 1;
}

static const luaL_Reg cache_methods[] = {
    {"__tostring", cache_tostring},
    {"access", c_access},
    {"access_range", c_access_range},
    {"probe", c_probe},
    {"stats", c_stats},
    {"config", c_config},
    {"flush", c_flush},
    {"reset", c_reset},
    {"line_at", c_line_at},
    {"close", cache_close},
    {NULL, NULL},
};

/* check_geometry(size, line, ways [, unit]) -> true | nil, msg (the core's rules) */
static int l_check_geometry(lua_State *L)
{
    static const char *const field[] = {"cache size", "line size", "ways"};
    lua_Integer v[3];
    rt_err err;
    rt_err_clear(&err);
    for (int i = 0; i < 3; i++) {
        v[i] = i == 2 ? luaL_optinteger(L, 3, 0) : luaL_checkinteger(L, i + 1);
        if (v[i] < 0) {
            rt_err_set(&err, RT_EINVAL, "%s: %lld is negative", field[i], (long long)v[i]);
            return rt_push_fail(L, &err);
        }
    }
    if (rt_cache_check_geometry((uint64_t)v[0], (uint64_t)v[1], (uint64_t)v[2],
                                luaL_optstring(L, 4, NULL), &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* lookup(name) -> name | nil, msg: is name a built-in policy (the core's list) */
static int l_lookup(lua_State *L)
{
    const char *name = luaL_checkstring(L, 1);
    const rt_policy_ops *ops;
    rt_err err;
    rt_err_clear(&err);
    if (rt_policy_lookup(name, &ops, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushstring(L, ops->name);
    return 1;
}

/* hit_ratio(hits, misses) -> number (the core's definition) */
static int l_hit_ratio(lua_State *L)
{
    lua_Integer h = luaL_checkinteger(L, 1), m = luaL_checkinteger(L, 2);
    luaL_argcheck(L, h >= 0, 1, "expected a non-negative integer");
    luaL_argcheck(L, m >= 0, 2, "expected a non-negative integer");
    lua_pushnumber(L, rt_hit_ratio((uint64_t)h, (uint64_t)m));
    return 1;
}

static const luaL_Reg funcs[] = {
    {"check_geometry", l_check_geometry},
    {"lookup", l_lookup},
    {"hit_ratio", l_hit_ratio},
    {"new", l_new},
    {"run", l_run},
    {"convert", l_convert},
    {"hier_run", l_hier_run},
    {"hier_describe", l_hier_describe},
    {"hier_policy_known", l_hier_policy_known},
    {"memtrace_open", l_memtrace_open},
    {NULL, NULL},
};

int rt_lopen_cache(lua_State *L)
{
    rt_new_class(L, CACHE_T, cache_methods, cache_close);
    rt_new_class(L, MEMTRACE_T, memtrace_methods, memtrace_close);
    luaL_newmetatable(L, LPOLICY_T);
    lua_pushcfunction(L, lpolicy_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, lpolicy_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    luaL_newlib(L, funcs);
    lua_newtable(L);
    for (int i = 0; rt_policy_names[i]; i++) {
        lua_pushstring(L, rt_policy_names[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "policies");
    return 1;
}
