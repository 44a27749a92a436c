/*
 * rt_par_coll.h - small collectives of a distributed replay, on C values
 * (every rank calls them in the same order; serial: nothing to combine).
 */
#ifndef RT_PAR_COLL_H
#define RT_PAR_COLL_H

#include <stddef.h>
#include <stdint.h>

/* *lo becomes the smallest *lo of the job, *hi the largest *hi. */
void rt_par_minmax(double *lo, double *hi);
/* The largest v of the job and the smallest idx among the ranks that have it (MAXLOC). */
void rt_par_maxloc(double *v, int *idx);
/* n bytes of buf from rank root to every rank. */
void rt_par_bcast_bytes(void *buf, size_t n, int root);
/* v[0 .. n-1] become their sums over the job (exact: integers). */
void rt_par_sum_i64(int64_t *v, int n);
/* *v becomes the largest *v of the job. */
void rt_par_max_int(int *v);
/*
 * Every rank's n bytes at mine, concatenated in rank order, into *all (malloc'ed,
 * *total bytes; the caller frees it). RT_OK or RT_ENOMEM (agreed: every rank
 * returns the same). Serial: a copy of mine.
 */
int rt_par_allgather_bytes(const void *mine, size_t n, void **all, size_t *total);

#endif
