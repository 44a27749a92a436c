/*
 * rt_pg_view.h - what ParaGraph's displays show, kept in C while a replay
 * (rt_replay.h) runs, so that animating a trace costs no Lua call per event
 * and memory grows with the processors and with what the displays still
 * show, not with the trace.
 *
 * The view feeds on the replay through a tap (rt_replay_add_tap) and keeps:
 *   - per processor its state (rt_pstate: 0 idle, 1 overhead, 2 busy - the one
 *     encoding of C and Lua) and its state changes since the oldest time a
 *     display still draws (rt_pg_view_keep lets older ones go), the time in
 *     each state and the concurrency profile (how long exactly k processors
 *     were in each state), both over the window [from, to];
 *   - the messages received since the keep time (for lines over time), the
 *     changes of the pending count and volume (deltas, for traffic over time)
 *     and the pending totals before them (base);
 *   - a sparse sender x receiver matrix (count and bytes of the messages sent
 *     inside the window, one entry per pair that communicated);
 *   - per processor a bounded ring of the last messages it received and sent
 *     (node statistics);
 *   - the collective instances ending at or after the keep time;
 *   - tasks (the innermost open user region): per task its first start, last
 *     end, processors inside, processor-seconds; per processor its task and
 *     its time inside any task;
 *   - a ring of the last events replayed, for the Trace display and
 *     application displays (events of every format; when `batch` is set every
 *     event since the last rt_pg_view_take_events is kept instead).
 *
 * Idle before the first and after the last event: with cfg.last (each
 * processor's last event time, from the pre-pass) a processor turns idle at
 * that time, states the replay reports for it later are ignored; processors
 * whose last event is before a state change at t finish first (in order of
 * their last times), those at or before t when the view is synced to t.
 *
 * Times accumulate only after the view was told (rt_pg_view_sync): call it
 * with the replay's time before reading the times, profile or counts.
 */
#ifndef RT_PG_VIEW_H
#define RT_PG_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"
#include "rt_replay.h"

typedef struct rt_pg_view_config {
    int nprocs;           /* P >= 1 */
    double t0;            /* start of the run (processors idle from here) */
    double from, to;      /* accumulation window (-inf / +inf: the whole run) */
    const double *last;   /* NULL, or nprocs last-event times (copied) */
    int ring;             /* messages kept per processor and direction (0: 16) */
    int records;          /* events kept for the Trace display (0: 64) */
    int batch;            /* 1: keep every event until taken (application displays) */
    const int *tasks;     /* tasks known before the run (the pre-pass's), listed from the start */
    int ntasks;
    /* NULL: view processor p is the replay's processor p. Else the replay's processors
     * shown, one per view processor (source[p] for p < nprocs, distinct, each below
     * nsource, the replay's count): the others are left out - their states and tasks,
     * messages and pending changes with either end among them, their events - and
     * collectives count only the participants shown. Processor numbers the view gives
     * are its own (0 .. nprocs-1), except the replay's in events (rt_pg_view_event). */
    const int *source;
    int nsource;
} rt_pg_view_config;

/* A message as the view keeps it. */
typedef struct rt_pg_msg {
    int src, dst;
    long tag;
    double bytes, send, recv;
    int64_t seq;          /* 1-based rank of its receipt among all messages the view saw */
} rt_pg_msg;

/* A change of the pending set: at time t, count by dc, bytes by db, to dst. */
typedef struct rt_pg_delta {
    double t;
    int dc;
    int dst;
    double db;
    int64_t seq;          /* 1-based rank among all deltas the view saw */
} rt_pg_delta;

/* A collective instance: its span, lowest and highest participant, participants, bytes. */
typedef struct rt_pg_coll {
    double t0, t1;
    int lo, hi, n, region;
    double bytes;
    int64_t seq;          /* 1-based rank of its completion among all instances the view saw */
} rt_pg_coll;

/* A pair of the matrix. */
typedef struct rt_pg_pair {
    int src, dst;
    int64_t count;
    double bytes;
} rt_pg_pair;

/* A task. */
typedef struct rt_pg_task {
    int id;
    double start, stop;   /* first start, last end (NAN before) */
    double ptime;         /* processor-seconds inside it, closed stays */
    int inside;           /* processors in it now */
} rt_pg_task;

/* A state change: processor turns state s at t. */
typedef struct rt_pg_change {
    double t;
    int s;
} rt_pg_change;

typedef struct rt_pg_view rt_pg_view;

/*
 * A view fed by rp from now on (make it before the replay runs). rp must
 * outlive the view, or rt_pg_view_detach be called first. NULL with err set
 * on a bad configuration (RT_EINVAL), no room for another tap (RT_ERANGE) or
 * no memory.
 */
rt_pg_view *rt_pg_view_new(rt_replay *rp, const rt_pg_view_config *cfg, rt_err *err);
/* Detach (when attached) and free; NULL allowed. */
void rt_pg_view_free(rt_pg_view *v);
/* Stop feeding on the replay (it goes away); what the view holds stays readable. */
void rt_pg_view_detach(rt_pg_view *v);
/* The replay was freed already: forget it without touching it. */
void rt_pg_view_forget_replay(rt_pg_view *v);

/* First failure to grow a list while fed (RT_ENOMEM), RT_OK if none. */
int rt_pg_view_status(const rt_pg_view *v);

/*
 * Bring the view to time t after the replay ran up to t: processors whose
 * last event is at or before t turn idle, times and the profile are accounted
 * up to t.
 */
void rt_pg_view_sync(rt_pg_view *v, double t);
/* Forget state changes (all but the last at or before t), messages received,
 * deltas and collectives ending before t; task changes likewise before
 * task_t (a task display may draw its window from them while the others
 * draw only what is new). The keep times only move forward. */
void rt_pg_view_keep(rt_pg_view *v, double t, double task_t);

/* Items the view keeps for the displays now (state and task changes, messages,
 * deltas, collectives) and the most it kept at once, seen at each keep call
 * before it dropped the older ones (NULL allowed). */
size_t rt_pg_view_kept(const rt_pg_view *v, size_t *peak);

/* ---- snapshots ---- */
int rt_pg_view_nprocs(const rt_pg_view *v);
double rt_pg_view_now(const rt_pg_view *v);
/* The state of processor p now. */
int rt_pg_view_state(const rt_pg_view *v, int p);
/* A grid of P x 1 cells, cell p the state of processor p, filled when called
 * (owned by the view; rt_grid_retain it to keep it past the view). */
rt_grid *rt_pg_view_state_grid(rt_pg_view *v);
/* Processors in state s now. */
int rt_pg_view_count(const rt_pg_view *v, int s);
/* Seconds processor p spent in state s inside the window up to the sync time. */
double rt_pg_view_time_in(const rt_pg_view *v, int p, int s);
/* Seconds (inside the window) during which exactly k processors were in state s. */
double rt_pg_view_profile(const rt_pg_view *v, int s, int k);
/* State changes of p kept (oldest first; the first may be at -inf). */
const rt_pg_change *rt_pg_view_changes(const rt_pg_view *v, int p, size_t *n);
/*
 * Time per state per column for processor p over [lo, hi] in W columns, up to
 * the view's time: out[c * RT_NSTATES + s] += seconds (out has W * 3 doubles).
 */
void rt_pg_view_raster(const rt_pg_view *v, int p, double lo, double hi, int W, double *out);
/*
 * Per column of [lo, hi] in W columns, up to min(now, hi): out[c] = 1 when p spent
 * more than half the column outside idle, else 0 (the runs a spacetime line draws).
 */
void rt_pg_view_active_columns(const rt_pg_view *v, int p, double lo, double hi, int W, unsigned char *out);
/*
 * Per column of [lo, hi] in W columns, up to min(now, hi): the task p spent most
 * of the column in (ties: the smaller id), when that is at least half the
 * column, else -1; reduced mod `mod` when mod > 0 (a palette's size).
 */
void rt_pg_view_task_columns(const rt_pg_view *v, int p, double lo, double hi, int W, double now, int mod,
                             int32_t *out);
/* Busy fraction of p over [a, b] (from the changes kept); a >= b: 1 if busy now, else 0. */
double rt_pg_view_busy_fraction(const rt_pg_view *v, int p, double a, double b);

/* Messages received since the keep time, in order of receipt. */
const rt_pg_msg *rt_pg_view_messages(const rt_pg_view *v, size_t *n);
/* Messages received since the keep time whose seq is above `after` (the newest
 * ones; a display that drew up to seq s asks for what came since). */
const rt_pg_msg *rt_pg_view_messages_after(const rt_pg_view *v, int64_t after, size_t *n);
/* Messages received in all (the seq of the newest). */
int64_t rt_pg_view_messages_seen(const rt_pg_view *v);
/* Pending deltas since the keep time; base: pending count and bytes before them. */
const rt_pg_delta *rt_pg_view_deltas(const rt_pg_view *v, size_t *n, int64_t *base_count, double *base_bytes);
/* Deltas kept whose seq is above `after`; *seen: deltas seen in all. */
const rt_pg_delta *rt_pg_view_deltas_after(const rt_pg_view *v, int64_t after, size_t *n, int64_t *seen);
/* Collective instances kept, in order of completion. */
const rt_pg_coll *rt_pg_view_collectives(const rt_pg_view *v, size_t *n);
/* Collective instances kept whose seq is above `after` (the newest ones). */
const rt_pg_coll *rt_pg_view_collectives_after(const rt_pg_view *v, int64_t after, size_t *n);
/* Collective instances seen in all. */
int64_t rt_pg_view_ncollectives(const rt_pg_view *v);

/*
 * The last messages processor p received (dir 0) or sent (dir 1), at most the
 * ring's size, oldest first, copied into out (room for cap); returns how many.
 */
int rt_pg_view_recent(const rt_pg_view *v, int p, int dir, rt_pg_msg *out, int cap);
int rt_pg_view_ring_size(const rt_pg_view *v);

/* Pairs of the matrix; rt_pg_view_pairs copies them sorted by (src, dst) into out (room for cap). */
size_t rt_pg_view_npairs(const rt_pg_view *v);
size_t rt_pg_view_pairs(const rt_pg_view *v, rt_pg_pair *out, size_t cap);
/* One pair's totals (0 when it never communicated). */
void rt_pg_view_pair(const rt_pg_view *v, int src, int dst, int64_t *count, double *bytes);

/* Tasks sorted by id; a processor's task now (-1 none) and since when. */
const rt_pg_task *rt_pg_view_tasks(const rt_pg_view *v, int *n);
int rt_pg_view_task_of(const rt_pg_view *v, int p, double *since);
/* Task changes of p kept (oldest first, s = the task or -1; the first may be at -inf). */
const rt_pg_change *rt_pg_view_task_changes(const rt_pg_view *v, int p, size_t *n);
/* Processor-seconds in task id up to t (open parts counted to t). */
double rt_pg_view_task_time(const rt_pg_view *v, int id, double t);
/* Seconds processor p spent inside any task up to t. */
double rt_pg_view_proc_task_time(const rt_pg_view *v, int p, double t);
/* The task entered last (-1 none). */
int rt_pg_view_latest_task(const rt_pg_view *v);

/*
 * Events kept: how many, and the i-th oldest (0 <= i < n) with its 1-based
 * index among all events replayed since the view was made. Pointers valid
 * until the replay runs again. When the source has records of its own
 * (rt_tsource.raw_size: PICL) one event is kept per record, its first,
 * and ev->raw is a copy of the record (rt_tsource_describe words it);
 * otherwise ev->raw is NULL.
 */
size_t rt_pg_view_nevents(const rt_pg_view *v);
const rt_tevent *rt_pg_view_event(const rt_pg_view *v, size_t i, int64_t *index);
/* The i-th kept event's record: the replay's record count (rt_replay_records) after its event. */
int64_t rt_pg_view_event_record(const rt_pg_view *v, size_t i);
/* Events replayed in all. */
int64_t rt_pg_view_events_seen(const rt_pg_view *v);
/* Forget the events kept (after an application display took them). */
void rt_pg_view_take_events(rt_pg_view *v);
/*
 * One line for an event: "TIME  P<proc>  kind  name/region  bytes  to/from
 * peer  tag T  [data]", region names from defs (may be NULL). Returns the
 * length snprintf would write.
 */
int rt_pg_view_describe(const rt_tevent *ev, const rt_tdefs *defs, char *buf, size_t size);

/*
 * Trailing means over the continuous replay (ParaGraph's Kiviat diagram and
 * phase portrait). With smoothing S > 0 the view follows, from the next event
 * on, each processor's busy fraction over [t - S, t], the mean number of busy
 * processors and the mean pending count and volume over [t - S, t]. Each of
 * these is piecewise linear in t, with corners only at event times and event
 * times + S: the view evaluates them at every corner as the replay passes it,
 * so the high-water marks and the trajectory do not depend on when frames are
 * drawn. Memory: the changes of the last S seconds.
 *
 * The trajectory (x = mean pending, count or bytes by `bytes`, as a percent of
 * `top`; y = mean busy processors as a percent of P) is drawn into a raster of
 * cols x rows cells (x left to right, y bottom to top, 0..100 each, row 0 at
 * the top), a straight run of cells between consecutive corners; a cell holds
 * 1 + (the task most recently entered on any processor) mod `mod`, 0 when no
 * task was entered yet, -1 when the trajectory never passed. cols = 0: no raster.
 * Call before the replay runs; called again with the same smoothing and `bytes`
 * it adds the raster when there is none (a display that learns its size at
 * its first drawing) and takes the new top and mod. RT_EINVAL on bad
 * arguments, RT_ENOMEM.
 */
typedef struct rt_pg_trend_config {
    double smoothing;     /* S > 0 */
    int bytes;            /* x from the pending volume (1) or count (0) */
    double top;           /* x's 100 % (> 0; the pre-pass maximum) */
    int cols, rows;       /* raster size (0: none), at most 4096 each */
    int mod;              /* task colours (> 0) */
} rt_pg_trend_config;
int rt_pg_view_trend(rt_pg_view *v, const rt_pg_trend_config *cfg);
/* Processor p's busy fraction over [now - S, now] and its highest so far (0 before trend). */
double rt_pg_view_trend_busy(const rt_pg_view *v, int p, double *high);
/* The trajectory's point at the sync time and its last corner (percents; lx, ly
 * may be NULL); the raster (NULL without one; owned by the view). */
void rt_pg_view_trend_point(const rt_pg_view *v, double *x, double *y, double *lx, double *ly);
rt_grid *rt_pg_view_trend_grid(rt_pg_view *v);
/* Corners evaluated so far (the trajectory's vertices). */
int64_t rt_pg_view_trend_corners(const rt_pg_view *v);

#endif
