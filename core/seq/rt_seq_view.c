/*
 * rt_seq_view.c - what the time and event views of a member can show, computed
 * in C: the rows (symbols in order of first appearance), the elements a zoom
 * range touches, the rows present in each pixel column, and the step line as
 * packed segments ready for the canvas.
 *
 * Shaped for members of 10^7 elements drawn into about a thousand pixel columns:
 * one pass over the elements in range, O(1) work per element plus O(columns),
 * and a result whose size depends on the picture, not on the sequence.
 */
#include <math.h>
#include <stdlib.h>

#include <fftw3.h>

#include "rt_seq_int.h"

int rt_ses_rows(const rt_ses *s, size_t k, int32_t *row, size_t *nrows)
{
    const rt_version *v = RT_CUR(s, k);
    for (size_t i = 0; i < s->nsym; i++)
        row[i] = -1;
    int32_t n = 0;
    for (size_t i = 0; i < v->n; i++)
        if (row[v->sym[i]] < 0)
            row[v->sym[i]] = n++;
    *nrows = (size_t)n;
    return RT_OK;
}

/* Element i's extent on the view's axis: [x0, x1]. */
static void extent(const rt_ses *s, size_t k, char domain, size_t i, double *x0, double *x1)
{
    if (domain == 't') {
        const double *E = s->mem[k].E;
        const uint32_t *st = RT_CUR(s, k)->start;
        *x0 = E[st[i]];
        *x1 = E[st[i]] + (E[st[i + 1]] - E[st[i]]); /* entry + occupancy, as the data gives */
    } else {
        *x0 = (double)i;
        *x1 = (double)i + 1;
    }
}

void rt_ses_view_span(const rt_ses *s, size_t k, char domain, double a, double b,
                      size_t *first, size_t *count)
{
    size_t n = RT_CUR(s, k)->n, lo = 0, hi = n;
    double x0, x1;
    /* first element with x1 >= a (x1 never decreases, up to rounding fixed below) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        extent(s, k, domain, mid, &x0, &x1);
        if (x1 >= a)
            hi = mid;
        else
            lo = mid + 1;
    }
    while (lo > 0 && (extent(s, k, domain, lo - 1, &x0, &x1), x1 >= a))
        lo--;
    size_t end = lo;
    hi = n;
    /* first element with x0 > b (x0 is an entry time or an index: exact) */
    while (end < hi) {
        size_t mid = end + (hi - end) / 2;
        extent(s, k, domain, mid, &x0, &x1);
        if (x0 > b)
            hi = mid;
        else
            end = mid + 1;
    }
    *first = lo;
    *count = end - lo;
}

/* Column of position x: floor((x - a) / (b - a) * ncols), clamped to the picture. */
static size_t column(double x, double a, double b, size_t ncols)
{
    double c = floor((x - a) / (b - a) * (double)ncols);
    if (!(c >= 0))
        return 0;
    if (c >= (double)ncols)
        return ncols - 1;
    return (size_t)c;
}

int rt_ses_view_columns(const rt_ses *s, size_t k, char domain, double a, double b,
                        size_t ncols, const int32_t *row, int32_t *lo, int32_t *hi)
{
    for (size_t c = 0; c < ncols; c++)
        lo[c] = hi[c] = -1;
    if (!ncols || !(b > a))
        return RT_OK;
    size_t first, count;
    rt_ses_view_span(s, k, domain, a, b, &first, &count);
    const int32_t *sym = RT_CUR(s, k)->sym;
    for (size_t i = first; i < first + count; i++) {
        double x0, x1;
        extent(s, k, domain, i, &x0, &x1);
        size_t c0 = column(x0, a, b, ncols), c1 = column(x1, a, b, ncols);
        int32_t r = row[sym[i]];
        /* consecutive elements share at most their boundary column: O(n + ncols) */
        for (size_t c = c0; c <= c1; c++) {
            if (lo[c] < 0 || r < lo[c])
                lo[c] = r;
            if (r > hi[c])
                hi[c] = r;
        }
    }
    return RT_OK;
}

static int seg(rt_pack *p, double x1, double y1, double x2, double y2, rt_err *err)
{
    double item[4] = {x1, y1, x2, y2};
    if (rt_pack_push(p, item) != RT_OK)
        return rt_err_set(err, RT_ENOMEM, "view: out of memory");
    return RT_OK;
}

int rt_ses_view_segments(const rt_ses *s, size_t k, const rt_ses_frame *f, const int32_t *row,
                         rt_pack *out, rt_err *err)
{
    rt_err_clear(err);
    if (out->stride != 4)
        return rt_err_set(err, RT_EINVAL, "view: segments need a pack of stride 4");
    if (!(f->b > f->a) || !(f->yb > f->ya))
        return rt_err_set(err, RT_EINVAL, "view: empty x or y range");
    size_t first, count;
    rt_ses_view_span(s, k, f->domain, f->a, f->b, &first, &count);
    const int32_t *sym = RT_CUR(s, k)->sym;
#define SX(v) (f->ix + ((v) - f->a) / (f->b - f->a) * f->iw)
#define SY(v) (f->iy + f->ih - ((v) - f->ya) / (f->yb - f->ya) * f->ih)
    if ((double)count <= 4 * f->iw) {
        /* few elements: the exact step line, a horizontal segment per element and
         * a vertical one to the next */
        if (rt_pack_reserve(out, out->n + 2 * count) != RT_OK)
            return rt_err_set(err, RT_ENOMEM, "view: out of memory");
        for (size_t i = first; i < first + count; i++) {
            double x0, x1;
            extent(s, k, f->domain, i, &x0, &x1);
            double y = SY(row[sym[i]]);
            int st = seg(out, SX(x0), y, SX(x1), y, err);
            if (!st && i + 1 < first + count)
                st = seg(out, SX(x1), y, SX(x1), SY(row[sym[i + 1]]), err);
            if (st)
                return st;
        }
        return RT_OK;
    }
    /* more elements than pixels: per pixel column the rows present; a column
     * holding one row continues a horizontal run, a column holding several is a
     * vertical bar from its lowest to its highest row (which is what the full
     * step line paints there, its connectors filling the rows between) */
    size_t ncols = f->iw >= 1 ? (size_t)f->iw : 1;
    int32_t *lo = malloc(2 * ncols * sizeof *lo);
    if (!lo)
        return rt_err_set(err, RT_ENOMEM, "view: out of memory");
    int32_t *hi = lo + ncols;
    rt_ses_view_columns(s, k, f->domain, f->a, f->b, ncols, row, lo, hi);
    int st = RT_OK;
    for (size_t c = 0; c < ncols && !st; c++) {
        if (lo[c] < 0)
            continue;
        if (lo[c] == hi[c]) {
            size_t e = c;
            while (e + 1 < ncols && lo[e + 1] == lo[c] && hi[e + 1] == lo[c])
                e++;
            /* half a pixel into each neighbour: it shares an element of this row */
            double y = SY(lo[c]);
            st = seg(out, f->ix + (double)c - 0.5 * (c > 0), y,
                     f->ix + (double)e + 1 + 0.5 * (e + 1 < ncols), y, err);
            c = e;
        } else {
            double x = f->ix + (double)c + 0.5;
            st = seg(out, x, SY(lo[c]) + 0.5, x, SY(hi[c]) - 0.5, err);
        }
    }
#undef SX
#undef SY
    free(lo);
    return st;
}

/* ---- the frequency view ---- */

size_t rt_spectrum_peaks(const double *power, size_t n, size_t npeaks, size_t *idx)
{
    /* idx stays sorted strongest first; npeaks is a handful, so inserting into it
     * costs O(npeaks) per candidate and the pass is linear in n in practice */
    size_t found = 0;
    for (size_t k = 1; k < n && npeaks > 0; k++) {
        double p = power[k];
        if (!(k == 1 || p > power[k - 1]) || !(k + 1 == n || p >= power[k + 1]))
            continue;
        if (found == npeaks && p <= power[idx[found - 1]])
            continue;
        size_t j = found < npeaks ? found++ : found - 1;
        while (j > 0 && power[idx[j - 1]] < p) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
    return found;
}

size_t rt_spectrum_labels(const double *power, size_t n, size_t npeaks, size_t guard,
                          double floor_share, size_t *idx)
{
    double top = 0;
    for (size_t k = 1; k < n; k++)
        if (power[k] > top)
            top = power[k];
    size_t found = 0;
    for (size_t k = 1; k < n && npeaks > 0; k++) {
        double p = power[k];
        if (!(p > 0) || p < floor_share * top)
            continue;
        /* the largest within guard bins; of equal neighbours the leftmost counts */
        int best = 1;
        size_t lo = k > guard ? k - guard : 1, hi = k + guard < n ? k + guard : n - 1;
        for (size_t j = lo; j <= hi && best; j++)
            if (power[j] > p || (power[j] == p && j < k))
                best = 0;
        if (!best)
            continue;
        if (found == npeaks && p <= power[idx[found - 1]])
            continue;
        size_t j = found < npeaks ? found++ : found - 1;
        while (j > 0 && power[idx[j - 1]] < p) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = k;
    }
    return found;
}

/* The signal of a spectrum, read in order: event domain element ranks, or the step
 * function sampled every dt from t0 (a cursor that only moves forward). */
typedef struct {
    const rt_ses *s;
    size_t k;
    const int32_t *rank;
    char domain;
    size_t first, count; /* elements in range */
    double t0, dt;
    size_t cur;          /* time domain: the element holding the last sample read */
} signal;

/* Sample j of the signal; j never decreases between calls except to restart a
 * segment, which rewinds the cursor with set_cursor. */
static double sample(signal *g, size_t j)
{
    const rt_version *v = RT_CUR(g->s, g->k);
    if (g->domain == 'e')
        return g->rank[v->sym[g->first + j]];
    const double *E = g->s->mem[g->k].E;
    double t = g->t0 + ((double)j + 0.5) * g->dt;
    size_t end = g->first + g->count;
    while (g->cur + 1 < end && E[v->start[g->cur + 1]] <= t)
        g->cur++;
    return g->rank[v->sym[g->cur]];
}

/* Position the time-domain cursor at the element holding sample j (binary search). */
static void set_cursor(signal *g, size_t j)
{
    if (g->domain == 'e')
        return;
    const rt_version *v = RT_CUR(g->s, g->k);
    const double *E = g->s->mem[g->k].E;
    double t = g->t0 + ((double)j + 0.5) * g->dt;
    size_t lo = g->first, hi = g->first + g->count; /* last element with entry <= t */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (E[v->start[mid]] <= t)
            lo = mid;
        else
            hi = mid;
    }
    g->cur = lo;
}

int rt_ses_spectrum(const rt_ses *s, size_t k, const rt_spec_opts *o, double **freq,
                    double **power, size_t *nout, size_t *nseg, rt_err *err)
{
    rt_err_clear(err);
    *freq = *power = NULL;
    if (k >= s->nmem)
        return rt_err_set(err, RT_EINVAL, "spectrum: no member %zu", k + 1);
    const rt_version *v = RT_CUR(s, k);
    const double *E = s->mem[k].E;
    size_t n = v->n;
    if (n < 2)
        return rt_err_set(err, RT_EINVAL, "periodogram: the sequence has fewer than two elements");
    signal g = {s, k, NULL, o->domain, 0, n, 0, 1, 0};
    size_t N;
    if (o->ranged)
        rt_ses_view_span(s, k, o->domain, o->a, o->b, &g.first, &g.count);
    if (o->domain == 'e') {
        if (o->ranged) { /* the elements lying wholly in [a, b] */
            size_t lo = o->a > 0 ? (size_t)ceil(o->a) : 0;
            size_t hi = o->b < (double)n ? (size_t)floor(o->b) : n;
            g.first = lo;
            g.count = hi > lo ? hi - lo : 0;
        }
        N = g.count;
    } else {
        double t0 = o->ranged ? o->a : E[v->start[0]];
        double t1 = o->ranged ? o->b : E[v->start[n]];
        if (!(t1 > t0) || g.count == 0)
            return rt_err_set(err, RT_EINVAL, "periodogram: the sequence spans no time%s",
                              o->ranged ? " in the zoom range" : "");
        N = o->nsamples ? o->nsamples : (4 * g.count < ((size_t)1 << 22) ? 4 * g.count : ((size_t)1 << 22));
        g.t0 = t0;
        g.dt = (t1 - t0) / (double)N;
    }
    if (N < 2)
        return rt_err_set(err, RT_EINVAL, "periodogram: fewer than two samples%s",
                          o->ranged ? " in the zoom range" : "");
    size_t L = o->segment && o->segment < N ? o->segment : N;
    size_t hop = L / 2 ? L / 2 : 1;
    size_t segs = L == N ? 1 : (N - L) / hop + 1;
    int32_t *rank = malloc(s->nsym * sizeof *rank);
    double *in = fftw_malloc(L * sizeof *in), *w = malloc(L * sizeof *w);
    fftw_complex *spec = fftw_malloc((L / 2 + 1) * sizeof *spec);
    double *f = malloc((L / 2 + 1) * sizeof *f), *p = calloc(L / 2 + 1, sizeof *p);
    fftw_plan plan = NULL;
    if (rank && in && w && spec && f && p)
        plan = fftw_plan_dft_r2c_1d((int)L, in, spec, FFTW_ESTIMATE);
    if (!plan) {
        free(rank), fftw_free(in), free(w), fftw_free(spec), free(f), free(p);
        return rt_err_set(err, RT_ENOMEM, "periodogram: out of memory");
    }
    /* ranks over the whole member, so the signal's levels are the views' rows */
    for (size_t i = 0; i < s->nsym; i++)
        rank[i] = -1;
    int32_t next = 0;
    for (size_t i = 0; i < n; i++)
        if (rank[v->sym[i]] < 0)
            rank[v->sym[i]] = next++;
    g.rank = rank;
    double wsum = 0;
    for (size_t j = 0; j < L; j++) {
        w[j] = L > 1 ? 0.5 - 0.5 * cos(2 * M_PI * (double)j / (double)L) : 1; /* periodic Hann */
        wsum += w[j] * w[j];
    }
    for (size_t sg = 0; sg < segs; sg++) {
        size_t j0 = sg * hop;
        set_cursor(&g, j0);
        double mean = 0;
        for (size_t j = 0; j < L; j++)
            mean += (in[j] = sample(&g, j0 + j));
        mean /= (double)L;
        for (size_t j = 0; j < L; j++)
            in[j] = (in[j] - mean) * w[j];
        fftw_execute(plan);
        for (size_t q = 0; q <= L / 2; q++)
            p[q] += (spec[q][0] * spec[q][0] + spec[q][1] * spec[q][1]) / wsum;
    }
    for (size_t q = 0; q <= L / 2; q++) {
        p[q] /= (double)segs;
        f[q] = (double)q / ((double)L * g.dt);
    }
    fftw_destroy_plan(plan);
    free(rank), fftw_free(in), free(w), fftw_free(spec);
    *freq = f;
    *power = p;
    *nout = L / 2 + 1;
    *nseg = segs;
    return RT_OK;
}

void rt_ses_occupancy_hist(const rt_ses *s, int32_t id, size_t nbins, uint64_t *counts,
                           double *lo, double *hi, uint64_t *n)
{
    double a = INFINITY, b = -INFINITY;
    uint64_t cnt = 0;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i < v->n; i++)
            if (v->sym[i] == id) {
                double t = rt_ses_time(s, k, i);
                a = t < a ? t : a;
                b = t > b ? t : b;
                cnt++;
            }
    }
    for (size_t c = 0; c < nbins; c++)
        counts[c] = 0;
    if (!cnt)
        a = 0, b = 1;
    if (!(b > a))
        b = a + 1;
    *lo = a, *hi = b, *n = cnt;
    for (size_t k = 0; k < s->nmem && cnt; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i < v->n; i++)
            if (v->sym[i] == id) {
                double c = floor((rt_ses_time(s, k, i) - a) / (b - a) * (double)nbins);
                counts[c >= (double)nbins ? nbins - 1 : (c > 0 ? (size_t)c : 0)]++;
            }
    }
}
