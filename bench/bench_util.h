/*
 * bench_util.h - what the benchmark programs in bench/ share: clocks, the peak
 * resident memory, generated inputs under /tmp, failing on an rt_err. Header
 * only (static inline): CMake builds each .c file of bench/ into a program of its own.
 */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rt_error.h"

/* Seconds on the given clock (CLOCK_MONOTONIC: wall; CLOCK_PROCESS_CPUTIME_ID: CPU). */
static inline double bench_clock(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall-clock seconds (monotonic), for intervals. */
static inline double bench_now(void)
{
    return bench_clock(CLOCK_MONOTONIC);
}

/* This process's peak resident memory so far (max RSS), in KiB. */
static inline long bench_max_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* Peak resident memory (KiB) of a fresh run of this program, "/proc/PID/exe
 * --child ARGS" (ARGS made from fmt), which does one measured run and prints
 * its own peak as its only output; -1 when that fails. A fresh process, so
 * that the figure is the run's, not the largest of all runs so far. */
static inline long bench_child_kib(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline long bench_child_kib(const char *fmt, ...)
{
    char args[600], cmd[700];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "/proc/%d/exe --child %s", (int)getpid(), args);
    FILE *p = popen(cmd, "r");
    long kib = -1;
    if (!p || fscanf(p, "%ld", &kib) != 1)
        kib = -1;
    if (p)
        pclose(p);
    return kib;
}

/* out = the best (least .secs) of three evaluations of expr, a run returning a
 * struct with a field secs: the machine may be shared. */
#define BENCH_BEST_OF3(out, expr)                                                                  \
    do {                                                                                           \
        (out) = (expr);                                                                            \
        for (int bench_i_ = 0; bench_i_ < 2; bench_i_++) {                                         \
            __typeof__(out) bench_o_ = (expr);                                                     \
            if (bench_o_.secs < (out).secs)                                                        \
                (out) = bench_o_;                                                                  \
        }                                                                                          \
    } while (0)

/* The path of a generated input, /tmp/retrace_bench_NAME_PID.EXT, in buf of cap bytes. */
static inline const char *bench_tmp_path(char *buf, size_t cap, const char *name, const char *ext)
{
    snprintf(buf, cap, "/tmp/retrace_bench_%s_%ld.%s", name, (long)getpid(), ext);
    return buf;
}

/* Open path for writing a generated input; exits 1 with a message when it cannot. */
static inline FILE *bench_create(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(1);
    }
    return f;
}

/* Close a generated input; exits 1 with a message when the write failed. */
static inline void bench_close(FILE *f, const char *path)
{
    if (fclose(f) != 0) {
        perror(path);
        exit(1);
    }
}

/* Print "who: message" of a failed call and exit 1. */
static inline void bench_die(const char *who, const rt_err *e)
{
    fprintf(stderr, "%s: %s\n", who, e->msg);
    exit(1);
}

/*
 * A new-format PICL ring of nproc processors with about n records at path: every
 * step each processor sends 1 KiB to its right neighbour, then waits in a blocking
 * receive for its left neighbour's message (4 records per processor per step, a
 * message per 4 records). Returns the records written.
 */
static inline long bench_ring_trace(const char *path, long n, int nproc)
{
    FILE *fp = bench_create(path);
    static char buf[1 << 20];
    setvbuf(fp, buf, _IOFBF, sizeof buf);
    long written = 0;
    double t = 0.0;
    for (long step = 0; written < n; step++) {
        int tag = (int)(step % 8);
        for (int p = 0; p < nproc; p++) {
            t += 1e-7;
            fprintf(fp, "-3 -21 %.7f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + 1) % nproc);
            t += 1e-7;
            fprintf(fp, "-4 -21 %.7f %d 0 0\n", t, p);
        }
        for (int p = 0; p < nproc; p++) {
            t += 1e-7;
            fprintf(fp, "-3 -52 %.7f %d 0 2 2 %d %d\n", t, p, tag, (p + nproc - 1) % nproc);
            t += 1e-7;
            fprintf(fp, "-4 -52 %.7f %d 0 3 2 1024 %d %d\n", t, p, tag, (p + nproc - 1) % nproc);
        }
        written += 4L * nproc;
    }
    bench_close(fp, path);
    return written;
}

/*
 * Generate an input of n / 10 and then of n units at path and run it, each
 * length in a forked process of its own so each peak memory (max RSS) is its
 * own: the two must stay close for a streaming reader. generate returns the
 * units written, printed as "generated N UNIT"; the input is removed after
 * each run unless RETRACE_BENCH_KEEP is set. Returns 0, or 1 with a message
 * when a run failed.
 */
static inline int bench_two_lengths(const char *who, const char *path, long n, const char *unit,
                                    long (*generate)(const char *path, long n),
                                    void (*run)(const char *path))
{
    long lengths[2] = {n / 10, n};
    for (int i = 0; i < 2; i++) {
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            long w = generate(path, lengths[i]);
            printf("generated %ld %s\n", w, unit);
            run(path);
            if (!getenv("RETRACE_BENCH_KEEP"))
                unlink(path);
            fflush(stdout);
            _exit(0);
        }
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s: run %d failed\n", who, i + 1);
            return 1;
        }
    }
    return 0;
}

#endif
