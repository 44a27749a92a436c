/*
 * rt_memtrace.h - readers of memory-reference traces of real programs.
 *
 * Formats: Dinero IV's classic din ("LABEL HEXADDR", labels 0 read, 1 write,
 * 2 instruction fetch, 3 escape of unknown type, 4 flush; the rest of a line is
 * ignored; no sizes, so, as Dinero IV reads it, each access is 4 bytes at its
 * address rounded down to a multiple of 4), Dinero IV's extended din ("r|w|i|m|c|v HEXADDR HEXSIZE"), Valgrind
 * lackey --trace-mem=yes logs ("I  addr,size", " L", " S", " M" = load then
 * store; "==PID==", "--PID--" and "**PID**" lines skipped) and the project's compact binary format
 * (RTMB, see rt_rtmb_* below and the README). All are streamed in bounded
 * memory; traces of 10^8 references are the expected size.
 *
 * Every reader has the same shape: rt_X_open(path, err) -> reader or NULL;
 * rt_X_next(r, &ref, err) -> RT_OK, RT_EEOF at the end, or an error naming
 * file, line (record for the binary format) and field; rt_X_free(r).
 * rt_memtrace_* dispatches to the reader of a named format.
 */
#ifndef RT_MEMTRACE_H
#define RT_MEMTRACE_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

/* Kinds of reference. The numbering is part of the binary format. */
typedef enum rt_ref_kind {
    RT_REF_READ = 0,       /* data load */
    RT_REF_WRITE = 1,      /* data store */
    RT_REF_IFETCH = 2,     /* instruction fetch */
    RT_REF_MISC = 3,       /* of unknown type (din 3, xdin m): counted as ignored */
    RT_REF_FLUSH = 4,      /* write back the dirty lines of the range and empty them (din 4, xdin c) */
    RT_REF_INVALIDATE = 5, /* empty the lines of the range without writebacks (xdin v) */
    RT_REF_KINDS = 6
} rt_ref_kind;

/* One reference: size bytes from addr (size >= 1), or for a flush or an
 * invalidate, the lines of those bytes (size 0: the whole cache, as din's
 * flush and, in Dinero IV, c and v with size 0). */
typedef struct rt_memref {
    uint64_t addr;
    uint64_t size;
    int kind; /* rt_ref_kind */
} rt_memref;

/* The largest load, store or fetch a reader accepts (16 MiB): a bigger size is
 * a corrupted field, not a reference, and would have the cache walk millions of
 * lines for it. */
#define RT_MEMREF_MAX_SIZE (1ull << 24)

/* NULL when ref's size is acceptable, else why not: too big for a load, store
 * or fetch. (A range past the top of the address space wraps to 0.) */
static inline const char *rt_memref_bad_size(const rt_memref *ref)
{
    if (ref->kind < RT_REF_FLUSH && ref->size > RT_MEMREF_MAX_SIZE)
        return "more than 16 MiB in one reference";
    return NULL;
}

/* ---- Dinero IV din ---- */
typedef struct rt_din rt_din;
rt_din *rt_din_open(const char *path, rt_err *err);
int rt_din_next(rt_din *r, rt_memref *ref, rt_err *err);
void rt_din_free(rt_din *r);
/* Parse one din line (a trailing newline allowed) as the reader does: RT_OK
 * with the reference, or an error naming name, line no and the field. For a
 * format detector trying the first lines, and callers with lines from elsewhere. */
int rt_din_parse_line(const char *line, size_t len, const char *name, unsigned long no,
                      rt_memref *ref, rt_err *err);

/* ---- Dinero IV extended din ---- */
typedef struct rt_xdin rt_xdin;
rt_xdin *rt_xdin_open(const char *path, rt_err *err);
int rt_xdin_next(rt_xdin *r, rt_memref *ref, rt_err *err);
void rt_xdin_free(rt_xdin *r);
/* rt_din_parse_line for extended din. */
int rt_xdin_parse_line(const char *line, size_t len, const char *name, unsigned long no,
                       rt_memref *ref, rt_err *err);

/* ---- Valgrind lackey --trace-mem=yes ---- */
typedef struct rt_lackey rt_lackey;
rt_lackey *rt_lackey_open(const char *path, rt_err *err);
int rt_lackey_next(rt_lackey *r, rt_memref *ref, rt_err *err);
void rt_lackey_free(rt_lackey *r);
/* Parse one lackey line (an I, L, S or M record; valgrind's own lines are the
 * caller's to skip) as the reader does: RT_OK with the reference and *modify
 * set for an M (a load, whose store half the caller makes), or an error naming
 * name, line no and the field. For callers with lines from elsewhere (a pipe). */
int rt_lackey_parse_line(const char *line, size_t len, const char *name, unsigned long no, rt_memref *ref,
                         int *modify, rt_err *err);
/* The fast form for a buffer of many lines: parse the plain I, L, S and M
 * records at the start of buf[0, len) into out (at most cap references, an M
 * giving its load and its store), stopping before the first line of another
 * shape -- valgrind's "==", "--" and "**" lines, an empty line, a CRLF ending,
 * anything odd or malformed -- and before an M that does not fit. Only whole
 * lines are read: nothing after the last '\n' of buf. Sets *n (references
 * written) and *lines (lines parsed) and returns the bytes of those lines; 0
 * (with cap >= 2) means the first line is the caller's, and
 * rt_lackey_parse_line gives its reference or its error as always.
 * out[*n .. cap) may be written to as scratch. */
size_t rt_lackey_parse_block(const char *buf, size_t len, rt_memref *out, size_t cap, size_t *n,
                             unsigned long *lines);

/*
 * ---- RTMB: the binary format ----
 * Header, 16 bytes: the magic "RTMB\r\n\032\n", version (u16 little endian, 1),
 * flags (u16, 0), reserved (u32, 0). Then one record per reference:
 *   tag byte: bits 0-2 kind (rt_ref_kind), bit 3 set when a size follows,
 *             bits 4-6 an address register r (0-7), bit 7 zero;
 *   [size: unsigned LEB128] when bit 3 is set; otherwise the previous
 *             record's size (1 before the first record);
 *   address: a signed delta from register r, zigzag-encoded LEB128; the
 *             address is register r + delta, and becomes register r's new
 *             value (all registers start at 0).
 * The eight registers let interleaved streams (stack, heap, code, arrays) each
 * keep small deltas: a typical record is two or three bytes. The writer picks
 * the register nearest the address, or the least recently used one when none
 * is near. A file ends after a whole record.
 */
#define RT_RTMB_MAGIC "RTMB\r\n\032\n"
#define RT_RTMB_VERSION 1

typedef struct rt_rtmb rt_rtmb;
rt_rtmb *rt_rtmb_open(const char *path, rt_err *err);
int rt_rtmb_next(rt_rtmb *r, rt_memref *ref, rt_err *err);
/* Up to cap references at once into out (*n of them). RT_OK with *n > 0, or
 * RT_EEOF with *n == 0 at the end, or an error with *n == 0 (references before
 * a malformed record are returned first; the error comes on the next call). */
int rt_rtmb_read(rt_rtmb *r, rt_memref *out, size_t cap, size_t *n, rt_err *err);
/* The hot path of a simulation: consecutive loads and stores that lie within
 * one line of 2^line_shift bytes, decoded straight into addr[] and
 * is_write[] (0 or 1), up to cap of them (*n). Stops before the first record
 * that is anything else (another kind, a size field, a long delta, a
 * reference spanning two lines, the end of file, a read error), leaving it to
 * rt_rtmb_read; *n is 0 when that record comes first. Always RT_OK. */
int rt_rtmb_read_lines(rt_rtmb *r, unsigned line_shift, uint64_t *addr, uint8_t *is_write,
                       size_t cap, size_t *n);
void rt_rtmb_free(rt_rtmb *r);
/* Bytes consumed so far (the header included) and the file's size (0 when unknown). */
uint64_t rt_rtmb_offset(const rt_rtmb *r);
uint64_t rt_rtmb_size(const rt_rtmb *r);

typedef struct rt_rtmb_writer rt_rtmb_writer;
/* Start writing path (written whole: a temporary beside it until rt_rtmb_close) and
 * write the header; NULL with err on failure. */
rt_rtmb_writer *rt_rtmb_create(const char *path, rt_err *err);
/* Append one reference. */
int rt_rtmb_write(rt_rtmb_writer *w, const rt_memref *ref, rt_err *err);
/* Append refs[0, n): the records written before a failure count in *done (may be NULL). */
int rt_rtmb_write_many(rt_rtmb_writer *w, const rt_memref *refs, size_t n, size_t *done, rt_err *err);
/* Flush, close and rename onto the target; reports a write error (disk full) as
 * RT_EIO and then leaves no file. NULL-safe. The writer is freed whatever the result. */
int rt_rtmb_close(rt_rtmb_writer *w, rt_err *err);
/* Give up: the temporary is removed, the target untouched, the writer freed. NULL-safe. */
void rt_rtmb_abort(rt_rtmb_writer *w);

/* ---- any of the above ---- */
typedef enum rt_memfmt {
    RT_MEMFMT_DIN,
    RT_MEMFMT_XDIN,
    RT_MEMFMT_LACKEY,
    RT_MEMFMT_RTMB,
    RT_MEMFMT_COUNT
} rt_memfmt;

/* "din", "xdin", "lackey", "bin" -> format; -1 when unknown. */
int rt_memfmt_from_name(const char *name);
const char *rt_memfmt_name(int fmt);

typedef struct rt_memtrace rt_memtrace;
rt_memtrace *rt_memtrace_open(const char *path, int fmt, rt_err *err);
int rt_memtrace_next(rt_memtrace *t, rt_memref *ref, rt_err *err);
/* Batch form of rt_memtrace_next, with rt_rtmb_read's contract: the same
 * references and errors, much faster (the text formats parse whole buffers,
 * see rt_memtrace_fast.h). out[*n .. cap) may be written to as scratch. */
int rt_memtrace_read(rt_memtrace *t, rt_memref *out, size_t cap, size_t *n, rt_err *err);
/* rt_rtmb_read_lines for the formats that have such a path (RTMB, and din
 * with lines of 4 bytes or more: its plain load and store lines); the others
 * return RT_EINVAL (with *n = 0): rt_memtrace_read does all the work. */
int rt_memtrace_read_lines(rt_memtrace *t, unsigned line_shift, uint64_t *addr,
                           uint8_t *is_write, size_t cap, size_t *n);
void rt_memtrace_free(rt_memtrace *t);
/* Bytes consumed so far and the file's size (0 when unknown), for progress bars. */
uint64_t rt_memtrace_offset(const rt_memtrace *t);
uint64_t rt_memtrace_size(const rt_memtrace *t);

#endif
