/*
 * test_linalg.c - the GSL numerics behind MEDEA's principal components and
 * Chitra's prediction intervals (core/util/rt_linalg.c), against hand-computed
 * values: a 2 x 2 and a diagonal 3 x 3 eigenproblem, a four-point line fit with its
 * covariance, a two-point fit (no residual variance), and refusals.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt_linalg.h"

static void eigen_by_hand(void **state)
{
    (void)state;
    /* [[2, 1], [1, 2]]: values 3 and 1, vectors (1, 1) / sqrt 2 and (1, -1) / sqrt 2 */
    const double a[4] = {2, 1, 1, 2};
    double v[2], e[4];
    rt_err err;
    assert_int_equal(RT_OK, rt_eigen_sym(a, 2, v, e, &err));
    assert_true(fabs(v[0] - 3) < 1e-12 && fabs(v[1] - 1) < 1e-12);
    assert_true(fabs(fabs(e[0]) - sqrt(0.5)) < 1e-12 && fabs(e[0] - e[1]) < 1e-12);
    assert_true(fabs(e[2] + e[3]) < 1e-12);
    /* diagonal: the values sorted, largest first, unit axes */
    const double d[9] = {1, 0, 0, 0, 5, 0, 0, 0, 3};
    double v3[3], e3[9];
    assert_int_equal(RT_OK, rt_eigen_sym(d, 3, v3, e3, &err));
    assert_true(fabs(v3[0] - 5) < 1e-12 && fabs(v3[1] - 3) < 1e-12 && fabs(v3[2] - 1) < 1e-12);
    assert_true(fabs(fabs(e3[1]) - 1) < 1e-12);
    assert_int_equal(RT_EINVAL, rt_eigen_sym(d, 0, v3, e3, &err));
}

static void fit_by_hand(void **state)
{
    (void)state;
    /* mean x 2.5, mean y 5, Sxy 9.7, Sxx 5: b = 1.94, a = 0.15; residuals .01 -.13 .23 -.11:
     * sumsq .082, s^2 = .041, var b = s^2 / Sxx = .0082, var a = s^2 (1/4 + 2.5^2 / 5) = .041 * 1.5 = .0615 */
    const double x[4] = {1, 2, 3, 4}, y[4] = {2.1, 3.9, 6.2, 7.8};
    rt_linfit f;
    rt_err err;
    assert_int_equal(RT_OK, rt_fit_linear(x, y, 4, &f, &err));
    assert_true(fabs(f.a - 0.15) < 1e-12 && fabs(f.b - 1.94) < 1e-12);
    assert_true(fabs(f.sumsq - 0.082) < 1e-12);
    assert_true(fabs(f.c11 - 0.0082) < 1e-12);
    assert_true(fabs(f.c00 - 0.0615) < 1e-12);
    double yy, se;
    rt_fit_linear_at(&f, 2.5, &yy, &se);
    /* at the mean x the error is s / sqrt(n) */
    assert_true(fabs(yy - 5) < 1e-12 && fabs(se - sqrt(0.041 / 4)) < 1e-12);
    /* t(0.975, 2) = 4.302653 (tables) */
    assert_true(fabs(rt_t_quantile(0.975, 2) - 4.302653) < 1e-6);
    /* two points: an exact line, no interval */
    assert_int_equal(RT_OK, rt_fit_linear(x, y, 2, &f, &err));
    assert_true(fabs(f.b - 1.8) < 1e-12 && f.c11 == 0);
    const double same[3] = {2, 2, 2};
    assert_int_equal(RT_EINVAL, rt_fit_linear(same, y, 3, &f, &err));
    assert_int_equal(RT_EINVAL, rt_fit_linear(x, y, 1, &f, &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eigen_by_hand),
        cmocka_unit_test(fit_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
