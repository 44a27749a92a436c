/*
 * rt_seq.c - symbol execution sequences: the u64 hash map, the symbol table and
 * the ensemble's members with their version stacks (see rt_seq.h for the
 * representation). The transforms and undo live in rt_seq_transform.c; chains,
 * periodograms and simulation in rt_chain.c; the views in rt_seq_view.c.
 */
#include "rt_seq.h"
#include "rt_seq_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* ---- u64 -> int32 hash map (open addressing, linear probing) ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

int rt_u64map_init(rt_u64map *m, size_t expect)
{
    size_t cap = 16;
    while (cap < expect * 2)
        cap <<= 1;
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        return RT_ENOMEM;
    }
    memset(m->keys, 0xff, cap * sizeof *m->keys);
    m->cap = cap;
    m->n = 0;
    return RT_OK;
}

void rt_u64map_free(rt_u64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
}

static int u64map_grow(rt_u64map *m)
{
    rt_u64map big;
    if (rt_u64map_init(&big, m->cap) != RT_OK)
        return RT_ENOMEM;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != RT_U64MAP_EMPTY) {
            size_t j = (size_t)mix64(m->keys[i]) & (big.cap - 1);
            while (big.keys[j] != RT_U64MAP_EMPTY)
                j = (j + 1) & (big.cap - 1);
            big.keys[j] = m->keys[i];
            big.vals[j] = m->vals[i];
        }
    big.n = m->n;
    rt_u64map_free(m);
    *m = big;
    return RT_OK;
}

int32_t *rt_u64map_slot(rt_u64map *m, uint64_t key, int *created)
{
    if ((m->n + 1) * 2 > m->cap && u64map_grow(m) != RT_OK)
        return NULL;
    size_t j = (size_t)mix64(key) & (m->cap - 1);
    while (m->keys[j] != RT_U64MAP_EMPTY) {
        if (m->keys[j] == key) {
            *created = 0;
            return &m->vals[j];
        }
        j = (j + 1) & (m->cap - 1);
    }
    m->keys[j] = key;
    m->vals[j] = -1;
    m->n++;
    *created = 1;
    return &m->vals[j];
}

/* ---- symbol table ---- */

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static int syms_grow_slots(rt_ses *s)
{
    size_t cap = s->nslots ? s->nslots * 2 : 64;
    int32_t *slots = malloc(cap * sizeof *slots);
    if (!slots)
        return RT_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        slots[i] = -1;
    for (size_t id = 0; id < s->nsym; id++) {
        size_t j = (size_t)s->hash[id] & (cap - 1);
        while (slots[j] >= 0)
            j = (j + 1) & (cap - 1);
        slots[j] = (int32_t)id;
    }
    free(s->slots);
    s->slots = slots;
    s->nslots = cap;
    return RT_OK;
}

static int32_t find_sym(const rt_ses *s, const char *name, size_t len, uint64_t h)
{
    if (!s->nslots)
        return -1;
    size_t j = (size_t)h & (s->nslots - 1);
    while (s->slots[j] >= 0) {
        int32_t id = s->slots[j];
        if (s->hash[id] == h && s->len[id] == len && memcmp(s->names[id], name, len) == 0)
            return id;
        j = (j + 1) & (s->nslots - 1);
    }
    return -1;
}

int32_t rt_ses_intern(rt_ses *s, const char *name, size_t len)
{
    uint64_t h = hash_bytes(name, len);
    int32_t id = find_sym(s, name, len, h);
    if (id >= 0)
        return id;
    if (s->nsym >= INT32_MAX - 1)
        return -1;
    if ((s->nsym + 1) * 2 > s->nslots && syms_grow_slots(s) != RT_OK)
        return -1;
    if (s->nsym == s->capsym) {
        size_t cap = s->capsym ? s->capsym * 2 : 64;
        if (rt_resize((void **)&s->names, cap, sizeof *s->names) != RT_OK ||
            rt_resize((void **)&s->hash, cap, sizeof *s->hash) != RT_OK ||
            rt_resize((void **)&s->len, cap, sizeof *s->len) != RT_OK ||
            rt_resize((void **)&s->orig, cap, sizeof *s->orig) != RT_OK ||
            rt_resize((void **)&s->comp_level, cap, sizeof *s->comp_level) != RT_OK)
            return -1;
        s->capsym = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return -1;
    memcpy(copy, name, len);
    copy[len] = '\0';
    id = (int32_t)s->nsym++;
    s->names[id] = copy;
    s->hash[id] = h;
    s->len[id] = (uint32_t)len;
    s->orig[id] = 0;
    s->comp_level[id] = 0;
    size_t j = (size_t)h & (s->nslots - 1);
    while (s->slots[j] >= 0)
        j = (j + 1) & (s->nslots - 1);
    s->slots[j] = id;
    return id;
}

int32_t rt_ses_lookup(const rt_ses *s, const char *name)
{
    size_t n = strlen(name);
    return find_sym(s, name, n, hash_bytes(name, n));
}

const char *rt_ses_name(const rt_ses *s, int32_t id)
{
    return id >= 0 && (size_t)id < s->nsym ? s->names[id] : NULL;
}

size_t rt_ses_symbol_count(const rt_ses *s) { return s->nsym; }

int rt_ses_is_original(const rt_ses *s, int32_t id)
{
    return id >= 0 && (size_t)id < s->nsym && s->orig[id];
}

int rt_ses_is_composite(const rt_ses *s, int32_t id)
{
    return id >= 0 && (size_t)id < s->nsym && s->comp_level[id] > 0;
}

/* ---- session and members ---- */

rt_ses *rt_ses_new(void)
{
    rt_ses *s = calloc(1, sizeof *s);
    if (s)
        s->counter = 1;
    return s;
}

void rt_version_free(rt_version *v)
{
    free(v->sym);
    free(v->start);
    v->sym = NULL;
    v->start = NULL;
}

void rt_ses_free(rt_ses *s)
{
    if (!s)
        return;
    for (size_t k = 0; k < s->nmem; k++) {
        rt_member *m = &s->mem[k];
        for (size_t d = 0; d <= s->nsteps; d++)
            rt_version_free(&m->ver[d]);
        free(m->ver);
        free(m->E);
        free(m->label);
    }
    free(s->mem);
    for (size_t i = 0; i < s->nsym; i++)
        free(s->names[i]);
    free(s->names);
    free(s->hash);
    free(s->len);
    free(s->orig);
    free(s->comp_level);
    free(s->slots);
    for (size_t i = 0; i < s->nsteps; i++)
        free(s->steps[i].desc);
    free(s->steps);
    free(s);
}

size_t rt_ses_members(const rt_ses *s) { return s->nmem; }
const char *rt_ses_label(const rt_ses *s, size_t k) { return s->mem[k].label; }
size_t rt_ses_length(const rt_ses *s, size_t k) { return RT_CUR(s, k)->n; }
const int32_t *rt_ses_symbols(const rt_ses *s, size_t k) { return RT_CUR(s, k)->sym; }

double rt_ses_time(const rt_ses *s, size_t k, size_t i)
{
    const rt_version *v = RT_CUR(s, k);
    return s->mem[k].E[v->start[i + 1]] - s->mem[k].E[v->start[i]];
}

double rt_ses_entry(const rt_ses *s, size_t k, size_t i)
{
    return s->mem[k].E[RT_CUR(s, k)->start[i]];
}

void rt_ses_range(const rt_ses *s, size_t k, size_t i, size_t *first, size_t *last)
{
    const rt_version *v = RT_CUR(s, k);
    *first = v->start[i];
    *last = v->start[i + 1];
}

int rt_version_alloc(rt_version *v, size_t n)
{
    v->sym = malloc((n ? n : 1) * sizeof *v->sym);
    v->start = malloc((n + 1) * sizeof *v->start);
    v->n = 0;
    if (!v->sym || !v->start) {
        rt_version_free(v);
        return RT_ENOMEM;
    }
    return RT_OK;
}

int rt_ses_add_owned(rt_ses *s, const char *label, int32_t *ids, double *E, size_t m,
                      rt_err *err)
{
    if (m >= UINT32_MAX) {
        free(ids);
        free(E);
        return rt_err_at(err, RT_ERANGE, label, 0, "more than %u states", (unsigned)UINT32_MAX);
    }
    rt_member *mem = realloc(s->mem, (s->nmem + 1) * sizeof *mem);
    rt_version *ver = malloc(sizeof *ver);
    uint32_t *start = malloc((m + 1) * sizeof *start);
    char *lab = strdup(label);
    if (mem)
        s->mem = mem;
    if (!mem || !ver || !start || !lab) {
        free(ver);
        free(start);
        free(lab);
        free(ids);
        free(E);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", label);
    }
    for (size_t i = 0; i <= m; i++)
        start[i] = (uint32_t)i;
    for (size_t i = 0; i < m; i++)
        s->orig[ids[i]] = 1;
    ver[0].sym = ids;
    ver[0].start = start;
    ver[0].n = m;
    rt_member *x = &s->mem[s->nmem++];
    x->label = lab;
    x->E = E;
    x->m = m;
    x->ver = ver;
    x->capver = 1;
    return RT_OK;
}

int rt_ses_add_ids(rt_ses *s, const char *label, size_t n, const int32_t *ids,
                   const double *times, rt_err *err)
{
    rt_err_clear(err);
    if (s->nsteps)
        return rt_err_at(err, RT_ESTATE, label, 0, "members are added before the first transform");
    if (n < 2)
        return rt_err_at(err, RT_EFORMAT, label, 0, "a PES needs at least two states (found %zu)", n);
    for (size_t i = 0; i < n; i++) {
        if (ids[i] < 0 || (size_t)ids[i] >= s->nsym)
            return rt_err_at(err, RT_EINVAL, label, 0, "state %zu: bad symbol id %d", i + 1, (int)ids[i]);
        if (!isfinite(times[i]))
            return rt_err_at(err, RT_EFORMAT, label, 0, "state %zu: time is not finite", i + 1);
        if (i && times[i] < times[i - 1])
            return rt_err_at(err, RT_EFORMAT, label, 0,
                             "state %zu: time %.17g is less than the previous time %.17g",
                             i + 1, times[i], times[i - 1]);
    }
    int32_t *cp = malloc((n - 1) * sizeof *cp);
    double *E = malloc(n * sizeof *E);
    if (!cp || !E) {
        free(cp);
        free(E);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", label);
    }
    memcpy(cp, ids, (n - 1) * sizeof *cp);
    memcpy(E, times, n * sizeof *E);
    s->orig[ids[n - 1]] = 1;
    return rt_ses_add_owned(s, label, cp, E, n - 1, err);
}

int rt_ses_add(rt_ses *s, const char *label, size_t n, const char *const *names,
               const double *times, rt_err *err)
{
    int32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", label);
    for (size_t i = 0; i < n; i++) {
        if (!names[i][0]) {
            free(ids);
            return rt_err_at(err, RT_EFORMAT, label, 0, "state %zu: empty name", i + 1);
        }
        ids[i] = rt_ses_intern(s, names[i], strlen(names[i]));
        if (ids[i] < 0) {
            free(ids);
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", label);
        }
    }
    int st = rt_ses_add_ids(s, label, n, ids, times, err);
    free(ids);
    return st;
}
