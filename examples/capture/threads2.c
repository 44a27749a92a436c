/*
 * threads2.c - two threads, each summing its own half of a shared array R times
 * and adding into its own slot of a results array: `threads2 N R` (defaults
 * 65536 doubles and 8). Valgrind runs the two one at a time.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static double *data;
static int n, rounds;
static double results[2];

static void *work(void *arg)
{
    int t = (int)(long)arg;
    int lo = t * (n / 2), hi = lo + n / 2;
    for (int r = 0; r < rounds; r++) {
        double s = 0;
        for (int i = lo; i < hi; i++)
            s += data[i];
        results[t] += s;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    n = argc > 1 ? atoi(argv[1]) : 65536;
    rounds = argc > 2 ? atoi(argv[2]) : 8;
    if (n < 2 || rounds < 1)
        return 2;
    data = malloc((size_t)n * sizeof *data);
    if (!data)
        return 1;
    for (int i = 0; i < n; i++)
        data[i] = i % 10;
    pthread_t th[2];
    for (long t = 0; t < 2; t++)
        if (pthread_create(&th[t], NULL, work, (void *)t) != 0)
            return 1;
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    printf("%.1f\n", results[0] + results[1]);
    free(data);
    return 0;
}
