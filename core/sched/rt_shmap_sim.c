/* rt_shmap_sim.c - SHMAP simulation: events executed on PEs and caches (see rt_shmap_sim.h). */
#include "rt_shmap_sim.h"

#include <stdlib.h>
#include <string.h>

#include "rt_hier.h"
#include "rt_mem.h"

/* EPAGE elements of one matrix: their load and store counts, side by side (an
 * observed access reads both). */
#define EPAGE_BITS 10
#define EPAGE (1u << EPAGE_BITS)
typedef struct epage {
    uint64_t key;           /* matrix << 44 | page number, + 1 (0 never used) */
    struct { uint64_t load, store; } n[EPAGE];
} epage;

/* A growable copy of a string (a PE's subroutine name or message). */
typedef struct text {
    char *p;
    size_t cap;
} text;

struct rt_shmap_sim {
    rt_shmap *trace;
    rt_sched *sched;
    int npes, ncaches;
    rt_hier **caches;       /* ncaches one-core machines, owned; NULL when the cache is off */
    rt_cache_config *ccfg;  /* each cache's geometry (ways filled in) and policy */
    rt_cache_stats *cstats; /* each cache's counters */
    int *cache_of;          /* per PE */
    uint64_t line;
    int nmat;
    uint64_t *base;         /* word address of each matrix */
    /* Per-element load / store counts, in pages allocated on first touch, so
     * memory follows the elements a trace touches, not the matrices it declares
     * (a trace may declare a 2^20 x 2^20 matrix and touch a corner of it). */
    epage **pages;          /* open-addressing hash on (matrix, page number) */
    size_t npages, cappages;
    uint64_t max_elements;  /* budget of elements in pages; past it the trace is refused */
    rt_shmap_pe *pe;
    text *sub, *info;       /* storage behind pe[p].subroutine / info */
    struct observer {
        rt_shmap_access_fn fn;
        rt_shmap_batch_fn batch;
        rt_shmap_step_fn step;
        void *ud;
    } obs[RT_SHMAP_SIM_MAX_OBSERVERS];
    int nobs;
    int nfn;                /* observers with an access or batch function */
    int nbatch;             /* observers with a batch function */
    rt_shmap_access abuf[RT_SHMAP_SIM_BATCH]; /* the batch being filled */
    int cursor;             /* next PE to run in the current step; npes when no step is under way */
    int last_info_pe, last_info_matrix;
    text last_info;
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

static void free_policies(const rt_cache_config *caches, int n);

void rt_shmap_sim_free(rt_shmap_sim *s)
{
    if (!s)
        return;
    if (s->caches)
        for (int i = 0; i < s->ncaches; i++)
            rt_hier_free(s->caches[i]);
    free(s->caches);
    free_policies(s->ccfg, s->ncaches);
    free(s->ccfg);
    free(s->cstats);
    if (s->sub)
        for (int p = 0; p < s->npes; p++) {
            free(s->sub[p].p);
            free(s->info[p].p);
        }
    free(s->sub);
    free(s->info);
    free(s->last_info.p);
    free(s->pe);
    free(s->cache_of);
    free(s->base);
    for (size_t i = 0; i < s->cappages; i++)
        free(s->pages[i]);
    free(s->pages);
    rt_sched_free(s->sched);
    free(s);
}

/* release the policy instances of caches (their policy's free hook) */
static void free_policies(const rt_cache_config *caches, int n)
{
    for (int i = 0; caches && i < n; i++)
        if (caches[i].policy && caches[i].policy->free)
            caches[i].policy->free(caches[i].policy_ud);
}

static void free_caches(const rt_cache_config *caches, int n)
{
    free_policies(caches, n);
}

/* one lookup's counts, as rt_cache counts them */
static inline void count_lookup(rt_cache_stats *cs, const rt_hier_result *r, int store)
{
    cs->refs++;
    cs->hits += (uint64_t)r->hit;
    cs->misses += (uint64_t)!r->hit;
    cs->writes += (uint64_t)store;
    cs->reads += (uint64_t)!store;
    cs->write_misses += (uint64_t)(store && !r->hit);
    cs->read_misses += (uint64_t)(!store && !r->hit);
    cs->evictions += (uint64_t)r->evicted;
    cs->writebacks += (uint64_t)r->evicted_dirty;
}

rt_shmap_sim *rt_shmap_sim_new(rt_shmap *trace, int pes, const rt_cache_config *caches, int ncaches,
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
    for (int i = 0; i < ncaches; i++) {
        if (rt_cache_check_geometry(caches[i].size, caches[i].line, caches[i].ways, "words", err) != RT_OK) {
            free_caches(caches, ncaches);
            return NULL;
        }
        if (caches[i].line != line) {
            free_caches(caches, ncaches);
            rt_err_set(err, RT_EINVAL, "line: cache %d has lines of %llu words, not %llu", i,
                       (unsigned long long)caches[i].line, (unsigned long long)line);
            return NULL;
        }
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
        s->ccfg = malloc((size_t)ncaches * sizeof *s->ccfg);
        if (!s->ccfg) {
            free_caches(caches, ncaches);
            s->ncaches = 0;
            goto nomem;
        }
        memcpy(s->ccfg, caches, (size_t)ncaches * sizeof *caches); /* the policies are ours now */
        s->caches = calloc((size_t)ncaches, sizeof *s->caches);
        s->cstats = calloc((size_t)ncaches, sizeof *s->cstats);
        if (!s->caches || !s->cstats)
            goto nomem;
        for (int i = 0; i < ncaches; i++) {
            /* one core, one level: the model of `retrace cache` */
            rt_cache_config *cc = &s->ccfg[i];
            if (!cc->ways)
                cc->ways = cc->size / cc->line;
            rt_hier_config hc;
            rt_hier_config_single(&hc, cc->size, cc->line, cc->ways);
            hc.seed = cc->seed;
            hc.c[0][RT_HIER_UNIFIED].ops = cc->policy ? cc->policy : &rt_policy_lru;
            hc.c[0][RT_HIER_UNIFIED].ops_ud = cc->policy_ud;
            /* write-back and write-allocate (the fast paths): under write-through
             * stores never reach the machine, they bypass the cache */
            if (rt_hier_new(&hc, &s->caches[i], err) != RT_OK) {
                rt_shmap_sim_free(s);
                return NULL;
            }
        }
    }
    s->nmat = rt_shmap_matrix_count(trace);
    s->pe = calloc((size_t)pes, sizeof *s->pe);
    s->sub = calloc((size_t)pes, sizeof *s->sub);
    s->info = calloc((size_t)pes, sizeof *s->info);
    s->cache_of = calloc((size_t)pes, sizeof *s->cache_of);
    s->base = calloc((size_t)s->nmat + 1, sizeof *s->base);
    s->max_elements = RT_SHMAP_SIM_MAX_ELEMENTS;
    s->cursor = pes;
    s->last_info_pe = s->last_info_matrix = -1;
    if (!s->pe || !s->sub || !s->info || !s->cache_of || !s->base)
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

static void count_observers(rt_shmap_sim *s)
{
    s->nfn = s->nbatch = 0;
    for (int i = 0; i < s->nobs; i++) {
        s->nfn += s->obs[i].fn != NULL || s->obs[i].batch != NULL;
        s->nbatch += s->obs[i].batch != NULL;
    }
}

static int add_observer(rt_shmap_sim *s, rt_shmap_access_fn fn, rt_shmap_batch_fn batch, rt_shmap_step_fn step,
                        void *ud)
{
    if (s->nobs == RT_SHMAP_SIM_MAX_OBSERVERS)
        return RT_ERANGE;
    s->obs[s->nobs].fn = fn;
    s->obs[s->nobs].batch = batch;
    s->obs[s->nobs].step = step;
    s->obs[s->nobs].ud = ud;
    s->nobs++;
    count_observers(s);
    return RT_OK;
}

int rt_shmap_sim_observe(rt_shmap_sim *s, rt_shmap_access_fn fn, rt_shmap_step_fn step, void *ud)
{
    return add_observer(s, fn, NULL, step, ud);
}

int rt_shmap_sim_observe_batch(rt_shmap_sim *s, rt_shmap_batch_fn fn, rt_shmap_step_fn step, void *ud)
{
    return add_observer(s, NULL, fn, step, ud);
}

void rt_shmap_sim_unobserve(rt_shmap_sim *s, void *ud)
{
    int k = 0;
    for (int i = 0; i < s->nobs; i++)
        if (s->obs[i].ud != ud)
            s->obs[k++] = s->obs[i];
    s->nobs = k;
    count_observers(s);
}

void rt_shmap_sim_subscribe(rt_shmap_sim *s, rt_shmap_access_fn fn, void *ud)
{
    rt_shmap_sim_unobserve(s, ud);
    if (fn)
        rt_shmap_sim_observe(s, fn, NULL, ud);
}

/* Deliver one access to every access observer. */
static void notify(const rt_shmap_sim *s, const rt_shmap_access *a)
{
    for (int i = 0; i < s->nobs; i++)
        if (s->obs[i].fn)
            s->obs[i].fn(s->obs[i].ud, a);
}

/* Deliver the first n accesses of abuf to every batch observer. */
static void notify_batch(const rt_shmap_sim *s, size_t n)
{
    for (int i = 0; n && i < s->nobs; i++)
        if (s->obs[i].batch)
            s->obs[i].batch(s->obs[i].ud, s->abuf, n);
}

void rt_shmap_sim_set_max_elements(rt_shmap_sim *s, uint64_t n) { s->max_elements = n; }

static uint64_t page_key(int matrix, uint64_t e)
{
    return ((uint64_t)matrix << 44 | e >> EPAGE_BITS) + 1;
}

static size_t page_slot(const rt_shmap_sim *s, uint64_t key)
{
    size_t mask = s->cappages - 1;
    size_t j = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (s->pages[j] && s->pages[j]->key != key)
        j = (j + 1) & mask;
    return j;
}

/* The page holding element e of matrix i, or NULL when never touched. */
static epage *page_find(const rt_shmap_sim *s, int i, uint64_t e)
{
    return s->cappages ? s->pages[page_slot(s, page_key(i, e))] : NULL;
}

/* The page holding element e of matrix i, made on first touch. NULL when the
 * budget is spent (*over = 1) or memory ran out. */
static epage *page_get(rt_shmap_sim *s, int i, uint64_t e, int *over)
{
    epage *pg = page_find(s, i, e);
    if (pg)
        return pg;
    if ((s->npages + 1) * (uint64_t)EPAGE > s->max_elements + EPAGE - 1) {
        *over = 1;
        return NULL;
    }
    if ((s->npages + 1) * 2 > s->cappages) {
        size_t nc = s->cappages ? s->cappages * 2 : 64;
        epage **old = s->pages;
        size_t oldcap = s->cappages;
        s->pages = calloc(nc, sizeof *s->pages);
        if (!s->pages) {
            s->pages = old;
            return NULL;
        }
        s->cappages = nc;
        for (size_t k = 0; k < oldcap; k++)
            if (old[k])
                s->pages[page_slot(s, old[k]->key)] = old[k];
        free(old);
    }
    pg = calloc(1, sizeof *pg);
    if (!pg)
        return NULL;
    pg->key = page_key(i, e);
    s->pages[page_slot(s, pg->key)] = pg;
    s->npages++;
    return pg;
}

/* The message of a trace that touches more elements than the budget. */
static int over_budget(rt_shmap_sim *s, const rt_shmap_event *ev, const rt_shmap_matrix *m, rt_err *err)
{
    return rt_err_at(err, RT_ERANGE, rt_shmap_name(s->trace), ev->line,
                     "matrix %d: %s of rows %d..%d, columns %d..%d of %d x %d: the elements touched exceed "
                     "the limit of %llu (--max-elements)",
                     m->id, ev->op == RT_SHM_STORE ? "store" : "load", ev->r1, ev->r2, ev->c1, ev->c2,
                     m->rows, m->cols, (unsigned long long)s->max_elements);
}

void rt_shmap_sim_counts(const rt_shmap_sim *s, int i, uint64_t e, uint64_t *loads, uint64_t *stores)
{
    const epage *pg = page_find(s, i, e);
    *loads = pg ? pg->n[e & (EPAGE - 1)].load : 0;
    *stores = pg ? pg->n[e & (EPAGE - 1)].store : 0;
}

uint64_t rt_shmap_sim_elements_held(const rt_shmap_sim *s) { return (uint64_t)s->npages * EPAGE; }

/* Count one access of element e (matrix i); RT_OK, RT_ERANGE over the budget, RT_ENOMEM. */
static int count_access(rt_shmap_sim *s, int i, uint64_t e, int store, epage **cache)
{
    epage *pg = *cache;
    if (!pg || pg->key != page_key(i, e)) {
        int over = 0;
        pg = page_get(s, i, e, &over);
        if (!pg)
            return over ? RT_ERANGE : RT_ENOMEM;
        *cache = pg;
    }
    if (store)
        pg->n[e & (EPAGE - 1)].store++;
    else
        pg->n[e & (EPAGE - 1)].load++;
    return RT_OK;
}

/* A load or store of a block by PE p. */
static int access_block(rt_shmap_sim *s, int p, const rt_shmap_event *ev, rt_err *err)
{
    const int store = ev->op == RT_SHM_STORE;
    const rt_shmap_matrix *m = rt_shmap_matrix_at(s->trace, ev->matrix);
    const uint64_t rows = (uint64_t)m->rows;
    const uint64_t base = s->base[ev->matrix];
    epage *pg = NULL; /* the page of the last element counted */
    const int ci = s->cache_of[p];
    rt_hier *c = ci >= 0 && (!store || s->ccfg[ci].write_back) ? s->caches[ci] : NULL;
    rt_cache_stats *cs = c ? &s->cstats[ci] : NULL;
    const uint64_t nrow = (uint64_t)(ev->r2 - ev->r1 + 1);
    const uint64_t n = nrow * (uint64_t)(ev->c2 - ev->c1 + 1);
    if (store)
        s->pe[p].stores += n;
    else
        s->pe[p].loads += n;
    s->time = ev->time;
    if (n > s->max_elements) /* refused before any work: no page could hold it */
        return over_budget(s, ev, m, err);
    if (!c && !s->nfn) { /* fast path: counts only */
        for (int col = ev->c1; col <= ev->c2; col++) {
            uint64_t e = (uint64_t)(col - 1) * rows + (uint64_t)(ev->r1 - 1);
            for (uint64_t k = 0; k < nrow; k++) {
                int st = count_access(s, ev->matrix, e + k, store, &pg);
                if (st == RT_ERANGE)
                    return over_budget(s, ev, m, err);
                if (st != RT_OK)
                    return rt_err_at(err, st, rt_shmap_name(s->trace), ev->line, "out of memory");
            }
        }
        return RT_OK;
    }
    rt_hier_result res;
    memset(&res, 0, sizeof res);
    const uint64_t step = rt_sched_steps(s->sched);
    size_t nb = 0;    /* accesses in abuf */
    size_t ready = 0; /* abuf[0 .. ready-1] hold this event's fields already */
    for (int col = ev->c1; col <= ev->c2; col++) {
        uint64_t off = (uint64_t)(col - 1) * rows;
        for (int row = ev->r1; row <= ev->r2; row++) {
            uint64_t e = off + (uint64_t)(row - 1);
            uint64_t addr = base + e;
            int cst = count_access(s, ev->matrix, e, store, &pg);
            if (cst == RT_ERANGE)
                return over_budget(s, ev, m, err);
            if (cst != RT_OK)
                return rt_err_at(err, cst, rt_shmap_name(s->trace), ev->line, "out of memory");
            int outcome = RT_SHM_NOLOOKUP;
            if (c) {
                int st = rt_hier_access(c, 0, addr, 1, store ? RT_REF_WRITE : RT_REF_READ, &res);
                if (st != RT_OK)
                    return rt_err_set(err, st, "%s", rt_hier_error(c));
                count_lookup(cs, &res, store);
                if (!s->nfn)
                    continue;
                outcome = res.hit ? RT_SHM_HIT : RT_SHM_MISS;
            }
            rt_shmap_access *ap = &s->abuf[nb];
            if (nb >= ready) { /* the event's own fields, once per slot of the batch */
                ap->step = step;
                ap->pe = p;
                ap->cache = c ? ci : -1;
                ap->matrix = ev->matrix;
                ap->store = store;
                ap->time = ev->time;
                ready = nb + 1;
            }
            ap->row = row;
            ap->col = col;
            ap->addr = addr;
            ap->refs = pg->n[e & (EPAGE - 1)].load + pg->n[e & (EPAGE - 1)].store;
            ap->outcome = outcome;
            if (outcome == RT_SHM_MISS) {
                ap->line_first = res.block * s->line;
                ap->line_last = ap->line_first + s->line - 1;
                ap->evicted = res.evicted;
                ap->evicted_first = res.evicted ? res.evicted_block * s->line : 0;
            } else {
                ap->line_first = ap->line_last = 0;
                ap->evicted = 0;
                ap->evicted_first = 0;
            }
            ap->set = outcome != RT_SHM_NOLOOKUP ? res.set : 0;
            ap->way = outcome != RT_SHM_NOLOOKUP ? res.way : 0;
            if (s->nfn > s->nbatch)
                notify(s, ap);
            if (s->nbatch && ++nb == RT_SHMAP_SIM_BATCH) {
                notify_batch(s, nb);
                nb = 0;
            }
        }
    }
    notify_batch(s, nb);
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
        if (text_set(&s->last_info, ev->text) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        s->last_info_pe = p;
        s->last_info_matrix = ev->matrix;
        return RT_OK;
    default: /* unreachable: definitions and markers are not events */
        return RT_OK;
    }
}

/* End of a step: its observers run. */
static void end_step(rt_shmap_sim *s)
{
    s->cursor = s->npes;
    for (int i = 0; i < s->nobs; i++)
        if (s->obs[i].step)
            s->obs[i].step(s->obs[i].ud, s);
}

/* The next PE at or after p with an event in the current step, or npes. */
static int next_busy(const rt_shmap_sim *s, int p)
{
    while (p < s->npes && !rt_sched_event(s->sched, p))
        p++;
    return p;
}

/* Run the rest of the current step, or a whole new one. RT_OK, RT_EEOF, an error. */
static int run_step(rt_shmap_sim *s, rt_err *err)
{
    if (s->cursor >= s->npes) {
        int st = rt_sched_step(s->sched, err);
        if (st != RT_OK)
            return st;
        s->cursor = 0;
    }
    for (int p = next_busy(s, s->cursor); p < s->npes; p = next_busy(s, p + 1)) {
        s->cursor = p + 1;
        int st = execute(s, p, rt_sched_event(s->sched, p), err);
        if (st != RT_OK)
            return st;
    }
    end_step(s);
    return RT_OK;
}

int rt_shmap_sim_step(rt_shmap_sim *s, uint64_t n, uint64_t *done, rt_err *err)
{
    uint64_t k = 0;
    int st = RT_OK;
    while (n == 0 || k < n) {
        st = run_step(s, err);
        if (st != RT_OK)
            break;
        k++;
    }
    if (done)
        *done = k;
    return st;
}

int rt_shmap_sim_step_events(rt_shmap_sim *s, uint64_t n, uint64_t *done, rt_err *err)
{
    uint64_t k = 0;
    int st = RT_OK;
    while (k < n) {
        if (s->cursor >= s->npes) {
            st = rt_sched_step(s->sched, err);
            if (st != RT_OK)
                break;
            s->cursor = 0;
        }
        int p = next_busy(s, s->cursor);
        if (p < s->npes) {
            s->cursor = p + 1;
            st = execute(s, p, rt_sched_event(s->sched, p), err);
            if (st != RT_OK)
                break;
            k++;
        }
        if (next_busy(s, s->cursor) >= s->npes)
            end_step(s);
    }
    if (done)
        *done = k;
    return st;
}

int rt_shmap_sim_mid_step(const rt_shmap_sim *s) { return s->cursor < s->npes; }

const char *rt_shmap_sim_last_info(const rt_shmap_sim *s, int *pe, int *matrix)
{
    if (pe)
        *pe = s->last_info_pe;
    if (matrix)
        *matrix = s->last_info_matrix;
    return s->last_info.p ? s->last_info.p : "";
}

const rt_sched *rt_shmap_sim_sched(const rt_shmap_sim *s) { return s->sched; }
const rt_shmap_pe *rt_shmap_sim_pe(const rt_shmap_sim *s, int p) { return &s->pe[p]; }
int rt_shmap_sim_pes(const rt_shmap_sim *s) { return s->npes; }
int rt_shmap_sim_caches(const rt_shmap_sim *s) { return s->ncaches; }
const rt_cache_stats *rt_shmap_sim_cache_stats(const rt_shmap_sim *s, int i) { return &s->cstats[i]; }
const rt_cache_config *rt_shmap_sim_cache_config(const rt_shmap_sim *s, int i) { return &s->ccfg[i]; }
uint64_t rt_shmap_sim_cache_line_at(const rt_shmap_sim *s, int i, uint32_t set, uint32_t way)
{
    return rt_hier_line_at(s->caches[i], 0, 0, RT_HIER_UNIFIED, set, way);
}
int rt_shmap_sim_cache_of(const rt_shmap_sim *s, int pe) { return s->cache_of[pe]; }
const rt_shmap *rt_shmap_sim_trace(const rt_shmap_sim *s) { return s->trace; }
double rt_shmap_sim_time(const rt_shmap_sim *s) { return s->time; }
uint64_t rt_shmap_sim_base(const rt_shmap_sim *s, int i) { return s->base[i]; }

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
