/*
 * rt_error.h - status codes and error messages shared by every core module.
 *
 * Every fallible core function returns an int status (RT_OK == 0) and, when it
 * fails on input, fills an rt_err with a one-line message that names the file,
 * the line and the field ("trace.shm:12: store event: row 40 outside matrix 2").
 * The message is what the user sees; the status is what code branches on.
 */
#ifndef RT_ERROR_H
#define RT_ERROR_H

#include <stddef.h>

/* One list, expanded into the enum and into rt_strerror's table. */
#define RT_STATUS_LIST(X)                                   \
    X(RT_OK, "success")                                     \
    X(RT_ENOMEM, "out of memory")                           \
    X(RT_EIO, "input/output error")                         \
    X(RT_EFORMAT, "malformed input")                        \
    X(RT_ERANGE, "value out of range")                      \
    X(RT_EINVAL, "invalid argument")                        \
    X(RT_EEOF, "end of input")                              \
    X(RT_ESTATE, "operation not valid in this state")       \
    X(RT_EINTR, "interrupted!")

typedef enum {
#define RT_X_ENUM(name, text) name,
    RT_STATUS_LIST(RT_X_ENUM)
#undef RT_X_ENUM
    RT_STATUS_COUNT
} rt_status;

/* Short English text for a status; never NULL (unknown codes give "unknown error"). */
const char *rt_strerror(int status);

#define RT_ERR_MSG_MAX 512

/* An error report: the status plus a formatted one-line message. */
typedef struct rt_err {
    int status;                 /* RT_OK when nothing went wrong */
    char msg[RT_ERR_MSG_MAX];   /* "file:line: field: what is wrong", NUL-terminated */
} rt_err;

/* Reset to RT_OK with an empty message. err may be NULL (then nothing happens). */
void rt_err_clear(rt_err *err);

/*
 * Record a failure and return status, so callers can write
 *     return rt_err_set(err, RT_EFORMAT, "%s:%lu: opcode: unknown value %d", ...);
 * err may be NULL (the status is still returned). The message is truncated to fit.
 */
int rt_err_set(rt_err *err, int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Like rt_err_set with the prefix "FILE:LINE: " (line 0 leaves the line out). */
int rt_err_at(rt_err *err, int status, const char *file, unsigned long line,
              const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/*
 * A short, printable excerpt of input for error messages: at most 32 bytes of
 * s[0..n) (stopping at a blank when stop_at_blank), every byte outside printable
 * ASCII written as \xHH, "..." appended when cut. Returns buf (always
 * NUL-terminated; cap >= 8). A binary file never puts raw bytes on a terminal.
 */
const char *rt_excerpt(const char *s, size_t n, int stop_at_blank, char *buf, size_t cap);
#define RT_EXCERPT_CAP 140

/*
 * Ctrl-C during a long pass in C. The program's SIGINT handler calls
 * rt_interrupt_request(); the passes that read input (the line reader at each
 * refill, the trace sources every 65536 events, the memory-trace readers) poll
 * rt_interrupt_pending() and stop with RT_EINTR and the message "interrupted!",
 * which the Lua bindings raise as the host's own interrupt. The host clears the
 * request when its call returns. Async-signal-safe: one sig_atomic_t.
 */
void rt_interrupt_request(void);
void rt_interrupt_clear(void);
int rt_interrupt_pending(void);
/* RT_EINTR with err = "interrupted!" when an interrupt is pending, else RT_OK. */
int rt_interrupt_check(rt_err *err);

#endif
