/*
 * rt_paraver.h - reader of Paraver traces (.prv, written by Extrae and
 * Dimemas) into the format-neutral event stream of rt_tevent.h.
 *
 * A Paraver trace is a text file: one header line
 *   #Paraver (DATE):FTIME[_ns|_us|_ms]:RESOURCES:NAPPL:APPL[:APPL...][,NCOMM]
 * where each APPL is NTASKS(NTHREADS:NODE,...), then NCOMM communicator lines
 * ("c:APPL:ID:N:TASK...") and the body records, sorted by time:
 *   1:cpu:appl:task:thread:begin:end:state            a state interval
 *   2:cpu:appl:task:thread:time:type:value[:type:value...]   punctual events
 *   3:cpu:appl:task:thread:lsend:psend:cpu:appl:task:thread:lrecv:precv:size:tag
 *                                                      a message
 *   4:cpu:appl:task:thread:time:comm:sent:recv:op:root  a global operation
 *                                                      (Dimemas; counted, not modelled)
 * Time stamps are integers in the unit the header names (no suffix means
 * microseconds, as the Paraver kernel reads it). A ".pcf" beside the trace
 * names the state values and event types; a ".row" names the threads. Both
 * are optional.
 *
 * What the reader makes of it:
 *   - processors: the threads of the header, in (appl, task, thread) order,
 *     named "task T thread H" ("appl A task T thread H" with several
 *     applications) or by the .row's THREAD level, path "appl A/task T/thread H";
 *   - a state record: ENTER of the state's region at begin, LEAVE at end
 *     (zero-length intervals are dropped, as Paraver does). State value s is
 *     region RT_PARAVER_STATE_REGION(s), named from the .pcf, its class from the
 *     table in rt_paraver_state_class;
 *   - an event record: one MARKER per type/value pair, region = type (defined
 *     with the .pcf's name when it has one), data[0] = value, data[1] = type;
 *   - a communication record: SEND at the physical send time on the sender
 *     (peer = receiver), RECV at the physical receive time on the receiver
 *     (peer = sender), with tag and size;
 *   - communicator lines: communicators of the definitions (members are the
 *     first thread of each member task).
 * Events come out in global time order (a heap holds the pending leaves and
 * message ends: bounded by threads plus messages in flight); at equal times on
 * one processor sends and receives come first, then leaves, then the records
 * that start there in file order.
 *
 * Shaped for traces of 10^8 records and 10^4 threads: memory is the
 * definitions and that heap, never the events.
 */
#ifndef RT_PARAVER_H
#define RT_PARAVER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_tevent.h"

/* Region id of Paraver state value s (0 <= s <= RT_PARAVER_MAXSTATE): negative,
 * so state regions never collide with event types, whose ids are the types. */
#define RT_PARAVER_MAXSTATE (1 << 24)
#define RT_PARAVER_STATE_REGION(s) (-1 - (int)(s))

/*
 * Open a Paraver trace: reads the header, the .pcf and .row beside it (path
 * with its ".prv" suffix replaced; missing ones give a warning through the
 * source's on_warning, or none for the .row), and stands before the first
 * record. NULL with err set ("FILE:LINE: field: what", RT_EFORMAT; RT_EIO
 * when the file cannot be read) on failure. Free with rt_tsource_free.
 * Warnings raised while opening (a missing .pcf) are counted in
 * base.warnings; set on_warning after open to see later ones, or read
 * rt_paraver_stats_of(s)->first_warning.
 */
rt_tsource *rt_paraver_open(const char *path, rt_err *err);

/*
 * A rank's share of the trace: the header, .pcf and .row as rt_paraver_open
 * reads them, then only the body records whose line starts in bytes [begin,
 * end) of the file (rt_lines_range; lines_before = newlines before begin; a
 * range that begins inside the header starts at the body). A part is not
 * checked as a whole body (no records, threads without records: the caller
 * checks the sum of the parts).
 */
rt_tsource *rt_paraver_open_range(const char *path, uint64_t begin, uint64_t end, unsigned long lines_before,
                                  rt_err *err);
/*
 * The header, .pcf and .row of path, then the body records from body:
 * numbered lines "LINE<TAB>record" (rt_lines_numbered), the records other
 * ranks routed to this one with their lines in the trace. body is not closed
 * by the source. A part, as above.
 */
rt_tsource *rt_paraver_open_numbered(const char *path, FILE *body, rt_err *err);
/*
 * Define the region of state value v (0 .. RT_PARAVER_MAXSTATE) as the reader
 * does at the value's first record, without its warning about a value the
 * .pcf does not name: for a reader of part of the records (core/par) whose
 * trace has v's first record elsewhere. RT_OK when defined (or already),
 * RT_EINVAL when s is not a Paraver reader or v out of range, RT_ENOMEM.
 */
int rt_paraver_define_state(rt_tsource *s, int64_t v);
/* Before the first record: the byte offset of the body; later, of the next line. 0 for other sources. */
uint64_t rt_paraver_body_offset(const rt_tsource *s);
/* Body records read (every type, blank and comment lines not counted). */
uint64_t rt_paraver_records(const rt_tsource *s);
/*
 * Called for each body record read without error (communicator lines and
 * records of types not modelled too): its text (no newline), its line, its
 * record type (-1 for a communicator line) and the threads it names: a
 * message's sender and receiver, another record's thread and -1, or -1 and -1
 * when it names none.
 */
typedef void (*rt_paraver_record_fn)(void *ud, const char *text, size_t len, unsigned long line, int type,
                                     int thread, int thread2);
void rt_paraver_on_record(rt_tsource *s, rt_paraver_record_fn fn, void *ud);

/* 1 when head (the first n bytes of path) starts a Paraver trace: its first
 * line starts "#Paraver (" (or is "new format" followed by such a line). Never
 * claims the .pcf or .row companions. head may be NULL when n is 0. */
int rt_paraver_sniff(const char *path, const unsigned char *head, size_t n);

/* The class of a Paraver state from its .pcf name (the README's table):
 * Running user; Idle, Not created idle; Waiting a message, Blocking Send,
 * Blocked, Wait/WaitAll, Send Receive, Waiting links wait; Thd. Synchr.,
 * Synchronization sync; Test/Probe, Immediate Receive receive; Immediate Send
 * send; Group Communication collective; I/O io; Tracing Disabled tracing;
 * other names by rt_tclass_guess, and system when that says user. The
 * misspellings Extrae and Dimemas write ("Bloking", "Inmediate") are accepted. */
int rt_paraver_state_class(const char *name);

/* What a Paraver source has read so far (counts restart on rewind). */
typedef struct rt_paraver_stats {
    int nappl;                 /* applications in the header */
    int ntasks;                /* tasks over all applications */
    int nthreads;              /* threads = processors */
    int64_t ftime;             /* the header's end time, in ticks */
    uint64_t resolution;       /* ticks per second (1000000 for us) */
    uint64_t states;           /* state records read */
    uint64_t empty_states;     /* of which zero-length, dropped */
    uint64_t event_records;    /* event records read */
    uint64_t event_pairs;      /* type/value pairs in them (one MARKER each) */
    uint64_t unknown_types;    /* pairs whose type the .pcf does not name */
    uint64_t comms;            /* communication records (one SEND + one RECV each) */
    uint64_t global_ops;       /* record type 4 (global operations): skipped */
    uint64_t other_records;    /* records of any other type, communicator lines in the body: skipped */
    uint64_t out_of_order;     /* events returned earlier in time than one before them */
    uint64_t overlapping;      /* states begun before the thread's previous state ended (that one cut) */
    int has_pcf, has_row;      /* companions found */
    char first_warning[256];   /* the first warning raised while opening (before on_warning
                                * could be set), "" when none */
} rt_paraver_stats;

/* The counts of a source made by rt_paraver_open; NULL for any other source. */
const rt_paraver_stats *rt_paraver_stats_of(const rt_tsource *s);

#endif
