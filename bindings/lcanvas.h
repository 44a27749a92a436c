/*
 * lcanvas.h - the canvas binding's C face for other bindings.
 *
 * A binding whose core object owns a grid (a memory canvas, a cache window, a
 * processor array) or a packed array hands it to Lua with rt_lcanvas_push_grid /
 * rt_lcanvas_push_pack: the view takes a reference on the buffer (rt_grid_retain)
 * and keeps the owning Lua value alive through its user value, so the engine
 * may keep writing into the buffer while Lua draws it each frame. Displays then
 * pass the view to canvas:grid / canvas:rects / ... and no cell crosses into Lua.
 * The views' metatables are registered when retrace.core opens (before any
 * binding function can run), so these may be called from any binding function.
 */
#ifndef RT_LCANVAS_H
#define RT_LCANVAS_H

#include <cairo.h>
#include <lua.h>

#include "rt_grid.h"

/*
 * Push a "retrace.Grid" view of g. Takes a reference on g (the caller keeps its
 * own). owner: stack index of the Lua value that owns g (kept alive as the
 * view's user value), or 0 for none.
 */
void rt_lcanvas_push_grid(lua_State *L, rt_grid *g, int owner);

/* Same for a packed array: a "retrace.Pack" view. */
void rt_lcanvas_push_pack(lua_State *L, rt_pack *p, int owner);

/* The grid of the "retrace.Grid" at index i; raises on anything else. */
rt_grid *rt_lcanvas_check_grid(lua_State *L, int i);

/* The packed array of the "retrace.Pack" at index i; raises on anything else. */
rt_pack *rt_lcanvas_check_pack(lua_State *L, int i);

/* The palette of the "retrace.Palette" at index i; raises on anything else. */
rt_palette *rt_lcanvas_check_palette(lua_State *L, int i);

/* The Cairo context of the open "retrace.Canvas" at index i (for bindings that draw). */
cairo_t *rt_lcanvas_check_cairo(lua_State *L, int i);

#endif
