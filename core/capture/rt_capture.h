/*
 * rt_capture.h - run a program under valgrind lackey and stream its memory
 * trace into RTMB as it runs (the engine of `retrace capture`).
 *
 * The child is started with execvp (no shell); lackey writes its log to a
 * pipe (--log-fd), which is parsed as it arrives: I, L, S and M lines become
 * RTMB records, and the lines libretrace_alloc.so puts into Valgrind's log
 * ("**PID** rt A|F|L|S ...") become the allocation log, each stamped "@SEQ"
 * with the number of data references before it (README: "Memory traces with
 * an allocation log"). With valgrind's --trace-sched=yes, a thread taking the
 * scheduler lock writes "@SEQ S P" (P = valgrind's thread number - 1).
 */
#ifndef RT_CAPTURE_H
#define RT_CAPTURE_H

#include <stdint.h>

#include "rt_error.h"

typedef struct rt_capture_opts {
    const char *const *argv; /* valgrind and its options, "--", the program and its arguments;
                                "--log-fd=N" is inserted after argv[0] */
    const char *const *env;  /* NULL-terminated "NAME=VALUE" set in the child, or NULL */
    const char *rtmb;        /* the memory trace to write */
    const char *alloc;       /* the stamped allocation records (text) */
    const char *text;        /* when not NULL, a copy of lackey's whole log */
    const char *fdlog;       /* the file libretrace_alloc.so writes to (RETRACE_ALLOC_FD) */
    int tool;                /* 1: argv runs the retrace Valgrind tool (vg/rt_vgtool.c), whose
                                binary stream goes to "--retrace-fd=N" (inserted after argv[0])
                                instead of lackey's log; text is then unused */
} rt_capture_opts;

typedef struct rt_capture_result {
    uint64_t refs;      /* data references (an M is two) */
    uint64_t ifetches;  /* instruction records */
    uint64_t records;   /* RTMB records written */
    uint64_t allocs;    /* allocation-log records */
    uint64_t bytes_in;  /* bytes of lackey log read */
    int exit_code;      /* the program's exit status, or -1 */
    int signal;         /* the signal that ended it, or 0 */
    int interrupted;    /* SIGINT or SIGTERM reached the capture */
    int threads;        /* with --trace-sched=yes: the highest thread number seen */
} rt_capture_result;

/*
 * Run and convert. RT_OK once the child has ended and the files are closed
 * (whatever its exit status: see res); RT_EIO when valgrind could not be
 * started (err: "valgrind: not found on PATH ..."), or a file could not be
 * written; RT_EFORMAT when the log holds a line that is not lackey's.
 */
int rt_capture_run(const rt_capture_opts *o, rt_capture_result *res, rt_err *err);

#endif
