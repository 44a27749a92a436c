/*
 * rt_seq_stream.c - clip, project and aggregate applied to a PES as it is read,
 * each a stage of a pipeline that passes elements on as soon as they are final,
 * the last stage feeding the chain builder (rt_pes_chain_ops, rt_seq.h). Each
 * stage follows its rt_ses_* transform (rt_seq_transform.c) element for element:
 *   clip       skips its first ni elements and holds back its last nf in a ring;
 *   project    keeps the run of one target symbol open until another symbol comes;
 *   aggregate  runs the Knuth-Morris-Pratt automaton of rt_ses_aggregate, holding
 *              the elements of a partial match (fewer than the pattern's length);
 *   filter     merges a run of selected symbols into one element, named when the
 *              symbol after the run comes (rt_ses_filter_*'s (predecessor, successor)
 *              composites). Which symbols it selects depends on the totals of its
 *              whole input: a pass over the file through the stages before it (the
 *              last stage then a tally instead of the chain) gives them first.
 * An element covers a range of the original sequence; a composite's definition
 * walks the original states of that range, which go to an rt_spill (one block in
 * memory, the rest in a temporary file) as they are read and come back in order.
 */
#include "rt_seq.h"
#include "rt_seq_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_spill.h"

/* An element of some stage's output: its symbol, entry and end times, original range. */
typedef struct {
    int32_t sym;
    double e0, e1;
    uint64_t o0, o1;
} elem;

/* An original state as spilled: its symbol and time. */
typedef struct {
    int32_t sym;
    int32_t pad; /* (written as 0: no uninitialised byte goes to the file) */
    double t;
} orig;

typedef struct {
    rt_seq_op op;
    rt_seq_op_out *out;
    uint8_t *seen;      /* symbols seen in the output (distinct) */
    size_t nseen;
    /* clip */
    size_t nin;         /* elements come in */
    elem *ring;
    size_t rcap, rhead, rn;
    /* project */
    int32_t *to;
    uint8_t *target;
    int open;
    elem cur;
    /* aggregate */
    size_t *fail, q;
    elem *buf;
    /* filter: the symbols selected, the composite of each (predecessor, successor) */
    uint8_t *sel;
    size_t nsel;
    rt_u64map pairs;
    int has_pairs, in_run;
    elem run;
    int32_t pred, first_new, last_new;
} stage;

typedef struct {
    rt_ses *s;
    stage *st;
    size_t nst;          /* the stages of this pass */
    int tally;           /* the sink counts (totals) instead of building the chain */
    uint64_t *count;     /* the tally: per symbol, its elements and time */
    double *h;
    size_t ntally;
    double t0, t1;       /* the first element's entry, the last one's end */
    const char *path;
    uint64_t step;
    void (*progress)(void *ud, uint64_t done, uint64_t total);
    void *pud;
    size_t nsym;         /* symbols known before the stream */
    int changed;         /* the reader met a name the names pass did not */
    /* the sink: the chain */
    rt_chain_build *cb;
    int32_t before;      /* the last element's symbol */
    size_t nfed;
    /* the original states, for composites */
    rt_spill *origs;
    uint64_t nread;      /* originals appended */
    orig *rb;            /* a window of origs read back: [rb_first, rb_first + rb_n) */
    uint64_t rb_first;
    size_t rb_n, rb_cap;
} pipe;

static int push(pipe *p, size_t i, elem e);

/* Original state j (j at or after the window's start). */
static int orig_at(pipe *p, uint64_t j, orig *o)
{
    if (j < p->rb_first || j >= p->rb_first + p->rb_n) {
        uint64_t left = p->nread - j;
        size_t n = left < p->rb_cap ? (size_t)left : p->rb_cap;
        int st = rt_spill_read(p->origs, (int64_t)j, n, p->rb);
        if (st != RT_OK)
            return st == RT_EINVAL ? RT_ENOMEM : st;
        p->rb_first = j;
        p->rb_n = n;
    }
    *o = p->rb[j - p->rb_first];
    return RT_OK;
}

/* Grows a per-symbol array of n entries of size sz (zeroed) to cover symbol sym. */
static int cover(void *pa, size_t *n, size_t sz, int32_t sym)
{
    if ((size_t)sym < *n)
        return RT_OK;
    size_t want = (size_t)sym + 1 > 2 * *n ? (size_t)sym + 1 : 2 * *n;
    void **a = pa;
    char *q = realloc(*a, want * sz);
    if (!q)
        return RT_ENOMEM;
    memset(q + *n * sz, 0, (want - *n) * sz);
    *a = q;
    *n = want;
    return RT_OK;
}

/* The tally takes element e (rt_ses_totals' loop body, as a stream). */
static int tally(pipe *p, elem e)
{
    size_t n = p->ntally;
    if (cover(&p->count, &n, sizeof *p->count, e.sym) != RT_OK ||
        cover(&p->h, &p->ntally, sizeof *p->h, e.sym) != RT_OK)
        return RT_ENOMEM;
    if (!p->nfed++)
        p->t0 = e.e0;
    p->t1 = e.e1;
    p->count[e.sym]++;
    p->h[e.sym] += e.e1 - e.e0;
    return RT_OK;
}

/* The chain takes element e (rt_ses_chain's loop body, as a stream). */
static int sink(pipe *p, elem e)
{
    if (p->tally)
        return tally(p, e);
    rt_chain_build *b = p->cb;
    if (rt_chain_build_symbols(b, rt_ses_symbol_count(p->s)) != RT_OK || /* (a filter's composites) */
        rt_chain_build_state(b, e.sym, e.e1 - e.e0) < 0 ||
        (p->nfed && rt_chain_build_arc(b, p->before, e.sym) != RT_OK))
        return RT_ENOMEM;
    p->before = e.sym;
    p->nfed++;
    if (p->s->comp_level[e.sym] > 0) {
        rt_chain_build_comp_begin(b, e.sym);
        for (uint64_t j = e.o0; j < e.o1; j++) {
            orig o;
            int st = orig_at(p, j, &o);
            if (st != RT_OK)
                return st;
            if (rt_chain_build_comp_step(b, o.sym, o.t) != RT_OK)
                return RT_ENOMEM;
        }
        rt_chain_build_comp_end(b);
    }
    return RT_OK;
}

/* Stage i's output e: counted, then to the next stage. */
static int emit(pipe *p, size_t i, elem e)
{
    stage *g = &p->st[i];
    if (cover(&g->seen, &g->nseen, 1, e.sym) != RT_OK)
        return RT_ENOMEM;
    if (!g->seen[e.sym]) {
        g->seen[e.sym] = 1;
        g->out->distinct++;
    }
    if (g->out->length++ == 0)
        g->out->first = e.sym;
    return push(p, i + 1, e);
}

/* A filter's run, if one is open, ends before symbol succ (-1: the end): its composite goes on. */
static int close_run(pipe *p, size_t i, int32_t succ)
{
    stage *g = &p->st[i];
    if (!g->in_run)
        return RT_OK;
    g->in_run = 0;
    uint64_t key = ((uint64_t)(uint32_t)(g->pred + 1) << 32) | (uint32_t)(succ + 1);
    int created;
    int32_t *slot = rt_u64map_slot(&g->pairs, key, &created);
    if (!slot)
        return RT_ENOMEM;
    if (created) {
        *slot = rt_ses_fresh_composite(p->s);
        if (*slot < 0)
            return RT_ENOMEM;
        if (g->first_new < 0)
            g->first_new = *slot;
        g->last_new = *slot;
    }
    g->run.sym = *slot;
    return emit(p, i, g->run);
}

static int push(pipe *p, size_t i, elem e)
{
    if (i == p->nst)
        return sink(p, e);
    stage *g = &p->st[i];
    switch (g->op.kind) {
    case 'c':
        if (g->nin++ < g->op.ni)
            return RT_OK;
        if (!g->op.nf)
            return emit(p, i, e);
        if (g->rn == g->rcap && g->rcap < g->op.nf) { /* grows up to nf, as elements come */
            size_t want = g->rcap ? 2 * g->rcap : 64;
            if (want > g->op.nf)
                want = g->op.nf;
            elem *r = malloc(want * sizeof *r);
            if (!r)
                return RT_ENOMEM;
            for (size_t k = 0; k < g->rn; k++)
                r[k] = g->ring[(g->rhead + k) % g->rcap];
            free(g->ring);
            g->ring = r;
            g->rcap = want;
            g->rhead = 0;
        }
        if (g->rn < g->rcap) {
            g->ring[(g->rhead + g->rn++) % g->rcap] = e;
            return RT_OK;
        }
        {
            elem old = g->ring[g->rhead]; /* not among the last nf */
            g->ring[g->rhead] = e;
            g->rhead = (g->rhead + 1) % g->rcap;
            return emit(p, i, old);
        }
    case 'p': {
        int32_t y = (size_t)e.sym < g->op.nmap ? g->to[e.sym] : e.sym; /* (a filter's composite: itself) */
        if (g->open && (size_t)y < g->op.nmap && g->target[y] && g->cur.sym == y) { /* the run goes on */
            g->cur.e1 = e.e1;
            g->cur.o1 = e.o1;
            return RT_OK;
        }
        elem prev = g->cur;
        int was = g->open;
        g->cur = e;
        g->cur.sym = y;
        g->open = 1;
        return was ? emit(p, i, prev) : RT_OK;
    }
    case 't':
    case 'e': /* filter_apply's loop, as a stream */
        if ((size_t)e.sym < g->nsel && g->sel[e.sym]) {
            if (g->in_run) {
                g->run.e1 = e.e1;
                g->run.o1 = e.o1;
            } else {
                g->run = e;
                g->in_run = 1;
            }
            return RT_OK;
        } else {
            int st = close_run(p, i, e.sym);
            g->pred = e.sym;
            return st != RT_OK ? st : emit(p, i, e);
        }
    default: { /* 'a': rt_ses_aggregate's automaton; buf holds the q elements matched */
        const int32_t *pat = g->op.pat;
        size_t m = g->op.m, q = g->q;
        while (q > 0 && pat[q] != e.sym)
            q = g->fail[q - 1];
        /* the elements that left the match are final */
        size_t drop = g->q - q;
        for (size_t k = 0; k < drop; k++) {
            int st = emit(p, i, g->buf[k]);
            if (st != RT_OK)
                return st;
        }
        memmove(g->buf, g->buf + drop, q * sizeof *g->buf);
        if (pat[q] == e.sym) {
            g->buf[q++] = e;
        } else {
            g->q = 0;
            return emit(p, i, e);
        }
        g->q = q;
        if (q == m) {
            elem z = {g->op.z, g->buf[0].e0, g->buf[m - 1].e1, g->buf[0].o0, g->buf[m - 1].o1};
            g->q = 0;
            return emit(p, i, z);
        }
        return RT_OK;
    }
    }
}

/* The end of stage i's input: what it holds goes on, then the next stage ends. */
static int finish(pipe *p, size_t i, const char *path, rt_err *err)
{
    if (i == p->nst)
        return RT_OK;
    stage *g = &p->st[i];
    int st = RT_OK;
    if (g->op.kind == 'c') {
        size_t n = g->nin, ni = g->op.ni, nf = g->op.nf;
        if (ni > n || nf > n - ni) /* rt_ses_clip's check and words */
            return rt_err_at(err, RT_EINVAL, path, 0, "clip: n_i + n_f = %zu exceeds the sequence length %zu",
                             ni + nf, n);
    } else if (g->op.kind == 'p') {
        if (g->open)
            st = emit(p, i, g->cur);
    } else if (g->op.kind == 't' || g->op.kind == 'e') {
        st = close_run(p, i, -1);
    } else {
        for (size_t k = 0; st == RT_OK && k < g->q; k++)
            st = emit(p, i, g->buf[k]);
    }
    if (st != RT_OK)
        return st == RT_EIO ? rt_err_set(err, RT_EIO, "%s: cannot read a temporary file", path)
                            : rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    return finish(p, i + 1, path, err);
}

/* An original state from the reader: spilled when composites need it, then into the pipeline. */
static int each(void *ud, int32_t id, double entry, double end)
{
    pipe *p = ud;
    if ((size_t)id >= p->nsym) {
        p->changed = 1;
        return RT_ESTATE;
    }
    if (p->origs && !p->tally) {
        orig o = {id, 0, end - entry};
        int st = rt_spill_append(p->origs, &o, 1);
        if (st != RT_OK)
            return st;
    }
    elem e = {id, entry, end, p->nread, p->nread + 1};
    p->nread++;
    return push(p, 0, e);
}

static int setup(pipe *p, size_t nsym, int chain)
{
    int comps = 0;
    for (size_t i = 0; i < nsym; i++)
        comps |= p->s->comp_level[i] > 0;
    for (size_t i = 0; i < p->nst; i++)
        comps |= p->st[i].op.kind == 't' || p->st[i].op.kind == 'e';
    if (comps && chain) {
        p->rb_cap = 4096;
        if (!(p->origs = rt_spill_new(sizeof(orig), 4096)) || !(p->rb = malloc(p->rb_cap * sizeof *p->rb)))
            return RT_ENOMEM;
    }
    if (chain && !(p->cb = rt_chain_build_new(nsym + 1)))
        return RT_ENOMEM;
    for (size_t i = 0; i < p->nst; i++) {
        stage *g = &p->st[i];
        if (!(g->seen = calloc(nsym ? nsym : 1, 1)))
            return RT_ENOMEM;
        g->nseen = nsym ? nsym : 1;
        if (g->op.kind == 'p') {
            g->to = malloc(nsym * sizeof *g->to);
            g->target = calloc(nsym, 1);
            if (!g->to || !g->target)
                return RT_ENOMEM;
            for (size_t k = 0; k < nsym; k++) {
                int32_t y = k < g->op.nmap ? g->op.map[k] : -1;
                g->to[k] = y < 0 ? (int32_t)k : y;
                if (y >= 0)
                    g->target[y] = 1;
            }
            g->op.nmap = nsym;
        } else if (g->op.kind == 'a') {
            size_t m = g->op.m;
            g->fail = malloc(m * sizeof *g->fail);
            g->buf = malloc(m * sizeof *g->buf);
            if (!g->fail || !g->buf)
                return RT_ENOMEM;
            /* the failure function of rt_seq_transform.c's kmp_fail */
            g->fail[0] = 0;
            size_t q = 0;
            for (size_t k = 1; k < m; k++) {
                while (q > 0 && g->op.pat[q] != g->op.pat[k])
                    q = g->fail[q - 1];
                if (g->op.pat[q] == g->op.pat[k])
                    q++;
                g->fail[k] = q;
            }
        } else if (g->op.kind == 't' || g->op.kind == 'e') {
            if (rt_u64map_init(&g->pairs, 64) != RT_OK)
                return RT_ENOMEM;
            g->has_pairs = 1;
            g->first_new = g->last_new = -1;
        }
    }
    return RT_OK;
}

/* One read of the file through stages [0, nst), then the sink (the chain or the tally). */
static int pass(pipe *p, size_t nst, int tally_only, rt_err *err)
{
    for (size_t i = 0; i < nst; i++) {
        stage *g = &p->st[i];
        memset(g->seen, 0, g->nseen);
        g->nin = g->rhead = g->rn = 0;
        g->open = g->in_run = 0;
        g->q = 0;
        g->pred = -1;
        *g->out = (rt_seq_op_out){0, 0, -1};
    }
    p->nst = nst;
    p->tally = tally_only;
    p->nfed = 0;
    p->nread = 0;
    p->before = -1;
    if (p->count) {
        memset(p->count, 0, p->ntally * sizeof *p->count);
        memset(p->h, 0, p->ntally * sizeof *p->h);
    }
    int st = rt_pes_each(p->s, p->path, p->step, p->progress, p->pud, each, p, NULL, err);
    if (st == RT_OK)
        st = finish(p, 0, p->path, err);
    if (p->changed)
        st = rt_err_set(err, RT_ESTATE, "%s: stream: the file changed while it was read", p->path);
    return st;
}

/* The ops checked, the pipeline set up, and each filter's selection made from a pass
 * over the stages before it. */
static int start(pipe *p, rt_ses *s, const char *path, uint64_t step,
                 void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud, rt_seq_op_out **mine,
                 const rt_seq_op *ops, size_t nops, int chain, rt_err *err)
{
    rt_err_clear(err);
    p->s = s;
    p->path = path;
    p->step = step;
    p->progress = progress;
    p->pud = ud;
    size_t nsym = rt_ses_symbol_count(s);
    for (size_t i = 0; i < nops; i++) {
        const rt_seq_op *o = &ops[i];
        int filter = o->kind == 't' || o->kind == 'e';
        int bad = o->kind != 'c' && o->kind != 'p' && o->kind != 'a' && !filter;
        for (size_t k = 0; !bad && o->kind == 'p' && k < o->nmap; k++)
            bad = o->map[k] >= (int32_t)nsym;
        for (size_t k = 0; !bad && o->kind == 'a' && k < o->m; k++)
            bad = o->pat[k] < 0 || o->pat[k] >= (int32_t)nsym;
        if (!bad && o->kind == 'a')
            bad = o->m == 0 || o->z < 0 || o->z >= (int32_t)nsym;
        if (!bad && filter) /* its step planned (rt_ses_filter_plan) at index i */
            bad = rt_ses_depth(s) != nops || strncmp(rt_ses_step(s, i), "filter_", 7) != 0;
        if (bad)
            return rt_err_set(err, RT_EINVAL, "stream: op %zu is malformed", i + 1);
    }
    p->st = calloc(nops ? nops : 1, sizeof(stage));
    *mine = calloc(nops ? nops : 1, sizeof **mine);
    if (!p->st || !*mine)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", p->path);
    for (size_t i = 0; i < nops; i++) {
        p->st[i].op = ops[i];
        p->st[i].out = &(*mine)[i];
        (*mine)[i].first = -1;
    }
    p->nst = nops;
    p->nsym = nsym;
    if (setup(p, nsym, chain) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", p->path);
    for (size_t i = 0; i < nops; i++) {
        stage *g = &p->st[i];
        if (g->op.kind != 't' && g->op.kind != 'e')
            continue;
        int st = pass(p, i, 1, err);
        if (st != RT_OK)
            return st;
        double T = p->nfed ? p->t1 - p->t0 : 0;
        if (g->op.kind == 't' && !(T > 0))
            return rt_err_set(err, RT_EINVAL, "filter_time: the sequence has no time (T = 0)");
        g->nsel = p->ntally;
        if (!(g->sel = calloc(g->nsel ? g->nsel : 1, 1)))
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", p->path);
        for (size_t k = 0; k < g->nsel; k++) /* filter_by's selection */
            if (p->count[k])
                g->sel[k] = g->op.kind == 't' ? p->h[k] / T < g->op.p : (double)p->count[k] < g->op.p;
    }
    return RT_OK;
}

/* The filters' steps described with the composites they made (as filter_apply does). */
static int describe_filters(pipe *p, size_t nops, rt_err *err)
{
    for (size_t i = 0; i < nops; i++) {
        stage *g = &p->st[i];
        if (g->op.kind != 't' && g->op.kind != 'e')
            continue;
        char head[64];
        snprintf(head, sizeof head, g->op.kind == 't' ? "filter_time %.15g" : "filter_event %.15g", g->op.p);
        if (rt_ses_step_finish(p->s, i, rt_ses_filter_desc(p->s, head, g->first_new, g->last_new, g->pairs.n)) !=
            RT_OK)
            return rt_err_set(err, RT_ENOMEM, "%s: out of memory", p->path);
    }
    return RT_OK;
}

static void stop(pipe *p, size_t nops, rt_seq_op_out *mine)
{
    for (size_t i = 0; p->st && i < nops; i++) {
        stage *g = &p->st[i];
        free(g->seen);
        free(g->ring);
        free(g->to);
        free(g->target);
        free(g->fail);
        free(g->buf);
        free(g->sel);
        if (g->has_pairs)
            rt_u64map_free(&g->pairs);
    }
    free(p->st);
    free(mine);
    free(p->count);
    free(p->h);
    rt_chain_build_free(p->cb);
    rt_spill_free(p->origs);
    free(p->rb);
}

int rt_pes_chain_ops(rt_ses *s, const char *path, const rt_seq_op *ops, size_t nops, uint64_t step,
                     void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                     rt_chain **out, size_t *states, rt_seq_op_out *outs, rt_err *err)
{
    *out = NULL;
    pipe p = {0};
    rt_seq_op_out *mine = NULL;
    int st = start(&p, s, path, step, progress, ud, &mine, ops, nops, 1, err);
    if (st == RT_OK && (st = pass(&p, nops, 0, err)) == RT_OK && p.nfed == 0)
        st = rt_err_set(err, RT_ESTATE, "%s: stream: nothing left of the sequence", path);
    if (st == RT_OK)
        st = describe_filters(&p, nops, err);
    if (st == RT_OK) {
        /* the last element ends the run: it goes to the sentinel */
        if (rt_chain_build_end(p.cb, s, p.before, out) != RT_OK)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        else
            *states = p.nfed;
    }
    if (st == RT_OK && outs)
        memcpy(outs, mine, nops * sizeof *outs);
    stop(&p, nops, mine);
    return st;
}

int rt_pes_totals_ops(rt_ses *s, const char *path, const rt_seq_op *ops, size_t nops, uint64_t step,
                      void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                      uint64_t **count, double **h, size_t *nsym, double *total, rt_err *err)
{
    *count = NULL;
    *h = NULL;
    pipe p = {0};
    rt_seq_op_out *mine = NULL;
    int32_t counter = s->counter;
    int st = start(&p, s, path, step, progress, ud, &mine, ops, nops, 0, err);
    if (st == RT_OK && (st = pass(&p, nops, 1, err)) == RT_OK && (st = describe_filters(&p, nops, err)) == RT_OK) {
        size_t n = rt_ses_symbol_count(s);
        if (n && (cover(&p.count, &(size_t){p.ntally}, sizeof *p.count, (int32_t)n - 1) != RT_OK ||
                  cover(&p.h, &p.ntally, sizeof *p.h, (int32_t)n - 1) != RT_OK)) {
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        } else {
            *count = p.count;
            *h = p.h;
            *nsym = n;
            *total = p.nfed ? p.t1 - p.t0 : 0;
            p.count = NULL;
            p.h = NULL;
        }
    }
    /* the filters' composites were named for this answer only: the chain's stream names
     * them again (their names stay interned, no longer composites) */
    s->counter = counter;
    for (size_t i = 0; p.st && i < nops; i++)
        for (size_t k = 0; p.st[i].has_pairs && k < p.st[i].pairs.cap; k++)
            if (p.st[i].pairs.keys[k] != RT_U64MAP_EMPTY && p.st[i].pairs.vals[k] >= 0)
                s->comp_level[p.st[i].pairs.vals[k]] = 0;
    stop(&p, nops, mine);
    return st;
}
