/*
 * lmedea.c - Lua face of core/msg/rt_medea: workload parameters of a trace.
 *
 *   local acc = core.medea.new([keep_profiles [, keep_bursts]])
 *   acc:add(rectype, event, time, proc [, bytes])   -- one record (tests, generators)
 *   acc:feed(path [, strict]) -> skipped, warnings | nil, message  -- replay a PICL trace, in C
 *   acc:processors()  -> { {proc=, extime=, cptime=, ..., trnum=, ...}, ... }
 *   acc:events()      -> { {proc=, event=, ctime=, ..., hunum=}, ... }
 *   acc:profile(name) -> times, counts   (name: exec comp comm recv send io)
 *   acc:profile_batches(name, n, fn) -> fn(times, counts) for each n change points in turn
 *   acc:profile_span(name) -> first time, last time, change points (nil when empty)
 *   acc:profile_columns(name, w, x0, x1) -> the profile reduced to w pixel columns
 *                                          over [x0, x1] (retrace.reduce's table)
 *   acc:profile_slices(name, n, t0, t1) -> {processor-seconds in the activity during each of
 *                                          n equal slices of [t0, t1]}
 *   acc:bursts() -> {proc = {..}, task = {..}, t0 = {..}, t1 = {..}, nuser = {..}} columns of the
 *                   computation bursts (kept when asked for)
 *   acc:close()
 *   core.medea.category(event) -> "tr" | "rc" | ... | nil
 *
 * Clustering (core/util/rt_cluster), on a matrix given as a list of rows:
 *   core.medea.kmeans(rows, k, {seed=, min_tries=, patience=, max_tries=, max_iter=})
 *       -> {assign = {1-based}, centroids = {rows}, w =, tries =, best_try =, converged =}
 *   core.medea.dbscan(rows, eps, min_pts) -> labels (0 noise, else 1..), clusters
 *   core.medea.kdist(rows, k) -> the sorted k-distance curve, knee index (1-based)
 *   core.medea.silhouette(rows, assign, k) -> mean width (nil for k < 2), per-row widths
 */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "lmedea.h"
#include "lreduce.h"
#include "rt_cluster.h"
#include "rt_medea.h"

#define ACC_T "retrace.MedeaAcc"

static const char *const cat_names[RT_MEDEA_NCAT] = {
    "trtime", "rctime", "iptime", "cktime", "iotime", "rstime", "cotime", "sytime"};
static const char *const prof_names[] = {"exec", "comp", "comm", "recv", "send", "io", NULL};

typedef struct {
    rt_medea *m; /* NULL once closed */
} acc_box;

static acc_box *check_acc(lua_State *L, int i)
{
    acc_box *b = luaL_checkudata(L, i, ACC_T);
    if (!b->m)
        luaL_argerror(L, i, "parameter accumulator is closed");
    return b;
}

rt_medea *rt_lmedea_check(lua_State *L, int i)
{
    return check_acc(L, i)->m;
}

static int acc_close(lua_State *L)
{
    acc_box *b = luaL_checkudata(L, 1, ACC_T);
    rt_medea_free(b->m);
    b->m = NULL;
    return 0;
}

static int l_new(lua_State *L)
{
    acc_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->m = NULL;
    luaL_setmetatable(L, ACC_T);
    b->m = rt_medea_new();
    if (!b->m)
        return luaL_error(L, "out of memory");
    rt_medea_keep_profiles(b->m, lua_toboolean(L, 1));
    rt_medea_keep_bursts(b->m, lua_toboolean(L, 2));
    return 1;
}

/* acc:add(rectype, event, time, proc [, bytes [, task]]) -> true | nil, message */
static int acc_add(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    rt_medea_rec r;
    r.rectype = (int)luaL_checkinteger(L, 2);
    r.event = (int)luaL_checkinteger(L, 3);
    r.time = luaL_checknumber(L, 4);
    r.proc = (int)luaL_checkinteger(L, 5);
    r.bytes = luaL_optnumber(L, 6, -1);
    r.task = (int)luaL_optinteger(L, 7, 0);
    rt_err err;
    if (rt_medea_add(b->m, &r, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* acc:finish() -> true: close every open event at its processor's last record
 * (acc:feed does it; for records given with acc:add) */
static int acc_finish(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    rt_err err;
    if (rt_medea_finish(b->m, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

/* acc:own(part, parts): keep only processors p with p % parts == part (one rank's share of a job) */
static int acc_own(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    int part = (int)luaL_checkinteger(L, 2), parts = (int)luaL_checkinteger(L, 3);
    luaL_argcheck(L, parts >= 1 && part >= 0 && part < parts, 2, "part 0 .. parts - 1 expected");
    rt_medea_set_part(b->m, part, parts);
    return 0;
}

/* acc:from_stats() -> true when the parameters came from statistics records */
static int acc_from_stats(lua_State *L)
{
    lua_pushboolean(L, rt_medea_from_stats(check_acc(L, 1)->m));
    return 1;
}

/* acc:feed(path [, strict]) -> malformed lines skipped, engine warnings | nil, message */
static int acc_feed(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    const char *path = luaL_checkstring(L, 2);
    int strict = lua_toboolean(L, 3);
    unsigned long skipped = 0, warnings = 0;
    rt_err err;
    rt_err_clear(&err);
    if (rt_medea_feed_file(b->m, path, strict, &skipped, &warnings, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, (lua_Integer)skipped);
    lua_pushinteger(L, (lua_Integer)warnings);
    return 2;
}

static int acc_processors(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    size_t n = rt_medea_nprocs(b->m);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        rt_medea_proc p;
        rt_medea_proc_get(b->m, i, &p);
        lua_createtable(L, 0, 24);
        rt_set_int(L, "proc", p.proc);
        if (p.task != 0) /* a PICL task of its own on that processor */
            rt_set_int(L, "task", p.task);
        rt_set_num(L, "first", p.first);
        rt_set_num(L, "last", p.last);
        rt_set_num(L, "extime", p.extime);
        rt_set_num(L, "cptime", p.cptime);
        rt_set_num(L, "cmtime", p.cmtime);
        for (int c = 0; c < RT_MEDEA_NCAT; c++)
            rt_set_num(L, cat_names[c], p.time[c]);
        rt_set_num(L, "trdata", p.trdata);
        rt_set_num(L, "rcdata", p.rcdata);
        rt_set_num(L, "ttdata", p.ttdata);
        rt_set_num(L, "iodata", p.iodata);
        rt_set_int(L, "trnum", p.trnum);
        rt_set_int(L, "rcnum", p.rcnum);
        rt_set_int(L, "ionum", p.ionum);
        rt_set_int(L, "unmatched", p.unmatched);
        rt_set_int(L, "unclosed", p.unclosed);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int acc_events(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    size_t n = rt_medea_nevents(b->m);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        rt_medea_event e;
        rt_medea_event_get(b->m, i, &e);
        lua_createtable(L, 0, 12);
        rt_set_int(L, "proc", e.proc);
        if (e.task != 0)
            rt_set_int(L, "task", e.task);
        rt_set_int(L, "event", e.event);
        rt_set_num(L, "ctime", e.ctime);
        rt_set_num(L, "stime", e.stime);
        rt_set_num(L, "utime", e.utime);
        rt_set_num(L, "hstime", e.hstime);
        rt_set_int(L, "cnum", e.cnum);
        rt_set_int(L, "snum", e.snum);
        rt_set_int(L, "unum", e.unum);
        rt_set_int(L, "hsnum", e.hsnum);
        rt_set_int(L, "hunum", e.hunum);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

/* The profile named by argument 2 of the accumulator at 1; raises on failure. */
static void get_profile(lua_State *L, const double **t, const int **c, size_t *n)
{
    acc_box *b = check_acc(L, 1);
    int which = luaL_checkoption(L, 2, NULL, prof_names);
    rt_err err;
    if (rt_medea_profile(b->m, which, t, c, n, &err) != RT_OK)
        luaL_error(L, "%s", err.msg);
}

static int acc_profile(lua_State *L)
{
    const double *t;
    const int *c;
    size_t n;
    get_profile(L, &t, &c, &n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, t[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, c[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 2;
}

/* (under lua_pcall) fn(times, counts) with the n points at t and c made into tables: a
 * memory error while building them is caught too */
static int acc_profile_batch_call(lua_State *L)
{
    const double *t = lua_touserdata(L, 2);
    const int *c = lua_touserdata(L, 3);
    lua_Integer n = lua_tointeger(L, 4);
    lua_settop(L, 1);
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        lua_pushnumber(L, t[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_createtable(L, (int)n, 0);
    for (lua_Integer i = 0; i < n; i++) {
        lua_pushinteger(L, c[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_call(L, 2, 0);
    return 0;
}

/*
 * acc:profile_batches(name, n, fn): fn(times, counts) for each batch of at most n change
 * points of the profile, in time order (the profile is never held whole: its points are
 * read from the accumulator's store as they are handed out). An error fn raises is raised
 * again after the cursor is closed.
 */
static int acc_profile_batches(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    int which = luaL_checkoption(L, 2, NULL, prof_names);
    lua_Integer max = luaL_checkinteger(L, 3);
    luaL_argcheck(L, max >= 1 && max <= (1 << 20), 3, "batches of 1 to 1048576 points");
    luaL_checktype(L, 4, LUA_TFUNCTION);
    double *t = lua_newuserdatauv(L, (size_t)max * (sizeof(double) + sizeof(int)), 0); /* freed by Lua */
    int *c = (int *)(t + max);
    rt_err err;
    rt_medea_pcursor *cur = rt_medea_profile_open(b->m, which, &err);
    if (!cur)
        return luaL_error(L, "%s", err.msg);
    for (;;) {
        size_t n;
        if (rt_medea_profile_next(cur, t, c, (size_t)max, &n, &err) != RT_OK) {
            rt_medea_profile_close(cur);
            return luaL_error(L, "%s", err.msg);
        }
        if (n == 0)
            break;
        lua_pushcfunction(L, acc_profile_batch_call);
        lua_pushvalue(L, 4);
        lua_pushlightuserdata(L, t);
        lua_pushlightuserdata(L, c);
        lua_pushinteger(L, (lua_Integer)n);
        if (lua_pcall(L, 4, 0, 0) != LUA_OK) {
            rt_medea_profile_close(cur);
            return lua_error(L);
        }
    }
    rt_medea_profile_close(cur);
    return 0;
}

static int acc_profile_span(lua_State *L)
{
    const double *t;
    const int *c;
    size_t n;
    get_profile(L, &t, &c, &n);
    if (n == 0)
        return 0;
    lua_pushnumber(L, t[0]);
    lua_pushnumber(L, t[n - 1]);
    lua_pushinteger(L, (lua_Integer)n);
    return 3;
}

/* The profile straight from the engine's arrays into the reducer: no Lua table
 * of the change points is ever made (they run to millions on long traces). */
static int acc_profile_columns(lua_State *L)
{
    lua_Integer w = luaL_checkinteger(L, 3);
    double x0 = luaL_checknumber(L, 4), x1 = luaL_checknumber(L, 5);
    const double *t;
    const int *c;
    size_t n;
    rt_err err;
    get_profile(L, &t, &c, &n);
    rt_reduce *r = rt_lreduce_push_new(L, w, x0, x1, 1);
    int st = rt_reduce_add_int(r, t, c, n, &err);
    if (st == RT_OK && n > 0)
        st = rt_reduce_finish(r, t[n - 1] > x1 ? t[n - 1] : x1, &err);
    if (st != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return rt_push_reduced(L, r);
}

/* Integrals of a profile over equal time slices, in C (no table of change points). */
static int acc_profile_slices(lua_State *L)
{
    lua_Integer ns = luaL_checkinteger(L, 3);
    double t0 = luaL_checknumber(L, 4), t1 = luaL_checknumber(L, 5);
    luaL_argcheck(L, ns >= 1 && ns <= 100000000, 3, "slices: from 1 to 10^8");
    const double *t;
    const int *c;
    size_t n;
    get_profile(L, &t, &c, &n);
    double *out = lua_newuserdatauv(L, (size_t)ns * sizeof *out, 0);
    rt_err err;
    if (rt_medea_integrate(t, c, n, t0, t1, (size_t)ns, out, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, (int)ns, 0);
    for (lua_Integer j = 0; j < ns; j++) {
        lua_pushnumber(L, out[j]);
        lua_rawseti(L, -2, j + 1);
    }
    return 1;
}

static int acc_bursts(lua_State *L)
{
    acc_box *b = check_acc(L, 1);
    size_t n;
    const rt_medea_burst *bs = rt_medea_bursts(b->m, &n);
    lua_createtable(L, 0, 5);
    const char *names[] = {"proc", "task", "t0", "t1", "nuser"};
    for (int f = 0; f < 5; f++) {
        lua_createtable(L, (int)n, 0);
        for (size_t i = 0; i < n; i++) {
            const rt_medea_burst *x = &bs[i];
            switch (f) {
            case 0: lua_pushinteger(L, x->proc); break;
            case 1: lua_pushinteger(L, x->task); break;
            case 2: lua_pushnumber(L, x->t0); break;
            case 3: lua_pushnumber(L, x->t1); break;
            default: lua_pushinteger(L, x->nuser); break;
            }
            lua_rawseti(L, -2, (lua_Integer)i + 1);
        }
        lua_setfield(L, -2, names[f]);
    }
    return 1;
}

static int l_category(lua_State *L)
{
    int c = rt_medea_category((int)luaL_checkinteger(L, 1));
    if (c < 0)
        lua_pushnil(L);
    else
        lua_pushstring(L, cat_names[c]);
    return 1;
}

/* "retrace.MedeaAcc: 4 processors, 120 events" */
static int acc_tostring(lua_State *L)
{
    acc_box *b = luaL_checkudata(L, 1, ACC_T);
    if (!b->m) {
        lua_pushstring(L, ACC_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, ACC_T ": %I processors, %I events", (lua_Integer)rt_medea_nprocs(b->m),
                    (lua_Integer)rt_medea_nevents(b->m));
    return 1;
}

static const luaL_Reg acc_methods[] = {
    {"__tostring", acc_tostring},
    {"add", acc_add},
    {"feed", acc_feed},
    {"finish", acc_finish},
    {"from_stats", acc_from_stats},
    {"own", acc_own},
    {"processors", acc_processors},
    {"events", acc_events},
    {"profile", acc_profile},
    {"profile_batches", acc_profile_batches},
    {"profile_span", acc_profile_span},
    {"profile_columns", acc_profile_columns},
    {"profile_slices", acc_profile_slices},
    {"bursts", acc_bursts},
    {"close", acc_close},
    {NULL, NULL},
};

/* The rows of a matrix (a list of equal-length lists of numbers) into a block owned
 * by a userdata pushed on the stack: nothing malloc'd is held across a raise. */
static double *matrix_arg(lua_State *L, int i, size_t *n, size_t *d)
{
    luaL_checktype(L, i, LUA_TTABLE);
    *n = (size_t)luaL_len(L, i);
    *d = 0;
    if (*n > 0) {
        lua_geti(L, i, 1);
        luaL_argcheck(L, lua_istable(L, -1), i, "a list of rows");
        *d = (size_t)luaL_len(L, -1);
        lua_pop(L, 1);
    }
    luaL_argcheck(L, *n > 0 && *d > 0, i, "an empty matrix");
    double *x = lua_newuserdatauv(L, *n * *d * sizeof *x, 0);
    for (size_t r = 0; r < *n; r++) {
        lua_geti(L, i, (lua_Integer)r + 1);
        if (!lua_istable(L, -1) || (size_t)luaL_len(L, -1) != *d)
            luaL_argerror(L, i, "rows of equal length");
        for (size_t j = 0; j < *d; j++) {
            lua_geti(L, -1, (lua_Integer)j + 1);
            int ok;
            x[r * *d + j] = lua_tonumberx(L, -1, &ok);
            if (!ok)
                luaL_argerror(L, i, "rows of numbers");
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return x;
}

static void push_ints(lua_State *L, const int32_t *a, size_t n, int plus)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushinteger(L, (lua_Integer)a[i] + plus);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static unsigned opt_unsigned(lua_State *L, int t, const char *key, unsigned def)
{
    lua_getfield(L, t, key);
    lua_Integer v = lua_isnil(L, -1) ? (lua_Integer)def : luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    if (v < 0 || v > 1000000000)
        luaL_error(L, "kmeans: %s out of range", key);
    return (unsigned)v;
}

static int l_kmeans(lua_State *L)
{
    size_t n, d;
    double *x = matrix_arg(L, 1, &n, &d);
    lua_Integer k = luaL_checkinteger(L, 2);
    luaL_argcheck(L, k >= 1 && (size_t)k <= n, 2, "k must be from 1 to the number of rows");
    rt_kmeans_opts o = {1, 10, 20, 1000, 100};
    if (lua_istable(L, 3)) {
        lua_getfield(L, 3, "seed");
        o.seed = lua_isnil(L, -1) ? 1 : (unsigned long)luaL_checkinteger(L, -1);
        lua_pop(L, 1);
        o.min_tries = opt_unsigned(L, 3, "min_tries", o.min_tries);
        o.patience = opt_unsigned(L, 3, "patience", o.patience);
        o.max_tries = opt_unsigned(L, 3, "max_tries", o.max_tries);
        o.max_iter = opt_unsigned(L, 3, "max_iter", o.max_iter);
    }
    int32_t *assign = lua_newuserdatauv(L, n * sizeof *assign, 0);
    double *c = lua_newuserdatauv(L, (size_t)k * d * sizeof *c, 0);
    rt_kmeans_info info;
    rt_err err;
    if (rt_kmeans(x, n, d, (size_t)k, &o, assign, c, &info, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, 0, 6);
    push_ints(L, assign, n, 1);
    lua_setfield(L, -2, "assign");
    lua_createtable(L, (int)k, 0);
    for (lua_Integer h = 0; h < k; h++) {
        lua_createtable(L, (int)d, 0);
        for (size_t j = 0; j < d; j++) {
            lua_pushnumber(L, c[(size_t)h * d + j]);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_rawseti(L, -2, h + 1);
    }
    lua_setfield(L, -2, "centroids");
    lua_pushnumber(L, info.w);
    lua_setfield(L, -2, "w");
    lua_pushinteger(L, info.tries);
    lua_setfield(L, -2, "tries");
    lua_pushinteger(L, info.best_try);
    lua_setfield(L, -2, "best_try");
    lua_pushboolean(L, info.converged);
    lua_setfield(L, -2, "converged");
    return 1;
}

static int l_dbscan(lua_State *L)
{
    size_t n, d;
    double *x = matrix_arg(L, 1, &n, &d);
    double eps = luaL_checknumber(L, 2);
    lua_Integer m = luaL_checkinteger(L, 3);
    luaL_argcheck(L, eps >= 0, 2, "eps must be >= 0");
    luaL_argcheck(L, m >= 1, 3, "min_pts must be >= 1");
    int32_t *label = lua_newuserdatauv(L, n * sizeof *label, 0);
    size_t clusters;
    rt_err err;
    if (rt_dbscan(x, n, d, eps, (size_t)m, label, &clusters, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    push_ints(L, label, n, 1);
    lua_pushinteger(L, (lua_Integer)clusters);
    return 2;
}

static int l_kdist(lua_State *L)
{
    size_t n, d;
    double *x = matrix_arg(L, 1, &n, &d);
    lua_Integer k = luaL_checkinteger(L, 2);
    luaL_argcheck(L, k >= 1 && (size_t)k < n, 2, "k must be from 1 to the number of rows - 1");
    double *out = lua_newuserdatauv(L, n * sizeof *out, 0);
    rt_err err;
    if (rt_kdist(x, n, d, (size_t)k, out, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, out[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, (lua_Integer)rt_knee(out, n) + 1);
    return 2;
}

static int l_silhouette(lua_State *L)
{
    size_t n, d;
    double *x = matrix_arg(L, 1, &n, &d);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_Integer k = luaL_checkinteger(L, 3);
    luaL_argcheck(L, k >= 1, 3, "k must be >= 1");
    int32_t *assign = lua_newuserdatauv(L, n * sizeof *assign, 0);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, 2, (lua_Integer)i + 1);
        lua_Integer a = lua_tointeger(L, -1);
        lua_pop(L, 1);
        luaL_argcheck(L, a >= 1 && a <= k, 2, "cluster numbers from 1 to k");
        assign[i] = (int32_t)(a - 1);
    }
    double *per = lua_newuserdatauv(L, n * sizeof *per, 0);
    double mean = rt_silhouette(x, n, d, assign, (size_t)k, per);
    if (isnan(mean)) {
        lua_pushnil(L);
        return 1;
    }
    lua_pushnumber(L, mean);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, per[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 2;
}

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {"category", l_category},
    {"kmeans", l_kmeans},
    {"dbscan", l_dbscan},
    {"kdist", l_kdist},
    {"silhouette", l_silhouette},
    {NULL, NULL},
};

int rt_lopen_medea(lua_State *L)
{
    rt_new_class(L, ACC_T, acc_methods, acc_close);
    luaL_newlib(L, funcs);
    lua_createtable(L, RT_MEDEA_NCAT, 0);
    for (int c = 0; c < RT_MEDEA_NCAT; c++) {
        lua_pushstring(L, cat_names[c]);
        lua_rawseti(L, -2, c + 1);
    }
    lua_setfield(L, -2, "categories");
    return 1;
}
