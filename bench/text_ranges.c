/*
 * text_ranges.c - a text trace read over the ranks of an MPI job in byte
 * ranges (rt_par_text_open): per rank the time to read its range and route
 * the record lines (the exchange included), the time to reread its spills as
 * events, its events and its peak memory, for N = 1, 2 and 4 ranks, beside
 * the serial reader (rt_tsource_open) on the same file, at two trace lengths
 * ten times apart.
 *
 *   build/bench/text_ranges [RECORDS [RETRACE]]    (default 2*10^6; a tenth of it is run first)
 *
 * The trace is bench_ring_trace's new-format PICL ring of 16 processors (a
 * message per 4 records), generated into /tmp; with RETRACE_BENCH_FORMAT=paje
 * the same ring as a Pajé trace (16 containers, per step and container a state
 * set, a link started to the next container and one ended from the previous,
 * another state set: 4 lines, a message per 4 lines, each link's key its own). The ranks are this program
 * under `mpirun --allow-run-as-root --oversubscribe -q -np N` (skipped, saying
 * so, without mpirun).
 *
 * With RETRACE (the retrace program, e.g. build/retrace), each length also
 * runs `retrace stats --json` on the trace serially and under mpirun -np 1, 2
 * and 4 (every rank reads its byte range and replays its processors): the
 * job's wall time, each rank's CPU time (user + system) and peak memory
 * (/usr/bin/time around every rank), and whether the output is the serial
 * run's byte for byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_par.h"
#include "rt_par_text.h"
#include "rt_tsource_open.h"

static char self[4096];
static const char *retrace; /* the retrace program for the `stats` runs, or NULL */

static long ring(const char *path, long n) { return bench_ring_trace(path, n, 16); }

/* The ring as a Pajé trace of about n event lines (see the top). */
static long paje_ring(const char *path, long n)
{
    enum { P = 16 };
    FILE *fp = bench_create(path);
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    fputs("%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
          "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
          "%EventDef PajeDefineLinkType 2\n% Alias string\n% Type string\n% StartContainerType string\n"
          "% EndContainerType string\n% Name string\n%EndEventDef\n"
          "%EventDef PajeCreateContainer 3\n% Time date\n% Alias string\n% Type string\n% Container string\n"
          "% Name string\n%EndEventDef\n"
          "%EventDef PajeSetState 4\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
          "%EventDef PajeStartLink 5\n% Time date\n% Type string\n% Container string\n% StartContainer string\n"
          "% Value string\n% Key string\n%EndEventDef\n"
          "%EventDef PajeEndLink 6\n% Time date\n% Type string\n% Container string\n% EndContainer string\n"
          "% Value string\n% Key string\n%EndEventDef\n"
          "0 P 0 Process\n1 S P State\n2 L 0 P P Link\n",
          fp);
    for (int p = 0; p < P; p++)
        fprintf(fp, "3 0 p%d P 0 \"rank %d\"\n", p, p);
    long written = 0;
    double t = 0.0;
    for (long step = 0; written < n; step++) {
        for (int p = 0; p < P; p++) {
            t += 1e-7;
            fprintf(fp, "4 %.7f S p%d compute\n", t, p);
            t += 1e-7;
            fprintf(fp, "5 %.7f L 0 p%d 1024 k%ld.%d\n", t, p, step, p);
        }
        for (int p = 0; p < P; p++) {
            t += 1e-7;
            fprintf(fp, "6 %.7f L 0 p%d 1024 k%ld.%d\n", t, p, step, (p + P - 1) % P);
            t += 1e-7;
            fprintf(fp, "4 %.7f S p%d MPI_Recv\n", t, p);
        }
        written += 4L * P;
    }
    bench_close(fp, path);
    return written;
}

/* Read every event of s; their count. */
static long drain(rt_tsource *s, const char *who)
{
    rt_tevent ev;
    rt_err err;
    long n = 0;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
        n++;
    if (st != RT_EEOF)
        bench_die(who, &err);
    return n;
}

/* One rank of the job. */
static int rank_main(const char *path)
{
    int argc = 1;
    char *argv0[] = {self, NULL}, **argv = argv0;
    rt_err err;
    if (rt_par_init(&argc, &argv, &err) != RT_OK)
        bench_die("text_ranges", &err);
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *s = rt_par_text_open(path, NULL, 0, &err);
    if (!s)
        bench_die("text_ranges", &err);
    double t1 = bench_now(), c1 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    long n = drain(s, "text_ranges");
    double t2 = bench_now(), c2 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource_free(s);
    printf("  rank %d of %d: range read + routed %.2f s (CPU %.2f), spills reread %.2f s (CPU %.2f): "
           "%ld events, %.2f M events/s (CPU), max RSS %ld KiB\n",
           rt_par_rank(), rt_par_size(), t1 - t0, c1 - c0, t2 - t1, c2 - c1, n, n / (c2 - c0) / 1e6,
           bench_max_rss_kib());
    fflush(stdout);
    rt_par_finalize();
    return 0;
}

/* A file of /usr/bin/time -f '%e %M %U %S': CPU seconds (user + system) and max RSS (MiB); 0 when unreadable. */
static int timed(const char *file, double *cpu, double *mib)
{
    FILE *f = fopen(file, "r");
    double wall, kib, user, sys;
    int ok = 0;
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) /* the last line holds the figures (a failing command adds one before) */
            ok = sscanf(line, "%lf %lf %lf %lf", &wall, &kib, &user, &sys) == 4;
        fclose(f);
    }
    if (ok) {
        *cpu = user + sys;
        *mib = kib / 1024;
    }
    return ok;
}

/* `retrace stats --json` on path, serially and on 1, 2 and 4 ranks. */
static void stats_runs(const char *path)
{
    char dir[] = "/tmp/text_ranges_statsXXXXXX", cmd[12000], file[600];
    if (!mkdtemp(dir)) {
        perror("text_ranges: mkdtemp");
        return;
    }
    snprintf(cmd, sizeof cmd, "/usr/bin/time -o %s/serial -f '%%e %%M %%U %%S' '%s' stats --json '%s' > %s/serial.json",
             dir, retrace, path, dir);
    double w0 = bench_now();
    int bad = system(cmd) != 0;
    double wall = bench_now() - w0, cpu = 0, mib = 0;
    snprintf(file, sizeof file, "%s/serial", dir);
    timed(file, &cpu, &mib);
    printf("stats --json, serial: wall %.2f s, CPU %.2f s, max RSS %.1f MiB%s\n", wall, cpu, mib, bad ? " (failed)" : "");
    for (int np = 1; np <= 4; np *= 2) {
        snprintf(cmd, sizeof cmd,
                 "mpirun --allow-run-as-root --oversubscribe -q -np %d sh -c 'exec /usr/bin/time -o \"$0\"."
                 "${OMPI_COMM_WORLD_RANK:-0} -f \"%%e %%M %%U %%S\" \"$1\" stats --json \"$2\"' %s/rank '%s' '%s' "
                 "> %s/np%d.json && cmp -s %s/serial.json %s/np%d.json",
                 np, dir, retrace, path, dir, np, dir, dir, np);
        fflush(stdout);
        w0 = bench_now();
        int differs = system(cmd) != 0;
        wall = bench_now() - w0;
        printf("stats --json, %d rank%s: wall %.2f s, %s; per rank CPU s / max RSS MiB:", np, np > 1 ? "s" : "", wall,
               differs ? "NOT the serial output" : "the serial output");
        for (int r = 0; r < np; r++) {
            snprintf(file, sizeof file, "%s/rank.%d", dir, r);
            if (timed(file, &cpu, &mib))
                printf(" %.2f / %.1f", cpu, mib);
            else
                printf(" ? / ?");
            remove(file);
        }
        printf("\n");
        snprintf(file, sizeof file, "%s/np%d.json", dir, np);
        remove(file);
    }
    snprintf(file, sizeof file, "%s/serial.json", dir);
    remove(file);
    snprintf(file, sizeof file, "%s/serial", dir);
    remove(file);
    rmdir(dir);
}

static void run(const char *path)
{
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_err err;
    rt_tsource *s = rt_tsource_open(path, NULL, &err);
    if (!s)
        bench_die("text_ranges", &err);
    long n = drain(s, "text_ranges");
    rt_tsource_free(s);
    double t = bench_now() - t0, c = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    printf("serial reader: %ld events in %.2f s (CPU %.2f), %.2f M events/s (CPU), max RSS %ld KiB\n", n, t, c,
           n / c / 1e6, bench_max_rss_kib());
    if (system("command -v mpirun >/dev/null 2>&1") != 0) {
        printf("mpirun not found: the ranks are not run\n");
        return;
    }
    for (int np = 1; np <= 4; np *= 2) {
        char cmd[9000];
        snprintf(cmd, sizeof cmd,
                 "TEXT_RANGES_RANK=1 /usr/bin/time -f '%d ranks: wall %%e s' mpirun --allow-run-as-root "
                 "--oversubscribe -q -np %d '%s' '%s' 2>&1 | sort -s -k2,2n",
                 np, np, self, path);
        fflush(stdout);
        if (system(cmd) != 0)
            printf("%d ranks: failed\n", np);
    }
    if (retrace)
        stats_runs(path);
}

int main(int argc, char **argv)
{
    if (!realpath("/proc/self/exe", self))
        snprintf(self, sizeof self, "%s", argv[0]);
    if (getenv("TEXT_RANGES_RANK") && argc == 2)
        return rank_main(argv[1]);
    long n = argc > 1 ? atol(argv[1]) : 2000000;
    retrace = argc > 2 ? argv[2] : NULL;
    char path[512];
    const char *fmt = getenv("RETRACE_BENCH_FORMAT");
    int paje = fmt && strcmp(fmt, "paje") == 0;
    bench_tmp_path(path, sizeof path, "text_ranges", paje ? ".trace" : ".trf");
    return bench_two_lengths("text_ranges", path, n, paje ? "lines" : "records", paje ? paje_ring : ring, run);
}
