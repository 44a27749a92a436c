/*
 * rt_timeline.h - a raster of processor states and tasks over time, fed by the
 * replay in C, so that a Gantt chart, a utilization count or a task display
 * costs pixels per frame, not records.
 *
 * The raster has W columns over [t0, t1] (column c covers t0 + c * dt ..
 * t0 + (c + 1) * dt, dt = (t1 - t0) / W) and R rows. With P processors and
 * P <= R there is one row per processor (rows = P); with P > R several share a
 * row: processor p is in row p * R / P (consecutive processors together). Each
 * cell holds processor-seconds, counted in whole 1 / 2^32-ths of a column so
 * that a sum over processors does not depend on their order: the time the row's processors spent in each
 * state (idle, overhead, busy: rt_pstate) and in each tracked task inside the
 * column's time range. Tasks: up to RT_TIMELINE_MAXTASKS given at creation
 * have a slot each; any other task adds to the "other" slot (index ntasks);
 * time outside every task is in no slot.
 *
 * A processor is idle until the replay says otherwise (before its first event)
 * and in whatever state it was last told after; time is added when a state or
 * task ends (rt_timeline_state / rt_timeline_task, usually from a replay tap,
 * rt_timeline_attach) and, for the current states, up to rt_timeline_advance's
 * time (call it with the replay's time before reading the raster; the pending
 * part is re-added on each advance without double counting). Moving the window
 * (rt_timeline_set_window) clears the cells but keeps each processor's state,
 * so a jump-scrolled display keeps counting from its new left edge.
 */
#ifndef RT_TIMELINE_H
#define RT_TIMELINE_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_grid.h"
#include "rt_replay.h"

#define RT_TIMELINE_MAXTASKS 32
/* Cells count time in whole 1 / RT_TIMELINE_UNIT-ths of a column (exact sums in any order). */
#define RT_TIMELINE_UNIT ((int64_t)1 << 32)

typedef struct rt_timeline_opts {
    int cols, rows;       /* W >= 1, R >= 1 (rows used: min(R, nprocs)) */
    int nprocs;           /* P >= 1 */
    double t0, t1;        /* t0 < t1, finite */
    int ntasks;           /* tracked tasks (0 .. RT_TIMELINE_MAXTASKS) */
    const int *tasks;     /* their ids (copied) */
    const int *place;     /* place of each processor in the rows' order, a permutation of
                             0 .. P-1 (copied; NULL: p): row of p = place[p] * R / P */
} rt_timeline_opts;

typedef struct rt_timeline rt_timeline;

/* RT_OK and *out, RT_EINVAL (a message naming the option) or RT_ENOMEM. */
int rt_timeline_new(const rt_timeline_opts *o, rt_timeline **out, rt_err *err);
void rt_timeline_free(rt_timeline *tl);

/* Feed: processor proc changes state / task at time t (as the replay's callbacks). */
void rt_timeline_state(rt_timeline *tl, int proc, double t, int old_state, int new_state);
void rt_timeline_task(rt_timeline *tl, int proc, double t, int old_task, int new_task);
/*
 * Leave processor proc out: none of its time is counted here (its time is
 * counted by another raster, e.g. another rank's of an MPI job). Call before feeding.
 */
void rt_timeline_leave_out(rt_timeline *tl, int proc);
/* Account every processor's current state and task up to t (not beyond t1). */
void rt_timeline_advance(rt_timeline *tl, double t);
/* Feed from rp through a tap (rt_replay_add_tap); RT_OK or RT_ERANGE. Detach before freeing either. */
int rt_timeline_attach(rt_timeline *tl, rt_replay *rp);
void rt_timeline_detach(rt_timeline *tl, rt_replay *rp);
/* Move the window: cells cleared, processor states kept. RT_EINVAL unless t0 < t1. */
int rt_timeline_set_window(rt_timeline *tl, double t0, double t1, rt_err *err);

/*
 * Scroll by k whole columns (k > 0: later, k < 0: earlier): the window moves by
 * k * dt, the cells still inside it keep their times, the k new ones start
 * empty and fill from the processors' states as they are fed (going back, the
 * new cells stay empty: the raster keeps no history). Exact as long as
 * no state or task change later than the window's right edge was fed before
 * the scroll - scroll first, then replay up to the new edge (smooth scrolling).
 */
void rt_timeline_scroll(rt_timeline *tl, int k);

/* ---- reading ---- */
int rt_timeline_cols(const rt_timeline *tl);
int rt_timeline_rows(const rt_timeline *tl);
int rt_timeline_ntasks(const rt_timeline *tl);
void rt_timeline_window(const rt_timeline *tl, double *t0, double *t1);
/* The row of processor p (-1 out of range); the first processor of row r and how many share it. */
int rt_timeline_row_of(const rt_timeline *tl, int p);
int rt_timeline_row_procs(const rt_timeline *tl, int r, int *count);
/* Processor-seconds in state s (rt_pstate) / task slot k (0 .. ntasks, ntasks = other) in cell (c, r). */
double rt_timeline_state_time(const rt_timeline *tl, int c, int r, int s);
double rt_timeline_task_time(const rt_timeline *tl, int c, int r, int k);
/* The state with the most time in the cell (ties: busy over overhead over idle); -1 when the cell has none. */
int rt_timeline_dominant(const rt_timeline *tl, int c, int r);
/* The task slot with the most time; -1 when no task time. */
int rt_timeline_dominant_task(const rt_timeline *tl, int c, int r);
/*
 * Write the raster into g (cols x rows; RT_ERANGE otherwise): which = 0 the
 * dominant state (0 idle, 1 overhead, 2 busy, -1 empty), which = 1 the dominant
 * task slot (-1 none).
 */
int rt_timeline_fill_grid(const rt_timeline *tl, int which, rt_grid *g, rt_err *err);
/*
 * The state cells as read (after rt_timeline_advance: with the current states'
 * parts), rows x cols x RT_NSTATES in RT_TIMELINE_UNIT-ths of a column; *n the
 * count. Writable, so that the rasters of disjoint processor sets (the ranks of
 * a job) can be summed into one, exactly.
 */
int64_t *rt_timeline_state_cells(rt_timeline *tl, size_t *n);

#endif
