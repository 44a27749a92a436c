/*
 * rt_chain.c - semi-Markov chains from a session (one linear pass, hash maps for
 * arcs and for the prefix trees that define composites), periodograms through
 * FFTW, and seeded simulation of a chain (xoshiro256**, gamma occupancy times).
 */
#include <fftw3.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_seq_int.h"

/* Welford accumulator. */
typedef struct {
    uint64_t n;
    double mean, m2, total;
} acc;

static void acc_add(acc *a, double x)
{
    a->n++;
    double d = x - a->mean;
    a->mean += d / (double)a->n;
    a->m2 += d * (x - a->mean);
    a->total += x;
}

static double acc_var(const acc *a)
{
    return a->n > 1 ? a->m2 / (double)(a->n - 1) : 0.0;
}

void rt_chain_free(rt_chain *c)
{
    if (!c)
        return;
    free(c->states);
    free(c->arcs);
    free(c->comps);
    free(c->nodes);
    free(c);
}

/* The sentinel OTHER: a name that is no symbol of the sequence. */
static int32_t other_symbol(rt_ses *s)
{
    char buf[64] = "OTHER";
    for (int k = 1; k < 1000; k++) {
        int32_t id = rt_ses_lookup(s, buf);
        if (id < 0 || (!s->orig[id] && !s->comp_level[id]))
            return rt_ses_intern(s, buf, strlen(buf));
        snprintf(buf, sizeof buf, "OTHER%d", k);
    }
    return -1;
}

typedef struct {
    int32_t sym, parent, comp;
    uint64_t ends;
    acc a;
} tnode;

/*
 * The states and arcs of a chain as a sequence passes, one element at a time:
 * rt_ses_chain feeds it from a session's sequences, rt_pes_chain from a PES file
 * as it is read (so the sequence is never held). Memory grows with the distinct
 * symbols and arcs.
 */
struct rt_chain_build {
    int32_t *state_of;   /* symbol -> state index, -1 before its first occurrence */
    size_t nsym;         /* symbols state_of covers */
    int32_t *order;      /* state index -> symbol */
    acc *accs;           /* per state */
    size_t nstates, capstates;
    rt_u64map arcs;      /* (from, to) -> arc index */
    uint64_t *arc_count, *arc_key;
    size_t capa;
    /* composites: each one's prefix tree of the original states it covers */
    int32_t *comp_of;    /* symbol -> composite index, -1 before its first occurrence */
    int32_t *corder;     /* composite index -> symbol */
    size_t ncomps;
    rt_u64map trie;      /* (parent or 0x80000000 | composite, original symbol) -> node */
    tnode *nodes;
    size_t nnodes, capnodes;
    int32_t walk;        /* the node reached by the walk under way (-1 at its start) */
    int32_t walk_comp;   /* and its composite */
};

rt_chain_build *rt_chain_build_new(size_t nsym)
{
    rt_chain_build *b = calloc(1, sizeof *b);
    if (!b || rt_u64map_init(&b->arcs, 64)) {
        free(b);
        return NULL;
    }
    if (rt_u64map_init(&b->trie, 64)) {
        rt_u64map_free(&b->arcs);
        free(b);
        return NULL;
    }
    if (nsym && rt_chain_build_symbols(b, nsym) != RT_OK) {
        rt_chain_build_free(b);
        return NULL;
    }
    return b;
}

void rt_chain_build_free(rt_chain_build *b)
{
    if (!b)
        return;
    free(b->state_of);
    free(b->order);
    free(b->accs);
    free(b->arc_count);
    free(b->arc_key);
    rt_u64map_free(&b->arcs);
    free(b->comp_of);
    free(b->corder);
    free(b->nodes);
    rt_u64map_free(&b->trie);
    free(b);
}

int rt_chain_build_symbols(rt_chain_build *b, size_t nsym)
{
    if (nsym <= b->nsym)
        return RT_OK;
    size_t cap = nsym < 2 * b->nsym ? 2 * b->nsym : nsym;
    int32_t *so = realloc(b->state_of, cap * sizeof *so);
    if (!so)
        return RT_ENOMEM;
    b->state_of = so;
    int32_t *co = realloc(b->comp_of, cap * sizeof *co);
    if (!co)
        return RT_ENOMEM;
    b->comp_of = co;
    int32_t *cor = realloc(b->corder, cap * sizeof *cor);
    if (!cor)
        return RT_ENOMEM;
    b->corder = cor;
    for (size_t i = b->nsym; i < cap; i++)
        so[i] = co[i] = -1;
    b->nsym = cap;
    return RT_OK;
}

/* Symbol x (below the symbols given) held for t; returns its state index, or -1 out of memory. */
int32_t rt_chain_build_state(rt_chain_build *b, int32_t x, double t)
{
    if (b->state_of[x] < 0) {
        if (b->nstates == b->capstates) {
            size_t cap = b->capstates ? 2 * b->capstates : 64;
            int32_t *o = realloc(b->order, cap * sizeof *o);
            if (o)
                b->order = o;
            acc *a = realloc(b->accs, cap * sizeof *a);
            if (a)
                b->accs = a;
            if (!o || !a)
                return -1;
            b->capstates = cap;
        }
        b->state_of[x] = (int32_t)b->nstates;
        b->order[b->nstates] = x;
        b->accs[b->nstates++] = (acc){0, 0, 0, 0};
    }
    acc_add(&b->accs[b->state_of[x]], t);
    return b->state_of[x];
}

/* A transition x -> y. RT_OK or RT_ENOMEM. */
int rt_chain_build_arc(rt_chain_build *b, int32_t x, int32_t y)
{
    int created;
    int32_t *slot = rt_u64map_slot(&b->arcs, ((uint64_t)(uint32_t)x << 32) | (uint32_t)y, &created);
    if (!slot)
        return RT_ENOMEM;
    if (created) {
        if (b->arcs.n > b->capa) {
            size_t capa = b->capa ? b->capa * 2 : 64;
            uint64_t *a1 = realloc(b->arc_count, capa * sizeof *a1);
            if (a1)
                b->arc_count = a1;
            uint64_t *a2 = realloc(b->arc_key, capa * sizeof *a2);
            if (a2)
                b->arc_key = a2;
            if (!a1 || !a2)
                return RT_ENOMEM;
            b->capa = capa;
        }
        *slot = (int32_t)(b->arcs.n - 1);
        b->arc_count[*slot] = 0;
        b->arc_key[*slot] = ((uint64_t)(uint32_t)x << 32) | (uint32_t)y;
    }
    b->arc_count[*slot]++;
    return RT_OK;
}

/* A chain with the builder's states and arcs (no composites yet), other its sentinel. NULL: no memory. */
static rt_chain *build_chain(const rt_chain_build *b, int32_t other, size_t ncomps, size_t nnodes)
{
    rt_chain *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    size_t nstates = b->nstates;
    c->other = other;
    c->nstates = nstates;
    c->states = malloc((nstates ? nstates : 1) * sizeof *c->states);
    c->narcs = b->arcs.n;
    c->arcs = malloc((b->arcs.n ? b->arcs.n : 1) * sizeof *c->arcs);
    c->ncomps = ncomps;
    c->comps = malloc((ncomps ? ncomps : 1) * sizeof *c->comps);
    c->nnodes = nnodes;
    c->nodes = malloc((nnodes ? nnodes : 1) * sizeof *c->nodes);
    size_t *pos = calloc(nstates + 1, sizeof *pos);
    uint64_t *outn = calloc(nstates + 1, sizeof *outn);
    if (!c->states || !c->arcs || !c->comps || !c->nodes || !pos || !outn) {
        free(pos);
        free(outn);
        rt_chain_free(c);
        return NULL;
    }
    for (size_t i = 0; i < nstates; i++) {
        const acc *a = &b->accs[i];
        c->states[i] = (rt_chain_state){b->order[i], a->n, a->mean, acc_var(a), a->total};
    }
    /* arcs grouped by from state (counting sort, stable in first appearance) */
    for (size_t a = 0; a < b->arcs.n; a++) {
        int32_t f = b->state_of[(int32_t)(b->arc_key[a] >> 32)];
        pos[f + 1]++;
        outn[f] += b->arc_count[a];
    }
    for (size_t i = 0; i < nstates; i++)
        pos[i + 1] += pos[i];
    for (size_t a = 0; a < b->arcs.n; a++) {
        int32_t fs = (int32_t)(b->arc_key[a] >> 32), ts = (int32_t)(uint32_t)b->arc_key[a];
        int32_t f = b->state_of[fs];
        c->arcs[pos[f]++] = (rt_chain_arc){fs, ts, b->arc_count[a], (double)b->arc_count[a] / (double)outn[f]};
    }
    free(pos);
    free(outn);
    return c;
}

void rt_chain_build_comp_begin(rt_chain_build *b, int32_t x)
{
    if (b->comp_of[x] < 0) {
        b->comp_of[x] = (int32_t)b->ncomps;
        b->corder[b->ncomps++] = x;
    }
    b->walk_comp = b->comp_of[x];
    b->walk = -1;
}

int rt_chain_build_comp_step(rt_chain_build *b, int32_t x0, double t)
{
    uint32_t pk = b->walk < 0 ? (0x80000000u | (uint32_t)b->walk_comp) : (uint32_t)b->walk;
    int created;
    int32_t *slot = rt_u64map_slot(&b->trie, ((uint64_t)pk << 32) | (uint32_t)x0, &created);
    if (!slot)
        return RT_ENOMEM;
    if (created) {
        if (b->nnodes == b->capnodes) {
            size_t cap = b->capnodes ? b->capnodes * 2 : 64;
            tnode *nn = realloc(b->nodes, cap * sizeof *nn);
            if (!nn)
                return RT_ENOMEM;
            b->nodes = nn;
            b->capnodes = cap;
        }
        *slot = (int32_t)b->nnodes;
        b->nodes[b->nnodes++] = (tnode){x0, b->walk, b->walk_comp, 0, {0, 0, 0, 0}};
    }
    b->walk = *slot;
    acc_add(&b->nodes[b->walk].a, t);
    return RT_OK;
}

void rt_chain_build_comp_end(rt_chain_build *b)
{
    if (b->walk >= 0)
        b->nodes[b->walk].ends++;
}

int rt_chain_build_finish(rt_chain_build *b, int32_t other, rt_chain **out)
{
    size_t ncomps = b->ncomps, nnodes = b->nnodes;
    rt_chain *c = build_chain(b, other, ncomps, nnodes);
    /* trie nodes grouped by composite, parents renumbered */
    size_t *cpos = calloc(ncomps + 1, sizeof *cpos);
    int32_t *newi = malloc((nnodes ? nnodes : 1) * sizeof *newi);
    if (!c || !cpos || !newi) {
        free(cpos);
        free(newi);
        rt_chain_free(c);
        *out = NULL;
        return RT_ENOMEM;
    }
    const tnode *nodes = b->nodes;
    for (size_t i = 0; i < nnodes; i++)
        cpos[nodes[i].comp + 1]++;
    for (size_t i = 0; i < ncomps; i++) {
        c->comps[i] = (rt_chain_comp){b->corder[i], cpos[i], cpos[i + 1]};
        cpos[i + 1] += cpos[i];
        c->comps[i].count = cpos[i + 1] - cpos[i];
    }
    for (size_t i = 0; i < nnodes; i++)
        newi[i] = (int32_t)cpos[nodes[i].comp]++;
    for (size_t i = 0; i < nnodes; i++) {
        const tnode *t = &nodes[i];
        c->nodes[newi[i]] = (rt_chain_node){t->sym, t->parent < 0 ? -1 : newi[t->parent],
                                            t->a.n, t->ends, t->a.mean, acc_var(&t->a)};
    }
    free(cpos);
    free(newi);
    *out = c;
    return RT_OK;
}

int rt_ses_chain(rt_ses *s, const size_t *members, size_t nmembers, rt_chain **out,
                 rt_err *err)
{
    rt_err_clear(err);
    *out = NULL;
    int32_t other = other_symbol(s);
    if (other < 0)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    if (!members)
        nmembers = s->nmem;
    for (size_t q = 0; members && q < nmembers; q++)
        if (members[q] >= s->nmem)
            return rt_err_set(err, RT_EINVAL, "chain: no member %zu", members[q] + 1);
    int st = RT_ENOMEM;
    rt_chain_build *b = rt_chain_build_new(s->nsym);
    if (!b)
        goto fail;
    for (size_t q = 0; q < nmembers; q++) {
        size_t k = members ? members[q] : q;
        const rt_version *v = RT_CUR(s, k);
        const double *E = s->mem[k].E;
        const int32_t *x0 = s->mem[k].ver[0].sym;
        for (size_t i = 0; i <= v->n; i++) {
            int32_t x = i < v->n ? v->sym[i] : other;
            double t = i < v->n ? E[v->start[i + 1]] - E[v->start[i]] : 0.0;
            if (rt_chain_build_state(b, x, t) < 0)
                goto fail;
            if (i < v->n && rt_chain_build_arc(b, x, i + 1 < v->n ? v->sym[i + 1] : other) != RT_OK)
                goto fail;
            /* a composite: walk its original range through its prefix tree */
            if (i < v->n && s->comp_level[x] > 0) {
                rt_chain_build_comp_begin(b, x);
                for (uint32_t j = v->start[i]; j < v->start[i + 1]; j++)
                    if (rt_chain_build_comp_step(b, x0[j], E[j + 1] - E[j]) != RT_OK)
                        goto fail;
                rt_chain_build_comp_end(b);
            }
        }
    }
    st = rt_chain_build_finish(b, other, out);
fail:
    if (st != RT_OK)
        rt_err_set(err, RT_ENOMEM, "chain: out of memory");
    rt_chain_build_free(b);
    return st;
}

int32_t rt_ses_chain_other(rt_ses *s) { return other_symbol(s); }

int rt_chain_build_end(rt_chain_build *b, rt_ses *s, int32_t last, rt_chain **out)
{
    int32_t other = other_symbol(s);
    if (other < 0 || rt_chain_build_symbols(b, s->nsym) != RT_OK || rt_chain_build_arc(b, last, other) != RT_OK ||
        rt_chain_build_state(b, other, 0.0) < 0)
        return RT_ENOMEM;
    return rt_chain_build_finish(b, other, out);
}

/* ---- periodograms ---- */

int rt_periodogram(const double *x, size_t n, double dt, double **freq, double **power,
                   size_t *nout, rt_err *err)
{
    rt_err_clear(err);
    *freq = *power = NULL;
    if (n < 2 || !(dt > 0))
        return rt_err_set(err, RT_EINVAL, "periodogram: need at least two samples and a positive step");
    double *in = fftw_malloc(n * sizeof *in);
    fftw_complex *spec = fftw_malloc((n / 2 + 1) * sizeof *spec);
    double *f = malloc((n / 2 + 1) * sizeof *f), *p = malloc((n / 2 + 1) * sizeof *p);
    if (!in || !spec || !f || !p) {
        fftw_free(in);
        fftw_free(spec);
        free(f);
        free(p);
        return rt_err_set(err, RT_ENOMEM, "periodogram: out of memory");
    }
    double mean = 0;
    for (size_t i = 0; i < n; i++)
        mean += x[i];
    mean /= (double)n;
    fftw_plan plan = fftw_plan_dft_r2c_1d((int)n, in, spec, FFTW_ESTIMATE);
    for (size_t i = 0; i < n; i++)
        in[i] = x[i] - mean;
    fftw_execute(plan);
    for (size_t k = 0; k <= n / 2; k++) {
        f[k] = (double)k / ((double)n * dt);
        p[k] = (spec[k][0] * spec[k][0] + spec[k][1] * spec[k][1]) / (double)n;
    }
    fftw_destroy_plan(plan);
    fftw_free(in);
    fftw_free(spec);
    *freq = f;
    *power = p;
    *nout = n / 2 + 1;
    return RT_OK;
}

int rt_ses_periodogram(const rt_ses *s, size_t k, char domain, size_t nsamples,
                       double **freq, double **power, size_t *nout, rt_err *err)
{
    rt_err_clear(err);
    if (k >= s->nmem)
        return rt_err_set(err, RT_EINVAL, "periodogram: no member %zu", k + 1);
    const rt_version *v = RT_CUR(s, k);
    const double *E = s->mem[k].E;
    size_t n = v->n;
    if (n < 2)
        return rt_err_set(err, RT_EINVAL, "periodogram: the sequence has fewer than two elements");
    int32_t *rank = malloc(s->nsym * sizeof *rank);
    if (!rank)
        return rt_err_set(err, RT_ENOMEM, "periodogram: out of memory");
    for (size_t i = 0; i < s->nsym; i++)
        rank[i] = -1;
    int32_t next = 0;
    for (size_t i = 0; i < n; i++)
        if (rank[v->sym[i]] < 0)
            rank[v->sym[i]] = next++;
    double *x, dt = 1;
    size_t N = n;
    if (domain == 't') {
        N = nsamples ? nsamples : (4 * n < ((size_t)1 << 22) ? 4 * n : ((size_t)1 << 22));
        double t0 = E[v->start[0]], span = E[v->start[n]] - t0;
        if (!(span > 0)) {
            free(rank);
            return rt_err_set(err, RT_EINVAL, "periodogram: the sequence spans no time");
        }
        dt = span / (double)N;
        x = malloc(N * sizeof *x);
        if (x) {
            size_t i = 0;
            for (size_t j = 0; j < N; j++) {
                double t = t0 + ((double)j + 0.5) * dt;
                while (i + 1 < n && E[v->start[i + 1]] <= t)
                    i++;
                x[j] = rank[v->sym[i]];
            }
        }
    } else {
        x = malloc(N * sizeof *x);
        if (x)
            for (size_t i = 0; i < n; i++)
                x[i] = rank[v->sym[i]];
    }
    free(rank);
    if (!x)
        return rt_err_set(err, RT_ENOMEM, "periodogram: out of memory");
    int st = rt_periodogram(x, N, dt, freq, power, nout, err);
    free(x);
    return st;
}

/* ---- simulation ---- */

int rt_chain_simulate(size_t nstates, const double *mean, const double *var,
                      size_t narcs, const int32_t *from, const int32_t *to,
                      const double *p, int32_t init, uint64_t seed, size_t nsteps,
                      int32_t *out_state, double *out_time, rt_err *err)
{
    rt_err_clear(err);
    if (!nstates || init < 0 || (size_t)init >= nstates)
        return rt_err_set(err, RT_EINVAL, "simulate: bad initial state");
    for (size_t a = 0; a < narcs; a++)
        if (from[a] < 0 || (size_t)from[a] >= nstates || to[a] < 0 || (size_t)to[a] >= nstates ||
            !(p[a] >= 0))
            return rt_err_set(err, RT_EINVAL, "simulate: arc %zu is malformed", a + 1);
    size_t *pos = calloc(nstates + 1, sizeof *pos);
    size_t *idx = malloc((narcs ? narcs : 1) * sizeof *idx);
    double *cum = malloc((narcs ? narcs : 1) * sizeof *cum);
    if (!pos || !idx || !cum) {
        free(pos);
        free(idx);
        free(cum);
        return rt_err_set(err, RT_ENOMEM, "simulate: out of memory");
    }
    for (size_t a = 0; a < narcs; a++)
        pos[from[a] + 1]++;
    for (size_t i = 0; i < nstates; i++)
        pos[i + 1] += pos[i];
    {
        size_t *fill = malloc((nstates + 1) * sizeof *fill);
        if (!fill) {
            free(pos);
            free(idx);
            free(cum);
            return rt_err_set(err, RT_ENOMEM, "simulate: out of memory");
        }
        memcpy(fill, pos, (nstates + 1) * sizeof *fill);
        for (size_t a = 0; a < narcs; a++)
            idx[fill[from[a]]++] = a;
        free(fill);
    }
    for (size_t i = 0; i < nstates; i++) {
        double sum = 0;
        for (size_t q = pos[i]; q < pos[i + 1]; q++)
            cum[q] = (sum += p[idx[q]]);
        for (size_t q = pos[i]; q < pos[i + 1]; q++)
            cum[q] /= sum > 0 ? sum : 1;
    }
    /* GSL's generator and gamma draws, in the order rt_sim_run makes them: a seed
     * gives the same trajectory streamed or stored */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!r) {
        free(pos), free(idx), free(cum);
        return rt_err_set(err, RT_ENOMEM, "simulate: out of memory");
    }
    gsl_rng_set(r, (unsigned long)seed);
    int32_t x = init;
    for (size_t step = 0; step < nsteps; step++) {
        double m = mean[x], v = var[x], t = m;
        if (v > 0 && m > 0)
            t = gsl_ran_gamma(r, m * m / v, v / m);
        out_state[step] = x;
        out_time[step] = t;
        if (pos[x] == pos[x + 1]) {
            x = init;
            continue;
        }
        double u = gsl_rng_uniform_pos(r);
        size_t q = pos[x];
        while (q + 1 < pos[x + 1] && cum[q] < u)
            q++;
        x = to[idx[q]];
    }
    gsl_rng_free(r);
    free(pos);
    free(idx);
    free(cum);
    return RT_OK;
}
