/*
 * rt_seq_stream.c - clip, project and aggregate applied to a PES as it is read,
 * each a stage of a pipeline that passes elements on as soon as they are final,
 * the last stage feeding the chain builder (rt_pes_chain_ops, rt_seq.h). Each
 * stage follows its rt_ses_* transform (rt_seq_transform.c) element for element:
 *   clip       skips its first ni elements and holds back its last nf in a ring;
 *   project    keeps the run of one target symbol open until another symbol comes;
 *   aggregate  runs the Knuth-Morris-Pratt automaton of rt_ses_aggregate, holding
 *              the elements of a partial match (fewer than the pattern's length).
 * An element covers a range of the original sequence; a composite's definition
 * walks the original states of that range, which go to an rt_spill (one block in
 * memory, the rest in a temporary file) as they are read and come back in order.
 */
#include "rt_seq.h"
#include "rt_seq_int.h"

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
} stage;

typedef struct {
    rt_ses *s;
    stage *st;
    size_t nst;
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

/* The chain takes element e (rt_ses_chain's loop body, as a stream). */
static int sink(pipe *p, elem e)
{
    rt_chain_build *b = p->cb;
    if (rt_chain_build_state(b, e.sym, e.e1 - e.e0) < 0 ||
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
    if (!g->seen[e.sym]) {
        g->seen[e.sym] = 1;
        g->out->distinct++;
    }
    if (g->out->length++ == 0)
        g->out->first = e.sym;
    return push(p, i + 1, e);
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
        int32_t y = g->to[e.sym];
        if (g->open && g->target[y] && g->cur.sym == y) { /* the run goes on */
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
    if (p->origs) {
        orig o = {id, 0, end - entry};
        int st = rt_spill_append(p->origs, &o, 1);
        if (st != RT_OK)
            return st;
    }
    elem e = {id, entry, end, p->nread, p->nread + 1};
    p->nread++;
    return push(p, 0, e);
}

static int setup(pipe *p, size_t nsym)
{
    int comps = 0;
    for (size_t i = 0; i < nsym; i++)
        comps |= p->s->comp_level[i] > 0;
    if (comps) {
        p->rb_cap = 4096;
        if (!(p->origs = rt_spill_new(sizeof(orig), 4096)) || !(p->rb = malloc(p->rb_cap * sizeof *p->rb)))
            return RT_ENOMEM;
    }
    if (!(p->cb = rt_chain_build_new(nsym + 1)))
        return RT_ENOMEM;
    for (size_t i = 0; i < p->nst; i++) {
        stage *g = &p->st[i];
        if (!(g->seen = calloc(nsym, 1)))
            return RT_ENOMEM;
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
        }
    }
    return RT_OK;
}

int rt_pes_chain_ops(rt_ses *s, const char *path, const rt_seq_op *ops, size_t nops, uint64_t step,
                     void (*progress)(void *ud, uint64_t done, uint64_t total), void *ud,
                     rt_chain **out, size_t *states, rt_seq_op_out *outs, rt_err *err)
{
    rt_err_clear(err);
    *out = NULL;
    size_t nsym = rt_ses_symbol_count(s);
    for (size_t i = 0; i < nops; i++) {
        const rt_seq_op *o = &ops[i];
        int bad = o->kind != 'c' && o->kind != 'p' && o->kind != 'a';
        for (size_t k = 0; !bad && o->kind == 'p' && k < o->nmap; k++)
            bad = o->map[k] >= (int32_t)nsym;
        for (size_t k = 0; !bad && o->kind == 'a' && k < o->m; k++)
            bad = o->pat[k] < 0 || o->pat[k] >= (int32_t)nsym;
        if (!bad && o->kind == 'a')
            bad = o->m == 0 || o->z < 0 || o->z >= (int32_t)nsym;
        if (bad)
            return rt_err_set(err, RT_EINVAL, "stream: op %zu is malformed", i + 1);
    }
    pipe p = {s, calloc(nops ? nops : 1, sizeof(stage)), nops, nsym, 0, NULL, -1, 0, NULL, 0, NULL, 0, 0, 0};
    rt_seq_op_out *mine = calloc(nops ? nops : 1, sizeof *mine);
    int st = !p.st || !mine ? RT_ENOMEM : RT_OK;
    for (size_t i = 0; st == RT_OK && i < nops; i++) {
        p.st[i].op = ops[i];
        p.st[i].out = &mine[i];
        mine[i].first = -1;
    }
    if (st == RT_OK)
        st = setup(&p, nsym);
    if (st != RT_OK)
        rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
    else if ((st = rt_pes_each(s, path, step, progress, ud, each, &p, NULL, err)) == RT_OK &&
             (st = finish(&p, 0, path, err)) == RT_OK && p.nfed == 0)
        st = rt_err_set(err, RT_ESTATE, "%s: stream: nothing left of the sequence", path);
    if (p.changed)
        st = rt_err_set(err, RT_ESTATE, "%s: stream: the file changed while it was read", path);
    if (st == RT_OK) {
        /* the last element ends the run: it goes to the sentinel */
        if (rt_chain_build_end(p.cb, s, p.before, out) != RT_OK)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", path);
        else
            *states = p.nfed;
    }
    if (st == RT_OK && outs)
        memcpy(outs, mine, nops * sizeof *outs);
    for (size_t i = 0; p.st && i < nops; i++) {
        stage *g = &p.st[i];
        free(g->seen);
        free(g->ring);
        free(g->to);
        free(g->target);
        free(g->fail);
        free(g->buf);
    }
    free(p.st);
    free(mine);
    rt_chain_build_free(p.cb);
    rt_spill_free(p.origs);
    free(p.rb);
    return st;
}
