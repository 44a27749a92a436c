/*
 * cache_bench - speed of `retrace cache`'s engine: references per second for
 * an LRU 8-way 32 KiB cache with 64-byte lines on a generated trace of 10^8
 * references, read from the binary format (RTMB) and from text din; the peak
 * memory (VmHWM of a fresh process) at two trace lengths, to show it is flat;
 * and the one-pass size sweep's time against a single-size run.
 *
 * The traces are generated into /tmp once and reused when present
 * (/tmp/retrace-bench-v1-N.rtmb, .din). RETRACE_BENCH_N overrides N (10^8).
 * Targets: >= 70 M refs/s from RTMB, >= 25 M refs/s from din, sweep <= 3x.
 * Each time is the best of three runs (the machine is shared).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench_memgen.h"
#include "bench_util.h"
#include "rt_cache.h"
#include "rt_memsim.h"
#include "rt_memtrace.h"

static uint64_t rng = 0x2545F4914F6CDD1Dull;

/* A program-like mix, in 64ths: stack and locals (36: a hot 2 KiB region),
 * a sequential walk of 8-byte elements over a 4 MiB array (20: one miss per
 * line), a hot 16 KiB heap region (6), a walk down a column of a 512-column
 * matrix of doubles (1: a miss each), a random reference into 16 MiB (1).
 * 30% of references are stores. About 6% of references miss in 32 KiB. */
static void gen_ref(rt_memref *r)
{
    static uint64_t a = 0x10000000, b = 0x20000000;
    uint64_t x = bench_xorshift(&rng);
    unsigned pick = (unsigned)(x & 63);
    r->size = 8;
    r->kind = (x >> 8) % 10 < 3 ? RT_REF_WRITE : RT_REF_READ;
    if (pick < 36) {
        r->addr = (0x7ff000000000ull - ((x >> 16) & 2047)) & ~7ull;
    } else if (pick < 56) {
        a += 8;
        if (a >= 0x10000000 + (4u << 20))
            a = 0x10000000;
        r->addr = a;
    } else if (pick < 62) {
        r->addr = 0x50000000 + ((x >> 24) & 16383 & ~7ull);
    } else if (pick < 63) {
        b += 8 * 512;
        if (b >= 0x20000000 + (8u << 20))
            b = 0x20000000 + ((b + 8) & 4095);
        r->addr = b;
    } else {
        r->addr = 0x40000000 + ((x >> 20) & ((16u << 20) - 1) & ~7ull);
    }
}

typedef struct {
    double secs;
    uint64_t refs, misses;
    uint64_t distinct; /* lines in the trace's footprint (with the sweep) */
} outcome;

static outcome simulate(const char *path, int fmt, int sweep)
{
    rt_err err;
    rt_cache_config cfg = rt_cache_defaults(32768, 64);
    cfg.ways = 8;
    cfg.write_back = 1;
    rt_cache *c;
    if (rt_cache_new(&cfg, &c, &err) != RT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    rt_memsim_opts o = {.sweep = sweep};
    rt_memsim_result res;
    double t0 = bench_now();
    if (rt_memsim_run(c, t, &o, &res, &err) != RT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    outcome out = {bench_now() - t0, rt_cache_stats_get(c)->refs, rt_cache_stats_get(c)->misses,
                   res.swept && res.sweep_n ? res.sweep_misses[res.sweep_n - 1] : 0};
    rt_memtrace_free(t);
    rt_cache_free(c);
    return out;
}

/* peak memory in KiB of a fresh process (this program, run again) doing one simulation */
#define child_rss(path, fmt, sweep) bench_child_kib("'%s' %d %d", (path), (fmt), (sweep))

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--child") == 0) {
        simulate(argv[2], atoi(argv[3]), atoi(argv[4]));
        printf("%ld\n", bench_max_rss_kib());
        return 0;
    }
    uint64_t n = 100000000ull;
    const char *e = getenv("RETRACE_BENCH_N");
    if (e && atoll(e) > 0)
        n = (uint64_t)atoll(e);
    uint64_t small = n / 10;
    char bin[256], din[256], sbin[256], sdin[256];
    snprintf(bin, sizeof bin, "/tmp/retrace-bench-v1-%llu.rtmb", (unsigned long long)n);
    snprintf(din, sizeof din, "/tmp/retrace-bench-v1-%llu.din", (unsigned long long)n);
    snprintf(sbin, sizeof sbin, "/tmp/retrace-bench-v1-%llu.rtmb", (unsigned long long)small);
    snprintf(sdin, sizeof sdin, "/tmp/retrace-bench-v1-%llu.din", (unsigned long long)small);
    rng = 0x2545F4914F6CDD1Dull;
    bench_memgen(n, bin, din, gen_ref);
    rng = 0x2545F4914F6CDD1Dull;
    bench_memgen(small, sbin, sdin, gen_ref);

    printf("cache: 32 KiB, 64-byte lines, 8-way, LRU, write-back; %llu references"
           " (best of 3 runs)\n",
           (unsigned long long)n);
    outcome b, d, s;
    BENCH_BEST_OF3(b, simulate(bin, RT_MEMFMT_RTMB, 0));
    printf("  binary (RTMB): %6.2f s  %7.1f M refs/s  (misses %llu; target >= 70)\n", b.secs,
           b.refs / b.secs / 1e6, (unsigned long long)b.misses);
    BENCH_BEST_OF3(d, simulate(din, RT_MEMFMT_DIN, 0));
    printf("  text din:      %6.2f s  %7.1f M refs/s  (misses %llu; target >= 25)\n", d.secs,
           d.refs / d.secs / 1e6, (unsigned long long)d.misses);
    BENCH_BEST_OF3(s, simulate(bin, RT_MEMFMT_RTMB, 1));
    printf("  --sweep (RTMB): %5.2f s  %.2fx the single-size run (target <= 3x)\n", s.secs,
           s.secs / b.secs);
    outcome ss = simulate(sbin, RT_MEMFMT_RTMB, 1);
    printf("peak memory, VmHWM of a fresh process (flat for the cache; the sweep follows the footprint, not the length):\n");
    printf("  %11llu refs: bin %6ld KiB, din %6ld KiB, sweep %6ld KiB (%llu distinct lines)\n",
           (unsigned long long)small, child_rss(sbin, RT_MEMFMT_RTMB, 0),
           child_rss(sdin, RT_MEMFMT_DIN, 0), child_rss(sbin, RT_MEMFMT_RTMB, 1),
           (unsigned long long)ss.distinct);
    printf("  %11llu refs: bin %6ld KiB, din %6ld KiB, sweep %6ld KiB (%llu distinct lines)\n",
           (unsigned long long)n, child_rss(bin, RT_MEMFMT_RTMB, 0), child_rss(din, RT_MEMFMT_DIN, 0),
           child_rss(bin, RT_MEMFMT_RTMB, 1), (unsigned long long)s.distinct);
    return 0;
}
