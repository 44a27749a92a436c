/* Tests of core/msg/rt_medea: the worked user-event example of the MEDEA report
 * (Table 5), processor categories and nesting, profiles, and a check of the
 * processor sums against a direct interval computation on random nestings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_medea.h"

static void feed(rt_medea *m, int rectype, int event, double t, int proc, double bytes)
{
    rt_medea_rec r = {rectype, event, t, proc, bytes, 0};
    rt_err err;
    assert_int_equal(rt_medea_add(m, &r, &err), RT_OK);
}

#define NEAR(a, b) assert_true(fabs((a) - (b)) < 1e-12)

static void table5(rt_medea *m)
{
    feed(m, -3, 0, 0.000016, 6, 0);
    feed(m, -3, -52, 0.000128, 6, -1);
    feed(m, -4, -52, 0.000516, 6, 8);
    feed(m, -3, 1, 0.000711, 6, 0);
    feed(m, -3, -52, 0.000818, 6, -1);
    feed(m, -4, -52, 0.001643, 6, 8);
    feed(m, -3, -21, 0.001665, 6, 8);
    feed(m, -4, -21, 0.001711, 6, -1);
    feed(m, -3, 2, 0.001982, 6, -1);
    feed(m, -4, 2, 0.002005, 6, -1);
    feed(m, -4, 1, 0.002013, 6, -1);
    feed(m, -4, 0, 0.002067, 6, -1);
}

static void test_table5(void **state)
{
    (void)state;
    rt_medea *m = rt_medea_new();
    table5(m);
    assert_int_equal(rt_medea_nevents(m), 3);
    rt_medea_event e;
    rt_medea_event_get(m, 0, &e);
    assert_int_equal(e.proc, 6);
    assert_int_equal(e.event, 0);
    NEAR(e.ctime, 0.002051);
    NEAR(e.stime, 0.000388);
    NEAR(e.utime, 0.001302);
    NEAR(e.hstime, 0.000871);
    assert_int_equal(e.cnum, 1);
    assert_int_equal(e.snum, 1);
    assert_int_equal(e.unum, 1);
    assert_int_equal(e.hsnum, 2);
    assert_int_equal(e.hunum, 1);
    /* event 1: two system children, one user child */
    rt_medea_event_get(m, 1, &e);
    assert_int_equal(e.event, 1);
    NEAR(e.ctime, 0.002013 - 0.000711);
    NEAR(e.stime, (0.001643 - 0.000818) + (0.001711 - 0.001665));
    assert_int_equal(e.snum, 2);
    assert_int_equal(e.unum, 1);
    assert_int_equal(e.hsnum, 0);

    /* processor view of the same records */
    assert_int_equal(rt_medea_nprocs(m), 1);
    rt_medea_proc p;
    rt_medea_proc_get(m, 0, &p);
    NEAR(p.extime, 0.002067 - 0.000016);
    NEAR(p.time[RT_MEDEA_RC], 0.000388 + 0.000825);
    NEAR(p.time[RT_MEDEA_TR], 0.000046);
    NEAR(p.cmtime, 0.000388 + 0.000825 + 0.000046);
    NEAR(p.cptime, p.extime - p.cmtime);
    assert_int_equal(p.trnum, 1);
    assert_int_equal(p.rcnum, 2);
    NEAR(p.trdata, 8);
    NEAR(p.rcdata, 16);
    NEAR(p.ttdata, 24);
    rt_medea_free(m);
}

static void test_categories(void **state)
{
    (void)state;
    assert_int_equal(rt_medea_category(3), -1);
    assert_int_equal(rt_medea_category(-901), -1);
    assert_int_equal(rt_medea_category(-21), RT_MEDEA_TR);
    assert_int_equal(rt_medea_category(-50), RT_MEDEA_TR);
    assert_int_equal(rt_medea_category(-62), RT_MEDEA_RC);
    assert_int_equal(rt_medea_category(-13), RT_MEDEA_IP);
    assert_int_equal(rt_medea_category(-402), RT_MEDEA_CK);
    assert_int_equal(rt_medea_category(-250), RT_MEDEA_IO);
    assert_int_equal(rt_medea_category(-502), RT_MEDEA_RS);
    assert_int_equal(rt_medea_category(-785), RT_MEDEA_CO);
    assert_int_equal(rt_medea_category(-601), RT_MEDEA_SY);
    assert_int_equal(rt_medea_category(-17), RT_MEDEA_SY);
}

/* nested system events: only the outermost is charged; collectives count in
 * cmtime and ttdata; I/O bytes; tracing ignored; unmatched and unclosed */
static void test_nesting_and_volumes(void **state)
{
    (void)state;
    rt_medea *m = rt_medea_new();
    rt_medea_keep_profiles(m, 1);
    feed(m, -3, -901, 0.0, 0, -1);      /* tracing: never pushed */
    feed(m, -3, -785, 1.0, 0, -1);      /* collective */
    feed(m, -3, -21, 1.5, 0, 100);      /* send nested in it: counted, not timed */
    feed(m, -4, -21, 1.7, 0, -1);
    feed(m, -4, -785, 3.0, 0, 400);
    feed(m, -3, -250, 4.0, 0, 64);      /* I/O */
    feed(m, -4, -250, 4.5, 0, -1);
    feed(m, -4, -52, 5.0, 0, 10);       /* exit with no entry */
    feed(m, -3, -402, 6.0, 0, -1);      /* barrier never closed */
    feed(m, -2, -12, 7.0, 0, -1);       /* a mark: only timed */
    rt_medea_proc p;
    rt_medea_proc_get(m, 0, &p);
    NEAR(p.extime, 7.0);
    NEAR(p.time[RT_MEDEA_CO], 2.0);
    NEAR(p.time[RT_MEDEA_TR], 0.0);
    NEAR(p.time[RT_MEDEA_IO], 0.5);
    NEAR(p.cmtime, 2.0);
    NEAR(p.cptime, 7.0 - 2.5);
    assert_int_equal(p.trnum, 1);
    NEAR(p.trdata, 100);
    NEAR(p.ttdata, 100 + 400 + 64);
    NEAR(p.iodata, 64);
    assert_int_equal(p.ionum, 1);
    assert_int_equal(p.unmatched, 1);
    assert_int_equal(p.unclosed, 1);

    const double *t;
    const int *c;
    size_t n;
    rt_err err;
    assert_int_equal(rt_medea_profile(m, RT_MEDEA_P_COMM, &t, &c, &n, &err), RT_OK);
    assert_int_equal(n, 2);
    NEAR(t[0], 1.0);
    assert_int_equal(c[0], 1);
    NEAR(t[1], 3.0);
    assert_int_equal(c[1], 0);
    /* computing: 0..1, 3..4, 4.5..6 (the barrier stays open to the end) */
    assert_int_equal(rt_medea_profile(m, RT_MEDEA_P_COMP, &t, &c, &n, &err), RT_OK);
    assert_int_equal(n, 6);
    double et[] = {0, 1, 3, 4, 4.5, 6};
    int ec[] = {1, 0, 1, 0, 1, 0};
    for (size_t i = 0; i < n; i++) {
        NEAR(t[i], et[i]);
        assert_int_equal(c[i], ec[i]);
    }
    rt_medea_free(m);
}

static void test_bad_record(void **state)
{
    (void)state;
    rt_medea *m = rt_medea_new();
    const double *t;
    const int *c;
    size_t n;
    rt_err perr;
    feed(m, -3, -21, 1.0, 0, 8);
    feed(m, -4, -21, 2.0, 0, -1);
    assert_int_equal(rt_medea_profile(m, RT_MEDEA_P_COMM, &t, &c, &n, &perr), RT_ESTATE);
    assert_int_equal(rt_medea_profile(m, RT_MEDEA_P_EXEC, &t, &c, &n, &perr), RT_OK);
    assert_int_equal(n, 2);
    rt_medea_rec r = {-3, 1, 0.5, -2, -1, 0};
    rt_err err;
    assert_int_equal(rt_medea_add(m, &r, &err), RT_EINVAL);
    assert_string_equal(err.msg, "processor: id -2 outside 0..1048575");
    r.proc = 1;
    r.time = NAN;
    assert_int_equal(rt_medea_add(m, &r, &err), RT_EINVAL);
    assert_string_equal(err.msg, "time: not a finite number");
    rt_medea_free(NULL);
    rt_medea_free(m);
}

/* Close the innermost open event of the random trace below, adding to *sys the
 * system interval that ends when no system event is left open. */
static void close_top(rt_medea *m, int p, double t, const int *stack, int *depth,
                      double *sys_since, double *sys)
{
    int ev = stack[--*depth];
    feed(m, -4, ev, t, p, 1);
    int still = 0;
    for (int k = 0; k < *depth; k++)
        still |= stack[k] < 0;
    if (ev < 0 && !still) {
        *sys += t - *sys_since;
        *sys_since = -1;
    }
}

/* Random well-nested traces on several processors: outermost system time per
 * processor equals the measure of the union of system intervals, computed
 * directly; the profile of computing processors integrates to sum(cptime). */
static void test_random_against_direct(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 50; round++) {
        rt_medea *m = rt_medea_new();
        rt_medea_keep_profiles(m, 1);
        int nproc = 1 + rand() % 4;
        double sys_direct[4] = {0};
        for (int p = 0; p < nproc; p++) {
            double t = rand() % 5;
            int stack[16], depth = 0;
            double sys_since = -1; /* time the outermost open system event began */
            feed(m, -2, -12, t, p, -1);
            for (int step = 0; step < 60; step++) {
                t += 1 + rand() % 3;
                int open = depth < 16 && (depth == 0 || rand() % 2);
                if (open) {
                    int ev = rand() % 2 ? rand() % 3 : -(21 + rand() % 40);
                    if (ev < 0 && sys_since < 0)
                        sys_since = t;
                    stack[depth++] = ev;
                    feed(m, -3, ev, t, p, 1);
                } else {
                    close_top(m, p, t, stack, &depth, &sys_since, &sys_direct[p]);
                }
            }
            while (depth > 0) {
                t += 1;
                close_top(m, p, t, stack, &depth, &sys_since, &sys_direct[p]);
            }
        }
        double cpsum = 0;
        for (int p = 0; p < nproc; p++) {
            rt_medea_proc pp;
            rt_medea_proc_get(m, (size_t)p, &pp);
            NEAR(pp.extime - pp.cptime, sys_direct[p]);
            cpsum += pp.cptime;
        }
        const double *t;
        const int *c;
        size_t n;
        rt_err err;
        assert_int_equal(rt_medea_profile(m, RT_MEDEA_P_COMP, &t, &c, &n, &err), RT_OK);
        double area = 0;
        for (size_t i = 0; i + 1 < n; i++)
            area += c[i] * (t[i + 1] - t[i]);
        assert_int_equal(c[n - 1], 0);
        NEAR(area, cpsum);
        rt_medea_free(m);
    }
}

static int cmp_rec_time(const void *a, const void *b);

/* The same random records fed in time order and processor by processor give identical
 * profiles (see the tests below); batches: also read through a cursor. */
static void profiles_two_orders(int rounds, int maxproc, int steps, int batches);

static int cmp_rec_time(const void *a, const void *b)
{
    const rt_medea_rec *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->proc - y->proc;
}

/* The same random records fed in time order (profiles take the O(n) path: the
 * feed's changes are already sorted, the closing ones merged in) and processor
 * by processor (out of order: the qsort path) give identical profiles, with
 * events left open at the end so closing changes exist. */
static void profiles_two_orders(int rounds, int maxproc, int steps, int batches)
{
    for (int round = 0; round < rounds; round++) {
        rt_medea_rec *recs = malloc((size_t)maxproc * (size_t)steps * sizeof *recs);
        assert_non_null(recs);
        size_t nr = 0;
        int nproc = batches ? maxproc : 1 + rand() % maxproc;
        for (int p = 0; p < nproc; p++) {
            double t = rand() % 5;
            int stack[16], depth = 0;
            for (int step = 0; step < steps; step++) {
                t += 1 + rand() % 3;
                if (depth < 16 && (depth == 0 || rand() % 2)) {
                    int ev = rand() % 2 ? rand() % 3 : -(21 + rand() % 40);
                    stack[depth++] = ev;
                    recs[nr++] = (rt_medea_rec){-3, ev, t, p, 1, 0};
                } else {
                    recs[nr++] = (rt_medea_rec){-4, stack[--depth], t, p, 1, 0};
                }
            }
        }
        rt_medea *byproc = rt_medea_new(), *bytime = rt_medea_new();
        rt_medea_keep_profiles(byproc, 1);
        rt_medea_keep_profiles(bytime, 1);
        rt_err err;
        for (size_t i = 0; i < nr; i++)
            assert_int_equal(rt_medea_add(byproc, &recs[i], &err), RT_OK);
        qsort(recs, nr, sizeof recs[0], cmp_rec_time);
        for (size_t i = 0; i < nr; i++)
            assert_int_equal(rt_medea_add(bytime, &recs[i], &err), RT_OK);
        for (int which = RT_MEDEA_P_EXEC; which <= RT_MEDEA_P_IO; which++) {
            const double *t1, *t2;
            const int *c1, *c2;
            size_t n1, n2;
            assert_int_equal(rt_medea_profile(byproc, which, &t1, &c1, &n1, &err), RT_OK);
            double *tc = malloc((n1 ? n1 : 1) * sizeof *tc);
            int *cc = malloc((n1 ? n1 : 1) * sizeof *cc);
            assert_non_null(tc);
            assert_non_null(cc);
            memcpy(tc, t1, n1 * sizeof *tc); /* the next call frees the outputs */
            memcpy(cc, c1, n1 * sizeof *cc);
            assert_int_equal(rt_medea_profile(bytime, which, &t2, &c2, &n2, &err), RT_OK);
            assert_int_equal(n1, n2);
            for (size_t i = 0; i < n1; i++) {
                assert_true(tc[i] == t2[i]);
                assert_int_equal(cc[i], c2[i]);
                if (i > 0)
                    assert_true(t2[i] > t2[i - 1]);
            }
            if (batches) {
                /* the cursor, in batches of random sizes, gives the same points */
                rt_medea_pcursor *cur = rt_medea_profile_open(byproc, which, &err);
                assert_non_null(cur);
                size_t k = 0, got;
                do {
                    size_t max = 1 + (size_t)(rand() % 5000);
                    double *bt = malloc(max * sizeof *bt);
                    int *bc = malloc(max * sizeof *bc);
                    assert_int_equal(RT_OK, rt_medea_profile_next(cur, bt, bc, max, &got, &err));
                    assert_true(k + got <= n1);
                    for (size_t i = 0; i < got; i++) {
                        assert_true(bt[i] == tc[k + i]);
                        assert_int_equal(bc[i], cc[k + i]);
                    }
                    k += got;
                    free(bt);
                    free(bc);
                } while (got > 0);
                assert_int_equal(n1, k);
                rt_medea_profile_close(cur);
            }
            free(tc);
            free(cc);
        }
        rt_medea_free(byproc);
        rt_medea_free(bytime);
        free(recs);
    }
}

static void test_profiles_sorted_feed(void **state)
{
    (void)state;
    srand(3);
    profiles_two_orders(40, 4, 70, 0);
}

/* Long enough that every activity's change points fill many blocks of 16384 that go to the
 * temporary file: fed processor by processor, each processor's blocks start a new sorted run
 * (merged by the cursor); fed in time order, one run. Read also in batches. */
static void test_profiles_spilled(void **state)
{
    (void)state;
    srand(4);
    profiles_two_orders(2, 6, 150000, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table5),
        cmocka_unit_test(test_profiles_sorted_feed),
        cmocka_unit_test(test_profiles_spilled),
        cmocka_unit_test(test_categories),
        cmocka_unit_test(test_nesting_and_volumes),
        cmocka_unit_test(test_bad_record),
        cmocka_unit_test(test_random_against_direct),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
