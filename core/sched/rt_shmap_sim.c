/* rt_shmap_sim.c - SHMAP simulation: events executed on PEs and caches (see rt_shmap_sim.h). */
#include "rt_shmap_sim.h"

#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* A growable copy of a string (a PE's subroutine name or message). */
typedef struct text {
    char *p;
    size_t cap;
} text;

struct rt_shmap_sim {
    rt_shmap *trace;
    rt_sched *sched;
    int npes, ncaches;
    rt_cache **caches;      /* ncaches, owned; NULL when the cache is off */
    int *cache_of;          /* per PE */
    uint64_t line;
    int nmat;
    uint64_t *base;         /* word address of each matrix */
    uint64_t *elem0;        /* offset of each matrix in the reference-count arrays */
    uint64_t *ref_load, *ref_store;
    rt_shmap_pe *pe;
    text *sub, *info;       /* storage behind pe[p].subroutine / info */
    rt_shmap_access_fn fn;
    void *fn_ud;
    double time;
};

static int text_set(text *t, const char *s)
{
    size_t n = strlen(s) + 1;
    if (rt_grow((void **)&t->p, &t->cap, n, 1) != RT_OK)
        return RT_ENOMEM;
    memcpy(t->p, s, n);
    return RT_OK;
}

void rt_shmap_sim_free(rt_shmap_sim *s)
{
    if (!s)
        return;
    if (s->caches)
        for (int i = 0; i < s->ncaches; i++)
            rt_cache_free(s->caches[i]);
    free(s->caches);
    if (s->sub)
        for (int p = 0; p < s->npes; p++) {
            free(s->sub[p].p);
            free(s->info[p].p);
        }
    free(s->sub);
    free(s->info);
    free(s->pe);
    free(s->cache_of);
    free(s->base);
    free(s->elem0);
    free(s->ref_load);
    free(s->ref_store);
    rt_sched_free(s->sched);
    free(s);
}

static void free_caches(rt_cache **caches, int n)
{
    for (int i = 0; caches && i < n; i++)
        rt_cache_free(caches[i]);
}

rt_shmap_sim *rt_shmap_sim_new(rt_shmap *trace, int pes, rt_cache **caches, int ncaches,
                               uint64_t line, rt_err *err)
{
    if (line < 1) {
        free_caches(caches, ncaches);
        rt_err_set(err, RT_EINVAL, "line: must be at least 1");
        return NULL;
    }
    if (pes < 1 || pes > RT_SCHED_MAX_PES) {
        free_caches(caches, ncaches);
        rt_err_set(err, RT_ERANGE, "pes: %d is outside 1..%d", pes, RT_SCHED_MAX_PES);
        return NULL;
    }
    if (caches ? (ncaches < 1 || ncaches > pes) : ncaches != 0) {
        free_caches(caches, ncaches);
        rt_err_set(err, RT_ERANGE, "caches: %d is outside 1..%d (the number of PEs)", ncaches, pes);
        return NULL;
    }
    for (int i = 0; i < ncaches; i++)
        if (rt_cache_config_get(caches[i])->line != line) {
            free_caches(caches, ncaches);
            rt_err_set(err, RT_EINVAL, "line: cache %d has lines of %llu words, not %llu", i,
                       (unsigned long long)rt_cache_config_get(caches[i])->line,
                       (unsigned long long)line);
            return NULL;
        }
    rt_shmap_sim *s = calloc(1, sizeof *s);
    if (!s) {
        free_caches(caches, ncaches);
        goto nomem;
    }
    s->trace = trace;
    s->npes = pes;
    s->ncaches = ncaches;
    s->line = line;
    if (caches) {
        s->caches = malloc((size_t)ncaches * sizeof *s->caches);
        if (!s->caches) {
            free_caches(caches, ncaches);
            s->ncaches = 0;
            goto nomem;
        }
        memcpy(s->caches, caches, (size_t)ncaches * sizeof *caches);
    }
    s->nmat = rt_shmap_matrix_count(trace);
    s->pe = calloc((size_t)pes, sizeof *s->pe);
    s->sub = calloc((size_t)pes, sizeof *s->sub);
    s->info = calloc((size_t)pes, sizeof *s->info);
    s->cache_of = calloc((size_t)pes, sizeof *s->cache_of);
    s->base = calloc((size_t)s->nmat + 1, sizeof *s->base);
    s->elem0 = calloc((size_t)s->nmat + 1, sizeof *s->elem0);
    if (!s->pe || !s->sub || !s->info || !s->cache_of || !s->base || !s->elem0)
        goto nomem;
    uint64_t total = 0;
    for (int i = 0; i < s->nmat; i++) {
        const rt_shmap_matrix *m = rt_shmap_matrix_at(trace, i);
        s->elem0[i] = total;
        total += (uint64_t)m->rows * (uint64_t)m->cols;
    }
    s->elem0[s->nmat] = total;
    s->ref_load = calloc(total ? total : 1, sizeof *s->ref_load);
    s->ref_store = calloc(total ? total : 1, sizeof *s->ref_store);
    if (!s->ref_load || !s->ref_store)
        goto nomem;
    rt_shmap_layout(trace, line, s->base);
    for (int p = 0; p < pes; p++) {
        s->cache_of[p] = caches ? (int)((int64_t)p * ncaches / pes) : -1;
        s->pe[p].subroutine = s->pe[p].info = "";
        s->pe[p].info_matrix = -1;
    }
    s->sched = rt_sched_new(trace, pes, err);
    if (!s->sched) {
        rt_shmap_sim_free(s);
        return NULL;
    }
    return s;
nomem:
    rt_shmap_sim_free(s);
    rt_err_set(err, RT_ENOMEM, "out of memory");
    return NULL;
}

void rt_shmap_sim_subscribe(rt_shmap_sim *s, rt_shmap_access_fn fn, void *ud)
{
    s->fn = fn;
    s->fn_ud = ud;
}

/* A load or store of a block by PE p. */
static int access_block(rt_shmap_sim *s, int p, const rt_shmap_event *ev, rt_err *err)
{
    const int store = ev->op == RT_SHM_STORE;
    const rt_shmap_matrix *m = rt_shmap_matrix_at(s->trace, ev->matrix);
    const uint64_t rows = (uint64_t)m->rows;
    const uint64_t base = s->base[ev->matrix];
    uint64_t *refs = (store ? s->ref_store : s->ref_load) + s->elem0[ev->matrix];
    const int ci = s->cache_of[p];
    rt_cache *c = ci >= 0 && (!store || rt_cache_config_get(s->caches[ci])->write_back)
                      ? s->caches[ci]
                      : NULL;
    const uint64_t nrow = (uint64_t)(ev->r2 - ev->r1 + 1);
    const uint64_t n = nrow * (uint64_t)(ev->c2 - ev->c1 + 1);
    if (store)
        s->pe[p].stores += n;
    else
        s->pe[p].loads += n;
    s->time = ev->time;
    if (!c && !s->fn) { /* fast path: counts only */
        for (int col = ev->c1; col <= ev->c2; col++) {
            uint64_t *r = refs + (uint64_t)(col - 1) * rows + (uint64_t)(ev->r1 - 1);
            for (uint64_t k = 0; k < nrow; k++)
                r[k]++;
        }
        return RT_OK;
    }
    rt_cache_result res;
    rt_shmap_access a;
    memset(&res, 0, sizeof res);
    if (s->fn) {
        memset(&a, 0, sizeof a);
        a.step = rt_sched_steps(s->sched);
        a.pe = p;
        a.cache = c ? ci : -1;
        a.matrix = ev->matrix;
        a.store = store;
        a.time = ev->time;
    }
    for (int col = ev->c1; col <= ev->c2; col++) {
        uint64_t off = (uint64_t)(col - 1) * rows;
        for (int row = ev->r1; row <= ev->r2; row++) {
            uint64_t e = off + (uint64_t)(row - 1);
            uint64_t addr = base + e;
            refs[e]++;
            int outcome = RT_SHM_NOLOOKUP;
            if (c) {
                int st = rt_cache_access(c, addr, store, s->fn ? &res : NULL);
                if (st != RT_OK)
                    return rt_err_set(err, st, "%s", rt_cache_error(c));
                if (!s->fn)
                    continue;
                outcome = res.hit ? RT_SHM_HIT : RT_SHM_MISS;
            }
            a.row = row;
            a.col = col;
            a.addr = addr;
            a.outcome = outcome;
            if (outcome == RT_SHM_MISS) {
                a.line_first = res.line * s->line;
                a.line_last = a.line_first + s->line - 1;
                a.evicted = res.evicted;
                a.evicted_first = res.evicted ? res.evicted_line * s->line : 0;
            } else {
                a.line_first = a.line_last = 0;
                a.evicted = 0;
                a.evicted_first = 0;
            }
            if (outcome != RT_SHM_NOLOOKUP) {
                a.set = res.set;
                a.way = res.way;
            }
            s->fn(s->fn_ud, &a);
        }
    }
    return RT_OK;
}

static int execute(rt_shmap_sim *s, int p, const rt_shmap_event *ev, rt_err *err)
{
    rt_shmap_pe *pe = &s->pe[p];
    pe->events++;
    pe->busy_steps++;
    switch (ev->op) {
    case RT_SHM_LOAD:
    case RT_SHM_STORE:
        return access_block(s, p, ev, err);
    case RT_SHM_FLOPS:
        pe->flops += ev->flops;
        if (text_set(&s->sub[p], ev->text) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        pe->subroutine = s->sub[p].p;
        return RT_OK;
    case RT_SHM_INFO:
        if (text_set(&s->info[p], ev->text) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        pe->info = s->info[p].p;
        pe->info_matrix = ev->matrix;
        return RT_OK;
    default: /* unreachable: definitions and markers are not events */
        return RT_OK;
    }
}

int rt_shmap_sim_step(rt_shmap_sim *s, uint64_t n, uint64_t *done, rt_err *err)
{
    uint64_t k = 0;
    int st = RT_OK;
    while (n == 0 || k < n) {
        st = rt_sched_step(s->sched, err);
        if (st != RT_OK)
            break;
        k++;
        for (int p = 0; p < s->npes; p++) {
            const rt_shmap_event *ev = rt_sched_event(s->sched, p);
            if (ev && (st = execute(s, p, ev, err)) != RT_OK)
                goto out;
        }
    }
out:
    if (done)
        *done = k;
    return st;
}

const rt_sched *rt_shmap_sim_sched(const rt_shmap_sim *s) { return s->sched; }
const rt_shmap_pe *rt_shmap_sim_pe(const rt_shmap_sim *s, int p) { return &s->pe[p]; }
int rt_shmap_sim_pes(const rt_shmap_sim *s) { return s->npes; }
int rt_shmap_sim_caches(const rt_shmap_sim *s) { return s->ncaches; }
const rt_cache *rt_shmap_sim_cache(const rt_shmap_sim *s, int i) { return s->caches[i]; }
int rt_shmap_sim_cache_of(const rt_shmap_sim *s, int pe) { return s->cache_of[pe]; }
const rt_shmap *rt_shmap_sim_trace(const rt_shmap_sim *s) { return s->trace; }
double rt_shmap_sim_time(const rt_shmap_sim *s) { return s->time; }
uint64_t rt_shmap_sim_base(const rt_shmap_sim *s, int i) { return s->base[i]; }
const uint64_t *rt_shmap_sim_loads(const rt_shmap_sim *s, int i) { return s->ref_load + s->elem0[i]; }
const uint64_t *rt_shmap_sim_stores(const rt_shmap_sim *s, int i) { return s->ref_store + s->elem0[i]; }

int rt_shmap_sim_locate(const rt_shmap_sim *s, uint64_t addr, int *matrix, int *row, int *col)
{
    int lo = 0, hi = s->nmat - 1, found = -1;
    while (lo <= hi) { /* last matrix whose base <= addr */
        int mid = (lo + hi) / 2;
        if (s->base[mid] <= addr) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    if (found < 0)
        return 0;
    const rt_shmap_matrix *m = rt_shmap_matrix_at(s->trace, found);
    uint64_t e = addr - s->base[found];
    if (e >= (uint64_t)m->rows * (uint64_t)m->cols)
        return 0;
    *matrix = found;
    *row = (int)(e % (uint64_t)m->rows) + 1;
    *col = (int)(e / (uint64_t)m->rows) + 1;
    return 1;
}
