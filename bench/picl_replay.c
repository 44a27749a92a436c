/*
 * picl_replay.c - records per second for reading + fully replaying a new-format
 * PICL trace, and the peak memory at two trace lengths (it must stay flat).
 *
 *   build/bench/picl_replay [RECORDS]    (default 10^7; a tenth of it is run first)
 *
 * The trace is generated into /tmp: 16 processors in a ring, each step every
 * processor enters a user event, sends 1 KiB to its right neighbour (tags
 * cycling over 8), waits in a blocking receive for its left neighbour's
 * message and leaves the user event: 6 records per processor per step, every
 * message paired, a realistic mix of entries, exits and message fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "rt_replay.h"

#define NPROC 16

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static long max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Write at least n records; returns how many were written. */
static long generate(const char *path, long n)
{
    FILE *fp = fopen(path, "w");
    if (!fp) {
        perror(path);
        exit(1);
    }
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    long written = 0;
    double t = 0.0;
    for (long step = 0; written < n; step++) {
        int tag = (int)(step % 8);
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "-3 %d %.6f %d 0 0\n", tag, t, p);
            t += 1e-6;
            fprintf(fp, "-3 -21 %.6f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + 1) % NPROC);
            t += 1e-6;
            fprintf(fp, "-4 -21 %.6f %d 0 0\n", t, p);
        }
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "-3 -52 %.6f %d 0 2 2 %d %d\n", t, p, tag, (p + NPROC - 1) % NPROC);
            t += 2e-6;
            fprintf(fp, "-4 -52 %.6f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + NPROC - 1) % NPROC);
            t += 1e-6;
            fprintf(fp, "-4 %d %.6f %d 0 0\n", tag, t, p);
        }
        written += 6 * NPROC;
    }
    if (fclose(fp) != 0) {
        perror(path);
        exit(1);
    }
    return written;
}

static void run(const char *path, long n)
{
    rt_err err;
    rt_picl *r = rt_picl_open(path, NULL, &err);
    if (!r) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    rt_replay_opts o;
    memset(&o, 0, sizeof o);
    rt_replay *rp = rt_replay_new(r, &o, &err);
    double t0 = now_s();
    if (!rp || rt_replay_run(rp, &err) != RT_OK) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    double dt = now_s() - t0;
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    long long recs = (long long)rt_replay_records(rp);
    printf("records %lld (generated %ld), messages %lld, pending %lld: %.2f s, %.2f M records/s, max RSS %ld KiB\n",
           recs, n, (long long)tot.messages, (long long)tot.pending, dt, (double)recs / dt / 1e6,
           max_rss_kib());
    rt_replay_free(rp);
    rt_picl_free(r);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char path[64];
    snprintf(path, sizeof path, "/tmp/retrace_bench_picl_%ld.trf", (long)getpid());
    long small = n / 10;
    printf("picl parse + full replay, %d processors, new format\n", NPROC);
    long w = generate(path, small);
    run(path, w);
    w = generate(path, n);
    run(path, w);
    if (!getenv("RETRACE_BENCH_KEEP")) unlink(path);
    return 0;
}
