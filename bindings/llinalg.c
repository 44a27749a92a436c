/*
 * llinalg.c - Lua face of core/util/rt_linalg (GSL numerics).
 *
 *   linalg.eigen_sym(m)           -> values, vectors   (m: d x d list of rows;
 *                                    largest value first; vectors[c][j])
 *   linalg.fit_linear(xs, ys)     -> {a=, b=, c00=, c01=, c11=, sumsq=, n=} | nil, message
 *   linalg.fit_at(fit, x)         -> y, standard error of the fitted mean at x
 *   linalg.t_quantile(p, dof)     -> Student's t quantile
 */
#include <lauxlib.h>
#include <lua.h>
#include <stdlib.h>

#include "bind.h"
#include "rt_linalg.h"

/* a scratch block owned by a userdata on the stack (freed by the GC) */
static double *scratch(lua_State *L, size_t n)
{
    return lua_newuserdatauv(L, (n ? n : 1) * sizeof(double), 0);
}

static double *numbers(lua_State *L, int i, size_t *n)
{
    luaL_checktype(L, i, LUA_TTABLE);
    *n = (size_t)luaL_len(L, i);
    double *a = scratch(L, *n);
    for (size_t k = 0; k < *n; k++) {
        lua_geti(L, i, (lua_Integer)k + 1);
        int ok;
        a[k] = lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_argerror(L, i, "a list of numbers");
        lua_pop(L, 1);
    }
    return a;
}

static int l_eigen_sym(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    size_t d = (size_t)luaL_len(L, 1);
    if (d == 0 || d > 4096)
        return luaL_argerror(L, 1, "a square matrix of 1 to 4096 rows");
    double *a = scratch(L, d * d), *vals = scratch(L, d), *vecs = scratch(L, d * d);
    for (size_t i = 0; i < d; i++) {
        lua_geti(L, 1, (lua_Integer)i + 1);
        if (!lua_istable(L, -1) || (size_t)luaL_len(L, -1) != d)
            return luaL_argerror(L, 1, "a square matrix (every row as long as the matrix)");
        for (size_t j = 0; j < d; j++) {
            lua_geti(L, -1, (lua_Integer)j + 1);
            a[i * d + j] = lua_tonumber(L, -1);
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    rt_err err;
    if (rt_eigen_sym(a, d, vals, vecs, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, (int)d, 0);
    for (size_t c = 0; c < d; c++) {
        lua_pushnumber(L, vals[c]);
        lua_rawseti(L, -2, (lua_Integer)c + 1);
    }
    lua_createtable(L, (int)d, 0);
    for (size_t c = 0; c < d; c++) {
        lua_createtable(L, (int)d, 0);
        for (size_t j = 0; j < d; j++) {
            lua_pushnumber(L, vecs[c * d + j]);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_rawseti(L, -2, (lua_Integer)c + 1);
    }
    return 2;
}

static int l_fit_linear(lua_State *L)
{
    size_t n, ny;
    double *x = numbers(L, 1, &n), *y = numbers(L, 2, &ny);
    if (n != ny)
        return luaL_argerror(L, 2, "as many ys as xs");
    rt_linfit f;
    rt_err err;
    if (rt_fit_linear(x, y, n, &f, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 7);
    rt_set_num(L, "a", f.a);
    rt_set_num(L, "b", f.b);
    rt_set_num(L, "c00", f.c00);
    rt_set_num(L, "c01", f.c01);
    rt_set_num(L, "c11", f.c11);
    rt_set_num(L, "sumsq", f.sumsq);
    rt_set_int(L, "n", (lua_Integer)f.n);
    return 1;
}

static double field(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    double v = luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

static int l_fit_at(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    rt_linfit f = {field(L, 1, "a"), field(L, 1, "b"), field(L, 1, "c00"), field(L, 1, "c01"),
                   field(L, 1, "c11"), 0, 0};
    double y, se;
    rt_fit_linear_at(&f, luaL_checknumber(L, 2), &y, &se);
    lua_pushnumber(L, y);
    lua_pushnumber(L, se);
    return 2;
}

static int l_t_quantile(lua_State *L)
{
    double p = luaL_checknumber(L, 1), dof = luaL_checknumber(L, 2);
    luaL_argcheck(L, p > 0 && p < 1, 1, "a probability strictly between 0 and 1");
    luaL_argcheck(L, dof > 0, 2, "positive degrees of freedom");
    lua_pushnumber(L, rt_t_quantile(p, dof));
    return 1;
}

int rt_lopen_linalg(lua_State *L)
{
    static const luaL_Reg fns[] = {
        {"eigen_sym", l_eigen_sym},
        {"fit_linear", l_fit_linear},
        {"fit_at", l_fit_at},
        {"t_quantile", l_t_quantile},
        {NULL, NULL},
    };
    luaL_newlib(L, fns);
    return 1;
}
