/*
 * rt_grid.h - buffers that displays draw from in bulk: cell grids, packed item
 * arrays and colour palettes.
 *
 * Shaped for displays that colour hundreds of thousands of cells per frame (a
 * matrix region of a memory canvas, a cache window, a processor array) and for
 * views that draw tens of thousands of rectangles, segments or points. The C
 * side owns these buffers; an engine updates them in place as it runs and the
 * canvas reads them directly, so nothing per cell crosses into Lua.
 *
 * A grid is reference counted: rt_grid_new gives one reference, rt_grid_retain
 * adds one, rt_grid_free drops one and frees at zero. An engine that owns a grid
 * and a Lua view of the same grid can then be released in either order.
 * Packed arrays are reference counted the same way (rt_pack_retain /
 * rt_pack_free); palettes have a single owner.
 */
#ifndef RT_GRID_H
#define RT_GRID_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/* ---- grids ---------------------------------------------------------------- */

/*
 * A 2-D array of int32 cell values, row-major: cell (x, y) is cells[y * w + x].
 * A value is a palette index when drawn; a negative value (or one past the
 * palette) means "no colour": the background shows through.
 */
typedef struct rt_grid {
    int w, h;           /* columns, rows; both >= 1 */
    int32_t *cells;     /* w * h values, owned by the grid */
    int refs;           /* reference count, see the file comment */
} rt_grid;

/*
 * A grid of w x h cells, every cell set to fill. Returns RT_OK and *out, or
 * RT_ERANGE ("grid size: ...") for w or h < 1 or a size that overflows,
 * RT_ENOMEM when memory runs out. *out is NULL on failure.
 */
int rt_grid_new(int w, int h, int32_t fill, rt_grid **out, rt_err *err);

/* Add a reference; returns g. */
rt_grid *rt_grid_retain(rt_grid *g);

/* Drop a reference, freeing at zero; NULL is allowed. */
void rt_grid_free(rt_grid *g);

/* Set every cell to v. */
void rt_grid_fill(rt_grid *g, int32_t v);

/* ---- packed arrays -------------------------------------------------------- */

/*
 * A growable array of items of `stride` doubles each, packed: item i is
 * v[i * stride .. i * stride + stride - 1]. Used for many rectangles
 * (x, y, w, h [, colour index]), segments (x1, y1, x2, y2 [, index]) and points
 * (x, y [, index]).
 */
typedef struct rt_pack {
    int stride;         /* doubles per item, 1..16 */
    size_t n;           /* items in use */
    size_t cap;         /* items allocated */
    double *v;          /* cap * stride doubles */
    int refs;           /* reference count, as for grids */
} rt_pack;

/* An empty packed array; RT_ERANGE for a stride outside 1..16, RT_ENOMEM. */
int rt_pack_new(int stride, rt_pack **out, rt_err *err);

/* Add a reference; returns p. */
rt_pack *rt_pack_retain(rt_pack *p);

/* Drop a reference, freeing at zero; NULL is allowed. */
void rt_pack_free(rt_pack *p);

/*
 * Append one item of p->stride doubles (copied from item). Returns RT_OK or
 * RT_ENOMEM (the array is unchanged then).
 */
int rt_pack_push(rt_pack *p, const double *item);

/* Make room for at least n items in total; RT_OK or RT_ENOMEM. */
int rt_pack_reserve(rt_pack *p, size_t n);

/* ---- palettes ------------------------------------------------------------- */

/* A colour: 0xAARRGGBB, not premultiplied. */
typedef uint32_t rt_rgba;

#define RT_RGBA(r, g, b, a) \
    ((rt_rgba)(((uint32_t)(a) << 24) | ((uint32_t)(r) << 16) | ((uint32_t)(g) << 8) | (uint32_t)(b)))
#define RT_RGBA_A(c) (((c) >> 24) & 0xffu)
#define RT_RGBA_R(c) (((c) >> 16) & 0xffu)
#define RT_RGBA_G(c) (((c) >> 8) & 0xffu)
#define RT_RGBA_B(c) ((c) & 0xffu)

/*
 * A pixel with premultiplied alpha in the same 0xAARRGGBB layout (Cairo's
 * ARGB32) as an rt_rgba, each component divided by alpha with rounding; fully
 * opaque and fully transparent pixels come back unchanged.
 */
static inline rt_rgba rt_rgba_unpremultiply(uint32_t px)
{
    uint32_t a = px >> 24;
    if (a == 0 || a == 255)
        return px;
    uint32_t r = (RT_RGBA_R(px) * 255 + a / 2) / a, g = (RT_RGBA_G(px) * 255 + a / 2) / a,
             b = (RT_RGBA_B(px) * 255 + a / 2) / a;
    return RT_RGBA(r, g, b, a);
}

/* The premultiplied pixel (0xAARRGGBB, Cairo's ARGB32) of colour c, rounding. */
static inline uint32_t rt_rgba_premultiply(rt_rgba c)
{
    uint32_t a = RT_RGBA_A(c);
    if (a == 255)
        return c;
    uint32_t r = (RT_RGBA_R(c) * a + 127) / 255, g = (RT_RGBA_G(c) * a + 127) / 255,
             b = (RT_RGBA_B(c) * a + 127) / 255;
    return (a << 24) | (r << 16) | (g << 8) | b;
}

/* A palette: index -> colour. */
typedef struct rt_palette {
    int n;              /* entries, >= 1 */
    rt_rgba *c;         /* n colours, owned */
} rt_palette;

/* A palette of n entries (1..1<<20), all transparent black. RT_ERANGE, RT_ENOMEM. */
int rt_palette_new(int n, rt_palette **out, rt_err *err);

/* Free; NULL is allowed. */
void rt_palette_free(rt_palette *p);

/* 1 when every entry is fully opaque (alpha 255), else 0. */
int rt_palette_opaque(const rt_palette *p);

/*
 * The processor colour map: n pure colours (1..256) taken at even spacing along
 * the ramp blue -> purple -> red -> orange -> green -> aqua -> white (six linear
 * segments, each moving one component between minimum and maximum, so every
 * pure colour has one component at 255), each followed by `shades` faded copies
 * (0..64) made by subtracting `decay` (1..255) from every component per step,
 * clamped at 0. decay <= 0 picks ceil(255 / (shades + 1)), which leaves the last
 * shade within 255 / (shades + 1) of black.
 *
 * Layout: processor p (0-based), shade s (0 = pure, shades = darkest) is entry
 * p * (shades + 1) + s, so fading one step is index + 1 within a block.
 * With gray != 0 the pure colours are n grey levels from 255 down to 96
 * instead (for monochrome output; distinct for n up to 160), faded the same way.
 * Returns RT_OK and *out, or RT_ERANGE naming the bad parameter, or RT_ENOMEM.
 */
int rt_palette_processors(int n, int shades, int decay, int gray, rt_palette **out,
                          rt_err *err);

/* The pure colour of processor p in a map made as above (0 <= p < n). */
rt_rgba rt_palette_processor_color(int n, int p);

#endif
