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

#include <stddef.h>
#include <stdint.h>

/* One bucket: key and value side by side, so a lookup touches one cache line. */
typedef struct rt_linemap_bucket {
    uint64_t key;     /* UINT64_MAX = empty bucket */
    uint32_t val;
    uint32_t spare;   /* keeps buckets 16 bytes */
} rt_linemap_bucket;

typedef struct rt_linemap {
    rt_linemap_bucket *b;
    uint64_t mask;    /* buckets - 1 (a power of two) */
    uint64_t count;   /* keys present */
} rt_linemap;

/* Initialise for about `expect` keys. Returns RT_OK or RT_ENOMEM. */
int rt_linemap_init(rt_linemap *m, uint64_t expect);

/* Release the buckets; the map must be initialised again before reuse. NULL-safe. */
void rt_linemap_destroy(rt_linemap *m);

/* Remove every key, keeping the buckets. */
void rt_linemap_clear(rt_linemap *m);

/* Home bucket of key before the mask (multiplicative hashing): where every
 * probe for key starts. */
static inline uint64_t rt_linemap_hash(uint64_t key)
{
    return (key * 0x9E3779B97F4A7C15ull) >> 17;
}

/* Value of key, or -1 when absent. */
static inline int64_t rt_linemap_get(const rt_linemap *m, uint64_t key)
{
    uint64_t h = rt_linemap_hash(key);
    for (;;) {
        h &= m->mask;
        uint64_t k = m->b[h].key;
        if (k == key)
            return (int64_t)m->b[h].val;
        if (k == UINT64_MAX)
            return -1;
        h++;
    }
}

/* The value slot of key, or NULL when absent. Valid until the map grows (its
 * mask changes) or the key is deleted. */
static inline uint32_t *rt_linemap_find(rt_linemap *m, uint64_t key)
{
    uint64_t h = rt_linemap_hash(key);
    for (;;) {
        h &= m->mask;
        uint64_t k = m->b[h].key;
        if (k == key)
            return &m->b[h].val;
        if (k == UINT64_MAX)
            return NULL;
        h++;
    }
}

/* Hint that key will be looked up soon (fetches its home bucket). */
static inline void rt_linemap_prefetch(const rt_linemap *m, uint64_t key)
{
#if defined(__GNUC__)
    __builtin_prefetch(&m->b[rt_linemap_hash(key) & m->mask]);
#else
    (void)m;
    (void)key;
#endif
}

/* Insert or overwrite key -> val; grows when needed. *added (may be NULL) is 1
 * when the key was new. Returns RT_OK or RT_ENOMEM. */
int rt_linemap_put(rt_linemap *m, uint64_t key, uint32_t val, int *added);

/* Out-of-line half of rt_linemap_slot: insert an absent key. */
uint32_t *rt_linemap_insert(rt_linemap *m, uint64_t key);

/* The value slot of key, inserting it (value 0, *added = 1) when absent: one
 * probe for read-modify-write. NULL when growing failed (out of memory). */
static inline uint32_t *rt_linemap_slot(rt_linemap *m, uint64_t key, int *added)
{
    uint64_t h = rt_linemap_hash(key);
    for (;;) {
        h &= m->mask;
        uint64_t k = m->b[h].key;
        if (k == key) {
            *added = 0;
            return &m->b[h].val;
        }
        if (k == UINT64_MAX)
            break;
        h++;
    }
    *added = 1;
    return rt_linemap_insert(m, key);
}

/* Remove key if present; returns 1 when it was. */
int rt_linemap_del(rt_linemap *m, uint64_t key);

#endif
