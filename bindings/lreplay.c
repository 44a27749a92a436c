/*
 * lreplay.c - Lua face of the replay engine (core/msg/rt_replay.h).
 *
 *   local rp = replay.new(trace [, opts])     -- a PICL trace from retrace.picl, through a PICL source
 *   local rp = replay.open(path [, opts])     -- any trace rt_tsource_open reads
 *     opts: start, stop (window), critical_path (bool), format (open: a format
 *     name, detected by default), compstats (PICL source option, default true),
 *     and callbacks on_state(proc, time, old, new), on_interval(iv),
 *     on_message(m), on_warning(msg) -- called during step / run
 *   replay.detect(path) -> name, why | nil, message ; replay.formats([all]) -> {names}
 *   rp:step([n]) -> replayed, ended ; rp:run_until(t [, max]) -> ended, more ; rp:run()
 *     (max: replay at most max records; more: stopped there with records still due by t)
 *   rp:now(), rp:records(), rp:finished(), rp:span() -> t0, t1, rp:nprocs()
 *   rp:proc(id) -> table ; rp:events(id) -> {[type] = {count, time, bytes, ...}}
 *   rp:stack(id) -> {types} ; rp:tasks() ; rp:totals() ; rp:pending() ; rp:warnings()
 *   rp:critical_path() -> {length, start, stop, segments, messages}
 *   rp:critical_path_walk() -> path (path:info(), path:read(first, n): the same, part by part)
 *   rp:defs() -> {format, procs = {{name, path}}, regions = {[id] = {name, class, group}},
 *                 comms = {{id, name, size, members}}, resolution}
 *   rp:nevents() ; rp:progress() -> bytes read, total ; rp:skipped()
 * The box owns the replay's source; it keeps a PICL trace given to replay.new
 * alive (user value 1; nil for replay.open) and the callbacks (user value 2).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lpicl.h"
#include "lreplay.h"
#include "rt_critpath.h"
#include "rt_par.h"
#include "rt_par_route.h"
#include "rt_par_source.h"
#include "rt_par_text.h"
#include "rt_picl_source.h"
#include "rt_prescan.h"
#include "rt_replay.h"
#include "rt_replay_csv.h"
#include "rt_tsource_open.h"

#define REPLAY_T "retrace.Replay"

enum { CB_STATE, CB_INTERVAL, CB_MESSAGE, CB_WARNING, CB_SEND, CB_TASK, CB_COLLECTIVE, CB_COUNT };
static const char *const cb_names[CB_COUNT] = {"on_state", "on_interval", "on_message", "on_warning",
                                               "on_send", "on_task", "on_collective"};

typedef struct {
    rt_replay *rp;       /* NULL once closed */
    rt_tsource *src;     /* owned source (replay.open), NULL for a PICL trace's replay */
    lua_State *L;        /* set while the engine runs, for callbacks (stepping and closing are refused then) */
    int has_cb[CB_COUNT];
    int failed;          /* a callback raised: its message is in the registry slot below */
    int errref;
    int64_t lua_calls;   /* callbacks called (so a run can show it made none per event) */
    rt_replay_csv *csv;  /* CSV files written by this replay's pass (rp:write_csv), NULL none */
} replay_box;

static replay_box *check_replay(lua_State *L, int i)
{
    replay_box *b = luaL_checkudata(L, i, REPLAY_T);
    if (!b->rp)
        luaL_argerror(L, i, "replay is closed");
    return b;
}

static int replay_close(lua_State *L)
{
    replay_box *b = luaL_checkudata(L, 1, REPLAY_T);
    if (b->L)
        return luaL_error(L, "cannot close a replay from its own callback");
    rt_replay_csv_abort(b->csv);
    b->csv = NULL;
    rt_replay_free(b->rp);
    b->rp = NULL;
    rt_tsource_free(b->src);
    b->src = NULL;
    return 0;
}

/* Mark the PICL trace a replay reads (user value 1) busy or not; nothing for owned sources. */
static void set_trace_busy(lua_State *L, int busy)
{
    if (lua_getiuservalue(L, 1, 1) != LUA_TNIL) {
        rt_lpicl_check(L, -1); /* the trace must still be open */
        rt_lpicl_set_busy(L, -1, busy);
    }
    lua_pop(L, 1);
}

/* Push the callback table's function k; returns 0 (nothing pushed) if absent. */
static int push_cb(replay_box *b, int k)
{
    lua_State *L = b->L;
    if (!L || b->failed || !b->has_cb[k])
        return 0;
    lua_getiuservalue(L, 1, 2);
    lua_getfield(L, -1, cb_names[k]);
    lua_remove(L, -2);
    return 1;
}

static void call_cb(replay_box *b, int nargs)
{
    lua_State *L = b->L;
    b->lua_calls++;
    if (rt_docall(L, nargs, 0) != LUA_OK) {
        b->failed = 1;
        lua_setfield(L, LUA_REGISTRYINDEX, "retrace.replay.error");
    }
}

static void push_message(lua_State *L, const rt_message *m)
{
    lua_createtable(L, 0, 7);
    rt_set_int(L, "src", m->src);
    rt_set_int(L, "dst", m->dst);
    rt_set_int(L, "tag", m->tag);
    rt_set_num(L, "bytes", m->bytes);
    rt_set_num(L, "send_time", m->send_time);
    if (!isnan(m->recv_time))
        rt_set_num(L, "recv_time", m->recv_time);
    rt_set_bool(L, "tachyon", m->tachyon);
    if (m->comm >= 0)
        rt_set_int(L, "comm", m->comm);
}

static void cb_state(void *ud, int proc, double t, int old, int new)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_STATE))
        return;
    lua_pushinteger(b->L, proc);
    lua_pushnumber(b->L, t);
    lua_pushstring(b->L, rt_state_name(old));
    lua_pushstring(b->L, rt_state_name(new));
    call_cb(b, 4);
}

/* t[k] = {v...}, left out when n == 0 */
static void push_data(lua_State *L, const char *k, const double *v, int n)
{
    if (n <= 0)
        return;
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, k);
}

static void cb_interval(void *ud, const rt_interval *iv)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_INTERVAL))
        return;
    lua_State *L = b->L;
    lua_createtable(L, 0, 16);
    rt_set_int(L, "proc", iv->proc);
    rt_set_int(L, "task", iv->task);
    rt_set_int(L, "event", iv->event);
    rt_set_num(L, "entry", iv->entry);
    rt_set_num(L, "exit", iv->exit);
    rt_set_int(L, "depth", iv->depth);
    rt_set_int(L, "id", iv->id);
    rt_set_int(L, "parent", iv->parent);
    if (iv->parent >= 0)
        rt_set_int(L, "parent_event", iv->parent_event);
    rt_set_int(L, "user_depth", iv->user_depth);
    rt_set_int(L, "sys_depth", iv->sys_depth);
    rt_set_num(L, "bytes_out", iv->bytes_out);
    rt_set_num(L, "bytes_in", iv->bytes_in);
    rt_set_bool(L, "closed", iv->closed);
    rt_set_bool(L, "unnested", iv->unnested);
    push_data(L, "entry_data", iv->entry_data, iv->entry_ndata);
    push_data(L, "exit_data", iv->exit_data, iv->exit_ndata);
    call_cb(b, 1);
}

static void cb_message(void *ud, const rt_message *m)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_MESSAGE))
        return;
    push_message(b->L, m);
    call_cb(b, 1);
}

static void cb_warning(void *ud, const char *msg)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_WARNING))
        return;
    lua_pushstring(b->L, msg);
    call_cb(b, 1);
}

static void cb_send(void *ud, const rt_message *m)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_SEND))
        return;
    push_message(b->L, m);
    call_cb(b, 1);
}

static void cb_task(void *ud, int proc, double t, int old, int new)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_TASK))
        return;
    lua_pushinteger(b->L, proc);
    lua_pushnumber(b->L, t);
    if (old >= 0)
        lua_pushinteger(b->L, old);
    else
        lua_pushnil(b->L);
    if (new >= 0)
        lua_pushinteger(b->L, new);
    else
        lua_pushnil(b->L);
    call_cb(b, 4);
}

static void cb_collective(void *ud, const rt_collective *c)
{
    replay_box *b = ud;
    if (!push_cb(b, CB_COLLECTIVE))
        return;
    lua_State *L = b->L;
    lua_createtable(L, 0, 9);
    rt_set_int(L, "region", c->region);
    if (c->comm >= 0)
        rt_set_int(L, "comm", c->comm);
    rt_set_int(L, "index", c->index);
    rt_set_num(L, "first_begin", c->first_begin);
    rt_set_num(L, "last_end", c->last_end);
    rt_set_num(L, "bytes", c->total_bytes);
    rt_set_bool(L, "complete", c->complete);
    lua_createtable(L, c->nparts, 0);
    for (int i = 0; i < c->nparts; i++) {
        lua_createtable(L, 0, 4);
        rt_set_int(L, "proc", c->procs[i]);
        rt_set_num(L, "begin", c->begin[i]);
        rt_set_num(L, "end", c->end[i]);
        rt_set_num(L, "bytes", c->bytes[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "parts");
    call_cb(b, 1);
}

static double optnum_field(lua_State *L, int idx, const char *k, double dflt, int *given)
{
    lua_getfield(L, idx, k);
    double v = dflt;
    if (!lua_isnil(L, -1)) {
        if (!lua_isnumber(L, -1))
            luaL_error(L, "replay option %s: a number expected", k);
        v = lua_tonumber(L, -1);
        if (given)
            *given = 1;
    }
    lua_pop(L, 1);
    return v;
}

/* The box at the top of the stack for options table 2 and trace value 1 (nil: none);
 * fills *o (callbacks pointing at the box). */
static replay_box *new_box(lua_State *L, rt_replay_opts *o)
{
    memset(o, 0, sizeof *o);
    int w = 0;
    o->start = optnum_field(L, 2, "start", -INFINITY, &w);
    o->stop = optnum_field(L, 2, "stop", INFINITY, &w);
    o->window = w;
    if (o->start > o->stop)
        luaL_error(L, "replay window: start %f is after stop %f", o->start, o->stop);
    o->critical_path = rt_opt_bool(L, 2, "critical_path", 0);

    replay_box *b = lua_newuserdatauv(L, sizeof *b, 3);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, REPLAY_T);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, -2, 2);
    if (lua_getfield(L, 2, "on_record") != LUA_TNIL)
        luaL_error(L, "replay option on_record: no per-record callback; records reach Lua in batches "
                      "(the ParaGraph view's events())");
    lua_pop(L, 1);
    for (int k = 0; k < CB_COUNT; k++) {
        lua_getfield(L, 2, cb_names[k]);
        if (!lua_isnil(L, -1) && !lua_isfunction(L, -1))
            luaL_error(L, "replay option %s: a function expected", cb_names[k]);
        b->has_cb[k] = lua_isfunction(L, -1);
        lua_pop(L, 1);
    }
    o->ud = b;
    o->on_state = b->has_cb[CB_STATE] ? cb_state : NULL;
    o->on_interval = b->has_cb[CB_INTERVAL] ? cb_interval : NULL;
    o->on_message = b->has_cb[CB_MESSAGE] ? cb_message : NULL;
    o->on_warning = b->has_cb[CB_WARNING] ? cb_warning : NULL;
    o->on_send = b->has_cb[CB_SEND] ? cb_send : NULL;
    o->on_task = b->has_cb[CB_TASK] ? cb_task : NULL;
    o->on_collective = b->has_cb[CB_COLLECTIVE] ? cb_collective : NULL;
    o->matrix = rt_opt_bool(L, 2, "matrix", 0);
    return b;
}

/*
 * opts.prescan at index 2 given as a table (replay.prescan's result): its
 * procs[i].events into a malloc'ed array in o (the caller frees it after
 * rt_replay_new). Raises on a malformed table (before anything is allocated).
 */
static void prescan_events(lua_State *L, rt_replay_opts *o)
{
    if (lua_getfield(L, 2, "prescan") != LUA_TTABLE) {
        lua_pop(L, 1);
        return;
    }
    if (lua_getfield(L, -1, "procs") != LUA_TTABLE)
        luaL_error(L, "replay option prescan: a table from replay.prescan expected");
    int n = (int)lua_rawlen(L, -1);
    for (int i = 1; i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "events");
        if (!lua_isinteger(L, -1))
            luaL_error(L, "replay option prescan: procs[%d].events: an integer expected", i);
        lua_pop(L, 2);
    }
    int64_t *ev = n > 0 ? malloc((size_t)n * sizeof *ev) : NULL;
    for (int i = 1; ev && i <= n; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "events");
        ev[i - 1] = lua_tointeger(L, -1);
        lua_pop(L, 2);
    }
    lua_pop(L, 2);
    o->proc_events = ev;
    o->nproc_events = ev ? n : 0;
}

static void push_cp(lua_State *L, const rt_critical_path *cp);

/* Push the prescan as a table (see replay.prescan in the header comment). */
static void push_prescan(lua_State *L, const rt_prescan *ps)
{
    lua_createtable(L, 0, 20);
    rt_set_str(L, "format", ps->format ? ps->format : "");
    rt_set_int(L, "processors", ps->nprocs);
    if (ps->t1 >= ps->t0) {
        rt_set_num(L, "t0", ps->t0);
        rt_set_num(L, "t1", ps->t1);
    }
    rt_set_int(L, "records", ps->records);
    rt_set_int(L, "events", ps->events);
    rt_set_int(L, "messages", ps->messages);
    if (ps->collectives >= 0) /* (unknown to a distributed pre-pass: rt_prescan_run_part) */
        rt_set_int(L, "collectives", ps->collectives);
    if (ps->max_pending >= 0) {
        rt_set_int(L, "max_pending", ps->max_pending);
        rt_set_num(L, "max_pending_bytes", ps->max_pending_bytes);
    }
    rt_set_int(L, "max_queue", ps->max_queue);
    rt_set_num(L, "max_queue_bytes", ps->max_queue_bytes);
    if (ps->max_queue_proc >= 0)
        rt_set_int(L, "max_queue_proc", ps->max_queue_proc);
    rt_set_num(L, "unit", ps->unit);
    rt_set_num(L, "scale_width", ps->scale_width);
    lua_createtable(L, ps->ntasks, 0);
    for (int i = 0; i < ps->ntasks; i++) {
        lua_pushinteger(L, ps->tasks[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "tasks");
    lua_createtable(L, ps->nprocs, 0);
    for (int i = 0; i < ps->nprocs; i++) {
        const rt_prescan_proc *p = &ps->procs[i];
        lua_createtable(L, 0, 8);
        rt_set_int(L, "id", p->id);
        if (p->seen) {
            rt_set_num(L, "first", p->first);
            rt_set_num(L, "last", p->last);
        }
        rt_set_int(L, "records", p->records);
        rt_set_int(L, "events", p->events);
        rt_set_int(L, "enters", p->enters);
        rt_set_int(L, "max_queue", p->max_queue);
        rt_set_num(L, "max_queue_bytes", p->max_queue_bytes);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "procs");
    lua_pushboolean(L, ps->outside_idle);
    lua_setfield(L, -2, "outside_idle");
    if (ps->has_cp) {
        push_cp(L, &ps->cp);
        rt_set_int(L, "tachyons", ps->cp_totals.tachyons);
        lua_setfield(L, -2, "critical_path");
    }
}

/* Run the prescan over src, free src, and push the prescan (or nil, message; an interrupt
 * raises, after src is freed). */
static int prescan_push(lua_State *L, rt_tsource *src, int critical_path)
{
    rt_prescan ps;
    rt_err err;
    int part = rt_par_source_is_par(src);
    int st = part ? rt_prescan_run_part(src, &ps, rt_par_rank(), rt_par_size(), &err)
                  : rt_prescan_run_cp(src, &ps, critical_path, &err);
    rt_tsource_free(src);
    if (st != RT_OK && part && rt_par_source_peer_failed(&err)) {
        lua_pushnil(L); /* another rank failed: it says why */
        lua_pushboolean(L, 0);
        return 2;
    }
    if (st != RT_OK)
        return rt_push_fail(L, &err);
    push_prescan(L, &ps);
    rt_prescan_clear(&ps);
    return 1;
}

/* opts.prescan == true at index 2: run the prescan over src into o (array freed by the caller). */
static int prescan_auto(lua_State *L, rt_tsource *src, rt_replay_opts *o, rt_err *err)
{
    lua_getfield(L, 2, "prescan");
    int on = lua_toboolean(L, -1) && !lua_istable(L, -1);
    lua_pop(L, 1);
    if (!on)
        return RT_OK;
    rt_prescan ps;
    int st = rt_prescan_run(src, &ps, err);
    if (st != RT_OK)
        return st;
    o->proc_events = ps.proc_events;
    o->nproc_events = ps.nprocs;
    ps.proc_events = NULL;
    rt_prescan_clear(&ps);
    return RT_OK;
}

/* Options at index 2: a table, or an empty one put there. */
static void opts_at_2(lua_State *L)
{
    if (!lua_isnoneornil(L, 2))
        luaL_checktype(L, 2, LUA_TTABLE);
    else {
        lua_settop(L, 1);
        lua_newtable(L);
    }
    lua_settop(L, 2);
}

/* opts.compstats (index 2, default true) onto a PICL source (nothing for other formats). */
static void source_options(lua_State *L, rt_tsource *src)
{
    if (!rt_opt_bool(L, 2, "compstats", 1))
        rt_picl_source_set_compstats(src, 0);
}

/* replay.new(picl trace [, opts]): the trace read through a PICL source of the replay's own. */
static int l_new(lua_State *L)
{
    rt_picl *reader = rt_lpicl_check(L, 1);
    opts_at_2(L);
    rt_replay_opts o;
    replay_box *b = new_box(L, &o);
    rt_err err;
    rt_tsource *src = rt_picl_source(reader, 0, &err);
    if (!src)
        return rt_push_fail(L, &err);
    b->src = src; /* freed with the box; the reader stays the trace's */
    source_options(L, src);
    prescan_events(L, &o);
    if (prescan_auto(L, src, &o, &err) != RT_OK)
        return rt_push_fail(L, &err);
    b->rp = rt_replay_new(src, &o, &err);
    free((void *)o.proc_events);
    if (!b->rp)
        return rt_push_fail(L, &err);
    return 1;
}

/* replay.open(path [, opts]) -> replay | nil, message: any trace the dispatcher reads. */
static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    opts_at_2(L);
    lua_getfield(L, 2, "format");
    const char *format = luaL_optstring(L, -1, NULL);
    lua_pop(L, 1);
    rt_err err;
    /* parallel: under mpirun this rank's part of a distributed replay (collective) */
    int parallel = rt_opt_bool(L, 2, "parallel", 0);
    rt_tsource *src = parallel ? rt_par_source_open_strict(path, format, rt_opt_bool(L, 2, "strict", 0), &err)
                               : rt_tsource_open(path, format, &err);
    if (!src)
        return rt_push_fail(L, &err);
    lua_pushnil(L);
    lua_replace(L, 1); /* no PICL trace to keep alive */
    rt_replay_opts o;
    replay_box *b = new_box(L, &o);
    b->src = src;
    source_options(L, rt_par_source_part(src));
    if (rt_par_source_is_par(src)) {
        o.own_rank = rt_par_rank();
        o.own_size = rt_par_size();
    }
    prescan_events(L, &o);
    if (prescan_auto(L, src, &o, &err) != RT_OK)
        return rt_push_fail(L, &err);
    b->rp = rt_replay_new(src, &o, &err);
    free((void *)o.proc_events);
    if (!b->rp)
        return rt_push_fail(L, &err); /* the box frees the source when collected */
    return 1;
}

/*
 * replay.prescan(path | picl trace [, opts]) -> table | nil, message.
 * opts: format (a path's format, detected by default), compstats (default true),
 * critical_path (the path of the whole trace as ps.critical_path, from the same pass),
 * parallel (a path, no critical_path: under mpirun each rank reads its part and the
 * ranks combine, rt_prescan_run_part; collective. nil, false on the ranks that did not
 * fail when another did: it tells why).
 */
static int l_prescan(lua_State *L)
{
    opts_at_2(L);
    lua_getfield(L, 2, "format");
    const char *format = luaL_optstring(L, -1, NULL);
    lua_pop(L, 1);
    int cs = rt_opt_bool(L, 2, "compstats", 1);
    rt_err err;
    rt_tsource *src;
    int cp = rt_opt_bool(L, 2, "critical_path", 0);
    if (lua_type(L, 1) == LUA_TSTRING && !cp && rt_opt_bool(L, 2, "parallel", 0)) {
        src = rt_par_source_open(lua_tostring(L, 1), format, &err);
        if (!src && rt_par_source_peer_failed(&err)) {
            lua_pushnil(L);
            lua_pushboolean(L, 0);
            return 2;
        }
    } else if (lua_type(L, 1) == LUA_TSTRING)
        src = rt_tsource_open(lua_tostring(L, 1), format, &err);
    else
        src = rt_picl_source(rt_lpicl_check(L, 1), 0, &err);
    if (!src)
        return rt_push_fail(L, &err);
    if (!cs)
        rt_picl_source_set_compstats(rt_par_source_part(src), 0);
    return prescan_push(L, src, cp);
}

/* replay.reads() -> passes over trace files this process began (rt_tsource_passes). */
static int l_reads(lua_State *L)
{
    lua_pushinteger(L, rt_tsource_passes());
    return 1;
}

/*
 * replay.check_window(ps, from, to [, path]) -> true | nil, message: the window
 * (nil = open end) against a prescan's span (rt_prescan_check_window).
 */
static int l_check_window(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_prescan ps;
    memset(&ps, 0, sizeof ps);
    ps.t0 = optnum_field(L, 1, "t0", INFINITY, NULL);
    ps.t1 = optnum_field(L, 1, "t1", -INFINITY, NULL);
    double from = luaL_optnumber(L, 2, -INFINITY), to = luaL_optnumber(L, 3, INFINITY);
    rt_err err;
    if (rt_prescan_check_window(&ps, luaL_optstring(L, 4, NULL), from, to, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int l_time_unit(lua_State *L)
{
    lua_pushnumber(L, rt_prescan_unit(luaL_optnumber(L, 1, 0)));
    return 1;
}

static int l_scale_width(lua_State *L)
{
    double span = luaL_checknumber(L, 1);
    lua_pushnumber(L, rt_prescan_scale_width(span, luaL_optnumber(L, 2, rt_prescan_unit(span))));
    return 1;
}

/* replay.detect(path) -> name, why | nil, message (unreadable). */
static int l_detect(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1), *name;
    char why[RT_ERR_MSG_MAX];
    if (rt_tsource_detect(path, &name, why, sizeof why) != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, why);
        return 2;
    }
    if (name)
        lua_pushstring(L, name);
    else
        lua_pushboolean(L, 0);
    lua_pushstring(L, why);
    return 2;
}

/* replay.formats([all]) -> the formats recognised by content; with all, also those opened by
 * name only (--format pes). */
static int l_formats(lua_State *L)
{
    int all = lua_toboolean(L, 1), n = 0;
    lua_newtable(L);
    for (int i = 0; rt_tsource_format_name(i); i++) {
        if (!all && !rt_tsource_format_by_content(i))
            continue;
        lua_pushstring(L, rt_tsource_format_name(i));
        lua_rawseti(L, -2, ++n);
    }
    return 1;
}

static int any_cb(const replay_box *b)
{
    for (int k = 0; k < CB_COUNT; k++)
        if (b->has_cb[k])
            return 1;
    return 0;
}

/* Run the engine with callbacks enabled; fn does the work. Raises a callback's error. */
typedef int (*drive_fn)(replay_box *b, lua_State *L, rt_err *err, void *arg);

static int drive(lua_State *L, replay_box *b, drive_fn fn, void *arg)
{
    rt_err err;
    rt_err_clear(&err);
    if (b->L)
        return luaL_error(L, "cannot step a replay from its own callback");
    set_trace_busy(L, 1); /* the trace must still be open; busy while the engine reads it */
    b->L = L; /* the box is at index 1, where push_cb finds its callbacks */
    b->failed = 0;
    int st = fn(b, L, &err, arg);
    b->L = NULL;
    set_trace_busy(L, 0);
    if (b->failed) {
        lua_getfield(L, LUA_REGISTRYINDEX, "retrace.replay.error");
        return lua_error(L);
    }
    if (st != RT_OK && st != RT_EEOF) {
        lua_pushstring(L, err.msg); /* an input error: no code position in front */
        return lua_error(L);
    }
    return st;
}

struct step_arg {
    int64_t n, done;
};

static int do_step(replay_box *b, lua_State *L, rt_err *err, void *arg)
{
    (void)L;
    struct step_arg *a = arg;
    if (!any_cb(b))
        return rt_replay_step(b->rp, a->n, &a->done, err);
    /* one record at a time so a failing callback stops the replay where it failed */
    int st = RT_OK;
    while (a->done < a->n && !b->failed) {
        int64_t k;
        st = rt_replay_step(b->rp, 1, &k, err);
        a->done += k;
        if (st != RT_OK)
            break;
    }
    return st;
}

static int replay_step(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    struct step_arg a = {luaL_optinteger(L, 2, 1), 0};
    if (a.n < 0)
        return luaL_argerror(L, 2, "a count >= 0 expected");
    int st = drive(L, b, do_step, &a);
    lua_pushinteger(L, a.done);
    lua_pushboolean(L, st == RT_EEOF || rt_replay_finished(b->rp));
    return 2;
}

struct until_arg {
    double t;
    int64_t max;  /* records at most (< 0: no limit) */
    int more;     /* set: stopped at the limit with records still due by t */
};

static int do_until(replay_box *b, lua_State *L, rt_err *err, void *arg)
{
    (void)L;
    struct until_arg *a = arg;
    if (!any_cb(b) && a->max < 0)
        return rt_replay_run_until(b->rp, a->t, err);
    /* one record at a time while the next is due: to stop on a callback error or at the limit */
    for (int64_t n = 0; !b->failed; n++) {
        double next;
        int r = rt_replay_next_time(b->rp, &next, err);
        if (r < 0)
            return -r;
        if (r == 0) {
            rt_replay_finish(b->rp, err);
            return RT_EEOF;
        }
        if (next > a->t)
            return RT_OK;
        if (a->max >= 0 && n >= a->max) {
            a->more = 1;
            return RT_OK;
        }
        int64_t k;
        int st = rt_replay_step(b->rp, 1, &k, err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

static int replay_run_until(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    struct until_arg a = {luaL_checknumber(L, 2), luaL_optinteger(L, 3, -1), 0};
    int st = drive(L, b, do_until, &a);
    lua_pushboolean(L, st == RT_EEOF || rt_replay_finished(b->rp));
    lua_pushboolean(L, a.more);
    return 2;
}

static int replay_run(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    struct until_arg a = {INFINITY, -1, 0};
    drive(L, b, do_until, &a);
    return 0;
}

static int replay_finish(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    rt_err err;
    if (b->L)
        return luaL_error(L, "cannot finish a replay from its own callback");
    set_trace_busy(L, 1);
    b->L = L;
    rt_replay_finish(b->rp, &err);
    b->L = NULL;
    set_trace_busy(L, 0);
    return 0;
}

/* next_time() -> time of the next record, or nil at the end */
static int replay_next_time(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    if (lua_getiuservalue(L, 1, 1) != LUA_TNIL)
        rt_lpicl_check(L, -1);
    lua_pop(L, 1);
    double t;
    rt_err err;
    int r = rt_replay_next_time(b->rp, &t, &err);
    if (r < 0) {
        lua_pushstring(L, err.msg); /* an input error: no code position in front */
        return lua_error(L);
    }
    if (r == 0)
        return 0;
    lua_pushnumber(L, t);
    return 1;
}

static int replay_now(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_pushnumber(L, rt_replay_now(b->rp));
    return 1;
}

static int replay_records(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_pushinteger(L, rt_replay_records(b->rp));
    return 1;
}

static int replay_finished(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_pushboolean(L, rt_replay_finished(b->rp));
    return 1;
}

static int replay_span(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    double t0, t1;
    rt_replay_span(b->rp, &t0, &t1);
    if (t0 > t1)
        return 0;
    lua_pushnumber(L, t0);
    lua_pushnumber(L, t1);
    return 2;
}

static int replay_nprocs(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_pushinteger(L, rt_replay_nprocs(b->rp));
    return 1;
}

static int replay_proc(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    const rt_replay_proc *p = rt_replay_proc_get(b->rp, (int)luaL_checkinteger(L, 2));
    if (!p || !p->seen)
        return 0;
    lua_createtable(L, 0, 20);
    rt_set_int(L, "id", p->id);
    rt_set_num(L, "first", p->first);
    rt_set_num(L, "last", p->last);
    rt_set_str(L, "state", rt_state_name(p->state));
    if (p->task >= 0)
        rt_set_int(L, "task", p->task);
    rt_set_int(L, "depth", p->depth);
    rt_set_num(L, "busy", p->time_in[RT_STATE_BUSY]);
    rt_set_num(L, "overhead", p->time_in[RT_STATE_OVERHEAD]);
    rt_set_num(L, "idle", p->time_in[RT_STATE_IDLE]);
    rt_set_int(L, "sent", p->sent);
    rt_set_num(L, "sent_bytes", p->sent_bytes);
    rt_set_int(L, "received", p->received);
    rt_set_num(L, "received_bytes", p->received_bytes);
    rt_set_int(L, "queue", p->queue);
    rt_set_num(L, "queue_bytes", p->queue_bytes);
    rt_set_int(L, "max_queue", p->max_queue);
    rt_set_num(L, "max_queue_bytes", p->max_queue_bytes);
    rt_set_int(L, "records", p->records);
    rt_set_int(L, "events", p->events);
    rt_set_int(L, "enters", p->enters);
    rt_set_bool(L, "ended", p->ended);
    rt_set_int(L, "pending_out", p->pending_out);
    rt_set_num(L, "pending_out_bytes", p->pending_out_bytes);
    return 1;
}

static int replay_events(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    const rt_replay_proc *p = rt_replay_proc_get(b->rp, id);
    lua_newtable(L);
    if (!p)
        return 1;
    const rt_event_stat *ev = rt_replay_proc_events(b->rp, id);
    for (int i = 0; i < p->nevents; i++) {
        lua_createtable(L, 0, 5);
        rt_set_int(L, "count", ev[i].count);
        rt_set_num(L, "time", ev[i].time);
        rt_set_num(L, "bytes", ev[i].bytes);
        rt_set_num(L, "bytes_in", ev[i].bytes_in);
        rt_set_num(L, "bytes_out", ev[i].bytes_out);
        lua_rawseti(L, -2, ev[i].event);
    }
    return 1;
}

static int replay_stack(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int n;
    const int *s = rt_replay_proc_stack(b->rp, (int)luaL_checkinteger(L, 2), &n);
    lua_createtable(L, n, 0);
    for (int i = 0; s && i < n; i++) {
        lua_pushinteger(L, s[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int replay_tasks(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int n = rt_replay_ntasks(b->rp);
    const rt_task_stat *t = rt_replay_tasks(b->rp);
    lua_createtable(L, n, 0);
    for (int i = 0, k = 0; i < n; i++) {
        if (t[i].count == 0)
            continue; /* none of its occurrences reaches the window */
        lua_createtable(L, 0, 5);
        rt_set_int(L, "task", t[i].task);
        rt_set_num(L, "first_start", t[i].first_start);
        if (t[i].last_end >= t[i].first_start)
            rt_set_num(L, "last_end", t[i].last_end);
        rt_set_int(L, "count", t[i].count);
        rt_set_int(L, "active", t[i].active);
        lua_rawseti(L, -2, ++k);
    }
    return 1;
}

static int replay_totals(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    rt_replay_totals t;
    rt_replay_totals_get(b->rp, &t);
    lua_createtable(L, 0, 8);
    rt_set_int(L, "messages", t.messages);
    rt_set_int(L, "tachyons", t.tachyons);
    rt_set_int(L, "pending", t.pending);
    rt_set_num(L, "pending_bytes", t.pending_bytes);
    rt_set_int(L, "unmatched_receives", t.unmatched_recv);
    rt_set_int(L, "warnings", t.warnings);
    rt_set_int(L, "unmatched_exits", t.unmatched_exits);
    rt_set_int(L, "left_open", t.left_open);
    rt_set_int(L, "unnested_exits", t.unnested_exits);
    rt_set_int(L, "reordered_exits", t.reordered_exits);
    rt_set_int(L, "collectives", t.collectives);
    rt_set_int(L, "collective_instances", t.coll_instances);
    rt_set_num(L, "collective_bytes", t.coll_bytes);
    rt_set_int(L, "max_pending", t.max_pending);
    rt_set_num(L, "max_pending_bytes", t.max_pending_bytes);
    rt_set_int(L, "lua_calls", b->lua_calls);
    lua_createtable(L, 0, RT_TE_KIND_COUNT);
    for (int k = 1; k < RT_TE_KIND_COUNT; k++)
        rt_set_int(L, rt_te_kind_name(k), t.kinds[k]);
    lua_setfield(L, -2, "kinds");
    return 1;
}

static void pending_cb(void *ud, const rt_message *m)
{
    lua_State *L = ud;
    push_message(L, m);
    lua_rawseti(L, -2, (lua_Integer)lua_rawlen(L, -2) + 1);
}

static int replay_pending(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_newtable(L);
    rt_replay_pending(b->rp, pending_cb, L);
    return 1;
}

/* rp:matrix(["pending" | "cumulative"]) -> {count = {{..}}, bytes = {{..}}}: P x P, row s+1 = sender s. */
static int replay_matrix(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    static const char *const which[] = {"pending", "cumulative", NULL};
    int cum = luaL_checkoption(L, 2, "pending", which);
    lua_getiuservalue(L, 1, 2);
    int on = rt_opt_bool(L, -1, "matrix", 0);
    lua_pop(L, 1);
    if (!on)
        return luaL_error(L, "rp:matrix(): the replay keeps no matrix (open it with matrix = true)");
    rt_replay_matrix_view m;
    rt_replay_matrix(b->rp, &m);
    int P = rt_replay_nprocs(b->rp);
    const int64_t *cnt = cum ? m.total_count : m.pending_count;
    const double *by = cum ? m.total_bytes : m.pending_bytes;
    lua_createtable(L, 0, 2);
    for (int k = 0; k < 2; k++) {
        lua_createtable(L, P, 0);
        for (int s = 0; s < P; s++) {
            lua_createtable(L, P, 0);
            for (int d = 0; d < P; d++) {
                int in = s < m.n && d < m.n;
                size_t i = (size_t)s * (size_t)m.n + (size_t)d;
                if (k == 0)
                    lua_pushinteger(L, in ? cnt[i] : 0);
                else
                    lua_pushnumber(L, in ? by[i] : 0);
                lua_rawseti(L, -2, d + 1);
            }
            lua_rawseti(L, -2, s + 1);
        }
        lua_setfield(L, -2, k == 0 ? "count" : "bytes");
    }
    return 1;
}

/* rp:part() -> rank, size of a distributed part; nothing for a whole replay. */
static int replay_part(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    rt_tsource *src = rt_replay_source(b->rp);
    if (!src || !rt_par_source_is_par(src))
        return 0;
    lua_pushinteger(L, rt_par_rank());
    lua_pushinteger(L, rt_par_size());
    return 2;
}

/* rp:picl_lines() -> records, skipped, {first messages}: a distributed PICL replay's line counts
 * (rt_par_text_picl_lines); nothing for any other replay. */
static int replay_picl_lines(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    rt_tsource *src = rt_replay_source(b->rp);
    uint64_t records;
    const rt_picl_skips *sk;
    if (!src || !rt_par_source_is_par(src) || rt_par_text_picl_lines(rt_par_source_part(src), &records, &sk) != RT_OK)
        return 0;
    lua_pushinteger(L, (lua_Integer)records);
    lua_pushinteger(L, (lua_Integer)sk->n);
    lua_createtable(L, sk->nkept, 0);
    for (int i = 0; i < sk->nkept; i++) {
        lua_pushstring(L, sk->kept[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 3;
}

/* rp:owns(id) -> whether processor id is this replay's own (always, unless a part). */
static int replay_owns(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int id = (int)luaL_checkinteger(L, 2);
    rt_tsource *src = rt_replay_source(b->rp);
    int part = src && rt_par_source_is_par(src);
    lua_pushboolean(L, !part || rt_par_owns(id, rt_par_rank(), rt_par_size()));
    return 1;
}

/* rp:warning_keys() -> {{a, b, c}, ...}: each kept warning's serial key (b, c as 64-bit
 * integers that wrap: compare them with math.ult). */
static int replay_warning_keys(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int n = rt_replay_nwarnings(b->rp);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        rt_tkey k;
        rt_replay_warning_key(b->rp, i, &k);
        lua_createtable(L, 3, 0);
        lua_pushinteger(L, (lua_Integer)k.a);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, (lua_Integer)k.b);
        lua_rawseti(L, -2, 2);
        lua_pushinteger(L, (lua_Integer)k.c);
        lua_rawseti(L, -2, 3);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* replay.unpaired_warning(which, n): the end-of-replay warning's words (0 sent, 1 received). */
static int l_unpaired_warning(lua_State *L)
{
    char buf[120];
    rt_replay_unpaired_warning((int)luaL_checkinteger(L, 1), luaL_checkinteger(L, 2), buf, sizeof buf);
    lua_pushstring(L, buf);
    return 1;
}

static int replay_warnings(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    int n = rt_replay_nwarnings(b->rp);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushstring(L, rt_replay_warning(b->rp, i));
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* Push a critical path as {length, start, stop, segments = {{proc, from, to}}, messages}. */
static void push_cp(lua_State *L, const rt_critical_path *cp)
{
    lua_createtable(L, 0, 5);
    rt_set_num(L, "length", cp->length);
    rt_set_num(L, "start", cp->start);
    rt_set_num(L, "stop", cp->end);
    lua_createtable(L, cp->nsegments, 0);
    for (int i = 0; i < cp->nsegments; i++) {
        lua_createtable(L, 0, 3);
        rt_set_int(L, "proc", cp->segments[i].proc);
        rt_set_num(L, "from", cp->segments[i].from);
        rt_set_num(L, "to", cp->segments[i].to);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "segments");
    lua_createtable(L, cp->nmessages, 0);
    for (int i = 0; i < cp->nmessages; i++) {
        push_message(L, &cp->messages[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "messages");
}

/*
 * rp:write_csv(dir, nprocs, t0 [, t1]) -> true | nil, message: states.csv and messages.csv
 * in dir written by this replay as it runs (rt_replay_csv.h), clipped to [t0, t1];
 * rp:commit_csv(t1) -> {states, messages} | nil, message writes them whole.
 */
static int replay_write_csv(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    const char *dir = luaL_checkstring(L, 2);
    int n = (int)luaL_checkinteger(L, 3);
    double t0 = luaL_checknumber(L, 4);
    if (b->csv)
        return luaL_error(L, "write_csv: this replay already writes CSV files");
    rt_err err;
    if (!(b->csv = rt_replay_csv_new(b->rp, dir, n, t0, &err)))
        return rt_push_fail(L, &err);
    if (!lua_isnoneornil(L, 5))
        rt_replay_csv_set_end(b->csv, luaL_checknumber(L, 5));
    lua_pushboolean(L, 1);
    return 1;
}

static int replay_commit_csv(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    double t1 = luaL_checknumber(L, 2);
    if (!b->csv)
        return luaL_error(L, "commit_csv: no CSV files started (write_csv)");
    rt_replay_csv *c = b->csv;
    b->csv = NULL;
    int64_t ns = 0, nm = 0;
    rt_err err;
    if (rt_replay_csv_commit(c, t1, &ns, &nm, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 2);
    rt_set_int(L, "states", ns);
    rt_set_int(L, "messages", nm);
    return 1;
}

static int replay_critical_path(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    rt_critical_path cp;
    rt_err err;
    if (rt_replay_critical_path(b->rp, &cp, &err) != RT_OK)
        return rt_push_fail(L, &err);
    push_cp(L, &cp);
    rt_critical_path_clear(&cp);
    return 1;
}

/*
 * rp:critical_path_walk() -> path | nil, message: the critical path kept in a temporary
 * file (rt_critpath.h), read part by part: path:info() -> {length, start, stop, segments,
 * messages} (counts); path:read(first, n) -> segments, messages (tables as rp:critical_path
 * gives them) for parts first .. first + n - 1 (1-based, in time order), the messages
 * leaving those segments; path:close().
 */
#define CP_PATH_T "retrace.CriticalPath"

typedef struct {
    rt_cp_path *p;
} cp_path_box;

static rt_cp_path *check_cp_path(lua_State *L)
{
    cp_path_box *b = luaL_checkudata(L, 1, CP_PATH_T);
    if (!b->p)
        luaL_argerror(L, 1, "critical path is closed");
    return b->p;
}

static int replay_critical_path_walk(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    cp_path_box *box = lua_newuserdatauv(L, sizeof *box, 0);
    box->p = NULL;
    luaL_setmetatable(L, CP_PATH_T);
    rt_err err;
    if (!(box->p = rt_cp_path_new(b->rp, &err)))
        return rt_push_fail(L, &err);
    return 1;
}

static int cp_path_info(lua_State *L)
{
    rt_cp_path *p = check_cp_path(L);
    double start, end, length;
    rt_cp_path_span(p, &start, &end, &length);
    int64_t n = rt_cp_path_count(p);
    lua_createtable(L, 0, 5);
    rt_set_num(L, "length", length);
    rt_set_num(L, "start", start);
    rt_set_num(L, "stop", end);
    rt_set_int(L, "segments", n);
    rt_set_int(L, "messages", n > 0 ? n - 1 : 0);
    return 1;
}

static int cp_path_read(lua_State *L)
{
    rt_cp_path *p = check_cp_path(L);
    lua_Integer first = luaL_checkinteger(L, 2), n = luaL_checkinteger(L, 3);
    int64_t total = rt_cp_path_count(p);
    luaL_argcheck(L, first >= 1, 2, "parts count from 1");
    luaL_argcheck(L, n >= 0 && n <= 65536, 3, "read 0 to 65536 parts at a time");
    if (first - 1 > total)
        first = total + 1;
    if (n > total - (first - 1))
        n = total - (first - 1);
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    rt_cp_part buf[64];
    int nmsg = 0;
    for (lua_Integer i = 0; i < n; i += 64) {
        lua_Integer k = n - i < 64 ? n - i : 64;
        rt_err err;
        int st = rt_cp_path_read(p, first - 1 + i, k, buf);
        if (st != RT_OK) {
            rt_err_set(&err, st, "critical path: cannot read back the path's temporary file");
            return rt_push_fail(L, &err);
        }
        for (lua_Integer j = 0; j < k; j++) {
            lua_createtable(L, 0, 3);
            rt_set_int(L, "proc", buf[j].seg.proc);
            rt_set_num(L, "from", buf[j].seg.from);
            rt_set_num(L, "to", buf[j].seg.to);
            lua_rawseti(L, -3, i + j + 1);
            if (buf[j].has_msg) {
                push_message(L, &buf[j].msg);
                lua_rawseti(L, -2, ++nmsg);
            }
        }
    }
    return 2;
}

static int cp_path_close(lua_State *L)
{
    cp_path_box *b = luaL_checkudata(L, 1, CP_PATH_T);
    rt_cp_path_free(b->p);
    b->p = NULL;
    return 0;
}

static const luaL_Reg cp_path_methods[] = {
    {"info", cp_path_info},
    {"read", cp_path_read},
    {"close", cp_path_close},
    {NULL, NULL},
};

static int replay_nevents(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    lua_pushinteger(L, rt_replay_events(b->rp));
    return 1;
}

/* progress() -> bytes read, total bytes (0 when unknown) of the source */
static int replay_progress(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    const rt_tsource *s = rt_replay_source(b->rp);
    lua_pushinteger(L, s ? (lua_Integer)rt_tsource_offset(s) : 0);
    lua_pushinteger(L, s ? (lua_Integer)rt_tsource_size(s) : 0);
    return 2;
}

/* skipped() -> records of kinds the model does not cover, and warnings, of the source */
static int replay_skipped(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    const rt_tsource *s = rt_par_source_part(rt_replay_source(b->rp));
    lua_pushinteger(L, s ? (lua_Integer)s->skipped : 0);
    lua_pushinteger(L, s ? (lua_Integer)s->warnings : 0);
    return 2;
}

/* defs() -> the definitions: format, procs, regions by id, communicators, clock resolution */
static int replay_defs(lua_State *L)
{
    replay_box *b = check_replay(L, 1);
    const rt_tdefs *d = rt_replay_defs(b->rp);
    const rt_tsource *s = rt_replay_source(b->rp);
    lua_createtable(L, 0, 5);
    rt_set_str(L, "format", s ? s->ops->format : "events");
    int np = rt_tdefs_nprocs(d);
    lua_createtable(L, np, 0);
    for (int i = 0; i < np; i++) {
        const rt_tproc *p = rt_tdefs_proc(d, i);
        lua_createtable(L, 0, 3);
        rt_set_int(L, "id", i);
        rt_set_str(L, "name", p->name);
        rt_set_str(L, "path", p->path);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "procs");
    int nr = rt_tdefs_nregions(d);
    lua_createtable(L, 0, nr);
    for (int i = 0; i < nr; i++) {
        const rt_tregion *r = rt_tdefs_region_at(d, i);
        lua_createtable(L, 0, 4);
        rt_set_int(L, "id", r->id);
        rt_set_str(L, "name", r->name);
        rt_set_str(L, "class", rt_tclass_name(r->cls));
        rt_set_str(L, "group", r->group);
        lua_rawseti(L, -2, r->id);
    }
    lua_setfield(L, -2, "regions");
    int nc = rt_tdefs_ncomms(d);
    lua_createtable(L, nc, 0);
    for (int i = 0; i < nc; i++) {
        const rt_tcomm *c = rt_tdefs_comm_at(d, i);
        lua_createtable(L, 0, 3);
        rt_set_int(L, "id", c->id);
        rt_set_str(L, "name", c->name);
        rt_set_int(L, "size", c->size);
        if (c->members) { /* processor indices (0-based), rank order */
            lua_createtable(L, c->size, 0);
            for (int k = 0; k < c->size; k++) {
                lua_pushinteger(L, c->members[k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "members");
        }
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "comms");
    rt_set_int(L, "resolution", (lua_Integer)rt_tdefs_resolution(d));
    return 1;
}

/* "retrace.Replay: 16 processors, 624 records replayed" */
static int replay_tostring(lua_State *L)
{
    replay_box *b = luaL_checkudata(L, 1, REPLAY_T);
    if (!b->rp) {
        lua_pushstring(L, REPLAY_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, REPLAY_T ": %d processors, %I records replayed%s", rt_replay_nprocs(b->rp),
                    (lua_Integer)rt_replay_records(b->rp), rt_replay_finished(b->rp) ? " (finished)" : "");
    return 1;
}

static const luaL_Reg methods[] = {
    {"__tostring", replay_tostring},
    {"step", replay_step},
    {"run_until", replay_run_until},
    {"run", replay_run},
    {"finish", replay_finish},
    {"now", replay_now},
    {"next_time", replay_next_time},
    {"records", replay_records},
    {"finished", replay_finished},
    {"span", replay_span},
    {"nprocs", replay_nprocs},
    {"proc", replay_proc},
    {"events", replay_events},
    {"stack", replay_stack},
    {"tasks", replay_tasks},
    {"totals", replay_totals},
    {"pending", replay_pending},
    {"matrix", replay_matrix},
    {"warnings", replay_warnings},
    {"warning_keys", replay_warning_keys},
    {"part", replay_part},
    {"picl_lines", replay_picl_lines},
    {"owns", replay_owns},
    {"critical_path", replay_critical_path},
    {"critical_path_walk", replay_critical_path_walk},
    {"write_csv", replay_write_csv},
    {"commit_csv", replay_commit_csv},
    {"defs", replay_defs},
    {"nevents", replay_nevents},
    {"progress", replay_progress},
    {"skipped", replay_skipped},
    {"close", replay_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {"open", l_open},
    {"detect", l_detect},
    {"formats", l_formats},
    {"prescan", l_prescan},
    {"reads", l_reads},
    {"time_unit", l_time_unit},
    {"check_window", l_check_window},
    {"scale_width", l_scale_width},
    {"unpaired_warning", l_unpaired_warning},
    {NULL, NULL},
};

rt_replay *rt_lreplay_check(lua_State *L, int i)
{
    return check_replay(L, i)->rp;
}

rt_replay *rt_lreplay_get(lua_State *L, int i)
{
    replay_box *b = luaL_testudata(L, i, REPLAY_T);
    return b ? b->rp : NULL;
}

/* The replay's table of kept values (user value 3), created on first use, pushed. */
static void kept_table(lua_State *L, int r)
{
    if (lua_getiuservalue(L, r, 3) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_newtable(L);
        lua_pushvalue(L, -1);
        lua_setiuservalue(L, r, 3);
    }
}

void rt_lreplay_keep(lua_State *L, int r, int v)
{
    r = lua_absindex(L, r);
    v = lua_absindex(L, v);
    kept_table(L, r);
    lua_pushvalue(L, v);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

void rt_lreplay_release(lua_State *L, int r, int v)
{
    r = lua_absindex(L, r);
    v = lua_absindex(L, v);
    kept_table(L, r);
    lua_pushvalue(L, v);
    lua_pushnil(L);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

int rt_lopen_replay(lua_State *L)
{
    rt_new_class(L, REPLAY_T, methods, replay_close);
    rt_new_class(L, CP_PATH_T, cp_path_methods, cp_path_close);
    luaL_newlib(L, funcs);
    lua_pushstring(L, rt_par_peer_failed); /* a distributed run's error on the ranks that did not fail */
    lua_setfield(L, -2, "PEER_FAILED");
    lua_pushinteger(L, RT_REPLAY_KEEP_WARNINGS);
    lua_setfield(L, -2, "KEEP_WARNINGS");
    return 1;
}
