/*
 * rt_prescan.h - the pre-pass a live replay needs before it starts: one
 * streaming pass over a source (any format the neutral event stream carries)
 * that reports what displays must know up front - the processors, the span,
 * each processor's first and last event, how many messages and bytes are ever
 * pending at once, the largest incoming queue, the tasks, and a default time
 * unit and scale width.
 *
 * The pass is a real replay without listeners (rt_replay.h), so its numbers are
 * the replay's own; memory grows with processors, regions, tasks and the
 * messages pending at one time, never with the trace length (the critical
 * path, when asked for, keeps its waits in a temporary file). The source is rewound
 * afterwards, ready for the real replay; give that replay the per-processor
 * event counts (rt_replay_opts.proc_events = procs' events, see
 * rt_prescan_events) so processors turn idle at their own last event.
 *
 * Time unit: the power of ten, in seconds, that makes the span between 1000
 * and 10000 units (at most 1 s; 1 us for an empty span) - the same rule as
 * retrace.replay.time_unit. Scale width (units shown across a scrolling
 * display): a quarter of the span in units rounded up to 1, 2 or 5 times a
 * power of ten, so a scrolling display pages about four times over a run. The
 * seed leaves ParaGraph's heuristic unstated; these are retrace's choices.
 */
#ifndef RT_PRESCAN_H
#define RT_PRESCAN_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_replay.h"
#include "rt_tevent.h"

typedef struct rt_prescan_proc {
    int id;
    int seen;             /* 0: a processor slot with no event (first / last meaningless) */
    double first, last;   /* times of its first and last event */
    int64_t records, events;
    int64_t enters;       /* its region entries (Paraver: its state records, bar empty ones) */
    int64_t max_queue;    /* its incoming queue's high-water mark, messages and bytes */
    double max_queue_bytes;
} rt_prescan_proc;

typedef struct rt_prescan {
    const char *format;   /* the source's format name (static) */
    int nprocs;           /* processors 0 .. nprocs - 1 */
    rt_prescan_proc *procs;
    double t0, t1;        /* span: first and last event (t0 > t1 when the trace is empty) */
    int64_t records, events;
    int64_t messages;     /* paired point-to-point messages */
    int64_t collectives;  /* collective instances */
    int64_t max_pending;  /* most messages sent and not yet received at one time */
    double max_pending_bytes; /* most bytes in such messages at one time */
    int64_t max_queue;    /* largest incoming queue (messages) of any processor */
    double max_queue_bytes;
    int max_queue_proc;   /* the processor where max_queue was reached first (-1 none) */
    int outside_idle;     /* 1: time outside every region is idle (Paraver), so a processor
                           * with no region entry (procs[].enters == 0) is idle all the run */
    int ntasks;
    int *tasks;           /* task ids, ascending */
    double unit;          /* default time unit, seconds */
    double scale_width;   /* default scale width, in units */
    int64_t *proc_events; /* procs[i].events as one array, for rt_replay_opts.proc_events */
    int has_cp;           /* rt_prescan_run_cp with critical_path: */
    rt_critical_path cp;  /* the critical path of the whole trace */
    rt_replay_totals cp_totals; /* the pass's totals (tachyons, warnings, ...) */
} rt_prescan;

/*
 * Read src from its current position to the end, fill *ps, rewind src.
 * RT_OK, or the source's error (err names file, place, field), RT_ENOMEM, or
 * the rewind's error. *ps is zeroed first; free it with rt_prescan_clear.
 */
int rt_prescan_run(rt_tsource *src, rt_prescan *ps, rt_err *err);
/* The same, and with critical_path the critical path of the trace in ps->cp (has_cp = 1)
 * from the same pass: one read gives the span, the counts and the path. */
int rt_prescan_run_cp(rt_tsource *src, rt_prescan *ps, int critical_path, rt_err *err);
void rt_prescan_clear(rt_prescan *ps);

/*
 * The pre-pass of a distributed replay (collective: every rank of the job
 * calls it): src is rank own_rank's part of own_size (rt_par_source_open), the
 * replay counts its own processors, and the parts are combined so that every
 * rank gets the whole trace's processors (each from its owner), span, records,
 * events, messages, incoming-queue marks, tasks, unit and scale width, equal
 * to the serial pass's. No part sees every message or collective at once:
 * max_pending, max_pending_bytes and collectives are -1 (unknown). src is not
 * rewound (a part is read once): open another for the replay. No critical path.
 */
int rt_prescan_run_part(rt_tsource *src, rt_prescan *ps, int own_rank, int own_size, rt_err *err);

/*
 * Check a window [from, to] (either may be +-inf: open) against the span of ps:
 * RT_OK when it overlaps [t0, t1]; RT_EINVAL with "window FROM .. TO s lies
 * outside the trace's span T0 .. T1 s (PATH)" when it does not (or the trace
 * has no event), or "window: FROM is after TO" when from > to.
 */
int rt_prescan_check_window(const rt_prescan *ps, const char *path, double from, double to, rt_err *err);

/* The default time unit and scale width for a span (seconds) - the rules above. */
double rt_prescan_unit(double span);
double rt_prescan_scale_width(double span, double unit);

#endif
