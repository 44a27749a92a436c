/*
 * ltimeline.c - Lua face of the state / task raster (core/msg/rt_timeline.h).
 *
 *   local tl = timeline.new{cols = W, rows = R, procs = P, t0 = a, t1 = b [, tasks = {ids}]
 *                           [, order = {processors}]}  -- order: the rows' order, place i -> order[i + 1]
 *   tl:attach(rp)         -- fed by the replay in C from now on (rp stays alive with tl)
 *   tl:detach()
 *   tl:advance(t)         -- account current states up to t (call before reading)
 *   tl:set_window(t0, t1) -- clears the cells, keeps states
 *   tl:scroll(k)          -- move the window by k whole columns, keeping the cells still inside
 *   tl:state(proc, t, old, new), tl:task(proc, t, old, new)  -- feed by hand (tests)
 *   tl:size() -> cols, rows ; tl:window() -> t0, t1 ; tl:row_of(p) -> r (0-based)
 *   tl:row_procs(r) -> first processor (first place with an order), count
 *   tl:cell(c, r) -> {idle, overhead, busy, tasks = {slot times...}, dominant}  (0-based c, r)
 *   tl:times(state) -> flat array, cols * rows, [r * cols + c + 1] = seconds in state
 *   tl:grid("state" | "task") -> retrace.Grid view (dominant state 0/1/2 or task slot, -1 empty),
 *                                refilled on each call, drawn by canvas:grid
 * State names: "idle", "overhead", "busy"; task slots: 1 .. #tasks, #tasks + 1 = other.
 */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lreplay.h"
#include "rt_timeline.h"

#define TIMELINE_T "retrace.Timeline"

typedef struct {
    rt_timeline *tl;
    rt_grid *g[2];
} tl_box;

static tl_box *check_tl(lua_State *L, int i)
{
    tl_box *b = luaL_checkudata(L, i, TIMELINE_T);
    if (!b->tl)
        luaL_argerror(L, i, "timeline is closed");
    return b;
}

/* Detach from the replay in user value 1, if any and still open. */
static void detach(lua_State *L, int i, tl_box *b)
{
    if (lua_getiuservalue(L, i, 1) != LUA_TNIL) {
        rt_replay *rp = rt_lreplay_get(L, -1);
        if (rp && b->tl)
            rt_timeline_detach(b->tl, rp);
        if (rp)
            rt_lreplay_release(L, -1, i);
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setiuservalue(L, i, 1);
}

static int tl_close(lua_State *L)
{
    tl_box *b = luaL_checkudata(L, 1, TIMELINE_T);
    detach(L, 1, b);
    rt_timeline_free(b->tl);
    b->tl = NULL;
    rt_grid_free(b->g[0]);
    rt_grid_free(b->g[1]);
    b->g[0] = b->g[1] = NULL;
    return 0;
}

static double num_field(lua_State *L, const char *k)
{
    lua_getfield(L, 1, k);
    if (!lua_isnumber(L, -1))
        luaL_error(L, "timeline.new: %s: a number expected", k);
    double v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static int l_new(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_timeline_opts o;
    memset(&o, 0, sizeof o);
    o.cols = (int)num_field(L, "cols");
    o.rows = (int)num_field(L, "rows");
    o.nprocs = (int)num_field(L, "procs");
    o.t0 = num_field(L, "t0");
    o.t1 = num_field(L, "t1");
    int tasks[RT_TIMELINE_MAXTASKS];
    if (lua_getfield(L, 1, "tasks") == LUA_TTABLE) {
        int n = (int)lua_rawlen(L, -1);
        if (n > RT_TIMELINE_MAXTASKS)
            n = RT_TIMELINE_MAXTASKS; /* the rest count as "other" */
        for (int i = 0; i < n; i++) {
            lua_rawgeti(L, -1, i + 1);
            if (!lua_isinteger(L, -1))
                return luaL_error(L, "timeline.new: tasks[%d]: an integer expected", i + 1);
            tasks[i] = (int)lua_tointeger(L, -1);
            lua_pop(L, 1);
        }
        o.ntasks = n;
        o.tasks = tasks;
    }
    lua_pop(L, 1);
    int *place = NULL;
    if (lua_getfield(L, 1, "order") == LUA_TTABLE) {
        if ((lua_Integer)lua_rawlen(L, -1) != o.nprocs)
            return luaL_error(L, "timeline.new: order: %d processors expected", o.nprocs);
        place = lua_newuserdatauv(L, (size_t)o.nprocs * sizeof *place, 0); /* freed by the GC */
        for (int p = 0; p < o.nprocs; p++)
            place[p] = -1;
        for (int i = 0; i < o.nprocs; i++) {
            lua_rawgeti(L, -2, i + 1);
            lua_Integer p = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : -1;
            lua_pop(L, 1);
            if (p < 0 || p >= o.nprocs || place[p] >= 0)
                return luaL_error(L, "timeline.new: order[%d]: a processor not listed before expected", i + 1);
            place[p] = i;
        }
        o.place = place;
    }
    tl_box *b = lua_newuserdatauv(L, sizeof *b, 3);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, TIMELINE_T);
    rt_err err;
    if (rt_timeline_new(&o, &b->tl, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int tl_attach(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    rt_replay *rp = rt_lreplay_check(L, 2);
    detach(L, 1, b);
    if (rt_timeline_attach(b->tl, rp) != RT_OK)
        return luaL_error(L, "timeline:attach: the replay has too many listeners");
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, 1);
    rt_lreplay_keep(L, 2, 1);
    lua_settop(L, 1);
    return 1;
}

static int tl_detach(lua_State *L)
{
    detach(L, 1, check_tl(L, 1));
    return 0;
}

static int tl_advance(lua_State *L)
{
    rt_timeline_advance(check_tl(L, 1)->tl, luaL_checknumber(L, 2));
    return 0;
}

static int tl_set_window(lua_State *L)
{
    rt_err err;
    if (rt_timeline_set_window(check_tl(L, 1)->tl, luaL_checknumber(L, 2), luaL_checknumber(L, 3), &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int tl_scroll(lua_State *L)
{
    rt_timeline_scroll(check_tl(L, 1)->tl, (int)luaL_checkinteger(L, 2));
    return 0;
}

static const char *const state_names[] = {"idle", "overhead", "busy", NULL};

static int tl_state(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    rt_timeline_state(b->tl, (int)luaL_checkinteger(L, 2), luaL_checknumber(L, 3),
                      luaL_checkoption(L, 4, NULL, state_names), luaL_checkoption(L, 5, NULL, state_names));
    return 0;
}

static int tl_task(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    rt_timeline_task(b->tl, (int)luaL_checkinteger(L, 2), luaL_checknumber(L, 3), (int)luaL_optinteger(L, 4, -1),
                     (int)luaL_optinteger(L, 5, -1));
    return 0;
}

static int tl_size(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    lua_pushinteger(L, rt_timeline_cols(b->tl));
    lua_pushinteger(L, rt_timeline_rows(b->tl));
    return 2;
}

static int tl_window(lua_State *L)
{
    double a, z;
    rt_timeline_window(check_tl(L, 1)->tl, &a, &z);
    lua_pushnumber(L, a);
    lua_pushnumber(L, z);
    return 2;
}

static int tl_row_of(lua_State *L)
{
    int r = rt_timeline_row_of(check_tl(L, 1)->tl, (int)luaL_checkinteger(L, 2));
    if (r < 0)
        return 0;
    lua_pushinteger(L, r);
    return 1;
}

static int tl_row_procs(lua_State *L)
{
    int n;
    int first = rt_timeline_row_procs(check_tl(L, 1)->tl, (int)luaL_checkinteger(L, 2), &n);
    lua_pushinteger(L, first);
    lua_pushinteger(L, n);
    return 2;
}

static int tl_cell(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    int c = (int)luaL_checkinteger(L, 2), r = (int)luaL_checkinteger(L, 3);
    if (c < 0 || c >= rt_timeline_cols(b->tl) || r < 0 || r >= rt_timeline_rows(b->tl))
        return luaL_error(L, "timeline:cell(%d, %d): outside the %dx%d raster", c, r, rt_timeline_cols(b->tl),
                          rt_timeline_rows(b->tl));
    lua_createtable(L, 0, 5);
    for (int s = 0; s < RT_NSTATES; s++)
        rt_set_num(L, state_names[s], rt_timeline_state_time(b->tl, c, r, s));
    int nt = rt_timeline_ntasks(b->tl) + 1;
    lua_createtable(L, nt, 0);
    for (int k = 0; k < nt; k++) {
        lua_pushnumber(L, rt_timeline_task_time(b->tl, c, r, k));
        lua_rawseti(L, -2, k + 1);
    }
    lua_setfield(L, -2, "tasks");
    int d = rt_timeline_dominant(b->tl, c, r);
    if (d >= 0)
        rt_set_str(L, "dominant", state_names[d]);
    return 1;
}

static int tl_times(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    int s = luaL_checkoption(L, 2, NULL, state_names);
    int W = rt_timeline_cols(b->tl), R = rt_timeline_rows(b->tl);
    lua_createtable(L, W * R, 0);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < W; c++) {
            lua_pushnumber(L, rt_timeline_state_time(b->tl, c, r, s));
            lua_rawseti(L, -2, (lua_Integer)r * W + c + 1);
        }
    return 1;
}

static int tl_grid(lua_State *L)
{
    tl_box *b = check_tl(L, 1);
    static const char *const which[] = {"state", "task", NULL};
    int k = luaL_checkoption(L, 2, "state", which);
    rt_err err;
    if (!b->g[k]) {
        if (rt_grid_new(rt_timeline_cols(b->tl), rt_timeline_rows(b->tl), -1, &b->g[k], &err) != RT_OK)
            return luaL_error(L, "%s", err.msg);
        rt_lcanvas_push_grid(L, b->g[k], 1);
        lua_setiuservalue(L, 1, 2 + k);
    }
    if (rt_timeline_fill_grid(b->tl, k, b->g[k], &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_getiuservalue(L, 1, 2 + k);
    return 1;
}

static int tl_tostring(lua_State *L)
{
    tl_box *b = luaL_checkudata(L, 1, TIMELINE_T);
    if (!b->tl) {
        lua_pushstring(L, "retrace.Timeline (closed)");
        return 1;
    }
    double a, z;
    rt_timeline_window(b->tl, &a, &z);
    lua_pushfstring(L, "retrace.Timeline: %d x %d cells over %f .. %f s", rt_timeline_cols(b->tl),
                    rt_timeline_rows(b->tl), a, z);
    return 1;
}

static const luaL_Reg methods[] = {
    {"__tostring", tl_tostring},
    {"attach", tl_attach},
    {"detach", tl_detach},
    {"advance", tl_advance},
    {"set_window", tl_set_window},
    {"scroll", tl_scroll},
    {"state", tl_state},
    {"task", tl_task},
    {"size", tl_size},
    {"window", tl_window},
    {"row_of", tl_row_of},
    {"row_procs", tl_row_procs},
    {"cell", tl_cell},
    {"times", tl_times},
    {"grid", tl_grid},
    {"close", tl_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {NULL, NULL},
};

int rt_lopen_timeline(lua_State *L)
{
    rt_new_class(L, TIMELINE_T, methods, tl_close);
    luaL_newlib(L, funcs);
    return 1;
}
