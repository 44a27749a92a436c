/*
 * critpath_mem.c - peak memory of a replay that keeps the critical path, at
 * two trace lengths (it must stay flat: the waits live in a store whose
 * older blocks go to a temporary file, see core/msg/rt_critpath.c).
 *
 *   build/bench/critpath_mem [RECORDS]    (default 10^7; a tenth of it is run first)
 *
 * The trace is generated into /tmp: 16 processors in a ring; each step every
 * processor first enters a blocking receive from its left neighbour, then
 * every processor sends 1 KiB to its right neighbour, then the receives end.
 * So every receive is a wait ended by a message sent after the wait began,
 * the kind the critical path must remember: one wait per 4 records. The
 * path found is checked: it runs through every step (2 segments a step).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_replay.h"
#include "rt_tsource_open.h"

#define NPROC 16

static long generate(const char *path, long n)
{
    FILE *fp = bench_create(path);
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    long written = 0;
    double t = 0.0;
    for (long step = 0; written < n; step++) {
        int tag = (int)(step % 8);
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "-3 -52 %.6f %d 0 2 2 %d %d\n", t, p, tag, (p + NPROC - 1) % NPROC);
        }
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "-3 -21 %.6f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + 1) % NPROC);
            t += 1e-6;
            fprintf(fp, "-4 -21 %.6f %d 0 0\n", t, p);
        }
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "-4 -52 %.6f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + NPROC - 1) % NPROC);
        }
        written += 4 * NPROC;
    }
    bench_close(fp, path);
    return written;
}

static void run(const char *path)
{
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    if (!src)
        bench_die("critpath_mem", &err);
    rt_replay_opts o;
    memset(&o, 0, sizeof o);
    o.critical_path = 1;
    rt_replay *rp = rt_replay_new(src, &o, &err);
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (!rp || rt_replay_run(rp, &err) != RT_OK)
        bench_die("critpath_mem", &err);
    rt_critical_path cp;
    if (rt_replay_critical_path(rp, &cp, &err) != RT_OK)
        bench_die("critpath_mem", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    long long recs = (long long)rt_replay_records(rp);
    printf("records %lld, waits %lld: path %.6f s, %d segments, %d messages; %.2f s wall, %.2f s CPU; "
           "max RSS %ld KiB\n",
           recs, recs / 4, cp.length, cp.nsegments, cp.nmessages, dt, dc, bench_max_rss_kib());
    rt_critical_path_clear(&cp);
    rt_replay_free(rp);
    rt_tsource_free(src);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char path[64];
    bench_tmp_path(path, sizeof path, "critpath", "trf");
    printf("replay with the critical path, %d processors in a ring, every receive a wait\n", NPROC);
    return bench_two_lengths("critpath_mem", path, n, "records", generate, run);
}
