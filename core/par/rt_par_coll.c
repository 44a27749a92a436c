/*
 * rt_par_coll.c - small collectives of a distributed replay (rt_par_coll.h).
 */
#include "rt_par.h"
#include "rt_par_coll.h"

#ifdef RETRACE_HAVE_MPI

void rt_par_minmax(double *lo, double *hi)
{
    if (rt_par_size() <= 1)
        return;
    double in[2] = {-*lo, *hi}, out[2];
    MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, rt_par_comm());
    *lo = -out[0];
    *hi = out[1];
}

void rt_par_maxloc(double *v, int *idx)
{
    if (rt_par_size() <= 1)
        return;
    struct {
        double v;
        int i;
    } in = {*v, *idx}, out;
    MPI_Allreduce(&in, &out, 1, MPI_DOUBLE_INT, MPI_MAXLOC, rt_par_comm());
    *v = out.v;
    *idx = out.i;
}

void rt_par_bcast_bytes(void *buf, size_t n, int root)
{
    if (rt_par_size() <= 1)
        return;
    MPI_Bcast(buf, (int)n, MPI_BYTE, root, rt_par_comm());
}

#else

void rt_par_minmax(double *lo, double *hi)
{
    (void)lo;
    (void)hi;
}
void rt_par_maxloc(double *v, int *idx)
{
    (void)v;
    (void)idx;
}
void rt_par_bcast_bytes(void *buf, size_t n, int root)
{
    (void)buf;
    (void)n;
    (void)root;
}

#endif
