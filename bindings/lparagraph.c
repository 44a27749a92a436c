/*
 * lparagraph.c - Lua binding of core/msg/rt_density.h for the whole-window
 * pictures of `retrace paragraph --static` (require("retrace.core").paragraph).
 *
 *   paragraph.static_raster(path, opts) -> r | nil, message
 *     opts: cols, rows, procs (processor ids 0 .. procs-1), t0, t1, sel = {ids} (default all),
 *           max_lines (default 10000), levels (density levels, default 8), format,
 *           events = {per processor: its event count from the prescan} (idle at its own last event)
 *     r = {cols, rows, nsel, messages, tachyons, max_count, state = int32 string (rows x cols,
 *          row 0 first: 0 idle, 1 overhead, 2 busy, -1 empty), row_first = {..}, row_count = {..}
 *          (positions in sel, 0-based), lines = string of doubles (src, dst, send, recv per line)
 *          or nil, density = int32 string of levels (-1 none) or nil, busy/overhead/idle =
 *          float strings of the processor-seconds per cell (only with opts.times)}
 * The replay runs in C from end to end: no Lua call per record.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "rt_density.h"
#include "rt_tsource_open.h"

static int opt_int(lua_State *L, const char *k, int def)
{
    lua_getfield(L, 2, k);
    int v = lua_isnil(L, -1) ? def : (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return v;
}

static double opt_num(lua_State *L, const char *k)
{
    lua_getfield(L, 2, k);
    double v = luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* A list of integers at opts[k] into a malloc'ed array (NULL, 0 when absent). */
static int64_t *opt_list(lua_State *L, const char *k, int *n)
{
    *n = 0;
    if (lua_getfield(L, 2, k) != LUA_TTABLE) {
        lua_pop(L, 1);
        return NULL;
    }
    int len = (int)lua_rawlen(L, -1);
    int64_t *v = malloc((size_t)(len > 0 ? len : 1) * sizeof *v);
    if (!v)
        luaL_error(L, "static_raster: out of memory");
    for (int i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        v[i - 1] = lua_tointeger(L, -1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    *n = len;
    return v;
}

static int l_static_raster(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rt_density_opts o = {0};
    o.cols = opt_int(L, "cols", 0);
    o.rows = opt_int(L, "rows", 0);
    o.nprocs = opt_int(L, "procs", 0);
    o.t0 = opt_num(L, "t0");
    o.t1 = opt_num(L, "t1");
    o.max_lines = opt_int(L, "max_lines", 10000);
    int levels = opt_int(L, "levels", 8);
    int times = rt_opt_bool(L, 2, "times", 0);
    lua_getfield(L, 2, "format");
    const char *format = luaL_optstring(L, -1, NULL);
    lua_pop(L, 1);
    int nsel = 0, nev = 0;
    int64_t *sel64 = opt_list(L, "sel", &nsel);
    int64_t *ev = opt_list(L, "events", &nev);
    int *sel = NULL;
    if (nsel > 0) {
        sel = malloc((size_t)nsel * sizeof *sel);
        for (int i = 0; sel && i < nsel; i++)
            sel[i] = (int)sel64[i];
    }
    free(sel64);
    o.nsel = nsel;
    o.sel = sel;
    rt_err err;
    rt_density *d = NULL;
    rt_tsource *src = NULL;
    rt_replay *rp = NULL;
    int rc = (nsel > 0 && !sel) ? rt_err_set(&err, RT_ENOMEM, "static_raster: out of memory")
                                : rt_density_new(&o, &d, &err);
    free(sel);
    if (rc == RT_OK && !(src = rt_tsource_open(path, format, &err)))
        rc = err.status;
    if (rc == RT_OK) {
        rt_replay_opts ro;
        memset(&ro, 0, sizeof ro);
        rt_density_attach(d, &ro);
        ro.proc_events = ev;
        ro.nproc_events = ev ? nev : 0;
        if (!(rp = rt_replay_new(src, &ro, &err)))
            rc = err.status;
    }
    free(ev);
    if (rc == RT_OK)
        rc = rt_replay_run(rp, &err);
    rt_replay_free(rp);
    rt_tsource_free(src);
    if (rc != RT_OK) {
        rt_density_free(d);
        return rt_push_fail(L, &err);
    }
    rt_density_finish(d);
    const rt_timeline *tl = rt_density_timeline(d);
    int W = rt_timeline_cols(tl), R = rt_timeline_rows(tl);
    size_t cells = (size_t)W * R;
    int32_t *buf = malloc(cells * sizeof *buf);
    if (!buf) {
        rt_density_free(d);
        return luaL_error(L, "static_raster: out of memory");
    }
    lua_createtable(L, 0, 16);
    rt_set_int(L, "cols", W);
    rt_set_int(L, "rows", R);
    rt_set_int(L, "nsel", rt_density_nsel(d));
    rt_set_int(L, "messages", rt_density_messages(d));
    rt_set_int(L, "tachyons", rt_density_tachyons(d));
    rt_set_int(L, "max_count", rt_density_max(d));
    rt_density_fill(d, 0, 0, buf);
    lua_pushlstring(L, (const char *)buf, cells * sizeof *buf);
    lua_setfield(L, -2, "state");
    int nl = 0;
    const rt_density_line *ln = rt_density_lines(d, &nl);
    if (ln) {
        luaL_Buffer b;
        double *p = (double *)luaL_buffinitsize(L, &b, (size_t)nl * 4 * sizeof(double) + 1);
        for (int i = 0; i < nl; i++) {
            p[4 * i] = ln[i].src;
            p[4 * i + 1] = ln[i].dst;
            p[4 * i + 2] = ln[i].send;
            p[4 * i + 3] = ln[i].recv;
        }
        luaL_pushresultsize(&b, (size_t)nl * 4 * sizeof(double));
        lua_setfield(L, -2, "lines");
    } else {
        rt_density_fill(d, 1, levels, buf);
        lua_pushlstring(L, (const char *)buf, cells * sizeof *buf);
        lua_setfield(L, -2, "density");
    }
    free(buf);
    if (times) {
        static const char *names[3] = {"idle", "overhead", "busy"};
        float *f = malloc(cells * sizeof *f);
        for (int s = 0; f && s < 3; s++) {
            for (int r = 0; r < R; r++)
                for (int c = 0; c < W; c++)
                    f[(size_t)r * W + c] = (float)rt_timeline_state_time(tl, c, r, s);
            lua_pushlstring(L, (const char *)f, cells * sizeof *f);
            lua_setfield(L, -2, names[s]);
        }
        free(f);
    }
    lua_createtable(L, R, 0);
    lua_createtable(L, R, 0);
    for (int r = 0; r < R; r++) {
        int count = 0;
        int first = rt_timeline_row_procs(tl, r, &count);
        lua_pushinteger(L, first);
        lua_rawseti(L, -3, r + 1);
        lua_pushinteger(L, count);
        lua_rawseti(L, -2, r + 1);
    }
    lua_setfield(L, -3, "row_count");
    lua_setfield(L, -2, "row_first");
    rt_density_free(d);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"static_raster", l_static_raster},
    {NULL, NULL},
};

int rt_lopen_paragraph(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
