/*
 * blas_lu.c - right-looking blocked LU of an N x N column-major matrix, without
 * pivoting (the matrix is made diagonally dominant), in blocks of NB: each panel
 * factored column by column (cblas_dscal and cblas_dger), the block row solved
 * with cblas_dtrsm, the trailing matrix updated with cblas_dgemm. An ordinary
 * program; record its calls with `retrace shmap --blas lu.shm -- ./blas_lu 256 32`.
 * Prints the product of U's diagonal (the determinant).
 */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int nb = argc > 2 ? atoi(argv[2]) : 32;
    if (n < 1 || nb < 1 || nb > n) {
        fprintf(stderr, "usage: blas_lu N NB (1 <= NB <= N)\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * (size_t)n * n);
    if (!a) {
        fprintf(stderr, "blas_lu: out of memory\n");
        return 1;
    }
    for (int j = 0; j < n; j++)
        for (int i = 0; i < n; i++)
            a[i + (long)j * n] = i == j ? 2.0 * n : 1.0 / (1 + abs(i - j));
    for (int k = 0; k < n; k += nb) {
        int kb = k + nb > n ? n - k : nb;
        /* the panel A(k:n, k:k+kb): unblocked, column by column */
        for (int j = k; j < k + kb; j++) {
            double *d = a + j + (long)j * n;
            cblas_dscal(n - j - 1, 1.0 / *d, d + 1, 1);
            if (j + 1 < k + kb)
                cblas_dger(CblasColMajor, n - j - 1, k + kb - j - 1, -1.0, d + 1, 1, d + n, n, d + n + 1, n);
        }
        int rest = n - k - kb;
        if (rest > 0) {
            /* U's block row: L11^-1 * A(k:k+kb, k+kb:n) */
            cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, kb, rest, 1.0,
                        a + k + (long)k * n, n, a + k + (long)(k + kb) * n, n);
            /* the trailing matrix: A22 -= L21 * U12 */
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rest, rest, kb, -1.0, a + k + kb + (long)k * n,
                        n, a + k + (long)(k + kb) * n, n, 1.0, a + k + kb + (long)(k + kb) * n, n);
        }
    }
    double logdet = 0;
    for (int i = 0; i < n; i++)
        logdet += log(fabs(a[i + (long)i * n]));
    printf("log|det| = %.12g\n", logdet);
    free(a);
    return 0;
}
