/* rt_linemap.c - open-addressing line-number hash map (see rt_linemap.h). */
#include "rt_linemap.h"

#include <stdlib.h>
#include <string.h>

#include "rt_error.h"

static uint64_t home(const rt_linemap *m, uint64_t key)
{
    return rt_linemap_hash(key) & m->mask;
}

static int alloc_buckets(rt_linemap *m, uint64_t n)
{
    m->b = malloc(n * sizeof *m->b);
    if (!m->b)
        return RT_ENOMEM;
    for (uint64_t i = 0; i < n; i++)
        m->b[i].key = UINT64_MAX;
    m->mask = n - 1;
    m->count = 0;
    return RT_OK;
}

int rt_linemap_init(rt_linemap *m, uint64_t expect)
{
    uint64_t n = 16;
    while (n < 2 * expect + 2)
        n <<= 1;
    return alloc_buckets(m, n);
}

void rt_linemap_destroy(rt_linemap *m)
{
    if (!m)
        return;
    free(m->b);
    m->b = NULL;
    m->count = 0;
}

void rt_linemap_clear(rt_linemap *m)
{
    for (uint64_t i = 0; i <= m->mask; i++)
        m->b[i].key = UINT64_MAX;
    m->count = 0;
}

static void put_fresh(rt_linemap *m, uint64_t key, uint32_t val)
{
    uint64_t h = home(m, key);
    while (m->b[h].key != UINT64_MAX)
        h = (h + 1) & m->mask;
    m->b[h].key = key;
    m->b[h].val = val;
    m->count++;
}

static int grow(rt_linemap *m)
{
    rt_linemap old = *m;
    if (alloc_buckets(m, (old.mask + 1) * 2) != RT_OK) {
        *m = old;
        return RT_ENOMEM;
    }
    for (uint64_t i = 0; i <= old.mask; i++)
        if (old.b[i].key != UINT64_MAX)
            put_fresh(m, old.b[i].key, old.b[i].val);
    free(old.b);
    return RT_OK;
}

uint32_t *rt_linemap_insert(rt_linemap *m, uint64_t key)
{
    if (2 * (m->count + 1) > m->mask + 1 && grow(m) != RT_OK)
        return NULL;
    uint64_t h = home(m, key);
    while (m->b[h].key != UINT64_MAX)
        h = (h + 1) & m->mask;
    m->b[h].key = key;
    m->b[h].val = 0;
    m->count++;
    return &m->b[h].val;
}

int rt_linemap_put(rt_linemap *m, uint64_t key, uint32_t val, int *added)
{
    int a;
    uint32_t *v = rt_linemap_slot(m, key, &a);
    if (!v)
        return RT_ENOMEM;
    *v = val;
    if (added)
        *added = a;
    return RT_OK;
}

int rt_linemap_del(rt_linemap *m, uint64_t key)
{
    uint64_t h = home(m, key);
    while (m->b[h].key != key) {
        if (m->b[h].key == UINT64_MAX)
            return 0;
        h = (h + 1) & m->mask;
    }
    /* backward-shift deletion: pull later members of the run into the hole */
    uint64_t hole = h;
    for (;;) {
        h = (h + 1) & m->mask;
        uint64_t k = m->b[h].key;
        if (k == UINT64_MAX)
            break;
        uint64_t want = home(m, k);
        /* k may move to hole when its home is not in (hole, h] cyclically */
        int between = hole <= h ? (want > hole && want <= h) : (want > hole || want <= h);
        if (!between) {
            m->b[hole] = m->b[h];
            hole = h;
        }
    }
    m->b[hole].key = UINT64_MAX;
    m->count--;
    return 1;
}
