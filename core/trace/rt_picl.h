/*
 * rt_picl.h - streaming readers for PICL trace files, old and new record formats.
 *
 * PICL traces record message-passing programs: one record per line, written by
 * every processor and merged by time. Two formats exist:
 *
 *   new (MPICL):  RECTYPE EVENT TIME PROC TASK NDATA [DESC] DATA...
 *       RECTYPE -2 mark, -3 event entry, -4 event exit, -5 label, -6 data
 *       descriptor, -7 message, -101..-105 statistics, -201..-203 subsets.
 *       DESC is a numeric type code (2 = integers) or a quoted format such as
 *       "%d%lf"; with a quoted format NDATA counts groups of conversions, so
 *       the record holds NDATA * (conversions in the format) values.
 *       Event types < -10 are system events, >= 0 user events.
 *   old (ParaGraph, PICL 1.x):  CODE SEC USEC NODE FIELDS...
 *       1 trace_start, 4 send (to type length), 5 probe, 6 recv (from type
 *       length), 7 recv_blocking, 8 recv_waking (from type length), 11
 *       compstats, 12 commstats, 13 close, 14 trace_level, 19 trace_exit,
 *       20/21 block_begin/block_end (block type), 22 trace_marks (integers).
 *
 * Shaped for traces of 10^7..10^8 records: the reader keeps one line buffer
 * and one record, parses numbers without allocation, and never holds more
 * than a line. Malformed lines are skipped and counted (each reported through
 * an optional callback with file, line and what is wrong) unless the reader is
 * strict, then the first one is an error.
 *
 * Old records can be translated into new-format records (rt_picl_xlate), so the
 * replay engine and `retrace picl convert` deal with one vocabulary.
 */
#ifndef RT_PICL_H
#define RT_PICL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"

/* ---- formats and record types ---- */

enum {
    RT_PICL_AUTO = 0, /* detect from the first record */
    RT_PICL_OLD = 1,
    RT_PICL_NEW = 2,
};

/* New-format record types. */
enum {
    RT_PICL_MARK = -2,
    RT_PICL_ENTRY = -3,
    RT_PICL_EXIT = -4,
    RT_PICL_LABEL = -5,
    RT_PICL_DATADESC = -6,
    RT_PICL_MESSAGE = -7,
    RT_PICL_STAT_TIME = -101,   /* pairs: event, seconds spent */
    RT_PICL_STAT_COUNT = -102,  /* pairs: event, occurrences */
    RT_PICL_STAT_SEND = -103,   /* pairs: event, bytes sent */
    RT_PICL_STAT_RECV = -104,   /* pairs: event, bytes received */
    RT_PICL_STAT_SIZE = -105,   /* pairs: event, size volume */
};

/* Old-format record codes. */
enum {
    RT_PICL_OLD_TRACE_START = 1,
    RT_PICL_OLD_SEND = 4,
    RT_PICL_OLD_PROBE = 5,
    RT_PICL_OLD_RECV = 6,
    RT_PICL_OLD_RECV_BLOCKING = 7,
    RT_PICL_OLD_RECV_WAKING = 8,
    RT_PICL_OLD_COMPSTATS = 11,
    RT_PICL_OLD_COMMSTATS = 12,
    RT_PICL_OLD_CLOSE = 13,
    RT_PICL_OLD_TRACE_LEVEL = 14,
    RT_PICL_OLD_TRACE_EXIT = 19,
    RT_PICL_OLD_BLOCK_BEGIN = 20,
    RT_PICL_OLD_BLOCK_END = 21,
    RT_PICL_OLD_TRACE_MARKS = 22,
};

/* Processor numbers run from 0 to RT_PICL_MAXPROC - 1. */
#define RT_PICL_MAXPROC 65536

/* Most data values a record keeps; longer records keep the first ones and set truncated. */
#define RT_PICL_MAXDATA 64

/* One record, in the format it was read in. */
typedef struct rt_picl_record {
    int format;       /* RT_PICL_OLD or RT_PICL_NEW */
    int rectype;      /* new: record type (RT_PICL_ENTRY, ...); old: the code (1..) */
    int event;        /* new: event type; old: 0 */
    double time;      /* seconds (old format: SEC + USEC / 10^6) */
    int proc;         /* processor (old: node) */
    int task;         /* new: task (process) id; old: 0 */
    int ndata_field;  /* new: the NDATA field as written; old: number of fields */
    int desc;         /* new: numeric data descriptor, 0 when absent or quoted */
    char fmt[24];     /* new: quoted descriptor without its quotes ("%d%lf"), else "" */
    int ndata;        /* values kept in data[] */
    int truncated;    /* 1 when the line had more than RT_PICL_MAXDATA values */
    double data[RT_PICL_MAXDATA]; /* data values (old: the FIELDS after NODE) */
    unsigned long line; /* 1-based line in the file; 0 for synthesised records */
    /* new format: the data values as written (after the descriptor), e.g. a label's
     * string; points into the reader's line, valid until the next record; NULL if none */
    const char *text;
    size_t textlen;
} rt_picl_record;

/* Reader options; zero-initialised means: detect, lenient, no callback. */
/* The malformed lines a lenient reader skipped: how many, and the first RT_PICL_KEEP_SKIPS
 * messages ("FILE:LINE: what is wrong"). rt_picl_skips_add is an on_skip callback (ud = the
 * rt_picl_skips); rt_picl_skips_free frees the messages. */
#define RT_PICL_KEEP_SKIPS 100
typedef struct rt_picl_skips {
    unsigned long n;
    int nkept;
    char *kept[RT_PICL_KEEP_SKIPS];
} rt_picl_skips;
void rt_picl_skips_add(void *skips, const char *msg);
void rt_picl_skips_free(rt_picl_skips *s);

typedef struct rt_picl_opts {
    int format;       /* RT_PICL_AUTO, RT_PICL_OLD or RT_PICL_NEW */
    int strict;       /* 1: a malformed line is an error (RT_EFORMAT), not skipped */
    /* called for each malformed line that is skipped: "FILE:LINE: what is wrong" */
    void (*on_skip)(void *ud, const char *msg);
    void *ud;
} rt_picl_opts;

typedef struct rt_picl rt_picl;

/*
 * Open path ("-" = standard input). opts may be NULL. Format detection reads
 * the first non-blank line: a first field <= -2 is the new format, >= 1 the
 * old one. Returns NULL with err filled when the file cannot be opened or (with
 * RT_PICL_AUTO) its first record fits neither format.
 */
rt_picl *rt_picl_open(const char *path, const rt_picl_opts *opts, rt_err *err);

/*
 * A rank's share of a trace: only the records whose line starts in bytes
 * [begin, end) of path (rt_lines_range: lines_before = newlines before begin,
 * so record lines are the file's). The format is detected from the file's
 * first record as rt_picl_open does. A regular file only.
 */
rt_picl *rt_picl_open_range(const char *path, const rt_picl_opts *opts, uint64_t begin, uint64_t end,
                            unsigned long lines_before, rt_err *err);
/*
 * Records from numbered lines ("LINE<TAB>record", rt_lines_numbered) read from
 * fp (not closed by rt_picl_free): the lines other ranks routed to this one,
 * each with its line in the trace; name is used in messages (the trace's
 * path). opts->format must be RT_PICL_OLD or RT_PICL_NEW.
 */
rt_picl *rt_picl_open_numbered(FILE *fp, const char *name, const rt_picl_opts *opts, rt_err *err);
/* The text of the last record returned or malformed line skipped (no newline),
 * valid until the next call, and its line; *p NULL (and 0) before the first. */
unsigned long rt_picl_line(const rt_picl *r, const char **p, size_t *len);

/*
 * Next record into *rec. Returns RT_OK, RT_EEOF at the end, RT_EFORMAT (strict
 * reader, err names file, line and field) or RT_EIO. Blank lines and lines
 * starting with '#' are ignored. rec stays valid until overwritten.
 */
int rt_picl_next(rt_picl *r, rt_picl_record *rec, rt_err *err);

/* The format being read (RT_PICL_OLD or RT_PICL_NEW). */
int rt_picl_format(const rt_picl *r);
/* Malformed lines skipped so far. */
unsigned long rt_picl_skipped(const rt_picl *r);
/* Records returned so far. */
uint64_t rt_picl_count(const rt_picl *r);
/* The path given at open. */
const char *rt_picl_name(const rt_picl *r);
/* Bytes read so far and the file's size (0 when unknown), for progress bars. */
uint64_t rt_picl_offset(const rt_picl *r);
uint64_t rt_picl_size(const rt_picl *r);
/* Start again from the first record (RT_EINVAL on standard input). */
int rt_picl_rewind(rt_picl *r, rt_err *err);
/* Close; NULL allowed. */
void rt_picl_free(rt_picl *r);

/*
 * Parse one line in the given format (RT_PICL_OLD / RT_PICL_NEW) into *rec.
 * Returns 1 on success, 0 when the line is blank or a comment, -1 when it is
 * malformed (then why holds "FIELD: what is wrong").
 */
int rt_picl_parse_line(int format, const char *line, size_t len, rt_picl_record *rec,
                       char *why, size_t whycap);

/*
 * The line parser's fast number scanner on the len characters at p:
 * "[-]digits[.digits][(e|E)[+-]digits]" with at most 19 digits. 1 with *out
 * exactly strtod's value, or 0 when the text is anything else or needs strtod's
 * careful rounding (a mantissa above 2^53, a power of ten beyond 10^22): then
 * the parser calls strtod. Exposed for the test that compares the two.
 */
int rt_picl_fast_double(const char *p, size_t len, double *out);

/* Guess a line's format: RT_PICL_NEW, RT_PICL_OLD, or 0 when neither. */
int rt_picl_guess_format(const char *line, size_t len);

/* ---- event types (new format) ---- */

/* Families of event types, from the type number. */
typedef enum {
    RT_EV_USER = 0,       /* >= 0 */
    RT_EV_SETUP,          /* -11..-16 communication set-up */
    RT_EV_SEND,           /* -21..-50 */
    RT_EV_RECV,           /* -51..-62 receives and probes */
    RT_EV_IO,             /* -201..-299 */
    RT_EV_SYNC,           /* -401 clock sync, -402 barrier */
    RT_EV_ALLOC,          /* -501..-503 processor allocation */
    RT_EV_IDLE,           /* -601 idle */
    RT_EV_OVERHEAD,       /* -602 system, -603 user overhead */
    RT_EV_COLLECTIVE,     /* -750..-799 */
    RT_EV_COMMUNICATOR,   /* -800..-849 */
    RT_EV_TRACING,        /* -901..-914 */
    RT_EV_OTHER_SYSTEM,   /* any other type < -10 */
    RT_EV_OTHER,          /* -1..-10 (record-level codes, not events) */
    RT_EV_FAMILY_COUNT
} rt_event_family;

rt_event_family rt_picl_event_family(int event);
/* Short name of a family: "user", "send", "receive", "collective", ... */
const char *rt_picl_family_name(rt_event_family f);
/* 1 when a processor inside this event waits (idle): its class (rt_picl_event_class) is
 * wait, sync or idle: -52, -55, -56, -61, -31, -401, -402, -601. */
int rt_picl_event_waits(int event);
/* 1 for system events (< -10). */
int rt_picl_event_is_system(int event);
/* A few words naming an event type ("receive (blocked)", "user event 3"); buf gets the text. */
const char *rt_picl_event_words(int event, char *buf, size_t cap);
/* Words for a new-format record type ("event entry", "statistics: time", ...). */
const char *rt_picl_rectype_words(int rectype);
/* The kind of a new-format record type in one word: "mark", "entry", "exit", "label",
 * "descriptor", "message", "statistics", "subset", "other". */
const char *rt_picl_rectype_kind(int rectype);
/*
 * One line for a new-format record: "TIME  P<proc>  KIND  NAME  [B B]  [to|from PEER]
 * [tag T]  [[data...]]" - the event's words (entry, exit and mark records; "event N"
 * otherwise), a message's bytes, peer and tag, a mark's first 8 data values. The
 * Trace display's words for PICL. snprintf's contract.
 */
int rt_picl_describe(const rt_picl_record *rec, char *buf, size_t size);
/* Words for an old-format code ("send", "recv_waking", ...); "code N" when unknown. */
const char *rt_picl_oldcode_words(int code, char *buf, size_t cap);

/*
 * The message fields of a new-format record, if it carries any: a send entry
 * (bytes tag dest) or a receive exit (bytes tag src) with at least 3 values.
 * Returns 1 (send), 2 (receive) or 0, filling *bytes, *tag, *peer.
 */
int rt_picl_message_fields(const rt_picl_record *rec, double *bytes, long *tag, long *peer);

/* ---- old -> new translation ---- */

/*
 * Translate old records to new-format records, in order, one processor's
 * view at a time. Mapping (event types of the new vocabulary):
 *   4 send      -> entry + exit of -21 (send): entry data bytes tag dest
 *   6 recv      -> entry + exit of -51 (receive): exit data bytes tag src,
 *                  unless it repeats the recv_waking just before it on that node
 *                  (same from, type, length): then only a mark -2 / event 6
 *   7 recv_blocking -> entry of -52 (receive, blocked)
 *   8 recv_waking   -> exit of -52 with bytes tag src
 *   5 probe     -> entry + exit of -53 (probe)
 *   20 / 21     -> entry / exit of user event (block type)
 *   1 trace_start -> entry of -901; 19 trace_exit -> exit of -901
 *   other codes -> mark -2 with event = -code, data kept
 * Times, node and data carry over. State kept: per node, the last recv_waking.
 */
typedef struct rt_picl_xlate rt_picl_xlate;

rt_picl_xlate *rt_picl_xlate_new(void);
void rt_picl_xlate_free(rt_picl_xlate *x);
/* Translate old into out[0..*n) (at most 2 records). Returns RT_OK or RT_ENOMEM. */
int rt_picl_xlate_record(rt_picl_xlate *x, const rt_picl_record *old, rt_picl_record out[2], int *n);

/*
 * Write a record in the new format as one line (with '\n') into buf; returns
 * the length, or the length needed when it does not fit (like snprintf).
 */
int rt_picl_format_new(const rt_picl_record *rec, char *buf, size_t cap);

#endif
