/* Tests of core/msg/rt_density.c (the whole-window raster of retrace paragraph
 * --static and the timeline's pyramid) on the hand-made 4-processor trace
 * tests/fixtures/paragraph/hand4.trf (schedule in the pgengine notes):
 * states per cell, messages kept one by one and as a density, a subset of
 * processors, the mix of states, halving and levels; bad options. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_density.h"
#include "rt_replay.h"
#include "rt_tsource_open.h"

/* Replay hand4 into a density of 12 columns over 0 .. 12 s. */
static rt_density *run(int rows, int nsel, const int *sel, int max_lines)
{
    char path[1024];
    rt_err err;
    rt_density_opts o = {12, rows, 0, 12, 4, nsel, sel, max_lines, 0, 0};
    rt_density *d = NULL;
    assert_int_equal(rt_density_new(&o, &d, &err), RT_OK);
    rt_tsource *src = rt_tsource_open(rt_test_fixture(path, sizeof path, "paragraph/hand4.trf"), NULL, &err);
    assert_non_null(src);
    rt_replay_opts ro;
    memset(&ro, 0, sizeof ro);
    rt_density_attach(d, &ro);
    rt_replay *rp = rt_replay_new(src, &ro, &err);
    assert_non_null(rp);
    assert_int_equal(rt_replay_run(rp, &err), RT_OK);
    rt_replay_free(rp);
    rt_tsource_free(src);
    rt_density_finish(d);
    return d;
}

static void test_states_and_lines(void **state)
{
    (void)state;
    rt_density *d = run(4, 0, NULL, 100);
    /* processor 2: idle 0-1, busy 1-5, idle 5-6, busy 6-7, overhead 7-8, busy 8-9, overhead 9-10, idle 10-12 */
    static const int want[12] = {0, 2, 2, 2, 2, 0, 2, 1, 2, 1, 0, 0};
    int32_t g[48];
    rt_density_fill(d, 0, 0, g);
    for (int c = 0; c < 12; c++)
        assert_int_equal(g[2 * 12 + c], want[c]);
    assert_int_equal(rt_density_messages(d), 5);
    assert_int_equal(rt_density_tachyons(d), 0);
    int n = 0;
    const rt_density_line *l = rt_density_lines(d, &n);
    assert_int_equal(n, 5);
    /* the last one paired: 2 -> 3 sent at 9, received at 12 */
    int found = 0;
    for (int i = 0; i < n; i++)
        if (l[i].src == 2 && l[i].dst == 3 && l[i].send == 9 && l[i].recv == 12)
            found = 1;
    assert_true(found);
    rt_density_free(d);
}

static void test_density_counts(void **state)
{
    (void)state;
    rt_density *d = run(4, 0, NULL, 0); /* every message folded */
    int n = -1;
    assert_null(rt_density_lines(d, &n));
    assert_int_equal(n, 0);
    /* 0 -> 1 from (1 s, row 0) to (3 s, row 1): columns 1 .. 3; 0 -> 2 (3 .. 6) and 1 -> 3 (4 .. 9) cross row 1 at 4 */
    assert_int_equal(rt_density_count(d, 1, 0), 1);
    assert_int_equal(rt_density_count(d, 11, 0), 0);
    assert_int_equal(rt_density_max(d), 2);
    assert_int_equal(rt_density_count(d, 4, 1), 2);
    int32_t lv[48];
    rt_density_fill(d, 1, 8, lv);
    assert_int_equal(lv[1 * 12 + 4], 7);
    assert_int_equal(lv[0 * 12 + 11], -1);
    rt_density_free(d);
}

static void test_subset_and_mix(void **state)
{
    (void)state;
    static const int sel[2] = {3, 1};
    rt_density *d = run(4, 2, sel, 100);
    assert_int_equal(rt_density_nsel(d), 2);
    assert_int_equal(rt_density_sel(d, 0), 3);
    assert_int_equal(rt_density_messages(d), 1); /* 1 -> 3 only */
    int n = 0;
    const rt_density_line *l = rt_density_lines(d, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].src, 1); /* processor 1 is at position 1 */
    assert_int_equal(l[0].dst, 0);
    rt_density_free(d);
    /* two processors a row, in quarters: row 0 = processors 0, 1 */
    d = run(2, 0, NULL, 100);
    int32_t g[24];
    rt_density_fill(d, 2, 4, g);
    assert_int_equal(g[1], 2 * 5 + 2);  /* 1-2 s: overhead + busy */
    assert_int_equal(g[2], 2 * 5 + 0);  /* 2-3 s: busy + idle */
    assert_int_equal(g[9], 0);          /* 9-10 s: both idle */
    rt_density_free(d);
}

static void test_pyramid_helpers(void **state)
{
    (void)state;
    const float in[2 * 5] = {1, 2, 3, 4, 5, 10, 20, 30, 40, 50};
    float out[2 * 3];
    rt_density_halve(in, 5, 2, out);
    const float want[6] = {3, 7, 5, 30, 70, 50};
    for (int i = 0; i < 6; i++)
        assert_true(out[i] == want[i]);
    const uint32_t cin[3] = {UINT32_MAX, 1, 7};
    uint32_t cout[2];
    rt_density_halve_counts(cin, 3, 1, cout);
    assert_true(cout[0] == UINT32_MAX && cout[1] == 7);
    const float id[4] = {0, 1, 0, 1}, ov[4] = {0, 1, 2, 0}, bu[4] = {0, 1, 1, 0.5f};
    uint8_t dom[4];
    rt_density_dominant3(id, ov, bu, 4, dom);
    assert_memory_equal(dom, ((uint8_t[]){0, 3, 2, 1}), 4);
    const uint32_t cnt[4] = {0, 1, 3, 15};
    uint8_t lv[4];
    rt_density_levels(cnt, 4, 4, lv);
    /* 1 + floor(4 * log(1 + c) / log(16)), at most 4: 0, 1 + 1, 1 + 2, 4 */
    assert_memory_equal(lv, ((uint8_t[]){0, 2, 3, 4}), 4);
}

static void test_bad_options(void **state)
{
    (void)state;
    rt_err err;
    rt_density *d = NULL;
    rt_density_opts o = {0, 4, 0, 12, 4, 0, NULL, 10, 0, 0};
    assert_int_equal(rt_density_new(&o, &d, &err), RT_EINVAL);
    o.cols = 12;
    o.t1 = 0;
    assert_int_equal(rt_density_new(&o, &d, &err), RT_EINVAL);
    o.t1 = 12;
    static const int sel[1] = {4};
    o.nsel = 1;
    o.sel = sel;
    assert_int_equal(rt_density_new(&o, &d, &err), RT_EINVAL);
    assert_non_null(strstr(err.msg, "processor 4"));
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_states_and_lines), cmocka_unit_test(test_density_counts),
        cmocka_unit_test(test_subset_and_mix), cmocka_unit_test(test_pyramid_helpers),
        cmocka_unit_test(test_bad_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
