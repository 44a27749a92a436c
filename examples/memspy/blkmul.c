/*
 * blkmul.c - the blocked matrix multiply of the MemSpy paper (its Figure 1) as an
 * ordinary C program: main allocates three N x N matrices of doubles (row-major),
 * fills X and Y, ClearProduct zeroes Z, BlkMultiply computes Z += X * Y block by
 * block, B x B blocks of Y reused across the rows of X. The same loops as
 * examples/memspy/matmul.lua builds by hand; capture it and read its statistics:
 *
 *   cc -g -O1 examples/memspy/blkmul.c -o blkmul
 *   retrace capture -o blkmul.cap -- ./blkmul 64 32
 *   retrace memspy blkmul.cap --size 8K --ways 1
 */
#include <stdio.h>
#include <stdlib.h>

typedef struct { int n; double *a; } Matrix;

__attribute__((noinline)) static void ClearProduct(Matrix *z)
{
    for (int i = 0; i < z->n; i++)
        for (int j = 0; j < z->n; j++)
            z->a[i * z->n + j] = 0;
}

__attribute__((noinline)) static void BlkMultiply(const Matrix *x, const Matrix *y, Matrix *z, int b)
{
    int n = x->n;
    for (int kk = 0; kk < n; kk += b)
        for (int jj = 0; jj < n; jj += b)
            for (int i = 0; i < n; i++)
                for (int k = kk; k < kk + b && k < n; k++) {
                    double r = x->a[i * n + k];
                    for (int j = jj; j < jj + b && j < n; j++)
                        z->a[i * n + j] += r * y->a[k * n + j];
                }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 64, b = argc > 2 ? atoi(argv[2]) : 32;
    if (n < 1 || b < 1) {
        fprintf(stderr, "usage: blkmul N B\n");
        return 2;
    }
    Matrix X = {n, malloc(sizeof(double) * (size_t)n * n)};
    Matrix Y = {n, malloc(sizeof(double) * (size_t)n * n)};
    Matrix Z = {n, malloc(sizeof(double) * (size_t)n * n)};
    if (!X.a || !Y.a || !Z.a)
        return 1;
    for (int i = 0; i < n * n; i++) {
        X.a[i] = i % 3;
        Y.a[i] = i % 5;
    }
    ClearProduct(&Z);
    BlkMultiply(&X, &Y, &Z, b);
    printf("%g\n", Z.a[n * n - 1]);
    free(X.a);
    free(Y.a);
    free(Z.a);
    return 0;
}
