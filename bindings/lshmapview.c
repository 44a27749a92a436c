/*
 * lshmapview.c - Lua face of the SHMAP view (core/view/rt_shmap_view): conversions
 * only. lua/retrace/shmap.lua wraps it as shmap.view(sim, opts).
 *
 *   shmapview.new(sim, {shades=, fade=, memory={w=, h=, gap=, max_cells=} | true,
 *                 cache={w=, h=, gap=, aspect=, per_row=} | true, active={keep=} | true,
 *                 refs={rows=, len=} | true, timeline={w=, h=} | true}) -> view | nil, message
 *   view:grids() -> {loads={[i]=grid|false}, stores=..., caches=..., refs=, refs_overflow=, timeline=}
 *                   (brought up to date first; view:sync() updates grids kept from an earlier call)
 *   view:layout() -> {f=, k=, rows=, hidden=, regions={{id=, rows=, cols=, x=, y=, w=, h=, cw=, ch=, shown=}},
 *                     cache={per_row=, rows=, cell=, w=, h=, region_w=, region_h=, x0=, gap=} | nil}
 *   view:info() -> {step=, time=, clock=, flashes=, frame_flashes=, lit=, bytes=, active={PE...},
 *                   refs_overflowed=, elements=}
 *   view:refs_rows() -> {{PE...} per histogram row}      view:new_frame()
 *   view:flash_rects(which, pack [, inset])   which 0 load, 1 store, 2 cache
 *   view:active_rects(pack, t0, t1, x, y, w, h, max_pes, min_w)
 *   view:close()
 *   shmapview.regions({{rows=, cols=}...}, w, h, gap) -> layout table (pure)
 *   shmapview.cache_layout(ncaches, words, line, w, h, gap, aspect) -> table (pure)
 * PEs 0-based; grid cells PE*(K+1)+shade or -1.
 */
#include <stdlib.h>
#include <string.h>

#include "bind.h"
#include "lcanvas.h"
#include "lshmap.h"
#include "rt_shmap_view.h"

#define VIEW_T "retrace.ShmapView"

typedef struct {
    rt_shmap_view *v;       /* NULL once closed */
} view_box;

static view_box *check_view(lua_State *L, int i)
{
    view_box *b = luaL_checkudata(L, i, VIEW_T);
    if (!b->v)
        luaL_argerror(L, i, "SHMAP view is closed");
    return b;
}

static void detach(void *ud)
{
    view_box *b = ud;
    if (b->v)
        rt_shmap_view_detach(b->v);
}

static int view_close(lua_State *L)
{
    view_box *b = luaL_checkudata(L, 1, VIEW_T);
    if (!b->v)
        return 0;
    if (lua_getiuservalue(L, 1, 1) == LUA_TUSERDATA)
        rt_lshmap_forget(L, lua_gettop(L), b);
    lua_pop(L, 1);
    rt_shmap_view_free(b->v);
    b->v = NULL;
    return 0;
}

/* opts[k]: false/nil -> 0 (off), true -> 1 (on, defaults), table -> 1 and left on the stack top */
static int panel(lua_State *L, int t, const char *k)
{
    int ty = lua_getfield(L, t, k);
    if (ty == LUA_TTABLE)
        return 2;
    int on = lua_toboolean(L, -1);
    lua_pop(L, 1);
    return on;
}

static lua_Integer field_int(lua_State *L, int t, const char *k, lua_Integer def)
{
    lua_Integer v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        int ok;
        v = lua_tointegerx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "view option %s: an integer expected, got %s", k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

static double field_num(lua_State *L, int t, const char *k, double def)
{
    double v = def;
    if (lua_getfield(L, t, k) != LUA_TNIL) {
        int ok;
        v = lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "view option %s: a number expected, got %s", k, luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    return v;
}

static int clamp_int(lua_Integer v)
{
    return v < -1 ? -1 : v > (1 << 30) ? (1 << 30) : (int)v;
}

static int l_new(lua_State *L)
{
    rt_shmap_sim *sim = rt_lshmap_check_sim(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    rt_shmap_view_config c = rt_shmap_view_defaults();
    c.shades = clamp_int(field_int(L, 2, "shades", c.shades));
    c.fade = field_num(L, 2, "fade", c.fade);
    int t;
    if ((c.memory = panel(L, 2, "memory")) == 2) {
        t = lua_gettop(L);
        c.mem_w = clamp_int(field_int(L, t, "w", 0));
        c.mem_h = clamp_int(field_int(L, t, "h", 0));
        c.mem_gap = clamp_int(field_int(L, t, "gap", c.mem_gap));
        lua_Integer mc = field_int(L, t, "max_cells", 0);
        c.max_cells = mc > 0 ? (uint64_t)mc : 0;
        lua_pop(L, 1);
    }
    if ((c.cache = panel(L, 2, "cache")) == 2) {
        t = lua_gettop(L);
        c.cache_w = clamp_int(field_int(L, t, "w", 0));
        c.cache_h = clamp_int(field_int(L, t, "h", 0));
        c.cache_gap = clamp_int(field_int(L, t, "gap", c.cache_gap));
        c.cache_per_row = clamp_int(field_int(L, t, "per_row", 0));
        c.cache_aspect = field_num(L, t, "aspect", c.cache_aspect);
        lua_pop(L, 1);
    }
    if ((c.active = panel(L, 2, "active")) == 2) {
        c.active_keep = clamp_int(field_int(L, lua_gettop(L), "keep", c.active_keep));
        lua_pop(L, 1);
    }
    if ((c.refs = panel(L, 2, "refs")) == 2) {
        t = lua_gettop(L);
        c.refs_rows = clamp_int(field_int(L, t, "rows", 0));
        c.refs_len = clamp_int(field_int(L, t, "len", c.refs_len));
        lua_pop(L, 1);
    }
    if ((c.timeline = panel(L, 2, "timeline")) == 2) {
        t = lua_gettop(L);
        c.time_w = clamp_int(field_int(L, t, "w", c.time_w));
        c.time_h = clamp_int(field_int(L, t, "h", 0));
        lua_pop(L, 1);
    }
    view_box *b = lua_newuserdatauv(L, sizeof *b, 1);
    b->v = NULL;
    luaL_setmetatable(L, VIEW_T);
    lua_pushvalue(L, 1);
    lua_setiuservalue(L, -2, 1);
    rt_err err;
    b->v = rt_shmap_view_new(sim, &c, &err);
    if (!b->v)
        return rt_push_fail(L, &err);
    if (rt_lshmap_on_close(L, 1, detach, b) != RT_OK) {
        rt_shmap_view_free(b->v);
        b->v = NULL;
        lua_pushnil(L);
        lua_pushstring(L, "view: the simulation has too many views");
        return 2;
    }
    return 1;
}

static void push_grid_or_false(lua_State *L, rt_grid *g, int owner)
{
    if (g)
        rt_lcanvas_push_grid(L, g, owner);
    else
        lua_pushboolean(L, 0);
}

static int view_grids(lua_State *L)
{
    view_box *b = check_view(L, 1);
    int nmat = 0, nc = 0;
    lua_getiuservalue(L, 1, 1);
    rt_shmap_sim *sim = rt_lshmap_check_sim(L, -1);
    nmat = rt_shmap_matrix_count(rt_shmap_sim_trace(sim));
    nc = rt_shmap_sim_caches(sim);
    lua_pop(L, 1);
    rt_shmap_view_sync(b->v);
    lua_createtable(L, 0, 6);
    for (int store = 0; store < 2; store++) {
        lua_createtable(L, nmat, 0);
        for (int i = 0; i < nmat; i++) {
            push_grid_or_false(L, rt_shmap_view_grid(b->v, i, store), 1);
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, store ? "stores" : "loads");
    }
    lua_createtable(L, nc, 0);
    for (int i = 0; i < nc; i++) {
        push_grid_or_false(L, rt_shmap_view_cache_grid(b->v, i), 1);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "caches");
    push_grid_or_false(L, rt_shmap_view_refs(b->v), 1);
    lua_setfield(L, -2, "refs");
    push_grid_or_false(L, rt_shmap_view_refs_overflow(b->v), 1);
    lua_setfield(L, -2, "refs_overflow");
    push_grid_or_false(L, rt_shmap_view_timeline(b->v), 1);
    lua_setfield(L, -2, "timeline");
    return 1;
}

static void push_region(lua_State *L, const rt_shmap_region *g)
{
    rt_set_int(L, "x", g->x);
    rt_set_int(L, "y", g->y);
    rt_set_int(L, "w", g->w);
    rt_set_int(L, "h", g->h);
    rt_set_int(L, "cw", g->cw);
    rt_set_int(L, "ch", g->ch);
    rt_set_int(L, "row", g->row + 1);
    rt_set_bool(L, "shown", g->shown);
}

static void push_info(lua_State *L, const rt_shmap_layout_info *in)
{
    rt_set_int(L, "f", in->f);
    rt_set_int(L, "k", in->k);
    rt_set_int(L, "rows", in->rows);
    rt_set_int(L, "hidden", in->hidden);
}

static void push_cache_layout(lua_State *L, const rt_shmap_cache_layout *c)
{
    lua_createtable(L, 0, 9);
    rt_set_int(L, "per_row", c->per_row);
    rt_set_int(L, "rows", c->rows);
    rt_set_num(L, "cell", c->cell);
    rt_set_num(L, "w", c->w);
    rt_set_num(L, "h", c->h);
    rt_set_num(L, "region_w", c->region_w);
    rt_set_num(L, "region_h", c->region_h);
    rt_set_num(L, "x0", c->x0);
    rt_set_num(L, "gap", c->gap);
}

static int view_layout(lua_State *L)
{
    view_box *b = check_view(L, 1);
    lua_getiuservalue(L, 1, 1);
    const rt_shmap *tr = rt_shmap_sim_trace(rt_lshmap_check_sim(L, -1));
    lua_pop(L, 1);
    const rt_shmap_view_config *c = rt_shmap_view_config_get(b->v);
    int nmat = rt_shmap_matrix_count(tr);
    lua_createtable(L, 0, 8);
    if (c->memory) {
        push_info(L, rt_shmap_view_layout(b->v));
        rt_set_int(L, "w", c->mem_w);
        rt_set_int(L, "h", c->mem_h);
        rt_set_int(L, "gap", c->mem_gap);
        lua_createtable(L, nmat, 0);
        for (int i = 0; i < nmat; i++) {
            const rt_shmap_matrix *m = rt_shmap_matrix_at(tr, i);
            lua_createtable(L, 0, 11);
            rt_set_int(L, "id", m->id);
            rt_set_int(L, "rows", m->rows);
            rt_set_int(L, "cols", m->cols);
            push_region(L, rt_shmap_view_region(b->v, i));
            lua_rawseti(L, -2, i + 1);
        }
        lua_setfield(L, -2, "regions");
    }
    const rt_shmap_cache_layout *cl = rt_shmap_view_cache_layout(b->v);
    if (cl) {
        push_cache_layout(L, cl);
        lua_setfield(L, -2, "cache");
    }
    return 1;
}

static int view_info(lua_State *L)
{
    view_box *b = check_view(L, 1);
    rt_shmap_view_sync(b->v); /* the lit count is the folded one */
    lua_createtable(L, 0, 12);
    rt_set_int(L, "step", (lua_Integer)rt_shmap_view_step(b->v));
    rt_set_num(L, "time", rt_shmap_view_time(b->v));
    rt_set_num(L, "clock", rt_shmap_view_clock(b->v));
    rt_set_int(L, "flashes", (lua_Integer)rt_shmap_view_flashes(b->v));
    rt_set_int(L, "frame_flashes", (lua_Integer)rt_shmap_view_frame_flashes(b->v));
    rt_set_int(L, "lit", (lua_Integer)rt_shmap_view_lit(b->v));
    rt_set_int(L, "bytes", (lua_Integer)rt_shmap_view_bytes(b->v));
    rt_set_int(L, "refs_overflowed", (lua_Integer)rt_shmap_view_refs_overflowed(b->v));
    rt_set_num(L, "elements", (lua_Number)rt_shmap_view_elements(b->v));
    int pes[RT_SCHED_MAX_PES], n = rt_shmap_view_active(b->v, pes);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_pushinteger(L, pes[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "active");
    return 1;
}

/* refs_rows() -> per histogram row the PEs of its dots (at most the grid's width) */
static int view_refs_rows(lua_State *L)
{
    view_box *b = check_view(L, 1);
    rt_grid *g = rt_shmap_view_refs(b->v);
    if (!g)
        return 0;
    int k1 = rt_shmap_view_config_get(b->v)->shades + 1;
    lua_createtable(L, g->h, 0);
    for (int r = 0; r < g->h; r++) {
        uint64_t n = rt_shmap_view_refs_count(b->v, r);
        if (n > (uint64_t)g->w)
            n = (uint64_t)g->w;
        lua_createtable(L, (int)n, 0);
        for (uint64_t j = 0; j < n; j++) {
            lua_pushinteger(L, g->cells[(uint64_t)r * (uint64_t)g->w + j] / k1);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_rawseti(L, -2, r + 1);
    }
    return 1;
}

static int view_sync(lua_State *L)
{
    rt_shmap_view_sync(check_view(L, 1)->v);
    return 0;
}

static int view_new_frame(lua_State *L)
{
    rt_shmap_view_new_frame(check_view(L, 1)->v);
    return 0;
}

static int view_flash_rects(lua_State *L)
{
    view_box *b = check_view(L, 1);
    int which = (int)luaL_checkinteger(L, 2);
    luaL_argcheck(L, which >= 0 && which <= 2, 2, "0 (load), 1 (store) or 2 (cache)");
    rt_pack *p = rt_lcanvas_check_pack(L, 3);
    if (rt_shmap_view_flash_rects(b->v, which, luaL_optnumber(L, 4, 0), p) != RT_OK)
        return luaL_error(L, "flash rectangles: out of memory or a pack of stride < 4");
    lua_pushinteger(L, (lua_Integer)p->n);
    return 1;
}

static int view_active_rects(lua_State *L)
{
    view_box *b = check_view(L, 1);
    rt_pack *p = rt_lcanvas_check_pack(L, 2);
    double t0 = luaL_checknumber(L, 3), t1 = luaL_checknumber(L, 4);
    double x = luaL_checknumber(L, 5), y = luaL_checknumber(L, 6);
    double w = luaL_checknumber(L, 7), h = luaL_checknumber(L, 8);
    int maxp = (int)luaL_checkinteger(L, 9);
    double minw = luaL_optnumber(L, 10, 1);
    if (rt_shmap_view_active_rects(b->v, p, t0, t1, x, y, w, h, maxp, minw) != RT_OK)
        return luaL_error(L, "active rectangles: out of memory");
    lua_pushinteger(L, (lua_Integer)p->n);
    return 1;
}

/* The kept steps of the active graph: {{time=, pes={...}}...}, oldest first. */
static int view_active_steps(lua_State *L)
{
    view_box *b = check_view(L, 1);
    int n = rt_shmap_view_active_kept(b->v);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        const uint64_t *m;
        double t = rt_shmap_view_active_at(b->v, i, &m);
        lua_createtable(L, 0, 2);
        rt_set_num(L, "time", t);
        lua_createtable(L, 4, 0);
        int k = 0;
        for (int p = 0; p < RT_SCHED_MAX_PES; p++)
            if (m[p >> 6] >> (p & 63) & 1) {
                lua_pushinteger(L, p);
                lua_rawseti(L, -2, ++k);
            }
        lua_setfield(L, -2, "pes");
        lua_rawseti(L, -2, i + 1);
    }
    return 1;
}

static int l_regions(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    int w = (int)luaL_checkinteger(L, 2), h = (int)luaL_checkinteger(L, 3);
    int gap = (int)luaL_optinteger(L, 4, 2);
    int n = (int)luaL_len(L, 1);
    luaL_argcheck(L, n >= 1, 1, "at least one matrix");
    int *rows = lua_newuserdatauv(L, (size_t)n * sizeof *rows, 0);
    int *cols = lua_newuserdatauv(L, (size_t)n * sizeof *cols, 0);
    rt_shmap_region *out = lua_newuserdatauv(L, (size_t)n * sizeof *out, 0);
    for (int i = 0; i < n; i++) {
        lua_rawgeti(L, 1, i + 1);
        luaL_argcheck(L, lua_istable(L, -1), 1, "a list of {rows=, cols=}");
        int t = lua_gettop(L);
        rows[i] = clamp_int(field_int(L, t, "rows", 0));
        cols[i] = clamp_int(field_int(L, t, "cols", 0));
        lua_pop(L, 1);
    }
    rt_shmap_layout_info in;
    if (rt_shmap_regions(n, rows, cols, w, h, gap, out, &in) != RT_OK)
        return luaL_error(L, "regions: sizes must be at least 1 and the gap not negative");
    lua_createtable(L, 0, 8);
    push_info(L, &in);
    rt_set_int(L, "w", w);
    rt_set_int(L, "h", h);
    rt_set_int(L, "gap", gap);
    lua_createtable(L, n, 0);
    for (int i = 0; i < n; i++) {
        lua_createtable(L, 0, 10);
        rt_set_int(L, "rows", rows[i]);
        rt_set_int(L, "cols", cols[i]);
        push_region(L, &out[i]);
        lua_rawseti(L, -2, i + 1);
    }
    lua_setfield(L, -2, "regions");
    return 1;
}

static int l_cache_layout(lua_State *L)
{
    rt_shmap_cache_layout c;
    int st = rt_shmap_cache_layout_of((int)luaL_checkinteger(L, 1), (uint64_t)luaL_checkinteger(L, 2),
                                      (uint64_t)luaL_checkinteger(L, 3), (int)luaL_checkinteger(L, 4),
                                      (int)luaL_checkinteger(L, 5), (int)luaL_optinteger(L, 6, 4),
                                      luaL_optnumber(L, 7, 2), &c);
    if (st != RT_OK)
        return luaL_error(L, "cache layout: bad arguments");
    push_cache_layout(L, &c);
    return 1;
}

static const luaL_Reg view_methods[] = {
    {"grids", view_grids},           {"layout", view_layout},
    {"info", view_info},             {"refs_rows", view_refs_rows},
    {"new_frame", view_new_frame},   {"flash_rects", view_flash_rects},
    {"active_rects", view_active_rects}, {"active_steps", view_active_steps},
    {"sync", view_sync},             {"close", view_close},
    {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"new", l_new},
    {"regions", l_regions},
    {"cache_layout", l_cache_layout},
    {NULL, NULL},
};

int rt_lopen_shmapview(lua_State *L)
{
    rt_new_class(L, VIEW_T, view_methods, view_close);
    luaL_newlib(L, funcs);
    return 1;
}
