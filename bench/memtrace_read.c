/*
 * memtrace_read - the text readers side by side: one generated stream of
 * references written as din, extended din (xdin) and valgrind lackey, each
 * then read (a) alone, batch by batch through rt_memtrace_read, and (b)
 * through `retrace cache`'s engine (32 KiB, 8-way, 64-byte lines, LRU,
 * write-back); then (c) the lackey file through `retrace capture`'s
 * conversion (pipe to RTMB) without valgrind. The three files carry exactly the same references (4 bytes at
 * 4-byte aligned addresses, the only kind din has; a lackey M is a din or
 * xdin load line then a store line), so the miss counts must agree, and the
 * rates compare the parsers alone. Target: xdin and lackey within ~10% of din.
 *
 * The traces go to /tmp/retrace-bench-mem-v1-N.{din,xdin,lackey} once and are
 * reused while present. RETRACE_BENCH_N sets N (default 5*10^7 references).
 * Times are CPU seconds of this process, the best of three runs taken in
 * turns (the machine is shared); RETRACE_BENCH_ROUNDS sets the runs.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_util.h"
#include "rt_cache.h"
#include "rt_capture.h"
#include "rt_memsim.h"
#include "rt_memtrace.h"

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* One instruction of a program-like run: its fetch, then (two in five) one
 * data reference: 65% loads, 25% stores, 10% modifies; to the stack (a hot
 * 2 KiB), a sequential walk over a 4 MiB array, a 16 KiB heap region, or
 * anywhere in 16 MiB. Writes the same line(s) to the three files; returns the
 * references written (an M is two). */
static int gen_one(FILE *din, FILE *xdin, FILE *lk)
{
    static uint64_t pc = 0x0401bd00, walk = 0x10000000;
    uint64_t x = next();
    if ((x & 15) == 0)
        pc = 0x04010000 + ((x >> 8) & 0xfffc);
    else
        pc += 4;
    fprintf(din, "2 %08llx\n", (unsigned long long)pc);
    fprintf(xdin, "i %08llx 4\n", (unsigned long long)pc);
    fprintf(lk, "I  %08llx,4\n", (unsigned long long)pc);
    if ((x >> 24) % 5 >= 2)
        return 1;
    unsigned where = (unsigned)((x >> 32) % 100);
    uint64_t a;
    if (where < 50) {
        a = 0x7ff000001000ull - ((x >> 40) & 2047);
    } else if (where < 80) {
        walk += 8;
        if (walk >= 0x10000000 + (4u << 20))
            walk = 0x10000000;
        a = walk;
    } else if (where < 95) {
        a = 0x50000000 + ((x >> 44) & 16383);
    } else {
        a = 0x40000000 + ((x >> 36) & ((16u << 20) - 1));
    }
    a &= ~3ull;
    unsigned long long aa = (unsigned long long)a;
    unsigned what = (unsigned)((x >> 16) % 20);
    if (what < 13) {
        fprintf(din, "0 %08llx\n", aa);
        fprintf(xdin, "r %08llx 4\n", aa);
        fprintf(lk, " L %08llx,4\n", aa);
        return 2;
    }
    if (what < 18) {
        fprintf(din, "1 %08llx\n", aa);
        fprintf(xdin, "w %08llx 4\n", aa);
        fprintf(lk, " S %08llx,4\n", aa);
        return 2;
    }
    fprintf(din, "0 %08llx\n1 %08llx\n", aa, aa);
    fprintf(xdin, "r %08llx 4\nw %08llx 4\n", aa, aa);
    fprintf(lk, " M %08llx,4\n", aa);
    return 3;
}

static int rounds = 3; /* runs of each format; the best counts */
static const int fmts[3] = {RT_MEMFMT_DIN, RT_MEMFMT_XDIN, RT_MEMFMT_LACKEY};
static char paths[3][300];

static void generate(uint64_t n)
{
    char stamp[320];
    snprintf(stamp, sizeof stamp, "%s.done", paths[2]);
    struct stat st;
    if (stat(stamp, &st) == 0)
        return;
    fprintf(stderr, "generating %llu references into %s, .xdin, .lackey ...\n", (unsigned long long)n,
            paths[0]);
    FILE *f[3];
    for (int i = 0; i < 3; i++) {
        f[i] = bench_create(paths[i]);
        setvbuf(f[i], NULL, _IOFBF, 1 << 20);
    }
    rng = 0x9E3779B97F4A7C15ull;
    /* a little of what a lackey log has around its records; din and xdin
     * get a comment line (din's "rest of the line") of their own */
    fprintf(f[2], "==4242== Lackey, an example Valgrind tool\n==4242== Command: ./prog\n==4242== \n");
    for (uint64_t k = 0; k < n;)
        k += (uint64_t)gen_one(f[0], f[1], f[2]);
    fprintf(f[2], "==4242== \n==4242== Counted 1 call to main()\n");
    for (int i = 0; i < 3; i++)
        bench_close(f[i], paths[i]);
    bench_close(bench_create(stamp), stamp);
}

typedef struct {
    double cpu;
    uint64_t refs, misses, sum;
} outcome;

/* (a) the reader alone: every reference through rt_memtrace_read */
static outcome read_only(int i)
{
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(paths[i], fmts[i], &err);
    if (!t)
        bench_die(paths[i], &err);
    static rt_memref buf[4096];
    outcome o = {0};
    size_t n;
    int st;
    double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    while ((st = rt_memtrace_read(t, buf, 4096, &n, &err)) == RT_OK) {
        o.refs += n;
        for (size_t k = 0; k < n; k++)
            o.sum += buf[k].addr ^ ((uint64_t)buf[k].kind << 60) ^ (buf[k].size << 48); /* all three must read alike */
    }
    o.cpu = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0;
    if (st != RT_EEOF)
        bench_die(paths[i], &err);
    rt_memtrace_free(t);
    return o;
}

/* (b) through the cache, as `retrace cache` runs it */
static outcome simulate(int i)
{
    rt_err err;
    rt_cache_config cfg = rt_cache_defaults(32768, 64);
    cfg.ways = 8;
    cfg.write_back = 1;
    rt_cache *c;
    if (rt_cache_new(&cfg, &c, &err) != RT_OK)
        bench_die("cache", &err);
    rt_memtrace *t = rt_memtrace_open(paths[i], fmts[i], &err);
    if (!t)
        bench_die(paths[i], &err);
    rt_memsim_opts opts = {0};
    rt_memsim_result res;
    double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (rt_memsim_run(c, t, &opts, &res, &err) != RT_OK)
        bench_die(paths[i], &err);
    outcome o = {bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0, res.records, rt_cache_stats_get(c)->misses, 0};
    rt_memtrace_free(t);
    rt_cache_free(c);
    return o;
}

/* The best of three runs of each format, the formats taking turns, so that
 * a busy spell of the shared machine falls on all three alike. */
static void report(const char *what, outcome (*f)(int))
{
    printf("%s\n", what);
    outcome o[3];
    for (int round = 0; round < rounds; round++)
        for (int i = 0; i < 3; i++) {
            outcome r = f(i);
            if (round == 0 || r.cpu < o[i].cpu)
                o[i] = r;
        }
    for (int i = 0; i < 3; i++) {
        printf("  %-7s %6.2f s CPU  %6.1f M refs/s  %5.2fx din's time  (%llu references",
               rt_memfmt_name(fmts[i]), o[i].cpu, (double)o[i].refs / o[i].cpu / 1e6, o[i].cpu / o[0].cpu,
               (unsigned long long)o[i].refs);
        if (f == simulate)
            printf(", %llu misses)\n", (unsigned long long)o[i].misses);
        else
            printf(", checksum %016llx)\n", (unsigned long long)o[i].sum);
    }
    fflush(stdout);
    for (int i = 1; i < 3; i++)
        if (o[i].refs != o[0].refs || o[i].misses != o[0].misses || o[i].sum != o[0].sum) {
            fprintf(stderr, "memtrace_read: %s and din disagree\n", rt_memfmt_name(fmts[i]));
            exit(1);
        }
}

/* (c) `retrace capture`'s conversion of lackey's log, valgrind left out: a
 * stand-in for it writes the lackey file into the capture's pipe, and this
 * process (whose CPU time alone counts) parses it and writes RTMB. */
static void capture(void)
{
    char script[320], rtmb[320], alloc[320];
    snprintf(script, sizeof script, "%s.cat.sh", paths[2]);
    snprintf(rtmb, sizeof rtmb, "%s.rtmb", paths[2]);
    snprintf(alloc, sizeof alloc, "%s.alloc", paths[2]);
    FILE *f = bench_create(script);
    fputs("#!/bin/sh\nfd=${1#--log-fd=}\neval \"exec cat \\\"\\$2\\\" >&$fd\"\n", f);
    bench_close(f, script);
    chmod(script, 0755);
    const char *argv[] = {script, paths[2], NULL};
    rt_capture_opts o = {.argv = argv, .rtmb = rtmb, .alloc = alloc};
    double best = 0;
    rt_capture_result res;
    for (int round = 0; round < rounds; round++) {
        rt_err err;
        double t0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
        if (rt_capture_run(&o, &res, &err) != RT_OK)
            bench_die("capture", &err);
        double t = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - t0;
        if (round == 0 || t < best)
            best = t;
    }
    printf("(c) retrace capture's conversion of the lackey file (from a pipe, to RTMB), valgrind left out:\n"
           "  lackey  %6.2f s CPU  %6.1f M refs/s  (%llu references and fetches)\n",
           best, (double)res.records / best / 1e6, (unsigned long long)res.records);
    unlink(script);
    unlink(rtmb);
    unlink(alloc);
}

int main(void)
{
    uint64_t n = 50000000ull;
    const char *e = getenv("RETRACE_BENCH_N");
    if (e && atoll(e) > 0)
        n = (uint64_t)atoll(e);
    const char *r = getenv("RETRACE_BENCH_ROUNDS");
    if (r && atoi(r) > 0)
        rounds = atoi(r);
    const char *ext[3] = {"din", "xdin", "lackey"};
    for (int i = 0; i < 3; i++)
        snprintf(paths[i], sizeof paths[i], "/tmp/retrace-bench-mem-v1-%llu.%s", (unsigned long long)n, ext[i]);
    generate(n);
    printf("the same %llu references as din, xdin and lackey; CPU time, best of %d runs in turns\n",
           (unsigned long long)n, rounds);
    report("(a) reading alone (rt_memtrace_read, batches of 4096):", read_only);
    report("(b) through a 32 KiB 8-way cache of 64-byte lines, LRU, write-back (retrace cache):", simulate);
    capture();
    return 0;
}
