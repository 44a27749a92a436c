/*
 * paragraph_static.c - `retrace paragraph TRACE --static -o F.png` (Gantt +
 * spacetime at 1920 x 1080) on a generated trace of 4096 processors, at 10^6
 * and 10^7 records: wall time and peak memory (max RSS) of the command, which
 * must stay flat (targets: under 10 s and 256 MiB at 10^7 records).
 *
 *   build/bench/paragraph_static [RECORDS] [PROCS] [all]   (defaults 10^7, 4096; a tenth is run first)
 *
 * With "all", the command also writes --timeline-html and --export chrome-json:
 * one replay feeds the three outputs (the trace read twice in all, the pre-pass
 * included), as its --json summary's `reads` says.
 *
 * The trace: every step each processor sends 1 KiB to its right neighbour in
 * a ring, then waits in a blocking receive for its left neighbour's message:
 * 4 records per processor per step, a message per 4 records (2.5 M messages at
 * 10^7 records, so the spacetime view is a density). Run from the build folder
 * or the source folder: the command is build/retrace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static int nproc = 4096;

static long generate(const char *path, long n) { return bench_ring_trace(path, n, nproc); }

static const char *retrace_path(void)
{
    return access("build/retrace", X_OK) == 0 ? "build/retrace" : "./retrace";
}

static int all; /* --timeline-html and --export chrome-json too */

static void run(const char *path)
{
    char png[96], html[96], json[96], out[96];
    snprintf(png, sizeof png, "/tmp/retrace_bench_static_%ld.png", (long)getpid());
    snprintf(html, sizeof html, "/tmp/retrace_bench_static_%ld.html", (long)getpid());
    snprintf(json, sizeof json, "/tmp/retrace_bench_static_%ld.json", (long)getpid());
    snprintf(out, sizeof out, "/tmp/retrace_bench_static_%ld.out", (long)getpid());
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(out, "w", stdout))
            _exit(127);
        if (all)
            execl(retrace_path(), "retrace", "paragraph", path, "--static", "-o", png, "--size", "1920x1080",
                  "--timeline-html", html, "--export", "chrome-json", json, "--json", (char *)NULL);
        else
            execl(retrace_path(), "retrace", "paragraph", path, "--static", "-o", png, "--size", "1920x1080",
                  "--json", (char *)NULL);
        perror("retrace");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "paragraph_static: the command failed\n");
        exit(1);
    }
    double dt = bench_now() - t0;
    /* the summary's count of passes over the trace */
    int reads = -1;
    FILE *f = fopen(out, "r");
    if (f) {
        char buf[1 << 16];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        const char *r = strstr(buf, "\"reads\":");
        if (r)
            reads = atoi(r + 8);
        fclose(f);
    }
    remove(out);
    printf("retrace paragraph --static 1920x1080%s: %.2f s wall, %.2f s CPU, max RSS %ld KiB, %d reads -> %s\n",
           all ? " --timeline-html --export chrome-json" : "", dt,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
           ru.ru_maxrss, reads, png);
    if (all) {
        remove(html);
        remove(json);
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000L;
    if (argc > 2)
        nproc = atoi(argv[2]);
    all = argc > 3 && strcmp(argv[3], "all") == 0;
    char path[64];
    bench_tmp_path(path, sizeof path, "static", "trf");
    printf("paragraph --static, %d processors in a ring\n", nproc);
    return bench_two_lengths("paragraph_static", path, n, "records", generate, run);
}
