/*
 * lutil.c - Lua face of core/util: the streaming line reader.
 *
 *   for n, line in util.lines(path) do ... end   -- closes on break
 *   util.count_lines(path) -> lines, bytes        -- or nil, message
 *   util.isatty(fd) -> boolean
 */
#include <string.h>
#include <unistd.h>

#include "bind.h"
#include "rt_lines.h"

#define LINES_T "retrace.Lines"

typedef struct {
    rt_lines *r; /* NULL once closed */
} lines_box;

static lines_box *check_lines(lua_State *L, int i)
{
    lines_box *b = luaL_checkudata(L, i, LINES_T);
    if (!b->r)
        luaL_argerror(L, i, "line reader is closed");
    return b;
}

static int lines_close(lua_State *L)
{
    lines_box *b = luaL_checkudata(L, 1, LINES_T);
    rt_lines_free(b->r);
    b->r = NULL;
    return 0;
}

/* iterator step: (box, _) -> lineno, line | nil */
static int lines_step(lua_State *L)
{
    lines_box *b = check_lines(L, 1);
    const char *line;
    size_t len;
    rt_err err;
    int st = rt_lines_next(b->r, &line, &len, &err);
    if (st == RT_EEOF)
        return 0;
    if (st != RT_OK)
        return luaL_error(L, "%s", err.msg);
    lua_pushinteger(L, (lua_Integer)rt_lines_lineno(b->r));
    lua_pushlstring(L, line, len);
    return 2;
}

static int l_lines(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    lines_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->r = NULL; /* safe empty state before allocating */
    luaL_setmetatable(L, LINES_T);
    rt_err err;
    b->r = rt_lines_open(path, &err);
    if (!b->r)
        return luaL_error(L, "%s", err.msg);
    lua_pushcfunction(L, lines_step);
    lua_insert(L, -2);      /* step, box */
    lua_pushnil(L);         /* control */
    lua_pushvalue(L, -2);   /* closing value */
    return 4;
}

static int l_count_lines(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    rt_err err;
    rt_lines *r = rt_lines_open(path, &err);
    if (!r)
        return rt_push_fail(L, &err);
    const char *line;
    size_t len;
    int st;
    while ((st = rt_lines_next(r, &line, &len, &err)) == RT_OK)
        ;
    lua_Integer n = (lua_Integer)rt_lines_lineno(r);
    lua_Integer bytes = (lua_Integer)rt_lines_offset(r);
    rt_lines_free(r);
    if (st != RT_EEOF)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, n);
    lua_pushinteger(L, bytes);
    return 2;
}

/* isatty(fd) -> boolean */
static int l_isatty(lua_State *L)
{
    lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
    return 1;
}

/* "retrace.Lines: trace.din, line 12" */
static int lines_tostring(lua_State *L)
{
    lines_box *b = luaL_checkudata(L, 1, LINES_T);
    if (!b->r) {
        lua_pushstring(L, LINES_T " (closed)");
        return 1;
    }
    lua_pushfstring(L, LINES_T ": %s, line %I", rt_lines_name(b->r), (lua_Integer)rt_lines_lineno(b->r));
    return 1;
}

static const luaL_Reg lines_methods[] = {
    {"__tostring", lines_tostring},
    {"close", lines_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"lines", l_lines},
    {"count_lines", l_count_lines},
    {"isatty", l_isatty},
    {NULL, NULL},
};

int rt_lopen_util(lua_State *L)
{
    rt_new_class(L, LINES_T, lines_methods, lines_close);
    luaL_newlib(L, funcs);
    return 1;
}
