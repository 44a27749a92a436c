/*
 * paraver_read.c - events per second through the Paraver reader, and the peak
 * memory at two trace lengths (it must stay flat).
 *
 *   build/bench/paraver_read [RECORDS]    (default 10^7; a tenth of it is run first)
 *
 * The .prv is generated into /tmp (no .pcf beside it: the reader warns and
 * names states by number): 64 tasks of one thread; each step every thread
 * runs for 5 ticks with an MPI event at its start, sends one message to its
 * right neighbour (physical send 1 tick in, received 8 ticks in) and waits
 * in state 3 for 5 ticks: 4 records and 7 events per thread per step, sorted
 * as Paraver writes them. Each length runs in its own process, so the two
 * peak memories (max RSS) are independent; rates per wall-clock and per CPU
 * second (the machine is shared, the CPU figure is the steadier one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "rt_paraver.h"

#define NTHREADS 64

/* Write at least n records; returns how many were written. */
static long generate(const char *path, long n)
{
    FILE *fp = bench_create(path);
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    long steps = (n + 4 * NTHREADS - 1) / (4 * NTHREADS);
    fprintf(fp, "#Paraver (01/01/26 at 00:00):%ld_ns:0:1:%d(", steps * 10 + 10, NTHREADS);
    for (int p = 1; p <= NTHREADS; p++)
        fprintf(fp, "1:%d%s", p, p < NTHREADS ? "," : ")\n");
    long written = 0;
    for (long s = 0; s < steps; s++) {
        long t = s * 10;
        for (int p = 1; p <= NTHREADS; p++) {
            int q = p % NTHREADS + 1;
            fprintf(fp, "1:%d:1:%d:1:%ld:%ld:1\n", p, p, t, t + 5);
            fprintf(fp, "2:%d:1:%d:1:%ld:50000001:%d\n", p, p, t, (int)(s % 3));
            fprintf(fp, "3:%d:1:%d:1:%ld:%ld:%d:1:%d:1:%ld:%ld:1024:%d\n", p, p, t, t + 1, q, q, t + 5, t + 8,
                    (int)(s % 8));
        }
        for (int p = 1; p <= NTHREADS; p++)
            fprintf(fp, "1:%d:1:%d:1:%ld:%ld:3\n", p, p, t + 5, t + 10);
        written += 4 * NTHREADS;
    }
    bench_close(fp, path);
    return written;
}

static void run(const char *path)
{
    rt_err err;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *s = rt_paraver_open(path, &err);
    if (!s)
        bench_die("paraver_read", &err);
    rt_tevent ev;
    int st;
    double check = 0; /* use the events, so nothing is optimised away */
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
        check += ev.kind == RT_TE_RECV ? ev.bytes : 0;
    if (st != RT_EEOF)
        bench_die("paraver_read", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    const rt_paraver_stats *ps = rt_paraver_stats_of(s);
    long long evs = (long long)s->events;
    printf("records %llu, events %lld (received %.0f bytes): %.2f s wall, %.2f s CPU; "
           "%.2f M events/s (wall), %.2f M events/s (CPU); max RSS %ld KiB\n",
           (unsigned long long)(ps->states + ps->event_records + ps->comms), evs, check, dt, dc,
           (double)evs / dt / 1e6, (double)evs / dc / 1e6, bench_max_rss_kib());
    rt_tsource_free(s);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char path[64];
    bench_tmp_path(path, sizeof path, "paraver", "prv");
    printf("paraver read, %d threads\n", NTHREADS);
    return bench_two_lengths("paraver_read", path, n, "records", generate, run);
}
