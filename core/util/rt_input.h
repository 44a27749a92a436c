/*
 * rt_input.h - opening an input that may be read only once.
 *
 * A trace is looked at twice: the format detector reads its first bytes, then
 * the chosen reader reads it from the start. A regular file can simply be
 * opened again; a named FIFO, a pipe (`<(cat trace)`, /dev/stdin) or a terminal
 * cannot: the second open either waits forever for a writer or starts where the
 * detector stopped. So the detector asks rt_input_head, which, for such an
 * input, keeps the open descriptor and the bytes it read; the reader's
 * rt_input_fopen then gets a stream that gives those bytes again, then the
 * rest of the descriptor. A one-time input opened a second time after that is
 * refused with a message rather than waited on.
 *
 * The table of kept inputs is per process and holds one entry per distinct
 * one-time path named on a command line (a handful), not per trace record.
 * Not thread-safe: inputs are opened from the main thread.
 */
#ifndef RT_INPUT_H
#define RT_INPUT_H

#include <stddef.h>
#include <stdio.h>

#include "rt_error.h"

/* Bytes of an input the format detection looks at (never a whole line: a
 * trace may be one huge line). */
#define RT_INPUT_HEAD 4096

/*
 * The first bytes of path (at most cap, cap <= RT_INPUT_HEAD) into buf, *n of
 * them; *isdir = 1 (and *n = 0) for a directory. "-" is standard input. For a
 * one-time input the descriptor and the bytes are kept for rt_input_fopen;
 * asking again gives the same bytes. Returns RT_OK, or RT_EIO with err
 * "PATH: reason".
 */
int rt_input_head(const char *path, unsigned char *buf, size_t cap, size_t *n, int *isdir, rt_err *err);

/*
 * Open path for reading from its first byte ("-" = standard input): a plain
 * fopen for a file that can be reopened, or a stream replaying what
 * rt_input_head kept. The caller fcloses it. NULL with err "PATH: reason"
 * (RT_EIO), also when a one-time input is opened a second time.
 */
FILE *rt_input_fopen(const char *path, rt_err *err);

/* 1 when path is an input that can be read once only (FIFO, pipe, terminal,
 * socket, standard input), 0 for a regular file, a directory or a missing path. */
int rt_input_once(const char *path);

/*
 * While lent (for a format sniffer that runs a reader's own parser on a few
 * lines), rt_input_fopen(path) gives a stream over buf[0, n) instead of the
 * input; rt_input_unlend ends it. One loan at a time; buf must outlive it.
 */
void rt_input_lend(const char *path, const char *buf, size_t n);
void rt_input_unlend(void);

/* 1 while path is lent: readers that open the file themselves (a thread reading
 * ahead) must read through rt_input_fopen instead. */
int rt_input_lent(const char *path);

#endif
