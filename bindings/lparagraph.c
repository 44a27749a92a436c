/*
 * lparagraph.c - Lua binding of core/msg/rt_density.h for the whole-window
 * pictures of `retrace paragraph --static` (require("retrace.core").paragraph).
 *
 *   paragraph.static_raster(path, opts) -> r | nil, message
 *     opts: cols, rows, procs (processor ids 0 .. procs-1), t0, t1, sel = {ids} (default all),
 *           max_lines (default 10000), levels (density levels, default 8), format,
 *           events = {per processor: its event count from the prescan} (idle at its own last event),
 *           mix = q (state: the mix of states in q-ths, nb * (q + 1) + no, instead of the dominant one),
 *           split = true (collective under mpirun: each rank draws its own processors, p % size == rank,
 *           and the messages they receive; rank 0's r is the whole picture, the others' partial;
 *           nil, false on a rank whose part was drawn when another rank's failed)
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
#include "rt_par.h"
#include "rt_par_source.h"
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
    int mix = opt_int(L, "mix", 0);
    if (rt_opt_bool(L, 2, "split", 0) && rt_par_size() > 1) {
        o.part = rt_par_rank();
        o.parts = rt_par_size();
    }
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
    /* split: this rank's part of the trace where a distributed source reads it (collective);
     * opened first, as the source sets which processors are this rank's (rt_par_route.h) */
    int rc = (nsel > 0 && !sel) ? rt_err_set(&err, RT_ENOMEM, "static_raster: out of memory") : RT_OK;
    if (rc == RT_OK && !(src = o.parts > 1 ? rt_par_source_open(path, format, &err)
                                           : rt_tsource_open(path, format, &err)))
        rc = err.status;
    if (rc == RT_OK)
        rc = rt_density_new(&o, &d, &err);
    free(sel);
    if (rc == RT_OK) {
        rt_replay_opts ro;
        memset(&ro, 0, sizeof ro);
        rt_density_attach(d, &ro);
        if (rt_par_source_is_par(src)) {
            ro.own_rank = rt_par_rank();
            ro.own_size = rt_par_size();
        }
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
    if (o.parts > 1 && rt_par_agree(rc != RT_OK) && (rc == RT_OK || rt_par_source_peer_failed(&err))) {
        /* another rank failed: it says why */
        rt_density_free(d);
        lua_pushnil(L);
        lua_pushboolean(L, 0);
        return 2;
    }
    if (rc == RT_OK) {
        rt_density_finish(d);
        rc = rt_density_reduce(d, &err);
    }
    if (rc != RT_OK) {
        rt_density_free(d);
        return rt_push_fail(L, &err);
    }
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
    rt_density_fill(d, mix > 0 ? 2 : 0, mix, buf);
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
        if (!ln) {
            lua_pushlstring(L, (const char *)rt_density_counts(d), cells * sizeof(uint32_t));
            lua_setfield(L, -2, "counts");
        }
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

/* A field of table 1 that must be a string of n bytes. */
static const void *field_bytes(lua_State *L, const char *k, size_t n)
{
    lua_getfield(L, 1, k);
    size_t len = 0;
    const char *s = lua_tolstring(L, -1, &len);
    if (!s || len != n)
        luaL_error(L, "pyramid: field %s: %d bytes expected", k, (int)n);
    lua_pop(L, 1);
    return s;
}

/*
 * paragraph.pyramid(r [, min_cols = 16, levels = 8]) -> {{cols =, states = bytes, density = bytes?}, ...}
 * from a static_raster made with times = true: level 1 the raster, each next one half its columns
 * (time summed over column pairs), down to min_cols. states: 0 empty, 1 idle, 2 overhead, 3 busy;
 * density (when the messages were folded): 0 none, 1 .. levels.
 */
static int l_pyramid(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int min_cols = (int)luaL_optinteger(L, 2, 16), levels = (int)luaL_optinteger(L, 3, 8);
    lua_getfield(L, 1, "cols");
    lua_getfield(L, 1, "rows");
    int W = (int)luaL_checkinteger(L, -2), R = (int)luaL_checkinteger(L, -1);
    lua_pop(L, 2);
    size_t cells = (size_t)W * R;
    const float *src[3] = {field_bytes(L, "idle", cells * 4), field_bytes(L, "overhead", cells * 4),
                           field_bytes(L, "busy", cells * 4)};
    lua_getfield(L, 1, "counts");
    const uint32_t *cnt = lua_isnil(L, -1) ? NULL : field_bytes(L, "counts", cells * 4);
    lua_pop(L, 1);
    float *cur[3], *nxt[3];
    uint32_t *ccur = NULL, *cnxt = NULL;
    uint8_t *bytes = malloc(cells);
    int ok = bytes != NULL;
    for (int k = 0; k < 3; k++) {
        cur[k] = malloc(cells * sizeof(float));
        nxt[k] = malloc(cells * sizeof(float));
        ok = ok && cur[k] && nxt[k];
        if (cur[k])
            memcpy(cur[k], src[k], cells * sizeof(float));
    }
    if (cnt) {
        ccur = malloc(cells * sizeof *ccur);
        cnxt = malloc(cells * sizeof *cnxt);
        ok = ok && ccur && cnxt;
        if (ccur)
            memcpy(ccur, cnt, cells * sizeof *ccur);
    }
    if (!ok) {
        for (int k = 0; k < 3; k++)
            free(cur[k]), free(nxt[k]);
        free(ccur), free(cnxt), free(bytes);
        return luaL_error(L, "pyramid: out of memory");
    }
    lua_newtable(L);
    int n = 0, w = W;
    for (;;) {
        size_t nc = (size_t)w * R;
        lua_createtable(L, 0, 3);
        rt_set_int(L, "cols", w);
        rt_density_dominant3(cur[0], cur[1], cur[2], nc, bytes);
        lua_pushlstring(L, (const char *)bytes, nc);
        lua_setfield(L, -2, "states");
        if (ccur) {
            rt_density_levels(ccur, nc, levels, bytes);
            lua_pushlstring(L, (const char *)bytes, nc);
            lua_setfield(L, -2, "density");
        }
        lua_rawseti(L, -2, ++n);
        if (w <= min_cols || w == 1)
            break;
        for (int k = 0; k < 3; k++) {
            rt_density_halve(cur[k], w, R, nxt[k]);
            float *t = cur[k];
            cur[k] = nxt[k];
            nxt[k] = t;
        }
        if (ccur) {
            rt_density_halve_counts(ccur, w, R, cnxt);
            uint32_t *t = ccur;
            ccur = cnxt;
            cnxt = t;
        }
        w = (w + 1) / 2;
    }
    for (int k = 0; k < 3; k++)
        free(cur[k]), free(nxt[k]);
    free(ccur), free(cnxt), free(bytes);
    return 1;
}

/* paragraph.base64(s) -> the standard base64 text of s (for data embedded in a page). */
static int l_base64(lua_State *L)
{
    static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n;
    const unsigned char *s = (const unsigned char *)luaL_checklstring(L, 1, &n);
    luaL_Buffer b;
    char *o = luaL_buffinitsize(L, &b, (n + 2) / 3 * 4 + 1);
    size_t j = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
        o[j++] = tab[v >> 18 & 63];
        o[j++] = tab[v >> 12 & 63];
        o[j++] = i + 1 < n ? tab[v >> 6 & 63] : '=';
        o[j++] = i + 2 < n ? tab[v & 63] : '=';
    }
    luaL_pushresultsize(&b, j);
    return 1;
}

static const luaL_Reg funcs[] = {
    {"static_raster", l_static_raster},
    {"pyramid", l_pyramid},
    {"base64", l_base64},
    {NULL, NULL},
};

int rt_lopen_paragraph(lua_State *L)
{
    luaL_newlib(L, funcs);
    return 1;
}
