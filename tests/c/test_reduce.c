/* Tests of core/util/rt_reduce: hand-computed columns, then the streaming
 * reducer against a slow direct computation (every column scans every value)
 * on random points and random step series fed in random chunks. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "rt_reduce.h"

static void test_hand_points(void **state)
{
    (void)state;
    rt_reduce *r;
    rt_err err;
    /* 4 columns over [0, 8): column i is [2i, 2i + 2) */
    assert_int_equal(rt_reduce_new(4, 0, 8, 0, &r, &err), RT_OK);
    double x[] = {0, 1, 1.5, 5, 8, 9, -1, NAN};
    double y[] = {3, -2, 7, 4, 10, 1, 1, 1};
    assert_int_equal(rt_reduce_add(r, x, 1, y, 1, 8, &err), RT_OK);
    assert_int_equal(r->count[0], 3);
    assert_true(r->min[0] == -2 && r->max[0] == 7 && r->first[0] == 3 && r->last[0] == 7);
    assert_true(fabs(rt_reduce_mean(r, 0) - 8.0 / 3) < 1e-12);
    assert_int_equal(r->count[1], 0);
    assert_true(isnan(rt_reduce_mean(r, 1)));
    assert_int_equal(r->count[2], 1);
    assert_true(r->min[2] == 4);
    assert_int_equal(r->count[3], 1); /* x == x1 goes to the last column */
    assert_true(r->max[3] == 10);
    assert_int_equal(r->outside, 3); /* 9, -1 and NaN */
    rt_reduce_free(r);
}

static void test_hand_steps(void **state)
{
    (void)state;
    rt_reduce *r;
    rt_err err;
    /* 2 columns over [0, 10): value 1 on [0, 3), 4 on [3, 3) (no time), 2 on [3, 7), 0 to 10 */
    assert_int_equal(rt_reduce_new(2, 0, 10, 1, &r, &err), RT_OK);
    double x[] = {0, 3, 3, 7};
    double y[] = {1, 4, 2, 0};
    assert_int_equal(rt_reduce_add(r, x, 1, y, 1, 4, &err), RT_OK);
    assert_int_equal(rt_reduce_finish(r, 10, &err), RT_OK);
    assert_int_equal(r->count[0], 2); /* 1 on [0,3), 2 on [3,5) */
    assert_true(r->min[0] == 1 && r->max[0] == 2 && r->first[0] == 1 && r->last[0] == 2);
    assert_true(fabs(rt_reduce_mean(r, 0) - (1 * 3 + 2 * 2) / 5.0) < 1e-12);
    assert_int_equal(r->count[1], 2); /* 2 on [5,7), 0 on [7,10) */
    assert_true(r->min[1] == 0 && r->max[1] == 2);
    assert_true(fabs(rt_reduce_mean(r, 1) - (2 * 2) / 5.0) < 1e-12);
    /* going back in x is refused, with the values before it kept */
    double xb[] = {11, 10.5};
    double yb[] = {1, 1};
    assert_int_equal(rt_reduce_add(r, xb, 1, yb, 1, 2, &err), RT_EINVAL);
    assert_string_equal(err.msg, "reduce: step series goes back in x (10.5 after 11)");
    rt_reduce_free(r);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    rt_reduce *r;
    rt_err err;
    assert_int_equal(rt_reduce_new(0, 0, 1, 0, &r, &err), RT_EINVAL);
    assert_null(r);
    assert_int_equal(rt_reduce_new(5, 2, 2, 0, &r, &err), RT_EINVAL);
    assert_string_equal(err.msg, "reduce: x range [2, 2] is empty or not finite");
    assert_int_equal(rt_reduce_new(5, 0, INFINITY, 0, &r, &err), RT_EINVAL);
    rt_reduce_free(NULL);
}

static double urand(void) { return rand() / (RAND_MAX + 1.0); }

/* The slow model: per column, scan every value. */
static void check_points(const rt_reduce *r, const double *x, const double *y, size_t n)
{
    for (size_t c = 0; c < r->w; c++) {
        uint64_t cnt = 0;
        double mn = 0, mx = 0, sum = 0, first = 0, last = 0;
        for (size_t k = 0; k < n; k++) {
            if (x[k] < r->x0 || x[k] > r->x1)
                continue;
            /* the column rule of rt_reduce.h: floor((x - x0) / (x1 - x0) * w) */
            size_t col = (size_t)floor((x[k] - r->x0) / (r->x1 - r->x0) * (double)r->w);
            if (col >= r->w)
                col = r->w - 1;
            if (col != c)
                continue;
            if (cnt == 0)
                mn = mx = first = y[k];
            mn = fmin(mn, y[k]);
            mx = fmax(mx, y[k]);
            sum += y[k];
            last = y[k];
            cnt++;
        }
        assert_int_equal(r->count[c], cnt);
        if (cnt) {
            assert_true(r->min[c] == mn && r->max[c] == mx);
            assert_true(r->first[c] == first && r->last[c] == last);
            assert_true(fabs(rt_reduce_mean(r, c) - sum / (double)cnt) <= 1e-9 * (1 + fabs(sum)));
        }
    }
}

static void test_random_points(void **state)
{
    (void)state;
    srand(7);
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + (size_t)(urand() * 3000), w = 1 + (size_t)(urand() * 200);
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        assert_non_null(x);
        assert_non_null(y);
        for (size_t k = 0; k < n; k++) {
            x[k] = -1 + urand() * 12; /* some outside [0, 10] */
            y[k] = urand() * 200 - 100;
        }
        rt_reduce *r;
        rt_err err;
        assert_int_equal(rt_reduce_new(w, 0, 10, 0, &r, &err), RT_OK);
        /* interleave through strides half the time, random chunks */
        for (size_t k = 0; k < n;) {
            size_t m = 1 + (size_t)(urand() * 300);
            if (m > n - k)
                m = n - k;
            assert_int_equal(rt_reduce_add(r, x + k, 1, y + k, 1, m, &err), RT_OK);
            k += m;
        }
        check_points(r, x, y, n);
        rt_reduce_free(r);
        free(x);
        free(y);
    }
}

static void test_random_steps(void **state)
{
    (void)state;
    srand(11);
    for (int round = 0; round < 50; round++) {
        size_t n = 1 + (size_t)(urand() * 2000), w = 1 + (size_t)(urand() * 150);
        double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
        assert_non_null(x);
        assert_non_null(y);
        double t = -0.5;
        for (size_t k = 0; k < n; k++) {
            t += urand() < 0.2 ? 0 : urand() * 20.0 / (double)n; /* some zero-length steps */
            x[k] = t;
            y[k] = (double)(rand() % 17);
        }
        double x_end = t + urand();
        double x0 = 0, x1 = 8;
        rt_reduce *r;
        rt_err err;
        assert_int_equal(rt_reduce_new(w, x0, x1, 1, &r, &err), RT_OK);
        for (size_t k = 0; k < n;) {
            size_t m = 1 + (size_t)(urand() * 200);
            if (m > n - k)
                m = n - k;
            assert_int_equal(rt_reduce_add(r, x + k, 1, y + k, 1, m, &err), RT_OK);
            k += m;
        }
        assert_int_equal(rt_reduce_finish(r, x_end, &err), RT_OK);
        double width = (x1 - x0) / (double)w;
        for (size_t c = 0; c < w; c++) {
            double lo = x0 + (double)c * width, hi = c == w - 1 ? x1 : lo + width;
            uint64_t cnt = 0;
            double mn = 0, mx = 0, sum = 0, wt = 0, first = 0, last = 0;
            for (size_t k = 0; k < n; k++) {
                double a = x[k], b = k + 1 < n ? x[k + 1] : x_end;
                double s = fmax(a, lo), e = fmin(b, hi);
                if (!(e > s))
                    continue;
                if (cnt == 0)
                    mn = mx = first = y[k];
                mn = fmin(mn, y[k]);
                mx = fmax(mx, y[k]);
                sum += y[k] * (e - s);
                wt += e - s;
                last = y[k];
                cnt++;
            }
            assert_int_equal(r->count[c], cnt);
            if (cnt) {
                assert_true(r->min[c] == mn && r->max[c] == mx);
                assert_true(r->first[c] == first && r->last[c] == last);
                assert_true(fabs(rt_reduce_mean(r, c) - sum / wt) <= 1e-9 * (1 + fabs(sum / wt)));
            }
        }
        rt_reduce_free(r);
        free(x);
        free(y);
    }
}

static void test_uniform_and_int(void **state)
{
    (void)state;
    rt_reduce *a, *b;
    rt_err err;
    assert_int_equal(rt_reduce_new(10, 0, 1, 0, &a, &err), RT_OK);
    assert_int_equal(rt_reduce_new(10, 0, 1, 0, &b, &err), RT_OK);
    double x[100], y[100];
    int yi[100];
    for (int k = 0; k < 100; k++) {
        x[k] = k * 0.01;
        yi[k] = (k * 37) % 11;
        y[k] = yi[k];
    }
    assert_int_equal(rt_reduce_add_uniform(a, 0, 0.01, y, 1, 100, &err), RT_OK);
    assert_int_equal(rt_reduce_add_int(b, x, yi, 100, &err), RT_OK);
    check_points(a, x, y, 100);
    check_points(b, x, y, 100);
    rt_reduce_free(a);
    rt_reduce_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_points),   cmocka_unit_test(test_hand_steps),
        cmocka_unit_test(test_bad_arguments), cmocka_unit_test(test_random_points),
        cmocka_unit_test(test_random_steps),  cmocka_unit_test(test_uniform_and_int),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
