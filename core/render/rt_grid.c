/* rt_grid.c - cell grids, packed item arrays and palettes (see rt_grid.h). */
#include "rt_grid.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

int rt_grid_new(int w, int h, int32_t fill, rt_grid **out, rt_err *err)
{
    *out = NULL;
    if (w < 1 || h < 1)
        return rt_err_set(err, RT_ERANGE, "grid size: %d x %d, both must be at least 1", w, h);
    if ((size_t)w > SIZE_MAX / sizeof(int32_t) / (size_t)h || (size_t)w * (size_t)h > (1u << 30))
        return rt_err_set(err, RT_ERANGE, "grid size: %d x %d is too large", w, h);
    rt_grid *g = malloc(sizeof *g);
    if (!g)
        return rt_err_set(err, RT_ENOMEM, "grid: out of memory");
    g->cells = malloc((size_t)w * (size_t)h * sizeof(int32_t));
    if (!g->cells) {
        free(g);
        return rt_err_set(err, RT_ENOMEM, "grid %d x %d: out of memory", w, h);
    }
    g->w = w;
    g->h = h;
    g->refs = 1;
    rt_grid_fill(g, fill);
    *out = g;
    return RT_OK;
}

rt_grid *rt_grid_retain(rt_grid *g)
{
    assert(g && g->refs > 0);
    g->refs++;
    return g;
}

void rt_grid_free(rt_grid *g)
{
    if (!g || --g->refs > 0)
        return;
    free(g->cells);
    free(g);
}

void rt_grid_fill(rt_grid *g, int32_t v)
{
    size_t n = (size_t)g->w * (size_t)g->h;
    if (v == 0 || v == -1) {
        memset(g->cells, v == 0 ? 0 : 0xff, n * sizeof(int32_t));
        return;
    }
    for (size_t i = 0; i < n; i++)
        g->cells[i] = v;
}

/* ---- packed arrays ---- */

int rt_pack_new(int stride, rt_pack **out, rt_err *err)
{
    *out = NULL;
    if (stride < 1 || stride > 16)
        return rt_err_set(err, RT_ERANGE, "packed array stride: %d, must be 1 to 16", stride);
    rt_pack *p = calloc(1, sizeof *p);
    if (!p)
        return rt_err_set(err, RT_ENOMEM, "packed array: out of memory");
    p->stride = stride;
    p->refs = 1;
    *out = p;
    return RT_OK;
}

rt_pack *rt_pack_retain(rt_pack *p)
{
    assert(p && p->refs > 0);
    p->refs++;
    return p;
}

void rt_pack_free(rt_pack *p)
{
    if (!p || --p->refs > 0)
        return;
    free(p->v);
    free(p);
}

int rt_pack_reserve(rt_pack *p, size_t n)
{
    return rt_grow((void **)&p->v, &p->cap, n, (size_t)p->stride * sizeof(double));
}

int rt_pack_push(rt_pack *p, const double *item)
{
    if (p->n == p->cap && rt_pack_reserve(p, p->n + 1) != RT_OK)
        return RT_ENOMEM;
    memcpy(p->v + p->n * (size_t)p->stride, item, (size_t)p->stride * sizeof(double));
    p->n++;
    return RT_OK;
}

/* ---- palettes ---- */

int rt_palette_new(int n, rt_palette **out, rt_err *err)
{
    *out = NULL;
    if (n < 1 || n > (1 << 20))
        return rt_err_set(err, RT_ERANGE, "palette size: %d, must be 1 to %d", n, 1 << 20);
    rt_palette *p = malloc(sizeof *p);
    if (!p)
        return rt_err_set(err, RT_ENOMEM, "palette: out of memory");
    p->c = calloc((size_t)n, sizeof(rt_rgba));
    if (!p->c) {
        free(p);
        return rt_err_set(err, RT_ENOMEM, "palette: out of memory");
    }
    p->n = n;
    *out = p;
    return RT_OK;
}

void rt_palette_free(rt_palette *p)
{
    if (!p)
        return;
    free(p->c);
    free(p);
}

int rt_palette_opaque(const rt_palette *p)
{
    for (int i = 0; i < p->n; i++)
        if (RT_RGBA_A(p->c[i]) != 255)
            return 0;
    return 1;
}

/*
 * The ramp's seven stations; between two neighbours exactly one component
 * moves linearly between 0 and 255, so the path has six segments of equal
 * length and every point on it has one component at 255.
 */
static const unsigned char ramp[7][3] = {
    {0, 0, 255},     /* blue */
    {255, 0, 255},   /* purple: red rises */
    {255, 0, 0},     /* red: blue falls */
    {255, 255, 0},   /* orange/yellow: green rises */
    {0, 255, 0},     /* green: red falls */
    {0, 255, 255},   /* aqua: blue rises */
    {255, 255, 255}, /* white: red rises */
};

rt_rgba rt_palette_processor_color(int n, int p)
{
    assert(n >= 1 && p >= 0 && p < n);
    /* position along the path in units of 1/255 of a segment */
    long span = 6 * 255;
    long pos = n == 1 ? 0 : (long)llround((double)p * (double)span / (double)(n - 1));
    int seg = (int)(pos / 255);
    int f = (int)(pos % 255);
    if (seg >= 6) {
        seg = 5;
        f = 255;
    }
    int c[3];
    for (int k = 0; k < 3; k++)
        c[k] = ramp[seg][k] + (ramp[seg + 1][k] - ramp[seg][k]) * f / 255;
    return RT_RGBA(c[0], c[1], c[2], 255);
}

int rt_palette_processors(int n, int shades, int decay, int gray, rt_palette **out,
                          rt_err *err)
{
    *out = NULL;
    if (n < 1 || n > 256)
        return rt_err_set(err, RT_ERANGE, "processor palette: %d processors, must be 1 to 256", n);
    if (shades < 0 || shades > 64)
        return rt_err_set(err, RT_ERANGE, "processor palette: %d shades, must be 0 to 64", shades);
    if (decay > 255)
        return rt_err_set(err, RT_ERANGE, "processor palette: decay %d, must be at most 255", decay);
    if (decay <= 0)
        decay = (255 + shades) / (shades + 1);
    int st = rt_palette_new(n * (shades + 1), out, err);
    if (st != RT_OK)
        return st;
    rt_palette *pal = *out;
    for (int p = 0; p < n; p++) {
        int c[3];
        if (gray) {
            /* light to mid grey: 255 down to 96 in even steps */
            int v = n == 1 ? 255 : 255 - (255 - 96) * p / (n - 1);
            c[0] = c[1] = c[2] = v;
        } else {
            rt_rgba pure = rt_palette_processor_color(n, p);
            c[0] = (int)RT_RGBA_R(pure);
            c[1] = (int)RT_RGBA_G(pure);
            c[2] = (int)RT_RGBA_B(pure);
        }
        for (int s = 0; s <= shades; s++) {
            int d = s * decay;
            pal->c[p * (shades + 1) + s] = RT_RGBA(c[0] > d ? c[0] - d : 0, c[1] > d ? c[1] - d : 0,
                                                   c[2] > d ? c[2] - d : 0, 255);
        }
    }
    return RT_OK;
}
