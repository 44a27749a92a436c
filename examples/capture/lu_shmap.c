/*
 * lu_shmap.c - a blocked LU decomposition in C, instrumented with
 * retrace/shmap_trace.h: it factors a real matrix and writes the SHMAP trace of
 * its block accesses, which `retrace shmap TRACE --frames DIR` animates.
 *   cc -O2 -I core/capture examples/capture/lu_shmap.c -o lu_shmap    (from the source tree;
 *   installed: cc -O2 lu_shmap.c, the header being <retrace/shmap_trace.h>)
 *   ./lu_shmap N NB OUT.shm
 * Right-looking by blocks of NB columns, no pivoting (the matrix is made diagonally
 * dominant): an unblocked panel, the triangular solve of the block row, and the
 * update of the trailing matrix column by column in parallel groups. It prints
 * the largest |L*U - A| as a check of the arithmetic.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef RETRACE_INSTALLED
#include <retrace/shmap_trace.h>
#else
#include "retrace_shmap_trace.h"
#endif

static int n;
#define AT(M, i, j) (M)[(size_t)((j) - 1) * n + ((i) - 1)] /* 1-based, column-major */

static shmap_trace T;
static int A_ID;

/* column k below the diagonal divided by the pivot */
static void scale(double *a, int k)
{
    shmap_trace_flops(&T, A_ID, n - k, "sscal");
    shmap_trace_load(&T, A_ID, k, k, k, k);
    shmap_trace_load(&T, A_ID, k + 1, n, k, k);
    shmap_trace_store(&T, A_ID, k + 1, n, k, k);
    double p = AT(a, k, k);
    for (int i = k + 1; i <= n; i++)
        AT(a, i, k) /= p;
}

/* column j (rows k+1..n) -= column k times A(k, j) */
static void axpy(double *a, int k, int j)
{
    shmap_trace_flops(&T, A_ID, 2L * (n - k), "saxpy");
    shmap_trace_load(&T, A_ID, k, k, j, j);
    shmap_trace_load(&T, A_ID, k + 1, n, k, k);
    shmap_trace_load(&T, A_ID, k + 1, n, j, j);
    shmap_trace_store(&T, A_ID, k + 1, n, j, j);
    double akj = AT(a, k, j);
    for (int i = k + 1; i <= n; i++)
        AT(a, i, j) -= AT(a, i, k) * akj;
}

static void lu(double *a, int nb)
{
    char label[32];
    for (int K = 1; K <= n; K += nb) {
        int Ke = K + nb - 1 < n ? K + nb - 1 : n;
        for (int k = K; k <= Ke; k++) { /* the panel, rows K..n */
            if (k < n)
                scale(a, k);
            for (int j = k + 1; j <= Ke; j++)
                axpy(a, k, j);
        }
        if (Ke >= n)
            continue;
        for (int j = Ke + 1; j <= n; j++) { /* U12 = L11^-1 A12, column by column */
            shmap_trace_flops(&T, A_ID, (long)(Ke - K + 1) * (Ke - K), "strsv");
            shmap_trace_load(&T, A_ID, K, Ke, K, Ke);
            shmap_trace_load(&T, A_ID, K, Ke, j, j);
            shmap_trace_store(&T, A_ID, K, Ke, j, j);
            for (int k = K; k <= Ke; k++)
                for (int i = k + 1; i <= Ke; i++)
                    AT(a, i, j) -= AT(a, i, k) * AT(a, k, j);
        }
        shmap_trace_section(&T, 1, "sgemm"); /* A22 -= A21 * A12, columns in parallel */
        for (int j = Ke + 1; j <= n; j++) {
            snprintf(label, sizeof label, "column %d", j);
            shmap_trace_group(&T, 1, label);
            shmap_trace_flops(&T, A_ID, 2L * (n - Ke) * (Ke - K + 1), "sgemv");
            shmap_trace_load(&T, A_ID, Ke + 1, n, K, Ke);
            shmap_trace_load(&T, A_ID, K, Ke, j, j);
            shmap_trace_load(&T, A_ID, Ke + 1, n, j, j);
            shmap_trace_store(&T, A_ID, Ke + 1, n, j, j);
            for (int k = K; k <= Ke; k++)
                for (int i = Ke + 1; i <= n; i++)
                    AT(a, i, j) -= AT(a, i, k) * AT(a, k, j);
            shmap_trace_group(&T, 0, label);
        }
        shmap_trace_section(&T, 0, "sgemm");
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (n = atoi(argv[1])) < 1 || atoi(argv[2]) < 1) {
        fprintf(stderr, "usage: lu_shmap N NB OUT.shm\n");
        return 2;
    }
    int nb = atoi(argv[2]);
    double *a = malloc(sizeof *a * (size_t)n * n), *a0 = malloc(sizeof *a0 * (size_t)n * n);
    if (!a || !a0)
        return 1;
    for (int j = 1; j <= n; j++)
        for (int i = 1; i <= n; i++)
            AT(a, i, j) = AT(a0, i, j) = i == j ? 2.0 * n : 1.0 / (i + j);
    if (shmap_trace_open(&T, argv[3]) != 0) {
        perror(argv[3]);
        return 1;
    }
    A_ID = shmap_trace_matrix(&T, n, n);
    char info[80];
    snprintf(info, sizeof info, "LU decomposition of a %d x %d matrix, blocked", n, n);
    shmap_trace_info(&T, A_ID, info);
    lu(a, nb);
    if (shmap_trace_close(&T) != 0) {
        fprintf(stderr, "%s: write failed\n", argv[3]);
        return 1;
    }
    double worst = 0; /* |L*U - A| */
    for (int i = 1; i <= n; i++)
        for (int j = 1; j <= n; j++) {
            double s = 0;
            for (int k = 1; k <= (i < j ? i : j); k++)
                s += (k == i ? 1.0 : AT(a, i, k)) * AT(a, k, j);
            if (fabs(s - AT(a0, i, j)) > worst)
                worst = fabs(s - AT(a0, i, j));
        }
    printf("max |LU - A| = %.3g\n", worst);
    free(a);
    free(a0);
    return worst < 1e-9 ? 0 : 1;
}
