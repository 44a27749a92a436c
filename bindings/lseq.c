/*
 * lseq.c - Lua face of core/seq (Chitra): require("retrace.core").seq
 *
 *   local s = seq.new()                    -- an empty session (ensemble)
 *   s:load(path [, progress [, step]]) / s:add(label, names, times) -> true | nil, message
 *                                          -- progress(done, total) every step bytes (1 MiB)
 *   s:members(), s:label(k), s:length(k)   -- members are 1-based
 *   s:symbols(k), s:ids(k), s:times(k), s:entries(k), s:ranges(k)
 *   s:clip(ni, nf), s:aggregate({names}, name), s:project({from = to}),
 *   s:filter_time(p), s:filter_event(p), s:undo() -> true | nil, message
 *   s:depth(), s:history(), s:totals(), s:find({names}), s:chain([{members}]),
 *   s:periodogram(k, "e"|"t", [nsamples]), s:occupancy(name)
 *   s:spectrum(k, dom, nsamples, ncols, npeaks, raw_max)  -- reduced to pixel columns
 *   s:write_csv(k, path) -> true | nil, message  -- the sequence as CSV, from C
 *   s:rows(k), s:view_span(k, dom, a, b), s:view_slice(k, dom, first, count),
 *   s:view_columns(k, dom, a, b, ncols), s:view_segments(k, frame),
 *   s:view_shade(k, dom, {names}, a, b, ncols)   -- the time / event views
 *   seq.simulate(chain_arrays, n, seed), seq.periodogram(x, dt)
 * Expected failures (bad files, refused parameters) return nil, message.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lreduce.h"
#include "rt_seq.h"

#define SES_T "retrace.Ses"

typedef struct {
    rt_ses *s;   /* NULL once closed */
    int loading; /* inside load: its progress callback may not use or close the session */
} ses_box;

#define LOADING_MSG "cannot use a session from its own load's progress callback"

static rt_ses *check_ses(lua_State *L)
{
    ses_box *b = luaL_checkudata(L, 1, SES_T);
    if (!b->s)
        luaL_argerror(L, 1, "session is closed");
    if (b->loading)
        luaL_error(L, LOADING_MSG);
    return b->s;
}

static int ses_close(lua_State *L)
{
    ses_box *b = luaL_checkudata(L, 1, SES_T);
    if (b->loading)
        return luaL_error(L, LOADING_MSG);
    rt_ses_free(b->s);
    b->s = NULL;
    return 0;
}

static int l_new(lua_State *L)
{
    ses_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->s = NULL;
    b->loading = 0;
    luaL_setmetatable(L, SES_T);
    b->s = rt_ses_new();
    if (!b->s)
        return luaL_error(L, "out of memory");
    return 1;
}

static int status(lua_State *L, int st, const rt_err *err)
{
    if (st != RT_OK)
        return rt_push_fail(L, err);
    lua_pushboolean(L, 1);
    return 1;
}


static int ses_load(lua_State *L)
{
    rt_ses *s = check_ses(L);
    const char *path = luaL_checkstring(L, 2);
    int with = !lua_isnoneornil(L, 3);
    if (with)
        luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_Integer step = luaL_optinteger(L, 4, 1 << 20);
    luaL_argcheck(L, step > 0, 4, "the step must be positive");
    rt_progress_ud pu = {L, 3};
    rt_err err;
    ses_box *b = lua_touserdata(L, 1);
    b->loading = 1;
    int st = rt_ses_load_progress(s, path, (uint64_t)step, with ? rt_on_progress : NULL, &pu, &err);
    b->loading = 0;
    return status(L, st, &err);
}

/* A Lua array as a malloc'd C array inside a userdata (freed by the GC even on error). */
static void *scratch(lua_State *L, size_t bytes)
{
    return lua_newuserdatauv(L, bytes ? bytes : 1, 0);
}

static int ses_add(lua_State *L)
{
    rt_ses *s = check_ses(L);
    const char *label = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 3);
    if ((size_t)luaL_len(L, 4) != n)
        return luaL_argerror(L, 4, "names and times differ in length");
    const char **names = scratch(L, n * sizeof *names);
    double *times = scratch(L, n * sizeof *times);
    for (size_t i = 0; i < n; i++) {
        /* the table keeps each string alive, so the pointer outlives the pop */
        if (lua_geti(L, 3, (lua_Integer)i + 1) != LUA_TSTRING)
            return luaL_argerror(L, 3, "names must be strings");
        names[i] = lua_tostring(L, -1);
        lua_geti(L, 4, (lua_Integer)i + 1);
        int ok;
        times[i] = lua_tonumberx(L, -1, &ok);
        if (!ok)
            return luaL_argerror(L, 4, "times must be numbers");
        lua_pop(L, 2);
    }
    rt_err err;
    return status(L, rt_ses_add(s, label, n, names, times, &err), &err);
}

static size_t check_member(lua_State *L, rt_ses *s, int i)
{
    lua_Integer k = luaL_optinteger(L, i, 1);
    if (k < 1 || (size_t)k > rt_ses_members(s))
        luaL_argerror(L, i, "no such member");
    return (size_t)k - 1;
}

static int ses_members(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_ses_members(check_ses(L)));
    return 1;
}

static int ses_label(lua_State *L)
{
    rt_ses *s = check_ses(L);
    lua_pushstring(L, rt_ses_label(s, check_member(L, s, 2)));
    return 1;
}

static int ses_length(lua_State *L)
{
    rt_ses *s = check_ses(L);
    lua_pushinteger(L, (lua_Integer)rt_ses_length(s, check_member(L, s, 2)));
    return 1;
}

static int ses_symbols(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), n = rt_ses_length(s, k);
    const int32_t *x = rt_ses_symbols(s, k);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, rt_ses_name(s, x[i]));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int ses_ids(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), n = rt_ses_length(s, k);
    const int32_t *x = rt_ses_symbols(s, k);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, x[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int push_times(lua_State *L, int entries)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), n = rt_ses_length(s, k);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, entries ? rt_ses_entry(s, k, i) : rt_ses_time(s, k, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int ses_times(lua_State *L) { return push_times(L, 0); }
static int ses_entries(lua_State *L) { return push_times(L, 1); }

/* ranges(k) -> {first1, last1, first2, ...}: original 1-based inclusive bounds */
static int ses_ranges(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), n = rt_ses_length(s, k);
    lua_createtable(L, (int)(2 * n), 0);
    for (size_t i = 0; i < n; i++) {
        size_t a, b;
        rt_ses_range(s, k, i, &a, &b);
        lua_pushinteger(L, (lua_Integer)a + 1);
        lua_rawseti(L, -2, (lua_Integer)(2 * i + 1));
        lua_pushinteger(L, (lua_Integer)b);
        lua_rawseti(L, -2, (lua_Integer)(2 * i + 2));
    }
    return 1;
}

static int ses_name(lua_State *L)
{
    rt_ses *s = check_ses(L);
    const char *n = rt_ses_name(s, (int32_t)luaL_checkinteger(L, 2));
    if (!n)
        return luaL_argerror(L, 2, "no such symbol id");
    lua_pushstring(L, n);
    return 1;
}

static int ses_lookup(lua_State *L)
{
    rt_ses *s = check_ses(L);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 2));
    if (id < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, id);
    return 1;
}

static int ses_is_composite(lua_State *L)
{
    rt_ses *s = check_ses(L);
    lua_pushboolean(L, rt_ses_is_composite(s, rt_ses_lookup(s, luaL_checkstring(L, 2))));
    return 1;
}

static int ses_is_original(lua_State *L)
{
    rt_ses *s = check_ses(L);
    lua_pushboolean(L, rt_ses_is_original(s, rt_ses_lookup(s, luaL_checkstring(L, 2))));
    return 1;
}

static int ses_clip(lua_State *L)
{
    rt_ses *s = check_ses(L);
    lua_Integer ni = luaL_checkinteger(L, 2), nf = luaL_checkinteger(L, 3);
    rt_err err;
    if (ni < 0 || nf < 0) {
        rt_err_set(&err, RT_EINVAL, "clip: n_i and n_f must not be negative");
        return rt_push_fail(L, &err);
    }
    return status(L, rt_ses_clip(s, (size_t)ni, (size_t)nf, &err), &err);
}

/* names at stack index i -> ids; nil, message pushed (returns 0) for an unknown name */
static int32_t *pattern_ids(lua_State *L, rt_ses *s, int i, size_t *m, const char *what)
{
    luaL_checktype(L, i, LUA_TTABLE);
    *m = (size_t)luaL_len(L, i);
    int32_t *ids = scratch(L, *m * sizeof *ids);
    for (size_t j = 0; j < *m; j++) {
        lua_geti(L, i, (lua_Integer)j + 1);
        const char *n = lua_tostring(L, -1);
        if (!n)
            luaL_argerror(L, i, "symbol names must be strings");
        ids[j] = rt_ses_lookup(s, n);
        if (ids[j] < 0) {
            rt_err err;
            rt_err_set(&err, RT_EINVAL, "%s: no symbol '%s' in the sequence", what, n);
            lua_pop(L, 1);
            rt_push_fail(L, &err);
            return NULL;
        }
        lua_pop(L, 1);
    }
    return ids;
}

static int ses_aggregate(lua_State *L)
{
    rt_ses *s = check_ses(L);
    const char *name = luaL_checkstring(L, 3);
    size_t m;
    int32_t *ids = pattern_ids(L, s, 2, &m, "aggregate");
    if (!ids)
        return 2;
    rt_err err;
    return status(L, rt_ses_aggregate(s, ids, m, name, &err), &err);
}

static int ses_project(lua_State *L)
{
    rt_ses *s = check_ses(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    /* intern the targets first so the map covers them */
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        size_t len;
        const char *to = lua_tolstring(L, -1, &len);
        if (!to || lua_type(L, -2) != LUA_TSTRING)
            return luaL_argerror(L, 2, "a map of symbol names to symbol names");
        if (rt_ses_intern(s, to, len) < 0)
            return luaL_error(L, "out of memory");
        lua_pop(L, 1);
    }
    size_t n = rt_ses_symbol_count(s);
    int32_t *map = scratch(L, n * sizeof *map);
    for (size_t i = 0; i < n; i++)
        map[i] = -1;
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        const char *from = lua_tostring(L, -2);
        int32_t f = rt_ses_lookup(s, from);
        if (f < 0) {
            rt_err err;
            rt_err_set(&err, RT_EINVAL, "project: no symbol '%s' in the sequence", from);
            return rt_push_fail(L, &err);
        }
        map[f] = rt_ses_lookup(s, lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    rt_err err;
    return status(L, rt_ses_project(s, map, n, &err), &err);
}

static int ses_filter_time(lua_State *L)
{
    rt_ses *s = check_ses(L);
    rt_err err;
    return status(L, rt_ses_filter_time(s, luaL_checknumber(L, 2), &err), &err);
}

static int ses_filter_event(lua_State *L)
{
    rt_ses *s = check_ses(L);
    rt_err err;
    return status(L, rt_ses_filter_event(s, luaL_checknumber(L, 2), &err), &err);
}

static int ses_undo(lua_State *L)
{
    rt_ses *s = check_ses(L);
    rt_err err;
    return status(L, rt_ses_undo(s, &err), &err);
}

static int ses_depth(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_ses_depth(check_ses(L)));
    return 1;
}

static int ses_history(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t n = rt_ses_depth(s);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, rt_ses_step(s, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* totals() -> {name = {count = , h = }}, T  (symbols present only) */
static int ses_totals(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t n = rt_ses_symbol_count(s);
    uint64_t *count = scratch(L, n * sizeof *count);
    double *h = scratch(L, n * sizeof *h), T;
    rt_ses_totals(s, count, h, &T);
    lua_newtable(L);
    for (size_t i = 0; i < n; i++) {
        if (!count[i])
            continue;
        lua_createtable(L, 0, 2);
        rt_set_int(L, "count", (lua_Integer)count[i]);
        rt_set_num(L, "h", h[i]);
        lua_setfield(L, -2, rt_ses_name(s, (int32_t)i));
    }
    lua_pushnumber(L, T);
    return 2;
}

typedef struct {
    lua_State *L;
    lua_Integer n;
} find_ud;

static void find_cb(size_t member, size_t start, void *ud)
{
    find_ud *f = ud;
    lua_createtable(f->L, 2, 0);
    lua_pushinteger(f->L, (lua_Integer)member + 1);
    lua_rawseti(f->L, -2, 1);
    lua_pushinteger(f->L, (lua_Integer)start + 1);
    lua_rawseti(f->L, -2, 2);
    lua_rawseti(f->L, -2, ++f->n);
}

/* find({names}) -> count, time, {{member, start}, ...} */
static int ses_find(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t m;
    int32_t *ids = pattern_ids(L, s, 2, &m, "find");
    if (!ids)
        return 2;
    lua_checkstack(L, 8);
    lua_newtable(L);
    find_ud f = {L, 0};
    uint64_t count;
    double time;
    rt_err err;
    if (rt_ses_find(s, ids, m, find_cb, &f, &count, &time, &err))
        return rt_push_fail(L, &err);
    lua_pushinteger(L, (lua_Integer)count);
    lua_pushnumber(L, time);
    lua_rotate(L, -3, 2);
    return 3;
}

/* chain([{members}]) -> {other=, states={{name,n,mean,var,total}}, arcs={{from,to,count,p}},
 *                        composites={{name=, nodes={{state,parent,n,ends,mean,var}}}}} */
static int ses_chain(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t nm = 0, *members = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        nm = (size_t)luaL_len(L, 2);
        members = scratch(L, nm * sizeof *members);
        for (size_t i = 0; i < nm; i++) {
            lua_geti(L, 2, (lua_Integer)i + 1);
            lua_Integer k = lua_tointeger(L, -1);
            if (k < 1 || (size_t)k > rt_ses_members(s))
                return luaL_argerror(L, 2, "no such member");
            members[i] = (size_t)k - 1;
            lua_pop(L, 1);
        }
    }
    rt_chain *c;
    rt_err err;
    if (rt_ses_chain(s, members, nm, &c, &err))
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 4);
    rt_set_str(L, "other", rt_ses_name(s, c->other));
    lua_createtable(L, (int)c->nstates, 0);
    for (size_t i = 0; i < c->nstates; i++) {
        rt_chain_state *x = &c->states[i];
        lua_createtable(L, 0, 5);
        rt_set_str(L, "name", rt_ses_name(s, x->sym));
        rt_set_int(L, "n", (lua_Integer)x->n);
        rt_set_num(L, "mean", x->mean);
        rt_set_num(L, "var", x->var);
        rt_set_num(L, "total", x->total);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "states");
    lua_createtable(L, (int)c->narcs, 0);
    for (size_t i = 0; i < c->narcs; i++) {
        rt_chain_arc *a = &c->arcs[i];
        lua_createtable(L, 0, 4);
        rt_set_str(L, "from", rt_ses_name(s, a->from));
        rt_set_str(L, "to", rt_ses_name(s, a->to));
        rt_set_int(L, "count", (lua_Integer)a->count);
        rt_set_num(L, "p", a->p);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "arcs");
    lua_createtable(L, (int)c->ncomps, 0);
    for (size_t i = 0; i < c->ncomps; i++) {
        rt_chain_comp *cp = &c->comps[i];
        lua_createtable(L, 0, 2);
        rt_set_str(L, "name", rt_ses_name(s, cp->sym));
        lua_createtable(L, (int)cp->count, 0);
        for (size_t j = 0; j < cp->count; j++) {
            rt_chain_node *nd = &c->nodes[cp->first + j];
            lua_createtable(L, 0, 6);
            rt_set_str(L, "state", rt_ses_name(s, nd->sym));
            rt_set_int(L, "parent", nd->parent < 0 ? 0 : nd->parent - (int32_t)cp->first + 1);
            rt_set_int(L, "n", (lua_Integer)nd->n);
            rt_set_int(L, "ends", (lua_Integer)nd->ends);
            rt_set_num(L, "mean", nd->mean);
            rt_set_num(L, "var", nd->var);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_setfield(L, -2, "nodes");
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "composites");
    rt_chain_free(c);
    return 1;
}

static int push_spectrum(lua_State *L, double *f, double *p, size_t n)
{
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, f[i]);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        lua_pushnumber(L, p[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(f);
    free(p);
    return 2;
}

/* periodogram(k, domain, nsamples) -> freq, power */
static int ses_periodogram(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2);
    const char *dom = luaL_optstring(L, 3, "event");
    lua_Integer ns = luaL_optinteger(L, 4, 0);
    if (ns < 0)
        return luaL_argerror(L, 4, "negative sample count");
    double *f, *p;
    size_t n;
    rt_err err;
    if (rt_ses_periodogram(s, k, dom[0] == 't' ? 't' : 'e', (size_t)ns, &f, &p, &n, &err))
        return rt_push_fail(L, &err);
    return push_spectrum(L, f, p, n);
}

static void push_numbers(lua_State *L, const double *v, size_t n, const char *field)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, field);
}

/*
 * spectrum(k, domain, nsamples, ncols, npeaks, raw_max) -> {bins =, fmax =,
 *   peaks = {freq = {}, power = {}}, columns = (retrace.reduce columns over [0, fmax]),
 *   freq = {}, power = {} (only when bins <= raw_max)}
 * The periodogram without its k = 0 bin, reduced in C to ncols pixel columns
 * (core/util rt_reduce), so a long sequence never builds Lua lists of its length.
 */
static int ses_spectrum(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2);
    const char *dom = luaL_checkstring(L, 3);
    lua_Integer ns = luaL_optinteger(L, 4, 0);
    lua_Integer nc = luaL_checkinteger(L, 5), np = luaL_checkinteger(L, 6);
    lua_Integer raw_max = luaL_checkinteger(L, 7);
    luaL_argcheck(L, ns >= 0, 4, "negative sample count");
    luaL_argcheck(L, nc >= 1 && nc <= (1 << 24), 5, "column count out of range");
    luaL_argcheck(L, np >= 0 && np <= 1000, 6, "peak count out of range");
    /* scratch space first: nothing malloc'd may be held across a call that raises */
    size_t *idx = scratch(L, ((size_t)np + 1) * sizeof *idx);
    double *f, *p;
    size_t n;
    rt_err err;
    if (rt_ses_periodogram(s, k, dom[0] == 't' ? 't' : 'e', (size_t)ns, &f, &p, &n, &err))
        return rt_push_fail(L, &err);
    size_t found = rt_spectrum_peaks(p, n, (size_t)np, idx);
    rt_reduce *rp = NULL;
    double fmax = f[n - 1];
    int st = rt_reduce_new((size_t)nc, 0, fmax > 0 ? fmax : 1, 0, &rp, &err);
    if (st == RT_OK)
        st = rt_reduce_add_uniform(rp, f[1], f[1], p + 1, 1, n - 1, &err);
    if (st != RT_OK) {
        rt_reduce_free(rp);
        free(f);
        free(p);
        return rt_push_fail(L, &err);
    }
    /* From here on only the pushes can fail, and only for lack of memory (then f, p
     * and the columns leak once; the arrays pushed are small next to them). */
    lua_createtable(L, 0, 6);
    rt_set_int(L, "bins", (lua_Integer)(n - 1));
    rt_set_num(L, "fmax", fmax);
    lua_createtable(L, 0, 2);
    lua_createtable(L, (int)found, 0);
    lua_createtable(L, (int)found, 0);
    for (size_t i = 0; i < found; i++) {
        lua_pushnumber(L, f[idx[i]]);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        lua_pushnumber(L, p[idx[i]]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -3, "power");
    lua_setfield(L, -2, "freq");
    lua_setfield(L, -2, "peaks");
    rt_push_reduced(L, rp);
    lua_setfield(L, -2, "columns");
    rt_reduce_free(rp);
    if ((lua_Integer)(n - 1) <= raw_max) {
        push_numbers(L, f + 1, n - 1, "freq");
        push_numbers(L, p + 1, n - 1, "power");
    }
    free(f);
    free(p);
    return 1;
}

/* write_csv(k, path) -> true | nil, message: member k's sequence as CSV (C, streaming) */
static int ses_write_csv(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2);
    rt_err err;
    return status(L, rt_ses_write_csv(s, k, luaL_checkstring(L, 3), &err), &err);
}

/* occupancy(name) -> {times of every occurrence, all members} */
static int ses_occupancy(lua_State *L)
{
    rt_ses *s = check_ses(L);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 2));
    lua_newtable(L);
    lua_Integer j = 0;
    for (size_t k = 0; id >= 0 && k < rt_ses_members(s); k++) {
        const int32_t *x = rt_ses_symbols(s, k);
        size_t n = rt_ses_length(s, k);
        for (size_t i = 0; i < n; i++)
            if (x[i] == id) {
                lua_pushnumber(L, rt_ses_time(s, k, i));
                lua_rawseti(L, -2, ++j);
            }
    }
    return 1;
}

/* ---- time and event views ---- */

static char check_domain(lua_State *L, int i)
{
    const char *d = luaL_checkstring(L, i);
    if (strcmp(d, "time") && strcmp(d, "event"))
        luaL_argerror(L, i, "domain must be 'time' or 'event'");
    return d[0] == 't' ? 't' : 'e';
}

/* The row of every symbol id of member k, in a scratch userdata. */
static int32_t *rows_of(lua_State *L, rt_ses *s, size_t k, size_t *nrows)
{
    int32_t *row = scratch(L, rt_ses_symbol_count(s) * sizeof *row);
    rt_ses_rows(s, k, row, nrows);
    return row;
}

/* rows(k) -> {names in order of first appearance} */
static int ses_rows(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), nrows;
    int32_t *row = rows_of(L, s, k, &nrows);
    lua_createtable(L, (int)nrows, 0);
    for (size_t id = 0; id < rt_ses_symbol_count(s); id++)
        if (row[id] >= 0) {
            lua_pushstring(L, rt_ses_name(s, (int32_t)id));
            lua_rawseti(L, -2, (lua_Integer)row[id] + 1);
        }
    return 1;
}

/* view_span(k, domain, a, b) -> first (1-based), count */
static int ses_view_span(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), first, count;
    rt_ses_view_span(s, k, check_domain(L, 3), luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                     &first, &count);
    lua_pushinteger(L, (lua_Integer)first + 1);
    lua_pushinteger(L, (lua_Integer)count);
    return 2;
}

/* view_slice(k, domain, first, count) -> x0, x1, y (rows, 0-based), symbols */
static int ses_view_slice(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), n = rt_ses_length(s, k), nrows;
    char dom = check_domain(L, 3);
    lua_Integer first = luaL_checkinteger(L, 4), count = luaL_checkinteger(L, 5);
    luaL_argcheck(L, first >= 1, 4, "elements are numbered from 1");
    luaL_argcheck(L, count >= 0 && (size_t)(first - 1) + (size_t)count <= n, 5,
                  "past the end of the sequence");
    int32_t *row = rows_of(L, s, k, &nrows);
    const int32_t *x = rt_ses_symbols(s, k);
    for (int t = 0; t < 4; t++)
        lua_createtable(L, (int)count, 0);
    for (lua_Integer j = 1; j <= count; j++) {
        size_t i = (size_t)(first - 2 + j);
        double e = rt_ses_entry(s, k, i);
        lua_pushnumber(L, dom == 't' ? e : (double)i);
        lua_rawseti(L, -5, j);
        lua_pushnumber(L, dom == 't' ? e + rt_ses_time(s, k, i) : (double)i + 1);
        lua_rawseti(L, -4, j);
        lua_pushinteger(L, row[x[i]]);
        lua_rawseti(L, -3, j);
        lua_pushstring(L, rt_ses_name(s, x[i]));
        lua_rawseti(L, -2, j);
    }
    return 4;
}

/* view_columns(k, domain, a, b, ncols) -> lo, hi (rows per column, -1 for none) */
static int ses_view_columns(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), nrows;
    char dom = check_domain(L, 3);
    double a = luaL_checknumber(L, 4), b = luaL_checknumber(L, 5);
    lua_Integer nc = luaL_checkinteger(L, 6);
    luaL_argcheck(L, nc >= 1 && nc <= (1 << 24), 6, "column count out of range");
    int32_t *row = rows_of(L, s, k, &nrows);
    int32_t *lo = scratch(L, 2 * (size_t)nc * sizeof *lo), *hi = lo + nc;
    rt_ses_view_columns(s, k, dom, a, b, (size_t)nc, row, lo, hi);
    lua_createtable(L, (int)nc, 0);
    lua_createtable(L, (int)nc, 0);
    for (lua_Integer c = 0; c < nc; c++) {
        lua_pushinteger(L, lo[c]);
        lua_rawseti(L, -3, c + 1);
        lua_pushinteger(L, hi[c]);
        lua_rawseti(L, -2, c + 1);
    }
    return 2;
}

typedef struct {
    lua_State *L;
    const rt_ses *s;
    size_t k, m;        /* member shown, pattern length */
    char dom;
    double a, b, gap;   /* range shown; occurrences closer than gap merge */
    double x0, x1;      /* the pending merged interval */
    int have;           /* is there one? */
    lua_Integer n;      /* intervals pushed */
} shade_ud;

static void shade_flush(shade_ud *u)
{
    if (!u->have)
        return;
    lua_pushnumber(u->L, u->x0);
    lua_rawseti(u->L, -3, ++u->n);
    lua_pushnumber(u->L, u->x1);
    lua_rawseti(u->L, -2, u->n);
    u->have = 0;
}

static void shade_cb(size_t member, size_t start, void *ud)
{
    shade_ud *u = ud;
    if (member != u->k)
        return;
    size_t last = start + u->m - 1;
    double x0 = u->dom == 't' ? rt_ses_entry(u->s, u->k, start) : (double)start;
    double x1 = u->dom == 't' ? rt_ses_entry(u->s, u->k, last) + rt_ses_time(u->s, u->k, last)
                              : (double)last + 1;
    if (x1 < u->a || x0 > u->b)
        return;
    if (u->have && x0 - u->x1 < u->gap) {
        if (x1 > u->x1)
            u->x1 = x1;
        return;
    }
    shade_flush(u);
    u->x0 = x0, u->x1 = x1, u->have = 1;
}

/*
 * view_shade(k, domain, {names}, a, b, ncols) -> count, time, x0, x1: the pattern's
 * occurrences (count and summed time over all members) and, for member k, their
 * extents touching [a, b], those less than a column ((b - a) / ncols) apart merged.
 */
static int ses_view_shade(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), m;
    char dom = check_domain(L, 3);
    int32_t *ids = pattern_ids(L, s, 4, &m, "find");
    if (!ids)
        return 2;
    double a = luaL_checknumber(L, 5), b = luaL_checknumber(L, 6);
    lua_Integer nc = luaL_checkinteger(L, 7);
    luaL_argcheck(L, nc >= 1, 7, "column count out of range");
    lua_newtable(L);
    lua_newtable(L);
    shade_ud u = {L, s, k, m, dom, a, b, (b - a) / (double)nc, 0, 0, 0, 0};
    uint64_t count;
    double time;
    rt_err err;
    if (rt_ses_find(s, ids, m, shade_cb, &u, &count, &time, &err))
        return rt_push_fail(L, &err);
    shade_flush(&u);
    lua_pushinteger(L, (lua_Integer)count);
    lua_pushnumber(L, time);
    lua_rotate(L, -4, 2);
    return 4;
}

static double frame_num(lua_State *L, int t, const char *field)
{
    lua_getfield(L, t, field);
    int ok;
    double v = lua_tonumberx(L, -1, &ok);
    if (!ok)
        luaL_error(L, "view frame: field '%s' must be a number", field);
    lua_pop(L, 1);
    return v;
}

/* view_segments(k, {domain=, a=, b=, ix=, iy=, iw=, ih=, ya=, yb=}) -> pack of segments | nil, msg */
static int ses_view_segments(lua_State *L)
{
    rt_ses *s = check_ses(L);
    size_t k = check_member(L, s, 2), nrows;
    luaL_checktype(L, 3, LUA_TTABLE);
    rt_ses_frame f;
    lua_getfield(L, 3, "domain");
    f.domain = check_domain(L, -1);
    lua_pop(L, 1);
    f.a = frame_num(L, 3, "a"), f.b = frame_num(L, 3, "b");
    f.ix = frame_num(L, 3, "ix"), f.iy = frame_num(L, 3, "iy");
    f.iw = frame_num(L, 3, "iw"), f.ih = frame_num(L, 3, "ih");
    f.ya = frame_num(L, 3, "ya"), f.yb = frame_num(L, 3, "yb");
    luaL_argcheck(L, f.iw >= 0 && f.iw <= (1 << 24), 3, "plot width out of range");
    int32_t *row = rows_of(L, s, k, &nrows);
    rt_pack *p;
    rt_err err;
    if (rt_pack_new(4, &p, &err) != RT_OK)
        return rt_push_fail(L, &err);
    if (rt_ses_view_segments(s, k, &f, row, p, &err) != RT_OK) {
        rt_pack_free(p);
        return rt_push_fail(L, &err);
    }
    rt_lcanvas_push_pack(L, p, 0);
    rt_pack_free(p); /* the view holds its own reference */
    return 1;
}

static int l_periodogram(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double dt = luaL_optnumber(L, 2, 1.0);
    size_t n = (size_t)luaL_len(L, 1);
    double *x = scratch(L, n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, 1, (lua_Integer)i + 1);
        x[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    double *f, *p;
    size_t m;
    rt_err err;
    if (rt_periodogram(x, n, dt, &f, &p, &m, &err))
        return rt_push_fail(L, &err);
    return push_spectrum(L, f, p, m);
}

static double *num_array(lua_State *L, int t, const char *field, size_t n)
{
    lua_getfield(L, t, field);
    if (!lua_istable(L, -1) || (size_t)luaL_len(L, -1) != n)
        luaL_error(L, "simulate: field '%s' must be an array of %d numbers", field, (int)n);
    double *a = scratch(L, n * sizeof *a);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, -2, (lua_Integer)i + 1);
        a[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    lua_remove(L, -2);
    return a;
}

/* The longest trajectory simulate makes (two Lua arrays of that length). */
#define SIMULATE_MAX 100000000

/* simulate({mean=,var=,from=,to=,p=,init=}, n, seed) -> states (1-based), times */
static int l_simulate(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_Integer seed = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, n >= 0, 2, "negative step count");
    luaL_argcheck(L, n <= SIMULATE_MAX, 2, "more steps than simulate_max");
    lua_getfield(L, 1, "mean");
    size_t ns = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
    lua_getfield(L, 1, "from");
    size_t na = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
    lua_pop(L, 2);
    double *mean = num_array(L, 1, "mean", ns), *var = num_array(L, 1, "var", ns);
    double *fromd = num_array(L, 1, "from", na), *tod = num_array(L, 1, "to", na);
    double *p = num_array(L, 1, "p", na);
    int32_t *from = scratch(L, na * sizeof *from), *to = scratch(L, na * sizeof *to);
    for (size_t a = 0; a < na; a++) {
        from[a] = (int32_t)fromd[a] - 1;
        to[a] = (int32_t)tod[a] - 1;
    }
    lua_getfield(L, 1, "init");
    int32_t init = (int32_t)luaL_optinteger(L, -1, 1) - 1;
    lua_pop(L, 1);
    int32_t *xs = scratch(L, (size_t)n * sizeof *xs);
    double *ts = scratch(L, (size_t)n * sizeof *ts);
    rt_err err;
    if (rt_chain_simulate(ns, mean, var, na, from, to, p, init, (uint64_t)seed, (size_t)n, xs,
                          ts, &err))
        return rt_push_fail(L, &err);
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        lua_pushinteger(L, xs[i] + 1);
        lua_rawseti(L, -3, i + 1);
        lua_pushnumber(L, ts[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 2;
}

static const luaL_Reg ses_methods[] = {
    {"load", ses_load},
    {"add", ses_add},
    {"members", ses_members},
    {"label", ses_label},
    {"length", ses_length},
    {"symbols", ses_symbols},
    {"ids", ses_ids},
    {"times", ses_times},
    {"entries", ses_entries},
    {"ranges", ses_ranges},
    {"name", ses_name},
    {"lookup", ses_lookup},
    {"is_composite", ses_is_composite},
    {"is_original", ses_is_original},
    {"clip", ses_clip},
    {"aggregate", ses_aggregate},
    {"project", ses_project},
    {"filter_time", ses_filter_time},
    {"filter_event", ses_filter_event},
    {"undo", ses_undo},
    {"depth", ses_depth},
    {"history", ses_history},
    {"totals", ses_totals},
    {"find", ses_find},
    {"chain", ses_chain},
    {"periodogram", ses_periodogram},
    {"spectrum", ses_spectrum},
    {"write_csv", ses_write_csv},
    {"occupancy", ses_occupancy},
    {"rows", ses_rows},
    {"view_span", ses_view_span},
    {"view_slice", ses_view_slice},
    {"view_columns", ses_view_columns},
    {"view_segments", ses_view_segments},
    {"view_shade", ses_view_shade},
    {"close", ses_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {"periodogram", l_periodogram},
    {"simulate", l_simulate},
    {NULL, NULL},
};

int rt_lopen_seq(lua_State *L)
{
    rt_new_class(L, SES_T, ses_methods, ses_close);
    luaL_newlib(L, funcs);
    rt_set_int(L, "simulate_max", SIMULATE_MAX);
    return 1;
}
