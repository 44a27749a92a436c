/* bind.c - shared binding helpers and the retrace.core module (see bind.h). */
#include "bind.h"

#include <stdio.h>

#include "rt_bindings.h" /* generated: RT_BINDINGS(X) lists every bindings/lNAME.c */

int rt_push_fail(lua_State *L, const rt_err *err)
{
    if (err && err->status == RT_EINTR)
        return luaL_error(L, "interrupted!"); /* Ctrl-C in a C pass: the host's own interrupt */
    lua_pushnil(L);
    lua_pushstring(L, err && err->msg[0] ? err->msg : rt_strerror(err ? err->status : RT_EINVAL));
    return 2;
}

int rt_msghandler(lua_State *L)
{
    const char *msg = lua_tostring(L, 1);
    if (msg == NULL) {
        /* retrace.cli's {exit=N, message=S} travels unchanged to the host */
        if (lua_type(L, 1) == LUA_TTABLE && lua_getfield(L, 1, "exit") != LUA_TNIL) {
            lua_pop(L, 1);
            return 1;
        }
        /* any other error object: where it was raised (level 2: the function that
         * called error) and what it is, so the message names a file and line */
        luaL_where(L, 2);
        const char *where = lua_tostring(L, -1);
        const char *what = luaL_tolstring(L, 1, NULL);
        msg = lua_pushfstring(L, "%s%s (an error object, not a message)", where, what);
    }
    luaL_traceback(L, L, msg, 1);
    return 1;
}

int rt_docall(lua_State *L, int nargs, int nresults)
{
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, rt_msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return status;
}

/* The __tostring of a class that gives none: its name ("retrace.Session"). */
static int default_tostring(lua_State *L)
{
    if (luaL_getmetafield(L, 1, "__name") != LUA_TSTRING)
        lua_pushstring(L, "retrace object");
    return 1;
}

void rt_new_class(lua_State *L, const char *tname, const luaL_Reg *methods,
                  lua_CFunction closefn)
{
    luaL_newmetatable(L, tname);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    /* a "__tostring" entry of the methods belongs on the metatable, not in __index */
    if (lua_getfield(L, -1, "__tostring") != LUA_TFUNCTION) {
        lua_pop(L, 1);
        lua_pushcfunction(L, default_tostring);
    }
    lua_setfield(L, -3, "__tostring");
    lua_pushnil(L);
    lua_setfield(L, -2, "__tostring");
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, closefn);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, closefn);
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
}

const char *rt_size_text(char *buf, size_t n, uint64_t v)
{
    static const char *const units[] = {" ", " Ki", " Mi", " Gi"};
    int u = 0;
    while (u < 3 && v >= 1024 && v % 1024 == 0) {
        v /= 1024;
        u++;
    }
    snprintf(buf, n, "%llu%s", (unsigned long long)v, units[u]);
    return buf;
}

int rt_opt_bool(lua_State *L, int t, const char *k, int def)
{
    int v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL)
        v = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return v;
}

uint64_t rt_opt_u64(lua_State *L, int t, const char *k, uint64_t def)
{
    lua_getfield(L, t, k);
    uint64_t v = def;
    if (!lua_isnil(L, -1)) {
        int ok;
        lua_Integer i = lua_tointegerx(L, -1, &ok);
        if (!ok || i < 0)
            luaL_error(L, "%s: expected a non-negative integer", k);
        v = (uint64_t)i;
    }
    lua_pop(L, 1);
    return v;
}

int rt_on_progress(void *ud, uint64_t done, uint64_t total)
{
    rt_progress_ud *p = ud;
    if (p->failed)
        return 1;
    lua_pushvalue(p->L, p->fn);
    lua_pushinteger(p->L, (lua_Integer)done);
    lua_pushinteger(p->L, (lua_Integer)total);
    if (rt_docall(p->L, 2, 0) != LUA_OK) {
        p->ref = luaL_ref(p->L, LUA_REGISTRYINDEX); /* pops the error object */
        p->failed = 1;
        return 1;
    }
    return 0;
}

void rt_on_progress_void(void *ud, uint64_t done, uint64_t total)
{
    (void)rt_on_progress(ud, done, total);
}

void rt_progress_check(rt_progress_ud *p)
{
    if (!p->failed)
        return;
    lua_rawgeti(p->L, LUA_REGISTRYINDEX, p->ref);
    luaL_unref(p->L, LUA_REGISTRYINDEX, p->ref);
    p->failed = 0;
    lua_error(p->L);
}

#define RT_X_DECL(name) int rt_lopen_##name(lua_State *L);
RT_BINDINGS(RT_X_DECL)
#undef RT_X_DECL

int luaopen_retrace_core(lua_State *L)
{
    lua_newtable(L);
    lua_pushliteral(L, RETRACE_VERSION);
    lua_setfield(L, -2, "version");
#define RT_X_OPEN(name)           \
    rt_lopen_##name(L);           \
    lua_setfield(L, -2, #name);
    RT_BINDINGS(RT_X_OPEN)
#undef RT_X_OPEN
    return 1;
}
