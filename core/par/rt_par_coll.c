/*
 * rt_par_coll.c - small collectives of a distributed replay (rt_par_coll.h).
 */
#include <stdlib.h>
#include <string.h>

#include "rt_par.h"
#include "rt_par_coll.h"

/* A copy of n bytes (at least one byte allocated), or NULL. */
static void *copy_of(const void *p, size_t n)
{
    void *c = malloc(n ? n : 1);
    if (c && n)
        memcpy(c, p, n);
    return c;
}

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
    for (size_t off = 0; off < n || off == 0; off += (size_t)1 << 30) { /* MPI counts are ints */
        size_t k = n - off < ((size_t)1 << 30) ? n - off : (size_t)1 << 30;
        MPI_Bcast((char *)buf + off, (int)k, MPI_BYTE, root, rt_par_comm());
        if (off + k >= n)
            break;
    }
}

void rt_par_sum_i64(int64_t *v, int n)
{
    if (rt_par_size() <= 1 || n <= 0)
        return;
    MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_INT64_T, MPI_SUM, rt_par_comm());
}

void rt_par_max_int(int *v)
{
    if (rt_par_size() <= 1)
        return;
    MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INT, MPI_MAX, rt_par_comm());
}

int rt_par_allgather_bytes(const void *mine, size_t n, void **all, size_t *total)
{
    int size = rt_par_size();
    if (size <= 1) {
        *all = copy_of(mine, n);
        *total = n;
        return *all ? RT_OK : RT_ENOMEM;
    }
    int *cnt = calloc((size_t)size * 2, sizeof *cnt);
    int mine_n = (int)n, bad = !cnt || n > (size_t)0x7fffffff;
    if (rt_par_agree(bad ? RT_ENOMEM : RT_OK) != RT_OK) {
        free(cnt);
        return RT_ENOMEM;
    }
    int *dis = cnt + size;
    MPI_Allgather(&mine_n, 1, MPI_INT, cnt, 1, MPI_INT, rt_par_comm());
    size_t sum = 0;
    for (int r = 0; r < size; r++) {
        dis[r] = (int)sum;
        sum += (size_t)cnt[r];
    }
    void *buf = sum <= 0x7fffffff ? malloc(sum ? sum : 1) : NULL;
    if (rt_par_agree(buf ? RT_OK : RT_ENOMEM) != RT_OK) {
        free(buf);
        free(cnt);
        return RT_ENOMEM;
    }
    MPI_Allgatherv(mine, mine_n, MPI_BYTE, buf, cnt, dis, MPI_BYTE, rt_par_comm());
    free(cnt);
    *all = buf;
    *total = sum;
    return RT_OK;
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
void rt_par_sum_i64(int64_t *v, int n)
{
    (void)v;
    (void)n;
}
void rt_par_max_int(int *v) { (void)v; }
int rt_par_allgather_bytes(const void *mine, size_t n, void **all, size_t *total)
{
    *all = copy_of(mine, n);
    *total = n;
    return *all ? RT_OK : RT_ENOMEM;
}

#endif
