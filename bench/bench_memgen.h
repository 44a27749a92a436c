/*
 * bench_memgen.h - the generated memory traces of the cache benchmarks
 * (cache_bench, hier_bench): a xorshift stream and one writer of the same
 * references as RTMB and as din text, into /tmp, kept for the next run.
 * Header only, as bench_util.h.
 */
#ifndef BENCH_MEMGEN_H
#define BENCH_MEMGEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "rt_memtrace.h"

/* xorshift64 on *state (not 0) */
static inline uint64_t bench_xorshift(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Write n references made by make() to bin (RTMB) and din (text "KIND HEX"),
 * unless a stamp din.done says an earlier run wrote them whole. */
static inline void bench_memgen(uint64_t n, const char *bin, const char *din, void (*make)(rt_memref *))
{
    char stamp[600];
    struct stat st;
    snprintf(stamp, sizeof stamp, "%s.done", din);
    if (stat(stamp, &st) == 0 && stat(bin, &st) == 0 && stat(din, &st) == 0)
        return;
    fprintf(stderr, "generating %llu references into %s and %s ...\n", (unsigned long long)n, bin, din);
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(bin, &err);
    FILE *f = fopen(din, "w");
    if (!w || !f) {
        fprintf(stderr, "%s\n", w ? din : err.msg);
        exit(1);
    }
    setvbuf(f, NULL, _IOFBF, 1 << 20);
    rt_memref r;
    for (uint64_t i = 0; i < n; i++) {
        make(&r);
        if (rt_rtmb_write(w, &r, &err) != RT_OK) {
            fprintf(stderr, "%s\n", err.msg);
            exit(1);
        }
        fprintf(f, "%d %llx\n", r.kind, (unsigned long long)r.addr);
    }
    if (rt_rtmb_close(w, &err) != RT_OK || fclose(f) != 0) {
        fprintf(stderr, "write failed\n");
        exit(1);
    }
    FILE *s = fopen(stamp, "w");
    if (s)
        fclose(s);
}

#endif
