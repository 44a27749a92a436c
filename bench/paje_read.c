/*
 * paje_read.c - events per second for reading a Pajé trace into the neutral
 * event stream, and the peak memory at two trace lengths (it must stay flat).
 *
 *   build/bench/paje_read [LINES]    (default 10^7 event lines; a tenth of it is run first)
 *
 * The trace is generated into /tmp in SimGrid's shape (the same %EventDef
 * header, times with 6 decimals, containers by alias): 64 ranks under 8 nodes;
 * each step every rank sets its state to MPI_Send, starts a link to its right
 * neighbour, sets "compute", then ends the link it receives from its left
 * neighbour inside MPI_Recv, with a variable update and, now and then, a
 * push / pop pair and a point event. So links wait in the look-ahead for
 * about one step, as in a real message-passing run. Rates are per wall-clock
 * and per CPU second (the machine is shared); each length runs in its own
 * process, so the two peak memories (max RSS) are independent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_util.h"
#include "rt_paje.h"

#define NPROC 64
#define NNODE 8

static const char header[] =
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineVariableType 1\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
    "%EventDef PajeDefineStateType 2\n% Alias string\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEventType 3\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
    "%EventDef PajeDefineLinkType 4\n% Alias string\n% Type string\n% StartContainerType string\n"
    "% EndContainerType string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeDefineEntityValue 5\n% Alias string\n% Type string\n% Name string\n% Color color\n%EndEventDef\n"
    "%EventDef PajeCreateContainer 6\n% Time date\n% Alias string\n% Type string\n% Container string\n"
    "% Name string\n%EndEventDef\n"
    "%EventDef PajeDestroyContainer 7\n% Time date\n% Type string\n% Name string\n%EndEventDef\n"
    "%EventDef PajeSetVariable 8\n% Time date\n% Type string\n% Container string\n% Value double\n%EndEventDef\n"
    "%EventDef PajeSetState 11\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajePushState 12\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "%EventDef PajePopState 13\n% Time date\n% Type string\n% Container string\n%EndEventDef\n"
    "%EventDef PajeStartLink 15\n% Time date\n% Type string\n% Container string\n% Value string\n"
    "% StartContainer string\n% Key string\n%EndEventDef\n"
    "%EventDef PajeEndLink 16\n% Time date\n% Type string\n% Container string\n% Value string\n"
    "% EndContainer string\n% Key string\n%EndEventDef\n"
    "%EventDef PajeNewEvent 17\n% Time date\n% Type string\n% Container string\n% Value string\n%EndEventDef\n"
    "0 N 0 NODE\n0 R N RANK\n2 S R MPI_STATE\n3 E R MARK \"1 1 0\"\n1 V R \"queue length\" \"1 0 0\"\n"
    "4 L 0 R R MSG\n5 s1 S MPI_Send \"0 0 1\"\n5 s2 S MPI_Recv \"1 0 0\"\n5 s3 S compute \"0 1 0\"\n";

/* Write at least n event lines; returns how many were written. */
static long generate(const char *path, long n)
{
    FILE *fp = bench_create(path);
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    fputs(header, fp);
    for (int k = 0; k < NNODE; k++)
        fprintf(fp, "6 0.000000 n%d N 0 \"node %d\"\n", k, k);
    for (int p = 0; p < NPROC; p++)
        fprintf(fp, "6 0.000000 r%d R n%d \"rank %d\"\n", p, p % NNODE, p);
    long written = NNODE + NPROC;
    double t = 0.0;
    for (long step = 0; written < n; step++) {
        for (int p = 0; p < NPROC; p++) {
            t += 1e-6;
            fprintf(fp, "11 %.6f S r%d s1\n", t, p);
            fprintf(fp, "15 %.6f L 0 1024 r%d %ld_%d\n", t, p, step, p);
            t += 1e-6;
            fprintf(fp, "11 %.6f S r%d s3\n", t, p);
            fprintf(fp, "8 %.6f V r%d %ld\n", t, p, step % 17);
            written += 4;
        }
        for (int p = 0; p < NPROC; p++) {
            int left = (p + NPROC - 1) % NPROC;
            t += 1e-6;
            fprintf(fp, "11 %.6f S r%d s2\n", t, p);
            t += 1e-6;
            fprintf(fp, "16 %.6f L 0 1024 r%d %ld_%d\n", t, p, step, left);
            if (step % 8 == 0) {
                fprintf(fp, "12 %.6f S r%d s3\n", t, p);
                fprintf(fp, "17 %.6f E r%d \"phase %ld\"\n", t, p, step / 8 % 4);
                t += 1e-6;
                fprintf(fp, "13 %.6f S r%d\n", t, p);
                written += 3;
            }
            written += 2;
        }
    }
    bench_close(fp, path);
    return written;
}

static void run(const char *path)
{
    rt_err err;
    double t0 = bench_now(), c0 = bench_clock(CLOCK_PROCESS_CPUTIME_ID);
    rt_tsource *s = rt_paje_open(path, &err);
    if (!s)
        bench_die("paje_read", &err);
    rt_tevent ev;
    int st;
    long long kinds[RT_TE_KIND_COUNT] = {0};
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
        kinds[ev.kind]++;
    if (st != RT_EEOF)
        bench_die("paje_read", &err);
    double dt = bench_now() - t0, dc = bench_clock(CLOCK_PROCESS_CPUTIME_ID) - c0;
    rt_paje_stats ps;
    rt_paje_stats_get(s, &ps);
    long long evs = (long long)s->events;
    printf("lines %llu -> events %lld (enter %lld, leave %lld, send %lld, receive %lld, marker %lld), "
           "links %llu, unmatched %llu, variables %llu: %.2f s wall, %.2f s CPU; "
           "%.2f M events/s (wall), %.2f M events/s (CPU), %.2f M lines/s (CPU); max RSS %ld KiB\n",
           (unsigned long long)ps.lines, evs, kinds[RT_TE_ENTER], kinds[RT_TE_LEAVE], kinds[RT_TE_SEND],
           kinds[RT_TE_RECV], kinds[RT_TE_MARKER], (unsigned long long)ps.links,
           (unsigned long long)ps.unmatched, (unsigned long long)ps.variables, dt, dc,
           (double)evs / dt / 1e6, (double)evs / dc / 1e6, (double)ps.lines / dc / 1e6,
           bench_max_rss_kib());
    rt_tsource_free(s);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    char path[64];
    bench_tmp_path(path, sizeof path, "paje", "trace");
    printf("paje read into the neutral stream, %d ranks\n", NPROC);
    return bench_two_lengths("paje_read", path, n, "event lines", generate, run);
}
