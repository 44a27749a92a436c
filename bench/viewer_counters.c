/*
 * viewer_counters.c - `retrace view`'s counter plots on OTF2 metrics: the index
 * build of an archive with metrics and 1000 random api/counters queries.
 *
 *   build/bench/viewer_counters [EVENTS [LOCATIONS]]   (default 10^7 events, 64 locations;
 *                                                       a tenth of the events first)
 *
 * The archive is bench/gen_otf2_mpi --metrics (an MPI-like run whose every
 * computation ends with a METRIC record of two members, PAPI_TOT_INS and power).
 * Each part runs in a process of its own (this program again, with --build or
 * --serve DIR), so each peak memory is its own: the index build (rt_index_build),
 * then the server (rt_index_open + rt_server_start) answering api/counters
 * in-process (rt_server_answer: the query's work, without the socket) at 1200
 * pixel columns: windows log-uniform from the whole run down to 2 microseconds,
 * half of them per processor (1 to 64 processors, log-uniform), half summed over
 * 1 processor to all; either counter. It prints the latency percentiles, how many
 * answers came from the summaries, the server's heap (RssAnon) before and after,
 * and the whole run's plot from the summaries against the same from the samples.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_index.h"
#include "rt_server.h"

#define PROG "viewer_counters"

/* This program's folder (build/bench), for gen_otf2_mpi and the page's files. */
static void own_dir(char *buf, size_t cap)
{
    ssize_t k = readlink("/proc/self/exe", buf, cap - 1);
    buf[k > 0 ? k : 0] = '\0';
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';
}

static void build_step(const char *dir)
{
    char anchor[600], index[600];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(index, sizeof index, "%s.rtidx", dir);
    rt_err err;
    rt_index_build_info info;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (rt_index_build(anchor, NULL, index, NULL, NULL, &info, &err) != RT_OK)
        bench_die(PROG, &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    rt_index *ix = rt_index_open(index, anchor, &err);
    if (!ix)
        bench_die(PROG, &err);
    printf("index: %llu events (%d counters) in %.2f s wall, %.2f s CPU = %.2f M events/s of CPU; %.1f MiB = %.1f%% "
           "of the trace's %.1f MiB; %d counter summary levels; max RSS %ld KiB\n",
           (unsigned long long)info.events, rt_index_ncounters(ix), dt, dc, (double)info.events / dc / 1e6,
           (double)info.bytes / 1048576.0, 100.0 * (double)info.bytes / (double)info.trace_bytes,
           (double)info.trace_bytes / 1048576.0, rt_index_counter_levels(ix), bench_max_rss_kib());
    rt_index_close(ix);
}

static long rss_anon_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f) && sscanf(line, "RssAnon: %ld", &v) != 1)
        ;
    if (f)
        fclose(f);
    return v;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One query: its CPU seconds; *summaries 1 when the summaries answered. */
static double query(rt_server *s, const char *args, int *summaries)
{
    char *body = NULL;
    size_t len = 0;
    const char *type;
    double c0 = bench_clock(CLOCK_THREAD_CPUTIME_ID);
    int st = rt_server_answer(s, "api/counters", args, &body, &len, &type);
    double dc = bench_clock(CLOCK_THREAD_CPUTIME_ID) - c0;
    if (st != 200) {
        fprintf(stderr, PROG ": api/counters?%s: HTTP %d: %s\n", args, st, body ? body : "");
        exit(1);
    }
    *summaries = !strstr(body, "\"level\":-1,");
    free(body);
    return dc;
}

static void serve_step(const char *dir)
{
    char anchor[600], index[600], assets[700], here[512];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    snprintf(index, sizeof index, "%s.rtidx", dir);
    own_dir(here, sizeof here);
    snprintf(assets, sizeof assets, "%s/../share/retrace/lua/retrace/viewer", here);
    rt_err err;
    rt_index *ix = rt_index_open(index, anchor, &err);
    if (!ix)
        bench_die(PROG, &err);
    rt_server *s = rt_server_start(ix, "bench", assets, NULL, 0, NULL, &err);
    if (!s)
        bench_die(PROG, &err);
    long before = rss_anon_kib();
    int64_t tmin = rt_index_tmin(ix), tmax = rt_index_tmax(ix);
    int np = rt_index_nprocs(ix), nc = rt_index_ncounters(ix);
    enum { Q = 1000 };
    static double cpu[Q];
    int from_sum = 0;
    srand(11);
    for (int i = 0; i < Q; i++) {
        double span = (double)(tmax - tmin);
        double w = exp(log(2000.0) + (log(span) - log(2000.0)) * rand() / (double)RAND_MAX);
        int64_t a = tmin + (int64_t)((span - w) * rand() / (double)RAND_MAX);
        int sum = i % 2, most = sum ? np : (np < 64 ? np : 64);
        int cnt = (int)exp(log((double)most) * rand() / (double)RAND_MAX);
        cnt = cnt < 1 ? 1 : cnt > most ? most : cnt;
        int p0 = (int)((np - cnt) * (double)rand() / RAND_MAX);
        char args[300];
        snprintf(args, sizeof args, "c=%d&t0=%lld&t1=%lld&p0=%d&p1=%d&w=1200&sum=%d", rand() % nc, (long long)a,
                 (long long)(a + (int64_t)w), p0, p0 + cnt, sum);
        int k;
        cpu[i] = query(s, args, &k);
        from_sum += k;
    }
    long after = rss_anon_kib();
    qsort(cpu, Q, sizeof *cpu, by_value);
    printf("server: %d counter queries (%d from the summaries, %d from the samples): CPU p50 %.2f ms, p95 %.2f ms, "
           "max %.2f ms; heap (RssAnon) %ld KiB before, %ld KiB after; max RSS %ld KiB\n",
           Q, from_sum, Q - from_sum, 1e3 * cpu[Q / 2], 1e3 * cpu[Q * 95 / 100], 1e3 * cpu[Q - 1], before, after,
           bench_max_rss_kib());
    /* the whole run summed over every processor: summaries against samples */
    int k;
    double fast = query(s, "c=0&w=1200&sum=1&lod=1", &k), slow = query(s, "c=0&w=1200&sum=1&lod=0", &k);
    printf("whole run, all processors summed: %.2f ms from the summaries, %.2f ms from the samples\n", 1e3 * fast,
           1e3 * slow);
    rt_server_stop(s);
    rt_index_close(ix);
}

/* Run this program again on one step (a process of its own); exit when it fails. */
static void step(const char *what, const char *dir)
{
    char here[512], cmd[1400];
    own_dir(here, sizeof here);
    snprintf(cmd, sizeof cmd, "'%s/" PROG "' %s '%s'", here, what, dir);
    fflush(stdout);
    if (system(cmd) != 0) {
        fprintf(stderr, PROG ": %s failed\n", cmd);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--build")) {
        build_step(argv[2]);
        return 0;
    }
    if (argc == 3 && !strcmp(argv[1], "--serve")) {
        serve_step(argv[2]);
        return 0;
    }
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    int nproc = argc > 2 ? atoi(argv[2]) : 64;
    if (n < 1000 || nproc < 1 || argc > 3) {
        fprintf(stderr, "usage: " PROG " [EVENTS [LOCATIONS]]\n");
        return 2;
    }
    char dir[64], here[512], cmd[1400];
    bench_tmp_path(dir, sizeof dir, "viewer_counters", "d");
    own_dir(here, sizeof here);
    long sizes[2] = {n / 10, n};
    for (int i = 0; i < 2; i++) {
        printf("== about %ld events, %d locations\n", sizes[i], nproc);
        snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.rtidx' && '%s/gen_otf2_mpi' --metrics '%s' %d %ld 1 >/dev/null", dir,
                 dir, here, dir, nproc, sizes[i]);
        fflush(stdout);
        if (system(cmd) != 0) {
            fprintf(stderr, PROG ": %s failed\n", cmd);
            return 1;
        }
        step("--build", dir);
        step("--serve", dir);
    }
    snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s.rtidx'", dir, dir);
    return system(cmd) == 0 ? 0 : 1;
}
