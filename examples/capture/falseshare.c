/*
 * falseshare.c - two threads incrementing neighbouring counters in one cache
 * line (false sharing), for `retrace capture --threads`: MemSpy sees one
 * processor per thread and invalidation misses on the counters from both.
 *   falseshare [ITERATIONS]     (each thread; default 300000)
 * Each thread yields every 10,000 increments: Valgrind runs one thread at a time,
 * and without the yields one thread may finish before the other starts.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static volatile long counters[2]; /* 16 bytes: one cache line for both threads */
static long iterations = 300000;

static void *worker(void *arg)
{
    long me = (long)arg;
    for (long i = 0; i < iterations; i++) {
        counters[me]++;
        if (i % 10000 == 9999)
            sched_yield(); /* under valgrind: hand the CPU to the other thread now and then */
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        iterations = atol(argv[1]);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, (void *)1L) != 0)
        return 1;
    worker((void *)0L);
    pthread_join(t, NULL);
    printf("%ld %ld\n", counters[0], counters[1]);
    return 0;
}
