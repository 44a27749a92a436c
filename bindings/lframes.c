/*
 * lframes.c - Lua face of the frame encoder pool and of running helper programs.
 *
 *   local enc = frames.encoder([threads [, queue [, level]]])
 *   enc:submit(canvas, path)     -- copies the image canvas's pixels; true or nil, message
 *   enc:wait()                   -- true, or nil and the first write error
 *   enc:stats()                  -- {threads, frames, per_thread = {...}, cpu = {...}}
 *   enc:close()
 *   frames.run({"ffmpeg", "-y", ...}) -> exit code, or nil, "ffmpeg: not found on PATH"
 *   frames.clock()               -- monotonic seconds
 *
 * lua/retrace/frames.lua builds the frame writer on these.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bind.h"
#include "lcanvas.h"
#include "rt_pngpool.h"
#include "rt_proc.h"

#define ENCODER_T "retrace.Encoder"

typedef struct {
    rt_pngpool *p; /* NULL once closed */
} encoder_box;

static encoder_box *check_encoder(lua_State *L, int i)
{
    encoder_box *b = luaL_checkudata(L, i, ENCODER_T);
    if (!b->p)
        luaL_argerror(L, i, "encoder is closed");
    return b;
}

static int encoder_close(lua_State *L)
{
    encoder_box *b = luaL_checkudata(L, 1, ENCODER_T);
    rt_pngpool_free(b->p);
    b->p = NULL;
    return 0;
}

static int l_encoder(lua_State *L)
{
    int threads = (int)luaL_optinteger(L, 1, 0);
    int queue = (int)luaL_optinteger(L, 2, 0);
    int level = (int)luaL_optinteger(L, 3, 1);
    encoder_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->p = NULL;
    luaL_setmetatable(L, ENCODER_T);
    rt_err err;
    if (rt_pngpool_new(threads, queue, level, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int encoder_submit(lua_State *L)
{
    encoder_box *b = check_encoder(L, 1);
    cairo_surface_t *s = cairo_get_target(rt_lcanvas_check_cairo(L, 2));
    const char *path = luaL_checkstring(L, 3);
    if (cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        cairo_image_surface_get_format(s) != CAIRO_FORMAT_ARGB32)
        return luaL_argerror(L, 2, "not an image canvas");
    cairo_surface_flush(s);
    rt_err err;
    if (rt_pngpool_submit(b->p, cairo_image_surface_get_data(s), cairo_image_surface_get_width(s),
                          cairo_image_surface_get_height(s), cairo_image_surface_get_stride(s),
                          path, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int encoder_wait(lua_State *L)
{
    encoder_box *b = check_encoder(L, 1);
    rt_err err;
    if (rt_pngpool_wait(b->p, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushboolean(L, 1);
    return 1;
}

static int encoder_stats(lua_State *L)
{
    encoder_box *b = check_encoder(L, 1);
    rt_pngpool_stats st;
    rt_pngpool_stats_get(b->p, &st);
    lua_createtable(L, 0, 4);
    rt_set_int(L, "threads", st.threads);
    rt_set_int(L, "frames", st.frames);
    lua_createtable(L, st.threads, 0);
    for (int i = 0; i < st.threads; i++) {
        lua_pushinteger(L, st.per_thread[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "per_thread");
    lua_createtable(L, st.threads, 0);
    for (int i = 0; i < st.threads; i++) {
        lua_pushnumber(L, st.cpu_seconds[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "cpu");
    return 1;
}

/*
 * run(argv) -> exit code (or 128 + signal), or nil, "NAME: not found on PATH"
 * (any other exec failure: "NAME: reason"). argv[1] is looked up on PATH by
 * execvp; no shell is involved. A close-on-exec pipe carries the child's errno
 * back when exec fails.
 */
static int l_run(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int n = (int)luaL_len(L, 1);
    if (n < 1)
        return luaL_argerror(L, 1, "empty argument vector");
    for (int i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        if (!lua_isstring(L, -1))
            return luaL_argerror(L, 1, "arguments must be strings");
        lua_pop(L, 1);
    }
    /* the vector lives in a userdata so a Lua error cannot leak it */
    const char **argv = lua_newuserdatauv(L, sizeof(char *) * (size_t)(n + 1), 0);
    for (int i = 1; i <= n; i++) {
        lua_geti(L, 1, i);
        argv[i - 1] = lua_tostring(L, -1); /* kept alive by the table */
        lua_pop(L, 1);
    }
    argv[n] = NULL;
    int code;
    rt_err err;
    rt_err_clear(&err);
    if (rt_run(argv, &code, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_pushinteger(L, code);
    return 1;
}

/* "retrace.Encoder: 2 threads, 48 frames written" */
static int encoder_tostring(lua_State *L)
{
    encoder_box *b = luaL_checkudata(L, 1, ENCODER_T);
    if (!b->p) {
        lua_pushstring(L, ENCODER_T " (closed)");
        return 1;
    }
    rt_pngpool_stats st;
    rt_pngpool_stats_get(b->p, &st);
    lua_pushfstring(L, ENCODER_T ": %d threads, %I frames written", st.threads, (lua_Integer)st.frames);
    return 1;
}

static const luaL_Reg encoder_methods[] = {
    {"__tostring", encoder_tostring},
    {"submit", encoder_submit}, {"wait", encoder_wait}, {"stats", encoder_stats},
    {"close", encoder_close},   {NULL, NULL},
};

/* clock() -> seconds on a monotonic clock (for timing renders and benchmarks) */
static int l_clock(lua_State *L)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    lua_pushnumber(L, (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"encoder", l_encoder},
    {"clock", l_clock},
    {"run", l_run},
    {NULL, NULL},
};

int rt_lopen_frames(lua_State *L)
{
    rt_new_class(L, ENCODER_T, encoder_methods, encoder_close);
    luaL_newlib(L, funcs);
    return 1;
}
