/*
 * rt_replay.h - message-passing replay of any trace the neutral event stream
 * (core/trace/rt_tevent.h) carries - PICL old and new, OTF2, Paraver, Pajé:
 * processor states, messages, queues, tasks, per-region tables and the
 * critical path.
 *
 * The engine consumes rt_tevent events in stream order (a source merges them
 * by time) and keeps:
 *   - per processor: state (busy / overhead / idle) and the time spent in
 *     each over [first event, last event] (idle outside it), the open region
 *     stack, the current task, sent / received counts and bytes, the incoming
 *     queue (messages sent to it and not yet received) with its high-water mark,
 *     and a table per region (count, summed leave - enter, bytes);
 *   - messages paired first-in first-out per (source, destination,
 *     communicator, tag); a receive met before its send is a tachyon (counted
 *     and warned);
 *   - tasks (user-class regions): first start and last end over all processors;
 *   - for the critical path, every receive that waited (receive time, sender,
 *     send time: 56 bytes each, the older ones in a temporary file).
 * State grows with processors, regions, tasks and pending messages, not with
 * the trace length, apart from the critical path's wait list, which is kept
 * only when rt_replay_opts.critical_path is set.
 *
 * State rule, once, on region classes (rt_tclass_state): the innermost open
 * region whose class is not tracing decides - wait, sync, idle: idle; user:
 * busy; any other: overhead; no open region: the definitions' outside class
 * (rt_tdefs_outside: busy, idle for Paraver).
 *
 * Pairs that do not nest: a LEAVE closes the innermost open region with its id.
 * When regions of the same group were opened inside it and are still open, it
 * closes that region alone and they stay open until their own LEAVEs (no
 * re-nesting, no closing them with it); counted in totals.unnested_exits and
 * warned. A LEAVE with no open region of its id is counted in unmatched_exits.
 *
 * Same-time order: a LEAVE that would close a region while regions opened
 * inside it are open waits while the processor's next events are LEAVEs of
 * those inner regions at the same time stamp; they are applied first, then it
 * (exits of inner regions before outer ones, whatever the file's order; counted
 * in totals.reordered_exits). Any other event, or a later time, applies it first. Before its first and after
 * its last event a processor is idle. For PICL the event numbers map to classes
 * in rt_picl_source.h (so -52, -55, -56, -61, -31, -401, -402, -601 idle).
 *
 * A RECV is held until the LEAVE that follows it on its processor: bytes go to
 * the region that LEAVE closes, and the receive "ended a wait" (critical path)
 * when that region's class is idle and the receive came after the region
 * began (of several receives it completes, the one received last, of equal
 * times the one sent last; never a tachyon); without such a LEAVE (another
 * event comes first) the innermost open region stands in.
 *
 * Records: events of one processor that follow each other with the same
 * non-NULL ev.raw are one record of the file (a PICL send entry gives ENTER +
 * SEND); step / run_until / records count records, events() counts events.
 *
 * Consumers that want every interval (MEDEA) set on_interval: it is called once
 * per region occurrence when it closes (post-order: children before parents),
 * with its depth and parent, and at the end for regions left open.
 */
#ifndef RT_REPLAY_H
#define RT_REPLAY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_tevent.h"

typedef enum { RT_STATE_IDLE = 0, RT_STATE_OVERHEAD = 1, RT_STATE_BUSY = 2, RT_NSTATES = 3 } rt_pstate;

/* Name of a state: "idle", "overhead", "busy". */
const char *rt_state_name(int state);

/* Data values of entry / exit records an interval carries. */
#define RT_INTERVAL_DATA 4

/* One event occurrence on one processor, reported when it closes. */
typedef struct rt_interval {
    int proc;
    int task;             /* the ENTER's task field (PICL: the record's TASK) */
    int event;            /* region id (PICL: the event type) */
    double entry, exit;   /* times */
    int depth;            /* open non-tracing events enclosing it (0 = outermost); tracing events: -1 */
    int64_t id;           /* unique, in order of entry */
    int64_t parent;       /* id of the innermost enclosing non-tracing event at entry, -1 none */
    int parent_event;     /* its event type (meaningless when parent < 0) */
    int user_depth;       /* enclosing user events (0 = not inside one) */
    int sys_depth;        /* enclosing non-tracing system events (0 = outermost system event) */
    double bytes_out;     /* bytes sent (send / collective entries), 0 if none */
    double bytes_in;      /* bytes received (receive / collective exits), 0 if none */
    int closed;           /* 1 closed by its exit record, 0 closed by the end of the trace */
    int unnested;         /* 1 when it closed while regions opened inside it were still open */
    /* the entry and exit records' data values (the first RT_INTERVAL_DATA; e.g. I/O sizes) */
    int entry_ndata, exit_ndata;
    double entry_data[RT_INTERVAL_DATA], exit_data[RT_INTERVAL_DATA];
} rt_interval;

/* A paired message. */
typedef struct rt_message {
    int src, dst;
    long tag;
    double bytes;
    double send_time, recv_time;
    int tachyon;          /* received before it was sent */
    int comm;             /* communicator, -1 none (PICL) */
} rt_message;

/* One row of the per-processor per-event-type table. */
typedef struct rt_event_stat {
    int event;
    int64_t count;        /* occurrences (entries) */
    double time;          /* summed exit - entry of closed occurrences */
    double bytes;         /* bytes_out + bytes_in */
    double bytes_out, bytes_in;
} rt_event_stat;

/* Read-only view of one processor. */
typedef struct rt_replay_proc {
    int id;
    int seen;             /* 1 once a record of it was replayed */
    double first, last;   /* times of its first and last record */
    int state;            /* current rt_pstate */
    int task;             /* current task: innermost open user event, -1 none */
    int depth;            /* open non-tracing events */
    double time_in[RT_NSTATES]; /* seconds in each state, inside the window, so far */
    int64_t sent, received;
    double sent_bytes, received_bytes;
    int64_t queue;        /* messages sent to it, not yet received */
    double queue_bytes;
    int64_t max_queue;    /* high-water marks (reached by sends inside the window) */
    double max_queue_bytes;
    int64_t records;      /* records of this processor replayed */
    int nevents;          /* rows in the event table */
    int64_t events;       /* events of this processor replayed */
    int64_t enters;       /* its region entries (Paraver: its state records) */
    int ended;            /* 1 once its last event (rt_replay_opts.proc_events) was replayed: idle from then */
    int64_t pending_out;  /* messages it sent that are not yet received */
    double pending_out_bytes;
} rt_replay_proc;

/*
 * One collective instance: the k-th occurrence (index) of one collective on
 * each participant. An occurrence is a COLL_BEGIN .. COLL_END pair (keyed by the
 * innermost open region and the communicator), or, where the source gives no
 * COLL events inside it, a region of class RT_TC_COLLECTIVE (PICL -750..-799),
 * keyed by the region and communicator -1. It is complete when as many
 * processors took part as the communicator has members (without one: the
 * processors of the trace - the prescan's count when rt_replay_opts.proc_events
 * is given, else the processors defined so far); rt_replay_finish reports the
 * incomplete ones with complete = 0. Pointers are valid during the callback only.
 */
typedef struct rt_collective {
    int region;           /* region id (-1 none) */
    int comm;             /* communicator, -1 none */
    int64_t index;        /* k: 0 for the first occurrence on each participant */
    int nparts;           /* participants */
    const int *procs;     /* their processors, in the order they finished */
    const double *begin, *end; /* per participant */
    const double *bytes;  /* per participant: bytes sent + received in its occurrence */
    double first_begin, last_end;
    double total_bytes;
    int complete;
} rt_collective;

/* A task (user event type) over all processors. */
typedef struct rt_task_stat {
    int task;
    double first_start, last_end; /* last_end < first_start while never ended */
    int64_t count;        /* occurrences */
    int active;           /* processors currently inside it */
    int open_before;      /* occurrences begun before the window, still open (counted once it starts) */
} rt_task_stat;

/* Replay options; zero-initialised means no window, no callbacks, no critical path. */
typedef struct rt_replay_opts {
    int window;           /* 1: accumulate only over [start, stop] */
    double start, stop;
    int critical_path;    /* 1: keep the per-processor waits for rt_replay_critical_path */
    void *ud;             /* passed to every callback */
    void (*on_warning)(void *ud, const char *msg);  /* unmatched exits, events left open, tachyons, ... */
    void (*on_interval)(void *ud, const rt_interval *iv);
    void (*on_message)(void *ud, const rt_message *m);  /* when a message pairs */
    void (*on_state)(void *ud, int proc, double time, int old_state, int new_state);
    void (*on_event)(void *ud, const rt_tevent *ev);  /* every event, before it is replayed */
    /* a message leaves (recv_time NAN; tachyon 1 when its receive was already seen) */
    void (*on_send)(void *ud, const rt_message *m);
    /* the current task (innermost open user region, -1 none) of proc changes at time t */
    void (*on_task)(void *ud, int proc, double t, int old_task, int new_task);
    /* a collective instance completes (or, at the end, is left incomplete) */
    void (*on_collective)(void *ud, const rt_collective *c);
    /*
     * Per processor the number of events the source gives it (rt_prescan's
     * procs[i].events); copied by rt_replay_new. With it a processor turns idle
     * at its own last event, when the replay reaches it (open regions closed,
     * on_state / on_task called at that time); without it every processor
     * turns idle in rt_replay_finish, in order of its last event time.
     */
    const int64_t *proc_events;
    int nproc_events;
    int matrix;           /* 1: keep the sender x receiver matrix (rt_replay_matrix) */
    /*
     * A distributed replay (core/par/rt_par_route.h): with own_size > 1 this
     * replay is rank own_rank's part of a job of own_size ranks; its own
     * processors are those rt_par_owns(p, own_rank, own_size). It is fed its own
     * processors' events and the SEND / RECV records whose peer it owns. Events
     * of other processors only pair messages: they change no processor's
     * counts, states, tables, tasks or totals; a message is counted (totals,
     * on_message) by the owner of its receiver; warnings are raised only about
     * own processors, each kept with the key of its event (rt_replay_warning_key)
     * so the ranks' warnings merge in serial order. Results of other processors
     * are not meaningful. 0 or 1: the whole trace.
     */
    int own_rank, own_size;
} rt_replay_opts;

typedef struct rt_replay rt_replay;

/*
 * Extra listeners of states, tasks, messages, collectives, events and intervals, called
 * after the opts' callbacks, for consumers that feed on the replay in C
 * (rt_timeline, rt_pg_view): up to
 * RT_REPLAY_MAXTAPS per replay. add: RT_OK or RT_ERANGE when full; remove
 * drops every tap with that ud.
 */
#define RT_REPLAY_MAXTAPS 8
typedef struct rt_replay_tap {
    void *ud;
    void (*on_state)(void *ud, int proc, double time, int old_state, int new_state);
    void (*on_task)(void *ud, int proc, double t, int old_task, int new_task);
    /* as the opts' callbacks of the same names (any may be NULL) */
    void (*on_send)(void *ud, const rt_message *m);
    void (*on_message)(void *ud, const rt_message *m);
    void (*on_collective)(void *ud, const rt_collective *c);
    void (*on_event)(void *ud, const rt_tevent *ev);
    void (*on_interval)(void *ud, const rt_interval *iv);
} rt_replay_tap;
int rt_replay_add_tap(rt_replay *rp, const rt_replay_tap *tap);
void rt_replay_remove_tap(rt_replay *rp, void *ud);

/*
 * New engine over a source (not owned; free it after the replay). The source's
 * warnings join the replay's when it has no on_warning of its own. src may be
 * NULL: then feed events (rt_replay_feed_event) and define regions in
 * rt_replay_defs. Every format, PICL included, enters as a source (PICL's
 * options, such as compstats, are the source's: rt_picl_source.h). opts may
 * be NULL. NULL on allocation failure.
 */
rt_replay *rt_replay_new(rt_tsource *src, const rt_replay_opts *opts, rt_err *err);
void rt_replay_free(rt_replay *rp);

/* Replay one event. RT_OK, RT_ENOMEM, or RT_EINVAL for a processor out of range. */
int rt_replay_feed_event(rt_replay *rp, const rt_tevent *ev, rt_err *err);

/* The definitions in use: the source's, or the replay's own when it has no source. */
rt_tdefs *rt_replay_defs(const rt_replay *rp);
/* The source (NULL when events are fed). */
rt_tsource *rt_replay_source(const rt_replay *rp);

/*
 * Close the replay: account states up to each processor's last record and the
 * global end, close events left open (warnings), warn about unpaired messages.
 * Idempotent; called by step / run at the end of the source.
 */
int rt_replay_finish(rt_replay *rp, rt_err *err);

/*
 * Replay up to n records from the source (*done gets how many). Returns RT_OK,
 * RT_EEOF when the trace ended (finish done), or an error from the source.
 */
int rt_replay_step(rt_replay *rp, int64_t n, int64_t *done, rt_err *err);
/* Replay every record with time <= t; RT_EEOF when the trace ended. */
int rt_replay_run_until(rt_replay *rp, double t, rt_err *err);
/* Replay to the end (then finish). RT_OK or an error. */
int rt_replay_run(rt_replay *rp, rt_err *err);

/*
 * Time of the next record the source will give, without replaying it: returns
 * 1 and sets *t, 0 at the end (or without a source), or -status on a read error.
 */
int rt_replay_next_time(rt_replay *rp, double *t, rt_err *err);

/* ---- views ---- */
double rt_replay_now(const rt_replay *rp);        /* time of the last replayed record */
int rt_replay_finished(const rt_replay *rp);
int64_t rt_replay_records(const rt_replay *rp);   /* records replayed */
int64_t rt_replay_events(const rt_replay *rp);    /* events replayed */
/* Global first / last record time (+inf / -inf before any record). */
void rt_replay_span(const rt_replay *rp, double *t0, double *t1);
/* Processors: ids 0 .. nprocs-1 (slots never seen have seen == 0). */
int rt_replay_nprocs(const rt_replay *rp);
const rt_replay_proc *rt_replay_proc_get(const rt_replay *rp, int id);
/* Region table of a processor, nevents rows sorted by region id (NULL if none). */
const rt_event_stat *rt_replay_proc_events(const rt_replay *rp, int id);
/* Open regions of a processor (ids), outermost first; *n gets the count. */
const int *rt_replay_proc_stack(const rt_replay *rp, int id, int *n);
/* Tasks sorted by task number. */
int rt_replay_ntasks(const rt_replay *rp);
const rt_task_stat *rt_replay_tasks(const rt_replay *rp);

/* Message totals. */
typedef struct rt_replay_totals {
    int64_t messages;     /* paired */
    int64_t tachyons;
    int64_t pending;      /* sent, not yet received */
    double pending_bytes;
    int64_t unmatched_recv; /* receives with no send yet (tachyons in waiting) */
    int64_t warnings;
    int64_t unmatched_exits, left_open;
    int64_t unnested_exits;  /* exits closing a region of their group that is not the innermost open one */
    int64_t reordered_exits; /* outer exits applied after the same-time inner exits that followed them */
    int64_t collectives;  /* COLL_END events */
    int64_t coll_instances;  /* collective instances reported (complete or not) */
    double coll_bytes;       /* their bytes (participants' sent + received) */
    int64_t max_pending;     /* high-water marks of pending / pending_bytes */
    double max_pending_bytes;
    int64_t kinds[RT_TE_KIND_COUNT]; /* events replayed by kind (rt_te_kind) */
} rt_replay_totals;
void rt_replay_totals_get(const rt_replay *rp, rt_replay_totals *t);

/* Warning messages kept (the first RT_REPLAY_KEEP_WARNINGS; all go to on_warning; totals.warnings
 * counts them all). A warning about an event names its place: the line in a text trace, the
 * processor and the event's position among its events ("event K of NAME") in a binary one. */
#define RT_REPLAY_KEEP_WARNINGS 200
int rt_replay_nwarnings(const rt_replay *rp);
const char *rt_replay_warning(const rt_replay *rp, int i);

/*
 * The serial-order key of kept warning i: the key of the event that raised it
 * when the source keeps keys (rt_tsource.has_key); warnings raised when the
 * replay finishes sort after every event: {INT64_MAX, the processor's last
 * time (order-preserving bits), processor}, then {INT64_MAX, UINT64_MAX, 0}.
 * {0, 0, events replayed before it} when the source has no keys.
 */
void rt_replay_warning_key(const rt_replay *rp, int i, rt_tkey *key);

/* The words of the end-of-replay warning about n unpaired messages: which 0 sent and never
 * received, 1 received with no send (snprintf's contract). A distributed run tells them once,
 * with the job's sums. */
int rt_replay_unpaired_warning(int which, int64_t n, char *buf, size_t cap);

/* Call fn for every pending message (sent, not received), oldest first per key. */
void rt_replay_pending(const rt_replay *rp, void (*fn)(void *ud, const rt_message *m), void *ud);

/*
 * The sender x receiver matrix (opts.matrix): n x n row-major arrays, row =
 * sender, column = receiver, n >= the processors seen (rows beyond are zero).
 * Pending: sent, not yet received; cumulative: every send so far (a tachyon's
 * send included). Pointers valid until the next replayed event. *n = 0 and
 * NULLs when the matrix is off.
 */
typedef struct rt_replay_matrix_view {
    int n;
    const int64_t *pending_count, *total_count;
    const double *pending_bytes, *total_bytes;
} rt_replay_matrix_view;
void rt_replay_matrix(const rt_replay *rp, rt_replay_matrix_view *m);

/* ---- critical path ---- */

typedef struct rt_cp_segment {
    int proc;
    double from, to;      /* on proc from .. to */
} rt_cp_segment;

typedef struct rt_critical_path {
    double length;        /* end - start of the path, seconds */
    double start, end;
    int nsegments;
    rt_cp_segment *segments;  /* in time order */
    int nmessages;
    rt_message *messages;     /* the messages jumped along, in time order */
} rt_critical_path;

/*
 * Compute the critical path after the replay finished (needs opts.critical_path):
 * from the processor whose last record is latest, walk back in time; at the
 * latest receive that ended a wait of the processor (above: its arrival ended
 * it, whenever the message was sent), jump to the sender at the send time;
 * with none left, stop at the processor's first record. Fills *cp (free with
 * rt_critical_path_clear). RT_ESTATE when not finished or not enabled.
 */
int rt_replay_critical_path(const rt_replay *rp, rt_critical_path *cp, rt_err *err);
void rt_critical_path_clear(rt_critical_path *cp);

#endif
