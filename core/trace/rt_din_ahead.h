/*
 * rt_din_ahead.h - a din reader that parses on a thread of its own
 * (internal to rt_memtrace.c, which uses it for din files that are regular
 * files, unless RETRACE_READ_AHEAD=0).
 *
 * A parser thread reads the file in large blocks (sized to stay in the
 * cache while they are parsed), walks them with the block parsers of
 * rt_memtrace_fast.c and fills a ring of fixed-size slots, each a run of
 * segments: bare load and store addresses, or general references. The
 * caller's thread takes whole slots, so reading and simulating overlap and a
 * run takes the longer of the two rather than their sum. Lines the block
 * parsers leave go through rt_din_parse_line with the file's name and the
 * line's number, so references and messages are those of the plain reader.
 * A slot ends at an error; the references before it are delivered, then the
 * error, then reading goes on after it (as the plain reader's does: callers
 * stop at the first). Memory is the ring and the block: flat in the file's
 * length.
 */
#ifndef RT_DIN_AHEAD_H
#define RT_DIN_AHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "rt_memtrace.h"

typedef struct rt_din_ahead rt_din_ahead;

/* Open path and start the parser thread. NULL when the file cannot be
 * opened, is not a regular file, or no thread can be started: the caller
 * then uses the plain reader (which reports an open error itself). */
rt_din_ahead *rt_din_ahead_open(const char *path);
/* rt_rtmb_read's contract: RT_OK with *n > 0, RT_EEOF at the end (again on
 * each later call), or a parse error (with err) once the references before
 * it are taken; the next call goes on after the line in error. */
int rt_din_ahead_read(rt_din_ahead *a, rt_memref *out, size_t cap, size_t *n, rt_err *err);
/* The plain loads and stores at the front, as addresses and 0/1 store flags
 * (up to cap; *n is 0 when a general reference, the end or an error comes
 * first). Always RT_OK. */
int rt_din_ahead_read_lines(rt_din_ahead *a, uint64_t *addr, uint8_t *is_write, size_t cap,
                            size_t *n);
/* Bytes parsed up to the slot being taken, and the file's size. */
uint64_t rt_din_ahead_offset(const rt_din_ahead *a);
uint64_t rt_din_ahead_size(const rt_din_ahead *a);
/* Stop the thread, unmap and free; NULL is allowed. */
void rt_din_ahead_free(rt_din_ahead *a);

#endif
