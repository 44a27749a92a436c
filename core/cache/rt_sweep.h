/*
 * rt_sweep.h - misses of a fully associative LRU cache at every size in one
 * pass (Mattson's stack algorithm).
 *
 * For each reference the LRU stack distance d (1 + the number of distinct
 * lines referenced since the previous reference to the same line) is found by
 * counting "last reference" marks between the two times, in a 64-ary tree
 * of counts over a bitmap of times (512 times per leaf count, 64 groups per
 * count above): moving a mark and counting a range cost O(log n), a few
 * popcounts and counts for the near reuses that dominate real traces, never a
 * walk down the stack. A reference with distance d hits in every cache of at
 * least d lines. Times are renumbered (compacted) when they run out, leaving
 * room for 16 times the distinct lines, so memory is proportional to the
 * trace's footprint, not to its length. Workload: 10^8 references, footprints
 * up to millions of lines.
 */
#ifndef RT_SWEEP_H
#define RT_SWEEP_H

#include <stddef.h>
#include <stdint.h>

#include "rt_error.h"

typedef struct rt_sweep rt_sweep;

/* New, empty. NULL when out of memory. */
rt_sweep *rt_sweep_new(void);
void rt_sweep_free(rt_sweep *s);

/* One reference to line number `line`. RT_OK or RT_ENOMEM. */
int rt_sweep_ref(rt_sweep *s, uint64_t line);

/* n references in order to the lines addr[i] >> shift (the same as n calls of
 * rt_sweep_ref, with the hash lookups of later references started early).
 * RT_OK or RT_ENOMEM. */
int rt_sweep_ref_many(rt_sweep *s, const uint64_t *addr, size_t n, unsigned shift);

/* n more references to the line referenced last (distance 1: the stack does
 * not change), counted without being made; for a caller that drops repeats. */
void rt_sweep_repeat(rt_sweep *s, uint64_t n);

/* References so far; distinct lines (compulsory misses at every size). */
uint64_t rt_sweep_refs(const rt_sweep *s);
uint64_t rt_sweep_distinct(const rt_sweep *s);

/* How many times the time stamps were renumbered (for tests). */
uint64_t rt_sweep_compactions(const rt_sweep *s);

/* Misses of a fully associative LRU cache of 2^log2_lines lines (0 <= log2_lines < 64). */
uint64_t rt_sweep_misses(const rt_sweep *s, unsigned log2_lines);

/* Smallest k with 2^k >= distinct lines: from that size on, only compulsory misses. */
unsigned rt_sweep_top(const rt_sweep *s);

#endif
