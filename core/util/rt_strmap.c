/*
 * rt_strmap.c - string-keyed hash map (see rt_strmap.h).
 *
 * Each bucket keeps the full 64-bit hash next to the key pointer, so probing
 * compares hashes first and touches a key's bytes only on a likely match, and
 * growing never rehashes a string.
 */
#include "rt_strmap.h"

#include <stdlib.h>
#include <string.h>

typedef struct bucket {
    uint64_t h;      /* full hash; meaningless when key is NULL */
    char *key;       /* owned copy, NUL-terminated; NULL = empty bucket */
    size_t n;
    int64_t scope;
    int64_t val;
} bucket;

struct rt_strmap {
    bucket *b;
    size_t mask;     /* buckets - 1, a power of two */
    size_t count;
};

/* FNV-1a over the bytes, seeded with the scope, then a 64-bit finaliser so the
 * low bits used for the bucket index depend on every byte. */
static uint64_t hash_key(int64_t scope, const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u ^ ((uint64_t)scope * 0x9e3779b97f4a7c15u);
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3u;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    return h;
}

rt_strmap *rt_strmap_new(void)
{
    rt_strmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->b = calloc(16, sizeof *m->b);
    if (!m->b) {
        free(m);
        return NULL;
    }
    m->mask = 15;
    return m;
}

void rt_strmap_free(rt_strmap *m)
{
    if (!m)
        return;
    for (size_t i = 0; i <= m->mask; i++)
        free(m->b[i].key);
    free(m->b);
    free(m);
}

static size_t find(const rt_strmap *m, uint64_t h, int64_t scope, const char *key, size_t n)
{
    size_t i = (size_t)h & m->mask;
    while (m->b[i].key) {
        const bucket *b = &m->b[i];
        if (b->h == h && b->n == n && b->scope == scope && memcmp(b->key, key, n) == 0)
            return i;
        i = (i + 1) & m->mask;
    }
    return i; /* the empty bucket ending the probe */
}

int64_t *rt_strmap_get(const rt_strmap *m, int64_t scope, const char *key, size_t n)
{
    size_t i = find(m, hash_key(scope, key, n), scope, key, n);
    return m->b[i].key ? &m->b[i].val : NULL;
}

static int grow(rt_strmap *m)
{
    size_t cap = (m->mask + 1) * 2;
    bucket *nb = calloc(cap, sizeof *nb);
    if (!nb)
        return -1;
    for (size_t i = 0; i <= m->mask; i++) {
        if (!m->b[i].key)
            continue;
        size_t j = (size_t)m->b[i].h & (cap - 1);
        while (nb[j].key)
            j = (j + 1) & (cap - 1);
        nb[j] = m->b[i];
    }
    free(m->b);
    m->b = nb;
    m->mask = cap - 1;
    return 0;
}

int64_t *rt_strmap_put(rt_strmap *m, int64_t scope, const char *key, size_t n, int *created)
{
    uint64_t h = hash_key(scope, key, n);
    size_t i = find(m, h, scope, key, n);
    if (m->b[i].key) {
        if (created)
            *created = 0;
        return &m->b[i].val;
    }
    if ((m->count + 1) * 4 > (m->mask + 1) * 3) {
        if (grow(m) != 0)
            return NULL;
        i = find(m, h, scope, key, n);
    }
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    memcpy(copy, key, n);
    copy[n] = '\0';
    m->b[i] = (bucket){h, copy, n, scope, 0};
    m->count++;
    if (created)
        *created = 1;
    return &m->b[i].val;
}

int rt_strmap_remove(rt_strmap *m, int64_t scope, const char *key, size_t n)
{
    size_t i = find(m, hash_key(scope, key, n), scope, key, n);
    if (!m->b[i].key)
        return 0;
    free(m->b[i].key);
    m->count--;
    /* backward shift: pull later members of the probe run into the hole so no
     * lookup ever stops early at it (no tombstones to clean up later) */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (!m->b[j].key)
            break;
        size_t home = (size_t)m->b[j].h & m->mask;
        /* j may move to hole unless its home lies cyclically in (hole, j] */
        int stays = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            m->b[hole] = m->b[j];
            hole = j;
        }
    }
    m->b[hole].key = NULL;
    return 1;
}

size_t rt_strmap_count(const rt_strmap *m)
{
    return m->count;
}
