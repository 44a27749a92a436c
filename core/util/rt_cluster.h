/*
 * rt_cluster.h - clustering of points in a few dimensions (MEDEA's workload models):
 * k-means with k-means++ seeding restarted until the best within-cluster sum of
 * squares stops improving, DBSCAN, the k-distance curve that chooses DBSCAN's radius,
 * and the mean silhouette. Shaped for 10^2..10^5 points of 1..20 parameters, the
 * points in one row-major array x[i * d + j]. Randomness is GSL's (gsl_rng mt19937
 * seeded with the caller's seed), so a seed means one thing everywhere.
 */
#ifndef RT_CLUSTER_H
#define RT_CLUSTER_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/* How k-means restarts: at least min_tries seedings, then more until patience
 * seedings in a row have not lowered the best W, never more than max_tries. */
typedef struct rt_kmeans_opts {
    unsigned long seed;
    unsigned min_tries;  /* >= 1 */
    unsigned patience;   /* >= 1 */
    unsigned max_tries;  /* >= min_tries */
    unsigned max_iter;   /* Lloyd iterations per seeding */
} rt_kmeans_opts;

/* What a k-means run did. */
typedef struct rt_kmeans_info {
    double w;            /* within-cluster sum of squares of the partition returned */
    unsigned tries;      /* seedings made */
    unsigned best_try;   /* the seeding (1-based) that found it */
    int converged;       /* 1 when the stop came from patience, 0 when from max_tries */
} rt_kmeans_info;

/*
 * k-means of the n points x (n x d) into 1 <= k <= n clusters. assign[n] gets
 * each point's cluster 0..k-1, numbered by first appearance in x; centroids[k * d]
 * the means. The caller owns every array. RT_OK, RT_EINVAL (bad k, n or options),
 * RT_ENOMEM.
 */
int rt_kmeans(const double *x, size_t n, size_t d, size_t k, const rt_kmeans_opts *o,
              int32_t *assign, double *centroids, rt_kmeans_info *info, rt_err *err);

/*
 * DBSCAN (Ester et al. 1996) of the n points x (n x d), Euclidean distance:
 * a point with at least min_pts points (itself included) within eps is a core
 * point; clusters are the core points joined by chains of eps-neighbours and the
 * border points they reach. label[n] gets -1 for noise, else the cluster 0..,
 * numbered by the first core point in x order (a border point reachable from two
 * clusters joins the one whose core point comes first). *clusters gets their
 * number. Neighbours are searched along the axis of widest spread (points sorted
 * on it), so sparse data costs far less than n^2. RT_OK, RT_EINVAL, RT_ENOMEM.
 */
int rt_dbscan(const double *x, size_t n, size_t d, double eps, size_t min_pts, int32_t *label,
              size_t *clusters, rt_err *err);

/*
 * The distance from each point to its k-th nearest other point (1 <= k < n),
 * sorted ascending into out[n]: the k-distance curve. RT_OK, RT_EINVAL, RT_ENOMEM.
 */
int rt_kdist(const double *x, size_t n, size_t d, size_t k, double *out, rt_err *err);

/*
 * The knee of an ascending curve y[0..n-1]: the index farthest from the straight
 * line between its first and last points (both axes scaled to [0, 1]).
 */
size_t rt_knee(const double *y, size_t n);

/*
 * Mean silhouette width of a partition (assign[i] in 0..k-1) and, when per is not
 * NULL, each point's width. A point alone in its cluster counts 0. Returns the mean,
 * or NAN for k < 2 or n < 2, or when out of memory.
 */
double rt_silhouette(const double *x, size_t n, size_t d, const int32_t *assign, size_t k,
                     double *per);

#endif
