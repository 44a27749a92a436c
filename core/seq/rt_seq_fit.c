/*
 * rt_seq_fit.c - holding-time laws per transition fitted by maximum likelihood, and
 * the grouping of a sequence's holding times by transition (see rt_seq_fit.h).
 */
#include "rt_seq_fit.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_sf_psi.h>

#include "rt_seq_int.h"

const char *const rt_hold_names[RT_HOLD_N] = {"exponential", "gamma", "weibull", "empirical"};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void rt_hold_sort(double *h, size_t n) { qsort(h, n, sizeof *h, cmp_double); }

double rt_hold_resolution(const double *h, size_t n)
{
    double d = INFINITY;
    for (size_t i = 1; i < n; i++)
        if (h[i] > h[i - 1] && h[i] - h[i - 1] < d)
            d = h[i] - h[i - 1];
    return isfinite(d) ? d : 1;
}

/* Gamma shape by Newton's method on log k - psi(k) = s, s = log mean - mean log > 0,
 * from Minka's starting point; the scale is then mean / k. */
static double gamma_shape(double s)
{
    double k = (3 - s + sqrt((s - 3) * (s - 3) + 24 * s)) / (12 * s);
    for (int it = 0; it < 100; it++) {
        double f = log(k) - gsl_sf_psi(k) - s, df = 1 / k - gsl_sf_psi_1(k);
        double next = k - f / df;
        if (!(next > 0))
            next = k / 2;
        if (fabs(next - k) <= 1e-12 * k) {
            k = next;
            break;
        }
        k = next;
    }
    return k;
}

/* g(k) = sum u^k log u / sum u^k - 1/k - mean log u for u = h / max h (the shape
 * equation is unchanged by scaling; u <= 1 keeps u^k finite). g increases in k. */
static double weibull_g(const double *h, size_t n, double top, double k)
{
    double a = 0, b = 0, m = 0;
    for (size_t i = 0; i < n; i++) {
        double l = log(h[i] / top), u = exp(k * l);
        a += u * l;
        b += u;
        m += l;
    }
    return a / b - 1 / k - m / (double)n;
}

/* Weibull shape: the root of weibull_g, bracketed by doubling, then bisected. */
static double weibull_shape(const double *h, size_t n)
{
    double top = h[n - 1], lo = 1e-3, hi = 1;
    while (weibull_g(h, n, top, lo) > 0 && lo > 1e-12)
        lo /= 2;
    while (weibull_g(h, n, top, hi) < 0 && hi < 1e6)
        hi *= 2;
    for (int it = 0; it < 200 && hi - lo > 1e-13 * hi; it++) {
        double mid = (lo + hi) / 2;
        if (weibull_g(h, n, top, mid) < 0)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

void rt_hold_fit_times(double *h, size_t n, double delta, rt_hold_fit *f)
{
    memset(f, 0, sizeof *f);
    f->n = n;
    for (int c = 0; c < RT_HOLD_N; c++)
        f->ll[c] = -INFINITY, f->aic[c] = INFINITY;
    f->k[RT_HOLD_EXP] = 1, f->k[RT_HOLD_GAMMA] = 2, f->k[RT_HOLD_WEIBULL] = 2;
    qsort(h, n, sizeof *h, cmp_double);
    double ld = log(delta), sum = 0, slog = 0;
    int positive = n > 0 && h[0] > 0, equal = n > 0 && h[0] == h[n - 1];
    for (size_t i = 0; i < n; i++) {
        sum += h[i];
        if (positive)
            slog += log(h[i]);
    }
    double mean = n ? sum / (double)n : 0;
    /* empirical: each distinct value with its relative frequency */
    double ll = 0;
    size_t distinct = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && h[j] == h[i])
            j++;
        ll += (double)(j - i) * log((double)(j - i) / (double)n);
        distinct++;
        i = j;
    }
    f->distinct = distinct;
    f->k[RT_HOLD_EMPIRICAL] = distinct ? (int)(distinct - 1) : 0;
    /* a law of the observed values only predicts no other value: it is a model only
     * when values repeat (on average twice or more), as integer or rounded times do */
    f->ll[RT_HOLD_EMPIRICAL] = n && (distinct == 1 || 2 * distinct <= n) ? ll : -INFINITY;
    f->emp_ll = n ? ll : -INFINITY;
    if (!n)
        f->why[RT_HOLD_EMPIRICAL] = "no holding times";
    else if (!isfinite(f->ll[RT_HOLD_EMPIRICAL]))
        f->why[RT_HOLD_EMPIRICAL] = "values hardly repeat (more distinct values than half the times)";
    if (mean > 0) {
        f->rate = 1 / mean;
        f->ll[RT_HOLD_EXP] = (double)n * (log(f->rate) + ld) - f->rate * sum;
    } else {
        f->why[RT_HOLD_EXP] = "mean holding time 0";
    }
    if (!positive || equal || n < 2) {
        const char *w = n < 2 ? "fewer than two holding times"
                        : !positive ? "a holding time of 0"
                                    : "every holding time equal";
        f->why[RT_HOLD_GAMMA] = f->why[RT_HOLD_WEIBULL] = w;
    } else {
        double mlog = slog / (double)n;
        double k = gamma_shape(log(mean) - mlog), th = mean / k;
        f->gshape = k, f->gscale = th;
        /* sum log f = (k - 1) sum log h - sum h / th - n (lgamma k + k log th) */
        f->ll[RT_HOLD_GAMMA] = (k - 1) * slog - sum / th - (double)n * (gsl_sf_lngamma(k) + k * log(th)) +
                               (double)n * ld;
        double kw = weibull_shape(h, n), sk = 0;
        for (size_t i = 0; i < n; i++)
            sk += pow(h[i], kw);
        double lam = pow(sk / (double)n, 1 / kw);
        f->wshape = kw, f->wscale = lam;
        /* sum log f = n log(k / lam) + (k - 1) sum log(h / lam) - sum (h / lam)^k */
        f->ll[RT_HOLD_WEIBULL] = (double)n * log(kw / lam) + (kw - 1) * (slog - (double)n * log(lam)) -
                                 sk / pow(lam, kw) + (double)n * ld;
    }
    f->best = RT_HOLD_EMPIRICAL;
    for (int c = 0; c < RT_HOLD_N; c++) {
        if (isfinite(f->ll[c]))
            f->aic[c] = 2.0 * f->k[c] - 2 * f->ll[c];
        if (f->aic[c] < f->aic[f->best])
            f->best = c;
    }
}

double rt_hold_logp(const rt_hold_fit *f, int fam, double t, double delta, const double *values,
                    const double *prob, size_t m)
{
    double ld = log(delta);
    switch (fam) {
    case RT_HOLD_EXP:
        return t >= 0 ? log(f->rate) - f->rate * t + ld : -INFINITY;
    /* log densities in closed form: far in a tail the density underflows to 0 while
     * its log is an ordinary (very negative) number */
    case RT_HOLD_GAMMA:
        return t > 0 ? (f->gshape - 1) * log(t) - t / f->gscale - gsl_sf_lngamma(f->gshape) -
                           f->gshape * log(f->gscale) + ld
                     : -INFINITY;
    case RT_HOLD_WEIBULL:
        return t > 0 ? log(f->wshape / f->wscale) + (f->wshape - 1) * log(t / f->wscale) -
                           pow(t / f->wscale, f->wshape) + ld
                     : -INFINITY;
    default: {
        size_t lo = 0, hi = m; /* binary search for t among the values */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (values[mid] < t)
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo < m && values[lo] == t ? log(prob[lo]) : -INFINITY;
    }
    }
}

int rt_ses_arc_times(const rt_ses *s, int32_t other, int32_t **from, int32_t **to, size_t **off,
                     double **times, size_t *ngroups, rt_err *err)
{
    rt_err_clear(err);
    *from = *to = NULL, *off = NULL, *times = NULL, *ngroups = 0;
    size_t total = 0;
    for (size_t k = 0; k < s->nmem; k++)
        total += RT_CUR(s, k)->n;
    rt_u64map map;
    if (rt_u64map_init(&map, 64) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    int32_t *g = malloc((total ? total : 1) * sizeof *g);
    int32_t *fa = NULL, *ta = NULL;
    size_t cap = 0;
    int st = g ? RT_OK : RT_ENOMEM;
    /* pass 1: the group of each element */
    size_t e = 0;
    for (size_t k = 0; k < s->nmem && !st; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i < v->n && !st; i++, e++) {
            int32_t a = v->sym[i], b = i + 1 < v->n ? v->sym[i + 1] : other;
            int created;
            int32_t *slot = rt_u64map_slot(&map, ((uint64_t)(uint32_t)a << 32) | (uint32_t)b, &created);
            if (!slot) {
                st = RT_ENOMEM;
                break;
            }
            if (created) {
                if (map.n > cap) {
                    cap = cap ? 2 * cap : 64;
                    int32_t *f2 = realloc(fa, cap * sizeof *f2);
                    if (f2)
                        fa = f2;
                    int32_t *t2 = realloc(ta, cap * sizeof *t2);
                    if (t2)
                        ta = t2;
                    if (!f2 || !t2) {
                        st = RT_ENOMEM;
                        break;
                    }
                }
                *slot = (int32_t)(map.n - 1);
                fa[*slot] = a, ta[*slot] = b;
            }
            g[e] = *slot;
        }
    }
    size_t ng = map.n;
    size_t *o = st ? NULL : calloc(ng + 1, sizeof *o);
    double *t = st ? NULL : malloc((total ? total : 1) * sizeof *t);
    if (!st && (!o || !t))
        st = RT_ENOMEM;
    if (!st) {
        /* pass 2: counting sort of the times by group */
        for (size_t i = 0; i < total; i++)
            o[g[i] + 1]++;
        for (size_t q = 0; q < ng; q++)
            o[q + 1] += o[q];
        size_t *fill = malloc((ng ? ng : 1) * sizeof *fill);
        if (!fill) {
            st = RT_ENOMEM;
        } else {
            memcpy(fill, o, ng * sizeof *fill);
            e = 0;
            for (size_t k = 0; k < s->nmem; k++) {
                const rt_version *v = RT_CUR(s, k);
                for (size_t i = 0; i < v->n; i++, e++)
                    t[fill[g[e]]++] = rt_ses_time(s, k, i);
            }
            free(fill);
        }
    }
    free(g);
    rt_u64map_free(&map);
    if (st) {
        free(fa), free(ta), free(o), free(t);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    *from = fa, *to = ta, *off = o, *times = t, *ngroups = ng;
    return RT_OK;
}

void rt_score_free(rt_score *sc)
{
    free(sc->state_ll), free(sc->state_n), free(sc->unseen), free(sc->win_ll), free(sc->win_n);
    memset(sc, 0, sizeof *sc);
}

int rt_ses_score(const rt_ses *s, int32_t other, const rt_sm_arc *arcs, size_t narcs, double delta,
                 size_t windows, rt_score *out, rt_err *err)
{
    rt_err_clear(err);
    memset(out, 0, sizeof *out);
    size_t nsym = s->nsym + 1;
    out->windows = windows ? windows : 1;
    out->state_ll = calloc(nsym, sizeof *out->state_ll);
    out->state_n = calloc(nsym, sizeof *out->state_n);
    out->win_ll = calloc(out->windows, sizeof *out->win_ll);
    out->win_n = calloc(out->windows, sizeof *out->win_n);
    rt_u64map arc, miss;
    int st = rt_u64map_init(&arc, narcs ? 2 * narcs : 16);
    if (!st)
        st = rt_u64map_init(&miss, 64);
    else
        memset(&miss, 0, sizeof miss);
    if (st || !out->state_ll || !out->state_n || !out->win_ll || !out->win_n) {
        rt_u64map_free(&arc), rt_u64map_free(&miss), rt_score_free(out);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
#define KEY(a, b) (((uint64_t)(uint32_t)(a) << 32) | (uint32_t)(b))
    for (size_t q = 0; q < narcs && !st; q++) {
        int created;
        int32_t *slot = rt_u64map_slot(&arc, KEY(arcs[q].from, arcs[q].to), &created);
        if (!slot)
            st = RT_ENOMEM;
        else
            *slot = (int32_t)q;
    }
    size_t cap = 0;
    for (size_t k = 0; k < s->nmem && !st; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i < v->n && !st; i++) {
            int32_t a = v->sym[i], b = i + 1 < v->n ? v->sym[i + 1] : other;
            out->steps++;
            int created;
            int32_t *slot = rt_u64map_slot(&arc, KEY(a, b), &created);
            if (!slot) {
                st = RT_ENOMEM;
                break;
            }
            if (created) { /* a transition the model never saw */
                *slot = -1;
            }
            if (*slot < 0) {
                int32_t *m = rt_u64map_slot(&miss, KEY(a, b), &created);
                if (!m) {
                    st = RT_ENOMEM;
                    break;
                }
                if (created) {
                    if (out->nunseen == cap) {
                        cap = cap ? 2 * cap : 16;
                        rt_unseen *u = realloc(out->unseen, cap * sizeof *u);
                        if (!u) {
                            st = RT_ENOMEM;
                            break;
                        }
                        out->unseen = u;
                    }
                    *m = (int32_t)out->nunseen;
                    out->unseen[out->nunseen++] = (rt_unseen){a, b, 0, k, i};
                }
                out->unseen[*m].count++;
                out->unseen_steps++;
                if (!out->departed)
                    out->departed = 1, out->first_member = k, out->first_index = i;
                continue;
            }
            const rt_sm_arc *r = &arcs[*slot];
            double t = rt_ses_time(s, k, i);
            double lh = rt_hold_logp(&r->fit, r->fam, t, delta, r->values, r->prob, r->m);
            if (!isfinite(lh) && r->fallback >= 0)
                lh = rt_hold_logp(&r->fit, r->fallback, t, delta, NULL, NULL, 0);
            if (!isfinite(lh)) {
                out->odd_times++;
                continue;
            }
            double l = r->logp + lh;
            out->ll += l;
            out->scored++;
            out->state_ll[a] += l;
            out->state_n[a]++;
            if (k == 0) {
                size_t w = (size_t)((double)i / (double)v->n * (double)out->windows);
                w = w < out->windows ? w : out->windows - 1;
                out->win_ll[w] += l;
                out->win_n[w]++;
            }
        }
    }
#undef KEY
    rt_u64map_free(&arc), rt_u64map_free(&miss);
    if (st) {
        rt_score_free(out);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    return RT_OK;
}

int rt_ses_steady(const rt_ses *s, rt_steady *out, rt_err *err)
{
    rt_err_clear(err);
    size_t nsym = s->nsym;
    for (size_t a = 0; a < nsym; a++)
        memset(&out[a], 0, sizeof out[a]), out[a].sym = (int32_t)a;
    rt_u64map map;
    if (rt_u64map_init(&map, 256) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    uint64_t (*cnt)[2] = NULL;
    int32_t *from = NULL;
    size_t cap = 0;
    int st = RT_OK;
    for (size_t k = 0; k < s->nmem && !st; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i + 1 < v->n && !st; i++) {
            int32_t a = v->sym[i], b = v->sym[i + 1];
            int created, half = 2 * i >= v->n - 1;
            int32_t *slot = rt_u64map_slot(&map, ((uint64_t)(uint32_t)a << 32) | (uint32_t)b, &created);
            if (!slot) {
                st = RT_ENOMEM;
                break;
            }
            if (created) {
                if (map.n > cap) {
                    cap = cap ? 2 * cap : 256;
                    void *c2 = realloc(cnt, cap * sizeof *cnt), *f2 = realloc(from, cap * sizeof *from);
                    if (c2)
                        cnt = c2;
                    if (f2)
                        from = f2;
                    if (!c2 || !f2) {
                        st = RT_ENOMEM;
                        break;
                    }
                }
                *slot = (int32_t)(map.n - 1);
                cnt[*slot][0] = cnt[*slot][1] = 0;
                from[*slot] = a;
                out[a].arcs++;
            }
            cnt[*slot][half]++;
            out[a].n[half]++;
        }
    }
    size_t narcs = map.n;
    rt_u64map_free(&map);
    if (st) {
        free(cnt), free(from);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    for (size_t q = 0; q < narcs; q++) {
        rt_steady *r = &out[from[q]];
        double N = (double)(r->n[0] + r->n[1]);
        if (!r->n[0] || !r->n[1])
            continue;
        double col = (double)(cnt[q][0] + cnt[q][1]);
        for (int w = 0; w < 2; w++) {
            double e = (double)r->n[w] * col / N;
            r->chi2 += ((double)cnt[q][w] - e) * ((double)cnt[q][w] - e) / e;
            if (e < 5)
                r->sparse = 1;
        }
        double d = fabs((double)cnt[q][0] / (double)r->n[0] - (double)cnt[q][1] / (double)r->n[1]);
        if (d > r->max_diff)
            r->max_diff = d;
    }
    for (size_t a = 0; a < nsym; a++) {
        rt_steady *r = &out[a];
        r->df = r->n[0] && r->n[1] && r->arcs > 1 ? (int)r->arcs - 1 : 0;
        r->p = r->df ? gsl_cdf_chisq_Q(r->chi2, r->df) : 1;
    }
    free(cnt), free(from);
    return RT_OK;
}
