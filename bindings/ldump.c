/*
 * ldump.c - Lua face of rt_tdump (core/msg/rt_tdump.h): `retrace dump`.
 *
 *   local d = core.dump.open(path [, format]) -- any message-passing trace | nil, message
 *   d:info() -> {format = "otf2", nprocs = 2}   (Pajé traces may add processors later)
 *   d:write{from =, to =, procs = {0, 2, ...}} -> lines written, events read
 *     (one line per event on standard output, the per-event work in C)
 *   d:close()
 * The reader's warnings go to standard error as "retrace: warning: ...".
 */
#include <math.h>
#include <stdlib.h>

#include "bind.h"
#include "rt_tdump.h"
#include "rt_tsource_open.h"

#define DUMP_T "retrace.Dump"

typedef struct {
    rt_tsource *src; /* NULL once closed */
} dump_box;

static dump_box *check_open(lua_State *L)
{
    dump_box *b = luaL_checkudata(L, 1, DUMP_T);
    if (!b->src)
        luaL_error(L, "dump: the trace is closed");
    return b;
}

static void warn_stderr(void *ud, const char *msg)
{
    (void)ud;
    fprintf(stderr, "retrace: warning: %s\n", msg);
}

/* open(path [, format]) -> dump | nil, message */
static int l_open(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    const char *format = luaL_optstring(L, 2, NULL);
    dump_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->src = NULL;
    luaL_setmetatable(L, DUMP_T);
    rt_err err;
    rt_err_clear(&err);
    b->src = rt_tsource_open(path, format, &err);
    if (!b->src)
        return rt_push_fail(L, &err);
    b->src->on_warning = warn_stderr;
    return 1;
}

/* d:info() -> {format, nprocs} */
static int d_info(lua_State *L)
{
    dump_box *b = check_open(L);
    lua_createtable(L, 0, 2);
    rt_set_str(L, "format", b->src->ops->format);
    rt_set_int(L, "nprocs", rt_tdefs_nprocs(b->src->defs));
    return 1;
}

/* d:write{from, to, procs} -> lines written, events read */
static int d_write(lua_State *L)
{
    dump_box *b = check_open(L);
    rt_tdump_opts o = {-INFINITY, INFINITY, NULL, 0};
    if (lua_istable(L, 2)) {
        if (lua_getfield(L, 2, "from") != LUA_TNIL)
            o.from = luaL_checknumber(L, -1);
        if (lua_getfield(L, 2, "to") != LUA_TNIL)
            o.to = luaL_checknumber(L, -1);
        lua_pop(L, 2);
        if (lua_getfield(L, 2, "procs") == LUA_TTABLE) {
            lua_Integer n = luaL_len(L, -1), hi = -1;
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, -1, i);
                lua_Integer p = luaL_checkinteger(L, -1);
                luaL_argcheck(L, p >= 0 && p < (1 << 24), 2, "procs: a processor id outside 0..2^24");
                if (p > hi)
                    hi = p;
                lua_pop(L, 1);
            }
            unsigned char *mask = lua_newuserdatauv(L, (size_t)hi + 1, 0); /* collected with the call */
            for (lua_Integer i = 0; i <= hi; i++)
                mask[i] = 0;
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, -2, i);
                mask[lua_tointeger(L, -1)] = 1;
                lua_pop(L, 1);
            }
            o.procs = mask;
            o.nprocs = (int)(hi + 1);
        }
    }
    uint64_t lines = 0, events = 0;
    rt_err err;
    rt_err_clear(&err);
    if (rt_tdump(b->src, &o, stdout, &lines, &events, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, (lua_Integer)lines);
    lua_pushinteger(L, (lua_Integer)events);
    return 2;
}

static int d_close(lua_State *L)
{
    dump_box *b = luaL_checkudata(L, 1, DUMP_T);
    rt_tsource_free(b->src);
    b->src = NULL;
    return 0;
}

static const luaL_Reg dump_methods[] = {
    {"info", d_info},
    {"write", d_write},
    {"close", d_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"open", l_open},
    {NULL, NULL},
};

int rt_lopen_dump(lua_State *L)
{
    rt_new_class(L, DUMP_T, dump_methods, d_close);
    luaL_newlib(L, funcs);
    return 1;
}
