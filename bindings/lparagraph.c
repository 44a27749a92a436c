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
 *
 * One replay feeding several outputs (retrace.replay.open's value rp, then rp:run()):
 *   paragraph.density(opts) -> D      (static_raster's opts but events, format, split)
 *   D:attach(rp) ; D:result() -> r    (after the run; r as static_raster's)
 *   paragraph.chrome(file, t0) -> X | nil, message   (core/msg/rt_chrome.h, written whole or not at all)
 *   X:attach(rp) ; X:close(t1) ; X:marker(proc, time, name, args_json) ; X:finish(rp) -> counts | nil, message
 *     counts = {complete, states, user, unnested, flow, threads, markers}
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lreplay.h"
#include "rt_chrome.h"
#include "rt_density.h"
#include "rt_out.h"
#include "rt_par.h"
#include "rt_par_source.h"
#include "rt_tsource_open.h"

static int opt_int(lua_State *L, int t, const char *k, int def)
{
    lua_getfield(L, t, k);
    int v = lua_isnil(L, -1) ? def : (int)luaL_checkinteger(L, -1);
    lua_pop(L, 1);
    return v;
}

static double opt_num(lua_State *L, int t, const char *k)
{
    lua_getfield(L, t, k);
    double v = luaL_checknumber(L, -1);
    lua_pop(L, 1);
    return v;
}

/* A list of integers at opts[k] (table t) into a malloc'ed array (NULL, 0 when absent). */
static int64_t *opt_list(lua_State *L, int t, const char *k, int *n)
{
    *n = 0;
    if (lua_getfield(L, t, k) != LUA_TTABLE) {
        lua_pop(L, 1);
        return NULL;
    }
    int len = (int)lua_rawlen(L, -1);
    int64_t *v = malloc((size_t)(len > 0 ? len : 1) * sizeof *v);
    if (!v)
        luaL_error(L, "static_raster: out of memory");
    for (int i = 1; i <= len; i++) {
        lua_rawgeti(L, -1, i);
        v[i - 1] = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : 0;
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    *n = len;
    return v;
}

/* What a raster is asked for: the options of static_raster's table at t (events and format apart). */
typedef struct {
    rt_density_opts o;
    int levels, times, mix;
} raster_req;

/* Read the request at t; *sel (malloc'ed, the chosen processors) goes into q->o. */
static int read_req(lua_State *L, int t, raster_req *q, int **sel, rt_err *err)
{
    memset(q, 0, sizeof *q);
    q->o.cols = opt_int(L, t, "cols", 0);
    q->o.rows = opt_int(L, t, "rows", 0);
    q->o.nprocs = opt_int(L, t, "procs", 0);
    q->o.t0 = opt_num(L, t, "t0");
    q->o.t1 = opt_num(L, t, "t1");
    q->o.max_lines = opt_int(L, t, "max_lines", 10000);
    q->levels = opt_int(L, t, "levels", 8);
    q->times = rt_opt_bool(L, t, "times", 0);
    q->mix = opt_int(L, t, "mix", 0);
    int nsel = 0;
    int64_t *sel64 = opt_list(L, t, "sel", &nsel);
    *sel = NULL;
    if (nsel > 0) {
        *sel = malloc((size_t)nsel * sizeof **sel);
        for (int i = 0; *sel && i < nsel; i++)
            (*sel)[i] = (int)sel64[i];
    }
    free(sel64);
    q->o.nsel = nsel;
    q->o.sel = *sel;
    if (nsel > 0 && !*sel)
        return rt_err_set(err, RT_ENOMEM, "static_raster: out of memory");
    return RT_OK;
}

/* Push the raster table of a finished d (see the header comment); d stays the caller's. */
static int push_raster(lua_State *L, rt_density *d, const raster_req *q)
{
    const rt_timeline *tl = rt_density_timeline(d);
    int W = rt_timeline_cols(tl), R = rt_timeline_rows(tl);
    size_t cells = (size_t)W * R;
    int32_t *buf = malloc(cells * sizeof *buf);
    if (!buf)
        return luaL_error(L, "static_raster: out of memory");
    lua_createtable(L, 0, 16);
    rt_set_int(L, "cols", W);
    rt_set_int(L, "rows", R);
    rt_set_int(L, "nsel", rt_density_nsel(d));
    rt_set_int(L, "messages", rt_density_messages(d));
    rt_set_int(L, "tachyons", rt_density_tachyons(d));
    rt_set_int(L, "max_count", rt_density_max(d));
    rt_density_fill(d, q->mix > 0 ? 2 : 0, q->mix, buf);
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
        rt_density_fill(d, 1, q->levels, buf);
        lua_pushlstring(L, (const char *)buf, cells * sizeof *buf);
        lua_setfield(L, -2, "density");
    }
    free(buf);
    if (q->times) {
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
    return 1;
}

static int l_static_raster(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    raster_req q;
    int *sel = NULL;
    rt_err err;
    int rc = read_req(L, 2, &q, &sel, &err);
    rt_density_opts o = q.o;
    if (rt_opt_bool(L, 2, "split", 0) && rt_par_size() > 1) {
        o.part = rt_par_rank();
        o.parts = rt_par_size();
    }
    lua_getfield(L, 2, "format");
    const char *format = luaL_optstring(L, -1, NULL);
    lua_pop(L, 1);
    int nev = 0;
    int64_t *ev = opt_list(L, 2, "events", &nev);
    rt_density *d = NULL;
    rt_tsource *src = NULL;
    rt_replay *rp = NULL;
    /* split: this rank's part of the trace where a distributed source reads it (collective);
     * opened first, as the source sets which processors are this rank's (rt_par_route.h) */
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
    push_raster(L, d, &q);
    rt_density_free(d);
    return 1;
}

/* ---- one pass, many outputs: a raster and an export fed by one replay (taps) ---- */

#define DENSITY_T "retrace.Density"
#define CHROME_T "retrace.ChromeExport"

typedef struct {
    rt_density *d; /* NULL once its result was taken */
    raster_req q;
    rt_replay_opts feed; /* rt_density_attach's callbacks, called from the tap */
} dens_box;

static void dens_state(void *ud, int proc, double t, int old, int new)
{
    dens_box *b = ud;
    b->feed.on_state(b->feed.ud, proc, t, old, new);
}

static void dens_message(void *ud, const rt_message *m)
{
    dens_box *b = ud;
    b->feed.on_message(b->feed.ud, m);
}

/* Stop listening to the replay kept in user value 1 (if it is still open). */
static void untap(lua_State *L, int i, void *ud)
{
    if (lua_getiuservalue(L, i, 1) != LUA_TNIL) {
        rt_replay *rp = rt_lreplay_get(L, -1);
        if (rp) {
            rt_replay_remove_tap(rp, ud);
            rt_lreplay_release(L, -1, i);
        }
    }
    lua_pop(L, 1);
    lua_pushnil(L);
    lua_setiuservalue(L, i, 1);
}

/* Listen to the replay at index 2 through tap (kept in user value 1 of the value at 1). */
static void tap_on(lua_State *L, const rt_replay_tap *tap)
{
    rt_replay *rp = rt_lreplay_check(L, 2);
    if (lua_getiuservalue(L, 1, 1) != LUA_TNIL)
        luaL_error(L, "attach: already listening to a replay");
    lua_pop(L, 1);
    if (rt_replay_add_tap(rp, tap) != RT_OK)
        luaL_error(L, "attach: the replay has too many listeners");
    lua_pushvalue(L, 2);
    lua_setiuservalue(L, 1, 1);
    rt_lreplay_keep(L, 2, 1);
}

/* paragraph.density(opts) -> D: a raster (static_raster's options, without events, format, split) */
static int l_density(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    dens_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, DENSITY_T);
    int *sel = NULL;
    rt_err err;
    int rc = read_req(L, 1, &b->q, &sel, &err);
    if (rc == RT_OK)
        rc = rt_density_new(&b->q.o, &b->d, &err);
    free(sel);
    b->q.o.sel = NULL;
    if (rc != RT_OK)
        return rt_push_fail(L, &err);
    rt_density_attach(b->d, &b->feed);
    return 1;
}

static dens_box *check_dens(lua_State *L)
{
    dens_box *b = luaL_checkudata(L, 1, DENSITY_T);
    if (!b->d)
        luaL_argerror(L, 1, "raster already taken");
    return b;
}

/* D:attach(rp): fed by the replay's states and messages from now on. */
static int dens_attach(lua_State *L)
{
    dens_box *b = check_dens(L);
    rt_replay_tap tap = {.ud = b, .on_state = dens_state, .on_message = dens_message};
    tap_on(L, &tap);
    lua_settop(L, 1);
    return 1;
}

/* D:result() -> r (static_raster's table), after the replay ran; D is spent. */
static int dens_result(lua_State *L)
{
    dens_box *b = check_dens(L);
    untap(L, 1, b);
    rt_density_finish(b->d);
    push_raster(L, b->d, &b->q);
    rt_density_free(b->d);
    b->d = NULL;
    return 1;
}

static int dens_gc(lua_State *L)
{
    dens_box *b = luaL_checkudata(L, 1, DENSITY_T);
    untap(L, 1, b);
    rt_density_free(b->d);
    b->d = NULL;
    return 0;
}

typedef struct {
    rt_out *out;  /* NULL once committed or abandoned */
    rt_chrome *c;
} chrome_box;

static chrome_box *check_chrome(lua_State *L)
{
    chrome_box *b = luaL_checkudata(L, 1, CHROME_T);
    if (!b->c)
        luaL_argerror(L, 1, "export already finished");
    return b;
}

/* paragraph.chrome(file, t0) -> X | nil, "FILE: reason": the Trace Event Format into file (rt_chrome.h) */
static int l_chrome(lua_State *L)
{
    const char *path = luaL_checkstring(L, 1);
    double t0 = luaL_checknumber(L, 2);
    chrome_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    memset(b, 0, sizeof *b);
    luaL_setmetatable(L, CHROME_T);
    rt_err err;
    if (!(b->out = rt_out_open(path, &err)))
        return rt_push_fail(L, &err);
    if (!(b->c = rt_chrome_new(rt_out_fp(b->out), t0))) {
        rt_out_abort(b->out);
        b->out = NULL;
        return luaL_error(L, "chrome: out of memory");
    }
    return 1;
}

/* X:attach(rp) */
static int chrome_attach(lua_State *L)
{
    chrome_box *b = check_chrome(L);
    rt_replay_tap tap = rt_chrome_tap(b->c, rt_lreplay_check(L, 2));
    tap_on(L, &tap);
    lua_settop(L, 1);
    return 1;
}

/* X:close(t1): every processor's last state segment, up to t1. */
static int chrome_close(lua_State *L)
{
    chrome_box *b = check_chrome(L);
    untap(L, 1, b->c);
    rt_chrome_close(b->c, luaL_checknumber(L, 2));
    return 0;
}

/* X:marker(proc, time, name, args_json) */
static int chrome_marker(lua_State *L)
{
    chrome_box *b = check_chrome(L);
    rt_chrome_marker(b->c, (int)luaL_checkinteger(L, 2), luaL_checknumber(L, 3), luaL_checkstring(L, 4),
                     luaL_optstring(L, 5, "{}"));
    return 0;
}

/* X:finish(rp) -> counts | nil, message: names from rp's definitions, the end, the file committed. */
static int chrome_finish(lua_State *L)
{
    chrome_box *b = check_chrome(L);
    rt_replay *rp = rt_lreplay_check(L, 2);
    rt_err err;
    int rc = rt_chrome_finish(b->c, rt_replay_defs(rp), &err);
    rt_chrome_counts n;
    rt_chrome_get_counts(b->c, &n);
    rt_chrome_free(b->c);
    b->c = NULL;
    rt_out *o = b->out;
    b->out = NULL;
    if (rc != RT_OK) {
        rt_out_abort(o);
        return rt_push_fail(L, &err);
    }
    if (rt_out_commit(o, &err) != RT_OK)
        return rt_push_fail(L, &err);
    lua_createtable(L, 0, 7);
    rt_set_int(L, "complete", n.complete);
    rt_set_int(L, "states", n.states);
    rt_set_int(L, "user", n.user);
    rt_set_int(L, "unnested", n.unnested);
    rt_set_int(L, "flow", n.flow);
    rt_set_int(L, "threads", n.threads);
    rt_set_int(L, "markers", n.markers);
    return 1;
}

static int chrome_gc(lua_State *L)
{
    chrome_box *b = luaL_checkudata(L, 1, CHROME_T);
    if (b->c)
        untap(L, 1, b->c);
    rt_chrome_free(b->c);
    b->c = NULL;
    rt_out_abort(b->out);
    b->out = NULL;
    return 0;
}

static const luaL_Reg dens_methods[] = {
    {"attach", dens_attach},
    {"result", dens_result},
    {NULL, NULL},
};

static const luaL_Reg chrome_methods[] = {
    {"attach", chrome_attach},
    {"close", chrome_close},
    {"marker", chrome_marker},
    {"finish", chrome_finish},
    {NULL, NULL},
};

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
    {"density", l_density},
    {"chrome", l_chrome},
    {"pyramid", l_pyramid},
    {"base64", l_base64},
    {NULL, NULL},
};

int rt_lopen_paragraph(lua_State *L)
{
    rt_new_class(L, DENSITY_T, dens_methods, dens_gc);
    rt_new_class(L, CHROME_T, chrome_methods, chrome_gc);
    luaL_getmetatable(L, CHROME_T);
    lua_pushcfunction(L, chrome_gc); /* local x <close>: the temporary goes at once */
    lua_setfield(L, -2, "__close");
    lua_pop(L, 1);
    luaL_newlib(L, funcs);
    return 1;
}
