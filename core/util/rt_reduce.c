/*
 * rt_reduce.c - per-pixel-column reduction of long series (see rt_reduce.h).
 */
#include "rt_reduce.h"

#include <math.h>
#include <stdlib.h>

int rt_reduce_new(size_t w, double x0, double x1, int step, rt_reduce **out, rt_err *err)
{
    *out = NULL;
    if (w == 0)
        return rt_err_set(err, RT_EINVAL, "reduce: the number of columns must be at least 1");
    if (!isfinite(x0) || !isfinite(x1) || !(x1 > x0))
        return rt_err_set(err, RT_EINVAL, "reduce: x range [%g, %g] is empty or not finite", x0, x1);
    rt_reduce *r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    r->w = w;
    r->x0 = x0;
    r->x1 = x1;
    r->step = step ? 1 : 0;
    r->count = calloc(w, sizeof *r->count);
    /* one block for the six double columns */
    r->min = malloc(6 * w * sizeof(double));
    if (!r->count || !r->min)
        goto nomem;
    r->max = r->min + w;
    r->sum = r->max + w;
    r->weight = r->sum + w;
    r->first = r->weight + w;
    r->last = r->first + w;
    for (size_t i = 0; i < 6 * w; i++)
        r->min[i] = 0.0;
    *out = r;
    return RT_OK;
nomem:
    rt_reduce_free(r);
    return rt_err_set(err, RT_ENOMEM, "reduce: out of memory for %zu columns", w);
}

void rt_reduce_free(rt_reduce *r)
{
    if (!r)
        return;
    free(r->count);
    free(r->min);
    free(r);
}

/* The column of x, clamped: x == x1 belongs to the last column. */
static size_t column(const rt_reduce *r, double x)
{
    double f = (x - r->x0) / (r->x1 - r->x0) * (double)r->w;
    if (f <= 0)
        return 0;
    if (f >= (double)r->w)
        return r->w - 1;
    return (size_t)f;
}

static void enter(rt_reduce *r, size_t c, double y, double sum, double weight)
{
    if (r->count[c] == 0) {
        r->min[c] = r->max[c] = r->first[c] = y;
    } else {
        if (y < r->min[c])
            r->min[c] = y;
        if (y > r->max[c])
            r->max[c] = y;
    }
    r->last[c] = y;
    r->count[c]++;
    r->sum[c] += sum;
    r->weight[c] += weight;
}

static void add_point(rt_reduce *r, double x, double y)
{
    if (isnan(x) || isnan(y) || x < r->x0 || x > r->x1) {
        r->outside++;
        return;
    }
    enter(r, column(r, x), y, y, 1.0);
}

/* The step [a, b) at value y into every column it overlaps for a positive length. */
static void add_step(rt_reduce *r, double a, double b, double y)
{
    if (a < r->x0)
        a = r->x0;
    if (b > r->x1)
        b = r->x1;
    if (!(b > a) || isnan(y))
        return;
    double width = (r->x1 - r->x0) / (double)r->w;
    size_t ca = column(r, a), cb = column(r, b);
    for (size_t c = ca; c <= cb; c++) {
        double lo = r->x0 + (double)c * width, hi = lo + width;
        if (c == r->w - 1)
            hi = r->x1; /* the last column ends exactly at x1 */
        double s = (a > lo ? a : lo), e = (b < hi ? b : hi);
        if (e > s)
            enter(r, c, y, y * (e - s), e - s);
    }
}

static int add_one(rt_reduce *r, double x, double y, rt_err *err)
{
    if (!r->step) {
        add_point(r, x, y);
        return RT_OK;
    }
    if (isnan(x))
        return rt_err_set(err, RT_EINVAL, "reduce: step series with a NaN x");
    if (r->have_prev) {
        if (x < r->prev_x)
            return rt_err_set(err, RT_EINVAL, "reduce: step series goes back in x (%g after %g)", x,
                              r->prev_x);
        add_step(r, r->prev_x, x, r->prev_y);
    }
    r->have_prev = 1;
    r->prev_x = x;
    r->prev_y = y;
    return RT_OK;
}

int rt_reduce_add(rt_reduce *r, const double *x, size_t xstride, const double *y,
                  size_t ystride, size_t n, rt_err *err)
{
    for (size_t k = 0; k < n; k++) {
        int st = add_one(r, x[k * xstride], y[k * ystride], err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

int rt_reduce_add_int(rt_reduce *r, const double *x, const int *y, size_t n, rt_err *err)
{
    for (size_t k = 0; k < n; k++) {
        int st = add_one(r, x[k], (double)y[k], err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

int rt_reduce_add_uniform(rt_reduce *r, double x_start, double dx, const double *y,
                          size_t ystride, size_t n, rt_err *err)
{
    if (r->step && !(dx > 0))
        return rt_err_set(err, RT_EINVAL, "reduce: uniform step series needs dx > 0 (got %g)", dx);
    for (size_t k = 0; k < n; k++) {
        /* x from the index, not by accumulation, so rounding does not drift */
        int st = add_one(r, x_start + (double)k * dx, y[k * ystride], err);
        if (st != RT_OK)
            return st;
    }
    return RT_OK;
}

int rt_reduce_finish(rt_reduce *r, double x_end, rt_err *err)
{
    if (!r->step || !r->have_prev)
        return RT_OK;
    if (x_end < r->prev_x)
        return rt_err_set(err, RT_EINVAL, "reduce: series end %g before the last step at %g", x_end,
                          r->prev_x);
    add_step(r, r->prev_x, x_end, r->prev_y);
    r->have_prev = 0;
    return RT_OK;
}

double rt_reduce_mean(const rt_reduce *r, size_t i)
{
    if (i >= r->w || r->count[i] == 0)
        return NAN;
    if (r->step)
        return r->weight[i] > 0 ? r->sum[i] / r->weight[i] : NAN;
    return r->sum[i] / (double)r->count[i];
}
