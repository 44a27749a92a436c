/*
 * rt_rangemap.h - disjoint address ranges [lo, hi) -> 32-bit values, with
 * O(log n) lookup, for MemSpy's data bins (heap allocations that come and go,
 * 10^5 live at once) and function ranges.
 *
 * A sorted array plus a small unsorted pending buffer: an insert goes to the
 * buffer (searched linearly on lookup) and the buffer is merged into the array
 * in one O(n) pass when it fills, so an allocation costs O(n / 32) moves
 * amortised while lookups stay a binary search and a short scan. The search
 * runs in two levels, over every 64th key (a few KiB, cache-resident) and then
 * inside one block of 64 keys (512 bytes), so a lookup touches few lines. A removal
 * marks its array entry dead (a tombstone) or drops it from the buffer; dead
 * entries go at the next merge. Inserting over live ranges removes them (the
 * caller decides whether that deserves a warning).
 */
#ifndef RT_RANGEMAP_H
#define RT_RANGEMAP_H

#include <stddef.h>
#include <stdint.h>

#define RT_RANGEMAP_PENDING 32
#define RT_RANGEMAP_NONE UINT32_MAX
#define RT_RANGEMAP_BLOCK 64

typedef struct rt_range {
    uint64_t lo, hi;  /* [lo, hi), lo < hi */
    uint32_t val;     /* RT_RANGEMAP_NONE in the array: a removed (dead) entry */
} rt_range;

typedef struct rt_rangemap {
    rt_range *a;                          /* sorted by lo, disjoint among live entries */
    uint64_t *keys;                       /* a[i].lo, packed: the binary search stays in cache */
    uint64_t *fence;                      /* keys[k * RT_RANGEMAP_BLOCK]: a small first level */
    size_t nfence;
    size_t n, cap, dead;                  /* entries, capacity, dead entries among them */
    rt_range pend[RT_RANGEMAP_PENDING];   /* newest inserts, unsorted */
    size_t np;
    uint64_t gen;                         /* bumped on every change (callers' memos) */
} rt_rangemap;

void rt_rangemap_init(rt_rangemap *m);
void rt_rangemap_destroy(rt_rangemap *m);

/* Value of the live range holding addr, or RT_RANGEMAP_NONE. *out (may be NULL)
 * receives the range. */
uint32_t rt_rangemap_find(const rt_rangemap *m, uint64_t addr, rt_range *out);

/* Insert [lo, hi) -> val after removing every live range it overlaps (their
 * number in *dropped, may be NULL). RT_OK or RT_ENOMEM. */
int rt_rangemap_insert(rt_rangemap *m, uint64_t lo, uint64_t hi, uint32_t val, size_t *dropped);

/* Remove the live range starting exactly at lo; its value, or RT_RANGEMAP_NONE. */
uint32_t rt_rangemap_remove(rt_rangemap *m, uint64_t lo);

/* Live ranges. */
size_t rt_rangemap_count(const rt_rangemap *m);

#endif
