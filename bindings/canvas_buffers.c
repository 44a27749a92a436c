/*
 * canvas_buffers.c - the buffers the canvas draws from in bulk, as Lua objects:
 *
 *   canvas.grid(w, h [, fill])   -- retrace.Grid: g:get / set / size / fill / load / dump
 *   canvas.pack(stride)          -- retrace.Pack: p:push / load / get / len / clear / stride
 *   canvas.palette(n)            -- retrace.Palette: pal:set / get / len
 *   canvas.processor_palette(n [, shades [, decay [, gray]]])
 *
 * and the views of core-owned buffers other bindings hand to Lua (lcanvas.h).
 */
#include <string.h>

#include "bind.h"
#include "canvas_buffers.h"
#include "lcanvas.h"

#define GRID_T "retrace.Grid"
#define PACK_T "retrace.Pack"
#define PALETTE_T "retrace.Palette"

typedef struct {
    rt_grid *g; /* NULL once closed */
} grid_box;

typedef struct {
    rt_pack *p; /* NULL once closed */
} pack_box;

typedef struct {
    rt_palette *p; /* NULL once closed */
} palette_box;

rt_grid *rt_lcanvas_check_grid(lua_State *L, int i)
{
    grid_box *b = luaL_checkudata(L, i, GRID_T);
    if (!b->g)
        luaL_argerror(L, i, "grid is closed");
    return b->g;
}

rt_pack *rt_lcanvas_check_pack(lua_State *L, int i)
{
    pack_box *b = luaL_checkudata(L, i, PACK_T);
    if (!b->p)
        luaL_argerror(L, i, "packed array is closed");
    return b->p;
}

rt_palette *rt_lcanvas_check_palette(lua_State *L, int i)
{
    palette_box *b = luaL_checkudata(L, i, PALETTE_T);
    if (!b->p)
        luaL_argerror(L, i, "palette is closed");
    return b->p;
}

/*
 * Every box is one pointer, NULL until the C object exists (the safe empty
 * state), with one user value for the owner of a view.
 */
static void *new_box(lua_State *L, const char *tname)
{
    void **b = lua_newuserdatauv(L, sizeof *b, 1);
    *b = NULL;
    luaL_setmetatable(L, tname);
    return b;
}

/* A view on top of the stack keeps the value at index owner (0: none) alive. */
static void set_owner(lua_State *L, int owner)
{
    if (owner) {
        lua_pushvalue(L, owner);
        lua_setiuservalue(L, -2, 1);
    }
}

#define new_grid_box(L) ((grid_box *)new_box(L, GRID_T))
#define new_pack_box(L) ((pack_box *)new_box(L, PACK_T))
#define new_palette_box(L) ((palette_box *)new_box(L, PALETTE_T))

void rt_lcanvas_push_grid(lua_State *L, rt_grid *g, int owner)
{
    owner = owner ? lua_absindex(L, owner) : 0;
    grid_box *b = new_grid_box(L);
    b->g = rt_grid_retain(g);
    set_owner(L, owner);
}

/* canvas.grid(w, h [, fill]) -> grid (cells default to -1: empty) */
static int l_grid(lua_State *L)
{
    int w = (int)luaL_checkinteger(L, 1), h = (int)luaL_checkinteger(L, 2);
    int32_t fill = (int32_t)luaL_optinteger(L, 3, -1);
    grid_box *b = new_grid_box(L);
    rt_err err;
    if (rt_grid_new(w, h, fill, &b->g, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int grid_close(lua_State *L)
{
    grid_box *b = luaL_checkudata(L, 1, GRID_T);
    rt_grid_free(b->g);
    b->g = NULL;
    return 0;
}

static size_t cell_index(lua_State *L, rt_grid *g, int xi)
{
    lua_Integer x = luaL_checkinteger(L, xi), y = luaL_checkinteger(L, xi + 1);
    if (x < 0 || y < 0 || x >= g->w || y >= g->h)
        luaL_error(L, "cell (%d, %d) outside the %d x %d grid", (int)x, (int)y, g->w, g->h);
    return (size_t)y * (size_t)g->w + (size_t)x;
}

/* g:get(x, y) / g:set(x, y, v) with 0-based cells */
static int grid_get(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushinteger(L, g->cells[cell_index(L, g, 2)]);
    return 1;
}

static int grid_set(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    size_t i = cell_index(L, g, 2);
    g->cells[i] = (int32_t)luaL_checkinteger(L, 4);
    return 0;
}

static int grid_size(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushinteger(L, g->w);
    lua_pushinteger(L, g->h);
    return 2;
}

static int grid_fill(lua_State *L)
{
    rt_grid_fill(rt_lcanvas_check_grid(L, 1), (int32_t)luaL_checkinteger(L, 2));
    return 0;
}

/*
 * g:load(s [, first]) copies cell values from a binary string of int32 in
 * native order (string.pack("i4", ...)) into the cells from index first (0-based,
 * row-major; default 0); g:dump() returns the whole grid as such a string.
 */
static int grid_load(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    lua_Integer first = luaL_optinteger(L, 3, 0);
    size_t total = (size_t)g->w * (size_t)g->h;
    if (len % 4)
        return luaL_argerror(L, 2, "length is not a multiple of 4 bytes");
    if (first < 0 || (size_t)first + len / 4 > total)
        return luaL_error(L, "%d cells from %d do not fit in the %d x %d grid", (int)(len / 4),
                          (int)first, g->w, g->h);
    if (len)
        memcpy(g->cells + first, s, len);
    return 0;
}

static int grid_dump(lua_State *L)
{
    rt_grid *g = rt_lcanvas_check_grid(L, 1);
    lua_pushlstring(L, (const char *)g->cells, (size_t)g->w * (size_t)g->h * 4);
    return 1;
}

void rt_lcanvas_push_pack(lua_State *L, rt_pack *p, int owner)
{
    owner = owner ? lua_absindex(L, owner) : 0;
    pack_box *b = new_pack_box(L);
    b->p = rt_pack_retain(p);
    set_owner(L, owner);
}

/* canvas.pack(stride) -> empty packed array */
static int l_pack(lua_State *L)
{
    int stride = (int)luaL_checkinteger(L, 1);
    pack_box *b = new_pack_box(L);
    rt_err err;
    if (rt_pack_new(stride, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int pack_close(lua_State *L)
{
    pack_box *b = luaL_checkudata(L, 1, PACK_T);
    rt_pack_free(b->p);
    b->p = NULL;
    return 0;
}

/* p:push(v1, ..., v_stride) */
static int pack_push(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    double item[16];
    for (int k = 0; k < p->stride; k++)
        item[k] = luaL_checknumber(L, 2 + k);
    if (rt_pack_push(p, item) != RT_OK)
        return luaL_error(L, "packed array: out of memory");
    return 0;
}

/* p:load(s) appends items from a binary string of doubles (string.pack("d", ...)) */
static int pack_load(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    size_t len;
    const char *s = luaL_checklstring(L, 2, &len);
    size_t item = (size_t)p->stride * sizeof(double);
    if (len % item)
        return luaL_argerror(L, 2, "length is not a whole number of items");
    if (rt_pack_reserve(p, p->n + len / item) != RT_OK)
        return luaL_error(L, "packed array: out of memory");
    if (len) /* an empty pack has no buffer yet: memcpy(NULL, ..., 0) is undefined */
        memcpy(p->v + p->n * (size_t)p->stride, s, len);
    p->n += len / item;
    return 0;
}

/* p:get(i) -> the values of item i (1-based) */
static int pack_get(lua_State *L)
{
    rt_pack *p = rt_lcanvas_check_pack(L, 1);
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 1 || (size_t)i > p->n)
        return luaL_error(L, "item %d outside the packed array of %d", (int)i, (int)p->n);
    for (int k = 0; k < p->stride; k++)
        lua_pushnumber(L, p->v[(size_t)(i - 1) * (size_t)p->stride + (size_t)k]);
    return p->stride;
}

static int pack_len(lua_State *L)
{
    lua_pushinteger(L, (lua_Integer)rt_lcanvas_check_pack(L, 1)->n);
    return 1;
}

static int pack_clear(lua_State *L)
{
    rt_lcanvas_check_pack(L, 1)->n = 0;
    return 0;
}

static int pack_stride(lua_State *L)
{
    lua_pushinteger(L, rt_lcanvas_check_pack(L, 1)->stride);
    return 1;
}

/* canvas.palette(n) -> palette of n transparent entries */
static int l_palette(lua_State *L)
{
    int n = (int)luaL_checkinteger(L, 1);
    palette_box *b = new_palette_box(L);
    rt_err err;
    if (rt_palette_new(n, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

/* canvas.processor_palette(n [, shades [, decay [, gray]]]) -> palette (see rt_grid.h) */
static int l_processor_palette(lua_State *L)
{
    int n = (int)luaL_checkinteger(L, 1);
    int shades = (int)luaL_optinteger(L, 2, 8);
    int decay = (int)luaL_optinteger(L, 3, 0);
    int gray = lua_toboolean(L, 4);
    palette_box *b = new_palette_box(L);
    rt_err err;
    if (rt_palette_processors(n, shades, decay, gray, &b->p, &err) != RT_OK)
        return luaL_error(L, "%s", err.msg);
    return 1;
}

static int palette_close(lua_State *L)
{
    palette_box *b = luaL_checkudata(L, 1, PALETTE_T);
    rt_palette_free(b->p);
    b->p = NULL;
    return 0;
}

static int palette_index(lua_State *L, rt_palette *p)
{
    lua_Integer i = luaL_checkinteger(L, 2);
    if (i < 0 || i >= p->n)
        return luaL_error(L, "palette entry %d outside 0..%d", (int)i, p->n - 1);
    return (int)i;
}

/* pal:set(i, r, g, b [, a]) with 0-based i and components 0..255 */
static int palette_set(lua_State *L)
{
    rt_palette *p = rt_lcanvas_check_palette(L, 1);
    int i = palette_index(L, p);
    int c[4];
    for (int k = 0; k < 4; k++) {
        lua_Integer v = k < 3 ? luaL_checkinteger(L, 3 + k) : luaL_optinteger(L, 6, 255);
        c[k] = v < 0 ? 0 : v > 255 ? 255 : (int)v;
    }
    p->c[i] = RT_RGBA(c[0], c[1], c[2], c[3]);
    return 0;
}

/* pal:get(i) -> r, g, b, a (0..255) */
static int palette_get(lua_State *L)
{
    rt_palette *p = rt_lcanvas_check_palette(L, 1);
    rt_rgba c = p->c[palette_index(L, p)];
    lua_pushinteger(L, RT_RGBA_R(c));
    lua_pushinteger(L, RT_RGBA_G(c));
    lua_pushinteger(L, RT_RGBA_B(c));
    lua_pushinteger(L, RT_RGBA_A(c));
    return 4;
}

static int palette_len(lua_State *L)
{
    lua_pushinteger(L, rt_lcanvas_check_palette(L, 1)->n);
    return 1;
}

/* ---- registration ------------------------------------------------------------- */

/* "retrace.Grid: 32 x 16 cells", "retrace.Pack: 100 items of 4", "retrace.Palette: 64 colours" */
static int grid_tostring(lua_State *L)
{
    grid_box *b = luaL_checkudata(L, 1, GRID_T);
    if (!b->g)
        lua_pushstring(L, GRID_T " (closed)");
    else
        lua_pushfstring(L, GRID_T ": %d x %d cells", b->g->w, b->g->h);
    return 1;
}

static int pack_tostring(lua_State *L)
{
    pack_box *b = luaL_checkudata(L, 1, PACK_T);
    if (!b->p)
        lua_pushstring(L, PACK_T " (closed)");
    else
        lua_pushfstring(L, PACK_T ": %I items of %d", (lua_Integer)b->p->n, b->p->stride);
    return 1;
}

static int palette_tostring(lua_State *L)
{
    palette_box *b = luaL_checkudata(L, 1, PALETTE_T);
    if (!b->p)
        lua_pushstring(L, PALETTE_T " (closed)");
    else
        lua_pushfstring(L, PALETTE_T ": %d colours", b->p->n);
    return 1;
}

static const luaL_Reg grid_methods[] = {
    {"__tostring", grid_tostring},
    {"get", grid_get},   {"set", grid_set},   {"size", grid_size}, {"fill", grid_fill},
    {"load", grid_load}, {"dump", grid_dump}, {"close", grid_close}, {NULL, NULL},
};

static const luaL_Reg pack_methods[] = {
    {"__tostring", pack_tostring},
    {"push", pack_push}, {"load", pack_load},     {"get", pack_get},     {"len", pack_len},
    {"clear", pack_clear}, {"stride", pack_stride}, {"close", pack_close}, {NULL, NULL},
};

static const luaL_Reg palette_methods[] = {
    {"__tostring", palette_tostring},
    {"set", palette_set}, {"get", palette_get}, {"len", palette_len},
    {"close", palette_close}, {NULL, NULL},
};

static const luaL_Reg funcs[] = {
    {"grid", l_grid},
    {"pack", l_pack},
    {"palette", l_palette},
    {"processor_palette", l_processor_palette},
    {NULL, NULL},
};

void rt_canvas_open_buffers(lua_State *L)
{
    rt_new_class(L, GRID_T, grid_methods, grid_close);
    rt_new_class(L, PACK_T, pack_methods, pack_close);
    rt_new_class(L, PALETTE_T, palette_methods, palette_close);
    const char *classes[][2] = {
        {"grid_methods", GRID_T}, {"pack_methods", PACK_T}, {"palette_methods", PALETTE_T}};
    for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
        luaL_getmetatable(L, classes[i][1]);
        lua_getfield(L, -1, "__index");
        lua_setfield(L, -3, classes[i][0]);
        lua_pop(L, 1);
    }
    /* #pack and #palette */
    luaL_getmetatable(L, PACK_T);
    lua_pushcfunction(L, pack_len);
    lua_setfield(L, -2, "__len");
    lua_pop(L, 1);
    luaL_getmetatable(L, PALETTE_T);
    lua_pushcfunction(L, palette_len);
    lua_setfield(L, -2, "__len");
    lua_pop(L, 1);
    luaL_setfuncs(L, funcs, 0);
}
