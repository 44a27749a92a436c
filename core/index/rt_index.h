/*
 * rt_index.h - the viewer's index of a message-passing trace: built in one
 * streaming pass, then answering any viewport by reading only what it shows.
 *
 * Shaped for 10^8 events on 10^4 processors, opened by `retrace view` and
 * queried a few times a second while a user zooms and pans.
 *
 * What the file holds (one file, native little-endian, version RT_INDEX_VERSION):
 *   - a header: magic, version, the trace's signature, span, clock unit, counts,
 *     section offsets and a 64-bit hash of everything after the header;
 *   - per processor, its events in blocks of about RT_INDEX_BLOCK bytes unpacked
 *     (rt_index_block.h: times, codes and arguments in three streams of varints,
 *     compressed): times as deltas of integer ticks, regions as dense numbers,
 *     messages with peer, tag, communicator and bytes, a receive also carrying
 *     its send time, counter samples with their counter's number and value;
 *     each block starts with the region stack open at its first event, so a
 *     block decodes alone (a time-bucketed store of intervals and messages);
 *   - the counters' names and units;
 *   - the block directory (processor, first and last tick, offset), sorted by
 *     processor then time, found by binary search;
 *   - a pyramid of per-column summaries at power-of-two resolutions: level L
 *     cuts the span into 2^L columns, and each column of each processor keeps the
 *     time spent idle / in overhead / busy, the region holding the most time and
 *     the messages sent. The finest level keeps about 64 events per column;
 *   - the same pyramid for counters: per (processor, counter) pair with samples,
 *     each column's least, largest and time-weighted mean value
 *     (rt_index_counters.h).
 *
 * The trace's signature: for the trace file (and for an OTF2 archive, every
 * file of its folder), its size and modification time, plus a hash of its first
 * and last 64 KiB. An index whose signature, version or body hash differs is
 * stale or corrupt: rt_index_open refuses it (RT_ESTATE) and the caller builds
 * it again. Reading also bounds-checks every block, so damage is never trusted.
 *
 * Times inside are integer ticks from the trace's first tick: the format's own
 * ticks when its clock has a resolution (OTF2, Paraver), else nanoseconds.
 */
#ifndef RT_INDEX_H
#define RT_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

#define RT_INDEX_VERSION 5
/* The file's first 8 bytes (the format detector knows an index by them). */
#define RT_INDEX_MAGIC {'R', 'T', 'I', 'N', 'D', 'E', 'X', '\n'}
/* Bytes a processor's event block grows to (unpacked) before it is written. */
#define RT_INDEX_BLOCK 4096

typedef struct rt_index rt_index;

/* What a build reports. */
typedef struct rt_index_build_info {
    uint64_t events;        /* events read */
    uint64_t bytes;         /* index size */
    uint64_t trace_bytes;   /* the trace's size (every file of an OTF2 archive) */
    int levels;             /* summary levels kept (0 .. levels-1) */
} rt_index_build_info;

/*
 * Read the trace at trace_path (any format rt_tsource_open reads; format NULL =
 * by content) and write its index to index_path, whole or not at all (rt_out).
 * progress (may be NULL) is called now and then with bytes read and total.
 * RT_OK, or the reader's status (RT_EFORMAT, RT_EIO...) with err naming the
 * file and place. info may be NULL.
 */
int rt_index_build(const char *trace_path, const char *format, const char *index_path,
                   void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                   rt_index_build_info *info, rt_err *err);

/*
 * rt_index_build with flags: RT_INDEX_MERGED reads an OTF2 archive through the
 * serial reader, in time order, as every other format is read. Without it an
 * OTF2 archive is read one location at a time (rt_otf2_locs.h), twice: once for
 * the span and the sends, once to build. Both give the same index.
 */
#define RT_INDEX_MERGED 1
int rt_index_build_with(const char *trace_path, const char *format, const char *index_path, int flags,
                        void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                        rt_index_build_info *info, rt_err *err);

/*
 * The trace's signature (two 64-bit words) as stored in an index. RT_OK or
 * RT_EIO when the trace cannot be read.
 */
int rt_index_signature(const char *trace_path, uint64_t sig[2], rt_err *err);

/*
 * Open an index for queries (memory-mapped). When trace_path is not NULL the
 * index must match that trace's current signature. NULL with err: RT_EIO (not
 * readable), RT_ESTATE (stale: other trace, other version or changed trace) or
 * RT_EFORMAT (corrupt: bad magic, hash or section).
 */
rt_index *rt_index_open(const char *index_path, const char *trace_path, rt_err *err);
void rt_index_close(rt_index *ix);

/* ---- what the index knows ---- */

int rt_index_nprocs(const rt_index *ix);
int rt_index_nregions(const rt_index *ix);
/* Region i (dense number): name, class (rt_tclass) and the trace's own id. NULL past the end. */
const char *rt_index_region_name(const rt_index *ix, int i);
int rt_index_region_class(const rt_index *ix, int i);
int rt_index_region_id(const rt_index *ix, int i);
const char *rt_index_proc_name(const rt_index *ix, int p);
/* Counters (OTF2 metrics, Paraver event types carrying quantities, Pajé variables): how many,
 * and counter i's name and unit ("" when the trace gives none); NULL past the end. */
int rt_index_ncounters(const rt_index *ix);
const char *rt_index_counter_name(const rt_index *ix, int i);
const char *rt_index_counter_unit(const rt_index *ix, int i);
const char *rt_index_format(const rt_index *ix);
/* First and last tick (from the trace's first tick) and ticks per second. */
int64_t rt_index_tmin(const rt_index *ix);
int64_t rt_index_tmax(const rt_index *ix);
uint64_t rt_index_unit(const rt_index *ix);
uint64_t rt_index_nevents(const rt_index *ix);
int rt_index_levels(const rt_index *ix);
/* Events of processors p0 .. p1-1 in blocks overlapping [t0, t1] (an upper bound, from the directory). */
uint64_t rt_index_estimate(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1);

/* What the event blocks take (for measuring the encoding): blocks, bytes stored, bytes unpacked and
 * the unpacked bytes of each stream (times, codes, arguments; rt_index_block.h). RT_OK, or
 * RT_EFORMAT / RT_ENOMEM with err when a block cannot be unpacked. */
typedef struct rt_index_blocks {
    uint64_t blocks, stored, unpacked, stream[3];
} rt_index_blocks;
int rt_index_blocks_measure(const rt_index *ix, rt_index_blocks *m, rt_err *err);

/* ---- intervals and messages, exactly ---- */

/* One region interval: [t0, t1) on proc, region (dense number) at depth (0 outermost). */
typedef struct rt_ix_interval {
    int proc, region, depth;
    int64_t t0, t1;
} rt_ix_interval;

/* One message: sent by src at ts, received by dst at tr (ts = tr = -1 when the side is not known). */
typedef struct rt_ix_message {
    int src, dst, comm;
    int64_t tag;
    int64_t ts, tr;
    double bytes;
} rt_ix_message;

/* What a walk over a window reports; any callback may be NULL. A callback returning nonzero stops. */
typedef struct rt_ix_visitor {
    /* a region interval overlapping the window (clipped only to the processor's events) */
    int (*interval)(void *ud, const rt_ix_interval *iv);
    /* a message received in the window or whose flight crosses it (seen on the receiver) */
    int (*message)(void *ud, const rt_ix_message *m);
    /* the enter of a region at t (for calls and search) */
    int (*enter)(void *ud, int proc, int region, int depth, int64_t t);
    void *ud;
    /* the samples of counter counter_id from the first block the walk reads (so also some before
     * the window: the last of those is the value in force at its start) up to the window's end */
    int (*counter)(void *ud, int proc, int64_t t, double value);
    int counter_id;
} rt_ix_visitor;

/*
 * Walk processors p0 .. p1-1 over [t0, t1]: every interval overlapping it, the
 * enters inside it, and the messages received in [t0, t1 + the longest flight]
 * (so a message crossing the window is reported). RT_OK, RT_EFORMAT with err when a
 * block is damaged, RT_EINTR when a callback stopped the walk.
 */
int rt_index_walk(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1, const rt_ix_visitor *v,
                  rt_err *err);

/*
 * rt_index_walk, also telling how each processor's time in the window is spent:
 * segment(ud, proc, state, region, a, e) for each stretch [a, e) inside the window
 * during which the processor stays in one state (0 idle, 1 overhead, 2 busy) and
 * one innermost region (dense number, -1 outside every region). A processor is idle
 * (outside every region) from the run's first event to its own first and from its own
 * last to the run's last, as in the replay (rt_replay.h); one without events has no
 * segment. Rasters count those ends as idle too.
 */
int rt_index_walk_segments(const rt_index *ix, int p0, int p1, int64_t t0, int64_t t1, const rt_ix_visitor *v,
                           int (*segment)(void *ud, int proc, int state, int region, int64_t a, int64_t e),
                           rt_err *err);

/* ---- summaries ---- */

/* One cell of a raster: time per state (0 idle, 1 overhead, 2 busy), the region with most time. */
typedef struct rt_ix_cell {
    float st[3];           /* ticks in each state */
    float toptime;         /* ticks of the top region */
    int32_t top;           /* dense region number, -1 none */
    uint32_t nmsg;         /* messages sent */
} rt_ix_cell;

/*
 * Fill a raster of nrows x ncols cells (row-major) for processors p0 .. p1-1
 * (grouped evenly into nrows rows) over [t0, t1]: from the finest summary level
 * whose columns are no wider than a raster column when there is one, else from
 * the events themselves (rt_index_walk). *exact (may be NULL) tells which.
 * RT_OK, RT_EINVAL for an empty window, RT_EFORMAT on damage.
 */
int rt_index_raster(const rt_index *ix, int p0, int p1, int nrows, int64_t t0, int64_t t1, int ncols,
                    rt_ix_cell *cells, int *from_events, rt_err *err);

/*
 * The same raster handed over one row at a time, top to bottom: emit(ud, row, cells) gets
 * each row's ncols cells (valid during the call; a nonzero return stops with RT_EINTR).
 * Holds one row, whatever nrows is.
 */
int rt_index_raster_rows(const rt_index *ix, int p0, int p1, int nrows, int64_t t0, int64_t t1, int ncols,
                         int (*emit)(void *ud, int row, const rt_ix_cell *cells), void *ud, int *from_events,
                         rt_err *err);

/*
 * One stored summary cell: level (0 .. levels-1, 2^level columns over the span), processor p,
 * column col, its times in ticks as stored (shares of the column's width). Its first tick in
 * *col_t0 (may be NULL). RT_OK, RT_EINVAL out of range.
 */
int rt_index_summary(const rt_index *ix, int level, int p, int64_t col, rt_ix_cell *cell, int64_t *col_t0);

/* The state (0 idle, 1 overhead, 2 busy) region i puts a processor in (-1: look outward). */
int rt_index_region_state(const rt_index *ix, int i);

/* ---- counter summaries (rt_index_counters.c) ---- */

/* One column of a counter on a processor: the least and largest value in force in it, the
 * time-weighted mean over the ticks of it that have a value, and those ticks (0: no value). */
typedef struct rt_ix_ksum {
    double lo, hi, mean, cover;
} rt_ix_ksum;

/* Levels of counter summaries (level L: 2^L columns from the origin); 0 when the trace has no samples. */
int rt_index_counter_levels(const rt_index *ix);

/*
 * Counter c's summary column col of level on processor p into *s (a pair without samples: cover 0),
 * the column's first tick and width in *col_t0 and *colw (may be NULL). RT_OK, RT_EINVAL out of range.
 */
int rt_index_counter_summary(const rt_index *ix, int c, int level, int p, int64_t col, rt_ix_ksum *s,
                             int64_t *col_t0, int64_t *colw);

/* The 2^level columns of counter c on processor p at once (column 0 starts at *origin, each *colw
 * wide; both may be NULL); NULL when the pair has no samples or an argument is out of range. */
const rt_ix_ksum *rt_index_counter_cells(const rt_index *ix, int c, int level, int p, int64_t *origin,
                                         int64_t *colw);

#endif
