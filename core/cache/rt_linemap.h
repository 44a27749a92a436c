/*
 * rt_linemap.h - an open-addressing hash map from 64-bit line numbers to 32-bit
 * values, with deletion.
 *
 * Used where a cache would otherwise scan many ways: the line -> slot index of
 * a highly associative cache (deletions on every eviction), and the set of
 * lines ever seen when misses are classified (grows with the trace's
 * footprint, not its length). Linear probing, backward-shift deletion, load
 * kept under 1/2. The key UINT64_MAX is reserved (it marks empty buckets).
 */
#ifndef RT_LINEMAP_H
#define RT_LINEMAP_H

#include <stdint.h>

typedef struct rt_linemap {
    uint64_t *keys;   /* UINT64_MAX = empty bucket */
    uint32_t *vals;
    uint64_t mask;    /* buckets - 1 (a power of two) */
    uint64_t count;   /* keys present */
} rt_linemap;

/* Initialise for about `expect` keys. Returns RT_OK or RT_ENOMEM. */
int rt_linemap_init(rt_linemap *m, uint64_t expect);

/* Release the buckets; the map must be initialised again before reuse. NULL-safe. */
void rt_linemap_destroy(rt_linemap *m);

/* Remove every key, keeping the buckets. */
void rt_linemap_clear(rt_linemap *m);

/* Value of key, or -1 when absent. */
static inline int64_t rt_linemap_get(const rt_linemap *m, uint64_t key)
{
    uint64_t h = (key * 0x9E3779B97F4A7C15ull) >> 17;
    for (;;) {
        h &= m->mask;
        uint64_t k = m->keys[h];
        if (k == key)
            return m->vals[h];
        if (k == UINT64_MAX)
            return -1;
        h++;
    }
}

/* Insert or overwrite key -> val; grows when needed. *added (may be NULL) is 1
 * when the key was new. Returns RT_OK or RT_ENOMEM. */
int rt_linemap_put(rt_linemap *m, uint64_t key, uint32_t val, int *added);

/* The value slot of key, inserting it (value 0, *added = 1) when absent: one
 * probe for read-modify-write. NULL when growing failed (out of memory). */
uint32_t *rt_linemap_slot(rt_linemap *m, uint64_t key, int *added);

/* Remove key if present; returns 1 when it was. */
int rt_linemap_del(rt_linemap *m, uint64_t key);

#endif
