/* rt_chanmap.c - message channels by (source, destination, communicator, tag); see rt_chanmap.h. */
#include "rt_chanmap.h"

#include <stdlib.h>
#include <string.h>

void rt_chanmap_init(rt_chanmap *m, size_t elem)
{
    memset(m, 0, sizeof *m);
    m->elem = elem;
}

static uint64_t chan_hash(int src, int dst, int comm, int64_t tag)
{
    uint64_t k = ((uint64_t)(uint32_t)src * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)(uint32_t)dst * 0xC2B2AE3D27D4EB4Full) ^
                 ((uint64_t)(uint32_t)comm * 0x27D4EB2F165667C5ull) ^
                 ((uint64_t)tag * 0x165667B19E3779F9ull);
    k ^= k >> 29;
    return k ? k : 1; /* 0 marks an empty slot */
}

static rt_chankey *at(unsigned char *slots, size_t elem, size_t i)
{
    return (rt_chankey *)(void *)(slots + i * elem);
}

/* Double the slots (from 64), re-placing every item. 0 when memory ran out. */
static int grow(rt_chanmap *m)
{
    size_t nc = m->cap ? m->cap * 2 : 64;
    unsigned char *ns = calloc(nc, m->elem);
    if (!ns)
        return 0;
    for (size_t i = 0; i < m->cap; i++) {
        rt_chankey *k = at(m->slots, m->elem, i);
        if (!k->hash)
            continue;
        size_t j = k->hash & (nc - 1);
        while (at(ns, m->elem, j)->hash)
            j = (j + 1) & (nc - 1);
        memcpy(at(ns, m->elem, j), k, m->elem);
    }
    free(m->slots);
    m->slots = ns;
    m->cap = nc;
    return 1;
}

/* The slot of the channel, or of the empty slot where it would go (cap > 0). */
static size_t probe(const rt_chanmap *m, uint64_t h, int src, int dst, int comm, int64_t tag)
{
    size_t mask = m->cap - 1, j = h & mask;
    for (;;) {
        rt_chankey *k = at(m->slots, m->elem, j);
        if (!k->hash || (k->hash == h && k->src == src && k->dst == dst && k->comm == comm && k->tag == tag))
            return j;
        j = (j + 1) & mask;
    }
}

void *rt_chanmap_find(const rt_chanmap *m, int src, int dst, int comm, int64_t tag)
{
    if (m->n == 0)
        return NULL;
    rt_chankey *k = at(m->slots, m->elem, probe(m, chan_hash(src, dst, comm, tag), src, dst, comm, tag));
    return k->hash ? k : NULL;
}

void *rt_chanmap_get(rt_chanmap *m, int src, int dst, int comm, int64_t tag)
{
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return NULL;
    uint64_t h = chan_hash(src, dst, comm, tag);
    rt_chankey *k = at(m->slots, m->elem, probe(m, h, src, dst, comm, tag));
    if (k->hash)
        return k;
    memset(k, 0, m->elem);
    *k = (rt_chankey){h, src, dst, comm, tag};
    m->n++;
    return k;
}

size_t rt_chanmap_sweep(rt_chanmap *m, int (*drop)(void *item, void *ud), void *ud)
{
    if (!m->cap)
        return 0;
    unsigned char *ns = calloc(m->cap, m->elem);
    if (!ns)
        return 0;
    size_t mask = m->cap - 1, dropped = 0;
    for (size_t i = 0; i < m->cap; i++) {
        rt_chankey *k = at(m->slots, m->elem, i);
        if (!k->hash)
            continue;
        if (drop(k, ud)) {
            dropped++;
            continue;
        }
        size_t j = k->hash & mask;
        while (at(ns, m->elem, j)->hash)
            j = (j + 1) & mask;
        memcpy(at(ns, m->elem, j), k, m->elem);
    }
    free(m->slots);
    m->slots = ns;
    m->n -= dropped;
    return dropped;
}

void rt_chanmap_free(rt_chanmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->n = m->cap = 0;
}
