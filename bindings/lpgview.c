/*
 * lpgview.c - Lua face of ParaGraph's view (core/view/rt_pg_view.h):
 * conversions only. lua/retrace/paragraph.lua wraps it as the model the
 * displays of displays/paragraph/ read once per frame.
 *
 *   pgview.new(rp, {procs = P, t0 =, from =, to =, last = {[p + 1] = t}, ring =, records =,
 *                   batch = bool, tasks = {ids}, source = {[p + 1] = the replay's processor},
 *                   nsource = the replay's processors}) -> view | nil, message
 *                   (source: only those processors shown, numbered 0 .. procs-1 in the view)
 *   view:sync(t)  view:keep(t [, task_t])  view:close()   (task changes kept from task_t, default t)
 *   view:info() -> {now, procs, counts = {idle, overhead, busy}, collectives, events, pairs, latest_task,
 *                   keep_base = {count, bytes}, kept, kept_peak (items kept for the displays, now and at most)}
 *   view:states() -> {[p] = state} (p 0-based; 0 idle, 1 overhead, 2 busy)
 *   view:grids() -> {state = grid of P x 1 cells (the states), brought up to date}
 *   view:time_in() -> {[p] = {[0] = idle, overhead, busy}} seconds inside the window
 *   view:profile() -> {[s] = {[k + 1] = seconds with exactly k processors in s}} (s = 0, 1, 2)
 *   view:raster(p, lo, hi, W) -> {[c * 3 + s + 1] = seconds} (c 0-based column)
 *   view:busy_fraction(p, a, b) -> fraction
 *   view:active_row(p, lo, hi, W) -> W bytes, 1 where p was mostly not idle
 *   view:task_row(p, lo, hi, W, now [, mod]) -> W int32 (string.pack "i4"): a column's main task or -1
 *   view:messages([t0 [, t1]]) -> {{src, dst, tag, bytes, send, recv}} received since the keep
 *                                  time, those with recv >= t0 and send <= t1
 *   view:messages_after(seq) -> the same for the messages with seq > seq (each with its seq),
 *                                and the newest seq seen
 *   view:trend{smoothing =, bytes = bool, top =, cols =, rows =, mod =} -> true | nil, message
 *                                (before the replay runs: trailing means of rt_pg_view_trend)
 *   view:trend_busy() -> {[p + 1] = busy fraction over S}, {[p + 1] = highest so far}
 *   view:trend_point() -> x, y (percents now), corners evaluated, raster grid | nil,
 *                          x, y of the last corner
 *   view:deltas() -> {{t, dc, db, dst}}, base count, base bytes
 *   view:deltas_after(seq) -> the deltas with seq > seq, deltas seen in all, base count, base bytes
 *   view:collectives() -> {{t0, t1, lo, hi, n, bytes, region, seq}}
 *   view:collectives_after(seq) -> those with seq > seq, and collectives seen in all
 *   view:recent(p, "in" | "out") -> the last messages p received / sent (oldest first)
 *   view:matrix() -> {{src, dst, count, bytes}} sorted by (src, dst); view:pair(src, dst) -> count, bytes
 *   view:tasks() -> {{id, start, stop, ptime, inside}} by id (start / stop nil before)
 *   view:task_changes(p) -> {{t, task | false}} kept (the first may be at -inf)
 *   view:task_of(p) -> task | nil, since      view:task_time(id, t)      view:proc_task_time(p, t)
 *   view:events() -> {{index, record, time, proc, kind, region, name, peer, tag, bytes, data = {...}, text}}
 *                        (PICL: one per record, the record's own table as the PICL reader gives it, index = record)
 *   view:take_events()   -- forget them (application displays take each batch once)
 */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lpicl.h"
#include "lreplay.h"
#include "rt_picl_source.h"
#include "rt_pg_view.h"

#define PGVIEW_T "retrace.PgView"

typedef struct {
    rt_pg_view *v;        /* NULL once closed; the replay is user value 1 */
} pv_box;

static pv_box *check_pv(lua_State *L, int i)
{
    pv_box *b = luaL_checkudata(L, i, PGVIEW_T);
    if (!b->v)
        luaL_argerror(L, i, "ParaGraph view is closed");
    return b;
}

/* The replay the view at index i feeds on, NULL when it was closed. */
static rt_replay *live_replay(lua_State *L, int i)
{
    lua_getiuservalue(L, i, 1);
    rt_replay *rp = rt_lreplay_get(L, -1);
    lua_pop(L, 1);
    return rp;
}

static int pv_close(lua_State *L)
{
    pv_box *b = luaL_checkudata(L, 1, PGVIEW_T);
    if (!b->v)
        return 0;
    if (live_replay(L, 1)) {
        rt_pg_view_detach(b->v);
        lua_getiuservalue(L, 1, 1);
        rt_lreplay_release(L, -1, 1);
        lua_pop(L, 1);
    } else {
        rt_pg_view_forget_replay(b->v); /* freed already: nothing to detach from */
    }
    rt_pg_view_free(b->v);
    b->v = NULL;
    return 0;
}

static double opt_num(lua_State *L, int t, const char *k, double def)
{
    double v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        if (!lua_isnumber(L, -1))
            luaL_error(L, "pgview.new: %s: a number expected, got %s", k, luaL_typename(L, -1));
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

static int l_new(lua_State *L)
{
    rt_replay *rp = rt_lreplay_check(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rt_pg_view_config c;
    memset(&c, 0, sizeof c);
    double P = opt_num(L, 2, "procs", 0);
    if (!(P >= 1 && P <= RT_TE_MAXPROC))
        return luaL_error(L, "pgview.new: procs %f (1..%d)", P, RT_TE_MAXPROC);
    c.nprocs = (int)P;
    c.t0 = opt_num(L, 2, "t0", 0);
    c.from = opt_num(L, 2, "from", -INFINITY);
    c.to = opt_num(L, 2, "to", INFINITY);
    c.ring = (int)opt_num(L, 2, "ring", 0);
    c.records = (int)opt_num(L, 2, "records", 0);
    lua_getfield(L, 2, "batch");
    c.batch = lua_toboolean(L, -1);
    lua_pop(L, 1);
    /* scratch for last and tasks lives in Lua-owned userdata (an error may longjmp) */
    if (lua_getfield(L, 2, "last") == LUA_TTABLE) {
        double *last = lua_newuserdatauv(L, (size_t)c.nprocs * sizeof *last, 0);
        for (int p = 0; p < c.nprocs; p++) {
            lua_rawgeti(L, -2, p + 1);
            last[p] = lua_isnumber(L, -1) ? lua_tonumber(L, -1) : -INFINITY;
            lua_pop(L, 1);
        }
        c.last = last;
    }
    if (lua_getfield(L, 2, "tasks") == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        int *tasks = lua_newuserdatauv(L, (size_t)(n > 0 ? n : 1) * sizeof *tasks, 0);
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -2, i + 1);
            if (!lua_isinteger(L, -1))
                return luaL_error(L, "pgview.new: tasks[%d]: an integer expected", i + 1);
            tasks[i] = (int)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        c.tasks = tasks;
        c.ntasks = n;
    }
    if (lua_getfield(L, 2, "source") == LUA_TTABLE) {
        if ((lua_Integer)lua_rawlen(L, -1) != c.nprocs)
            return luaL_error(L, "pgview.new: source: %d processors expected", c.nprocs);
        int *source = lua_newuserdatauv(L, (size_t)c.nprocs * sizeof *source, 0);
        for (int p = 0; p < c.nprocs; p++) {
            lua_rawgeti(L, -2, p + 1);
            if (!lua_isinteger(L, -1))
                return luaL_error(L, "pgview.new: source[%d]: an integer expected", p + 1);
            source[p] = (int)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        c.source = source;
        double n = opt_num(L, 2, "nsource", 0);
        c.nsource = n >= 0 && n <= RT_TE_MAXPROC ? (int)n : -1;
    }
    pv_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, PGVIEW_T);
    rt_err err;
    b->v = rt_pg_view_new(rp, &c, &err);
    if (!b->v)
        return rt_push_fail(L, &err);
    /* the view keeps its replay alive, the replay keeps the view (its tap) */
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    rt_lreplay_keep(L, 1, -1);
    return 1;
}

static int pv_sync(lua_State *L)
{
    pv_box *b = check_pv(L, 1);
    rt_pg_view_sync(b->v, luaL_checknumber(L, 2));
    if (rt_pg_view_status(b->v) != RT_OK)
        return luaL_error(L, "ParaGraph view: out of memory");
    return 0;
}

static int pv_keep(lua_State *L)
{
    lua_Number t = luaL_checknumber(L, 2);
    rt_pg_view_keep(check_pv(L, 1)->v, t, luaL_optnumber(L, 3, t));
    return 0;
}

static int pv_info(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    lua_createtable(L, 0, 8);
    rt_set_num(L, "now", rt_pg_view_now(v));
    rt_set_int(L, "procs", rt_pg_view_nprocs(v));
    lua_createtable(L, 0, 3);
    rt_set_int(L, "idle", rt_pg_view_count(v, RT_STATE_IDLE));
    rt_set_int(L, "overhead", rt_pg_view_count(v, RT_STATE_OVERHEAD));
    rt_set_int(L, "busy", rt_pg_view_count(v, RT_STATE_BUSY));
    lua_setfield(L, -2, "counts");
    rt_set_int(L, "collectives", rt_pg_view_ncollectives(v));
    rt_set_int(L, "events", rt_pg_view_events_seen(v));
    rt_set_int(L, "pairs", (lua_Integer)rt_pg_view_npairs(v));
    rt_set_int(L, "latest_task", rt_pg_view_latest_task(v));
    size_t peak, kept = rt_pg_view_kept(v, &peak);
    rt_set_int(L, "kept", (lua_Integer)kept);
    rt_set_int(L, "kept_peak", (lua_Integer)peak);
    return 1;
}

static int pv_states(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int P = rt_pg_view_nprocs(v);
    lua_createtable(L, P, 1);
    for (int p = 0; p < P; p++) {
        lua_pushinteger(L, rt_pg_view_state(v, p));
        lua_rawseti(L, -2, p);
    }
    return 1;
}

static int pv_grids(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    lua_createtable(L, 0, 1);
    rt_lcanvas_push_grid(L, rt_pg_view_state_grid(v), 1);
    lua_setfield(L, -2, "state");
    return 1;
}

static int pv_time_in(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int P = rt_pg_view_nprocs(v);
    lua_createtable(L, P, 1);
    for (int p = 0; p < P; p++) {
        lua_createtable(L, RT_NSTATES, 1);
        for (int s = 0; s < RT_NSTATES; s++) {
            lua_pushnumber(L, rt_pg_view_time_in(v, p, s));
            lua_rawseti(L, -2, s);
        }
        lua_rawseti(L, -2, p);
    }
    return 1;
}

static int pv_profile(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int P = rt_pg_view_nprocs(v);
    lua_createtable(L, RT_NSTATES, 1);
    for (int s = 0; s < RT_NSTATES; s++) {
        lua_createtable(L, P + 1, 0);
        for (int k = 0; k <= P; k++) {
            lua_pushnumber(L, rt_pg_view_profile(v, s, k));
            lua_rawseti(L, -2, k + 1);
        }
        lua_rawseti(L, -2, s);
    }
    return 1;
}

static int check_proc(lua_State *L, rt_pg_view *v, int i)
{
    lua_Integer p = luaL_checkinteger(L, i);
    if (p < 0 || p >= rt_pg_view_nprocs(v))
        luaL_argerror(L, i, "no such processor");
    return (int)p;
}

/* The arguments (p, lo, hi, W) at 2..5 of the row methods. */
typedef struct {
    int p;
    double lo, hi;
    lua_Integer W;
} row_args;

static row_args check_row(lua_State *L, rt_pg_view *v)
{
    row_args a;
    a.p = check_proc(L, v, 2);
    a.lo = luaL_checknumber(L, 3);
    a.hi = luaL_checknumber(L, 4);
    a.W = luaL_checkinteger(L, 5);
    luaL_argcheck(L, a.W >= 1 && a.W <= 1 << 20, 5, "columns out of range");
    return a;
}

static int pv_raster(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    row_args a = check_row(L, v);
    int p = a.p;
    double lo = a.lo, hi = a.hi;
    lua_Integer W = a.W;
    double *out = lua_newuserdatauv(L, (size_t)W * RT_NSTATES * sizeof *out, 0);
    memset(out, 0, (size_t)W * RT_NSTATES * sizeof *out);
    rt_pg_view_raster(v, p, lo, hi, (int)W, out);
    lua_createtable(L, (int)W * RT_NSTATES, 0);
    for (lua_Integer i = 0; i < W * RT_NSTATES; i++) {
        lua_pushnumber(L, out[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

/* active_row(p, lo, hi, W) -> a string of W bytes, 1 where p was mostly not idle */
static int pv_active_row(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    row_args a = check_row(L, v);
    luaL_Buffer b;
    unsigned char *out = (unsigned char *)luaL_buffinitsize(L, &b, (size_t)a.W);
    rt_pg_view_active_columns(v, a.p, a.lo, a.hi, (int)a.W, out);
    luaL_pushresultsize(&b, (size_t)a.W);
    return 1;
}

/* task_row(p, lo, hi, W, now [, mod]) -> W native int32 (string.pack "i4"): the column's task or -1 */
static int pv_task_row(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    row_args a = check_row(L, v);
    double now = luaL_checknumber(L, 6);
    int mod = (int)luaL_optinteger(L, 7, 0);
    luaL_Buffer b;
    int32_t *out = (int32_t *)(void *)luaL_buffinitsize(L, &b, (size_t)a.W * sizeof(int32_t));
    rt_pg_view_task_columns(v, a.p, a.lo, a.hi, (int)a.W, now, mod, out);
    luaL_pushresultsize(&b, (size_t)a.W * sizeof(int32_t));
    return 1;
}

static int pv_busy_fraction(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int p = check_proc(L, v, 2);
    lua_pushnumber(L, rt_pg_view_busy_fraction(v, p, luaL_checknumber(L, 3), luaL_checknumber(L, 4)));
    return 1;
}

static void push_msg(lua_State *L, const rt_pg_msg *m)
{
    lua_createtable(L, 0, 6);
    rt_set_int(L, "src", m->src);
    rt_set_int(L, "dst", m->dst);
    rt_set_int(L, "tag", m->tag);
    rt_set_num(L, "bytes", m->bytes);
    rt_set_num(L, "send", m->send);
    rt_set_num(L, "recv", m->recv);
    rt_set_int(L, "seq", m->seq);
}

static int pv_messages_after(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    lua_Integer after = luaL_checkinteger(L, 2);
    size_t n;
    const rt_pg_msg *m = rt_pg_view_messages_after(v, after, &n);
    lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
    for (size_t i = 0; i < n; i++) {
        push_msg(L, &m[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_pushinteger(L, rt_pg_view_messages_seen(v));
    return 2;
}

static int pv_trend(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    luaL_checktype(L, 2, LUA_TTABLE);
    rt_pg_trend_config c = {0};
    lua_getfield(L, 2, "smoothing");
    c.smoothing = luaL_optnumber(L, -1, 0);
    lua_getfield(L, 2, "bytes");
    c.bytes = lua_toboolean(L, -1);
    lua_getfield(L, 2, "top");
    c.top = luaL_optnumber(L, -1, 1);
    lua_getfield(L, 2, "cols");
    c.cols = (int)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 2, "rows");
    c.rows = (int)luaL_optinteger(L, -1, 0);
    lua_getfield(L, 2, "mod");
    c.mod = (int)luaL_optinteger(L, -1, 1);
    lua_pop(L, 6);
    int rc = rt_pg_view_trend(v, &c);
    if (rc != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, rc == RT_ENOMEM ? "ParaGraph view: out of memory for the trailing means"
                                          : "ParaGraph view: trend needs smoothing > 0, top > 0, a raster of "
                                            "1..4096 cells a side (or none), once");
        return 2;
    }
    lua_pushboolean(L, 1);
    return 1;
}

static int pv_trend_busy(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int P = rt_pg_view_nprocs(v);
    lua_createtable(L, P, 0);
    lua_createtable(L, P, 0);
    for (int p = 0; p < P; p++) {
        double high;
        lua_pushnumber(L, rt_pg_view_trend_busy(v, p, &high));
        lua_rawseti(L, -3, p + 1);
        lua_pushnumber(L, high);
        lua_rawseti(L, -2, p + 1);
    }
    return 2;
}

static int pv_trend_point(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    double x, y, lx, ly;
    rt_pg_view_trend_point(v, &x, &y, &lx, &ly);
    lua_pushnumber(L, x);
    lua_pushnumber(L, y);
    lua_pushinteger(L, rt_pg_view_trend_corners(v));
    rt_grid *g = rt_pg_view_trend_grid(v);
    if (g)
        rt_lcanvas_push_grid(L, g, 1);
    else
        lua_pushnil(L);
    lua_pushnumber(L, lx);
    lua_pushnumber(L, ly);
    return 6;
}

static int pv_messages(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    double t0 = luaL_optnumber(L, 2, -INFINITY), t1 = luaL_optnumber(L, 3, INFINITY);
    size_t n;
    const rt_pg_msg *m = rt_pg_view_messages(v, &n);
    lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
    lua_Integer k = 0;
    for (size_t i = 0; i < n; i++)
        if (m[i].recv >= t0 && m[i].send <= t1) {
            push_msg(L, &m[i]);
            lua_rawseti(L, -2, ++k);
        }
    return 1;
}

static void push_deltas(lua_State *L, const rt_pg_delta *d, size_t n)
{
    lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 4, 0);
        lua_pushnumber(L, d[i].t);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, d[i].dc);
        lua_rawseti(L, -2, 2);
        lua_pushnumber(L, d[i].db);
        lua_rawseti(L, -2, 3);
        lua_pushinteger(L, d[i].dst);
        lua_rawseti(L, -2, 4);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int pv_deltas(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    size_t n;
    int64_t bc;
    double bb;
    const rt_pg_delta *d = rt_pg_view_deltas(v, &n, &bc, &bb);
    push_deltas(L, d, n);
    lua_pushinteger(L, bc);
    lua_pushnumber(L, bb);
    return 3;
}

static int pv_deltas_after(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    size_t n;
    int64_t seen, bc;
    double bb;
    const rt_pg_delta *d = rt_pg_view_deltas_after(v, luaL_checkinteger(L, 2), &n, &seen);
    rt_pg_view_deltas(v, &(size_t){0}, &bc, &bb);
    push_deltas(L, d, n);
    lua_pushinteger(L, seen);
    lua_pushinteger(L, bc);
    lua_pushnumber(L, bb);
    return 4;
}

static void push_colls(lua_State *L, const rt_pg_coll *c, size_t n)
{
    lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 8);
        rt_set_num(L, "t0", c[i].t0);
        rt_set_num(L, "t1", c[i].t1);
        rt_set_int(L, "lo", c[i].lo);
        rt_set_int(L, "hi", c[i].hi);
        rt_set_int(L, "n", c[i].n);
        rt_set_num(L, "bytes", c[i].bytes);
        rt_set_int(L, "region", c[i].region);
        rt_set_int(L, "seq", c[i].seq);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
}

static int pv_collectives(lua_State *L)
{
    size_t n;
    const rt_pg_coll *c = rt_pg_view_collectives(check_pv(L, 1)->v, &n);
    push_colls(L, c, n);
    return 1;
}

static int pv_collectives_after(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    size_t n;
    const rt_pg_coll *c = rt_pg_view_collectives_after(v, luaL_checkinteger(L, 2), &n);
    push_colls(L, c, n);
    lua_pushinteger(L, rt_pg_view_ncollectives(v));
    return 2;
}

static int pv_recent(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int p = check_proc(L, v, 2);
    static const char *const dirs[] = {"in", "out", NULL};
    int dir = luaL_checkoption(L, 3, "in", dirs);
    int cap = rt_pg_view_ring_size(v);
    rt_pg_msg *buf = lua_newuserdatauv(L, (size_t)cap * sizeof *buf, 0);
    int n = rt_pg_view_recent(v, p, dir, buf, cap);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        push_msg(L, &buf[i]);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int pv_matrix(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    size_t cap = rt_pg_view_npairs(v);
    rt_pg_pair *buf = lua_newuserdatauv(L, (cap ? cap : 1) * sizeof *buf, 0);
    size_t n = rt_pg_view_pairs(v, buf, cap);
    lua_createtable(L, (int)(n < 1 << 24 ? n : 1 << 24), 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 0, 4);
        rt_set_int(L, "src", buf[i].src);
        rt_set_int(L, "dst", buf[i].dst);
        rt_set_int(L, "count", buf[i].count);
        rt_set_num(L, "bytes", buf[i].bytes);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int pv_pair(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int64_t c;
    double bytes;
    rt_pg_view_pair(v, (int)luaL_checkinteger(L, 2), (int)luaL_checkinteger(L, 3), &c, &bytes);
    lua_pushinteger(L, c);
    lua_pushnumber(L, bytes);
    return 2;
}

static int pv_tasks(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    int n;
    const rt_pg_task *t = rt_pg_view_tasks(v, &n);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 5);
        rt_set_int(L, "id", t[i].id);
        if (!isnan(t[i].start))
            rt_set_num(L, "start", t[i].start);
        if (!isnan(t[i].stop))
            rt_set_num(L, "stop", t[i].stop);
        rt_set_num(L, "ptime", t[i].ptime);
        rt_set_int(L, "inside", t[i].inside);
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int pv_task_of(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    double since;
    int t = rt_pg_view_task_of(v, check_proc(L, v, 2), &since);
    if (t == -1) /* none; other negative ids are tasks (Paraver's Running: -2) */
        lua_pushnil(L);
    else
        lua_pushinteger(L, t);
    lua_pushnumber(L, since);
    return 2;
}

/* {{t, task | false}} kept for processor p */
static int pv_task_changes(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    size_t n;
    const rt_pg_change *c = rt_pg_view_task_changes(v, check_proc(L, v, 2), &n);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_createtable(L, 2, 0);
        lua_pushnumber(L, c[i].t);
        lua_rawseti(L, -2, 1);
        if (c[i].s != -1)
            lua_pushinteger(L, c[i].s);
        else
            lua_pushboolean(L, 0);
        lua_rawseti(L, -2, 2);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int pv_task_time(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    lua_pushnumber(L, rt_pg_view_task_time(v, (int)luaL_checkinteger(L, 2), luaL_checknumber(L, 3)));
    return 1;
}

static int pv_proc_task_time(lua_State *L)
{
    rt_pg_view *v = check_pv(L, 1)->v;
    lua_pushnumber(L, rt_pg_view_proc_task_time(v, check_proc(L, v, 2), luaL_checknumber(L, 3)));
    return 1;
}

static int pv_events(lua_State *L)
{
    pv_box *b = check_pv(L, 1);
    size_t n = rt_pg_view_nevents(b->v);
    rt_replay *rp = live_replay(L, 1);
    const rt_tdefs *defs = rp ? rt_replay_defs(rp) : NULL;
    const rt_tsource *src = rp ? rt_replay_source(rp) : NULL;
    lua_createtable(L, (int)(n < 1 << 20 ? n : 1 << 20), 0);
    for (size_t i = 0; i < n; i++) {
        int64_t index;
        const rt_tevent *e = rt_pg_view_event(b->v, i, &index);
        int64_t record = rt_pg_view_event_record(b->v, i);
        char line[256];
        if (e->raw && src && rt_tsource_is_picl(src)) { /* PICL: the record itself, numbered in the file */
            rt_picl_record rec = *(const rt_picl_record *)e->raw;
            rec.text = NULL; /* pointed into the reader's line of the time: gone */
            rec.textlen = 0;
            rt_lpicl_push_record(L, &rec);
            rt_set_int(L, "index", record);
            rt_set_int(L, "record", record);
            rt_tsource_describe(src, e->raw, line, sizeof line);
            rt_set_str(L, "text", line);
            lua_rawseti(L, -2, (lua_Integer)i + 1);
            continue;
        }
        lua_createtable(L, 0, 13);
        rt_set_int(L, "index", index);
        rt_set_int(L, "record", record);
        rt_set_num(L, "time", e->time);
        rt_set_int(L, "proc", e->proc);
        rt_set_str(L, "kind", rt_te_kind_name(e->kind));
        if (e->kind != RT_TE_SEND && e->kind != RT_TE_RECV) {
            rt_set_int(L, "region", e->region);
            const rt_tregion *r = defs ? rt_tdefs_region(defs, e->region) : NULL;
            if (r && r->name && *r->name)
                rt_set_str(L, "name", r->name);
        }
        if (e->peer >= 0)
            rt_set_int(L, "peer", e->peer);
        if (e->kind == RT_TE_SEND || e->kind == RT_TE_RECV) {
            rt_set_int(L, "tag", e->tag);
            rt_set_num(L, "bytes", e->bytes);
        }
        if (e->ndata > 0) {
            lua_createtable(L, e->ndata, 0);
            for (int k = 0; k < e->ndata && k < RT_TE_MAXDATA; k++) {
                lua_pushnumber(L, e->data[k]);
                lua_rawseti(L, -2, k + 1);
            }
            lua_setfield(L, -2, "data");
        }
        rt_pg_view_describe(e, defs, line, sizeof line);
        rt_set_str(L, "text", line);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    return 1;
}

static int pv_take_events(lua_State *L)
{
    rt_pg_view_take_events(check_pv(L, 1)->v);
    return 0;
}

static const luaL_Reg methods[] = {
    {"sync", pv_sync},
    {"keep", pv_keep},
    {"info", pv_info},
    {"states", pv_states},
    {"grids", pv_grids},
    {"time_in", pv_time_in},
    {"profile", pv_profile},
    {"raster", pv_raster},
    {"busy_fraction", pv_busy_fraction},
    {"active_row", pv_active_row},
    {"task_row", pv_task_row},
    {"messages", pv_messages},
    {"messages_after", pv_messages_after},
    {"trend", pv_trend},
    {"trend_busy", pv_trend_busy},
    {"trend_point", pv_trend_point},
    {"deltas", pv_deltas},
    {"deltas_after", pv_deltas_after},
    {"collectives", pv_collectives},
    {"collectives_after", pv_collectives_after},
    {"recent", pv_recent},
    {"matrix", pv_matrix},
    {"pair", pv_pair},
    {"tasks", pv_tasks},
    {"task_of", pv_task_of},
    {"task_time", pv_task_time},
    {"task_changes", pv_task_changes},
    {"proc_task_time", pv_proc_task_time},
    {"events", pv_events},
    {"take_events", pv_take_events},
    {"close", pv_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {NULL, NULL},
};

int rt_lopen_pgview(lua_State *L)
{
    rt_new_class(L, PGVIEW_T, methods, pv_close);
    luaL_newlib(L, funcs);
    return 1;
}
