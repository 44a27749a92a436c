/*
 * rt_seq.c - symbol execution sequences: symbol table, ensemble members with
 * version stacks, the transforms and undo (see rt_seq.h for the representation).
 * Chains, periodograms and simulation live in rt_chain.c.
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

static void version_free(rt_version *v)
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
            version_free(&m->ver[d]);
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

static int version_alloc(rt_version *v, size_t n)
{
    v->sym = malloc((n ? n : 1) * sizeof *v->sym);
    v->start = malloc((n + 1) * sizeof *v->start);
    v->n = 0;
    if (!v->sym || !v->start) {
        version_free(v);
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

/* ---- transforms: new versions, commit, undo ---- */

/* A transform under construction: one new version per member. */
typedef struct {
    rt_ses *s;
    rt_version *next; /* s->nmem versions */
    int32_t counter;  /* composite counter before the transform */
} txn;

static int txn_begin(rt_ses *s, txn *t, rt_err *err)
{
    t->s = s;
    t->counter = s->counter;
    t->next = calloc(s->nmem ? s->nmem : 1, sizeof *t->next);
    if (!t->next)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    for (size_t k = 0; k < s->nmem; k++)
        if (version_alloc(&t->next[k], RT_CUR(s, k)->n) != RT_OK) {
            for (size_t j = 0; j < k; j++)
                version_free(&t->next[j]);
            free(t->next);
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        }
    return RT_OK;
}

static void clear_composites_above(rt_ses *s, size_t depth)
{
    for (size_t i = 0; i < s->nsym; i++)
        if (s->comp_level[i] > (int32_t)depth)
            s->comp_level[i] = 0;
}

static int txn_abort(txn *t, int status)
{
    for (size_t k = 0; k < t->s->nmem; k++)
        version_free(&t->next[k]);
    free(t->next);
    t->s->counter = t->counter;
    clear_composites_above(t->s, t->s->nsteps);
    return status;
}

static int txn_commit(txn *t, char *desc, rt_err *err)
{
    rt_ses *s = t->s;
    if (!desc)
        return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
    for (size_t k = 0; k < s->nmem; k++) {
        rt_member *m = &s->mem[k];
        if (m->capver < s->nsteps + 2) {
            size_t cap = m->capver * 2 > s->nsteps + 2 ? m->capver * 2 : s->nsteps + 2;
            rt_version *v = realloc(m->ver, cap * sizeof *v);
            if (!v) {
                free(desc);
                return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
            }
            m->ver = v;
            m->capver = cap;
        }
    }
    rt_step *steps = realloc(s->steps, (s->nsteps + 1) * sizeof *steps);
    if (!steps) {
        free(desc);
        return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
    }
    s->steps = steps;
    for (size_t k = 0; k < s->nmem; k++)
        s->mem[k].ver[s->nsteps + 1] = t->next[k];
    free(t->next);
    s->steps[s->nsteps].desc = desc;
    s->steps[s->nsteps].counter = t->counter;
    s->nsteps++;
    return RT_OK;
}

int rt_ses_undo(rt_ses *s, rt_err *err)
{
    rt_err_clear(err);
    if (!s->nsteps)
        return rt_err_set(err, RT_ESTATE, "undo: nothing to undo");
    s->nsteps--;
    for (size_t k = 0; k < s->nmem; k++)
        version_free(&s->mem[k].ver[s->nsteps + 1]);
    s->counter = s->steps[s->nsteps].counter;
    free(s->steps[s->nsteps].desc);
    clear_composites_above(s, s->nsteps);
    return RT_OK;
}

size_t rt_ses_depth(const rt_ses *s) { return s->nsteps; }

const char *rt_ses_step(const rt_ses *s, size_t i)
{
    return i < s->nsteps ? s->steps[i].desc : NULL;
}

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, f);
    vsnprintf(p, (size_t)n + 1, f, ap);
    va_end(ap);
    return p;
}

/* Append " NAME" for ids[0..n-1] to a description, at most 8 of them. */
static char *describe(const char *head, const rt_ses *s, const int32_t *ids, size_t n,
                      const char *sep, const char *tail)
{
    size_t cap = strlen(head) + strlen(tail) + 32;
    size_t shown = n < 8 ? n : 8;
    for (size_t i = 0; i < shown; i++)
        cap += strlen(s->names[ids[i]]) + strlen(sep);
    char *p = malloc(cap);
    if (!p)
        return NULL;
    strcpy(p, head);
    for (size_t i = 0; i < shown; i++) {
        if (i)
            strcat(p, sep);
        strcat(p, s->names[ids[i]]);
    }
    if (shown < n)
        strcat(p, sep), strcat(p, "...");
    strcat(p, tail);
    return p;
}

/* A composite symbol made by the transform now running (depth nsteps + 1). */
static void mark_composite(rt_ses *s, int32_t id)
{
    if (!s->comp_level[id] && !s->orig[id])
        s->comp_level[id] = (int32_t)s->nsteps + 1;
}

/* The next free name T<k>: never an original symbol nor a live composite. */
static int32_t fresh_composite(rt_ses *s)
{
    char buf[32];
    for (;;) {
        int n = snprintf(buf, sizeof buf, "T%d", (int)s->counter++);
        int32_t id = find_sym(s, buf, (size_t)n, hash_bytes(buf, (size_t)n));
        if (id >= 0 && (s->orig[id] || s->comp_level[id]))
            continue;
        if (id < 0)
            id = rt_ses_intern(s, buf, (size_t)n);
        if (id >= 0)
            mark_composite(s, id);
        return id;
    }
}

int rt_ses_clip(rt_ses *s, size_t ni, size_t nf, rt_err *err)
{
    rt_err_clear(err);
    for (size_t k = 0; k < s->nmem; k++) {
        size_t n = RT_CUR(s, k)->n;
        if (ni > n || nf > n - ni)
            return rt_err_at(err, RT_EINVAL, s->mem[k].label, 0,
                             "clip: n_i + n_f = %zu exceeds the sequence length %zu", ni + nf, n);
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st)
        return st;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        o->n = v->n - ni - nf;
        memcpy(o->sym, v->sym + ni, o->n * sizeof *o->sym);
        memcpy(o->start, v->start + ni, (o->n + 1) * sizeof *o->start);
    }
    return txn_commit(&t, fmt("clip %zu %zu", ni, nf), err);
}

/*
 * Knuth-Morris-Pratt over x[0..n-1]: marks mark[i] = 1 where a non-overlapping
 * occurrence (leftmost first) of pat[0..m-1] starts. fail has m entries.
 */
static uint64_t kmp_mark(const int32_t *x, size_t n, const int32_t *pat, size_t m,
                         const size_t *fail, uint8_t *mark)
{
    uint64_t count = 0;
    size_t q = 0;
    for (size_t i = 0; i < n; i++) {
        while (q > 0 && pat[q] != x[i])
            q = fail[q - 1];
        if (pat[q] == x[i])
            q++;
        if (q == m) {
            mark[i + 1 - m] = 1;
            count++;
            q = 0;
        }
    }
    return count;
}

static void kmp_fail(const int32_t *pat, size_t m, size_t *fail)
{
    fail[0] = 0;
    size_t q = 0;
    for (size_t i = 1; i < m; i++) {
        while (q > 0 && pat[q] != pat[i])
            q = fail[q - 1];
        if (pat[q] == pat[i])
            q++;
        fail[i] = q;
    }
}

static size_t max_length(const rt_ses *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->nmem; k++)
        if (RT_CUR(s, k)->n > n)
            n = RT_CUR(s, k)->n;
    return n;
}

int rt_ses_find(const rt_ses *s, const int32_t *pattern, size_t m,
                void (*cb)(size_t member, size_t start, void *ud), void *ud,
                uint64_t *count, double *time, rt_err *err)
{
    rt_err_clear(err);
    if (m == 0)
        return rt_err_set(err, RT_EINVAL, "pattern: the pattern is empty");
    size_t nmax = max_length(s);
    size_t *fail = malloc(m * sizeof *fail);
    uint8_t *mark = calloc(nmax ? nmax : 1, 1);
    if (!fail || !mark) {
        free(fail);
        free(mark);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    kmp_fail(pattern, m, fail);
    uint64_t total = 0;
    double tsum = 0;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        memset(mark, 0, v->n);
        total += kmp_mark(v->sym, v->n, pattern, m, fail, mark);
        const double *E = s->mem[k].E;
        for (size_t i = 0; i < v->n; i++)
            if (mark[i]) {
                tsum += E[v->start[i + m]] - E[v->start[i]];
                if (cb)
                    cb(k, i, ud);
            }
    }
    free(fail);
    free(mark);
    *count = total;
    *time = tsum;
    return RT_OK;
}

int rt_ses_aggregate(rt_ses *s, const int32_t *pattern, size_t m, const char *name,
                     rt_err *err)
{
    rt_err_clear(err);
    if (m == 0)
        return rt_err_set(err, RT_EINVAL, "aggregate: the pattern is empty");
    if (!name || !name[0])
        return rt_err_set(err, RT_EINVAL, "aggregate: the composite symbol needs a name");
    for (size_t i = 0; i < m; i++)
        if (pattern[i] < 0 || (size_t)pattern[i] >= s->nsym)
            return rt_err_set(err, RT_EINVAL, "aggregate: bad symbol id %d", (int)pattern[i]);
    int32_t z = rt_ses_intern(s, name, strlen(name));
    if (z < 0)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    size_t nmax = max_length(s);
    size_t *fail = malloc(m * sizeof *fail);
    uint8_t *mark = calloc(nmax ? nmax : 1, 1);
    txn t;
    int st = RT_ENOMEM;
    if (!fail || !mark || (st = txn_begin(s, &t, err)) != RT_OK) {
        free(fail);
        free(mark);
        return st == RT_ENOMEM ? rt_err_set(err, RT_ENOMEM, "out of memory") : st;
    }
    mark_composite(s, z);
    kmp_fail(pattern, m, fail);
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        memset(mark, 0, v->n);
        kmp_mark(v->sym, v->n, pattern, m, fail, mark);
        size_t j = 0;
        for (size_t i = 0; i < v->n;) {
            o->start[j] = v->start[i];
            if (mark[i]) {
                o->sym[j++] = z;
                i += m;
            } else {
                o->sym[j++] = v->sym[i++];
            }
        }
        o->start[j] = v->start[v->n];
        o->n = j;
    }
    free(fail);
    free(mark);
    char *head = describe("aggregate ", s, pattern, m, " ", "");
    char *desc = head ? fmt("%s -> %s", head, name) : NULL;
    free(head);
    return txn_commit(&t, desc, err);
}

int rt_ses_project(rt_ses *s, const int32_t *map, size_t nmap, rt_err *err)
{
    rt_err_clear(err);
    size_t nsym = s->nsym;
    int32_t *to = malloc((nsym ? nsym : 1) * sizeof *to);
    uint8_t *target = calloc(nsym ? nsym : 1, 1);
    if (!to || !target) {
        free(to);
        free(target);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    size_t nmapped = 0;
    int32_t shown[8];
    for (size_t i = 0; i < nsym; i++) {
        int32_t y = i < nmap ? map[i] : -1;
        if (y >= (int32_t)nsym) {
            free(to);
            free(target);
            return rt_err_set(err, RT_EINVAL, "project: bad symbol id %d", (int)y);
        }
        to[i] = y < 0 ? (int32_t)i : y;
        if (y >= 0) {
            target[y] = 1;
            if (nmapped < 8)
                shown[nmapped] = (int32_t)i;
            nmapped++;
        }
    }
    if (!nmapped) {
        free(to);
        free(target);
        return rt_err_set(err, RT_EINVAL, "project: the set of symbols is empty");
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st) {
        free(to);
        free(target);
        return st;
    }
    for (size_t i = 0; i < nsym; i++)
        if (target[i])
            mark_composite(s, (int32_t)i);
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        size_t j = 0;
        for (size_t i = 0; i < v->n; i++) {
            int32_t y = to[v->sym[i]];
            if (j && target[y] && o->sym[j - 1] == y)
                continue;
            o->start[j] = v->start[i];
            o->sym[j++] = y;
        }
        o->start[j] = v->start[v->n];
        o->n = j;
    }
    /* description: "project A,B -> Z", or "project A->X, B->Y" for a map */
    int one_target = 1;
    for (size_t i = 0; i < nsym; i++)
        if (i < nmap && map[i] >= 0 && map[i] != to[shown[0]])
            one_target = 0;
    char *desc;
    if (one_target) {
        char *head = describe("project ", s, shown, nmapped < 8 ? nmapped : 8, ",", "");
        desc = head ? fmt("%s%s -> %s", head, nmapped > 8 ? ",..." : "", s->names[to[shown[0]]]) : NULL;
        free(head);
    } else {
        size_t cap = 64, used;
        for (size_t i = 0; i < (nmapped < 8 ? nmapped : 8); i++)
            cap += strlen(s->names[shown[i]]) + strlen(s->names[to[shown[i]]]) + 4;
        desc = malloc(cap);
        if (desc) {
            strcpy(desc, "project ");
            for (size_t i = 0; i < (nmapped < 8 ? nmapped : 8); i++) {
                used = strlen(desc);
                snprintf(desc + used, cap - used, "%s%s->%s", i ? ", " : "", s->names[shown[i]],
                         s->names[to[shown[i]]]);
            }
            if (nmapped > 8) {
                used = strlen(desc);
                snprintf(desc + used, cap - used, ", ... (%zu symbols)", nmapped);
            }
        }
    }
    free(to);
    free(target);
    return txn_commit(&t, desc, err);
}

/* Runs of selected symbols become composites, one per (predecessor, successor). */
static int filter_apply(rt_ses *s, const uint8_t *sel, char *head, rt_err *err)
{
    rt_u64map pairs;
    if (!head || rt_u64map_init(&pairs, 64) != RT_OK) {
        free(head);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st) {
        free(head);
        rt_u64map_free(&pairs);
        return st;
    }
    int32_t first_new = -1, last_new = -1;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        const int32_t *x = v->sym;
        size_t n = v->n, j = 0;
        for (size_t i = 0; i < n;) {
            o->start[j] = v->start[i];
            if (!sel[x[i]]) {
                o->sym[j++] = x[i++];
                continue;
            }
            size_t e = i;
            while (e < n && sel[x[e]])
                e++;
            int32_t pred = i ? x[i - 1] : -1, succ = e < n ? x[e] : -1;
            uint64_t key = ((uint64_t)(uint32_t)(pred + 1) << 32) | (uint32_t)(succ + 1);
            int created;
            int32_t *slot = rt_u64map_slot(&pairs, key, &created);
            if (!slot) {
                free(head);
                rt_u64map_free(&pairs);
                return txn_abort(&t, rt_err_set(err, RT_ENOMEM, "out of memory"));
            }
            if (created) {
                *slot = fresh_composite(s);
                if (*slot < 0) {
                    free(head);
                    rt_u64map_free(&pairs);
                    return txn_abort(&t, rt_err_set(err, RT_ENOMEM, "out of memory"));
                }
                if (first_new < 0)
                    first_new = *slot;
                last_new = *slot;
            }
            o->sym[j++] = *slot;
            i = e;
        }
        o->start[j] = v->start[n];
        o->n = j;
    }
    char *desc;
    if (first_new < 0)
        desc = fmt("%s (no run)", head);
    else if (first_new == last_new)
        desc = fmt("%s -> %s", head, s->names[first_new]);
    else
        desc = fmt("%s -> %s..%s (%zu composites)", head, s->names[first_new],
                   s->names[last_new], pairs.n);
    free(head);
    rt_u64map_free(&pairs);
    return txn_commit(&t, desc, err);
}

int rt_ses_totals(const rt_ses *s, uint64_t *count, double *h, double *total)
{
    memset(count, 0, s->nsym * sizeof *count);
    memset(h, 0, s->nsym * sizeof *h);
    double T = 0;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        const double *E = s->mem[k].E;
        for (size_t i = 0; i < v->n; i++) {
            double d = E[v->start[i + 1]] - E[v->start[i]];
            count[v->sym[i]]++;
            h[v->sym[i]] += d;
        }
        if (v->n)
            T += E[v->start[v->n]] - E[v->start[0]];
    }
    *total = T;
    return RT_OK;
}

static int filter_by(rt_ses *s, int domain, double p, rt_err *err)
{
    size_t nsym = s->nsym;
    uint64_t *count = malloc((nsym ? nsym : 1) * sizeof *count);
    double *h = malloc((nsym ? nsym : 1) * sizeof *h);
    uint8_t *sel = calloc(nsym ? nsym : 1, 1);
    if (!count || !h || !sel) {
        free(count);
        free(h);
        free(sel);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    double T;
    rt_ses_totals(s, count, h, &T);
    int st = RT_OK;
    if (domain == 't' && !(T > 0))
        st = rt_err_set(err, RT_EINVAL, "filter_time: the sequence has no time (T = 0)");
    for (size_t i = 0; !st && i < nsym; i++)
        if (count[i])
            sel[i] = domain == 't' ? h[i] / T < p : (double)count[i] < p;
    free(count);
    free(h);
    if (!st)
        st = filter_apply(s, sel, fmt(domain == 't' ? "filter_time %.15g" : "filter_event %.15g", p), err);
    free(sel);
    return st;
}

int rt_ses_filter_time(rt_ses *s, double p, rt_err *err)
{
    rt_err_clear(err);
    if (!(p > 0 && p < 1))
        return rt_err_set(err, RT_EINVAL, "filter_time: p = %g is outside (0, 1)", p);
    return filter_by(s, 't', p, err);
}

int rt_ses_filter_event(rt_ses *s, double p, rt_err *err)
{
    rt_err_clear(err);
    if (!(p > 0) || !isfinite(p))
        return rt_err_set(err, RT_EINVAL, "filter_event: p = %g must be a positive count", p);
    return filter_by(s, 'e', p, err);
}
