/*
 * rt_tevent.h - the format-neutral event stream under the message-passing replay.
 *
 * Every message-passing trace format retrace reads (PICL old and new, OTF2,
 * Paraver, Pajé) is turned by its reader into one stream of typed events, so
 * the replay, MEDEA, Chitra's --states and the ParaGraph displays are written
 * once. A reader is a *source*: definitions (processors, regions with their
 * class, communicators, the clock) plus events in time order.
 *
 * Events are per processor ("location" in OTF2, "thread" in Paraver, a leaf
 * container in Pajé). Per processor they come in time order; across
 * processors a source merges them by time as far as its format allows (the
 * replay warns once when the global order breaks and follows the file).
 *
 * The kinds:
 *   ENTER / LEAVE   a region (function, MPI call, PICL event, Paraver or Pajé
 *                   state) opens / closes on the processor; regions nest.
 *   SEND            a point-to-point message leaves (peer = receiver).
 *   RECV            a point-to-point message arrives (peer = sender). A source
 *                   emits it *before* the LEAVE of the region it completes, so
 *                   the replay knows whether the receive ended a wait.
 *   COLL_BEGIN/END  one processor's part in one collective operation
 *                   (communicator, root, bytes sent and received at END).
 *   MARKER          a point event with a name or id and data values (PICL
 *                   marks and tracemarks, OTF2 markers, Paraver / Pajé events).
 *   COUNTER         a sample of a counter on the processor: region = the
 *                   counter's number (rt_tdefs_counter_at), data[0] = its value
 *                   from this time on (OTF2 metrics, Paraver event types that
 *                   carry quantities, Pajé variables).
 *
 * State rules are stated once, on region classes (rt_tclass_state): a
 * processor is idle inside a point-to-point or collective wait, a barrier or
 * an explicit idle region; it is in overhead inside any other communication,
 * I/O or system region; it is busy in user code and outside every region.
 * The innermost region whose class is not TRACING decides; outside every
 * region the definitions' outside class does (busy unless the format says
 * otherwise: rt_tdefs_set_outside). Before its first and after its last event
 * a processor is idle.
 *
 * Time: seconds as a double, plus the raw integer tick count when the format
 * has one (OTF2, Paraver: nanoseconds or ticks), so readers can convert with
 * the clock's resolution exactly, relative to the trace's first tick, and
 * never pass large tick counts through a double first.
 *
 * Shaped for 10^8 events and 10^4 processors: a source holds definitions and
 * a bounded look-ahead, never the events; an event is a small struct filled in
 * place (its pointers valid until the next call).
 */
#ifndef RT_TEVENT_H
#define RT_TEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rt_error.h"
#include "rt_field.h"

/* ---- event kinds ---- */

typedef enum {
    RT_TE_ENTER = 1,
    RT_TE_LEAVE,
    RT_TE_SEND,
    RT_TE_RECV,
    RT_TE_COLL_BEGIN,
    RT_TE_COLL_END,
    RT_TE_MARKER,
    RT_TE_COUNTER,
    RT_TE_KIND_COUNT
} rt_te_kind;

/* "enter", "leave", "send", "receive", "collective begin", "collective end", "marker", "counter". */
const char *rt_te_kind_name(int kind);

/* ---- region classes ---- */

typedef enum {
    RT_TC_USER = 0,       /* user code, user events, application phases: busy; a task */
    RT_TC_SEND,           /* point-to-point send (not waiting): overhead */
    RT_TC_RECV,           /* point-to-point receive, probe, test (not waiting): overhead */
    RT_TC_WAIT,           /* blocked receive, wait, blocking probe: idle */
    RT_TC_COLLECTIVE,     /* a collective operation: overhead */
    RT_TC_SYNC,           /* barrier, clock synchronisation, collective wait: idle */
    RT_TC_IO,             /* file input / output: overhead */
    RT_TC_IDLE,           /* explicitly idle (PICL -601, Paraver "Idle"): idle */
    RT_TC_SYSTEM,         /* any other system / runtime / set-up region: overhead */
    RT_TC_TRACING,        /* the tracer itself: decides no state, nests nothing */
    RT_TC_COUNT
} rt_tclass;

/* Short name of a class: "user", "send", "receive", "wait", "collective", "sync",
 * "io", "idle", "system", "tracing"; "?" when out of range. */
const char *rt_tclass_name(int cls);
/* Class from its short name; -1 when unknown. */
int rt_tclass_from_name(const char *name);

/*
 * The state a processor is in while cls is its innermost non-tracing region:
 * 0 idle, 1 overhead, 2 busy (the values of rt_pstate in rt_replay.h), -1 for
 * RT_TC_TRACING (look further out). Outside every region a processor is busy.
 */
int rt_tclass_state(int cls);
/*
 * The class of a region known only by its name, for formats whose regions carry
 * no role (Pajé states, OTF2 regions of unknown role): MPI and PMPI calls by
 * their meaning (MPI_Send, MPI_Isend, MPI_Bsend... send; MPI_Recv, MPI_Wait*,
 * MPI_Probe, MPI_Sendrecv wait; MPI_Irecv, MPI_Test*, MPI_Iprobe receive;
 * MPI_Barrier sync; MPI_Bcast, MPI_Reduce, MPI_All*, MPI_Gather*, MPI_Scatter*,
 * MPI_Alltoall*, MPI_Scan... collective; MPI_File_* io; other MPI_* system),
 * "idle" / "Idle" idle, anything else user. Case-sensitive on the MPI prefix.
 */
int rt_tclass_guess(const char *name);
/*
 * The wait class of a runtime region known by its name, for paradigms other
 * than MPI (accelerators, threads, tasking runtimes): a name containing
 * "barrier" is RT_TC_SYNC; one containing "synchroniz" (cudaDeviceSynchronize,
 * hipEventSynchronize), "wait" (omp_taskwait, hpx wait_all, pthread_cond_wait),
 * "join" not followed by a lower-case letter (pthread_join, not joint_matrix) or
 * "clFinish" is RT_TC_WAIT; ASCII case ignored.
 * -1 when the name is none of these.
 */
int rt_tclass_runtime_wait(const char *name);
/* 1 when the class counts as communication (send, recv, wait, collective, sync). */
int rt_tclass_is_comm(int cls);

/* ---- one event ---- */

/* Data values an event keeps inline (a marker's values, a PICL record's data). */
#define RT_TE_MAXDATA 8

typedef struct rt_tevent {
    int kind;             /* rt_te_kind */
    int proc;             /* processor index, 0 .. nprocs-1 (see rt_tdefs_proc) */
    double time;          /* seconds */
    int64_t ticks;        /* the format's raw integer time stamp; 0 when it has none */
    int region;           /* ENTER / LEAVE: region id (rt_tdefs_region); MARKER: marker id
                           * (a region id too when it has a name, else the format's number) */
    int task;             /* PICL: the record's TASK field; others 0 */
    int peer;             /* SEND: receiver; RECV: sender; COLL_*: root (-1 none); else -1 */
    int64_t tag;          /* SEND / RECV: message tag */
    int comm;             /* SEND / RECV / COLL_*: communicator id, -1 when none */
    double bytes;         /* SEND / RECV: message length; COLL_END: bytes sent */
    double bytes_in;      /* COLL_END: bytes received; else 0 */
    int ndata;            /* values in data[] */
    double data[RT_TE_MAXDATA];
    unsigned long line;   /* 1-based line in a text trace, 0 otherwise */
    /* the producer's own record when it has one (PICL: const rt_picl_record *, the
     * translated new-format record), for consumers that need format details; NULL otherwise */
    const void *raw;
} rt_tevent;

/*
 * An event's place in the serial order of its trace, three integers compared
 * in order: text formats {byte offset of the record, index of the event in
 * its record, 0}; OTF2 {ticks, location index, index in the location}. A
 * distributed replay merges by it (core/par/rt_par_rec.h).
 */
typedef struct rt_tkey {
    int64_t a;
    uint64_t b, c;
} rt_tkey;

/* <0, 0, >0 as k1 sorts before, with, after k2. */
static inline int rt_tkey_cmp(const rt_tkey *k1, const rt_tkey *k2)
{
    if (k1->a != k2->a)
        return k1->a < k2->a ? -1 : 1;
    if (k1->b != k2->b)
        return k1->b < k2->b ? -1 : 1;
    if (k1->c != k2->c)
        return k1->c < k2->c ? -1 : 1;
    return 0;
}

/* A double as an unsigned integer of the same order (for keys sorting by time). */
static inline uint64_t rt_tkey_of_double(double x)
{
    union {
        double d;
        uint64_t u;
    } v = {x};
    return (v.u >> 63) ? ~v.u : v.u | (UINT64_C(1) << 63);
}

/* Reset an event to kind 0 with peer = comm = -1 and everything else zero. */
void rt_tevent_clear(rt_tevent *ev);

/* ---- definitions ---- */

typedef struct rt_tregion {
    int id;
    int cls;              /* rt_tclass */
    const char *name;     /* owned by the definitions */
    const char *group;    /* paradigm or group ("MPI", "USER", "Paraver state"); may be "" */
} rt_tregion;

typedef struct rt_tproc {
    const char *name;     /* "rank 3", "Master thread", a Pajé container's name */
    const char *path;     /* hierarchy, outermost first, '/'-separated ("node1/rank 3/thread 0"), or "" */
} rt_tproc;

typedef struct rt_tcomm {
    int id;
    const char *name;
    int size;             /* members */
    const int *members;   /* processor indices, rank order; NULL when unknown */
} rt_tcomm;

typedef struct rt_tdefs rt_tdefs;

/* Empty definitions; NULL on allocation failure. */
rt_tdefs *rt_tdefs_new(void);
void rt_tdefs_free(rt_tdefs *d);

/*
 * Define (or redefine) a region. Ids are any int (PICL uses its event
 * numbers, which are negative for system events); lookups are O(1) on
 * average. name and group are copied (NULL means ""). RT_OK or RT_ENOMEM.
 */
int rt_tdefs_add_region(rt_tdefs *d, int id, const char *name, const char *group, int cls);
/* A region, or NULL when never defined. The pointer stays valid until the defs are freed. */
const rt_tregion *rt_tdefs_region(const rt_tdefs *d, int id);
/* Number of regions defined, and the i-th in definition order (NULL past the end). */
int rt_tdefs_nregions(const rt_tdefs *d);
const rt_tregion *rt_tdefs_region_at(const rt_tdefs *d, int i);

/*
 * Name processor index p (0-based, dense); grows the processor count to p + 1.
 * path may be NULL. RT_OK, RT_ENOMEM, RT_ERANGE when p < 0 or p >= RT_TE_MAXPROC.
 */
#define RT_TE_MAXPROC (1 << 20)
int rt_tdefs_set_proc(rt_tdefs *d, int p, const char *name, const char *path);
/* Processors defined (the largest index + 1). */
int rt_tdefs_nprocs(const rt_tdefs *d);
/* A processor's names ({"", ""} when never named; NULL when p is out of range). */
const rt_tproc *rt_tdefs_proc(const rt_tdefs *d, int p);

/* Define a communicator (members copied; may be NULL). RT_OK or RT_ENOMEM. */
int rt_tdefs_add_comm(rt_tdefs *d, int id, const char *name, int size, const int *members);
const rt_tcomm *rt_tdefs_comm(const rt_tdefs *d, int id);
int rt_tdefs_ncomms(const rt_tdefs *d);
const rt_tcomm *rt_tdefs_comm_at(const rt_tdefs *d, int i);

/* A counter: what a COUNTER event samples. */
typedef struct rt_tcounter {
    int id;               /* the format's own id (OTF2 metric member, Paraver event type, Pajé type) */
    const char *name;     /* owned by the definitions */
    const char *unit;     /* "" when the format gives none */
} rt_tcounter;

/*
 * Define a counter (name and unit copied; NULL means "") and return its number
 * (0, 1, ... in definition order), or the number it already has when id is
 * defined; -1 when out of memory. Counters are few (tens): lookups are linear.
 */
int rt_tdefs_add_counter(rt_tdefs *d, int id, const char *name, const char *unit);
/* The number of the counter with that id, -1 when none. */
int rt_tdefs_counter_find(const rt_tdefs *d, int id);
int rt_tdefs_ncounters(const rt_tdefs *d);
/* Counter i (its number), NULL past the end. */
const rt_tcounter *rt_tdefs_counter_at(const rt_tdefs *d, int i);

/*
 * The class of the time a processor spends outside every region, between its
 * first and last event: RT_TC_USER (busy) by default, as in PICL, OTF2 and
 * Pajé; RT_TC_IDLE for Paraver, where a thread outside any state record is in
 * state 0, Idle. Tracing is refused (the default stays).
 */
void rt_tdefs_set_outside(rt_tdefs *d, int cls);
int rt_tdefs_outside(const rt_tdefs *d);

/*
 * Clock: ticks per second and the tick that is time 0 (the first tick of the
 * trace, or 0). Defaults: resolution 1, offset 0. rt_tdefs_seconds converts a
 * tick count exactly as (ticks - offset) / resolution, subtracting in integers.
 */
void rt_tdefs_set_clock(rt_tdefs *d, uint64_t resolution, int64_t offset);
uint64_t rt_tdefs_resolution(const rt_tdefs *d);
int64_t rt_tdefs_offset(const rt_tdefs *d);
double rt_tdefs_seconds(const rt_tdefs *d, int64_t ticks);

/*
 * The definitions as bytes, for a job whose ranks run the same build (the
 * layout is the host's): rt_tdefs_pack writes them to out (RT_OK, or RT_EIO
 * when out fails); rt_tdefs_unpack adds what *p .. end holds to d, an empty
 * set, and moves *p past it (RT_OK, RT_EFORMAT when the bytes run short,
 * RT_ENOMEM).
 */
int rt_tdefs_pack(const rt_tdefs *d, FILE *out);
int rt_tdefs_unpack(rt_tdefs *d, const char **p, const char *end);

/* ---- sources ---- */

typedef struct rt_tsource rt_tsource;

/* What a format's reader implements. */
typedef struct rt_tsource_ops {
    const char *format;   /* "picl-old", "picl-new", "otf2", "paraver", "paje" */
    /* Next event into *ev: RT_OK, RT_EEOF at the end, or an error status with err
     * naming file, place and field. */
    int (*next)(rt_tsource *s, rt_tevent *ev, rt_err *err);
    /* Start again from the first event (definitions stay); NULL when not possible. */
    int (*rewind)(rt_tsource *s, rt_err *err);
    /* Bytes read so far and in total, for progress bars; NULL when unknown. */
    uint64_t (*offset)(const rt_tsource *s);
    uint64_t (*size)(const rt_tsource *s);
    /* Free the reader's own state and the struct holding the base (not defs or path). */
    void (*free)(rt_tsource *s);
} rt_tsource_ops;

/*
 * The common part of every source. A reader allocates a struct whose first
 * member is an rt_tsource, fills it with rt_tsource_init and returns a
 * pointer to it.
 */
struct rt_tsource {
    const rt_tsource_ops *ops;
    rt_tdefs *defs;       /* owned; may grow while reading (Pajé creates containers on the way) */
    char *path;           /* as given at open (owned) */
    uint64_t events;      /* events returned so far */
    uint64_t skipped;     /* records of kinds not modelled: counted, not errors */
    uint64_t warnings;    /* problems the reader worked around */
    /* called for each warning: "FILE:PLACE: what" (may be NULL) */
    void (*on_warning)(void *ud, const char *msg);
    void *ud;
    rt_timespan span;     /* the times returned: a span that overflows a double is refused (rt_field.h) */
    /* warnings raised before on_warning was set (at open: a Paraver trace without
     * its .pcf), handed to on_warning by the first rt_tsource_next after it is set */
    char *early;          /* up to RT_TSOURCE_EARLY messages, each NUL-terminated, back to back */
    size_t early_len;
    int nearly;
    /* Formats whose events carry a record of their own (ev.raw; set by the reader after
     * rt_tsource_init): its size in bytes, so a consumer can keep a copy (0: no raw
     * records), and one line describing such a copy in the format's own words
     * (snprintf's contract; NULL: no words of its own). */
    size_t raw_size;
    int (*describe)(const rt_tsource *s, const void *raw, char *buf, size_t size);
    /* Sources that know the serial order (a distributed replay's part) set has_key and
     * keep in key the key of the event last returned. */
    int has_key;
    rt_tkey key;
};
/* Warnings kept for a late on_warning (more are counted only). */
#define RT_TSOURCE_EARLY 8

/* Fill the base: ops, a new empty rt_tdefs and a copy of path. RT_OK or RT_ENOMEM. */
int rt_tsource_init(rt_tsource *s, const rt_tsource_ops *ops, const char *path, rt_err *err);
/* Next event (counts it). An event whose time makes the trace's span overflow is
 * RT_EFORMAT "FILE:LINE: time: ..." (every format, one rule). */
int rt_tsource_next(rt_tsource *s, rt_tevent *ev, rt_err *err);
/*
 * Passes over trace files begun in this process: every source counts one when
 * it gives its first event after opening or rewinding (a source opened or
 * rewound and not read counts nothing). Tools state how often they read a
 * trace with it (retrace paragraph --json: "reads").
 */
int64_t rt_tsource_passes(void);
/* Rewind, RT_EINVAL when the source cannot. */
int rt_tsource_rewind(rt_tsource *s, rt_err *err);
uint64_t rt_tsource_offset(const rt_tsource *s);
uint64_t rt_tsource_size(const rt_tsource *s);
/* Report a warning through on_warning and count it (printf-style). */
void rt_tsource_warn(rt_tsource *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/*
 * One line for a kept copy of a raw record (raw_size bytes of an event's
 * raw): the format's own description. -1 (buf untouched) when the source has
 * none or raw is NULL; else the length snprintf would write.
 */
int rt_tsource_describe(const rt_tsource *s, const void *raw, char *buf, size_t size);
/* Free the source, its definitions and its path; NULL allowed. */
void rt_tsource_free(rt_tsource *s);

#endif
