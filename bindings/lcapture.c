/*
 * lcapture.c - Lua face of core/capture: running a program under valgrind
 * lackey with the trace streamed into RTMB.
 *
 *   capture.run{ argv = {...}, env = {"N=V", ...}, rtmb =, alloc =, fdlog =, text = }
 *     -> { refs, ifetches, records, allocs, bytes_in, exit_code, signal, interrupted }
 *     or nil, message, status
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "rt_capture.h"

/* t[key] as a NULL-terminated array of strings (kept alive by t) */
static const char **string_list(lua_State *L, int t, const char *key, int required)
{
    lua_getfield(L, t, key);
    if (lua_isnil(L, -1) && !required) {
        lua_pop(L, 1);
        return NULL;
    }
    luaL_argcheck(L, lua_istable(L, -1), 1, key);
    lua_Integer n = luaL_len(L, -1);
    const char **v = lua_newuserdatauv(L, (size_t)(n + 1) * sizeof *v, 0);
    for (lua_Integer i = 1; i <= n; i++) {
        lua_geti(L, -2, i);
        v[i - 1] = luaL_checkstring(L, -1); /* the list table, left on the stack, keeps it */
        lua_pop(L, 1);
    }
    v[n] = NULL;
    return v;
}

static const char *opt_string(lua_State *L, int t, const char *key)
{
    lua_getfield(L, t, key);
    const char *s = lua_isnil(L, -1) ? NULL : luaL_checkstring(L, -1);
    return s; /* left on the stack: kept alive */
}

static int l_run(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_capture_opts o;
    memset(&o, 0, sizeof o);
    o.argv = string_list(L, 1, "argv", 1);
    o.env = string_list(L, 1, "env", 0);
    o.rtmb = opt_string(L, 1, "rtmb");
    o.alloc = opt_string(L, 1, "alloc");
    o.fdlog = opt_string(L, 1, "fdlog");
    o.text = opt_string(L, 1, "text");
    luaL_argcheck(L, o.rtmb && o.alloc, 1, "rtmb and alloc are required");
    rt_capture_result r;
    rt_err err;
    rt_err_clear(&err);
    int st = rt_capture_run(&o, &r, &err);
    if (st != RT_OK) {
        lua_pushnil(L);
        lua_pushstring(L, err.msg);
        lua_pushinteger(L, st);
        return 3;
    }
    lua_createtable(L, 0, 8);
    lua_pushinteger(L, (lua_Integer)r.refs);
    lua_setfield(L, -2, "refs");
    lua_pushinteger(L, (lua_Integer)r.ifetches);
    lua_setfield(L, -2, "ifetches");
    lua_pushinteger(L, (lua_Integer)r.records);
    lua_setfield(L, -2, "records");
    lua_pushinteger(L, (lua_Integer)r.allocs);
    lua_setfield(L, -2, "allocs");
    lua_pushinteger(L, (lua_Integer)r.bytes_in);
    lua_setfield(L, -2, "bytes_in");
    lua_pushinteger(L, r.exit_code);
    lua_setfield(L, -2, "exit_code");
    lua_pushinteger(L, r.signal);
    lua_setfield(L, -2, "signal");
    lua_pushboolean(L, r.interrupted);
    lua_setfield(L, -2, "interrupted");
    return 1;
}

static const luaL_Reg funcs[] = {
    {"run", l_run},
    {NULL, NULL},
};

int rt_lopen_capture(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
