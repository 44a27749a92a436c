/*
 * canvas_buffers.h - the buffer classes of the canvas module (grids, packed
 * arrays, palettes), kept apart from the drawing code in lcanvas.c.
 */
#ifndef RT_CANVAS_BUFFERS_H
#define RT_CANVAS_BUFFERS_H

#include <lua.h>

/*
 * Register retrace.Grid, retrace.Pack and retrace.Palette and add their
 * constructors (grid, pack, palette, processor_palette) and method tables
 * (grid_methods, pack_methods, palette_methods) to the table on top of the stack.
 */
void rt_canvas_open_buffers(lua_State *L);

#endif
