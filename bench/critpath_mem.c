/*
 * critpath_mem.c - peak memory of a replay that keeps the critical path, at
 * two trace lengths (it must stay flat: the waits live in a store whose
 * older blocks go to a temporary file, see core/msg/rt_critpath.c).
 *
 *   build/bench/critpath_mem [RECORDS [PROCS]]   (default 10^7 and 16; a tenth
 *                                                  of RECORDS is run first)
 *
 * The trace is generated into /tmp: PROCS processors in a ring; each step every
 * processor first enters a blocking receive from its left neighbour, then
 * every processor sends 1 KiB to its right neighbour, then the receives end.
 * So every receive is a wait its message ended (sent after the wait began),
 * the kind the critical path must remember: one wait per 4 records. The
 * path goes back one step and one processor per message, so with many
 * processors it reaches each one long before that processor's last wait and
 * walks its chain of waits back through the file: the walk's time and the
 * bytes it reads back (read calls and bytes, from /proc/self/io) are printed
 * apart from the replay's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_critpath.h"
#include "rt_replay.h"
#include "rt_tsource_open.h"

static int NPROC = 16;

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

/* Read calls and bytes read by this process so far (/proc/self/io), -1 unknown. */
static void io_counts(long long *syscr, long long *rchar)
{
    *syscr = *rchar = -1;
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return;
    char line[128];
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "syscr: %lld", syscr);
        sscanf(line, "rchar: %lld", rchar);
    }
    fclose(f);
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
    double w0 = bench_now(), wc0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    long long r0, b0, r1, b1;
    io_counts(&r0, &b0);
    /* the path goes to a temporary file as it is found and is read back part by part, in
     * time order, as `retrace stats --json` reads it */
    rt_cp_path *cp = rt_cp_path_new(rp, &err);
    if (!cp)
        bench_die("critpath_mem", &err);
    int64_t nparts = rt_cp_path_count(cp), nmsg = 0;
    static rt_cp_part part[4096];
    for (int64_t i = 0; i < nparts; i += 4096) {
        int64_t k = nparts - i < 4096 ? nparts - i : 4096;
        if (rt_cp_path_read(cp, i, k, part) != RT_OK) {
            fprintf(stderr, "critpath_mem: cannot read the path back\n");
            exit(1);
        }
        for (int64_t j = 0; j < k; j++)
            nmsg += part[j].has_msg;
    }
    double start, end, length;
    rt_cp_path_span(cp, &start, &end, &length);
    io_counts(&r1, &b1);
    double t1 = bench_now(), c1 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    long long recs = (long long)rt_replay_records(rp);
    printf("records %lld, waits %lld: path %.6f s, %lld segments, %lld messages; %.2f s wall, %.2f s CPU; "
           "max RSS %ld KiB\n",
           recs, recs / 4, length, (long long)nparts, (long long)nmsg, t1 - t0, c1 - c0, bench_max_rss_kib());
    printf("  the walk and reading the path back: %.3f s wall, %.3f s CPU, %lld reads, %.1f MiB read back\n",
           t1 - w0, c1 - wc0, r1 - r0, (double)(b1 - b0) / 1048576.0);
    rt_cp_path_free(cp);
    rt_replay_free(rp);
    rt_tsource_free(src);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    if (argc > 2)
        NPROC = atoi(argv[2]);
    if (n < 40 || NPROC < 2) {
        fprintf(stderr, "usage: critpath_mem [RECORDS [PROCS]] (RECORDS >= 40, PROCS >= 2)\n");
        return 2;
    }
    char path[64];
    bench_tmp_path(path, sizeof path, "critpath", "trf");
    printf("replay with the critical path, %d processors in a ring, every receive a wait\n", NPROC);
    return bench_two_lengths("critpath_mem", path, n, "records", generate, run);
}
