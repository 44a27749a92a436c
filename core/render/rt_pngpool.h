/*
 * rt_pngpool.h - PNG encoding of animation frames on a pool of threads.
 *
 * Shaped for batch rendering: the drawing thread finishes a frame on its
 * Cairo image surface, submits it (the pixels are copied, so the same surface
 * can be cleared and drawn again at once) and goes on drawing while worker
 * threads compress earlier frames. Memory is bounded: submit blocks while
 * `queue_max` frames wait. Compression uses libpng with a chosen zlib level
 * (1 is fast and about as small as Cairo's default for flat-coloured
 * pictures). No Lua here; the frames binding and the benchmark both use it.
 */
#ifndef RT_PNGPOOL_H
#define RT_PNGPOOL_H

#include <stdint.h>

#include "rt_error.h"

typedef struct rt_pngpool rt_pngpool;

#define RT_PNGPOOL_MAX_THREADS 64

/*
 * Start `threads` workers (1..64; 0 means one per online processor) with at
 * most `queue_max` frames waiting (0 means 2 per worker), compressing at zlib
 * `level` (0..9). Returns RT_OK and *out, or an error (RT_ERANGE, RT_ENOMEM,
 * RT_EIO when a thread cannot start).
 */
int rt_pngpool_new(int threads, int queue_max, int level, rt_pngpool **out, rt_err *err);

/*
 * Queue one frame: w x h pixels of Cairo's ARGB32 (premultiplied, native
 * 32-bit words) at `data` with `stride` bytes per row, to be written to
 * `path`. The pixels and path are copied before it returns. Blocks while the
 * queue is full. Returns RT_OK, RT_ENOMEM, or the first error a worker met
 * (e.g. "frames/frame_000003.png: Permission denied"); after an error no
 * further frames are accepted.
 */
int rt_pngpool_submit(rt_pngpool *p, const unsigned char *data, int w, int h, int stride,
                      const char *path, rt_err *err);

/* Wait until every queued frame is written; RT_OK or the first worker error. */
int rt_pngpool_wait(rt_pngpool *p, rt_err *err);

/* What the pool has done, for progress and benchmarks. */
typedef struct rt_pngpool_stats {
    int threads;                                /* workers */
    long frames;                                /* frames written */
    long per_thread[RT_PNGPOOL_MAX_THREADS];    /* frames written by each worker */
    double cpu_seconds[RT_PNGPOOL_MAX_THREADS]; /* CPU time each worker has used */
} rt_pngpool_stats;

void rt_pngpool_stats_get(rt_pngpool *p, rt_pngpool_stats *st);

/* Wait for the queue to drain, stop the workers and free; NULL is allowed. */
void rt_pngpool_free(rt_pngpool *p);

/*
 * Encode one frame synchronously (the workers' routine): returns RT_OK or
 * RT_EIO with "PATH: reason" in err.
 */
int rt_png_write(const char *path, const unsigned char *data, int w, int h, int stride,
                 int level, rt_err *err);

#endif
