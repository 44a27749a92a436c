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
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lseq.h"
#include "lcanvas.h"
#include "lreduce.h"
#include "rt_seq.h"
#include "rt_seq_fit.h"
#include "rt_seq_sim.h"

#define SES_T "retrace.Ses"

typedef struct {
    rt_ses *s;   /* NULL once closed */
    int loading; /* inside load: its progress callback may not use or close the session */
} ses_box;

#define LOADING_MSG "cannot use a session from its own load's progress callback"

rt_ses *rt_lseq_check(lua_State *L)
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

int rt_lseq_status(lua_State *L, int st, const rt_err *err)
{
    if (st != RT_OK)
        return rt_push_fail(L, err);
    lua_pushboolean(L, 1);
    return 1;
}


/* The optional progress function (argument 3) and step in bytes (argument 4, 1 MiB by
 * default) of load and pes_chain: the callback to give the reader, or NULL. */
static void (*progress_args(lua_State *L, uint64_t *step))(void *, uint64_t, uint64_t)
{
    int with = !lua_isnoneornil(L, 3);
    if (with)
        luaL_checktype(L, 3, LUA_TFUNCTION);
    lua_Integer n = luaL_optinteger(L, 4, 1 << 20);
    luaL_argcheck(L, n > 0, 4, "the step must be positive");
    *step = (uint64_t)n;
    return with ? rt_on_progress_void : NULL;
}

static int ses_load(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *path = luaL_checkstring(L, 2);
    uint64_t step;
    void (*on)(void *, uint64_t, uint64_t) = progress_args(L, &step);
    rt_progress_ud pu = RT_PROGRESS_UD(L, 3);
    rt_err err;
    ses_box *b = lua_touserdata(L, 1);
    b->loading = 1;
    int st = rt_ses_load_progress(s, path, step, on, &pu, &err);
    b->loading = 0;
    rt_progress_check(&pu); /* the progress callback's error (Ctrl-C) is raised, not dropped */
    return rt_lseq_status(L, st, &err);
}

/* A Lua array as a malloc'd C array inside a userdata (freed by the GC even on error). */
void *rt_lseq_scratch(lua_State *L, size_t bytes)
{
    return lua_newuserdatauv(L, bytes ? bytes : 1, 0);
}

static int ses_add(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *label = luaL_checkstring(L, 2);
    luaL_checktype(L, 3, LUA_TTABLE);
    luaL_checktype(L, 4, LUA_TTABLE);
    size_t n = (size_t)luaL_len(L, 3);
    if ((size_t)luaL_len(L, 4) != n)
        return luaL_argerror(L, 4, "names and times differ in length");
    const char **names = rt_lseq_scratch(L, n * sizeof *names);
    double *times = rt_lseq_scratch(L, n * sizeof *times);
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
    return rt_lseq_status(L, rt_ses_add(s, label, n, names, times, &err), &err);
}

size_t rt_lseq_member(lua_State *L, rt_ses *s, int i)
{
    lua_Integer k = luaL_optinteger(L, i, 1);
    if (k < 1 || (size_t)k > rt_ses_members(s))
        luaL_argerror(L, i, "no such member");
    return (size_t)k - 1;
}

static int ses_members(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_ses_members(rt_lseq_check(L)));
    return 1;
}

static int ses_label(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    lua_pushstring(L, rt_ses_label(s, rt_lseq_member(L, s, 2)));
    return 1;
}

static int ses_length(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    lua_pushinteger(L, (lua_Integer)rt_ses_length(s, rt_lseq_member(L, s, 2)));
    return 1;
}

static int ses_symbols(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), n = rt_ses_length(s, k);
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
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), n = rt_ses_length(s, k);
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
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), n = rt_ses_length(s, k);
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
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), n = rt_ses_length(s, k);
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
    rt_ses *s = rt_lseq_check(L);
    const char *n = rt_ses_name(s, (int32_t)luaL_checkinteger(L, 2));
    if (!n)
        return luaL_argerror(L, 2, "no such symbol id");
    lua_pushstring(L, n);
    return 1;
}

static int ses_lookup(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 2));
    if (id < 0)
        lua_pushnil(L);
    else
        lua_pushinteger(L, id);
    return 1;
}

static int ses_is_composite(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    lua_pushboolean(L, rt_ses_is_composite(s, rt_ses_lookup(s, luaL_checkstring(L, 2))));
    return 1;
}

static int ses_is_original(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    lua_pushboolean(L, rt_ses_is_original(s, rt_ses_lookup(s, luaL_checkstring(L, 2))));
    return 1;
}

static int ses_clip(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    lua_Integer ni = luaL_checkinteger(L, 2), nf = luaL_checkinteger(L, 3);
    rt_err err;
    if (ni < 0 || nf < 0) {
        rt_err_set(&err, RT_EINVAL, "clip: n_i and n_f must not be negative");
        return rt_push_fail(L, &err);
    }
    return rt_lseq_status(L, rt_ses_clip(s, (size_t)ni, (size_t)nf, &err), &err);
}

/* names at stack index i -> ids; nil, message pushed (returns NULL) for an unknown name */
int32_t *rt_lseq_pattern(lua_State *L, rt_ses *s, int i, size_t *m, const char *what)
{
    luaL_checktype(L, i, LUA_TTABLE);
    *m = (size_t)luaL_len(L, i);
    int32_t *ids = rt_lseq_scratch(L, *m * sizeof *ids);
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
    rt_ses *s = rt_lseq_check(L);
    const char *name = luaL_checkstring(L, 3);
    size_t m;
    int32_t *ids = rt_lseq_pattern(L, s, 2, &m, "aggregate");
    if (!ids)
        return 2;
    rt_err err;
    return rt_lseq_status(L, rt_ses_aggregate(s, ids, m, name, &err), &err);
}

static int ses_project(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
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
    int32_t *map = rt_lseq_scratch(L, n * sizeof *map);
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
    return rt_lseq_status(L, rt_ses_project(s, map, n, &err), &err);
}

static int ses_filter_time(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    rt_err err;
    return rt_lseq_status(L, rt_ses_filter_time(s, luaL_checknumber(L, 2), &err), &err);
}

static int ses_filter_event(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    rt_err err;
    return rt_lseq_status(L, rt_ses_filter_event(s, luaL_checknumber(L, 2), &err), &err);
}

static int ses_undo(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    rt_err err;
    return rt_lseq_status(L, rt_ses_undo(s, &err), &err);
}

static int ses_depth(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_ses_depth(rt_lseq_check(L)));
    return 1;
}

static int ses_history(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t n = rt_ses_depth(s);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushstring(L, rt_ses_step(s, i));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* totals() -> {name = {count = , h = }}, T  (symbols present only) */
/* {name = {count =, h =}} for the symbols present, then T. */
static void push_totals(lua_State *L, rt_ses *s, const uint64_t *count, const double *h, size_t n, double T)
{
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
}

static int ses_totals(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t n = rt_ses_symbol_count(s);
    uint64_t *count = rt_lseq_scratch(L, n * sizeof *count);
    double *h = rt_lseq_scratch(L, n * sizeof *h), T;
    rt_ses_totals(s, count, h, &T);
    push_totals(L, s, count, h, n, T);
    return 2;
}

/* distinct() -> the number of distinct symbols in the current sequences (all members) */
static int ses_distinct(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t n = rt_ses_symbol_count(s), d = 0;
    uint64_t *count = rt_lseq_scratch(L, n * sizeof *count);
    double *h = rt_lseq_scratch(L, n * sizeof *h), T;
    rt_ses_totals(s, count, h, &T);
    for (size_t i = 0; i < n; i++)
        d += count[i] != 0;
    lua_pushinteger(L, (lua_Integer)d);
    return 1;
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
    rt_ses *s = rt_lseq_check(L);
    size_t m;
    int32_t *ids = rt_lseq_pattern(L, s, 2, &m, "find");
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

static void push_chain(lua_State *L, rt_ses *s, const rt_chain *c);

/* chain([{members}]) -> {other=, states={{name,n,mean,var,total}}, arcs={{from,to,count,p}},
 *                        composites={{name=, nodes={{state,parent,n,ends,mean,var}}}}} */
static int ses_chain(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t nm = 0, *members = NULL;
    if (!lua_isnoneornil(L, 2)) {
        luaL_checktype(L, 2, LUA_TTABLE);
        nm = (size_t)luaL_len(L, 2);
        members = rt_lseq_scratch(L, nm * sizeof *members);
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
    push_chain(L, s, c);
    rt_chain_free(c);
    return 1;
}

/* pes_chain(path [, progress(done, total) [, step [, ni, nf]]]) -> the chain of the PES file
 * as chain() gives it after loading it alone (and clip(ni, nf) when given), read as a
 * stream (rt_pes_chain_clip: the sequence is never held), and the sequence's length |
 * nil, message. The session learns the names only. progress and step as load's. */
static int ses_pes_chain(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *path = luaL_checkstring(L, 2);
    uint64_t step;
    void (*on)(void *, uint64_t, uint64_t) = progress_args(L, &step);
    rt_progress_ud pu = RT_PROGRESS_UD(L, 3);
    lua_Integer ni = luaL_optinteger(L, 5, 0), nf = luaL_optinteger(L, 6, 0);
    luaL_argcheck(L, ni >= 0, 5, "a count of elements");
    luaL_argcheck(L, nf >= 0, 6, "a count of elements");
    rt_chain *c;
    size_t n;
    rt_err err;
    int st = rt_pes_chain_clip(s, path, (size_t)ni, (size_t)nf, step, on, &pu, &c, &n, &err);
    rt_progress_check(&pu); /* the progress callback's error (Ctrl-C) is raised, not dropped */
    if (st)
        return rt_push_fail(L, &err);
    push_chain(L, s, c);
    rt_chain_free(c);
    lua_pushinteger(L, (lua_Integer)n);
    return 2;
}

/* pes_names(path [, progress [, step]]) -> states | nil, message: the file's names interned
 * (as symbols of an original sequence), the session getting no member (rt_pes_each). */
static int ses_pes_names(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *path = luaL_checkstring(L, 2);
    uint64_t step;
    void (*on)(void *, uint64_t, uint64_t) = progress_args(L, &step);
    rt_progress_ud pu = RT_PROGRESS_UD(L, 3);
    size_t n;
    rt_err err;
    int st = rt_pes_each(s, path, step, on, &pu, NULL, NULL, &n, &err);
    rt_progress_check(&pu);
    if (st)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, (lua_Integer)n);
    return 1;
}

/* Symbol id of a name the planning interned (a Lua error otherwise: the caller's bug). */
static int32_t known(lua_State *L, rt_ses *s, int idx)
{
    const char *name = lua_tostring(L, idx);
    int32_t id = name ? rt_ses_lookup(s, name) : -1;
    if (id < 0)
        luaL_error(L, "pes_chain_ops: unknown symbol '%s'", name ? name : "?");
    return id;
}

/* The ops at index 5 ({{"clip", ni, nf} | {"project", {from = to}} | {"aggregate", {A, B, ...}, Z}
 * | {"filter_time" | "filter_event", p}}) as rt_seq_ops (scratch memory); *nops their count. */
static rt_seq_op *check_ops(lua_State *L, rt_ses *s, size_t *nops_out)
{
    luaL_checktype(L, 5, LUA_TTABLE);
    size_t nops = (size_t)luaL_len(L, 5), nsym = rt_ses_symbol_count(s);
    rt_seq_op *ops = rt_lseq_scratch(L, (nops ? nops : 1) * sizeof *ops);
    /* each op's map or pattern is scratch too: kept in this table, below every op's stack
     * slots, until the caller returns (popped with the op, it could be collected in use) */
    lua_newtable(L);
    int keep = lua_gettop(L);
    for (size_t i = 0; i < nops; i++) {
        lua_geti(L, 5, (lua_Integer)i + 1);
        int t = lua_gettop(L);
        luaL_checktype(L, t, LUA_TTABLE);
        lua_geti(L, t, 1);
        const char *kind = luaL_checkstring(L, -1);
        rt_seq_op *o = &ops[i];
        memset(o, 0, sizeof *o);
        if (!strcmp(kind, "clip")) {
            o->kind = 'c';
            lua_geti(L, t, 2);
            lua_geti(L, t, 3);
            o->ni = (size_t)luaL_checkinteger(L, -2);
            o->nf = (size_t)luaL_checkinteger(L, -1);
        } else if (!strcmp(kind, "project")) {
            o->kind = 'p';
            int32_t *map = rt_lseq_scratch(L, (nsym ? nsym : 1) * sizeof *map);
            lua_rawseti(L, keep, (lua_Integer)i + 1);
            for (size_t k = 0; k < nsym; k++)
                map[k] = -1;
            lua_geti(L, t, 2);
            luaL_checktype(L, -1, LUA_TTABLE);
            lua_pushnil(L);
            while (lua_next(L, -2)) {
                map[known(L, s, -2)] = known(L, s, -1);
                lua_pop(L, 1);
            }
            o->map = map;
            o->nmap = nsym;
        } else if (!strcmp(kind, "aggregate")) {
            o->kind = 'a';
            lua_geti(L, t, 2);
            luaL_checktype(L, -1, LUA_TTABLE);
            size_t m = (size_t)luaL_len(L, -1);
            int32_t *pat = rt_lseq_scratch(L, (m ? m : 1) * sizeof *pat);
            lua_rawseti(L, keep, (lua_Integer)i + 1);
            for (size_t k = 0; k < m; k++) {
                lua_geti(L, -1, (lua_Integer)k + 1);
                pat[k] = known(L, s, -1);
                lua_pop(L, 1);
            }
            lua_geti(L, t, 3);
            o->z = known(L, s, -1);
            o->pat = pat;
            o->m = m;
        } else if (!strcmp(kind, "filter_time") || !strcmp(kind, "filter_event")) {
            o->kind = kind[7] == 't' ? 't' : 'e';
            lua_geti(L, t, 2);
            o->p = luaL_checknumber(L, -1);
        } else {
            luaL_error(L, "pes_chain_ops: no streamed transform '%s'", kind);
        }
        lua_settop(L, t - 1);
    }
    *nops_out = nops;
    return ops;
}

/*
 * pes_chain_ops(path, progress, step, ops) -> chain, length, {{length =, distinct =, first =}
 * per op} | nil, message. ops (check_ops): the steps already applied to this session after
 * pes_names, a filter planned with plan_filter (rt_pes_chain_ops: the file read as a
 * stream, never held).
 */
static int ses_pes_chain_ops(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *path = luaL_checkstring(L, 2);
    uint64_t step;
    void (*on)(void *, uint64_t, uint64_t) = progress_args(L, &step);
    size_t nops;
    rt_seq_op *ops = check_ops(L, s, &nops);
    rt_seq_op_out *outs = rt_lseq_scratch(L, (nops ? nops : 1) * sizeof *outs);
    rt_progress_ud pu = RT_PROGRESS_UD(L, 3);
    rt_chain *c;
    size_t n;
    rt_err err;
    int st = rt_pes_chain_ops(s, path, ops, nops, step, on, &pu, &c, &n, outs, &err);
    rt_progress_check(&pu);
    if (st)
        return rt_push_fail(L, &err);
    push_chain(L, s, c);
    rt_chain_free(c);
    lua_pushinteger(L, (lua_Integer)n);
    lua_createtable(L, (int)nops, 0);
    for (size_t i = 0; i < nops; i++) {
        lua_createtable(L, 0, 3);
        rt_set_int(L, "length", (lua_Integer)outs[i].length);
        rt_set_int(L, "distinct", (lua_Integer)outs[i].distinct);
        if (outs[i].first >= 0)
            rt_set_str(L, "first", rt_ses_name(s, outs[i].first));
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 3;
}

/* pes_totals_ops(path, progress, step, ops) -> totals(), T of the sequence the ops give,
 * read as a stream (rt_pes_totals_ops) | nil, message. */
static int ses_pes_totals_ops(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *path = luaL_checkstring(L, 2);
    uint64_t step;
    void (*on)(void *, uint64_t, uint64_t) = progress_args(L, &step);
    size_t nops, n;
    rt_seq_op *ops = check_ops(L, s, &nops);
    rt_progress_ud pu = RT_PROGRESS_UD(L, 3);
    uint64_t *count;
    double *h, T;
    rt_err err;
    int st = rt_pes_totals_ops(s, path, ops, nops, step, on, &pu, &count, &h, &n, &T, &err);
    rt_progress_check(&pu);
    if (st)
        return rt_push_fail(L, &err);
    push_totals(L, s, count, h, n, T);
    free(count);
    free(h);
    return 2;
}

/* plan_filter(domain, p) -> true | nil, message: a filter step planned on a session with
 * no member, for pes_chain_ops (rt_ses_filter_plan). */
static int ses_plan_filter(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *d = luaL_checkstring(L, 2);
    double p = luaL_checknumber(L, 3);
    rt_err err;
    if (rt_ses_filter_plan(s, !strcmp(d, "time") ? 't' : 'e', p, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* The chain c (symbols of s) as a table: see chain(). */
static void push_chain(lua_State *L, rt_ses *s, const rt_chain *c)
{
    lua_createtable(L, 0, 4);
    rt_set_str(L, "other", rt_ses_name(s, c->other));
    lua_createtable(L, (int)c->nstates, 0);
    for (size_t i = 0; i < c->nstates; i++) {
        const rt_chain_state *x = &c->states[i];
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
        const rt_chain_arc *a = &c->arcs[i];
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
        const rt_chain_comp *cp = &c->comps[i];
        lua_createtable(L, 0, 2);
        rt_set_str(L, "name", rt_ses_name(s, cp->sym));
        lua_createtable(L, (int)cp->count, 0);
        for (size_t j = 0; j < cp->count; j++) {
            const rt_chain_node *nd = &c->nodes[cp->first + j];
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
}


static double *num_array(lua_State *L, int t, const char *field, size_t n)
{
    lua_getfield(L, t, field);
    if (!lua_istable(L, -1) || (size_t)luaL_len(L, -1) != n)
        luaL_error(L, "simulate: field '%s' must be an array of %d numbers", field, (int)n);
    double *a = rt_lseq_scratch(L, n * sizeof *a);
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

/*
 * The chain table at idx ({mean, var, from, to, p, init, other}, 1-based states)
 * as the core's rt_sim_chain, its arrays in scratch owned by the Lua stack.
 */
static rt_sim_chain check_chain(lua_State *L, int idx)
{
    lua_getfield(L, idx, "mean");
    size_t ns = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
    lua_getfield(L, idx, "from");
    size_t na = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
    lua_pop(L, 2);
    double *mean = num_array(L, idx, "mean", ns), *var = num_array(L, idx, "var", ns);
    double *fromd = num_array(L, idx, "from", na), *tod = num_array(L, idx, "to", na);
    double *p = num_array(L, idx, "p", na);
    int32_t *from = rt_lseq_scratch(L, na * sizeof *from), *to = rt_lseq_scratch(L, na * sizeof *to);
    for (size_t a = 0; a < na; a++) {
        from[a] = (int32_t)fromd[a] - 1;
        to[a] = (int32_t)tod[a] - 1;
    }
    rt_sim_chain c = {ns, mean, var, na, from, to, p, 0, -1};
    lua_getfield(L, idx, "init");
    c.init = (int32_t)luaL_optinteger(L, -1, 1) - 1;
    lua_getfield(L, idx, "other");
    c.other = (int32_t)luaL_optinteger(L, -1, 0) - 1;
    lua_pop(L, 2);
    return c;
}

/* simulate({mean=,var=,from=,to=,p=,init=}, n, seed) -> states (1-based), times */
static int l_simulate(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_Integer seed = luaL_optinteger(L, 3, 1);
    luaL_argcheck(L, n >= 0, 2, "negative step count");
    luaL_argcheck(L, n <= SIMULATE_MAX, 2, "more steps than simulate_max");
    rt_sim_chain c = check_chain(L, 1);
    int32_t *xs = rt_lseq_scratch(L, (size_t)n * sizeof *xs);
    double *ts = rt_lseq_scratch(L, (size_t)n * sizeof *ts);
    rt_err err;
    if (rt_chain_simulate(c.nstates, c.mean, c.var, c.narcs, c.from, c.to, c.p, c.init, (uint64_t)seed,
                          (size_t)n, xs, ts, &err))
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

/* The observer of a streamed simulation, owned by a userdata (freed by the GC), so
 * nothing malloc'd is held across a call that raises. */
#define OBS_T "retrace.SimObserver"

static int obs_gc(lua_State *L)
{
    rt_sim_obs **b = luaL_checkudata(L, 1, OBS_T);
    rt_sim_obs_free(*b);
    *b = NULL;
    return 0;
}

/* Up to six malloc'd blocks owned by a userdata on the stack (freed by its __gc), for
 * core results that arrive malloc'd: nothing is held across a call that raises. */
#define BLOCKS_T "retrace.SeqBlocks"
typedef struct {
    void *p[6];
} blocks;

static int blocks_gc(lua_State *L)
{
    blocks *b = luaL_checkudata(L, 1, BLOCKS_T);
    for (int i = 0; i < 6; i++)
        free(b->p[i]), b->p[i] = NULL;
    return 0;
}

static blocks *new_blocks(lua_State *L)
{
    blocks *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    if (luaL_newmetatable(L, BLOCKS_T)) {
        lua_pushcfunction(L, blocks_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    return b;
}

static void push_u64s(lua_State *L, const uint64_t *v, size_t n, const char *field)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, field);
}

static void push_doubles(lua_State *L, const double *v, size_t n, const char *field)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    if (field)
        lua_setfield(L, -2, field);
}

/*
 * stream(spec, n, seed, opts) -> {visits =, sum =, sumsq = (per state), arcs = (per
 *   arc), samples = {{input =, sim =}, ...} (per opts.ks state), ngrams = {d1, d2, d3}
 *   and periodogram = d (with opts.session)} | nil, message
 * spec as simulate's plus names = {state names} and other = the end marker's index;
 * opts: ks = {state indices to sample}, sample (1000), bands (32), session (the input:
 * a retrace.Ses), pes = path (the trajectory written there, through a temporary),
 * header = its comment line. Memory: the chain and the samples, not n.
 */
static int l_stream(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_Integer n = luaL_checkinteger(L, 2);
    lua_Integer seed = luaL_optinteger(L, 3, 1);
    luaL_checktype(L, 4, LUA_TTABLE);
    luaL_argcheck(L, n >= 0, 2, "negative step count");
    rt_sim_chain c = check_chain(L, 1);
    size_t ns = c.nstates;
    const char **names = rt_lseq_scratch(L, (ns ? ns : 1) * sizeof *names);
    lua_getfield(L, 1, "names");
    luaL_argcheck(L, lua_istable(L, -1) && (size_t)luaL_len(L, -1) == ns, 1, "names: one per state");
    for (size_t i = 0; i < ns; i++) {
        lua_geti(L, -1, (lua_Integer)i + 1);
        names[i] = luaL_checkstring(L, -1);
        lua_pop(L, 1); /* the names table keeps the strings alive */
    }
    lua_getfield(L, 4, "ks");
    size_t nks = lua_istable(L, -1) ? (size_t)luaL_len(L, -1) : 0;
    int32_t *ks = rt_lseq_scratch(L, (nks ? nks : 1) * sizeof *ks);
    for (size_t j = 0; j < nks; j++) {
        lua_geti(L, -2, (lua_Integer)j + 1);
        ks[j] = (int32_t)luaL_checkinteger(L, -1) - 1;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    size_t sample = (size_t)rt_opt_u64(L, 4, "sample", 1000), bands = (size_t)rt_opt_u64(L, 4, "bands", 32);
    luaL_argcheck(L, sample >= 1 && sample <= 10000000 && bands >= 1 && bands <= 4096, 4,
                  "sample or bands out of range");
    rt_ses *ses = NULL;
    if (lua_getfield(L, 4, "session") != LUA_TNIL) {
        ses_box *b = luaL_checkudata(L, -1, SES_T);
        luaL_argcheck(L, b->s != NULL, 4, "session is closed");
        ses = b->s;
    }
    int32_t *state_of = NULL;
    if (ses) {
        state_of = rt_lseq_scratch(L, (rt_ses_symbol_count(ses) + 1) * sizeof *state_of);
        for (size_t i = 0; i < rt_ses_symbol_count(ses); i++)
            state_of[i] = -1;
        for (size_t i = 0; i < ns; i++) {
            int32_t id = rt_ses_lookup(ses, names[i]);
            if (id >= 0 && (int32_t)i != c.other)
                state_of[id] = (int32_t)i;
        }
    }
    const char *pes = NULL, *header = NULL;
    if (lua_getfield(L, 4, "pes") != LUA_TNIL)
        pes = luaL_checkstring(L, -1);
    if (lua_getfield(L, 4, "header") != LUA_TNIL)
        header = luaL_checkstring(L, -1);
    char *tmp = NULL;
    if (pes) {
        size_t len = strlen(pes) + 8;
        tmp = rt_lseq_scratch(L, len);
        snprintf(tmp, len, "%s.tmp~", pes);
    }
    rt_sim_obs **box = lua_newuserdatauv(L, sizeof *box, 0);
    *box = NULL;
    if (luaL_newmetatable(L, OBS_T)) {
        lua_pushcfunction(L, obs_gc);
        lua_setfield(L, -2, "__gc");
    }
    lua_setmetatable(L, -2);
    *box = rt_sim_obs_new(ns, c.narcs, ks, nks, sample, bands);
    if (!*box)
        return luaL_error(L, "simulate: out of memory");
    rt_sim_obs *o = *box;
    rt_err err;
    if (ses && rt_sim_obs_input(o, ses, state_of, &err))
        return rt_push_fail(L, &err);
    /* from here until the file is closed nothing may raise */
    FILE *f = NULL;
    if (pes && !(f = fopen(tmp, "w"))) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: cannot write (%s)", pes, strerror(errno));
        return 2;
    }
    if (f && header)
        fprintf(f, "# %s\n", header);
    int st = rt_sim_run(&c, (uint64_t)seed, (size_t)n, o, f, names, &err);
    int werr = errno;
    if (f && st == RT_EIO) /* the file named, and why (a full disk) */
        st = rt_err_set(&err, RT_EIO, "%s: %s", pes, strerror(werr ? werr : EIO));
    if (f) {
        if (fclose(f) && !st)
            st = rt_err_set(&err, RT_EIO, "%s: cannot write", pes);
        if (!st && rename(tmp, pes))
            st = rt_err_set(&err, RT_EIO, "%s: cannot write (%s)", pes, strerror(errno));
        if (st)
            remove(tmp);
    }
    if (st)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 8);
    push_u64s(L, rt_sim_obs_visits(o), ns, "visits");
    push_doubles(L, rt_sim_obs_sum(o), ns, "sum");
    push_doubles(L, rt_sim_obs_sumsq(o), ns, "sumsq");
    push_u64s(L, rt_sim_obs_arcs(o), c.narcs, "arcs");
    lua_createtable(L, (int)nks, 0);
    for (size_t j = 0; j < nks; j++) {
        lua_createtable(L, 0, 2);
        size_t m;
        const double *v = rt_sim_obs_sample(o, j, 0, &m);
        push_doubles(L, v, m, "input");
        v = rt_sim_obs_sample(o, j, 1, &m);
        push_doubles(L, v, m, "sim");
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    lua_setfield(L, -2, "samples");
    if (ses) {
        lua_createtable(L, 3, 0);
        for (int g = 1; g <= 3; g++) {
            lua_pushnumber(L, rt_sim_obs_ngram_tv(o, g));
            lua_rawseti(L, -2, g);
        }
        lua_setfield(L, -2, "ngrams");
        rt_set_num(L, "periodogram", rt_sim_obs_band_distance(o));
    }
    return 1;
}

/* One fit's families as {exponential = {ll =, aic =, k =, rate =}, gamma = {..., shape
 * =, scale =}, weibull = {...}, empirical = {ll =, aic =, k =, distinct =}}; a family
 * that could not fit has why = reason instead of ll and aic. */
static void push_fit(lua_State *L, const rt_hold_fit *f)
{
    lua_createtable(L, 0, RT_HOLD_N);
    for (int c = 0; c < RT_HOLD_N; c++) {
        lua_createtable(L, 0, 5);
        rt_set_int(L, "k", f->k[c]);
        if (isfinite(f->ll[c])) {
            rt_set_num(L, "ll", f->ll[c]);
            rt_set_num(L, "aic", f->aic[c]);
            if (c == RT_HOLD_EXP)
                rt_set_num(L, "rate", f->rate);
            else if (c == RT_HOLD_GAMMA)
                rt_set_num(L, "shape", f->gshape), rt_set_num(L, "scale", f->gscale);
            else if (c == RT_HOLD_WEIBULL)
                rt_set_num(L, "shape", f->wshape), rt_set_num(L, "scale", f->wscale);
            else
                rt_set_int(L, "distinct", (lua_Integer)f->distinct);
        } else if (f->why[c]) {
            rt_set_str(L, "why", f->why[c]);
        }
        lua_setfield(L, -2, rt_hold_names[c]);
    }
}

/* The end marker's id in s, or an id no symbol has. */
static int32_t other_id(rt_ses *s, const char *name)
{
    int32_t id = rt_ses_lookup(s, name);
    return id >= 0 ? id : (int32_t)rt_ses_symbol_count(s);
}

/*
 * holding([other]) -> {delta =, arcs = {{from =, to =, n =, best =, fits = (push_fit),
 *   values =, prob = (the empirical law, when it is the best)}}}
 * Holding times grouped by transition (the end marker `other`, "OTHER", after each
 * member's last element) and fitted by maximum likelihood; delta: the resolution of
 * the recorded times (the smallest positive gap between the values of any group).
 */
static int ses_holding(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    const char *oname = luaL_optstring(L, 2, "OTHER");
    int32_t other = other_id(s, oname);
    int32_t *f2, *t2;
    size_t *o2, ng;
    double *times;
    rt_err err;
    blocks *bk = new_blocks(L);
    if (rt_ses_arc_times(s, other, &f2, &t2, &o2, &times, &ng, &err))
        return rt_push_fail(L, &err);
    bk->p[0] = f2, bk->p[1] = t2, bk->p[2] = o2, bk->p[3] = times;
    double delta = INFINITY;
    for (size_t g = 0; g < ng; g++) {
        size_t n = o2[g + 1] - o2[g];
        double *h = times + o2[g];
        rt_hold_sort(h, n);
        double r = rt_hold_resolution(h, n);
        if (n > 1 && h[0] != h[n - 1] && r < delta)
            delta = r;
    }
    if (!isfinite(delta))
        delta = 1;
    lua_createtable(L, 0, 2);
    rt_set_num(L, "delta", delta);
    lua_createtable(L, (int)ng, 0);
    for (size_t g = 0; g < ng; g++) {
        size_t n = o2[g + 1] - o2[g];
        double *h = times + o2[g];
        rt_hold_fit fit;
        rt_hold_fit_times(h, n, delta, &fit);
        lua_createtable(L, 0, 7);
        rt_set_str(L, "from", rt_ses_name(s, f2[g]));
        rt_set_str(L, "to", t2[g] == other ? oname : rt_ses_name(s, t2[g]));
        rt_set_int(L, "n", (lua_Integer)n);
        rt_set_str(L, "best", rt_hold_names[fit.best]);
        push_fit(L, &fit);
        lua_setfield(L, -2, "fits");
        if (fit.best == RT_HOLD_EMPIRICAL) {
            lua_createtable(L, (int)fit.distinct, 0);
            lua_createtable(L, (int)fit.distinct, 0);
            lua_Integer j = 0;
            for (size_t i = 0; i < n;) {
                size_t e = i;
                while (e < n && h[e] == h[i])
                    e++;
                j++;
                lua_pushnumber(L, h[i]);
                lua_rawseti(L, -3, j);
                lua_pushnumber(L, (double)(e - i) / (double)n);
                lua_rawseti(L, -2, j);
                i = e;
            }
            lua_setfield(L, -3, "prob");
            lua_setfield(L, -2, "values");
        }
        lua_rawseti(L, -2, (lua_Integer)g + 1);
    }
    lua_setfield(L, -2, "arcs");
    return 1;
}

static double field_num(lua_State *L, int t, const char *k, double def)
{
    lua_getfield(L, t, k);
    double v = lua_isnil(L, -1) ? def : luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/*
 * score(model, windows) -> {ll =, scored =, steps =, states = {name = {ll =, n =}},
 *   unseen = {{from =, to =, count =, member =, index =}}, unseen_steps =, odd_times =,
 *   windows = {{ll =, n =}}, first = {member =, index =} | nil}
 * model: {other =, delta =, arcs = {{from =, to =, p =, family =, fits = (as holding
 * gives), values =, prob =}}} with names; member and index 1-based.
 */
static int ses_score(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer windows = luaL_optinteger(L, 3, 20);
    luaL_argcheck(L, windows >= 1 && windows <= 100000, 3, "window count out of range");
    lua_getfield(L, 2, "other");
    const char *oname = luaL_optstring(L, -1, "OTHER");
    int32_t other = other_id(s, oname);
    double delta = field_num(L, 2, "delta", 1);
    luaL_argcheck(L, delta > 0, 2, "delta must be positive");
    lua_newtable(L); /* the empirical laws' blocks, kept alive while scoring */
    int keep = lua_gettop(L);
    lua_getfield(L, 2, "arcs");
    luaL_argcheck(L, lua_istable(L, -1), 2, "model.arcs: a list of transitions");
    int at = lua_gettop(L);
    size_t na = (size_t)luaL_len(L, at);
    rt_sm_arc *arcs = rt_lseq_scratch(L, (na ? na : 1) * sizeof *arcs);
    size_t used = 0;
    for (size_t q = 0; q < na; q++) {
        lua_geti(L, at, (lua_Integer)q + 1);
        int a = lua_gettop(L);
        lua_getfield(L, a, "from");
        lua_getfield(L, a, "to");
        const char *fn = luaL_checkstring(L, -2), *tn = luaL_checkstring(L, -1);
        int32_t fi = rt_ses_lookup(s, fn), ti = strcmp(tn, oname) ? rt_ses_lookup(s, tn) : other;
        lua_pop(L, 2);
        if (fi < 0 || ti < 0) { /* a state this run never enters: nothing to score */
            lua_pop(L, 1);
            continue;
        }
        rt_sm_arc *r = &arcs[used++];
        memset(r, 0, sizeof *r);
        r->from = fi, r->to = ti;
        double p = field_num(L, a, "p", 0);
        r->logp = p > 0 ? log(p) : -INFINITY;
        lua_getfield(L, a, "family");
        const char *fam = luaL_checkstring(L, -1);
        r->fam = -1;
        for (int c = 0; c < RT_HOLD_N; c++)
            if (!strcmp(fam, rt_hold_names[c]))
                r->fam = c;
        if (r->fam < 0)
            luaL_error(L, "model: unknown holding-time family '%s'", fam);
        lua_pop(L, 1);
        lua_getfield(L, a, "fits");
        int ft = lua_gettop(L);
        r->fallback = -1;
        double best_aic = INFINITY;
        for (int c = 0; c < RT_HOLD_N && lua_istable(L, ft); c++) {
            lua_getfield(L, ft, rt_hold_names[c]);
            if (lua_istable(L, -1)) {
                int x = lua_gettop(L);
                double aic = field_num(L, x, "aic", INFINITY);
                if (c == RT_HOLD_EXP)
                    r->fit.rate = field_num(L, x, "rate", 0);
                else if (c == RT_HOLD_GAMMA)
                    r->fit.gshape = field_num(L, x, "shape", 0), r->fit.gscale = field_num(L, x, "scale", 0);
                else if (c == RT_HOLD_WEIBULL)
                    r->fit.wshape = field_num(L, x, "shape", 0), r->fit.wscale = field_num(L, x, "scale", 0);
                if (c != RT_HOLD_EMPIRICAL && isfinite(aic) && aic < best_aic)
                    best_aic = aic, r->fallback = c;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
        if (r->fam == RT_HOLD_EMPIRICAL) {
            lua_getfield(L, a, "values");
            lua_getfield(L, a, "prob");
            int vt = lua_gettop(L) - 1, pt = lua_gettop(L);
            size_t m = lua_istable(L, vt) ? (size_t)luaL_len(L, vt) : 0;
            luaL_argcheck(L, lua_istable(L, pt) && (size_t)luaL_len(L, pt) == m, 2,
                          "model: an empirical law needs values and prob of one length");
            double *v = lua_newuserdatauv(L, (m ? 2 * m : 1) * sizeof *v, 0), *pr = v + m;
            lua_seti(L, keep, (lua_Integer)luaL_len(L, keep) + 1); /* kept alive until the end */
            for (size_t j = 0; j < m; j++) {
                lua_geti(L, vt, (lua_Integer)j + 1);
                v[j] = luaL_checknumber(L, -1);
                lua_geti(L, pt, (lua_Integer)j + 1);
                pr[j] = luaL_checknumber(L, -1);
                lua_pop(L, 2);
            }
            r->values = v, r->prob = pr, r->m = m;
        }
        lua_settop(L, a - 1);
    }
    rt_score res;
    rt_err err;
    blocks *bk = new_blocks(L);
    if (rt_ses_score(s, other, arcs, used, delta, (size_t)windows, &res, &err))
        return rt_push_fail(L, &err);
    bk->p[0] = res.state_ll, bk->p[1] = res.state_n, bk->p[2] = res.unseen, bk->p[3] = res.win_ll;
    bk->p[4] = res.win_n;
    size_t nsym = rt_ses_symbol_count(s);
    const double *sll = res.state_ll, *wl = res.win_ll;
    const uint64_t *sn = res.state_n, *wn = res.win_n;
    const rt_unseen *un = res.unseen;
    lua_createtable(L, 0, 10);
    rt_set_num(L, "ll", res.ll);
    rt_set_int(L, "scored", (lua_Integer)res.scored);
    rt_set_int(L, "steps", (lua_Integer)res.steps);
    rt_set_int(L, "unseen_steps", (lua_Integer)res.unseen_steps);
    rt_set_int(L, "odd_times", (lua_Integer)res.odd_times);
    lua_newtable(L);
    for (size_t id = 0; id < nsym; id++)
        if (sn[id]) {
            lua_createtable(L, 0, 2);
            rt_set_num(L, "ll", sll[id]);
            rt_set_int(L, "n", (lua_Integer)sn[id]);
            lua_setfield(L, -2, rt_ses_name(s, (int32_t)id));
        }
    lua_setfield(L, -2, "states");
    lua_createtable(L, (int)res.nunseen, 0);
    for (size_t u = 0; u < res.nunseen; u++) {
        lua_createtable(L, 0, 5);
        rt_set_str(L, "from", rt_ses_name(s, un[u].from));
        rt_set_str(L, "to", un[u].to == other ? oname : rt_ses_name(s, un[u].to));
        rt_set_int(L, "count", (lua_Integer)un[u].count);
        rt_set_int(L, "member", (lua_Integer)un[u].member + 1);
        rt_set_int(L, "index", (lua_Integer)un[u].index + 1);
        lua_rawseti(L, -2, (lua_Integer)u + 1);
    }
    lua_setfield(L, -2, "unseen");
    lua_createtable(L, (int)res.windows, 0);
    for (size_t w = 0; w < res.windows; w++) {
        lua_createtable(L, 0, 2);
        rt_set_num(L, "ll", wl[w]);
        rt_set_int(L, "n", (lua_Integer)wn[w]);
        lua_rawseti(L, -2, (lua_Integer)w + 1);
    }
    lua_setfield(L, -2, "windows");
    if (res.departed) {
        lua_createtable(L, 0, 2);
        rt_set_int(L, "member", (lua_Integer)res.first_member + 1);
        rt_set_int(L, "index", (lua_Integer)res.first_index + 1);
        lua_setfield(L, -2, "first");
    }
    return 1;
}

/* steady() -> {{state =, n = {first, second}, arcs =, chi2 =, df =, p =, max_diff =,
 *   sparse =}, ...} for every state with transitions in both halves (rt_ses_steady) */
static int ses_steady(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t nsym = rt_ses_symbol_count(s);
    rt_steady *r = rt_lseq_scratch(L, (nsym ? nsym : 1) * sizeof *r);
    rt_err err;
    if (rt_ses_steady(s, r, &err))
        return rt_push_fail(L, &err);
    lua_newtable(L);
    lua_Integer j = 0;
    for (size_t a = 0; a < nsym; a++) {
        if (!r[a].n[0] || !r[a].n[1])
            continue;
        lua_createtable(L, 0, 8);
        rt_set_str(L, "state", rt_ses_name(s, r[a].sym));
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, (lua_Integer)r[a].n[0]);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, (lua_Integer)r[a].n[1]);
        lua_rawseti(L, -2, 2);
        lua_setfield(L, -2, "n");
        rt_set_int(L, "arcs", (lua_Integer)r[a].arcs);
        rt_set_num(L, "chi2", r[a].chi2);
        rt_set_int(L, "df", r[a].df);
        rt_set_num(L, "p", r[a].p);
        rt_set_num(L, "max_diff", r[a].max_diff);
        lua_pushboolean(L, r[a].sparse);
        lua_setfield(L, -2, "sparse");
        lua_rawseti(L, -2, ++j);
    }
    return 1;
}

/* s:sync_fit(k, name) -> {offset, drift, residual, n, n_ref, n_member} | nil, message */
static int ses_sync_fit(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 3));
    rt_err err;
    rt_ses_clockfit f;
    if (id < 0) {
        lua_pushnil(L);
        lua_pushfstring(L, "drift: no state '%s' in the runs", lua_tostring(L, 3));
        return 2;
    }
    if (rt_ses_sync_fit(s, k, id, &f, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 6);
    lua_pushnumber(L, f.offset);
    lua_setfield(L, -2, "offset");
    lua_pushnumber(L, f.drift);
    lua_setfield(L, -2, "drift");
    lua_pushnumber(L, f.residual);
    lua_setfield(L, -2, "residual");
    lua_pushinteger(L, (lua_Integer)f.n);
    lua_setfield(L, -2, "n");
    lua_pushinteger(L, (lua_Integer)f.n_ref);
    lua_setfield(L, -2, "n_ref");
    lua_pushinteger(L, (lua_Integer)f.n_member);
    lua_setfield(L, -2, "n_member");
    return 1;
}

/* dst:merge_from(src, offsets | nil, drifts | nil, sep, label) -> true | nil, message */
static int ses_merge_from(lua_State *L)
{
    rt_ses *dst = rt_lseq_check(L);
    ses_box *sb = luaL_checkudata(L, 2, SES_T);
    if (!sb->s)
        return luaL_argerror(L, 2, "session is closed");
    rt_ses *src = sb->s;
    size_t P = rt_ses_members(src);
    double *off = NULL, *dr = NULL;
    if (!lua_isnoneornil(L, 3) || !lua_isnoneornil(L, 4)) {
        luaL_checktype(L, 3, LUA_TTABLE);
        luaL_checktype(L, 4, LUA_TTABLE);
        off = rt_lseq_scratch(L, P * sizeof *off);
        dr = rt_lseq_scratch(L, P * sizeof *dr);
        for (size_t k = 0; k < P; k++) {
            lua_geti(L, 3, (lua_Integer)k + 1);
            lua_geti(L, 4, (lua_Integer)k + 1);
            off[k] = luaL_checknumber(L, -2);
            dr[k] = luaL_checknumber(L, -1);
            lua_pop(L, 2);
        }
    }
    rt_err err;
    return rt_lseq_status(L, rt_ses_merge(src, off, dr, luaL_optstring(L, 5, ""), dst,
                                          luaL_optstring(L, 6, "merged"), &err), &err);
}

/* s:acquire(flags, T, per_member, shown): flags[id] = a string of T bytes ('1': thread j
 * of symbol id acquires) -> {{n, cut, sum, sumsq, min, max, run_n, run_sum, starts,
 * durations}, ...} per thread */
static int ses_acquire(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer T = luaL_checkinteger(L, 3);
    int per_member = lua_toboolean(L, 4);
    lua_Integer shown = luaL_checkinteger(L, 5);
    size_t nsym = rt_ses_symbol_count(s);
    if (T < 1 || shown < 0)
        return luaL_argerror(L, 3, "thread count must be positive");
    uint8_t *in = rt_lseq_scratch(L, nsym * (size_t)T + 1);
    memset(in, 0, nsym * (size_t)T);
    lua_pushnil(L);
    while (lua_next(L, 2)) {
        lua_Integer id = luaL_checkinteger(L, -2);
        size_t len;
        const char *f = luaL_checklstring(L, -1, &len);
        if (id < 0 || (size_t)id >= nsym || len != (size_t)T)
            return luaL_argerror(L, 2, "flags: bad symbol id or length");
        for (size_t j = 0; j < len; j++)
            in[(size_t)id * (size_t)T + j] = f[j] == '1';
        lua_pop(L, 1);
    }
    rt_ses_acq a;
    rt_err err;
    if (rt_ses_acquire(s, in, (size_t)T, per_member, (size_t)shown, &a, &err) != RT_OK)
        return rt_push_fail(L, &err);
    size_t M = rt_ses_members(s);
    lua_createtable(L, (int)a.nthreads, 0);
    for (size_t j = 0; j < a.nthreads; j++) {
        rt_ses_acq_thread *t = &a.threads[j];
        lua_createtable(L, 0, 10);
        lua_pushinteger(L, (lua_Integer)t->n);
        lua_setfield(L, -2, "n");
        lua_pushinteger(L, (lua_Integer)t->cut);
        lua_setfield(L, -2, "cut");
        lua_pushnumber(L, t->sum);
        lua_setfield(L, -2, "sum");
        lua_pushnumber(L, t->sumsq);
        lua_setfield(L, -2, "sumsq");
        lua_pushnumber(L, t->min);
        lua_setfield(L, -2, "min");
        lua_pushnumber(L, t->max);
        lua_setfield(L, -2, "max");
        lua_createtable(L, (int)M, 0);
        for (size_t k = 0; k < M; k++) {
            lua_pushinteger(L, (lua_Integer)t->run_n[k]);
            lua_rawseti(L, -2, (lua_Integer)k + 1);
        }
        lua_setfield(L, -2, "run_n");
        push_doubles(L, t->run_sum, M, "run_sum");
        push_doubles(L, t->starts, t->nshown, "starts");
        push_doubles(L, t->durations, t->nshown, "durations");
        lua_rawseti(L, -2, (lua_Integer)j + 1);
    }
    rt_ses_acq_free(&a);
    return 1;
}

static const luaL_Reg ses_methods[] = {
    {"load", ses_load},
    {"sync_fit", ses_sync_fit},
    {"merge_from", ses_merge_from},
    {"acquire", ses_acquire},
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
    {"distinct", ses_distinct},
    {"find", ses_find},
    {"chain", ses_chain},
    {"pes_chain", ses_pes_chain},
    {"pes_names", ses_pes_names},
    {"pes_chain_ops", ses_pes_chain_ops},
    {"pes_totals_ops", ses_pes_totals_ops},
    {"plan_filter", ses_plan_filter},
    {"holding", ses_holding},
    {"score", ses_score},
    {"steady", ses_steady},
    {"close", ses_close},
    {NULL, NULL},
};

/* seq.pes_scan(path) -> {states, symbols, first, last} | nil, message: counts of a PES
 * read in bounded memory (rt_pes_scan). */
static int l_pes_scan(lua_State *L)
{
    rt_pes_summary s;
    rt_err err;
    if (rt_pes_scan(luaL_checkstring(L, 1), &s, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, (lua_Integer)s.states);
    lua_setfield(L, -2, "states");
    lua_pushinteger(L, (lua_Integer)s.symbols);
    lua_setfield(L, -2, "symbols");
    lua_pushnumber(L, s.first);
    lua_setfield(L, -2, "first");
    lua_pushnumber(L, s.last);
    lua_setfield(L, -2, "last");
    return 1;
}

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {"pes_scan", l_pes_scan},
    {"simulate", l_simulate},
    {"stream", l_stream},
    {NULL, NULL},
};

int rt_lopen_seq(lua_State *L)
{
    rt_new_class(L, SES_T, ses_methods, ses_close);
    /* the views' methods (seq_views.c) join the session's */
    luaL_getmetatable(L, SES_T);
    lua_getfield(L, -1, "__index");
    luaL_setfuncs(L, rt_lseq_view_methods, 0);
    lua_pop(L, 2);
    luaL_newlib(L, funcs);
    lua_pushcfunction(L, rt_lseq_periodogram);
    lua_setfield(L, -2, "periodogram");
    rt_set_int(L, "simulate_max", SIMULATE_MAX);
    return 1;
}
