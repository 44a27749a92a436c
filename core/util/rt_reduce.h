/*
 * rt_reduce.h - reduce a long series to one summary per pixel column.
 *
 * A display never draws more marks than it has pixels for: a series of n
 * (x, y) values shown W columns wide is first folded into W columns, each
 * holding how many values fell in it and their min, max, mean, first and last.
 * Feeding is streaming (any number of rt_reduce_add calls, O(1) work per value
 * plus O(1) per column a step crosses) and memory is O(W), whatever n is: the
 * workload is the profile or periodogram of a 10^7-record trace drawn 900
 * pixels wide.
 *
 * Two kinds of series:
 *  - points (step = 0): value y at x. Column i of W covers
 *    [x0 + i (x1 - x0) / W, x0 + (i + 1) (x1 - x0) / W); x == x1 falls in the
 *    last column; values outside [x0, x1] or with a NaN coordinate are counted
 *    in `outside` and otherwise ignored. mean = sum / count.
 *  - steps (step = 1): y[k] holds from x[k] to x[k + 1] (an activity profile).
 *    x must not decrease. A step is counted in every column it overlaps for a
 *    positive length; its min / max / first / last enter those columns and the
 *    mean is weighted by the overlap (the time average over the column).
 *    Steps of zero length (simultaneous changes) hold no time and are skipped.
 *    rt_reduce_finish(r, x_end) closes the last step at x_end.
 */
#ifndef RT_REDUCE_H
#define RT_REDUCE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct rt_reduce {
    size_t w;         /* number of columns, >= 1 */
    double x0, x1;    /* the x range the columns cover, x0 < x1 */
    int step;         /* 1: step series, 0: points */
    uint64_t *count;  /* values (points) or steps overlapping (steps) per column */
    double *min;      /* per column; meaningful only where count > 0 */
    double *max;
    double *sum;      /* sum of y (points) or of y * overlap (steps) */
    double *weight;   /* steps: total overlap length in the column */
    double *first;    /* y of the first value / step entering the column */
    double *last;     /* y of the last one */
    uint64_t outside; /* points outside [x0, x1] or NaN (points mode) */
    int have_prev;    /* steps: a step is open */
    double prev_x;    /* steps: where the open step starts */
    double prev_y;    /* steps: its value */
} rt_reduce;

/*
 * A reducer of w columns over [x0, x1]. Returns RT_OK and *out, RT_EINVAL when
 * w is 0 or the range is empty or not finite, RT_ENOMEM. Free with rt_reduce_free.
 */
int rt_reduce_new(size_t w, double x0, double x1, int step, rt_reduce **out, rt_err *err);

/* Free r and its columns; NULL is allowed. */
void rt_reduce_free(rt_reduce *r);

/*
 * Feed n values: x[k * xstride], y[k * ystride] (strides in doubles, so an
 * interleaved (x, y) array is x = a, y = a + 1, strides 2). Returns RT_OK, or
 * RT_EINVAL in step mode when x decreases (the values before it are kept).
 */
int rt_reduce_add(rt_reduce *r, const double *x, size_t xstride, const double *y,
                  size_t ystride, size_t n, rt_err *err);

/* The same for integer values (activity counts), x with stride 1. */
int rt_reduce_add_int(rt_reduce *r, const double *x, const int *y, size_t n, rt_err *err);

/* Feed n values at uniformly spaced x: x_start + k dx (dx > 0 in step mode). */
int rt_reduce_add_uniform(rt_reduce *r, double x_start, double dx, const double *y,
                          size_t ystride, size_t n, rt_err *err);

/*
 * Steps: close the open step at x_end (>= its start; RT_EINVAL otherwise).
 * Points: nothing to do. Further adds start a new series of steps.
 */
int rt_reduce_finish(rt_reduce *r, double x_end, rt_err *err);

/* Mean of column i: sum / count (points), sum / weight (steps); NaN when empty. */
double rt_reduce_mean(const rt_reduce *r, size_t i);

#endif
