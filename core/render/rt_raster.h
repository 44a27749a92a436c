/*
 * rt_raster.h - cell grids written straight into pixel buffers.
 *
 * The pixel side of the canvas: a display hands a grid of cell values and a
 * palette, and every frame 10^5 and more cells become pixels of a 32-bit
 * premultiplied ARGB buffer (Cairo's ARGB32 layout, but no Cairo here: the
 * canvas binding works out where the cells land and passes plain memory).
 * Shaped for animation: one cell row is coloured once, then each of its pixel
 * rows is a memcpy or a masked blend that the compiler vectorises.
 */
#ifndef RT_RASTER_H
#define RT_RASTER_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"

/* How cell values become colours. */
typedef struct rt_cellmap {
    const uint32_t *lut; /* the palette premultiplied, n entries (owned by the caller) */
    int n;               /* palette entries, >= 1 */
    int ranged;          /* 0: the value is the index; 1: [lo, hi) mapped linearly onto the palette */
    double lo, hi;       /* the range when ranged (lo < hi) */
    int opaque;          /* every palette entry has alpha 255 (cells then replace pixels) */
} rt_cellmap;

/*
 * Fill lut (pal->n entries, the caller's memory) with pal premultiplied and
 * set up m. ranged / lo / hi as in rt_cellmap.
 */
void rt_cellmap_init(rt_cellmap *m, const rt_palette *pal, uint32_t *lut, int ranged, double lo,
                     double hi);

/* Colour of a cell value, premultiplied, in *out; 0 when the cell is empty
 * (negative, past the palette, or below lo when ranged). */
static inline int rt_cell_color(const rt_cellmap *m, int32_t v, uint32_t *out)
{
    long i;
    if (m->ranged) {
        if (v < m->lo)
            return 0;
        double f = ((double)v - m->lo) / (m->hi - m->lo);
        i = f >= 1 ? m->n - 1 : (long)(f * m->n);
    } else {
        if ((uint32_t)v >= (uint32_t)m->n)
            return 0;
        i = v;
    }
    *out = m->lut[i];
    return 1;
}

/* A block of cells: columns sx..sx+sw-1, rows sy..sy+sh-1 (0-based). */
typedef struct rt_cellrect {
    int sx, sy, sw, sh;
} rt_cellrect;

/*
 * Write the cells r of grid g into the pixels at data (stride bytes a row):
 * cell (i, j) of r covers the pixels from x0 + i * cw to x0 + (i + 1) * cw,
 * edges rounded to whole pixels so cells tile without seams, and likewise in
 * y; only pixels inside the clip [cx0, cx1) x [cy0, cy1) are touched, and
 * empty cells leave theirs as they were. With gap > 0 the last `gap` pixel
 * columns and rows of each cell larger than that stay as they were too.
 * dirty (may be NULL) gets the pixel box written: x0, y0, x1, y1.
 * Returns RT_OK, or RT_ENOMEM (nothing written).
 */
int rt_raster_grid(unsigned char *data, size_t stride, int cx0, int cy0, int cx1, int cy1,
                   const rt_grid *g, const rt_cellmap *m, rt_cellrect r, double x0, double y0,
                   double cw, double ch, int gap, int dirty[4]);

/*
 * The cells r of g as a picture of r.sw * k x r.sh * k pixels at data (stride
 * bytes a row), each cell k x k pixels; empty cells transparent. For drawing
 * through a scaled image when the fast path does not apply.
 */
void rt_raster_cells(unsigned char *data, size_t stride, const rt_grid *g, const rt_cellmap *m,
                     rt_cellrect r, int k);

#endif
