/*
 * paragraph_animated.c - `retrace paragraph TRACE -o DIR --all --json` (the 25
 * animated displays at 1280 x 720, 100 frames written as PNG) on a generated
 * ring of PROCS processors, at a tenth of RECORDS and at RECORDS: wall and CPU
 * time, peak memory (max RSS) of the command, and the calls the replay made
 * into Lua (the summary's lua_calls; on a PICL trace the Trace display takes the
 * file's records through one call each).
 *
 *   build/bench/paragraph_animated [RECORDS] [PROCS] [DISPLAYS]
 *     defaults 10^6 records, 1024 processors, every display (--all); DISPLAYS is
 *     a --display list, e.g. gantt,spacetime,comm_matrix
 *
 * The trace is paragraph_static's ring: every step each processor sends 1 KiB
 * to its right neighbour, then waits in a blocking receive for its left
 * neighbour's message (4 records per processor per step). Run from the build
 * folder or the source folder: the command is build/retrace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_util.h"

static int nproc = 1024;
static const char *displays; /* NULL: --all */

static long generate(const char *path, long n) { return bench_ring_trace(path, n, nproc); }

static const char *retrace_path(void)
{
    return access("build/retrace", X_OK) == 0 ? "build/retrace" : "./retrace";
}

static void run(const char *path)
{
    char dir[96], json[128];
    snprintf(dir, sizeof dir, "/tmp/retrace_bench_animated_%ld", (long)getpid());
    snprintf(json, sizeof json, "%s.json", dir);
    fflush(stdout); /* the child must not print what is buffered again */
    double t0 = bench_now();
    pid_t pid = fork();
    if (pid == 0) {
        if (!freopen(json, "w", stdout))
            _exit(127);
        if (displays)
            execl(retrace_path(), "retrace", "paragraph", path, "-o", dir, "--display", displays, "--json",
                  (char *)NULL);
        else
            execl(retrace_path(), "retrace", "paragraph", path, "-o", dir, "--all", "--json", (char *)NULL);
        perror("retrace");
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "paragraph_animated: the command failed\n");
        exit(1);
    }
    double dt = bench_now() - t0;
    /* the summary's "lua_calls" */
    long calls = -1;
    FILE *f = fopen(json, "r");
    if (f) { /* the whole summary: with thousands of processors it runs to megabytes */
        char *text = NULL;
        long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
        if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (text = malloc((size_t)size + 1))) {
            size_t n = fread(text, 1, (size_t)size, f);
            text[n] = '\0';
            const char *k = strstr(text, "\"lua_calls\":");
            if (k)
                calls = atol(k + strlen("\"lua_calls\":"));
        }
        free(text);
        fclose(f);
    }
    remove(json);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "paragraph_animated: could not remove %s\n", dir);
    printf("retrace paragraph %s: %.2f s wall, %.2f s CPU, max RSS %ld KiB, %ld calls into Lua from the replay\n",
           displays ? displays : "--all", dt,
           (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
           ru.ru_maxrss, calls);
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000000L;
    if (argc > 2)
        nproc = atoi(argv[2]);
    if (argc > 3)
        displays = argv[3];
    char path[64];
    bench_tmp_path(path, sizeof path, "animated", "trf");
    printf("paragraph (animated), %d processors in a ring\n", nproc);
    return bench_two_lengths("paragraph_animated", path, n, "records", generate, run);
}
