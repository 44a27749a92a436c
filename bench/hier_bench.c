/*
 * hier_bench - speed and memory of the hierarchy engine (rt_hier, Dinero IV's
 * model) behind `retrace cache -- DINERO-OPTIONS` and `--hierarchy`.
 *
 * A program-like data trace (stack loads and stores, a sequential array
 * walk, a random heap) of N references is written once to
 * /tmp/retrace-hier-v3-N.rtmb and .din, then run through:
 *   one level    l1i/l1d 32 KiB 8-way LRU, 64-byte lines (the data cache works);
 *   three levels l1i/l1d 32 KiB 8-way, l2 256 KiB 8-way, l3 8 MiB 16-way;
 *   four cores   the three levels with private l1 and l2 per core and MESI
 *                among them, the cores taking turns every 10,000 records (all
 *                of them on the same addresses: coherence at its busiest).
 * It prints references per wall second (the run of least wall time of three)
 * from RTMB and from din text, with the CPU time of the simulating thread and
 * of the others (din is parsed on a second thread): the busier thread's CPU
 * time is what the run takes on two otherwise idle cores, the figure to read
 * when the machine is shared. Then the peak memory of a fresh process at N/10 and N, to show it is
 * flat in trace length. RETRACE_BENCH_N overrides N (2 * 10^7).
 * `hier_bench --child TRACE FORMAT SHAPE` runs one simulation and prints the
 * wall time and each thread's CPU time to stderr, its peak memory to stdout.
 * Targets: >= 100 M refs/s through one level from RTMB and din, >= 40 M refs/s
 * through three levels.
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
#include "rt_hier.h"
#include "rt_memtrace.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

/* one reference of a data mix (as `retrace cache` simulates: loads and
 * stores), the shape of cache_bench's: stack (38/64: a hot 4 KiB region), a
 * sequential array walk over 8 MiB (20/64), a hot 16 KiB heap region (5/64),
 * a random reference into 16 MiB (1/64); 30% stores */
static void make_ref(rt_memref *r)
{
    static uint64_t walk = 0x10000000;
    uint64_t x = bench_xorshift(&state);
    unsigned pick = (unsigned)(x & 63);
    r->size = 8;
    r->kind = (x >> 8) % 10 < 3 ? RT_REF_WRITE : RT_REF_READ;
    if (pick < 38) {
        r->addr = (0x7ff000000000ull - ((x >> 16) & 4095)) & ~7ull;
    } else if (pick < 58) {
        walk += 8;
        if (walk >= 0x10000000 + (8u << 20))
            walk = 0x10000000;
        r->addr = walk;
    } else if (pick < 63) {
        r->addr = 0x50000000 + ((x >> 24) & 16383 & ~7ull);
    } else {
        r->addr = 0x40000000 + ((x >> 20) & ((16u << 20) - 1) & ~7ull);
    }
}

static const char *const shapes[] = {
    "l1i:32k/64:8 l1d:32k/64:8",
    "l1i:32k/64:8 l1d:32k/64:8 l2:256k/64:8 l3:8m/64:16",
    "cores=4 l1i:32k/64:8 l1d:32k/64:8 l2:256k/64:8 l3:8m/64:16",
};
#define SHAPES 3
#define TURN 10000

typedef struct {
    double secs, cpu; /* wall and CPU seconds (din is parsed on a second thread) */
    double main_cpu;  /* the simulating thread's CPU seconds; cpu - main_cpu is the parser's */
    uint64_t refs, l1d_misses;
} outcome;

static outcome simulate(const char *path, int fmt, int shape)
{
    rt_err err;
    rt_hier_config cfg;
    rt_hier_config_init(&cfg);
    rt_hier *h;
    if (rt_hier_parse_short(&cfg, shapes[shape], &err) != RT_OK || rt_hier_new(&cfg, &h, &err) != RT_OK)
        bench_die("hier_bench", &err);
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (!t)
        bench_die("hier_bench", &err);
    if (cfg.cores > 1) { /* the cores take turns: a switch every TURN records */
        struct stat sb;
        uint64_t approx = stat(path, &sb) == 0 ? (uint64_t)sb.st_size : 0; /* >= 1 byte a record */
        size_t n = (size_t)(approx / TURN + 1);
        uint64_t *sw = malloc(2 * n * sizeof *sw);
        if (!sw) {
            fprintf(stderr, "hier_bench: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < n; i++) {
            sw[2 * i] = (uint64_t)i * TURN;
            sw[2 * i + 1] = i % cfg.cores;
        }
        if (rt_hier_set_cores(h, sw, n, &err) != RT_OK)
            bench_die("hier_bench", &err);
        free(sw);
    }
    rt_hier_run_result res;
    double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_now(), m0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    if (rt_hier_run(h, t, &res, &err) != RT_OK)
        bench_die("hier_bench", &err);
    const rt_hier_stats *d = rt_hier_stats_get(h, 0, RT_HIER_DATA);
    double m1 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    rt_memtrace_free(t); /* joins the parser thread: its CPU time is in the process's */
    outcome o = {bench_now() - w0, bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0, m1 - m0, res.simulated,
                 d->miss[0] + d->miss[1]};
    rt_hier_free(h);
    return o;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "--child")) {
        outcome o = simulate(argv[2], atoi(argv[3]), atoi(argv[4]));
        fprintf(stderr, "%llu refs: wall %.3f s, simulating thread %.3f s, others %.3f s CPU\n",
                (unsigned long long)o.refs, o.secs, o.main_cpu, o.cpu - o.main_cpu);
        printf("%ld\n", bench_max_rss_kib());
        return 0;
    }
    uint64_t n = 20000000ull;
    const char *e = getenv("RETRACE_BENCH_N");
    if (e && atoll(e) > 0)
        n = (uint64_t)atoll(e);
    uint64_t sizes[2] = {n / 10, n};
    char bin[2][256], din[2][256];
    for (int k = 0; k < 2; k++) {
        snprintf(bin[k], sizeof bin[k], "/tmp/retrace-hier-v3-%llu.rtmb", (unsigned long long)sizes[k]);
        snprintf(din[k], sizeof din[k], "/tmp/retrace-hier-v3-%llu.din", (unsigned long long)sizes[k]);
        state = 0x9E3779B97F4A7C15ull;
        bench_memgen(sizes[k], bin[k], din[k], make_ref);
    }
    static const char *const shape_names[] = {"one level (32 KiB 8-way L1)", "three levels",
                                              "four cores, MESI"};
    for (int shape = 0; shape < SHAPES; shape++) {
        for (int f = 0; f < 2; f++) {
            const char *path = f ? din[1] : bin[1];
            outcome o;
            BENCH_BEST_OF3(o, simulate(path, f ? RT_MEMFMT_DIN : RT_MEMFMT_RTMB, shape));
            /* the busier thread's CPU time: the wall time on two free cores */
            double busy = o.main_cpu > o.cpu - o.main_cpu ? o.main_cpu : o.cpu - o.main_cpu;
            printf("%-28s %-4s %10llu refs  wall %6.3f s %6.1f M/s  CPU %6.3f s (simulating thread %6.3f s,"
                   " others %6.3f s) %6.1f M/s by the busier thread  (l1d misses %llu)\n",
                   shape_names[shape], f ? "din" : "rtmb", (unsigned long long)o.refs, o.secs,
                   o.refs / o.secs / 1e6, o.cpu, o.main_cpu, o.cpu - o.main_cpu, o.refs / busy / 1e6,
                   (unsigned long long)o.l1d_misses);
        }
        printf("%-28s peak memory: %ld KiB at %llu refs, %ld KiB at %llu refs\n", shape_names[shape],
               bench_child_kib("'%s' %d %d", bin[0], RT_MEMFMT_RTMB, shape), (unsigned long long)sizes[0],
               bench_child_kib("'%s' %d %d", bin[1], RT_MEMFMT_RTMB, shape), (unsigned long long)sizes[1]);
    }
    return 0;
}
