/* rt_linemap.c - open-addressing line-number hash map (see rt_linemap.h). */
#include "rt_linemap.h"

#include <stdlib.h>
#include <string.h>

#include "rt_error.h"

static uint64_t home(const rt_linemap *m, uint64_t key)
{
    return ((key * 0x9E3779B97F4A7C15ull) >> 17) & m->mask;
}

static int alloc_buckets(rt_linemap *m, uint64_t n)
{
    m->keys = malloc(n * sizeof *m->keys);
    m->vals = malloc(n * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        return RT_ENOMEM;
    }
    memset(m->keys, 0xff, n * sizeof *m->keys);
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
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->count = 0;
}

void rt_linemap_clear(rt_linemap *m)
{
    memset(m->keys, 0xff, (m->mask + 1) * sizeof *m->keys);
    m->count = 0;
}

static void put_fresh(rt_linemap *m, uint64_t key, uint32_t val)
{
    uint64_t h = home(m, key);
    while (m->keys[h] != UINT64_MAX)
        h = (h + 1) & m->mask;
    m->keys[h] = key;
    m->vals[h] = val;
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
        if (old.keys[i] != UINT64_MAX)
            put_fresh(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
    return RT_OK;
}

uint32_t *rt_linemap_slot(rt_linemap *m, uint64_t key, int *added)
{
    uint64_t h = home(m, key);
    for (;;) {
        if (m->keys[h] == key) {
            *added = 0;
            return &m->vals[h];
        }
        if (m->keys[h] == UINT64_MAX)
            break;
        h = (h + 1) & m->mask;
    }
    *added = 1;
    if (2 * (m->count + 1) > m->mask + 1) {
        if (grow(m) != RT_OK)
            return NULL;
        h = home(m, key);
        while (m->keys[h] != UINT64_MAX)
            h = (h + 1) & m->mask;
    }
    m->keys[h] = key;
    m->vals[h] = 0;
    m->count++;
    return &m->vals[h];
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
    while (m->keys[h] != key) {
        if (m->keys[h] == UINT64_MAX)
            return 0;
        h = (h + 1) & m->mask;
    }
    /* backward-shift deletion: pull later members of the run into the hole */
    uint64_t hole = h;
    for (;;) {
        h = (h + 1) & m->mask;
        uint64_t k = m->keys[h];
        if (k == UINT64_MAX)
            break;
        uint64_t want = home(m, k);
        /* k may move to hole when its home is not in (hole, h] cyclically */
        int between = hole <= h ? (want > hole && want <= h) : (want > hole || want <= h);
        if (!between) {
            m->keys[hole] = k;
            m->vals[hole] = m->vals[h];
            hole = h;
        }
    }
    m->keys[hole] = UINT64_MAX;
    m->count--;
    return 1;
}
