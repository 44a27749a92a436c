/* Tests of the order-free sums of core/msg/rt_timeline.c and the split
 * pictures of rt_density.c: a raster's cells do not depend on the order its
 * processors were fed in (random segments, fed processor by processor and
 * interleaved in time), rasters of disjoint processor sets (parts) add up to
 * the whole cell for cell, and the density of hand4 split in parts gives the
 * whole's cells, messages and lines between them. */
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

enum { P = 13, SEGS = 40, COLS = 37, ROWS = 4 };

typedef struct { int proc, state; double t; } change;

/* Random state changes: SEGS per processor at increasing random times in 0 .. 10. */
static void random_changes(change *ch, unsigned seed)
{
    srand(seed);
    for (int p = 0; p < P; p++) {
        double t = 0;
        for (int k = 0; k < SEGS; k++) {
            t += (double)rand() / RAND_MAX * (10.0 / SEGS);
            ch[p * SEGS + k] = (change){p, rand() % RT_NSTATES, t};
        }
    }
}

static int by_time(const void *a, const void *b)
{
    const change *x = a, *y = b;
    return x->t < y->t ? -1 : x->t > y->t ? 1 : x->proc - y->proc;
}

/* A timeline over 0 .. 10 fed ch[0 .. n) in that order; processors p with leave(p) left out. */
static rt_timeline *feed(const change *ch, int n, int part, int parts)
{
    rt_timeline_opts o = {COLS, ROWS, P, 0, 10, 0, NULL, NULL};
    rt_timeline *tl = NULL;
    rt_err err;
    assert_int_equal(rt_timeline_new(&o, &tl, &err), RT_OK);
    for (int p = 0; parts > 1 && p < P; p++)
        if (p % parts != part)
            rt_timeline_leave_out(tl, p);
    for (int i = 0; i < n; i++)
        rt_timeline_state(tl, ch[i].proc, ch[i].t, -1, ch[i].state);
    rt_timeline_advance(tl, 10);
    return tl;
}

static void test_order_free(void **state)
{
    (void)state;
    change ch[P * SEGS];
    for (unsigned seed = 1; seed <= 20; seed++) {
        random_changes(ch, seed);
        rt_timeline *a = feed(ch, P * SEGS, 0, 1); /* processor by processor */
        qsort(ch, P * SEGS, sizeof *ch, by_time);
        rt_timeline *b = feed(ch, P * SEGS, 0, 1); /* interleaved in time */
        size_t na, nb;
        int64_t *ca = rt_timeline_state_cells(a, &na), *cb = rt_timeline_state_cells(b, &nb);
        assert_int_equal(na, (size_t)COLS * ROWS * RT_NSTATES);
        assert_int_equal(na, nb);
        assert_memory_equal(ca, cb, na * sizeof *ca);
        /* every processor is somewhere the whole window: a row holds count x the window, exactly */
        for (int r = 0; r < ROWS; r++) {
            int count = 0;
            rt_timeline_row_procs(a, r, &count);
            int64_t sum = 0;
            for (size_t k = (size_t)r * COLS * RT_NSTATES; k < (size_t)(r + 1) * COLS * RT_NSTATES; k++)
                sum += ca[k];
            assert_true(sum == (int64_t)count * COLS * RT_TIMELINE_UNIT);
        }
        /* the parts of a split (3 of them) add up to the whole, cell for cell */
        int64_t *sum = calloc(na, sizeof *sum);
        for (int part = 0; part < 3; part++) {
            rt_timeline *t = feed(ch, P * SEGS, part, 3);
            size_t n;
            const int64_t *c = rt_timeline_state_cells(t, &n);
            for (size_t k = 0; k < n; k++)
                sum[k] += c[k];
            rt_timeline_free(t);
        }
        assert_memory_equal(sum, ca, na * sizeof *ca);
        free(sum);
        rt_timeline_free(a);
        rt_timeline_free(b);
    }
}

/* hand4 replayed into a density of 12 columns over 0 .. 12 s, part `part` of `parts`. */
static rt_density *run(int rows, int max_lines, int part, int parts)
{
    char path[1024];
    rt_err err;
    rt_density_opts o = {12, rows, 0, 12, 4, 0, NULL, max_lines, part, parts};
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

static void test_density_parts(void **state)
{
    (void)state;
    for (int rows = 2; rows <= 4; rows += 2) {
        rt_density *whole = run(rows, 100, 0, 1);
        int nw = 0;
        const rt_density_line *lw = rt_density_lines(whole, &nw);
        assert_int_equal(nw, 5);
        for (int i = 1; i < nw; i++) /* in the one order: by send time */
            assert_true(lw[i - 1].send <= lw[i].send);
        size_t n;
        int64_t *cw = rt_timeline_state_cells((rt_timeline *)rt_density_timeline(whole), &n);
        for (int parts = 2; parts <= 3; parts++) {
            int64_t *sum = calloc(n, sizeof *sum);
            int64_t messages = 0;
            int seen[5] = {0};
            for (int part = 0; part < parts; part++) {
                rt_density *d = run(rows, 100, part, parts);
                size_t m;
                const int64_t *c = rt_timeline_state_cells((rt_timeline *)rt_density_timeline(d), &m);
                assert_int_equal(m, n);
                for (size_t k = 0; k < m; k++)
                    sum[k] += c[k];
                messages += rt_density_messages(d);
                int nl = 0;
                const rt_density_line *l = rt_density_lines(d, &nl);
                for (int i = 0; i < nl; i++) {
                    assert_int_equal(rt_density_sel(d, l[i].dst) % parts, part); /* its receiver's part */
                    for (int j = 0; j < nw; j++)
                        if (!seen[j] && !memcmp(&l[i], &lw[j], sizeof *l)) {
                            seen[j] = 1;
                            break;
                        }
                }
                rt_density_free(d);
            }
            assert_memory_equal(sum, cw, n * sizeof *sum);
            assert_int_equal(messages, 5);
            for (int j = 0; j < nw; j++)
                assert_int_equal(seen[j], 1);
            free(sum);
        }
        rt_density_free(whole);
    }
}

static void test_bad_part(void **state)
{
    (void)state;
    rt_err err;
    rt_density *d = NULL;
    rt_density_opts o = {12, 4, 0, 12, 4, 0, NULL, 100, 3, 3};
    assert_int_equal(rt_density_new(&o, &d, &err), RT_EINVAL);
    assert_null(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_free),
        cmocka_unit_test(test_density_parts),
        cmocka_unit_test(test_bad_part),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
