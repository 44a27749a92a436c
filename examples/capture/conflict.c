/*
 * conflict.c - the capture example: what `retrace capture` and `retrace memspy`
 * should find in a real program.
 *
 * make_array() allocates both "a" and "b" (one allocation site reached from two
 * call sites of main: two bins); "c" lies in a third allocation at a distance
 * from "a" that is a multiple of 32 KiB, so in a 32 KiB direct-mapped cache each
 * line of c evicts the line of a with the same index and the other way round
 * (replacement misses of a caused by c); table is a static array (a bin named
 * by its symbol).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 2048               /* doubles per array: 16 KiB */
#define SPAN (32 * 1024)     /* the cache size the example is made for */

static double table[256];    /* static data: its own bin, "table" */

static double *make_array(size_t n)
{
    double *p = malloc(n * sizeof *p);
    if (!p)
        exit(1);
    for (size_t i = 0; i < n; i++)
        p[i] = (double)i;
    return p;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    double *a = make_array(N);
    double *b = make_array(N);
    /* c: inside a block, at the offset that puts it a multiple of SPAN away from a */
    char *block = malloc(SPAN + N * sizeof(double));
    if (!block)
        return 1;
    size_t off = (size_t)(((uintptr_t)a - (uintptr_t)block) % SPAN);
    double *c = (double *)(block + off);
    for (int i = 0; i < 256; i++)
        table[i] = i * 0.5;
    double s = 0;
    for (int r = 0; r < rounds; r++) {
        for (size_t i = 0; i < N; i++) /* a and c take turns in the same lines */
            c[i] = a[i] * table[i & 255];
        for (size_t i = 0; i < N; i++)
            s += b[i];
    }
    printf("%g\n", s + c[N - 1]);
    free(block);
    free(b);
    free(a);
    return 0;
}
