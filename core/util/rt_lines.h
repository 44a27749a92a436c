/*
 * rt_lines.h - a streaming line reader for text traces.
 *
 * Shaped for traces of 10^8 lines: the file is read in large chunks into one
 * buffer that only grows when a single line is longer than the buffer, so memory
 * stays flat whatever the file's length. Lines come back as (pointer, length)
 * views into that buffer, valid until the next call, with the newline (and a
 * trailing carriage return) removed and the 1-based line number counted.
 * Also: a white-space tokenizer and strict number parsers over such views.
 */
#ifndef RT_LINES_H
#define RT_LINES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"

typedef struct rt_lines rt_lines;

/* The longest line read (64 MiB): a longer one (a binary file, /dev/zero) is an
 * RT_EFORMAT error "NAME:LINE: line longer than 64 MiB", not unbounded memory. */
#define RT_LINES_MAX ((size_t)64 << 20)

/*
 * Open path for reading ("-" reads standard input). On failure returns NULL and
 * fills err with "PATH: reason". The name used in messages is path.
 */
rt_lines *rt_lines_open(const char *path, rt_err *err);

/* Wrap an already open stream (not closed by rt_lines_free); name is used in messages. */
rt_lines *rt_lines_from_stream(FILE *fp, const char *name, rt_err *err);

/* Close and free; NULL is allowed. */
void rt_lines_free(rt_lines *r);

/*
 * Next line. Returns RT_OK and sets *line / *len (the line is NUL-terminated at
 * len, so C string functions work on it), RT_EEOF at the end, RT_EIO with err
 * filled on a read error, or RT_EFORMAT for a line longer than RT_LINES_MAX.
 */
int rt_lines_next(rt_lines *r, const char **line, size_t *len, rt_err *err);

/* 1-based number of the line last returned (0 before the first). */
unsigned long rt_lines_lineno(const rt_lines *r);

/* The name given at open (the path). */
const char *rt_lines_name(const rt_lines *r);

/* Bytes consumed so far (for progress bars) and the file's size (0 when unknown). */
uint64_t rt_lines_offset(const rt_lines *r);
uint64_t rt_lines_size(const rt_lines *r);

/*
 * Block access, for parsers of very long traces that cannot afford a call per
 * line: *p / *len receive every complete line now buffered (the block ends
 * with '\n', or is the file's last line without one, then p[len] == '\0').
 * Returns RT_OK with at least one line, RT_EEOF at the end, or RT_EIO. Lines
 * are not split or NUL-terminated; report what was parsed with
 * rt_lines_consume (the rest is returned again), and mix freely with
 * rt_lines_next.
 */
int rt_lines_block(rt_lines *r, const char **p, size_t *len, rt_err *err);

/* Mark `bytes` of the last block (`lines` whole lines) as read. */
void rt_lines_consume(rt_lines *r, size_t bytes, unsigned long lines);

/* Rewind to the start (a second pass); RT_EINVAL on a stream that cannot seek. */
int rt_lines_rewind(rt_lines *r, rt_err *err);

/* ---- byte ranges (a rank's share of a trace) ---- */

/*
 * From now on give only the lines that START in [begin, end) of the file
 * (bytes counted from the file's start): a line that begins before begin
 * belongs to the range before, one that begins before end is given whole
 * even when it runs past end. lines_before = the newlines in [0, begin), so
 * line numbers stay the file's. When the reader has already read past begin
 * (a header), the range starts where it stands. Offsets (rt_lines_offset)
 * are the file's. Rewinding goes back to the range's first line. A regular
 * file only (RT_EINVAL otherwise). RT_OK or an error with err filled.
 */
int rt_lines_range(rt_lines *r, uint64_t begin, uint64_t end, unsigned long lines_before, rt_err *err);

/*
 * The newlines in bytes [begin, end) of fp (read with fread, fp's position
 * moved): the numbers a rank exchanges so every range knows its lines_before.
 * *ioerr = 0, or errno when the file could not be read.
 */
uint64_t rt_lines_count(FILE *fp, uint64_t begin, uint64_t end, int *ioerr);

/*
 * Numbered lines (on = 1): every line of the input is "LINE<TAB>text", as a
 * rank writes the lines another rank sent it; rt_lines_next gives the text
 * and rt_lines_lineno LINE (a line without the prefix is RT_EFORMAT). Block
 * access is refused (RT_EINVAL) while on: check rt_lines_is_numbered.
 */
void rt_lines_numbered(rt_lines *r, int on);
int rt_lines_is_numbered(const rt_lines *r);

/* ---- tokens over a line ---- */

/* A view of characters: not NUL-terminated in general. */
typedef struct rt_span {
    const char *p;
    size_t n;
} rt_span;

/*
 * Next white-space separated token from *cur (not past end). Returns 1 and sets
 * *tok, advancing *cur past it, or 0 when only white space is left.
 */
int rt_tok_next(const char **cur, const char *end, rt_span *tok);

/* Strict parsers: the whole span must be the number. Return 1 on success, 0 otherwise.
 * rt_span_double takes finite values only: nan, inf and overflowing numbers fail. */
int rt_span_long(rt_span s, long *out);
int rt_span_double(rt_span s, double *out);
int rt_span_hex(rt_span s, uint64_t *out);   /* optional 0x prefix */

#endif
