/*
 * rt_seq_sim.c - a semi-Markov chain simulated as a stream and compared with its
 * input sequence (see rt_seq_sim.h). Shaped for chains of up to 10^7 states and
 * trajectories of any length: the trajectory is consumed as it is drawn.
 */
#include "rt_seq_sim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <fftw3.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "rt_seq_int.h"

/* ---- n-gram counts of two sides over one dictionary ---- */

typedef struct {
    rt_u64map map;     /* key -> dense index */
    uint64_t *count[2];
    size_t cap;
    uint64_t total[2];
} grams;

static int grams_add(grams *g, uint64_t key, int side, int32_t *idx)
{
    int created;
    int32_t *slot = rt_u64map_slot(&g->map, key, &created);
    if (!slot)
        return RT_ENOMEM;
    if (created) {
        if (g->map.n > g->cap) {
            size_t cap = g->cap ? 2 * g->cap : 256;
            for (int s = 0; s < 2; s++) {
                uint64_t *c = realloc(g->count[s], cap * sizeof *c);
                if (!c)
                    return RT_ENOMEM;
                memset(c + g->cap, 0, (cap - g->cap) * sizeof *c);
                g->count[s] = c;
            }
            g->cap = cap;
        }
        *slot = (int32_t)(g->map.n - 1);
    }
    g->count[side][*slot]++;
    g->total[side]++;
    if (idx)
        *idx = *slot;
    return RT_OK;
}

static double grams_tv(const grams *g)
{
    double d = 0;
    for (size_t i = 0; i < g->map.n; i++) {
        double p = g->total[0] ? (double)g->count[0][i] / (double)g->total[0] : 0;
        double q = g->total[1] ? (double)g->count[1][i] / (double)g->total[1] : 0;
        d += fabs(p - q);
    }
    return d / 2;
}

/* The n-gram state of one side: the last two states seen (-1: none yet). */
typedef struct {
    int32_t a, b;      /* states before the current one */
    int32_t bigram;    /* dense index of the 2-gram (a, b), or -1 */
} tail;

/* ---- a streaming Welch spectrum ---- */

typedef struct {
    size_t L, hop, seen, segs;
    double *ring, *acc, *w, wsum;
    double *in;
    fftw_complex *out;
    fftw_plan plan;
} welch;

static int welch_init(welch *s, size_t L)
{
    memset(s, 0, sizeof *s);
    s->L = L, s->hop = L / 2;
    s->ring = malloc(L * sizeof *s->ring);
    s->acc = calloc(L / 2 + 1, sizeof *s->acc);
    s->w = malloc(L * sizeof *s->w);
    s->in = fftw_malloc(L * sizeof *s->in);
    s->out = fftw_malloc((L / 2 + 1) * sizeof *s->out);
    if (!s->ring || !s->acc || !s->w || !s->in || !s->out)
        return RT_ENOMEM;
    s->plan = fftw_plan_dft_r2c_1d((int)L, s->in, s->out, FFTW_ESTIMATE);
    if (!s->plan)
        return RT_ENOMEM;
    for (size_t j = 0; j < L; j++) {
        s->w[j] = 0.5 - 0.5 * cos(2 * M_PI * (double)j / (double)L);
        s->wsum += s->w[j] * s->w[j];
    }
    return RT_OK;
}

static void welch_free(welch *s)
{
    if (s->plan)
        fftw_destroy_plan(s->plan);
    free(s->ring), free(s->acc), free(s->w);
    fftw_free(s->in), fftw_free(s->out);
}

/* One segment: the last n (<= L) samples, zero-padded to L when fewer. */
static void welch_segment(welch *s, size_t n)
{
    double mean = 0;
    for (size_t j = 0; j < n; j++)
        mean += s->ring[(s->seen - n + j) % s->L];
    mean /= (double)n;
    for (size_t j = 0; j < s->L; j++)
        s->in[j] = j < n ? (s->ring[(s->seen - n + j) % s->L] - mean) * s->w[j] : 0;
    fftw_execute(s->plan);
    for (size_t q = 0; q <= s->L / 2; q++)
        s->acc[q] += (s->out[q][0] * s->out[q][0] + s->out[q][1] * s->out[q][1]) / s->wsum;
    s->segs++;
}

static void welch_push(welch *s, double x)
{
    s->ring[s->seen % s->L] = x;
    s->seen++;
    if (s->seen >= s->L && (s->seen - s->L) % s->hop == 0)
        welch_segment(s, s->L);
}

/* Band powers normalised to 1: bin k (frequency k / L, k >= 1) goes to band
 * min(nb, 1 + floor(f / 0.5 * nb)), as the whole-signal periodogram's bins did. */
static void welch_bands(welch *s, size_t nb, double *band)
{
    if (s->segs == 0 && s->seen >= 2) /* shorter than a segment: one zero-padded */
        welch_segment(s, s->seen);
    for (size_t b = 0; b < nb; b++)
        band[b] = 0;
    double total = 0;
    for (size_t q = 1; q <= s->L / 2; q++) {
        double f = (double)q / (double)s->L;
        size_t b = (size_t)floor(f / 0.5 * (double)nb);
        band[b < nb ? b : nb - 1] += s->acc[q];
        total += s->acc[q];
    }
    if (total > 0)
        for (size_t b = 0; b < nb; b++)
            band[b] /= total;
}

/* ---- the observer ---- */

struct rt_sim_obs {
    size_t nstates, narcs;
    uint64_t *visits, *arcs;
    double *sum, *sumsq;
    int32_t *ks_of;        /* state -> index in the sampled list, -1 */
    size_t nks, sample;
    double *ks[2];         /* nks x sample each */
    size_t *ks_n[2];
    grams g[3];
    tail t[2];
    welch sp[2];
    size_t bands;
};

rt_sim_obs *rt_sim_obs_new(size_t nstates, size_t narcs, const int32_t *ks, size_t nks,
                           size_t sample, size_t bands)
{
    rt_sim_obs *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->nstates = nstates, o->narcs = narcs, o->nks = nks, o->sample = sample ? sample : 1;
    o->bands = bands ? bands : 32;
    o->visits = calloc(nstates ? nstates : 1, sizeof *o->visits);
    o->arcs = calloc(narcs ? narcs : 1, sizeof *o->arcs);
    o->sum = calloc(nstates ? nstates : 1, sizeof *o->sum);
    o->sumsq = calloc(nstates ? nstates : 1, sizeof *o->sumsq);
    o->ks_of = malloc((nstates ? nstates : 1) * sizeof *o->ks_of);
    int ok = o->visits && o->arcs && o->sum && o->sumsq && o->ks_of;
    for (int s = 0; s < 2 && ok; s++) {
        o->ks[s] = malloc((nks ? nks : 1) * o->sample * sizeof *o->ks[s]);
        o->ks_n[s] = calloc(nks ? nks : 1, sizeof *o->ks_n[s]);
        ok = o->ks[s] && o->ks_n[s];
        o->t[s] = (tail){-1, -1, -1};
    }
    for (int n = 0; n < 3 && ok; n++)
        ok = rt_u64map_init(&o->g[n].map, 1024) == RT_OK;
    for (int s = 0; s < 2 && ok; s++)
        ok = welch_init(&o->sp[s], 4 * o->bands) == RT_OK;
    if (!ok) {
        rt_sim_obs_free(o);
        return NULL;
    }
    for (size_t i = 0; i < nstates; i++)
        o->ks_of[i] = -1;
    for (size_t j = 0; j < nks; j++)
        if (ks[j] >= 0 && (size_t)ks[j] < nstates)
            o->ks_of[ks[j]] = (int32_t)j;
    return o;
}

void rt_sim_obs_free(rt_sim_obs *o)
{
    if (!o)
        return;
    free(o->visits), free(o->arcs), free(o->sum), free(o->sumsq), free(o->ks_of);
    for (int s = 0; s < 2; s++) {
        free(o->ks[s]), free(o->ks_n[s]);
        welch_free(&o->sp[s]);
    }
    for (int n = 0; n < 3; n++) {
        rt_u64map_free(&o->g[n].map);
        free(o->g[n].count[0]), free(o->g[n].count[1]);
    }
    free(o);
}

/* State x seen on one side: its 1-, 2- and 3-grams with the states before it. */
static int see(rt_sim_obs *o, int side, int32_t x)
{
    tail *t = &o->t[side];
    int st = grams_add(&o->g[0], (uint64_t)(uint32_t)x, side, NULL);
    int32_t bi = -1;
    if (!st && t->b >= 0)
        st = grams_add(&o->g[1], ((uint64_t)(uint32_t)t->b << 32) | (uint32_t)x, side, &bi);
    if (!st && t->bigram >= 0)
        st = grams_add(&o->g[2], ((uint64_t)(uint32_t)t->bigram << 32) | (uint32_t)x, side, NULL);
    t->a = t->b, t->b = x, t->bigram = bi;
    return st;
}

static void forget(rt_sim_obs *o, int side) { o->t[side] = (tail){-1, -1, -1}; }

int rt_sim_obs_input(rt_sim_obs *o, const rt_ses *s, const int32_t *state_of, rt_err *err)
{
    rt_err_clear(err);
    /* occurrences of each sampled state, then an even sample through them */
    size_t *occ = calloc(o->nks ? o->nks : 1, sizeof *occ), *seen = calloc(o->nks ? o->nks : 1, sizeof *seen);
    if (!occ || !seen) {
        free(occ), free(seen);
        return rt_err_set(err, RT_ENOMEM, "simulate: out of memory");
    }
    for (size_t k = 0; k < rt_ses_members(s); k++) {
        const int32_t *sym = rt_ses_symbols(s, k);
        for (size_t i = 0; i < rt_ses_length(s, k); i++) {
            int32_t x = state_of[sym[i]];
            if (x >= 0 && o->ks_of[x] >= 0)
                occ[o->ks_of[x]]++;
        }
    }
    int st = RT_OK;
    for (size_t k = 0; k < rt_ses_members(s) && !st; k++) {
        const int32_t *sym = rt_ses_symbols(s, k);
        size_t n = rt_ses_length(s, k);
        forget(o, 0);
        for (size_t i = 0; i < n && !st; i++) {
            int32_t x = state_of[sym[i]];
            /* a symbol the chain lacks still counts in the n-grams (under a key no
             * state has) and is level 0 of the signal */
            st = see(o, 0, x >= 0 ? x : (int32_t)(o->nstates + (size_t)sym[i]));
            if (k == 0)
                welch_push(&o->sp[0], x >= 0 ? (double)x + 1 : 0);
            if (x < 0)
                continue;
            int32_t j = o->ks_of[x];
            if (j < 0)
                continue;
            /* element number m (0-based) of this state is taken when it is the next
             * of floor((i + 0.5) n / m): the same picks as an even stride */
            size_t m = seen[j]++, total = occ[j], want = o->sample;
            size_t got = o->ks_n[0][j];
            if (got < want && (total <= want || m == (size_t)floor(((double)got + 0.5) * (double)total / (double)want)))
                o->ks[0][(size_t)j * o->sample + o->ks_n[0][j]++] = rt_ses_time(s, k, i);
        }
    }
    free(occ), free(seen);
    return st ? rt_err_set(err, RT_ENOMEM, "simulate: out of memory") : RT_OK;
}

int rt_sim_run(const rt_sim_chain *c, uint64_t seed, size_t steps, rt_sim_obs *o, FILE *pes,
               const char *const *names, rt_err *err)
{
    rt_err_clear(err);
    size_t ns = c->nstates, na = c->narcs;
    if (!ns || c->init < 0 || (size_t)c->init >= ns)
        return rt_err_set(err, RT_EINVAL, "simulate: bad initial state");
    for (size_t a = 0; a < na; a++)
        if (c->from[a] < 0 || (size_t)c->from[a] >= ns || c->to[a] < 0 || (size_t)c->to[a] >= ns ||
            !(c->p[a] >= 0))
            return rt_err_set(err, RT_EINVAL, "simulate: arc %zu is malformed", a + 1);
    /* arcs of each state in CSR order with cumulative probabilities */
    size_t *pos = calloc(ns + 1, sizeof *pos), *idx = malloc((na ? na : 1) * sizeof *idx);
    size_t *fill = malloc((ns + 1) * sizeof *fill);
    double *cum = malloc((na ? na : 1) * sizeof *cum);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    if (!pos || !idx || !fill || !cum || !r) {
        free(pos), free(idx), free(fill), free(cum), gsl_rng_free(r);
        return rt_err_set(err, RT_ENOMEM, "simulate: out of memory");
    }
    for (size_t a = 0; a < na; a++)
        pos[c->from[a] + 1]++;
    for (size_t i = 0; i < ns; i++)
        pos[i + 1] += pos[i];
    memcpy(fill, pos, (ns + 1) * sizeof *fill);
    for (size_t a = 0; a < na; a++)
        idx[fill[c->from[a]]++] = a;
    free(fill);
    for (size_t i = 0; i < ns; i++) {
        double sum = 0;
        for (size_t q = pos[i]; q < pos[i + 1]; q++)
            cum[q] = (sum += c->p[idx[q]]);
        for (size_t q = pos[i]; q < pos[i + 1]; q++)
            cum[q] /= sum > 0 ? sum : 1;
    }
    gsl_rng_set(r, (unsigned long)seed);
    int32_t x = c->init;
    double clock = 0;
    int st = RT_OK;
    forget(o, 1);
    for (size_t step = 0; step < steps && !st; step++) {
        double m = c->mean[x], v = c->var[x], t = m;
        if (v > 0 && m > 0)
            t = gsl_ran_gamma(r, m * m / v, v / m);
        o->visits[x]++;
        o->sum[x] += t;
        o->sumsq[x] += t * t;
        if (x != c->other) {
            st = see(o, 1, x);
            welch_push(&o->sp[1], (double)x + 1);
            int32_t j = o->ks_of[x];
            if (j >= 0 && o->ks_n[1][j] < o->sample)
                o->ks[1][(size_t)j * o->sample + o->ks_n[1][j]++] = t;
            if (pes && fprintf(pes, "%s %.17g\n", names[x], clock) < 0)
                st = RT_EIO;
            clock += t;
        }
        if (pos[x] == pos[x + 1]) {
            x = c->init;
            continue;
        }
        double u = gsl_rng_uniform_pos(r);
        size_t q = pos[x];
        while (q + 1 < pos[x + 1] && cum[q] < u)
            q++;
        o->arcs[idx[q]]++;
        x = c->to[idx[q]];
    }
    if (!st && pes && fprintf(pes, "END %.17g\n", clock) < 0)
        st = RT_EIO;
    free(pos), free(idx), free(cum), gsl_rng_free(r);
    if (st == RT_EIO)
        return rt_err_set(err, RT_EIO, "simulate: writing the trajectory failed");
    return st ? rt_err_set(err, RT_ENOMEM, "simulate: out of memory") : RT_OK;
}

const uint64_t *rt_sim_obs_visits(const rt_sim_obs *o) { return o->visits; }
const double *rt_sim_obs_sum(const rt_sim_obs *o) { return o->sum; }
const double *rt_sim_obs_sumsq(const rt_sim_obs *o) { return o->sumsq; }
const uint64_t *rt_sim_obs_arcs(const rt_sim_obs *o) { return o->arcs; }

const double *rt_sim_obs_sample(const rt_sim_obs *o, size_t j, int side, size_t *n)
{
    *n = o->ks_n[side][j];
    return o->ks[side] + j * o->sample;
}

double rt_sim_obs_ngram_tv(const rt_sim_obs *o, int n) { return grams_tv(&o->g[n - 1]); }

double rt_sim_obs_band_distance(rt_sim_obs *o)
{
    double *b0 = malloc(2 * o->bands * sizeof *b0);
    if (!b0)
        return NAN;
    double *b1 = b0 + o->bands, d = 0;
    welch_bands(&o->sp[0], o->bands, b0);
    welch_bands(&o->sp[1], o->bands, b1);
    for (size_t b = 0; b < o->bands; b++)
        d += fabs(b0[b] - b1[b]);
    free(b0);
    return d / 2;
}
