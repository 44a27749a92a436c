/*
 * memspy_bench - speed and memory of the MemSpy engine (core/memspy): references
 * per second on P = 4 processors with 64 KiB direct-mapped private caches of
 * 64-byte lines, fed straight from a generator (the engine alone, no parsing),
 * with 50,000 live heap allocations binned; the data-range lookup at that many
 * live ranges; the peak memory at two trace lengths (forked runs), which must
 * stay flat. Also the same run in --misses-only mode.
 *
 * RETRACE_BENCH_N overrides the reference count (default 4 * 10^7). Rates are
 * per second of this process's CPU time (the machine may be shared).
 * Targets: >= 10 M refs/s at P = 4; lookup <= 50 ns at 50,000 ranges.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "rt_memspy.h"
#include "rt_rangemap.h"

#define P 4
#define NALLOC 50000

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static inline uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static rt_memspy *machine(int misses_only)
{
    rt_hier_config c;
    rt_err err;
    rt_hier_config_single(&c, 65536, 64, 1);
    rt_memspy_config mc = {.procs = P, .latency = 50, .ref_cycles = 1, .misses_only = misses_only};
    rt_memspy *m = rt_memspy_new(&mc, &c, &err);
    if (!m)
        bench_die("memspy", &err);
    return m;
}

/* The program: each processor in one of 4 procedures; a private 32 KiB stack
 * region (60%: mostly hits), 50,000 heap objects of 64..256 bytes from 16
 * allocation sites walked in order (30%), a shared 256 KiB array (10%: sharing
 * and invalidations). 25% of references are writes. */
static void run(long n, int misses_only, int report)
{
    rt_memspy *m = machine(misses_only);
    rt_err err;
    const char *procs[] = {"solve", "update", "gather", "scatter"};
    for (int p = 0; p < P; p++) {
        rt_memspy_enter(m, p, "main", NULL, &err);
        rt_memspy_enter(m, p, procs[p], NULL, &err);
    }
    char name[32];
    uint64_t heap = 0x10000000, *obj = malloc(NALLOC * sizeof *obj);
    for (int i = 0; i < NALLOC; i++) {
        uint64_t size = 64 + (next() % 4) * 64;
        snprintf(name, sizeof name, "node%d.v", i % 16);
        obj[i] = heap;
        if (rt_memspy_alloc(m, 0, heap, size, name, "site", &err) != RT_OK)
            bench_die("alloc", &err);
        heap += size;
    }
    for (int p = 0; p < P; p++) {
        snprintf(name, sizeof name, "stack%d", p);
        rt_memspy_named(m, 0x7f0000000000ull + (uint64_t)p * 0x100000, 32768, name, &err);
    }
    rt_memspy_named(m, 0x20000000, 262144, "shared", &err);
    /* warm-up (not timed): every processor touches every line of the footprint
     * once, so the line states are all made and the peak memory that follows
     * depends on the footprint only */
    for (int p = 0; p < P; p++) {
        for (uint64_t a = 0x10000000; a < heap; a += 64)
            rt_memspy_ref(m, p, a, 8, 0, 0, 0, &err);
        for (uint64_t a = 0; a < 262144; a += 64)
            rt_memspy_ref(m, p, 0x20000000 + a, 8, 0, 0, 0, &err);
        for (uint64_t a = 0; a < 32768; a += 64)
            rt_memspy_ref(m, p, 0x7f0000000000ull + (uint64_t)p * 0x100000 + a, 8, 0, 0, 0, &err);
    }
    uint64_t walk[P] = {0};
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    for (long i = 0; i < n; i++) {
        int p = (int)(i & (P - 1));
        uint64_t x = next(), a;
        unsigned pick = (unsigned)(x % 10);
        if (pick < 6) {
            a = 0x7f0000000000ull + (uint64_t)p * 0x100000 + ((x >> 8) & 32767 & ~7ull);
        } else if (pick < 9) {
            walk[p] = (walk[p] + 8) % (uint64_t)(heap - 0x10000000);
            a = 0x10000000 + walk[p];
        } else {
            a = 0x20000000 + ((x >> 8) & 262143 & ~7ull);
        }
        if (rt_memspy_ref(m, p, a, 8, ((x >> 40) & 3) == 0, 0, 0, &err) != RT_OK)
            bench_die("ref", &err);
    }
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    if (report)
        printf("%s P=%d: %ld references in %.2f s wall, %.2f s CPU = %.1f M refs/s of CPU "
               "(miss rate %.2f%%, %llu invalidation misses, %zu statistical bins, %zu live ranges)\n",
               misses_only ? "misses-only" : "all refs   ", P, n, dt, dc, n / dc / 1e6,
               100.0 * (double)(t.c.read_misses + t.c.write_misses) / (double)t.c.refs,
               (unsigned long long)t.c.invalidation, rt_memspy_bins(m), rt_memspy_live_ranges(m));
    free(obj);
    rt_memspy_free(m);
}

static void lookup_bench(void)
{
    rt_rangemap r;
    rt_rangemap_init(&r);
    uint64_t *lo = malloc(NALLOC * sizeof *lo), a = 0x10000000;
    for (int i = 0; i < NALLOC; i++) {
        lo[i] = a;
        rt_rangemap_insert(&r, a, a + 48, (uint32_t)i, NULL);
        a += 64 + (next() % 8) * 16;
    }
    long q = 20000000;
    uint64_t sum = 0;
    /* the probe addresses' own cost (generator, random read of lo[]) is timed apart */
    clockid_t cpu = CLOCK_PROCESS_CPUTIME_ID;
    double t0 = bench_clock(cpu);
    for (long i = 0; i < q; i++)
        sum += lo[next() % NALLOC];
    double base = bench_clock(cpu) - t0;
    t0 = bench_clock(cpu);
    for (long i = 0; i < q; i++)
        sum += rt_rangemap_find(&r, lo[next() % NALLOC] + 8, NULL);
    double dt = bench_clock(cpu) - t0 - base;
    printf("range lookup: %.1f ns of CPU at %d live ranges (random addresses; checksum %llu)\n",
           dt / (double)q * 1e9, NALLOC, (unsigned long long)(sum & 0xffff));
    free(lo);
    rt_rangemap_destroy(&r);
}

int main(void)
{
    long n = 40000000;
    const char *e = getenv("RETRACE_BENCH_N");
    if (e)
        n = atol(e);
    lookup_bench();
    run(n, 0, 1);
    run(n, 1, 1);
    /* peak memory: the same run at n / 10 and n, each in a fresh process */
    long lens[2] = {n / 10, n};
    long rss[2];
    for (int i = 0; i < 2; i++) {
        fflush(stdout);
        int fd[2];
        if (pipe(fd) != 0)
            return 1;
        pid_t pid = fork();
        if (pid == 0) {
            run(lens[i], 0, 0);
            long kb = bench_max_rss_kib();
            if (write(fd[1], &kb, sizeof kb) != sizeof kb)
                _exit(1);
            _exit(0);
        }
        int status;
        waitpid(pid, &status, 0);
        if (read(fd[0], &rss[i], sizeof rss[i]) != sizeof rss[i])
            return 1;
        close(fd[0]);
        close(fd[1]);
    }
    printf("peak memory: %ld KiB at %ld references, %ld KiB at %ld references\n", rss[0], lens[0],
           rss[1], lens[1]);
    return 0;
}
