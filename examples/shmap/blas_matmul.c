/*
 * blas_matmul.c - C = A * B for N x N column-major matrices in blocks of NB,
 * each block product a cblas_dgemm call (an ordinary program: nothing in it
 * knows about retrace). Record its calls as a SHMAP trace and animate them:
 *
 *   cc -O2 examples/shmap/blas_matmul.c -o blas_matmul -lblas
 *   retrace shmap --blas mm.shm -- ./blas_matmul 512 64
 *   retrace shmap mm.shm --pes 4 --frames mm --panels all
 *
 * Blocks are taken in the order j (block column of C), k, i; with NB = N it is
 * one dgemm. Prints the sum of C's elements (a check that the product ran).
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 256;
    int nb = argc > 2 ? atoi(argv[2]) : 64;
    if (n < 1 || nb < 1 || nb > n) {
        fprintf(stderr, "usage: blas_matmul N NB (1 <= NB <= N)\n");
        return 2;
    }
    double *a = malloc(sizeof(double) * (size_t)n * n);
    double *b = malloc(sizeof(double) * (size_t)n * n);
    double *c = calloc((size_t)n * n, sizeof(double));
    if (!a || !b || !c) {
        fprintf(stderr, "blas_matmul: out of memory\n");
        return 1;
    }
    for (long i = 0; i < (long)n * n; i++) {
        a[i] = (double)(i % 7) - 3;
        b[i] = (double)(i % 5) - 2;
    }
    for (int j = 0; j < n; j += nb)
        for (int k = 0; k < n; k += nb)
            for (int i = 0; i < n; i += nb) {
                int mb = i + nb > n ? n - i : nb, jb = j + nb > n ? n - j : nb, kb = k + nb > n ? n - k : nb;
                /* C(i:, j:) += A(i:, k:) * B(k:, j:); the first k step overwrites (beta 0) */
                cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, mb, jb, kb, 1.0, a + i + (long)k * n, n,
                            b + k + (long)j * n, n, k == 0 ? 0.0 : 1.0, c + i + (long)j * n, n);
            }
    double s = 0;
    for (long i = 0; i < (long)n * n; i++)
        s += c[i];
    printf("%.17g\n", s);
    free(a);
    free(b);
    free(c);
    return 0;
}
