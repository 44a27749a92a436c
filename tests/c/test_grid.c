/* Tests of core/util/rt_grid: grids and packed arrays (against plain arrays on
 * random input), reference counting, and the processor palette's properties. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_grid.h"
#include "rt_raster.h"

static void test_grid_new_fill_refs(void **state)
{
    (void)state;
    rt_grid *g;
    rt_err err;
    assert_int_equal(rt_grid_new(3, 2, 7, &g, &err), RT_OK);
    for (int i = 0; i < 6; i++)
        assert_int_equal(g->cells[i], 7);
    rt_grid_fill(g, -1);
    for (int i = 0; i < 6; i++)
        assert_int_equal(g->cells[i], -1);
    rt_grid_fill(g, 123456);
    assert_int_equal(g->cells[5], 123456);
    assert_ptr_equal(rt_grid_retain(g), g);
    assert_int_equal(g->refs, 2);
    rt_grid_free(g); /* the other reference keeps it */
    assert_int_equal(g->refs, 1);
    g->cells[0] = 1;
    rt_grid_free(g);
    rt_grid_free(NULL);
}

static void test_grid_bad_sizes(void **state)
{
    (void)state;
    rt_grid *g = (rt_grid *)1;
    rt_err err;
    assert_int_equal(rt_grid_new(-5, 10, 0, &g, &err), RT_ERANGE);
    assert_null(g);
    assert_string_equal(err.msg, "grid size: -5 x 10, both must be at least 1");
    assert_int_equal(rt_grid_new(1 << 16, 1 << 16, 0, &g, &err), RT_ERANGE);
    assert_string_equal(err.msg, "grid size: 65536 x 65536 is too large");
}

static void test_pack_random_against_array(void **state)
{
    (void)state;
    srand(11);
    rt_pack *p;
    rt_err err;
    assert_int_equal(rt_pack_new(5, &p, &err), RT_OK);
    enum { N = 5000 };
    double *ref = malloc(sizeof(double) * 5 * N);
    for (int i = 0; i < N; i++) {
        double item[5];
        for (int k = 0; k < 5; k++)
            item[k] = ref[i * 5 + k] = (double)rand() / RAND_MAX;
        assert_int_equal(rt_pack_push(p, item), RT_OK);
    }
    assert_int_equal(p->n, N);
    assert_true(p->cap >= N);
    assert_memory_equal(p->v, ref, sizeof(double) * 5 * N);
    free(ref);
    rt_pack_retain(p);
    rt_pack_free(p);
    rt_pack_free(p);
    assert_int_equal(rt_pack_new(0, &p, &err), RT_ERANGE);
    assert_string_equal(err.msg, "packed array stride: 0, must be 1 to 16");
}

static int sum(rt_rgba c) { return (int)(RT_RGBA_R(c) + RT_RGBA_G(c) + RT_RGBA_B(c)); }
static int maxc(rt_rgba c)
{
    int r = (int)RT_RGBA_R(c), g = (int)RT_RGBA_G(c), b = (int)RT_RGBA_B(c);
    return r > g ? (r > b ? r : b) : (g > b ? g : b);
}

/* The seed's properties for n processors and k shades. */
static void check_processor_palette(int n, int k)
{
    rt_palette *pal;
    rt_err err;
    assert_int_equal(rt_palette_processors(n, k, 0, 0, &pal, &err), RT_OK);
    assert_int_equal(pal->n, n * (k + 1));
    for (int p = 0; p < n; p++) {
        rt_rgba pure = pal->c[p * (k + 1)];
        assert_int_equal(pure, rt_palette_processor_color(n, p));
        assert_int_equal(RT_RGBA_A(pure), 255);
        assert_int_equal(maxc(pure), 255); /* on the ramp: one component full */
        for (int q = 0; q < p; q++)        /* pure colours pairwise distinct */
            assert_int_not_equal(pure, pal->c[q * (k + 1)]);
        /* each fade strictly darker: no component rises, the sum falls */
        for (int s = 1; s <= k; s++) {
            rt_rgba a = pal->c[p * (k + 1) + s - 1], b = pal->c[p * (k + 1) + s];
            assert_true(RT_RGBA_R(b) <= RT_RGBA_R(a) && RT_RGBA_G(b) <= RT_RGBA_G(a) &&
                        RT_RGBA_B(b) <= RT_RGBA_B(a));
            assert_true(sum(b) < sum(a));
        }
        /* ending near black: every component within 255 / (k + 1) of 0 */
        assert_true(maxc(pal->c[p * (k + 1) + k]) <= 255 / (k + 1) + 1);
    }
    rt_palette_free(pal);
}

/* The pixel renderer against a cell-by-cell model: each pixel takes the colour
 * of the cell whose rounded edges contain it, inside the clip; empty cells and
 * pixels outside the clip keep the background. */
static void test_raster_grid_model(void **state)
{
    (void)state;
    enum { W = 23, H = 17 };
    rt_err err;
    rt_grid *g;
    assert_int_equal(rt_grid_new(5, 3, -1, &g, &err), RT_OK);
    for (int k = 0; k < 15; k++)
        g->cells[k] = k % 4 == 3 ? -1 : k % 4; /* palette 0..2, every fourth cell empty */
    rt_palette *pal;
    assert_int_equal(rt_palette_new(3, &pal, &err), RT_OK);
    pal->c[0] = RT_RGBA(255, 0, 0, 255);
    pal->c[1] = RT_RGBA(0, 255, 0, 255);
    pal->c[2] = RT_RGBA(0, 0, 255, 128); /* premultiplied on the way: 0x80000080 */
    uint32_t lut[3];
    rt_cellmap m;
    rt_cellmap_init(&m, pal, lut, 0, 0, 0);
    assert_false(m.opaque);
    assert_int_equal(lut[2], 0x80000080u);
    uint32_t px[W * H];
    for (int i = 0; i < W * H; i++)
        px[i] = 0xff777777u;
    rt_cellrect r = {0, 0, 5, 3};
    double x0 = 1.3, y0 = 2.6, cw = 3.7, ch = 4.2;
    int cx0 = 3, cy0 = 1, cx1 = 20, cy1 = 16, box[4];
    assert_int_equal(rt_raster_grid((unsigned char *)px, W * sizeof(uint32_t), cx0, cy0, cx1, cy1, g, &m,
                                    r, x0, y0, cw, ch, 0, box),
                     RT_OK);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            uint32_t want = 0xff777777u;
            if (x >= cx0 && x < cx1 && y >= cy0 && y < cy1) {
                for (int j = 0; j < 3; j++) {
                    for (int i = 0; i < 5; i++) {
                        long a = lround(x0 + i * cw), b = lround(x0 + (i + 1) * cw);
                        long c = lround(y0 + j * ch), d = lround(y0 + (j + 1) * ch);
                        int v = g->cells[j * 5 + i];
                        if (x >= a && x < b && y >= c && y < d && v >= 0)
                            want = lut[v];
                    }
                }
            }
            assert_int_equal(px[y * W + x], want);
        }
    }
    /* the box written, clamped to the clip */
    assert_int_equal(box[0], 3);
    assert_int_equal(box[1], 3);
    assert_int_equal(box[2], 20);
    assert_int_equal(box[3], 15);
    /* one picture pixel per cell, scaled by k = 2 */
    uint32_t img[10 * 6];
    rt_raster_cells((unsigned char *)img, 10 * sizeof(uint32_t), g, &m, r, 2);
    assert_int_equal(img[0], lut[0]);
    assert_int_equal(img[1 * 10 + 1], lut[0]);
    assert_int_equal(img[0 * 10 + 2], lut[1]);
    assert_int_equal(img[0 * 10 + 6], 0u); /* cell 3 is empty: transparent */
    assert_int_equal(img[5 * 10 + 9], lut[14 % 4]);
    rt_palette_free(pal);
    rt_grid_free(g);
}

static void test_processor_palette_4_16_64(void **state)
{
    (void)state;
    check_processor_palette(4, 8);
    check_processor_palette(16, 8);
    check_processor_palette(64, 8);
    check_processor_palette(64, 3);
    check_processor_palette(256, 4);
    check_processor_palette(1, 8);
}

static void test_processor_palette_ramp(void **state)
{
    (void)state;
    /* 7 colours land on the ramp's stations: blue purple red orange green aqua white */
    const rt_rgba want[7] = {RT_RGBA(0, 0, 255, 255),   RT_RGBA(255, 0, 255, 255),
                             RT_RGBA(255, 0, 0, 255),   RT_RGBA(255, 255, 0, 255),
                             RT_RGBA(0, 255, 0, 255),   RT_RGBA(0, 255, 255, 255),
                             RT_RGBA(255, 255, 255, 255)};
    for (int p = 0; p < 7; p++)
        assert_int_equal(rt_palette_processor_color(7, p), want[p]);
    /* 13 colours: the half-way shades between stations */
    assert_int_equal(rt_palette_processor_color(13, 1), RT_RGBA(128, 0, 255, 255));
    assert_int_equal(rt_palette_processor_color(13, 3), RT_RGBA(255, 0, 127, 255));
    assert_int_equal(rt_palette_processor_color(1, 0), RT_RGBA(0, 0, 255, 255));
    /* an explicit decay: white fades 255 -> 215 -> 175 */
    rt_palette *pal;
    rt_err err;
    assert_int_equal(rt_palette_processors(7, 2, 40, 0, &pal, &err), RT_OK);
    assert_int_equal(pal->c[6 * 3 + 1], RT_RGBA(215, 215, 215, 255));
    assert_int_equal(pal->c[6 * 3 + 2], RT_RGBA(175, 175, 175, 255));
    /* blue with decay 40 reaches 0 in the red and green it never had */
    assert_int_equal(pal->c[1], RT_RGBA(0, 0, 215, 255));
    rt_palette_free(pal);
}

static void test_processor_palette_gray_and_errors(void **state)
{
    (void)state;
    rt_palette *pal;
    rt_err err;
    assert_int_equal(rt_palette_processors(4, 2, 0, 1, &pal, &err), RT_OK);
    for (int i = 0; i < pal->n; i++) {
        rt_rgba c = pal->c[i];
        assert_true(RT_RGBA_R(c) == RT_RGBA_G(c) && RT_RGBA_G(c) == RT_RGBA_B(c));
    }
    for (int p = 1; p < 4; p++)
        assert_true(RT_RGBA_R(pal->c[p * 3]) < RT_RGBA_R(pal->c[(p - 1) * 3]));
    rt_palette_free(pal);
    /* 160 grey levels from 255 to 96: all distinct */
    assert_int_equal(rt_palette_processors(160, 0, 0, 1, &pal, &err), RT_OK);
    for (int p = 1; p < 160; p++)
        assert_true(RT_RGBA_R(pal->c[p]) < RT_RGBA_R(pal->c[p - 1]));
    assert_int_equal(RT_RGBA_R(pal->c[159]), 96);
    rt_palette_free(pal);
    assert_int_equal(rt_palette_processors(0, 8, 0, 0, &pal, &err), RT_ERANGE);
    assert_string_equal(err.msg, "processor palette: 0 processors, must be 1 to 256");
    assert_int_equal(rt_palette_processors(257, 8, 0, 0, &pal, &err), RT_ERANGE);
    assert_int_equal(rt_palette_processors(4, 65, 0, 0, &pal, &err), RT_ERANGE);
    assert_string_equal(err.msg, "processor palette: 65 shades, must be 0 to 64");
    assert_int_equal(rt_palette_processors(4, 8, 300, 0, &pal, &err), RT_ERANGE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grid_new_fill_refs),
        cmocka_unit_test(test_grid_bad_sizes),
        cmocka_unit_test(test_pack_random_against_array),
        cmocka_unit_test(test_raster_grid_model),
        cmocka_unit_test(test_processor_palette_4_16_64),
        cmocka_unit_test(test_processor_palette_ramp),
        cmocka_unit_test(test_processor_palette_gray_and_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
