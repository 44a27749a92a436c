/*
 * rt_sweep.h - misses of a fully associative LRU cache at every size in one
 * pass (Mattson's stack algorithm).
 *
 * For each reference the LRU stack distance d (1 + the number of distinct
 * lines referenced since the previous reference to the same line) is found by
 * counting "last reference" marks between the two times: a bitmap of times
 * with per-512-time block counts summed by a Fenwick tree, so a reference
 * costs O(log n) and not a walk down the stack. A reference with distance d
 * hits in every cache of at least d lines. Times are renumbered (compacted)
 * when they run out, so memory is proportional to the number of distinct
 * lines (the footprint), not to the trace length.
 */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include <stdint.h>

#include "rt_error.h"

typedef struct rt_sweep rt_sweep;

/* New, empty. NULL when out of memory. */
rt_sweep *rt_sweep_new(void);
void rt_sweep_free(rt_sweep *s);

/* One reference to line number `line`. RT_OK or RT_ENOMEM. */
int rt_sweep_ref(rt_sweep *s, uint64_t line);

/* References so far; distinct lines (compulsory misses at every size). */
uint64_t rt_sweep_refs(const rt_sweep *s);
uint64_t rt_sweep_distinct(const rt_sweep *s);

/* Misses of a fully associative LRU cache of 2^log2_lines lines (0 <= log2_lines < 64). */
uint64_t rt_sweep_misses(const rt_sweep *s, unsigned log2_lines);

/* Smallest k with 2^k >= distinct lines: from that size on, only compulsory misses. */
unsigned rt_sweep_top(const rt_sweep *s);

#endif
