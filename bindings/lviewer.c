/*
 * lviewer.c - the Lua face of core/index and core/server (`retrace index`,
 * `retrace view`): build or check an index, serve it, answer a query without a
 * socket (tests). No logic here: arguments in, core calls, results out.
 */
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bind.h"
#include "rt_index.h"
#include "rt_server.h"

#define SERVER_T "retrace.ViewServer"

typedef struct lserver {
    rt_index *ix, *ix2;       /* ix2: a second trace to compare, NULL none */
    rt_server *srv;
    sigset_t old;             /* the caller's signal mask, restored at close */
    int masked;
    pthread_t owner;          /* the thread that serves: woken by SIGUSR1 for a critical path */
} lserver;

/* The signals wait() takes: the stopping ones, and SIGUSR1 (a critical path asked for). */
static void wait_set(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGUSR1);
}

static const char *status_name(int st)
{
    switch (st) {
    case RT_ESTATE:
        return "stale";
    case RT_EFORMAT:
        return "corrupt";
    case RT_EIO:
        return "io";
    case RT_EINVAL:
        return "usage";
    default:
        return rt_strerror(st);
    }
}

static int push_fail3(lua_State *L, const rt_err *err)
{
    lua_pushnil(L);
    lua_pushstring(L, err->msg);
    lua_pushstring(L, status_name(err->status));
    return 3;
}

/* build(trace, index [, format]) -> {events, bytes, trace_bytes, levels} | nil, message, status */
static int v_build(lua_State *L)
{
    const char *trace = luaL_checkstring(L, 1), *index = luaL_checkstring(L, 2);
    const char *format = luaL_optstring(L, 3, NULL);
    rt_err err;
    rt_err_clear(&err);
    rt_index_build_info info;
    memset(&info, 0, sizeof info);
    if (rt_index_build(trace, format, index, NULL, NULL, &info, &err) != RT_OK)
        return push_fail3(L, &err);
    lua_createtable(L, 0, 4);
    rt_set_int(L, "events", (lua_Integer)info.events);
    rt_set_int(L, "bytes", (lua_Integer)info.bytes);
    rt_set_int(L, "trace_bytes", (lua_Integer)info.trace_bytes);
    rt_set_int(L, "levels", info.levels);
    return 1;
}

/* check(index, trace) -> {events, procs, regions, format} | nil, message, "stale"|"corrupt"|"io" */
static int v_check(lua_State *L)
{
    const char *index = luaL_checkstring(L, 1), *trace = luaL_optstring(L, 2, NULL);
    rt_err err;
    rt_err_clear(&err);
    rt_index *ix = rt_index_open(index, trace, &err);
    if (!ix)
        return push_fail3(L, &err);
    lua_createtable(L, 0, 4);
    rt_set_int(L, "events", (lua_Integer)rt_index_nevents(ix));
    rt_set_int(L, "procs", rt_index_nprocs(ix));
    rt_set_int(L, "regions", rt_index_nregions(ix));
    rt_set_int(L, "levels", rt_index_levels(ix));
    rt_set_str(L, "format", rt_index_format(ix));
    rt_index_close(ix);
    return 1;
}

static lserver *check_server(lua_State *L)
{
    lserver *s = luaL_checkudata(L, 1, SERVER_T);
    if (!s->srv)
        luaL_error(L, "attempt to use a closed server");
    return s;
}

static int s_close(lua_State *L)
{
    lserver *s = luaL_checkudata(L, 1, SERVER_T);
    rt_server_stop(s->srv);
    s->srv = NULL;
    rt_index_close(s->ix);
    s->ix = NULL;
    rt_index_close(s->ix2);
    s->ix2 = NULL;
    if (s->masked) {
        /* a wake-up left pending would kill the process once unblocked: take it */
        sigset_t usr1, pend;
        sigemptyset(&usr1);
        sigaddset(&usr1, SIGUSR1);
        struct timespec now = {0, 0};
        while (sigpending(&pend) == 0 && sigismember(&pend, SIGUSR1) && sigtimedwait(&usr1, NULL, &now) == SIGUSR1)
            ;
        pthread_sigmask(SIG_SETMASK, &s->old, NULL);
        s->masked = 0;
    }
    return 0;
}

/*
 * serve{index=, trace=, assets=, title=, bind=, port=, token=, index2=, trace2=, title2=} -> server |
 * nil, message, status; index2 (with trace2): a second trace to compare (rt_server_add_trace).
 * SIGINT, SIGTERM, SIGHUP and SIGUSR1 are held from here on (the server's thread inherits
 * that) until wait() takes one or close() restores the mask.
 */
static int v_serve(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_getfield(L, 1, "index");
    lua_getfield(L, 1, "trace");
    lua_getfield(L, 1, "assets");
    lua_getfield(L, 1, "title");
    lua_getfield(L, 1, "bind");
    lua_getfield(L, 1, "token");
    const char *index = luaL_checkstring(L, -6), *trace = lua_tostring(L, -5);
    const char *assets = luaL_checkstring(L, -4), *title = lua_tostring(L, -3);
    const char *bind = lua_tostring(L, -2), *token = lua_tostring(L, -1);
    int port = (int)rt_opt_u64(L, 1, "port", 0);
    lua_getfield(L, 1, "index2");
    lua_getfield(L, 1, "trace2");
    lua_getfield(L, 1, "title2");
    const char *index2 = lua_tostring(L, -3), *trace2 = lua_tostring(L, -2), *title2 = lua_tostring(L, -1);
    lserver *s = lua_newuserdatauv(L, sizeof *s, 0);
    memset(s, 0, sizeof *s);
    luaL_setmetatable(L, SERVER_T);
    rt_err err;
    rt_err_clear(&err);
    s->ix = rt_index_open(index, trace, &err);
    if (!s->ix)
        return push_fail3(L, &err);
    sigset_t set;
    wait_set(&set);
    pthread_sigmask(SIG_BLOCK, &set, &s->old);
    s->masked = 1;
    s->owner = pthread_self();
    if (index2) {
        s->ix2 = rt_index_open(index2, trace2, &err);
        if (!s->ix2) {
            lua_pushcfunction(L, s_close);
            lua_pushvalue(L, -2);
            lua_call(L, 1, 0);
            return push_fail3(L, &err);
        }
    }
    s->srv = rt_server_start(s->ix, title, assets, bind, port, token, &err);
    if (s->srv && s->ix2 && rt_server_add_trace(s->srv, s->ix2, title2 ? title2 : trace2))
        rt_err_set(&err, RT_ENOMEM, "out of memory");
    if (!s->srv || err.status) {
        lua_pushcfunction(L, s_close);
        lua_pushvalue(L, -2);
        lua_call(L, 1, 0);
        return push_fail3(L, &err);
    }
    return 1;
}

static int s_port(lua_State *L)
{
    lua_pushinteger(L, rt_server_port(check_server(L)->srv));
    return 1;
}

static int s_token(lua_State *L)
{
    lua_pushstring(L, rt_server_token(check_server(L)->srv));
    return 1;
}

/* wait() blocks until SIGINT, SIGTERM or SIGHUP (returns the signal's name) or, once
 * critpath_on() was called, until the page asks for a critical path ("critpath"). */
static int s_wait(lua_State *L)
{
    check_server(L);
    sigset_t set;
    wait_set(&set);
    int sig = 0;
    sigwait(&set, &sig);
    lua_pushstring(L, sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "critpath");
    return 1;
}

static void wake_owner(void *ud)
{
    pthread_kill(*(pthread_t *)ud, SIGUSR1);
}

/* critpath_on(): answer api/critpath by waking wait() (see rt_server_on_critpath). */
static int s_critpath_on(lua_State *L)
{
    lserver *s = check_server(L);
    rt_server_on_critpath(s->srv, wake_owner, &s->owner);
    return 0;
}

/* critpath_take() -> t0, t1 (ticks) of the window asked for, or nil when none. */
static int s_critpath_take(lua_State *L)
{
    int64_t t0, t1;
    if (!rt_server_critpath_take(check_server(L)->srv, &t0, &t1))
        return 0;
    lua_pushinteger(L, t0);
    lua_pushinteger(L, t1);
    return 2;
}

/* set_meta(json members): added to api/meta (rt_server_set_meta). */
static int s_set_meta(lua_State *L)
{
    if (rt_server_set_meta(check_server(L)->srv, luaL_checkstring(L, 2)))
        return luaL_error(L, "out of memory");
    return 0;
}

/* critpath_put(t0, t1, status, json): the answer for that window. */
static int s_critpath_put(lua_State *L)
{
    lserver *s = check_server(L);
    int64_t t0 = luaL_checkinteger(L, 2), t1 = luaL_checkinteger(L, 3);
    int st = (int)luaL_checkinteger(L, 4);
    size_t len;
    const char *body = luaL_checklstring(L, 5, &len);
    if (rt_server_critpath_put(s->srv, t0, t1, st, body, len))
        return luaL_error(L, "out of memory");
    return 0;
}

/* query(url, args) -> status, body, content type (the server's answer without a socket) */
static int s_query(lua_State *L)
{
    lserver *s = check_server(L);
    const char *url = luaL_checkstring(L, 2), *args = luaL_optstring(L, 3, "");
    char *body = NULL;
    size_t len = 0;
    const char *type = NULL;
    int st = rt_server_answer(s->srv, url, args, &body, &len, &type);
    lua_pushinteger(L, st);
    lua_pushlstring(L, body ? body : "", body ? len : 0);
    free(body);
    lua_pushstring(L, type ? type : "");
    return 3;
}

static const luaL_Reg methods[] = {
    {"port", s_port}, {"token", s_token}, {"wait", s_wait}, {"query", s_query}, {"close", s_close},
    {"critpath_on", s_critpath_on}, {"set_meta", s_set_meta}, {"critpath_take", s_critpath_take}, {"critpath_put", s_critpath_put}, {NULL, NULL}};

static const luaL_Reg funcs[] = {{"build", v_build}, {"check", v_check}, {"serve", v_serve}, {NULL, NULL}};

int rt_lopen_viewer(lua_State *L)
{
    rt_new_class(L, SERVER_T, methods, s_close);
    luaL_newlib(L, funcs);
    lua_pushinteger(L, RT_INDEX_VERSION);
    lua_setfield(L, -2, "index_version");
    return 1;
}
