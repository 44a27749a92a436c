/*
 * rt_linalg.c - GSL behind a small interface (see rt_linalg.h). GSL's symmetric
 * eigensolver and linear fit are maintained and exact to rounding; the callers
 * keep plain arrays and never see a gsl_matrix.
 */
#include "rt_linalg.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

int rt_eigen_sym(const double *a, size_t d, double *values, double *vectors, rt_err *err)
{
    if (d == 0)
        return rt_err_set(err, RT_EINVAL, "eigen: empty matrix");
    /* GSL aborts on errors by default: the library reports them, it never exits */
    gsl_set_error_handler_off();
    gsl_matrix *m = gsl_matrix_alloc(d, d);
    gsl_matrix *v = gsl_matrix_alloc(d, d);
    gsl_vector *e = gsl_vector_alloc(d);
    gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(d);
    int st = RT_OK;
    if (!m || !v || !e || !w) {
        st = rt_err_set(err, RT_ENOMEM, "eigen: out of memory");
        goto done;
    }
    for (size_t i = 0; i < d; i++)
        for (size_t j = 0; j < d; j++)
            gsl_matrix_set(m, i, j, a[i * d + j]); /* symmv destroys its input: a copy */
    if (gsl_eigen_symmv(m, e, v, w) != GSL_SUCCESS) {
        st = rt_err_set(err, RT_EINVAL, "eigen: no convergence");
        goto done;
    }
    gsl_eigen_symmv_sort(e, v, GSL_EIGEN_SORT_VAL_DESC);
    for (size_t c = 0; c < d; c++) {
        values[c] = gsl_vector_get(e, c);
        for (size_t j = 0; j < d; j++)
            vectors[c * d + j] = gsl_matrix_get(v, j, c); /* GSL keeps vectors in columns */
    }
done:
    gsl_eigen_symmv_free(w);
    gsl_vector_free(e);
    gsl_matrix_free(v);
    gsl_matrix_free(m);
    return st;
}

int rt_fit_linear(const double *x, const double *y, size_t n, rt_linfit *out, rt_err *err)
{
    if (n < 2)
        return rt_err_set(err, RT_EINVAL, "fit: %zu point(s), need 2", n);
    int spread = 0;
    for (size_t i = 1; i < n; i++)
        spread |= x[i] != x[0];
    if (!spread)
        return rt_err_set(err, RT_EINVAL, "fit: every x is %g", x[0]);
    gsl_set_error_handler_off();
    out->n = n;
    if (gsl_fit_linear(x, 1, y, 1, n, &out->a, &out->b, &out->c00, &out->c01, &out->c11, &out->sumsq) !=
        GSL_SUCCESS)
        return rt_err_set(err, RT_EINVAL, "fit: GSL refused the points");
    if (n == 2) /* GSL divides by n - 2 = 0: there is no residual variance to speak of */
        out->c00 = out->c01 = out->c11 = 0;
    return RT_OK;
}

void rt_fit_linear_at(const rt_linfit *f, double x, double *y, double *se)
{
    double yerr = 0;
    gsl_fit_linear_est(x, f->a, f->b, f->c00, f->c01, f->c11, y, &yerr);
    *se = yerr;
}

double rt_t_quantile(double p, double dof)
{
    return gsl_cdf_tdist_Pinv(p, dof);
}
