/*
 * rt_memtrace_fast.h - the block parsers behind the batched text readers
 * (internal to rt_memtrace.c, and rt_lackey_parse_block for the capture).
 *
 * Traces of 10^8 lines cannot afford a tokenizer and a call per line: these
 * parsers walk a whole buffer of lines and accept only each format's plain
 * shape (spaces or tabs as blanks, at most 16 hex digits, sizes a reference
 * can have). They stop at the first line of any other shape and leave it to
 * the line-by-line parser, which gives the same reference or the error
 * message. So only the common case has to be fast, and every odd case keeps
 * exactly one implementation.
 *
 * Buffer contract of every block parser: [p, end) holds whole lines, each
 * ending in '\n', except that the last may lack it when *end is '\0' (the
 * reader's spare byte after a file's last line). Nothing at or past end is
 * read otherwise.
 */
#ifndef RT_MEMTRACE_FAST_H
#define RT_MEMTRACE_FAST_H

#include <stddef.h>

#include "rt_memtrace.h"

/* hexadecimal digit values by character, 0xff for the others */
extern const unsigned char rt_hexval[256];

/*
 * Parse lines from p (at the start of a line) into out[*k], out[*k + 1] ...
 * while *k < cap. *lines grows by the lines parsed (skipped ones included).
 * Returns where parsing stopped: end, the start of the first line the parser
 * leaves to the slow path, or the start of the next line when out is full.
 */
const char *rt_din_block(const char *p, const char *end, rt_memref *out, size_t cap, size_t *k,
                         unsigned long *lines);
/* din for rt_memtrace_read_lines: loads and stores (labels 0 and 1) as
 * addresses into addr[*k], is_write[*k] ... while *k < cap; stops at the
 * first line of another label, or that rt_din_block would leave to the slow
 * path. Each is 4 bytes (within one line when line_shift >= 2). */
const char *rt_din_lines(const char *p, const char *end, unsigned line_shift, uint64_t *addr,
                         uint8_t *is_write, size_t cap, size_t *k, unsigned long *lines);
/* The same as words: the address with bit 0 set for a store. */
const char *rt_din_words(const char *p, const char *end, uint64_t *word, size_t cap, size_t *k,
                         unsigned long *lines);
const char *rt_xdin_block(const char *p, const char *end, rt_memref *out, size_t cap, size_t *k,
                          unsigned long *lines);
/* valgrind: skip "==", "--" and "**" lines as rt_lackey_next does (else stop
 * at them). An M gives a load and a store; when only the load fits, the store
 * goes to *pending with *has_pending set, or, when pending is NULL, the line
 * is left for the next call. */
const char *rt_lackey_block(const char *p, const char *end, int valgrind, rt_memref *out, size_t cap,
                            size_t *k, unsigned long *lines, rt_memref *pending, int *has_pending);

#endif
