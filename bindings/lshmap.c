/*
 * lshmap.c - Lua face of the SHMAP reader and simulator (core/trace/rt_shmap,
 * core/sched/rt_sched, core/sched/rt_shmap_sim). Low level; lua/retrace/shmap.lua
 * builds the friendly API on top.
 *
 *   shmap.open(path) -> trace | nil, message
 *   trace:info() -> {records=, events=, loads=, ..., time_last=, min_step=}
 *   trace:matrices() -> { {id=, rows=, cols=, line=}, ... }   (increasing ID)
 *   trace:records() -> iterator over record tables (four values, closes on break)
 *   shmap.new_sim(trace, {pes=, caches=, cache_size=, line=, ways=, policy=,
 *                 seed=, write_back=, cache=}) -> sim | nil, message
 *   sim:step(n) -> steps run, finished      sim:run() -> steps run
 *   sim:step_events(n) -> events run, finished   sim:last_info() -> text, pe, matrix id
 *   sim:stats() sim:active() sim:elements(id) sim:on_access(fn|nil) sim:close()
 *   shmap.from_capture{rtmb=, log=, out=, program=, hints={{name=, rows=, cols=, col=}...},
 *                      min_elements=, max_matrices=}
 *     -> {matrices={{id, name, rows, cols, col_major, elem, how, refs}...}, left_out=, threads=,
 *         refs=, accesses=} | nil, message, status name
 *
 * PE and cache numbers are 0-based (PE p uses cache floor(p*C/P)); arrays are
 * Lua arrays, so pes[1] is PE 0.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lcache.h"
#include "lshmap.h"
#include "rt_mem.h"
#include "rt_shmap_from.h"
#include "rt_shmap_paje.h"
#include "rt_shmap_sim.h"

#define TRACE_T "retrace.ShmapTrace"
#define SIM_T "retrace.ShmapSim"

static const char *const op_names[] = {"define", "load", "store", "info", "info", "flops",
                                       "parallel_start", "parallel_end", "group_start",
                                       "group_end"};

/* ---- trace ---- */

/* A trace may be shared by the simulations made from it: each holds a reference
 * (and keeps the userdata alive through a user value); closing the trace only
 * marks it closed, and the reader is freed when the last holder lets go. */
typedef struct {
    rt_shmap *r;            /* NULL once freed */
    int closed;             /* closed by the user (or collected) */
    int users;              /* simulations reading it */
} trace_box;

static trace_box *check_trace(lua_State *L, int i)
{
    trace_box *b = luaL_checkudata(L, i, TRACE_T);
    if (!b->r || b->closed)
        luaL_argerror(L, i, "SHMAP trace is closed");
    return b;
}

static void trace_release(trace_box *b)
{
    if (b->closed && b->users == 0) {
        rt_shmap_free(b->r);
        b->r = NULL;
    }
}

static int trace_close(lua_State *L)
{
    trace_box *b = luaL_checkudata(L, 1, TRACE_T);
    b->closed = 1;
    trace_release(b);
    return 0;
}

static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    trace_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, TRACE_T);
    rt_err err;
    b->r = rt_shmap_open(path, &err);
    if (!b->r)
        return rt_push_fail(L, &err);
    return 1;
}

static int trace_info(lua_State *L)
{
    trace_box *b = check_trace(L, 1);
    const rt_shmap_info *in = rt_shmap_get_info(b->r);
    lua_createtable(L, 0, 16);
    rt_set_str(L, "file", rt_shmap_name(b->r));
    rt_set_int(L, "records", in->records);
    rt_set_int(L, "events", in->events);
    rt_set_int(L, "loads", in->loads);
    rt_set_int(L, "stores", in->stores);
    rt_set_int(L, "load_elements", in->load_elements);
    rt_set_int(L, "store_elements", in->store_elements);
    rt_set_int(L, "flops", in->flops);
    rt_set_int(L, "sections", in->sections);
    rt_set_int(L, "groups", in->groups);
    rt_set_int(L, "lines", in->lines);
    rt_set_int(L, "matrices", rt_shmap_matrix_count(b->r));
    rt_set_num(L, "time_first", in->time_first);
    rt_set_num(L, "time_last", in->time_last);
    rt_set_num(L, "min_step", in->min_step);
    return 1;
}

static void push_matrix(lua_State *L, const rt_shmap_matrix *m)
{
    lua_createtable(L, 0, 4);
    rt_set_int(L, "id", m->id);
    rt_set_int(L, "rows", m->rows);
    rt_set_int(L, "cols", m->cols);
    rt_set_int(L, "line", m->line);
}

static int trace_matrices(lua_State *L)
{
    trace_box *b = check_trace(L, 1);
    int n = rt_shmap_matrix_count(b->r);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_matrix(L, rt_shmap_matrix_at(b->r, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* A record as a table: op name, line, and the fields its opcode has. */
static void push_event(lua_State *L, const rt_shmap *r, const rt_shmap_event *ev)
{
    lua_createtable(L, 0, 8);
    rt_set_str(L, "op", op_names[ev->op]);
    rt_set_int(L, "line", ev->line);
    if (ev->matrix >= 0)
        rt_set_int(L, "matrix", rt_shmap_matrix_at(r, ev->matrix)->id);
    switch (ev->op) {
    case RT_SHM_DEFINE:
        rt_set_int(L, "rows", ev->r2);
        rt_set_int(L, "cols", ev->c2);
        break;
    case RT_SHM_LOAD:
    case RT_SHM_STORE:
        rt_set_int(L, "r1", ev->r1);
        rt_set_int(L, "r2", ev->r2);
        rt_set_int(L, "c1", ev->c1);
        rt_set_int(L, "c2", ev->c2);
        rt_set_num(L, "time", ev->time);
        break;
    case RT_SHM_FLOPS:
        rt_set_int(L, "flops", ev->flops);
        rt_set_str(L, "name", ev->text);
        break;
    default:
        rt_set_str(L, "text", ev->text);
        break;
    }
}

static int records_step(lua_State *L)
{
    trace_box *b = check_trace(L, 1);
    rt_shmap_event ev;
    rt_err err;
    int st = rt_shmap_next(b->r, &ev, &err);
    if (st == RT_EEOF)
        return 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", err.msg);
    push_event(L, b->r, &ev);
    return 1;
}

/* closing value of a records() loop: nothing to free, the trace stays open */
static int trace_records(lua_State *L)
{
    trace_box *b = check_trace(L, 1);
    if (b->users)
        return luaL_error(L, "SHMAP trace is in use by a simulation; open it again to read records");
    rt_err err;
    if (rt_shmap_rewind(b->r, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_pushcfunction(L, records_step);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    lua_pushnil(L);
    return 4;
}

/* ---- simulation ---- */

/* Accesses of the current step, kept for delivery to a Lua subscriber. */
typedef struct {
    rt_shmap_access *a;
    size_t n, cap;
    int oom;
} access_buf;

typedef struct {
    rt_shmap_sim *s;        /* NULL once closed */
    trace_box *trace;       /* kept alive by user value 1 */
    access_buf buf;
    rt_cache_config *made;  /* caches configured but not yet handed to the simulation */
    int nmade;
    int subscribed;         /* a Lua function is in user value 2 */
    int in_call;            /* inside a Lua callback (subscriber or cache policy): closing and stepping are refused */
    int finished;
    struct {
        void (*fn)(void *);
        void *ud;
    } closers[RT_SHMAP_SIM_MAX_OBSERVERS]; /* told before the simulation is freed (views) */
    int nclosers;
} sim_box;

static sim_box *check_sim(lua_State *L, int i)
{
    sim_box *b = luaL_checkudata(L, i, SIM_T);
    if (!b->s)
        luaL_argerror(L, i, "SHMAP simulation is closed");
    return b;
}

static int sim_close(lua_State *L)
{
    sim_box *b = luaL_checkudata(L, 1, SIM_T);
    if (b->in_call)
        return luaL_error(L, "cannot close a SHMAP simulation from its own callback");
    for (int i = 0; i < b->nclosers; i++)
        b->closers[i].fn(b->closers[i].ud);
    b->nclosers = 0;
    rt_shmap_sim_free(b->s);
    b->s = NULL;
    free(b->buf.a);
    b->buf.a = NULL;
    b->buf.n = b->buf.cap = 0;
    for (int i = 0; b->made && i < b->nmade; i++)
        if (b->made[i].policy && b->made[i].policy->free)
            b->made[i].policy->free(b->made[i].policy_ud);
    free(b->made);
    b->made = NULL;
    b->nmade = 0;
    if (b->trace) {
        b->trace->users--;
        trace_release(b->trace);
        b->trace = NULL;
    }
    return 0;
}

static void collect(void *ud, const rt_shmap_access *a)
{
    access_buf *buf = ud;
    if (buf->oom)
        return;
    if (buf->n == buf->cap
        && rt_grow((void **)&buf->a, &buf->cap, buf->n + 1, sizeof *buf->a) != RT_OK) {
        buf->oom = 1;
        return;
    }
    buf->a[buf->n++] = *a;
}

static lua_Integer opt_int(lua_State *L, int t, const char *k, lua_Integer def)
{
    lua_Integer v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        int ok;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "sim option %s: an integer expected, got %s", k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

/* new_sim(trace, opts): options are checked here (expected failures: nil, message). */
static int l_new_sim(lua_State *L)
{
    trace_box *tb = check_trace(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    if (tb->users)
        return luaL_error(L, "SHMAP trace is already used by a simulation; open it again");
    lua_Integer pes = opt_int(L, 2, "pes", 1);
    lua_Integer nc = opt_int(L, 2, "caches", 1);
    lua_Integer size = opt_int(L, 2, "cache_size", 1024);
    lua_Integer line = opt_int(L, 2, "line", 4);
    lua_Integer ways = opt_int(L, 2, "ways", 0);
    lua_Integer seed = opt_int(L, 2, "seed", 1);
    int wb = rt_opt_bool(L, 2, "write_back", 0);
    int on = rt_opt_bool(L, 2, "cache", 1);
    lua_Integer maxel = opt_int(L, 2, "max_elements", (lua_Integer)RT_SHMAP_SIM_MAX_ELEMENTS);
    rt_err err;
    rt_err_clear(&err);
    if (pes < 1 || pes > RT_SCHED_MAX_PES)
        rt_err_set(&err, RT_ERANGE, "pes: %lld is outside 1..%d", (long long)pes, RT_SCHED_MAX_PES);
    else if (maxel < 1)
        rt_err_set(&err, RT_ERANGE, "max elements: %lld is not positive", (long long)maxel);
    else if (on && (nc < 1 || nc > pes))
        rt_err_set(&err, RT_ERANGE, "caches: %lld is outside 1..%lld (the number of PEs)",
                   (long long)nc, (long long)pes);
    else if (size < 0 || line < 0 || ways < 0)
        rt_err_set(&err, RT_ERANGE, "cache geometry: sizes and ways must not be negative");
    else
        rt_cache_check_geometry((uint64_t)size, (uint64_t)line, (uint64_t)ways, "words", &err);
    if (err.status != RT_OK)
        return rt_push_fail(L, &err);

    sim_box *b = lua_newuserdatauv(L, sizeof *b, 3);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, SIM_T);
    int box = lua_gettop(L);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, box, 1);

    int ncaches = on ? (int)nc : 0;
    if (ncaches) {
        b->made = calloc((size_t)ncaches, sizeof *b->made);
        if (!b->made)
            return luaL_error(L, "out of memory");
    }
    lua_getfield(L, 2, "policy");
    int pol = lua_gettop(L);
    lua_createtable(L, ncaches, 0); /* the Lua side of each cache's policy, kept alive */
    lua_pushvalue(L, -1);
    lua_setiuservalue(L, box, 3);
    int keep = lua_gettop(L);
    for (int i = 0; i < ncaches; i++) {
        rt_cache_config cfg = rt_cache_defaults((uint64_t)size, (uint64_t)line);
        cfg.ways = (uint64_t)ways;
        cfg.write_back = wb;
        cfg.seed = (uint64_t)seed;
        /* a policy name or a Lua policy value (nil: LRU); each cache gets its own
         * instance; raises on a bad value (the box frees what was made) */
        if (!lua_isnil(L, pol)) {
            rt_lcache_policy(L, pol, &cfg);
            lua_rawseti(L, keep, i + 1);
        }
        b->made[b->nmade++] = cfg;
    }
    lua_settop(L, box);
    /* the simulation takes the caches over, also when it fails */
    rt_cache_config *made = b->made;
    b->made = NULL;
    b->nmade = 0;
    b->s = rt_shmap_sim_new(tb->r, (int)pes, made, ncaches, (uint64_t)line, &err);
    free(made);
    if (!b->s)
        return rt_push_fail(L, &err);
    rt_shmap_sim_set_max_elements(b->s, (uint64_t)maxel);
    b->trace = tb;
    tb->users++;
    return 1;
}

static void push_access(lua_State *L, const sim_box *b, const rt_shmap_access *a)
{
    const rt_shmap *r = rt_shmap_sim_trace(b->s);
    lua_createtable(L, 0, 12);
    rt_set_int(L, "step", a->step);
    rt_set_int(L, "pe", a->pe);
    rt_set_int(L, "matrix", rt_shmap_matrix_at(r, a->matrix)->id);
    rt_set_int(L, "row", a->row);
    rt_set_int(L, "col", a->col);
    rt_set_str(L, "kind", a->store ? "store" : "load");
    rt_set_int(L, "addr", a->addr);
    rt_set_num(L, "time", a->time);
    if (a->outcome != RT_SHM_NOLOOKUP) {
        rt_set_int(L, "cache", a->cache);
        rt_set_bool(L, "hit", a->outcome == RT_SHM_HIT);
        rt_set_int(L, "set", a->set);
        rt_set_int(L, "way", a->way);
    }
    if (a->outcome == RT_SHM_MISS) {
        rt_set_int(L, "line_first", a->line_first);
        rt_set_int(L, "line_last", a->line_last);
        if (a->evicted)
            rt_set_int(L, "evicted_first", a->evicted_first);
    }
}

/* Deliver the buffered accesses of the last step to the subscriber. */
static void deliver(lua_State *L, sim_box *b, int self)
{
    if (b->buf.oom) {
        b->buf.oom = 0;
        b->buf.n = 0;
        luaL_error(L, "out of memory collecting access events");
    }
    size_t n = b->buf.n;
    b->buf.n = 0;
    for (size_t i = 0; i < n && b->subscribed; i++) {
        lua_getiuservalue(L, self, 2);
        push_access(L, b, &b->buf.a[i]);
        b->in_call = 1;
        int st = rt_docall(L, 1, 0);
        b->in_call = 0;
        if (st != LUA_OK)
            lua_error(L);
    }
}

/* Run up to n steps (0: to the end); returns the steps run and whether the trace ended. */
static uint64_t advance(lua_State *L, sim_box *b, uint64_t n)
{
    rt_err err;
    if (b->in_call)
        luaL_error(L, "cannot step a SHMAP simulation from its own callback");
    uint64_t total = 0;
    while (!b->finished && (n == 0 || total < n)) {
        uint64_t want = b->subscribed ? 1 : (n ? n - total : 0), done;
        b->in_call = 1; /* a Lua cache policy runs inside the step */
        int st = rt_shmap_sim_step(b->s, want, &done, &err);
        b->in_call = 0;
        total += done;
        if (st == RT_EEOF)
            b->finished = 1;
        else if (st != RT_OK) { /* err names its file and line (or the policy): no position added */
            lua_pushstring(L, err.msg);
            lua_error(L);
        }
        if (b->subscribed)
            deliver(L, b, 1);
    }
    return total;
}

/* Run up to n events; returns the events run and whether the trace ended. */
static uint64_t advance_events(lua_State *L, sim_box *b, uint64_t n)
{
    rt_err err;
    if (b->in_call)
        luaL_error(L, "cannot step a SHMAP simulation from its own callback");
    uint64_t total = 0;
    while (!b->finished && total < n) {
        uint64_t done;
        b->in_call = 1;
        int st = rt_shmap_sim_step_events(b->s, b->subscribed ? 1 : n - total, &done, &err);
        b->in_call = 0;
        total += done;
        if (st == RT_EEOF)
            b->finished = 1;
        else if (st != RT_OK) {
            lua_pushstring(L, err.msg);
            lua_error(L);
        }
        if (b->subscribed)
            deliver(L, b, 1);
    }
    return total;
}

/* step_events(n) -> events run, finished: one PE's event at a time */
static int sim_step_events(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 1);
    luaL_argcheck(L, n >= 1, 2, "at least one event");
    lua_pushinteger(L, (lua_Integer)advance_events(L, b, (uint64_t)n));
    lua_pushboolean(L, b->finished);
    return 2;
}

/* last_info() -> text, pe, matrix id (nil before any message) */
static int sim_last_info(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    int pe, mi;
    const char *t = rt_shmap_sim_last_info(b->s, &pe, &mi);
    if (pe < 0)
        return 0;
    lua_pushstring(L, t);
    lua_pushinteger(L, pe);
    lua_pushinteger(L, rt_shmap_matrix_at(rt_shmap_sim_trace(b->s), mi)->id);
    return 3;
}

rt_shmap_sim *rt_lshmap_check_sim(lua_State *L, int i)
{
    return check_sim(L, i)->s;
}

int rt_lshmap_on_close(lua_State *L, int i, void (*fn)(void *), void *ud)
{
    sim_box *b = check_sim(L, i);
    if (b->nclosers == RT_SHMAP_SIM_MAX_OBSERVERS)
        return RT_ERANGE;
    b->closers[b->nclosers].fn = fn;
    b->closers[b->nclosers].ud = ud;
    b->nclosers++;
    return RT_OK;
}

void rt_lshmap_forget(lua_State *L, int i, void *ud)
{
    sim_box *b = luaL_checkudata(L, i, SIM_T);
    int k = 0;
    for (int j = 0; j < b->nclosers; j++)
        if (b->closers[j].ud != ud)
            b->closers[k++] = b->closers[j];
    b->nclosers = k;
}

static int sim_step(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    lua_Integer n = luaL_optinteger(L, 2, 1);
    luaL_argcheck(L, n >= 1, 2, "at least one step");
    lua_pushinteger(L, (lua_Integer)advance(L, b, (uint64_t)n));
    lua_pushboolean(L, b->finished);
    return 2;
}

static int sim_run(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    lua_pushinteger(L, (lua_Integer)advance(L, b, 0));
    return 1;
}

static int sim_on_access(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    if (lua_isnoneornil(L, 2)) {
        b->subscribed = 0;
        rt_shmap_sim_subscribe(b->s, NULL, &b->buf);
        lua_pushnil(L);
        lua_setiuservalue(L, 1, 2);
        return 0;
    }
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, 2);
    b->subscribed = 1;
    rt_shmap_sim_subscribe(b->s, collect, &b->buf);
    return 0;
}

static int sim_stats(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    const rt_shmap_sim *s = b->s;
    int np = rt_shmap_sim_pes(s), nc = rt_shmap_sim_caches(s);
    uint64_t loads = 0, stores = 0, hits = 0, misses = 0;
    int64_t flops = 0;
    lua_createtable(L, 0, 6);
    lua_createtable(L, np, 0);
    for (int p = 0; p < np; p++) {
        const rt_shmap_pe *pe = rt_shmap_sim_pe(s, p);
        lua_createtable(L, 0, 8);
        rt_set_int(L, "pe", p);
        rt_set_int(L, "loads", pe->loads);
        rt_set_int(L, "stores", pe->stores);
        rt_set_int(L, "flops", pe->flops);
        rt_set_int(L, "events", pe->events);
        rt_set_str(L, "subroutine", pe->subroutine);
        rt_set_str(L, "info", pe->info);
        rt_set_int(L, "cache", rt_shmap_sim_cache_of(s, p));
        lua_rawseti(L, -2, p + 1);
        loads += pe->loads;
        stores += pe->stores;
        flops += pe->flops;
    }
    lua_setfield(L, -2, "pes");
    lua_createtable(L, nc, 0);
    for (int i = 0; i < nc; i++) {
        const rt_cache_stats *cs = rt_shmap_sim_cache_stats(s, i);
        lua_createtable(L, 0, 8);
        rt_set_int(L, "cache", i);
        rt_set_int(L, "hits", cs->hits);
        rt_set_int(L, "misses", cs->misses);
        rt_set_num(L, "hit_ratio", rt_hit_ratio(cs->hits, cs->misses));
        rt_set_int(L, "refs", cs->refs);
        rt_set_int(L, "evictions", cs->evictions);
        rt_set_int(L, "writebacks", cs->writebacks);
        lua_rawseti(L, -2, i + 1);
        hits += cs->hits;
        misses += cs->misses;
    }
    lua_setfield(L, -2, "caches");
    lua_createtable(L, 0, 6);
    rt_set_int(L, "loads", loads);
    rt_set_int(L, "stores", stores);
    rt_set_int(L, "flops", flops);
    rt_set_int(L, "hits", hits);
    rt_set_int(L, "misses", misses);
    rt_set_num(L, "hit_ratio", rt_hit_ratio(hits, misses));
    lua_setfield(L, -2, "totals");
    const rt_sched *sc = rt_shmap_sim_sched(s);
    rt_set_int(L, "steps", rt_sched_steps(sc));
    rt_set_num(L, "time", rt_shmap_sim_time(s));
    rt_set_bool(L, "finished", b->finished);
    return 1;
}

/* active() -> {count=n, [p+1] = event table (with task=) or false} for the last step */
static int sim_active(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    const rt_sched *sc = rt_shmap_sim_sched(b->s);
    int np = rt_sched_pes(sc);
    lua_createtable(L, np, 3);
    for (int p = 0; p < np; p++) {
        const rt_shmap_event *ev = rt_sched_event(sc, p);
        if (ev) {
            push_event(L, rt_shmap_sim_trace(b->s), ev);
            rt_set_int(L, "task", rt_sched_task(sc, p));
        } else {
            lua_pushboolean(L, 0);
        }
        lua_rawseti(L, -2, p + 1);
    }
    rt_set_int(L, "count", rt_sched_active(sc));
    rt_set_int(L, "step", rt_sched_steps(sc));
    rt_set_int(L, "piece", rt_sched_piece(sc));
    return 1;
}

/* elements(id) -> {rows=, cols=, loads={...}, stores={...}} column-major counts */
static int sim_elements(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    lua_Integer id = luaL_checkinteger(L, 2);
    const rt_shmap *r = rt_shmap_sim_trace(b->s);
    int i = rt_shmap_matrix_index(r, (long)id);
    if (i < 0)
        return luaL_argerror(L, 2, lua_pushfstring(L, "no matrix %d in the trace", (int)id));
    const rt_shmap_matrix *m = rt_shmap_matrix_at(r, i);
    uint64_t n = (uint64_t)m->rows * (uint64_t)m->cols;
    lua_createtable(L, 0, 5);
    rt_set_int(L, "id", m->id);
    rt_set_int(L, "rows", m->rows);
    rt_set_int(L, "cols", m->cols);
    rt_set_int(L, "base", rt_shmap_sim_base(b->s, i));
    if (n > RT_SHMAP_SIM_MAX_ELEMENTS)
        return luaL_error(L, "matrix %d: %d x %d elements are too many for a table", m->id, m->rows, m->cols);
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    for (uint64_t e = 0; e < n; e++) {
        uint64_t ld, st;
        rt_shmap_sim_counts(b->s, i, e, &ld, &st);
        lua_pushinteger(L, (lua_Integer)ld);
        lua_rawseti(L, -3, (lua_Integer)e + 1);
        lua_pushinteger(L, (lua_Integer)st);
        lua_rawseti(L, -2, (lua_Integer)e + 1);
    }
    lua_setfield(L, -3, "stores");
    lua_setfield(L, -2, "loads");
    return 1;
}

/* locate(addr) -> matrix ID, row, col | nil (padding) */
static int sim_locate(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    lua_Integer addr = luaL_checkinteger(L, 2);
    int m, row, col;
    if (addr < 0 || !rt_shmap_sim_locate(b->s, (uint64_t)addr, &m, &row, &col))
        return 0;
    lua_pushinteger(L, rt_shmap_matrix_at(rt_shmap_sim_trace(b->s), m)->id);
    lua_pushinteger(L, row);
    lua_pushinteger(L, col);
    return 3;
}

/* "retrace.ShmapTrace: lu4.shm, 3 matrices" */
static int trace_tostring(lua_State *L)
{
    trace_box *b = luaL_checkudata(L, 1, TRACE_T);
    if (!b->r || b->closed) {
        lua_pushstring(L, TRACE_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, TRACE_T ": %s, %d matrices", rt_shmap_name(b->r), rt_shmap_matrix_count(b->r));
    return 1;
}

/* "retrace.ShmapSim: 4 PEs, 2 caches, time 1234" */
/* write_paje(path) -> true: the rest of the run written as a Pajé trace (rt_shmap_paje.h) */
static int sim_write_paje(lua_State *L)
{
    sim_box *b = check_sim(L, 1);
    const char *path = luaL_checkstring(L, 2);
    if (b->in_call)
        return luaL_error(L, "cannot write a SHMAP run from its own callback");
    if (b->subscribed)
        return luaL_error(L, "write_paje: stop the on_access subscriber first");
    rt_err err;
    b->in_call = 1; /* a Lua cache policy runs inside the steps */
    int st = rt_shmap_write_paje(b->s, path, &err);
    b->in_call = 0;
    b->finished = 1;
    if (st != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int sim_tostring(lua_State *L)
{
    sim_box *b = luaL_checkudata(L, 1, SIM_T);
    if (!b->s) {
        lua_pushstring(L, SIM_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, SIM_T ": %d PEs, %d caches, time %f%s", rt_shmap_sim_pes(b->s),
                    rt_shmap_sim_caches(b->s), rt_shmap_sim_time(b->s), b->finished ? " (finished)" : "");
    return 1;
}

static const luaL_Reg trace_methods[] = {
    {"__tostring", trace_tostring},
    {"info", trace_info},
    {"matrices", trace_matrices},
    {"records", trace_records},
    {"close", trace_close},
    {NULL, NULL},
};

static const luaL_Reg sim_methods[] = {
    {"__tostring", sim_tostring},
    {"step", sim_step},         {"run", sim_run},         {"stats", sim_stats},
    {"active", sim_active},     {"elements", sim_elements}, {"on_access", sim_on_access},
    {"locate", sim_locate},     {"close", sim_close},     {"step_events", sim_step_events},
    {"last_info", sim_last_info}, {"write_paje", sim_write_paje}, {NULL, NULL},
};

/* A string field of the options table, or NULL; raises when of another type. */
static const char *opt_str(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    const char *v = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    lua_pop(L, 1); /* the string stays alive in the table */
    return v;
}

static int l_from_capture(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_shmap_from_opts o = {0};
    o.rtmb = opt_str(L, 1, "rtmb");
    o.log = opt_str(L, 1, "log");
    o.out = opt_str(L, 1, "out");
    o.program = opt_str(L, 1, "program");
    if (!o.rtmb || !o.log || !o.out)
        return luaL_error(L, "from_capture: rtmb, log and out are required");
    o.min_elements = (uint64_t)opt_int(L, 1, "min_elements", 0);
    o.max_matrices = (int)opt_int(L, 1, "max_matrices", 0);
    /* the hints, in a userdata so that a Lua error cannot leak them */
    lua_getfield(L, 1, "hints");
    int nh = lua_istable(L, -1) ? (int)luaL_len(L, -1) : 0;
    rt_shmap_hint *h = lua_newuserdatauv(L, sizeof *h * (size_t)(nh + 1), 0);
    for (int i = 0; i < nh; i++) {
        lua_geti(L, -2, i + 1);
        int t = lua_gettop(L);
        luaL_checktype(L, t, LUA_TTABLE);
        h[i].name = opt_str(L, t, "name");
        if (!h[i].name)
            return luaL_error(L, "from_capture: hint %d has no name", i + 1);
        h[i].rows = (int)opt_int(L, t, "rows", 0);
        h[i].cols = (int)opt_int(L, t, "cols", 0);
        lua_getfield(L, t, "col");
        h[i].col_major = lua_toboolean(L, -1);
        lua_pop(L, 1);
        if (h[i].rows < 1 || h[i].cols < 1)
            return luaL_error(L, "from_capture: hint %s: rows and cols must be positive", h[i].name);
        lua_pop(L, 1); /* the hint table stays alive in the hints table */
    }
    o.hints = h;
    o.nhints = nh;
    rt_shmap_from_result res;
    rt_err err;
    int st = rt_shmap_from_capture(&o, &res, &err);
    if (st != RT_OK)
        return rt_push_fail(L, &err);
    /* copy the result into Lua memory before anything can raise */
    rt_shmap_from_matrix *m = lua_newuserdatauv(L, sizeof *m * (size_t)(res.nmatrices + 1), 0);
    memcpy(m, res.matrices, sizeof *m * (size_t)res.nmatrices);
    int nm = res.nmatrices;
    rt_shmap_from_result_free(&res);
    lua_createtable(L, 0, 5);
    lua_createtable(L, nm, 0);
    for (int i = 0; i < nm; i++) {
        lua_createtable(L, 0, 8);
        rt_set_int(L, "id", m[i].id);
        rt_set_str(L, "name", m[i].name);
        rt_set_int(L, "rows", m[i].rows);
        rt_set_int(L, "cols", m[i].cols);
        lua_pushboolean(L, m[i].col_major);
        lua_setfield(L, -2, "col_major");
        rt_set_int(L, "elem", m[i].elem);
        rt_set_str(L, "how", m[i].how);
        rt_set_int(L, "refs", (lua_Integer)m[i].refs);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "matrices");
    rt_set_int(L, "left_out", res.left_out);
    rt_set_int(L, "threads", res.threads);
    rt_set_int(L, "refs", (lua_Integer)res.refs);
    rt_set_int(L, "accesses", (lua_Integer)res.accesses);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"open", l_open},
    {"new_sim", l_new_sim},
    {"from_capture", l_from_capture},
    {NULL, NULL},
};

int rt_lopen_shmap(lua_State *L)
{
    rt_new_class(L, TRACE_T, trace_methods, trace_close);
    rt_new_class(L, SIM_T, sim_methods, sim_close);
    luaL_newlib(L, funcs);
    return 1;
}
