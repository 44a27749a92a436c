/* rt_raster.c - cell grids written straight into pixel buffers (see rt_raster.h). */
#include "rt_raster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void rt_cellmap_init(rt_cellmap *m, const rt_palette *pal, uint32_t *lut, int ranged, double lo,
                     double hi)
{
    for (int i = 0; i < pal->n; i++)
        lut[i] = rt_rgba_premultiply(pal->c[i]);
    m->lut = lut;
    m->n = pal->n;
    m->ranged = ranged;
    m->lo = lo;
    m->hi = hi;
    m->opaque = rt_palette_opaque(pal);
}

/* dst[k] = mask[k] ? src[k] : dst[k], eight pixels at a time (GCC vector
 * extension; the xor form needs no branch, so the loop vectorises) */
typedef uint32_t rt_v8u __attribute__((vector_size(32)));

static void blend_row(uint32_t *dst, const uint32_t *src, const uint32_t *mask, int n)
{
    int k = 0;
    for (; k + 8 <= n; k += 8) {
        rt_v8u d, sv, mv;
        memcpy(&d, dst + k, sizeof d);
        memcpy(&sv, src + k, sizeof sv);
        memcpy(&mv, mask + k, sizeof mv);
        d = ((sv ^ d) & mv) ^ d;
        memcpy(dst + k, &d, sizeof d);
    }
    for (; k < n; k++)
        dst[k] = ((src[k] ^ dst[k]) & mask[k]) ^ dst[k];
}

static int clamp(long v, int lo, int hi)
{
    return (int)(v < lo ? lo : v > hi ? hi : v);
}

int rt_raster_grid(unsigned char *data, size_t stride, int cx0, int cy0, int cx1, int cy1,
                   const rt_grid *g, const rt_cellmap *m, rt_cellrect r, double x0, double y0,
                   double cw, double ch, int gap, int dirty[4])
{
    /* pixel edges of the columns and rows, clamped to the clip: computed once,
     * so neighbouring cells share their edge and never overlap or leave a seam */
    int *xs = malloc(((size_t)r.sw + 1 + (size_t)r.sh + 1) * sizeof(int));
    if (!xs)
        return RT_ENOMEM;
    int *ys = xs + r.sw + 1;
    for (int i = 0; i <= r.sw; i++)
        xs[i] = clamp(lround(x0 + i * cw), cx0, cx1);
    for (int j = 0; j <= r.sh; j++)
        ys[j] = clamp(lround(y0 + j * ch), cy0, cy1);

    /*
     * One cell row at a time: its pixel row (line) and a mask of the pixels
     * that have a colour are made once, then every pixel row of the cell row
     * is a copy (no empty cells) or a masked blend, both simple loops over
     * whole rows.
     */
    int lo = xs[0], hi = xs[r.sw], span = hi - lo;
    uint32_t *line = malloc((size_t)(span > 0 ? span : 1) * 2 * sizeof(uint32_t));
    if (!line) {
        free(xs);
        return RT_ENOMEM;
    }
    uint32_t *mask = line + span;
    for (int j = 0; j < r.sh; j++) {
        int py0 = ys[j], py1 = ys[j + 1];
        if (py1 <= py0)
            continue;
        const int32_t *row = g->cells + (size_t)(r.sy + j) * (size_t)g->w + r.sx;
        int gaps = gap > 0;
        for (int i = 0; i < r.sw; i++) {
            uint32_t c = 0, mk = 0xffffffffu;
            if (!rt_cell_color(m, row[i], &c)) {
                mk = 0;
                gaps = 1;
            }
            /* with a gap, the last `gap` pixels of a cell wider than it stay as they were */
            int edge = xs[i + 1] - xs[i] > gap ? xs[i + 1] - gap : xs[i + 1];
            for (int px = xs[i]; px < xs[i + 1]; px++) {
                line[px - lo] = c;
                mask[px - lo] = px < edge ? mk : 0;
            }
        }
        if (gap > 0 && py1 - py0 > gap)
            py1 -= gap;
        for (int py = py0; py < py1; py++) {
            uint32_t *dst = (uint32_t *)(data + (size_t)py * stride) + lo;
            if (!gaps)
                memcpy(dst, line, (size_t)span * sizeof(uint32_t));
            else
                blend_row(dst, line, mask, span);
        }
    }
    if (dirty) {
        dirty[0] = xs[0];
        dirty[1] = ys[0];
        dirty[2] = xs[r.sw];
        dirty[3] = ys[r.sh];
    }
    free(line);
    free(xs);
    return RT_OK;
}

void rt_raster_cells(unsigned char *data, size_t stride, const rt_grid *g, const rt_cellmap *m,
                     rt_cellrect r, int k)
{
    for (int j = 0; j < r.sh * k; j++) {
        const int32_t *row = g->cells + (size_t)(r.sy + j / k) * (size_t)g->w + r.sx;
        uint32_t *dst = (uint32_t *)(data + (size_t)j * stride);
        for (int i = 0; i < r.sw * k; i++) {
            uint32_t c;
            dst[i] = rt_cell_color(m, row[i / k], &c) ? c : 0;
        }
    }
}
