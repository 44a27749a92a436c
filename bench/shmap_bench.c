/*
 * shmap_bench - speed and memory of SHMAP simulation (what `retrace shmap` runs).
 *
 * Generates SHMAP traces under /tmp shaped like a right-looking LU: parallel
 * sections of groups (flops, two column-segment loads, a store) between
 * sequential events, on two matrices. For each size (10^6 events, then
 * 10^7 or argv[1]) it measures the first pass (open), a run with the cache off
 * and runs with caches on (4 PEs sharing 2 caches of 4096 words, lines of 4,
 * 8-way LRU; and 16 PEs, 16 caches), and prints events/s, element accesses/s
 * and the peak resident memory after each size (flat when streaming works).
 *   build/bench/shmap_bench [EVENTS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_shmap_sim.h"

/* Write about `events` events to path. */
static void generate(const char *path, long events)
{
    FILE *f = bench_create(path);
    const int n = 512;
    fprintf(f, "0 1 %d %d\n0 2 256 256\n3 1 generated LU-like trace\n", n, n);
    long written = 3, t = 0;
    unsigned seed = 1;
    while (written < events) {
        int k = (int)(seed % (unsigned)(n - 16)) + 1;
        seed = seed * 1103515245u + 12345u;
        fprintf(f, "5 1 %d sscal\n1 1 %d %d %d %d %ld\n2 1 %d %d %d %d %ld\n", n - k, k, k + 15, k,
                k, t, k, k + 15, k, k, t + 1);
        t += 2;
        written += 3;
        fprintf(f, "6 update\n");
        for (int g = 0; g < 64 && written < events; g++) {
            int j = (k + g) % n + 1;
            int r = (int)((seed >> 8) % 240u) + 1;
            seed = seed * 1103515245u + 12345u;
            fprintf(f, "8 g\n5 1 32 saxpy\n1 1 %d %d %d %d %ld\n1 2 %d %d %d %d %ld\n"
                       "2 1 %d %d %d %d %ld\n9 g\n",
                    k, k + 15, k, k, t, r, r + 15, (j - 1) % 256 + 1, (j - 1) % 256 + 1, t + 1, k,
                    k + 15, j, j, t + 2);
            t += 3;
            written += 4;
        }
        fprintf(f, "7 update\n");
    }
    bench_close(f, path);
}

static rt_shmap_sim *make(rt_shmap *r, int pes, int ncaches)
{
    rt_cache_config caches[64];
    rt_err e;
    for (int i = 0; i < ncaches; i++) {
        caches[i] = rt_cache_defaults(4096, 4);
        caches[i].ways = 8;
    }
    rt_shmap_sim *s = rt_shmap_sim_new(r, pes, ncaches ? caches : NULL, ncaches, 4, &e);
    if (!s)
        bench_die("shmap_bench", &e);
    return s;
}

static void run(rt_shmap *r, const char *label, int pes, int ncaches)
{
    const rt_shmap_info *in = rt_shmap_get_info(r);
    double elements = (double)(in->load_elements + in->store_elements);
    rt_shmap_sim *s = make(r, pes, ncaches);
    rt_err e;
    double t0 = bench_now();
    if (rt_shmap_sim_step(s, 0, NULL, &e) != RT_EEOF)
        bench_die("shmap_bench", &e);
    double dt = bench_now() - t0;
    uint64_t hits = 0, misses = 0;
    for (int i = 0; i < ncaches; i++) {
        hits += rt_shmap_sim_cache_stats(s, i)->hits;
        misses += rt_shmap_sim_cache_stats(s, i)->misses;
    }
    printf("  %-34s %6.2f s  %6.2f M events/s  %7.2f M element accesses/s  (%llu steps, hit ratio %.3f)\n",
           label, dt, (double)in->events / dt / 1e6, elements / dt / 1e6,
           (unsigned long long)rt_sched_steps(rt_shmap_sim_sched(s)),
           hits + misses ? (double)hits / (double)(hits + misses) : 0.0);
    rt_shmap_sim_free(s);
}

static void bench(long events)
{
    char path[64];
    bench_tmp_path(path, sizeof path, "shmap", "shm");
    generate(path, events);
    rt_err e;
    double t0 = bench_now();
    rt_shmap *r = rt_shmap_open(path, &e);
    if (!r)
        bench_die("shmap_bench", &e);
    double dt = bench_now() - t0;
    const rt_shmap_info *in = rt_shmap_get_info(r);
    printf("trace of %llu events (%llu element accesses, %llu lines):\n",
           (unsigned long long)in->events,
           (unsigned long long)(in->load_elements + in->store_elements),
           (unsigned long long)in->lines);
    printf("  %-34s %6.2f s  %6.2f M records/s\n", "first pass (open)", dt,
           (double)in->records / dt / 1e6);
    run(r, "cache off, 4 PEs", 4, 0);
    run(r, "4 PEs, 2 caches 4096 w, 8-way LRU", 4, 2);
    run(r, "16 PEs, 16 caches", 16, 16);
    rt_shmap_free(r);
    unlink(path);
    printf("  peak resident memory so far: %ld KiB\n", bench_max_rss_kib());
}

int main(int argc, char **argv)
{
    long big = argc > 1 ? atol(argv[1]) : 10000000L;
    bench(1000000L);
    bench(big);
    return 0;
}
