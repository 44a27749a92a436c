/*
 * rt_density.h - a whole-window picture of a replay in bounded memory, for
 * `retrace paragraph --static`: the state raster (rt_timeline) of a chosen
 * subset of processors, and the messages between them either kept one by one
 * (up to max_lines) or, beyond that, folded into a per-pixel density of the
 * lines from (send time, sender row) to (receive time, receiver row).
 *
 * Feed it from a replay (rt_density_attach sets on_state / on_message in the
 * options before rt_replay_new), run the replay, then rt_density_finish.
 * Memory: the raster, the density grid and max_lines lines, whatever the
 * trace's length.
 */
#ifndef RT_DENSITY_H
#define RT_DENSITY_H

#include <stdint.h>

#include "rt_error.h"
#include "rt_replay.h"
#include "rt_timeline.h"

typedef struct rt_density_opts {
    int cols, rows;       /* pixel columns and at most this many rows (rows used: min(rows, nsel)) */
    double t0, t1;        /* the window, t0 < t1 */
    int nprocs;           /* processor ids 0 .. nprocs - 1 may appear */
    int nsel;             /* chosen processors (0: all nprocs) ... */
    const int *sel;       /* ... their ids in drawing order (copied) */
    int max_lines;        /* messages kept one by one before switching to density (>= 0) */
    int part, parts;      /* parts > 1: this raster holds part `part` of a picture split over
                             `parts` (the ranks of an MPI job): the processors rank `part` owns
                             (rt_par_owns, core/par/rt_par_route.h: open the distributed source
                             first, it sets the rule) and the messages they receive;
                             rt_density_reduce sums the parts */
} rt_density_opts;

typedef struct rt_density_line {
    int src, dst;         /* positions in the selection (0 .. nsel - 1) */
    double send, recv;
} rt_density_line;

typedef struct rt_density rt_density;

int rt_density_new(const rt_density_opts *o, rt_density **out, rt_err *err);
void rt_density_free(rt_density *d);
/* Set o->on_state, o->on_message and o->ud to feed d (o's other fields kept). */
void rt_density_attach(rt_density *d, rt_replay_opts *o);
/*
 * Account every processor's state up to the window's end (after the replay
 * ran); the lines kept are put in one order (send, receive, sender, receiver)
 * so the picture does not depend on the order the messages arrived in.
 */
void rt_density_finish(rt_density *d);
/*
 * Collective over the MPI job (rt_par.h), after rt_density_finish on every
 * rank, each holding its part (opts part = rank, parts = size): rank 0's d
 * becomes the whole picture, cell for cell, line for line and count for count
 * what one process would have made (raster cells are whole units, so their
 * sums do not depend on the order). Other ranks' d are left partial. Serial
 * (or parts <= 1): nothing to do. RT_OK, or an error every rank returns.
 */
int rt_density_reduce(rt_density *d, rt_err *err);

const rt_timeline *rt_density_timeline(const rt_density *d);
int rt_density_nsel(const rt_density *d);
int rt_density_sel(const rt_density *d, int i);   /* the processor id at position i */
/* Messages with both ends chosen and some part in the window; tachyons among them. */
int64_t rt_density_messages(const rt_density *d);
int64_t rt_density_tachyons(const rt_density *d);
/* The lines kept (NULL, 0 once the count passed max_lines: then use the density). */
const rt_density_line *rt_density_lines(const rt_density *d, int *n);
/* Lines crossing cell (c, r) (rows as the timeline's: r = position * rows / nsel), and the largest. */
uint32_t rt_density_count(const rt_density *d, int c, int r);
uint32_t rt_density_max(const rt_density *d);
/*
 * Write the rows x cols grid row-major into out (int32, row 0 first): which = 0
 * the dominant state (0 idle, 1 overhead, 2 busy, -1 empty); which = 1 the
 * density level 0 .. levels - 1 on a log scale of the count (-1 none); which =
 * 2 the mix of states in steps of 1 / levels: nb * (levels + 1) + no, with nb,
 * no the busy and overhead shares rounded to levels-ths (idle the rest; -1 empty).
 */
void rt_density_fill(const rt_density *d, int which, int levels, int32_t *out);



/* ---- level-of-detail pyramids (the HTML timeline) ---- */

/* The density counts, rows x cols row-major (row 0 first). */
const uint32_t *rt_density_counts(const rt_density *d);
/* Halve the columns of a rows x cols grid (cols2 = (cols + 1) / 2): each new cell the sum of a pair. */
void rt_density_halve(const float *in, int cols, int rows, float *out);
void rt_density_halve_counts(const uint32_t *in, int cols, int rows, uint32_t *out);
/* Per cell of three time grids: 0 empty, 1 idle, 2 overhead, 3 busy (ties: busy, overhead, idle). */
void rt_density_dominant3(const float *idle, const float *overhead, const float *busy, size_t n, uint8_t *out);
/* Per cell: 0 no line, else 1 .. levels on a log scale of the count over the grid's largest. */
void rt_density_levels(const uint32_t *count, size_t n, int levels, uint8_t *out);
#endif
