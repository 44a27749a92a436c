/*
 * rt_index_counters.h - internal to the index (rt_index.c): the pyramid of
 * per-column counter summaries, built from the samples as they stream and
 * read back by rt_index_counter_summary (rt_index.h).
 *
 * A counter is a step function on each processor: a sample's value holds until
 * that processor's next sample of the counter, the last one to the run's last
 * event. For every (processor, counter) pair with samples, each column of each
 * level keeps the least and largest value in force in it, the time-weighted
 * mean over the part of it that has a value, and that part's length. Level L
 * cuts the span from the origin into 2^L columns, as the state summaries do;
 * the finest level keeps at least IX_K_SAMPLES_PER_COLUMN samples per column of
 * a pair on average, and all levels of all pairs fit IX_K_CELL_BUDGET cells at
 * the finest. Memory of the build: the finest cells of the pairs met, never the
 * samples.
 *
 * Section layout (at the header's off_ksum, 8-aligned): ix_khead, then nrows
 * rows (processor, counter) sorted by counter then processor, then for
 * L = 0 .. levels-1 every row's 2^L cells (rt_ix_ksum, 32 bytes).
 */
#ifndef RT_INDEX_COUNTERS_H
#define RT_INDEX_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "rt_index.h"

typedef struct ix_kbuild ix_kbuild;

/* A new builder, NULL when out of memory. */
ix_kbuild *ix_kbuild_new(void);
void ix_kbuild_free(ix_kbuild *k);

/*
 * One sample: counter's value v on processor proc from tick t on. origin is the
 * run's first tick (taken at the first sample); a pair's times do not step back.
 * RT_OK or RT_ENOMEM.
 */
int ix_kbuild_sample(ix_kbuild *k, int64_t origin, int proc, int counter, int64_t t, double v);

/*
 * Close every pair's last value at tend and write the section through put(ud, bytes, n)
 * (nonzero: fail). RT_OK, RT_ENOMEM or put's status.
 */
int ix_kbuild_write(ix_kbuild *k, int64_t tend, int (*put)(void *ud, const void *p, size_t n), void *ud);

/* The section as read from a mapped index. */
typedef struct ix_kread {
    int64_t origin, colw0;     /* level L's columns are colw0 >> L ticks wide from origin */
    uint32_t levels, nrows;    /* levels 0 (no summaries) .. 20 */
    const int32_t *rows;       /* nrows (processor, counter) pairs */
    const unsigned char *cells;
} ix_kread;

/*
 * Check and point k at the section of len bytes at p (an index of nprocs processors and
 * ncounters counters). 0, or -1 when it does not parse.
 */
int ix_kread_open(ix_kread *k, const unsigned char *p, size_t len, uint32_t nprocs, uint32_t ncounters);

/* The index's section (rt_index.c). */
const ix_kread *ix_kread_of(const rt_index *ix);

#endif
