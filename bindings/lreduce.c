/*
 * lreduce.c - Lua face of core/util/rt_reduce: per-pixel-column reduction.
 *
 *   local reduce = require("retrace.core").reduce
 *   local r = reduce.new(w, x0, x1 [, step])    -- retrace.Reducer
 *   r:add(xs, ys)          -- binary strings of native doubles (string.pack("d", ...))
 *   r:add_pack(pack [, xfield [, yfield]])      -- a retrace.Pack (canvas.pack), fields 1-based (1, 2)
 *   r:add_uniform(x_start, dx, ys)              -- ys a string of doubles
 *   r:finish(x_end)        -- step series: close the last step
 *   r:columns() -> {w =, x0 =, x1 =, step =, outside =, count = {...}, min = {...},
 *                   max = {...}, mean = {...}, first = {...}, last = {...}}
 *   (an empty column has count 0 and 0 in the other fields)
 * Long series cross as strings or packs, never as Lua tables of numbers.
 */
#include <math.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lreduce.h"
#include "rt_grid.h"
#include "rt_reduce.h"

#define REDUCER_T "retrace.Reducer"

typedef struct {
    rt_reduce *r; /* NULL once closed */
} reducer_box;

static reducer_box *check_reducer(lua_State *L, int i)
{
    reducer_box *b = luaL_checkudata(L, i, REDUCER_T);
    if (!b->r)
        luaL_argerror(L, i, "reducer is closed");
    return b;
}

static int reducer_close(lua_State *L)
{
    reducer_box *b = luaL_checkudata(L, 1, REDUCER_T);
    rt_reduce_free(b->r);
    b->r = NULL;
    return 0;
}

rt_reduce *rt_lreduce_push_new(lua_State *L, lua_Integer w, double x0, double x1, int step)
{
    if (w < 1 || w > 1000000)
        luaL_error(L, "reduce: columns must be 1..1000000 (got %d)", (int)w);
    reducer_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->r = NULL;
    luaL_setmetatable(L, REDUCER_T);
    rt_err err;
    if (rt_reduce_new((size_t)w, x0, x1, step, &b->r, &err) != RT_OK)
        luaL_error(L, "%s", err.msg);
    return b->r;
}

static int l_new(lua_State *L)
{
    lua_Integer w = luaL_checkinteger(L, 1);
    double x0 = luaL_checknumber(L, 2), x1 = luaL_checknumber(L, 3);
    rt_lreduce_push_new(L, w, x0, x1, lua_toboolean(L, 4));
    return 1;
}

/* A string argument holding whole doubles; returns the pointer and the count. */
static const double *check_doubles(lua_State *L, int i, size_t *n)
{
    size_t len;
    const char *s = luaL_checklstring(L, i, &len);
    if (len % sizeof(double) != 0)
        luaL_argerror(L, i, "a string of packed doubles (length a multiple of 8)");
    *n = len / sizeof(double);
    return (const double *)(const void *)s;
}

/* Lua strings are not guaranteed 8-aligned for doubles: copy through a small buffer. */
#define CHUNK 4096

static int r_add(lua_State *L)
{
    reducer_box *b = check_reducer(L, 1);
    size_t nx, ny;
    const char *xs = (const char *)check_doubles(L, 2, &nx);
    const char *ys = (const char *)check_doubles(L, 3, &ny);
    if (nx != ny)
        return luaL_error(L, "reduce: %d x values but %d y values", (int)nx, (int)ny);
    double xb[CHUNK], yb[CHUNK];
    rt_err err;
    for (size_t k = 0; k < nx; k += CHUNK) {
        size_t m = nx - k < CHUNK ? nx - k : CHUNK;
        memcpy(xb, xs + k * sizeof(double), m * sizeof(double));
        memcpy(yb, ys + k * sizeof(double), m * sizeof(double));
        if (rt_reduce_add(b->r, xb, 1, yb, 1, m, &err) != RT_OK)
            return luaL_error(L, "%s", err.msg);
    }
    return 0;
}

static int r_add_pack(lua_State *L)
{
    reducer_box *b = check_reducer(L, 1);
    rt_pack *p = rt_lcanvas_check_pack(L, 2);
    lua_Integer xf = luaL_optinteger(L, 3, 1), yf = luaL_optinteger(L, 4, 2);
    luaL_argcheck(L, xf >= 1 && xf <= p->stride, 3, "x field outside the item");
    luaL_argcheck(L, yf >= 1 && yf <= p->stride, 4, "y field outside the item");
    rt_err err;
    if (p->n > 0 && rt_reduce_add(b->r, p->v + xf - 1, (size_t)p->stride, p->v + yf - 1,
                                  (size_t)p->stride, p->n, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static int r_add_uniform(lua_State *L)
{
    reducer_box *b = check_reducer(L, 1);
    double x = luaL_checknumber(L, 2), dx = luaL_checknumber(L, 3);
    size_t ny;
    const char *ys = (const char *)check_doubles(L, 4, &ny);
    double yb[CHUNK];
    rt_err err;
    for (size_t k = 0; k < ny; k += CHUNK) {
        size_t m = ny - k < CHUNK ? ny - k : CHUNK;
        memcpy(yb, ys + k * sizeof(double), m * sizeof(double));
        if (rt_reduce_add_uniform(b->r, x + (double)k * dx, dx, yb, 1, m, &err) != RT_OK)
            return luaL_error(L, "%s", err.msg);
    }
    return 0;
}

static int r_finish(lua_State *L)
{
    reducer_box *b = check_reducer(L, 1);
    rt_err err;
    if (rt_reduce_finish(b->r, luaL_checknumber(L, 2), &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 0;
}

static void push_column(lua_State *L, const char *name, const rt_reduce *r, const double *v)
{
    lua_createtable(L, (int)r->w, 0);
    for (size_t i = 0; i < r->w; i++) {
        lua_pushnumber(L, r->count[i] ? v[i] : 0.0);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, name);
}

/* Push the columns of r as a table (shared with bindings that reduce engine data). */
int rt_push_reduced(lua_State *L, const rt_reduce *r)
{
    lua_createtable(L, 0, 12);
    rt_set_int(L, "w", (lua_Integer)r->w);
    rt_set_num(L, "x0", r->x0);
    rt_set_num(L, "x1", r->x1);
    rt_set_bool(L, "step", r->step);
    rt_set_int(L, "outside", (lua_Integer)r->outside);
    lua_createtable(L, (int)r->w, 0);
    for (size_t i = 0; i < r->w; i++) {
        lua_pushinteger(L, (lua_Integer)r->count[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "count");
    push_column(L, "min", r, r->min);
    push_column(L, "max", r, r->max);
    push_column(L, "first", r, r->first);
    push_column(L, "last", r, r->last);
    lua_createtable(L, (int)r->w, 0);
    for (size_t i = 0; i < r->w; i++) {
        double m = rt_reduce_mean(r, i);
        lua_pushnumber(L, isnan(m) ? 0.0 : m);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "mean");
    return 1;
}

static int r_columns(lua_State *L)
{
    return rt_push_reduced(L, check_reducer(L, 1)->r);
}

static int r_tostring(lua_State *L)
{
    reducer_box *b = luaL_checkudata(L, 1, REDUCER_T);
    if (!b->r)
        lua_pushliteral(L, "retrace.Reducer (closed)");
    else
        lua_pushfstring(L, "retrace.Reducer (%d columns over [%f, %f]%s)", (int)b->r->w, b->r->x0,
                        b->r->x1, b->r->step ? ", steps" : "");
    return 1;
}

static const luaL_Reg reducer_methods[] = {
    {"add", r_add},       {"add_pack", r_add_pack}, {"add_uniform", r_add_uniform},
    {"finish", r_finish}, {"columns", r_columns},   {"close", reducer_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {NULL, NULL},
};

int rt_lopen_reduce(lua_State *L)
{
    rt_new_class(L, REDUCER_T, reducer_methods, reducer_close);
    luaL_getmetatable(L, REDUCER_T);
    lua_pushcfunction(L, r_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
    luaL_newlib(L, funcs);
    return 1;
}
