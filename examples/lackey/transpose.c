/* transpose.c - a naive and a blocked matrix transpose, for tracing with
 * valgrind --tool=lackey --trace-mem=yes. `transpose naive` walks the
 * destination down its columns, touching a new cache line on every store once
 * the matrix is larger than the cache; `transpose blocked` works in 8 x 8
 * tiles (one 64-byte line of doubles per tile row), reusing each line it loads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 256
#define B 8

static double a[N][N], t[N][N];

static void naive(void)
{
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            t[j][i] = a[i][j];
}

static void blocked(void)
{
    for (int ii = 0; ii < N; ii += B)
        for (int jj = 0; jj < N; jj += B)
            for (int i = ii; i < ii + B; i++)
                for (int j = jj; j < jj + B; j++)
                    t[j][i] = a[i][j];
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "naive") != 0 && strcmp(argv[1], "blocked") != 0)) {
        fprintf(stderr, "usage: transpose naive|blocked\n");
        return 2;
    }
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            a[i][j] = i * N + j;
    if (argv[1][0] == 'n')
        naive();
    else
        blocked();
    /* check, so the compiler keeps the work */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++)
            if (t[j][i] != a[i][j])
                return 1;
    return 0;
}
