/*
 * picl_replay.c - records per second for reading + fully replaying a new-format
 * PICL trace through the format-neutral path (rt_tsource_open -> PICL source ->
 * neutral events -> rt_replay), and the peak memory at two trace lengths (it
 * must stay flat).
 *
 *   build/bench/picl_replay [RECORDS]    (default 10^7; a tenth of it is run first)
 *
 * The trace is generated into /tmp: 16 processors in a ring, each step every
 * processor enters a user event, sends 1 KiB to its right neighbour (tags
 * cycling over 8), waits in a blocking receive for its left neighbour's
 * message and leaves the user event: 6 records per processor per step, every
 * message paired, a realistic mix of entries, exits and message fields.
 * Rates are given per wall-clock second and per CPU second (the machine is
 * shared, so the CPU figure is the steadier one); each length runs in its own
 * process, so the two peak memories (max RSS) are independent.
 *
 * Then the live path of `retrace paragraph`: the pre-pass (rt_prescan_run, a
 * full replay without callbacks, the source rewound) and a second replay with
 * the prescan's per-processor counts (idle at own last event), the sender x
 * receiver matrix and a 1280 x 64 state / task raster (rt_timeline) attached
 * through a tap; the rate given is records / (pre-pass + replay) CPU seconds.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_prescan.h"
#include "rt_replay.h"
#include "rt_timeline.h"
#include "rt_tsource_open.h"

#define NPROC 16

/* Write at least n records; returns how many were written. */
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
    bench_close(fp, path);
    return written;
}

/* Pre-pass + replay with counts, matrix and a raster. */
static void live(const char *path)
{
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    if (!src)
        bench_die("picl_replay", &err);
    double c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_now();
    rt_prescan ps;
    if (rt_prescan_run(src, &ps, &err) != RT_OK)
        bench_die("picl_replay", &err);
    double c1 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_replay_opts o;
    memset(&o, 0, sizeof o);
    o.proc_events = ps.proc_events;
    o.nproc_events = ps.nprocs;
    o.matrix = 1;
    rt_replay *rp = rt_replay_new(src, &o, &err);
    rt_timeline_opts to = {.cols = 1280, .rows = 64, .nprocs = ps.nprocs, .t0 = ps.t0, .t1 = ps.t1,
                           .ntasks = ps.ntasks < RT_TIMELINE_MAXTASKS ? ps.ntasks : RT_TIMELINE_MAXTASKS,
                           .tasks = ps.tasks};
    rt_timeline *tl;
    if (!rp || rt_timeline_new(&to, &tl, &err) != RT_OK || rt_timeline_attach(tl, rp) != RT_OK ||
        rt_replay_run(rp, &err) != RT_OK)
        bench_die("picl_replay", &err);
    rt_timeline_advance(tl, ps.t1);
    double c2 = bench_clock(CLOCK_PROCESS_CPUTIME_ID), w2 = bench_now();
    long long recs = (long long)rt_replay_records(rp);
    printf("pre-pass + live replay (counts, matrix, 1280x64 raster): pre-pass %.2f s CPU (%.2f M records/s), "
           "replay %.2f s CPU (%.2f M records/s); together %.2f M records/s (CPU), %.2f M records/s (wall); "
           "max pending %lld; max RSS %ld KiB\n",
           c1 - c0, (double)recs / (c1 - c0) / 1e6, c2 - c1, (double)recs / (c2 - c1) / 1e6,
           (double)recs / (c2 - c0) / 1e6, (double)recs / (w2 - w0) / 1e6, (long long)ps.max_pending,
           bench_max_rss_kib());
    rt_timeline_detach(tl, rp);
    rt_timeline_free(tl);
    rt_replay_free(rp);
    rt_prescan_clear(&ps);
    rt_tsource_free(src);
}

static void run(const char *path)
{
    rt_err err;
    rt_tsource *src = rt_tsource_open(path, NULL, &err);
    if (!src)
        bench_die("picl_replay", &err);
    rt_replay_opts o;
    memset(&o, 0, sizeof o);
    rt_replay *rp = rt_replay_new(src, &o, &err);
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    if (!rp || rt_replay_run(rp, &err) != RT_OK)
        bench_die("picl_replay", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    rt_replay_totals tot;
    rt_replay_totals_get(rp, &tot);
    long long recs = (long long)rt_replay_records(rp), evs = (long long)rt_replay_events(rp);
    printf("records %lld (%lld events), messages %lld, pending %lld: %.2f s wall, %.2f s CPU; "
           "%.2f M records/s (wall), %.2f M records/s (CPU), %.2f M events/s (CPU); max RSS %ld KiB\n",
           recs, evs, (long long)tot.messages, (long long)tot.pending, dt, dc, (double)recs / dt / 1e6,
           (double)recs / dc / 1e6, (double)evs / dc / 1e6, bench_max_rss_kib());
    rt_replay_free(rp);
    rt_tsource_free(src);
    live(path);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char path[64];
    bench_tmp_path(path, sizeof path, "picl", "trf");
    printf("picl parse + full replay, %d processors, new format\n", NPROC);
    return bench_two_lengths("picl_replay", path, n, "records", generate, run);
}
