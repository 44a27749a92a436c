/*
 * matmul.c - C = A x B on N x N doubles, naive (i, j, k) or blocked by B x B
 * tiles: `matmul naive N` or `matmul blocked N B` (defaults 128 and 32).
 *
 * The three matrices come from new_matrix(), which the compiler inlines into
 * main at three lines: a capture keeps them apart as three data bins (the
 * inlined frame and main's line of each call).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline __attribute__((always_inline)) double *new_matrix(int n, double fill)
{
    double *m = malloc((size_t)n * (size_t)n * sizeof *m);
    if (!m)
        exit(1);
    for (int i = 0; i < n * n; i++)
        m[i] = fill + (double)(i % 7);
    return m;
}

static void naive(int n, const double *a, const double *b, double *c)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k < n; k++)
                s += a[i * n + k] * b[k * n + j];
            c[i * n + j] = s;
        }
}

static void blocked(int n, int bs, const double *a, const double *b, double *c)
{
    memset(c, 0, (size_t)n * (size_t)n * sizeof *c);
    for (int ii = 0; ii < n; ii += bs)
        for (int kk = 0; kk < n; kk += bs)
            for (int jj = 0; jj < n; jj += bs)
                for (int i = ii; i < ii + bs && i < n; i++)
                    for (int k = kk; k < kk + bs && k < n; k++) {
                        double aik = a[i * n + k];
                        for (int j = jj; j < jj + bs && j < n; j++)
                            c[i * n + j] += aik * b[k * n + j];
                    }
}

int main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "naive";
    int n = argc > 2 ? atoi(argv[2]) : 128;
    int bs = argc > 3 ? atoi(argv[3]) : 32;
    if (n < 1 || bs < 1)
        return 2;
    double *a = new_matrix(n, 1.0);
    double *b = new_matrix(n, 2.0);
    double *c = new_matrix(n, 0.0);
    if (strcmp(how, "blocked") == 0)
        blocked(n, bs, a, b, c);
    else
        naive(n, a, b, c);
    double t = 0;
    for (int i = 0; i < n * n; i++)
        t += c[i];
    printf("%.1f\n", t);
    free(a);
    free(b);
    free(c);
    return 0;
}
