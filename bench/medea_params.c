/*
 * medea_params - speed of the MEDEA parameter accumulation.
 *
 * 1. rt_medea_add alone on 10^7 in-memory records (16 processors, nested user
 *    events, sends and receives): records per second.
 * 2. rt_medea_feed_file on a generated new-format trace of 2 * 10^6 records in
 *    /tmp (PICL reader + replay engine + accumulation): records per second, and the peak
 *    resident memory, which stays flat in the trace length.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench_util.h"
#include "rt_medea.h"

/* The k-th record of a synthetic 16-processor trace: per processor a cycle of
 * 8 records: user 1 { user 2 { send } receive }. */
static void synth(long k, rt_medea_rec *r)
{
    static const int rectype[8] = {-3, -3, -3, -4, -4, -3, -4, -4};
    static const int event[8] = {1, 2, -21, -21, 2, -52, -52, 1};
    long cyc = k / 16;
    r->proc = (int)(k % 16);
    r->task = 0;
    r->rectype = rectype[cyc % 8];
    r->event = event[cyc % 8];
    r->time = (double)cyc * 1e-5 + r->proc * 1e-7;
    r->bytes = (r->event == -21 && r->rectype == -3) || (r->event == -52 && r->rectype == -4) ? 1024 : -1;
}

int main(void)
{
    const long n = 10000000;
    rt_medea *m = rt_medea_new();
    rt_err err;
    double t0 = bench_now();
    for (long k = 0; k < n; k++) {
        rt_medea_rec r;
        synth(k, &r);
        if (rt_medea_add(m, &r, &err) != RT_OK)
            bench_die("medea_params", &err);
    }
    double dt = bench_now() - t0;
    printf("accumulate: %ld records in %.3f s = %.1f M records/s\n", n, dt, n / dt / 1e6);
    rt_medea_free(m);

    const long nf = 2000000;
    char path[64];
    FILE *f = bench_create(bench_tmp_path(path, sizeof path, "medea", "trf"));
    for (long k = 0; k < nf; k++) {
        rt_medea_rec r;
        synth(k, &r);
        if (r.bytes >= 0)
            fprintf(f, "%d %d %.6f %d 0 3 2 %.0f 7 %d\n", r.rectype, r.event, r.time, r.proc, r.bytes,
                    r.rectype == -3 ? (r.proc + 1) % 16 : (r.proc + 15) % 16); /* to the right, from the left */
        else
            fprintf(f, "%d %d %.6f %d 0 0\n", r.rectype, r.event, r.time, r.proc);
    }
    bench_close(f, path);
    m = rt_medea_new();
    t0 = bench_now();
    unsigned long skipped = 0;
    if (rt_medea_feed_file(m, path, 1, &skipped, NULL, &err) != RT_OK)
        bench_die("medea_params", &err);
    dt = bench_now() - t0;
    printf("read + replay + accumulate: %ld records in %.3f s = %.1f M records/s, peak RSS %ld KB\n", nf, dt,
           nf / dt / 1e6, bench_max_rss_kib());
    rt_medea_free(m);
    remove(path);
    return 0;
}
