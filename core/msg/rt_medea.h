/*
 * rt_medea.h - workload-characterization parameters of a message-passing trace.
 *
 * An accumulator fed the event records of one trace (in file order, any
 * interleaving of processors) that keeps, per processor, a stack of open
 * events and charges every closed interval where it belongs:
 *   - processor-oriented parameters (time per system-event category, volumes,
 *     occurrences, execution and computation time);
 *   - user-event-oriented parameters per (processor, user event type): total
 *     time, first-level system and user time, hidden system time and counts;
 *   - activity profiles: how many processors execute, compute, communicate,
 *     receive, transmit or do I/O, as step functions of time.
 * State is proportional to processors x event types plus the open-event stacks;
 * only the profiles, when asked for (rt_medea_keep_profiles), keep change
 * points: about three per outermost system interval.
 * Shaped for traces of 10^5..10^8 records fed by a streaming reader.
 *
 * Event type families (PICL new format): sends -21..-50, receives and probes
 * -51..-62, communication set-up -11..-16, clock sync / barrier -401/-402,
 * I/O -201..-299, processor allocation -501..-503, collectives -750..-799,
 * tracing -901..-914 (ignored), other types below -10 are "system"; types >= 0
 * are user events.
 */
#ifndef RT_MEDEA_H
#define RT_MEDEA_H

#include <stddef.h>

#include "rt_error.h"

/* One record as the accumulator needs it. */
typedef struct rt_medea_rec {
    int rectype;  /* -3 event entry, -4 event exit; other record types are only timed */
    int event;    /* event type */
    double time;  /* seconds */
    int proc;     /* processor id, >= 0 */
    double bytes; /* first integer data field (message / I/O bytes), < 0 when absent */
    int task;     /* PICL TASK field: tasks on one processor are separate components; 0 usually */
} rt_medea_rec;

/* Categories an outermost system interval is charged to. */
enum {
    RT_MEDEA_TR,   /* sends -21..-50 */
    RT_MEDEA_RC,   /* receives and probes -51..-62 */
    RT_MEDEA_IP,   /* communication enable/disable -11..-16 */
    RT_MEDEA_CK,   /* synchronization -401/-402 */
    RT_MEDEA_IO,   /* I/O -201..-299 */
    RT_MEDEA_RS,   /* resource allocation -501..-503 */
    RT_MEDEA_CO,   /* collectives -750..-799 (communication, not tr/rc) */
    RT_MEDEA_SY,   /* every other system event */
    RT_MEDEA_NCAT
};

/* Processor-oriented parameters (Table 3 of the MEDEA report). */
typedef struct rt_medea_proc {
    int proc;
    int task;                  /* the component's task on that processor (0 usually) */
    double first, last;        /* times of the processor's first and last record */
    double extime, cptime, cmtime;
    double time[RT_MEDEA_NCAT]; /* outermost system-event time per category */
    double trdata, rcdata, ttdata, iodata; /* bytes */
    long trnum, rcnum, ionum;
    long unmatched;            /* exits with no open entry of that type */
    long unclosed;             /* entries open at the end (closed there by rt_medea_finish) */
} rt_medea_proc;

/* User-event-oriented parameters of one (processor, event type) (Table 4). */
typedef struct rt_medea_event {
    int proc, event;
    int task;
    double ctime;  /* total time of the (outermost) occurrences */
    double stime;  /* system events at the first level */
    double utime;  /* user events at the first level */
    double hstime; /* system events inside first-level user events, any depth */
    long cnum, snum, unum, hsnum, hunum;
} rt_medea_event;

/* Profiles: number of processors in each activity, as change points. */
enum {
    RT_MEDEA_P_EXEC,  /* between its first and last record */
    RT_MEDEA_P_COMP,  /* executing and outside every system event */
    RT_MEDEA_P_COMM,  /* inside an outermost send, receive or collective */
    RT_MEDEA_P_RECV,
    RT_MEDEA_P_SEND,
    RT_MEDEA_P_IO,
    RT_MEDEA_NPROF
};

typedef struct rt_medea rt_medea;

/*
 * A computation burst: a component busy outside every system event, from its
 * first record or the end of an outermost system interval to the start of the
 * next one or its last record (ClusteringSuite's CPU bursts between MPI calls).
 */
typedef struct rt_medea_burst {
    int proc, task;
    double t0, t1;
    long nuser;    /* user-event entries within it */
} rt_medea_burst;

/* Category of an event type (RT_MEDEA_*), or -1 for user and tracing events. */
int rt_medea_category(int event);

/* A new empty accumulator; NULL when out of memory. */
rt_medea *rt_medea_new(void);

/* Free; NULL is allowed. */
void rt_medea_free(rt_medea *m);

/*
 * Keep the change points the profiles need (off by default, so memory stays
 * flat on long traces). Call before the first record; profiles of an
 * accumulator without them cover only the execution span.
 */
void rt_medea_keep_profiles(rt_medea *m, int on);

/* Keep the computation bursts (rt_medea_bursts; off by default). Call before the first record. */
void rt_medea_keep_bursts(rt_medea *m, int on);

/*
 * Keep only the processors that rank `part` of a job of `parts` ranks owns
 * (rt_par_route.h: p % parts == part, or OTF2's blocks; parts <= 1: all): one
 * rank's share of an MPI job, whose parameters are those of the whole trace's
 * run for these processors. Records of other processors count only towards
 * whether the trace has events. Call before the first record. When parts is
 * the size of the running job, rt_medea_feed_file reads only this rank's part
 * of the trace (rt_par_source.h: collective then).
 */
void rt_medea_set_part(rt_medea *m, int part, int parts);
/* The parts of rt_medea_set_part (0 when not split). */
int rt_medea_parts(const rt_medea *m);
/* A part of a job that read only its part of the trace: the entry and exit records counted
 * over the whole job (collective: every rank calls it), as one reader of the whole would. */
void rt_medea_share_events(rt_medea *m);

/*
 * Feed one record. RT_OK, or RT_EINVAL (err filled) for a negative processor
 * id or a non-finite time, RT_ENOMEM. A component is a (processor, task)
 * pair: each task of a processor keeps its own stack and parameters. Exits
 * that match no open entry of their type are counted (rt_medea_proc.unmatched)
 * and otherwise ignored. Same-time order as in the replay (rt_replay.h): an
 * exit that would close an entry with entries opened inside it still open
 * waits while the component's next records are exits of those inner entries
 * at the same time, which close first; otherwise (no such exit follows) it
 * closes that entry only, leaving the inner ones open.
 */
int rt_medea_add(rt_medea *m, const rt_medea_rec *r, rt_err *err);

/*
 * Close every event still open, innermost first, at its processor's last record
 * time (what the replay does at the end of a trace) and count those occurrences
 * as closed there (rt_medea_proc.unclosed counts them). rt_medea_feed_file and
 * rt_medea_feed_source call it; call it after the last rt_medea_add of a trace
 * fed by hand. RT_OK or RT_ENOMEM.
 */
int rt_medea_finish(rt_medea *m, rt_err *err);

/* Entry and exit records fed so far, the tracer's own (-901..-914) aside (0 for a trace of
 * statistics records only, with or without tracing start / stop records). */
long rt_medea_events_fed(const rt_medea *m);

/*
 * One value of a PICL statistics record (kind -101 seconds, -102 occurrences,
 * -103 bytes sent, -104 bytes received, -105 size volume) of event type `event`
 * on processor proc (task `task`), recorded at `time`: charged to the processor
 * parameters of the event's category (user events are ignored). The seconds
 * of the tracing event (-101 of -901..-914: the time traced) become the
 * execution time of a trace with no entry or exit records besides the
 * tracer's; without them the execution time is the processor's span of
 * records, or, when all its records share one time, that time. For traces
 * that hold nothing else; rt_medea_from_stats then answers 1. RT_OK,
 * RT_EINVAL (a bad processor, kind or value), RT_ENOMEM.
 */
int rt_medea_add_stats(rt_medea *m, int proc, int task, int kind, int event, double value, double time,
                       rt_err *err);

/* 1 when some parameters came from statistics records (rt_medea_add_stats). */
int rt_medea_from_stats(const rt_medea *m);

/* Number of processors seen (ids 0..n-1 may have gaps; see rt_medea_proc_get). */
size_t rt_medea_nprocs(const rt_medea *m);

/*
 * Parameters of the i-th processor seen (0 <= i < rt_medea_nprocs, ordered by
 * id). Derived values (extime, cptime, cmtime, unclosed) are computed here.
 */
void rt_medea_proc_get(const rt_medea *m, size_t i, rt_medea_proc *out);

/* Number of (processor, user event type) pairs seen. */
size_t rt_medea_nevents(const rt_medea *m);

/* The i-th pair, ordered by processor then event type. */
void rt_medea_event_get(const rt_medea *m, size_t i, rt_medea_event *out);

/*
 * Profile of one activity (RT_MEDEA_P_*) as a step function: *n change points,
 * times ascending and distinct, counts[i] the number of processors from
 * times[i] to the next point. The arrays are owned by m and valid until the
 * next rt_medea_add or rt_medea_free. RT_OK, RT_ENOMEM, or RT_ESTATE for
 * any profile but RT_MEDEA_P_EXEC when the change points were not kept.
 */
int rt_medea_profile(rt_medea *m, int which, const double **times,
                     const int **counts, size_t *n, rt_err *err);

/*
 * The same profile read in batches, for profiles too long to hold: open a
 * cursor (NULL with err set: RT_ESTATE as above, RT_ENOMEM), then each
 * rt_medea_profile_next gives the next *n <= max change points (0 at the end;
 * RT_EIO when the temporary file of change points cannot be read back). The
 * change points live in memory a block (16384) per activity, older ones in a
 * temporary file, sorted block by block and merged here: a trace out of time
 * order costs 8 bytes and a 4 KiB read buffer per block out of order. Feed no
 * record while a cursor is open.
 */
typedef struct rt_medea_pcursor rt_medea_pcursor;
rt_medea_pcursor *rt_medea_profile_open(rt_medea *m, int which, rt_err *err);
int rt_medea_profile_next(rt_medea_pcursor *c, double *times, int *counts, size_t max, size_t *n, rt_err *err);
void rt_medea_profile_close(rt_medea_pcursor *c);

/*
 * The integral of a profile (times, counts as rt_medea_profile gives them:
 * counts[i] holds from times[i] to times[i + 1], the last count to t1, zero
 * before times[0]) over each of ns equal consecutive slices of [t0, t1]:
 * out[j] = processor-seconds in the activity during slice j. O(n + ns).
 * RT_EINVAL unless t0 < t1 (both finite) and ns >= 1.
 */
int rt_medea_integrate(const double *times, const int *counts, size_t n, double t0, double t1,
                       size_t ns, double *out, rt_err *err);

/*
 * The computation bursts, in the order they ended (complete after
 * rt_medea_finish); kept only with rt_medea_keep_bursts.
 * Owned by m.
 */
const rt_medea_burst *rt_medea_bursts(const rt_medea *m, size_t *n);

/* ---- feeding from PICL traces ---- */

struct rt_picl_record;

/*
 * The accumulator's view of a new-format PICL record: message bytes from the
 * send entry / receive exit fields, otherwise the first data value (I/O and
 * collective byte counts), absent (-1) when negative or missing.
 */
void rt_medea_from_picl(const struct rt_picl_record *rec, rt_medea_rec *out);

/*
 * Open the trace at path as a source and feed it into m: a PICL source is
 * replayed by the message-passing engine and every record (old format
 * translated to the new vocabulary) fed in file order. Any
 * other message-passing format the dispatcher reads (rt_tsource_open) is fed
 * from its neutral events, regions mapped to event types by class (see
 * rt_medea_feed.c); *skipped is then 0 (such readers refuse malformed input)
 * and *warnings counts the problems the reader worked around.
 * Malformed lines are skipped and counted (*skipped) unless strict; the
 * engine's warnings (unmatched exits, events left open, tachyons) are counted
 * (*warnings); both may be NULL. Returns RT_OK or the reader's error, with err
 * naming file, line and field.
 */
int rt_medea_feed_file(rt_medea *m, const char *path, int strict, unsigned long *skipped,
                       unsigned long *warnings, rt_err *err);

/*
 * Feed every event of a neutral source (rt_tevent.h; read to its end) into m:
 * regions become event types by class (user regions keep their id, others take
 * their PICL family's number), bytes from SEND / RECV / COLL_* events.
 * *skipped = 0, *warnings = the source's warnings. RT_OK or the source's error.
 */
struct rt_tsource;
int rt_medea_feed_source(rt_medea *m, struct rt_tsource *src, unsigned long *skipped, unsigned long *warnings,
                         rt_err *err);

#endif
