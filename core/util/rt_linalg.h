/*
 * rt_linalg.h - the numerics MEDEA and Chitra borrow from GSL: eigenvectors of a
 * small symmetric matrix (principal components), a straight-line least-squares fit
 * with its covariance (confidence intervals of a prediction), and Student's t
 * quantiles. Sized for the few parameters and points of a workload model.
 */
#ifndef RT_LINALG_H
#define RT_LINALG_H

#include <stddef.h>

#include "rt_error.h"

/*
 * Eigenvalues and unit eigenvectors of the symmetric d x d matrix a (row-major,
 * only read), largest eigenvalue first: values[c], vectors[c * d + j] (vector c,
 * component j). The caller owns every array. RT_OK, RT_EINVAL (d == 0), RT_ENOMEM.
 */
int rt_eigen_sym(const double *a, size_t d, double *values, double *vectors, rt_err *err);

/* A fit y = a + b x and what its confidence intervals need. */
typedef struct rt_linfit {
    double a, b;             /* intercept, slope */
    double c00, c01, c11;    /* covariance of (a, b), from the residual variance */
    double sumsq;            /* sum of squared residuals */
    size_t n;                /* points */
} rt_linfit;

/*
 * Least-squares fit of y = a + b x over n >= 2 points whose x are not all equal.
 * With n == 2 the covariance is 0 (no residual degree of freedom: callers give no
 * interval then). RT_OK or RT_EINVAL (err says which).
 */
int rt_fit_linear(const double *x, const double *y, size_t n, rt_linfit *out, rt_err *err);

/* The value of the fit at x and its standard error (the mean's, not a new point's). */
void rt_fit_linear_at(const rt_linfit *f, double x, double *y, double *se);

/* Quantile p (0 < p < 1) of Student's t distribution with dof > 0 degrees of freedom. */
double rt_t_quantile(double p, double dof);

#endif
