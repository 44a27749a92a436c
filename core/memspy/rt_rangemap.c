/*
 * rt_rangemap.c - sorted array + pending buffer of disjoint address ranges.
 * See rt_rangemap.h for the shape and its costs.
 */
#include "rt_rangemap.h"

#include <stdlib.h>
#include <string.h>

#include "rt_error.h"

void rt_rangemap_init(rt_rangemap *m)
{
    memset(m, 0, sizeof *m);
}

void rt_rangemap_destroy(rt_rangemap *m)
{
    if (!m)
        return;
    free(m->a);
    free(m->keys);
    free(m->fence);
    memset(m, 0, sizeof *m);
}

/* the last of keys[0..n) that is <= addr, as an index, or -1 (branch-free) */
static ptrdiff_t search(const uint64_t *keys, size_t n, uint64_t addr)
{
    if (n == 0)
        return -1;
    const uint64_t *base = keys;
    while (n > 1) {
        size_t half = n / 2;
        base = base[half] <= addr ? base + half : base;
        n -= half;
    }
    return *base <= addr ? base - keys : -1;
}

/* index of the last array entry with lo <= addr, or -1: the block through the
 * fences, then the entry inside it (the hot path of every data-bin lookup) */
static ptrdiff_t last_at_or_before(const rt_rangemap *m, uint64_t addr)
{
    ptrdiff_t b = search(m->fence, m->nfence, addr);
    if (b < 0)
        return -1;
    size_t lo = (size_t)b * RT_RANGEMAP_BLOCK;
    size_t n = m->n - lo < RT_RANGEMAP_BLOCK ? m->n - lo : RT_RANGEMAP_BLOCK;
    return (ptrdiff_t)lo + search(m->keys + lo, n, addr);
}

uint32_t rt_rangemap_find(const rt_rangemap *m, uint64_t addr, rt_range *out)
{
    ptrdiff_t i = last_at_or_before(m, addr);
    /* the entry just before addr may be dead while an older live one further
     * left cannot hold addr: live entries are disjoint and a dead one was
     * removed, not shrunk; so one look suffices */
    if (i >= 0 && addr < m->a[i].hi && m->a[i].val != RT_RANGEMAP_NONE) {
        if (out)
            *out = m->a[i];
        return m->a[i].val;
    }
    for (size_t k = 0; k < m->np; k++) {
        if (addr >= m->pend[k].lo && addr < m->pend[k].hi) {
            if (out)
                *out = m->pend[k];
            return m->pend[k].val;
        }
    }
    return RT_RANGEMAP_NONE;
}

static int cmp_lo(const void *x, const void *y)
{
    const rt_range *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* merge the pending buffer into the array, dropping dead entries */
static int merge(rt_rangemap *m)
{
    size_t live = m->n - m->dead + m->np;
    rt_range *na = malloc((live ? live : 1) * sizeof *na);
    uint64_t *nk = malloc((live ? live : 1) * sizeof *nk);
    uint64_t *nf = malloc((live / RT_RANGEMAP_BLOCK + 1) * sizeof *nf);
    if (!na || !nk || !nf) {
        free(na);
        free(nk);
        free(nf);
        return RT_ENOMEM;
    }
    qsort(m->pend, m->np, sizeof m->pend[0], cmp_lo);
    size_t i = 0, k = 0, o = 0;
    while (i < m->n || k < m->np) {
        if (i < m->n && m->a[i].val == RT_RANGEMAP_NONE) {
            i++;
            continue;
        }
        if (k >= m->np || (i < m->n && m->a[i].lo < m->pend[k].lo))
            na[o++] = m->a[i++];
        else
            na[o++] = m->pend[k++];
    }
    for (size_t j = 0; j < o; j++)
        nk[j] = na[j].lo;
    size_t f = 0;
    for (size_t j = 0; j < o; j += RT_RANGEMAP_BLOCK)
        nf[f++] = nk[j];
    free(m->a);
    free(m->keys);
    free(m->fence);
    m->a = na;
    m->keys = nk;
    m->fence = nf;
    m->nfence = f;
    m->n = o;
    m->cap = live;
    m->dead = 0;
    m->np = 0;
    return RT_OK;
}

int rt_rangemap_insert(rt_rangemap *m, uint64_t lo, uint64_t hi, uint32_t val, size_t *dropped)
{
    size_t d = 0;
    /* array entries overlapping [lo, hi): a contiguous run ending at the last with lo < hi */
    if (hi > 0) {
        for (ptrdiff_t i = last_at_or_before(m, hi - 1); i >= 0 && m->a[i].hi > lo; i--) {
            if (m->a[i].val != RT_RANGEMAP_NONE) {
                m->a[i].val = RT_RANGEMAP_NONE;
                m->dead++;
                d++;
            }
        }
    }
    for (size_t k = 0; k < m->np;) {
        if (m->pend[k].lo < hi && lo < m->pend[k].hi) {
            m->pend[k] = m->pend[--m->np];
            d++;
        } else {
            k++;
        }
    }
    if (dropped)
        *dropped = d;
    m->gen++;
    if (m->np == RT_RANGEMAP_PENDING) {
        int st = merge(m);
        if (st != RT_OK)
            return st;
    }
    m->pend[m->np].lo = lo;
    m->pend[m->np].hi = hi;
    m->pend[m->np].val = val;
    m->np++;
    /* many tombstones slow the search down: sweep them when they are half */
    if (m->dead > 64 && m->dead * 2 > m->n)
        return merge(m);
    return RT_OK;
}

uint32_t rt_rangemap_remove(rt_rangemap *m, uint64_t lo)
{
    for (size_t k = 0; k < m->np; k++) {
        if (m->pend[k].lo == lo) {
            uint32_t v = m->pend[k].val;
            m->pend[k] = m->pend[--m->np];
            m->gen++;
            return v;
        }
    }
    /* tombstones may share lo with the live entry: look left over equal keys */
    for (ptrdiff_t i = last_at_or_before(m, lo); i >= 0 && m->a[i].lo == lo; i--) {
        if (m->a[i].val != RT_RANGEMAP_NONE) {
            uint32_t v = m->a[i].val;
            m->a[i].val = RT_RANGEMAP_NONE;
            m->dead++;
            m->gen++;
            return v;
        }
    }
    return RT_RANGEMAP_NONE;
}

size_t rt_rangemap_count(const rt_rangemap *m)
{
    return m->n - m->dead + m->np;
}
