/*
 * rt_memsim.h - run a real program's memory trace through a cache.
 *
 * The loop behind `retrace cache` and retrace.cache.run: reads references from
 * an rt_memtrace, splits each into the lines it spans (an access spanning k
 * lines is k references, as in Dinero IV), sends data references (and, when
 * unified, instruction fetches) through the cache, and optionally classifies
 * every miss (compulsory / capacity / conflict, against a fully associative
 * shadow cache of the same size and policy and the set of lines ever seen) and
 * feeds a one-pass LRU size sweep (on a second thread when one can be
 * started: it sees the same references in the same order). Everything
 * streams: memory depends on the cache and the trace's footprint, never on
 * its length.
 */
#ifndef RT_MEMSIM_H
#define RT_MEMSIM_H

#include <stdint.h>

#include "rt_cache.h"
#include "rt_error.h"
#include "rt_memtrace.h"

#define RT_MEMSIM_SWEEP_MAX 48

typedef struct rt_memsim_opts {
    int unified;         /* instruction fetches go through the cache (else ignored) */
    rt_cache *shadow;    /* fully associative cache, same size and policy: classify misses; or NULL */
    int sweep;           /* run the stack-distance sweep */
    /* called about every 2^20 records and at the end with bytes read / file size */
    /* called every 2^20 records; a non-zero return stops the run (RT_ESTATE, "stopped") */
    int (*progress)(void *ud, uint64_t done, uint64_t total);
    void *progress_ud;
} rt_memsim_opts;

typedef struct rt_memsim_result {
    uint64_t records;      /* trace records read (a lackey M counts twice) */
    uint64_t ignored;      /* records not simulated: instruction fetches (not unified), misc */
    uint64_t ifetches;     /* instruction-fetch records */
    uint64_t flushes;      /* flush and invalidate records */
    int classified;        /* compulsory/capacity/conflict are valid */
    uint64_t compulsory, capacity, conflict;
    int swept;             /* the sweep fields are valid */
    unsigned sweep_n;      /* sizes reported */
    uint64_t sweep_size[RT_MEMSIM_SWEEP_MAX];   /* bytes (units): line << k */
    uint64_t sweep_misses[RT_MEMSIM_SWEEP_MAX];
    uint64_t sweep_refs;   /* references the sweep saw (= the cache's lookups) */
} rt_memsim_result;

/*
 * Run the whole trace t through cache c (its counters accumulate: pass a fresh
 * or reset cache). On a malformed record returns its status with err naming
 * file, line and field; the counters then hold what was read before it.
 * A policy failure returns its status with the policy's message.
 */
int rt_memsim_run(rt_cache *c, rt_memtrace *t, const rt_memsim_opts *o, rt_memsim_result *res,
                  rt_err *err);

#endif
