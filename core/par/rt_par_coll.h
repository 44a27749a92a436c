/*
 * rt_par_coll.h - small collectives of a distributed replay, on C values
 * (every rank calls them in the same order; serial: nothing to combine).
 */
#ifndef RT_PAR_COLL_H
#define RT_PAR_COLL_H

#include <stddef.h>

/* *lo becomes the smallest *lo of the job, *hi the largest *hi. */
void rt_par_minmax(double *lo, double *hi);
/* The largest v of the job and the smallest idx among the ranks that have it (MAXLOC). */
void rt_par_maxloc(double *v, int *idx);
/* n bytes of buf from rank root to every rank. */
void rt_par_bcast_bytes(void *buf, size_t n, int root);

#endif
