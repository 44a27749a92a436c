/*
 * lgraph.c - Lua face of core/graph: require("retrace.core").graph
 *
 *   graph.layout{nodes = {{w =, h =}, ...},                   -- box sizes, points
 *                edges = {{from =, to =, weight =, label_w =, label_h =}, ...},  -- 1-based
 *                engine = "dot" | "neato"}
 *   -> {width =, height =, nodes = {{x, y}, ...},
 *       edges = {{points = {x1, y1, x2, y2, ...}, head = {x, y} | nil, label = {x, y} | nil}}}
 *      or nil, message
 * Coordinates in points, origin top-left, y down (see core/graph/rt_layout.h).
 */
#include <stdlib.h>

#include "bind.h"
#include "rt_layout.h"

#define LAYOUT_T "retrace.GraphLayout"

/* The C layout lives in a box while its tables are built, so an error raised
 * half-way (out of memory) still frees it through __gc. */
typedef struct {
    rt_layout *l;
} layout_box;

static int layout_gc(lua_State *L)
{
    layout_box *b = luaL_checkudata(L, 1, LAYOUT_T);
    rt_layout_free(b->l);
    b->l = NULL;
    return 0;
}

static double field_num(lua_State *L, int t, const char *k, double def, const char *what, lua_Integer i)
{
    lua_getfield(L, t, k);
    double v = def;
    if (!lua_isnil(L, -1)) {
        int ok;
        v = lua_tonumberx(L, -1, &ok);
        if (!ok)
            luaL_error(L, "layout: %s %d: %s must be a number", what, (int)i, k);
    }
    lua_pop(L, 1);
    return v;
}

static size_t list_len(lua_State *L, int t, const char *k)
{
    if (lua_getfield(L, t, k) != LUA_TTABLE)
        luaL_error(L, "layout: %s must be a list", k);
    size_t n = (size_t)luaL_len(L, -1);
    lua_pop(L, 1);
    return n;
}

static void push_xy(lua_State *L, double x, double y)
{
    lua_createtable(L, 2, 0);
    lua_pushnumber(L, x);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, y);
    lua_rawseti(L, -2, 2);
}

static int l_layout(lua_State *L)
{
    luaL_checktype(L, 1, LUA_TTABLE);
    static const char *const engines[] = {"dot", "neato", NULL};
    lua_getfield(L, 1, "engine");
    int engine = luaL_checkoption(L, -1, "dot", engines);
    lua_pop(L, 1);
    size_t nn = list_len(L, 1, "nodes"), ne = list_len(L, 1, "edges");
    /* scratch arrays as userdata: collected even when a conversion raises */
    rt_gnode *nodes = lua_newuserdatauv(L, (nn ? nn : 1) * sizeof *nodes, 0);
    rt_gedge *edges = lua_newuserdatauv(L, (ne ? ne : 1) * sizeof *edges, 0);
    lua_getfield(L, 1, "nodes");
    for (size_t i = 0; i < nn; i++) {
        if (lua_rawgeti(L, -1, (lua_Integer)i + 1) != LUA_TTABLE)
            return luaL_error(L, "layout: node %d must be a table", (int)i + 1);
        nodes[i].w = field_num(L, -1, "w", 0, "node", (lua_Integer)i + 1);
        nodes[i].h = field_num(L, -1, "h", 0, "node", (lua_Integer)i + 1);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);
    lua_getfield(L, 1, "edges");
    for (size_t i = 0; i < ne; i++) {
        lua_Integer k = (lua_Integer)i + 1;
        if (lua_rawgeti(L, -1, k) != LUA_TTABLE)
            return luaL_error(L, "layout: edge %d must be a table", (int)k);
        double from = field_num(L, -1, "from", 0, "edge", k), to = field_num(L, -1, "to", 0, "edge", k);
        if (!(from >= 1 && from <= (double)nn) || !(to >= 1 && to <= (double)nn))
            return luaL_error(L, "layout: edge %d: from and to must be node numbers 1..%d", (int)k, (int)nn);
        edges[i].from = (size_t)from - 1;
        edges[i].to = (size_t)to - 1;
        edges[i].weight = field_num(L, -1, "weight", 1, "edge", k);
        edges[i].label_w = field_num(L, -1, "label_w", 0, "edge", k);
        edges[i].label_h = field_num(L, -1, "label_h", 0, "edge", k);
        lua_pop(L, 1);
    }
    lua_pop(L, 1);

    layout_box *b = lua_newuserdatauv(L, sizeof *b, 0);
    b->l = NULL;
    luaL_setmetatable(L, LAYOUT_T);
    rt_err err;
    rt_err_clear(&err);
    if (rt_layout_run(nodes, nn, edges, ne, engine == 0 ? RT_LAYOUT_DOT : RT_LAYOUT_NEATO, &b->l, &err))
        return rt_push_fail(L, &err);
    const rt_layout *l = b->l;
    lua_createtable(L, 0, 4);
    rt_set_num(L, "width", l->width);
    rt_set_num(L, "height", l->height);
    lua_createtable(L, (int)nn, 0);
    for (size_t i = 0; i < nn; i++) {
        push_xy(L, l->node_xy[2 * i], l->node_xy[2 * i + 1]);
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "nodes");
    lua_createtable(L, (int)ne, 0);
    for (size_t i = 0; i < ne; i++) {
        const rt_gedge_out *o = &l->edges[i];
        lua_createtable(L, 0, 3);
        lua_createtable(L, (int)(2 * o->npts), 0);
        for (size_t j = 0; j < 2 * o->npts; j++) {
            lua_pushnumber(L, o->pts[j]);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
        }
        lua_setfield(L, -2, "points");
        if (o->has_head) {
            push_xy(L, o->head_x, o->head_y);
            lua_setfield(L, -2, "head");
        }
        if (o->has_label) {
            push_xy(L, o->label_x, o->label_y);
            lua_setfield(L, -2, "label");
        }
        lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    lua_setfield(L, -2, "edges");
    return 1;
}

static const luaL_Reg funcs[] = {
    {"layout", l_layout},
    {NULL, NULL},
};

int rt_lopen_graph(lua_State *L)
{
    static const luaL_Reg none[] = {{NULL, NULL}};
    rt_new_class(L, LAYOUT_T, none, layout_gc);
    luaL_newlib(L, funcs);
    return 1;
}
