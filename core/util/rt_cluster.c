/*
 * rt_cluster.c - k-means, DBSCAN, the k-distance curve and the silhouette (see
 * rt_cluster.h). Per-point work in C: a workload of 10^4 traces is clustered for
 * K = 1..11 in well under a second, where the Lua loops took minutes.
 */
#include "rt_cluster.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>

static double dist2(const double *a, const double *b, size_t d)
{
    double s = 0;
    for (size_t j = 0; j < d; j++) {
        double t = a[j] - b[j];
        s += t * t;
    }
    return s;
}

/* k-means++ seeding: the first centre uniformly, each next one with probability
 * proportional to the squared distance to the nearest centre chosen so far. */
static void seed_centres(const double *x, size_t n, size_t d, size_t k, gsl_rng *r, double *c,
                         double *near)
{
    size_t first = gsl_rng_uniform_int(r, n);
    memcpy(c, x + first * d, d * sizeof *c);
    for (size_t i = 0; i < n; i++)
        near[i] = dist2(x + i * d, c, d);
    for (size_t h = 1; h < k; h++) {
        double total = 0;
        for (size_t i = 0; i < n; i++)
            total += near[i];
        size_t pick = n;
        if (total > 0) {
            double u = gsl_rng_uniform(r) * total, acc = 0;
            for (size_t i = 0; i < n && pick == n; i++) {
                acc += near[i];
                if (acc > u && near[i] > 0)
                    pick = i;
            }
            for (size_t i = n; i-- > 0 && pick == n;) /* rounding at the end of the sum */
                if (near[i] > 0)
                    pick = i;
        }
        if (pick == n) /* every point sits on a centre: any point will do */
            pick = gsl_rng_uniform_int(r, n);
        double *ch = c + h * d;
        memcpy(ch, x + pick * d, d * sizeof *ch);
        for (size_t i = 0; i < n; i++) {
            double dd = dist2(x + i * d, ch, d);
            if (dd < near[i])
                near[i] = dd;
        }
    }
}

/* Means of the clusters of assign into c; counts into cnt. */
static void means(const double *x, size_t n, size_t d, size_t k, const int32_t *assign, double *c,
                  size_t *cnt)
{
    memset(c, 0, k * d * sizeof *c);
    memset(cnt, 0, k * sizeof *cnt);
    for (size_t i = 0; i < n; i++) {
        size_t h = (size_t)assign[i];
        cnt[h]++;
        for (size_t j = 0; j < d; j++)
            c[h * d + j] += x[i * d + j];
    }
    for (size_t h = 0; h < k; h++)
        if (cnt[h])
            for (size_t j = 0; j < d; j++)
                c[h * d + j] /= (double)cnt[h];
}

/* Lloyd iterations from the centres in c; an emptied cluster takes the point
 * farthest from its centre (from a cluster of two or more). Returns W. */
static double lloyd(const double *x, size_t n, size_t d, size_t k, unsigned max_iter, double *c,
                    int32_t *assign, size_t *cnt)
{
    for (size_t i = 0; i < n; i++)
        assign[i] = -1;
    for (unsigned it = 0; it < max_iter; it++) {
        int changed = 0;
        for (size_t i = 0; i < n; i++) {
            int32_t best = 0;
            double bd = DBL_MAX;
            for (size_t h = 0; h < k; h++) {
                double dd = dist2(x + i * d, c + h * d, d);
                if (dd < bd)
                    bd = dd, best = (int32_t)h;
            }
            if (assign[i] != best)
                assign[i] = best, changed = 1;
        }
        means(x, n, d, k, assign, c, cnt);
        for (size_t h = 0; h < k; h++) {
            if (cnt[h])
                continue;
            size_t far = n;
            double fd = -1;
            for (size_t i = 0; i < n; i++) {
                double dd = dist2(x + i * d, c + (size_t)assign[i] * d, d);
                if (cnt[assign[i]] > 1 && dd > fd)
                    far = i, fd = dd;
            }
            if (far == n)
                continue;
            cnt[assign[far]]--;
            assign[far] = (int32_t)h;
            cnt[h] = 1;
            changed = 1;
            means(x, n, d, k, assign, c, cnt);
        }
        if (!changed)
            break;
    }
    double w = 0;
    for (size_t i = 0; i < n; i++)
        w += dist2(x + i * d, c + (size_t)assign[i] * d, d);
    return w;
}

int rt_kmeans(const double *x, size_t n, size_t d, size_t k, const rt_kmeans_opts *o,
              int32_t *assign, double *centroids, rt_kmeans_info *info, rt_err *err)
{
    rt_err_clear(err);
    if (n == 0 || d == 0 || k == 0 || k > n)
        return rt_err_set(err, RT_EINVAL, "kmeans: k must be from 1 to the number of points (%zu)", n);
    if (o->min_tries < 1 || o->patience < 1 || o->max_tries < o->min_tries || o->max_iter < 1)
        return rt_err_set(err, RT_EINVAL, "kmeans: tries, patience and iterations must be positive");
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    double *c = malloc(k * d * sizeof *c);
    double *near = malloc(n * sizeof *near);
    int32_t *a = malloc(n * sizeof *a);
    size_t *cnt = malloc(k * sizeof *cnt);
    if (!r || !c || !near || !a || !cnt) {
        gsl_rng_free(r), free(c), free(near), free(a), free(cnt);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    gsl_rng_set(r, o->seed);
    double best = INFINITY;
    unsigned tries = 0, since = 0, best_try = 0;
    /* a new best must beat the old by more than rounding: equal partitions found in
     * another order differ in the last bits of W */
    while (tries < o->max_tries && (tries < o->min_tries || since < o->patience)) {
        seed_centres(x, n, d, k, r, c, near);
        double w = lloyd(x, n, d, k, o->max_iter, c, a, cnt);
        tries++;
        if (w < best - 1e-12 * fmax(1, fabs(best)) || best_try == 0) {
            best = w, best_try = tries, since = 0;
            memcpy(assign, a, n * sizeof *a);
            memcpy(centroids, c, k * d * sizeof *c);
        } else {
            since++;
        }
    }
    /* clusters numbered by first appearance, so labels do not depend on the seeding */
    int32_t *map = (int32_t *)cnt; /* k entries of at least int32_t each */
    for (size_t h = 0; h < k; h++)
        map[h] = -1;
    int32_t next = 0;
    for (size_t i = 0; i < n; i++)
        if (map[assign[i]] < 0)
            map[assign[i]] = next++;
    for (size_t h = 0; h < k; h++)
        if (map[h] < 0)
            map[h] = next++;
    memcpy(c, centroids, k * d * sizeof *c);
    for (size_t h = 0; h < k; h++)
        memcpy(centroids + (size_t)map[h] * d, c + h * d, d * sizeof *c);
    for (size_t i = 0; i < n; i++)
        assign[i] = map[assign[i]];
    info->w = best;
    info->tries = tries;
    info->best_try = best_try;
    info->converged = since >= o->patience;
    gsl_rng_free(r), free(c), free(near), free(a), free(cnt);
    return RT_OK;
}

/* ---- DBSCAN ---------------------------------------------------------------- */

typedef struct {
    const double *x;
    size_t n, d, axis;
    double eps, eps2;
    size_t *order; /* points sorted on the axis */
    size_t *pos;   /* pos[i]: where point i is in order */
} space;

/* A point's coordinate on the axis, for sorting (no global state: qsort_r is not C11). */
typedef struct {
    double key;
    size_t i;
} keyed;

static int by_key(const void *pa, const void *pb)
{
    double a = ((const keyed *)pa)->key, b = ((const keyed *)pb)->key;
    return (a > b) - (a < b);
}

/* The neighbours of point i within eps (itself included) into out; returns their
 * number. Only points within eps along the axis are measured. */
static size_t region(const space *s, size_t i, size_t *out)
{
    size_t m = 0, p = s->pos[i];
    double xi = s->x[i * s->d + s->axis];
    for (size_t q = p + 1; q-- > 0;) {
        size_t j = s->order[q];
        if (xi - s->x[j * s->d + s->axis] > s->eps)
            break;
        if (dist2(s->x + i * s->d, s->x + j * s->d, s->d) <= s->eps2)
            out[m++] = j;
    }
    for (size_t q = p + 1; q < s->n; q++) {
        size_t j = s->order[q];
        if (s->x[j * s->d + s->axis] - xi > s->eps)
            break;
        if (dist2(s->x + i * s->d, s->x + j * s->d, s->d) <= s->eps2)
            out[m++] = j;
    }
    return m;
}

int rt_dbscan(const double *x, size_t n, size_t d, double eps, size_t min_pts, int32_t *label,
              size_t *clusters, rt_err *err)
{
    rt_err_clear(err);
    *clusters = 0;
    if (n == 0 || d == 0 || !(eps >= 0) || min_pts < 1)
        return rt_err_set(err, RT_EINVAL, "dbscan: needs points, eps >= 0 and min_pts >= 1");
    space s = {x, n, d, 0, eps, eps * eps, NULL, NULL};
    /* the axis of widest spread cuts the most pairs out */
    double widest = -1;
    for (size_t j = 0; j < d; j++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < n; i++)
            lo = fmin(lo, x[i * d + j]), hi = fmax(hi, x[i * d + j]);
        if (hi - lo > widest)
            widest = hi - lo, s.axis = j;
    }
    s.order = malloc(n * sizeof *s.order);
    s.pos = malloc(n * sizeof *s.pos);
    size_t *nb = malloc(n * sizeof *nb);
    size_t *queue = malloc(n * sizeof *queue);
    uint8_t *core = malloc(n);
    if (!s.order || !s.pos || !nb || !queue || !core) {
        free(s.order), free(s.pos), free(nb), free(queue), free(core);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    keyed *ks = malloc(n * sizeof *ks);
    if (!ks) {
        free(s.order), free(s.pos), free(nb), free(queue), free(core);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        ks[i].key = x[i * d + s.axis], ks[i].i = i;
    qsort(ks, n, sizeof *ks, by_key);
    for (size_t q = 0; q < n; q++)
        s.order[q] = ks[q].i, s.pos[ks[q].i] = q;
    free(ks);
    for (size_t i = 0; i < n; i++) {
        core[i] = region(&s, i, nb) >= min_pts;
        label[i] = -1;
    }
    int32_t next = 0;
    for (size_t i = 0; i < n; i++) {
        if (!core[i] || label[i] >= 0)
            continue;
        /* breadth first from the first unclaimed core point: its cluster takes
         * every point a chain of core neighbours reaches and nobody has yet */
        size_t head = 0, tail = 0;
        label[i] = next;
        queue[tail++] = i;
        while (head < tail) {
            size_t p = queue[head++];
            size_t m = region(&s, p, nb);
            for (size_t t = 0; t < m; t++) {
                size_t j = nb[t];
                if (label[j] >= 0)
                    continue;
                label[j] = next;
                if (core[j])
                    queue[tail++] = j;
            }
        }
        next++;
    }
    *clusters = (size_t)next;
    free(s.order), free(s.pos), free(nb), free(queue), free(core);
    return RT_OK;
}

int rt_kdist(const double *x, size_t n, size_t d, size_t k, double *out, rt_err *err)
{
    rt_err_clear(err);
    if (k < 1 || k >= n)
        return rt_err_set(err, RT_EINVAL, "k-distance: k must be from 1 to n - 1 (%zu points)", n);
    double *all = malloc((n - 1) * sizeof *all);
    double *small = malloc(k * sizeof *small);
    if (!all || !small) {
        free(all), free(small);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) {
        size_t m = 0;
        for (size_t j = 0; j < n; j++)
            if (j != i)
                all[m++] = dist2(x + i * d, x + j * d, d);
        gsl_sort_smallest(small, k, all, 1, m);
        out[i] = sqrt(small[k - 1]);
    }
    gsl_sort(out, 1, n);
    free(all), free(small);
    return RT_OK;
}

size_t rt_knee(const double *y, size_t n)
{
    if (n < 3)
        return n ? n - 1 : 0;
    double lo = y[0], hi = y[n - 1];
    double span = hi > lo ? hi - lo : 1;
    size_t best = n - 1;
    double bd = -1;
    /* the line from (0, 0) to (1, 1) in scaled units: distance ~ |x - y| */
    for (size_t i = 0; i < n; i++) {
        double u = (double)i / (double)(n - 1), v = (y[i] - lo) / span;
        double dd = fabs(u - v);
        if (dd > bd)
            bd = dd, best = i;
    }
    return best;
}

double rt_silhouette(const double *x, size_t n, size_t d, const int32_t *assign, size_t k,
                     double *per)
{
    if (k < 2 || n < 2)
        return NAN;
    double *sum = malloc(k * sizeof *sum);
    size_t *cnt = malloc(k * sizeof *cnt);
    if (!sum || !cnt) {
        free(sum), free(cnt);
        return NAN;
    }
    double total = 0;
    for (size_t i = 0; i < n; i++) {
        memset(sum, 0, k * sizeof *sum);
        memset(cnt, 0, k * sizeof *cnt);
        for (size_t j = 0; j < n; j++) {
            if (j == i)
                continue;
            sum[assign[j]] += sqrt(dist2(x + i * d, x + j * d, d));
            cnt[assign[j]]++;
        }
        size_t own = (size_t)assign[i];
        double si = 0;
        if (cnt[own]) {
            double a = sum[own] / (double)cnt[own], b = INFINITY;
            for (size_t h = 0; h < k; h++)
                if (h != own && cnt[h] && sum[h] / (double)cnt[h] < b)
                    b = sum[h] / (double)cnt[h];
            if (isfinite(b) && fmax(a, b) > 0)
                si = (b - a) / fmax(a, b);
        }
        if (per)
            per[i] = si;
        total += si;
    }
    free(sum), free(cnt);
    return total / (double)n;
}
