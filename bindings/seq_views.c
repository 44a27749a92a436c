/*
 * seq_views.c - the part of the Chitra binding (lseq.c) that feeds the views:
 * periodograms (whole, or reduced to pixel columns), the time and event views'
 * spans, slices, pixel columns, shading and step lines, occupancy times and the
 * sequence as CSV. Conversions only; the work is in core/seq (rt_seq_view.c,
 * rt_chain.c, rt_pes.c). Registered as methods of retrace.Ses by rt_lopen_seq.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lreduce.h"
#include "lseq.h"

static int push_spectrum(lua_State *L, double *f, double *p, size_t n)
{
    lua_createtable(L, (int)n, 0);
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, f[i]);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        lua_pushnumber(L, p[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(f);
    free(p);
    return 2;
}

/* periodogram(k, domain, nsamples) -> freq, power */
static int ses_periodogram(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2);
    const char *dom = luaL_optstring(L, 3, "event");
    lua_Integer ns = luaL_optinteger(L, 4, 0);
    if (ns < 0)
        return luaL_argerror(L, 4, "negative sample count");
    double *f, *p;
    size_t n;
    rt_err err;
    if (rt_ses_periodogram(s, k, dom[0] == 't' ? 't' : 'e', (size_t)ns, &f, &p, &n, &err))
        return rt_push_fail(L, &err);
    return push_spectrum(L, f, p, n);
}

static void push_numbers(lua_State *L, const double *v, size_t n, const char *field)
{
    lua_createtable(L, (int)n, 0);
    for (size_t i = 0; i < n; i++) {
        lua_pushnumber(L, v[i]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, field);
}

/*
 * spectrum(k, domain, nsamples, ncols, npeaks, raw_max [, {range = {a, b}, segment = L}])
 *   -> {bins =, fmax =, segments =, segment =, peaks = {freq = {}, power = {}},
 *   columns = (retrace.reduce columns over [0, fmax]), freq = {}, power = {} (only when
 *   bins <= raw_max)}
 * The spectrum (rt_ses_spectrum: Welch's method, Hann window; segment 0 = one segment
 * of the whole signal) without its k = 0 bin, reduced in C to ncols pixel columns
 * (core/util rt_reduce), so a long sequence never builds Lua lists of its length.
 * Peaks: the strongest bins that are the largest within max(2, bins / ncols) bins
 * either side and reach 1% of the strongest (no side lobes).
 */
static int ses_spectrum(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2);
    const char *dom = luaL_checkstring(L, 3);
    lua_Integer ns = luaL_optinteger(L, 4, 0);
    lua_Integer nc = luaL_checkinteger(L, 5), np = luaL_checkinteger(L, 6);
    lua_Integer raw_max = luaL_checkinteger(L, 7);
    luaL_argcheck(L, ns >= 0, 4, "negative sample count");
    luaL_argcheck(L, nc >= 1 && nc <= (1 << 24), 5, "column count out of range");
    luaL_argcheck(L, np >= 0 && np <= 1000, 6, "peak count out of range");
    rt_spec_opts o = {dom[0] == 't' ? 't' : 'e', 0, 0, 0, (size_t)ns, 0};
    if (lua_istable(L, 8)) {
        if (lua_getfield(L, 8, "range") == LUA_TTABLE) {
            lua_geti(L, -1, 1);
            lua_geti(L, -2, 2);
            o.a = luaL_checknumber(L, -2);
            o.b = luaL_checknumber(L, -1);
            o.ranged = 1;
            lua_pop(L, 2);
        }
        lua_pop(L, 1);
        lua_getfield(L, 8, "segment");
        lua_Integer seg = luaL_optinteger(L, -1, 0);
        luaL_argcheck(L, seg >= 0 && seg <= (1 << 26), 8, "segment length out of range");
        o.segment = (size_t)seg;
        lua_pop(L, 1);
    }
    /* scratch space first: nothing malloc'd may be held across a call that raises */
    size_t *idx = rt_lseq_scratch(L, ((size_t)np + 1) * sizeof *idx);
    double *f, *p;
    size_t n, segs;
    rt_err err;
    if (rt_ses_spectrum(s, k, &o, &f, &p, &n, &segs, &err))
        return rt_push_fail(L, &err);
    size_t guard = (n - 1) / (size_t)nc > 2 ? (n - 1) / (size_t)nc : 2;
    size_t found = rt_spectrum_labels(p, n, (size_t)np, guard, 0.01, idx);
    rt_reduce *rp = NULL;
    double fmax = f[n - 1];
    int st = rt_reduce_new((size_t)nc, 0, fmax > 0 ? fmax : 1, 0, &rp, &err);
    if (st == RT_OK)
        st = rt_reduce_add_uniform(rp, f[1], f[1], p + 1, 1, n - 1, &err);
    if (st != RT_OK) {
        rt_reduce_free(rp);
        free(f);
        free(p);
        return rt_push_fail(L, &err);
    }
    /* From here on only the pushes can fail, and only for lack of memory (then f, p
     * and the columns leak once; the arrays pushed are small next to them). */
    lua_createtable(L, 0, 8);
    rt_set_int(L, "bins", (lua_Integer)(n - 1));
    rt_set_int(L, "segments", (lua_Integer)segs);
    rt_set_int(L, "segment", (lua_Integer)(2 * (n - 1)));
    rt_set_num(L, "fmax", fmax);
    lua_createtable(L, 0, 2);
    lua_createtable(L, (int)found, 0);
    lua_createtable(L, (int)found, 0);
    for (size_t i = 0; i < found; i++) {
        lua_pushnumber(L, f[idx[i]]);
        lua_rawseti(L, -3, (lua_Integer)i + 1);
        lua_pushnumber(L, p[idx[i]]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -3, "power");
    lua_setfield(L, -2, "freq");
    lua_setfield(L, -2, "peaks");
    rt_push_reduced(L, rp);
    lua_setfield(L, -2, "columns");
    rt_reduce_free(rp);
    if ((lua_Integer)(n - 1) <= raw_max) {
        push_numbers(L, f + 1, n - 1, "freq");
        push_numbers(L, p + 1, n - 1, "power");
    }
    free(f);
    free(p);
    return 1;
}

/* write_csv(k, path) -> true | nil, message: member k's sequence as CSV (C, streaming) */
static int ses_write_csv(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2);
    rt_err err;
    return rt_lseq_status(L, rt_ses_write_csv(s, k, luaL_checkstring(L, 3), &err), &err);
}

/* occupancy(name) -> {times of every occurrence, all members} */
static int ses_occupancy(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 2));
    lua_newtable(L);
    lua_Integer j = 0;
    for (size_t k = 0; id >= 0 && k < rt_ses_members(s); k++) {
        const int32_t *x = rt_ses_symbols(s, k);
        size_t n = rt_ses_length(s, k);
        for (size_t i = 0; i < n; i++)
            if (x[i] == id) {
                lua_pushnumber(L, rt_ses_time(s, k, i));
                lua_rawseti(L, -2, ++j);
            }
    }
    return 1;
}

/* occupancy_hist(name, bins) -> {edges = {bins + 1}, counts = {bins}, n =} | nil (no such symbol) */
static int ses_occupancy_hist(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    int32_t id = rt_ses_lookup(s, luaL_checkstring(L, 2));
    lua_Integer nb = luaL_checkinteger(L, 3);
    luaL_argcheck(L, nb >= 1 && nb <= 1000000, 3, "bin count out of range");
    if (id < 0) {
        lua_pushnil(L);
        return 1;
    }
    uint64_t *counts = rt_lseq_scratch(L, (size_t)nb * sizeof *counts), n;
    double lo, hi;
    rt_ses_occupancy_hist(s, id, (size_t)nb, counts, &lo, &hi, &n);
    lua_createtable(L, 0, 3);
    lua_createtable(L, (int)nb + 1, 0);
    for (lua_Integer i = 0; i <= nb; i++) {
        lua_pushnumber(L, lo + (hi - lo) * (double)i / (double)nb);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "edges");
    lua_createtable(L, (int)nb, 0);
    for (lua_Integer i = 0; i < nb; i++) {
        lua_pushinteger(L, (lua_Integer)counts[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "counts");
    rt_set_int(L, "n", (lua_Integer)n);
    return 1;
}

/* ---- time and event views ---- */

static char check_domain(lua_State *L, int i)
{
    const char *d = luaL_checkstring(L, i);
    if (strcmp(d, "time") && strcmp(d, "event"))
        luaL_argerror(L, i, "domain must be 'time' or 'event'");
    return d[0] == 't' ? 't' : 'e';
}

/* The row of every symbol id of member k, in a scratch userdata. */
static int32_t *rows_of(lua_State *L, rt_ses *s, size_t k, size_t *nrows)
{
    int32_t *row = rt_lseq_scratch(L, rt_ses_symbol_count(s) * sizeof *row);
    rt_ses_rows(s, k, row, nrows);
    return row;
}

/* rows(k) -> {names in order of first appearance} */
static int ses_rows(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), nrows;
    int32_t *row = rows_of(L, s, k, &nrows);
    lua_createtable(L, (int)nrows, 0);
    for (size_t id = 0; id < rt_ses_symbol_count(s); id++)
        if (row[id] >= 0) {
            lua_pushstring(L, rt_ses_name(s, (int32_t)id));
            lua_rawseti(L, -2, (lua_Integer)row[id] + 1);
        }
    return 1;
}

/* view_span(k, domain, a, b) -> first (1-based), count */
static int ses_view_span(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), first, count;
    rt_ses_view_span(s, k, check_domain(L, 3), luaL_checknumber(L, 4), luaL_checknumber(L, 5),
                     &first, &count);
    lua_pushinteger(L, (lua_Integer)first + 1);
    lua_pushinteger(L, (lua_Integer)count);
    return 2;
}

/* view_slice(k, domain, first, count) -> x0, x1, y (rows, 0-based), symbols */
static int ses_view_slice(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), n = rt_ses_length(s, k), nrows;
    char dom = check_domain(L, 3);
    lua_Integer first = luaL_checkinteger(L, 4), count = luaL_checkinteger(L, 5);
    luaL_argcheck(L, first >= 1, 4, "elements are numbered from 1");
    luaL_argcheck(L, count >= 0 && (size_t)(first - 1) + (size_t)count <= n, 5,
                  "past the end of the sequence");
    int32_t *row = rows_of(L, s, k, &nrows);
    const int32_t *x = rt_ses_symbols(s, k);
    for (int t = 0; t < 4; t++)
        lua_createtable(L, (int)count, 0);
    for (lua_Integer j = 1; j <= count; j++) {
        size_t i = (size_t)(first - 2 + j);
        double e = rt_ses_entry(s, k, i);
        lua_pushnumber(L, dom == 't' ? e : (double)i);
        lua_rawseti(L, -5, j);
        lua_pushnumber(L, dom == 't' ? e + rt_ses_time(s, k, i) : (double)i + 1);
        lua_rawseti(L, -4, j);
        lua_pushinteger(L, row[x[i]]);
        lua_rawseti(L, -3, j);
        lua_pushstring(L, rt_ses_name(s, x[i]));
        lua_rawseti(L, -2, j);
    }
    return 4;
}

/* view_columns(k, domain, a, b, ncols) -> lo, hi (rows per column, -1 for none) */
static int ses_view_columns(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), nrows;
    char dom = check_domain(L, 3);
    double a = luaL_checknumber(L, 4), b = luaL_checknumber(L, 5);
    lua_Integer nc = luaL_checkinteger(L, 6);
    luaL_argcheck(L, nc >= 1 && nc <= (1 << 24), 6, "column count out of range");
    int32_t *row = rows_of(L, s, k, &nrows);
    int32_t *lo = rt_lseq_scratch(L, 2 * (size_t)nc * sizeof *lo), *hi = lo + nc;
    rt_ses_view_columns(s, k, dom, a, b, (size_t)nc, row, lo, hi);
    lua_createtable(L, (int)nc, 0);
    lua_createtable(L, (int)nc, 0);
    for (lua_Integer c = 0; c < nc; c++) {
        lua_pushinteger(L, lo[c]);
        lua_rawseti(L, -3, c + 1);
        lua_pushinteger(L, hi[c]);
        lua_rawseti(L, -2, c + 1);
    }
    return 2;
}

typedef struct {
    lua_State *L;
    const rt_ses *s;
    size_t k, m;        /* member shown, pattern length */
    char dom;
    double a, b, gap;   /* range shown; occurrences closer than gap merge */
    double x0, x1;      /* the pending merged interval */
    int have;           /* is there one? */
    lua_Integer n;      /* intervals pushed */
} shade_ud;

static void shade_flush(shade_ud *u)
{
    if (!u->have)
        return;
    lua_pushnumber(u->L, u->x0);
    lua_rawseti(u->L, -3, ++u->n);
    lua_pushnumber(u->L, u->x1);
    lua_rawseti(u->L, -2, u->n);
    u->have = 0;
}

static void shade_cb(size_t member, size_t start, void *ud)
{
    shade_ud *u = ud;
    if (member != u->k)
        return;
    size_t last = start + u->m - 1;
    double x0 = u->dom == 't' ? rt_ses_entry(u->s, u->k, start) : (double)start;
    double x1 = u->dom == 't' ? rt_ses_entry(u->s, u->k, last) + rt_ses_time(u->s, u->k, last)
                              : (double)last + 1;
    if (x1 < u->a || x0 > u->b)
        return;
    if (u->have && x0 - u->x1 < u->gap) {
        if (x1 > u->x1)
            u->x1 = x1;
        return;
    }
    shade_flush(u);
    u->x0 = x0, u->x1 = x1, u->have = 1;
}

/*
 * view_shade(k, domain, {names}, a, b, ncols) -> count, time, x0, x1: the pattern's
 * occurrences (count and summed time over all members) and, for member k, their
 * extents touching [a, b], those less than a column ((b - a) / ncols) apart merged.
 */
static int ses_view_shade(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), m;
    char dom = check_domain(L, 3);
    int32_t *ids = rt_lseq_pattern(L, s, 4, &m, "find");
    if (!ids)
        return 2;
    double a = luaL_checknumber(L, 5), b = luaL_checknumber(L, 6);
    lua_Integer nc = luaL_checkinteger(L, 7);
    luaL_argcheck(L, nc >= 1, 7, "column count out of range");
    lua_newtable(L);
    lua_newtable(L);
    shade_ud u = {L, s, k, m, dom, a, b, (b - a) / (double)nc, 0, 0, 0, 0};
    uint64_t count;
    double time;
    rt_err err;
    if (rt_ses_find(s, ids, m, shade_cb, &u, &count, &time, &err))
        return rt_push_fail(L, &err);
    shade_flush(&u);
    lua_pushinteger(L, (lua_Integer)count);
    lua_pushnumber(L, time);
    lua_rotate(L, -4, 2);
    return 4;
}

static double frame_num(lua_State *L, int t, const char *field)
{
    lua_getfield(L, t, field);
    int ok;
    double v = lua_tonumberx(L, -1, &ok);
    if (!ok)
        luaL_error(L, "view frame: field '%s' must be a number", field);
    lua_pop(L, 1);
    return v;
}

/* view_segments(k, {domain=, a=, b=, ix=, iy=, iw=, ih=, ya=, yb=}) -> pack of segments | nil, msg */
static int ses_view_segments(lua_State *L)
{
    rt_ses *s = rt_lseq_check(L);
    size_t k = rt_lseq_member(L, s, 2), nrows;
    luaL_checktype(L, 3, LUA_TTABLE);
    rt_ses_frame f;
    lua_getfield(L, 3, "domain");
    f.domain = check_domain(L, -1);
    lua_pop(L, 1);
    f.a = frame_num(L, 3, "a"), f.b = frame_num(L, 3, "b");
    f.ix = frame_num(L, 3, "ix"), f.iy = frame_num(L, 3, "iy");
    f.iw = frame_num(L, 3, "iw"), f.ih = frame_num(L, 3, "ih");
    f.ya = frame_num(L, 3, "ya"), f.yb = frame_num(L, 3, "yb");
    luaL_argcheck(L, f.iw >= 0 && f.iw <= (1 << 24), 3, "plot width out of range");
    int32_t *row = rows_of(L, s, k, &nrows);
    rt_pack *p;
    rt_err err;
    if (rt_pack_new(4, &p, &err) != RT_OK)
        return rt_push_fail(L, &err);
    if (rt_ses_view_segments(s, k, &f, row, p, &err) != RT_OK) {
        rt_pack_free(p);
        return rt_push_fail(L, &err);
    }
    rt_lcanvas_push_pack(L, p, 0);
    rt_pack_free(p); /* the view holds its own reference */
    return 1;
}

int rt_lseq_periodogram(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    double dt = luaL_optnumber(L, 2, 1.0);
    size_t n = (size_t)luaL_len(L, 1);
    double *x = rt_lseq_scratch(L, n * sizeof *x);
    for (size_t i = 0; i < n; i++) {
        lua_geti(L, 1, (lua_Integer)i + 1);
        x[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    double *f, *p;
    size_t m;
    rt_err err;
    if (rt_periodogram(x, n, dt, &f, &p, &m, &err))
        return rt_push_fail(L, &err);
    return push_spectrum(L, f, p, m);
}

const luaL_Reg rt_lseq_view_methods[] = {
    {"periodogram", ses_periodogram},
    {"spectrum", ses_spectrum},
    {"write_csv", ses_write_csv},
    {"occupancy", ses_occupancy},
    {"occupancy_hist", ses_occupancy_hist},
    {"rows", ses_rows},
    {"view_span", ses_view_span},
    {"view_slice", ses_view_slice},
    {"view_columns", ses_view_columns},
    {"view_segments", ses_view_segments},
    {"view_shade", ses_view_shade},
    {NULL, NULL},
};
