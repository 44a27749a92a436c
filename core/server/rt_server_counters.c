/*
 * rt_server_counters.c - api/counters: one counter of the trace (OTF2 metric, Paraver event type
 * carrying quantities, Pajé variable) over a window, as line plots want it.
 *
 * A counter is a step function on each processor: a sample's value holds from its time until the
 * processor's next sample of that counter (the last one until the window's end); before its first
 * sample the processor has no value. The window is cut into w equal columns and each column gets,
 * per processor, the least and the largest value in force during it and the time-weighted mean
 * over the part of it that has a value. With sum=1 the processors are summed: the mean is the
 * mean of the sum (a processor without a value counts 0), the band the sums of the least and of
 * the largest values (a bound of the sum's extremes). When the window holds few samples
 * (4 w at most, per-processor answers only) they come too, exactly as stored, preceded by the
 * sample in force at the window's start when the walk met it.
 *
 * Zoomed out (the window's blocks hold more than RT_COUNTERS_SAMPLES events), the columns come
 * from the index's counter summaries (rt_index_counter_cells) instead of the samples: the coarsest
 * level whose columns are no wider than a pixel column, each summary column spread over the pixel
 * columns it overlaps (its least and largest value to each, its time and integral in proportion),
 * so a query reads a few cells per pixel whatever the trace's length. lod=0 asks for the samples,
 * lod=1 for the summaries, whatever the window.
 *
 * Query: c (counter number in meta's "counters"), t0, t1, p0, p1, procs, w (1 .. 4096), sum, lod.
 * Per-processor answers are limited to RT_COUNTERS_MAXPROCS processors (400 beyond: sum=1).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_server_int.h"

#define RT_COUNTERS_MAXPROCS 64
/* Events in the window's blocks past which the summaries answer */
#define RT_COUNTERS_SAMPLES 200000

/* One column's accumulation. */
typedef struct ccol {
    double lo, hi;            /* least and largest value in force (lo > hi: none) */
    double area, cover;       /* integral of the value, ticks with a value */
} ccol;

typedef struct cseries {
    int proc;                 /* -1: the sum */
    ccol *col;
    double *samples;          /* (tick, value) pairs when exact */
    size_t nsamples, cap;
} cseries;

typedef struct cwalk {
    int64_t t0, t1;
    int w;
    double dx;
    int sum;
    int cur;                  /* processor being read (-1 none yet) */
    int has_prev;
    int64_t tprev;
    double vprev;
    ccol *one;                /* the current processor's columns */
    cseries *series;          /* per processor shown (sum = 0) or one (sum = 1) */
    int nseries;
    size_t total;             /* samples in the window, all processors */
    int exact;
    int failed;
} cwalk;

static void cols_clear(ccol *c, int w)
{
    for (int i = 0; i < w; i++)
        c[i] = (ccol){INFINITY, -INFINITY, 0, 0};
}

/* The value v held over [a, e) (clipped to the window) into the current processor's columns. */
static void step_add(cwalk *cw, int64_t a, int64_t e, double v)
{
    if (a < cw->t0)
        a = cw->t0;
    if (e > cw->t1)
        e = cw->t1;
    if (e <= a)
        return;
    int c0 = (int)((double)(a - cw->t0) / cw->dx), c1 = (int)((double)(e - 1 - cw->t0) / cw->dx);
    if (c1 >= cw->w)
        c1 = cw->w - 1;
    for (int c = c0 < 0 ? 0 : c0; c <= c1; c++) {
        double lo = cw->t0 + c * cw->dx, hi = lo + cw->dx;
        double x0 = (double)a > lo ? (double)a : lo, x1 = (double)e < hi ? (double)e : hi;
        if (x1 <= x0)
            continue;
        ccol *k = &cw->one[c];
        if (v < k->lo)
            k->lo = v;
        if (v > k->hi)
            k->hi = v;
        k->area += v * (x1 - x0);
        k->cover += x1 - x0;
    }
}

static cseries *series_of(cwalk *cw, int proc)
{
    if (cw->sum)
        return &cw->series[0];
    for (int i = 0; i < cw->nseries; i++)
        if (cw->series[i].proc == proc)
            return &cw->series[i];
    return NULL;
}

static int keep_sample(cseries *s, int64_t t, double v)
{
    if (rt_grow((void **)&s->samples, &s->cap, 2 * (s->nsamples + 1), sizeof *s->samples) != RT_OK)
        return -1;
    s->samples[2 * s->nsamples] = (double)t;
    s->samples[2 * s->nsamples + 1] = v;
    s->nsamples++;
    return 0;
}

/* The processor being read is done: its last value holds to the window's end; fold its columns. */
static void proc_end(cwalk *cw)
{
    if (cw->cur < 0)
        return;
    cseries *s = series_of(cw, cw->cur);
    if (cw->has_prev) {
        step_add(cw, cw->tprev, cw->t1, cw->vprev);
        if (!cw->sum && cw->exact && s && s->nsamples == 0 && keep_sample(s, cw->tprev, cw->vprev))
            cw->failed = 1; /* only a value from before the window: it holds all through */
    }
    for (int c = 0; s && c < cw->w; c++) {
        ccol *k = &cw->one[c], *o = &s->col[c];
        if (!cw->sum) {
            *o = *k;
        } else if (k->cover > 0) { /* sums: a processor without a value adds 0 */
            o->lo = (o->cover > 0 ? o->lo : 0) + k->lo;
            o->hi = (o->cover > 0 ? o->hi : 0) + k->hi;
            o->area += k->area;
            o->cover = cw->dx;
        }
    }
    cols_clear(cw->one, cw->w);
    cw->cur = -1;
    cw->has_prev = 0;
}

static int on_sample(void *ud, int proc, int64_t t, double v)
{
    cwalk *cw = ud;
    if (proc != cw->cur) {
        proc_end(cw);
        cw->cur = proc;
    }
    if (cw->has_prev)
        step_add(cw, cw->tprev, t, cw->vprev);
    if (!cw->sum && cw->exact) {
        cseries *s = series_of(cw, proc);
        if (t >= cw->t0 && ++cw->total > (size_t)4 * (size_t)cw->w)
            cw->exact = 0;
        else if (s && t >= cw->t0 && s->nsamples == 0 && cw->has_prev && keep_sample(s, cw->tprev, cw->vprev))
            cw->failed = 1;
        if (cw->exact && s && t >= cw->t0 && keep_sample(s, t, v))
            cw->failed = 1;
    }
    cw->has_prev = 1;
    cw->tprev = t;
    cw->vprev = v;
    return cw->failed;
}

/* The level answering a window of pixel columns dx ticks wide: the coarsest whose columns are no
 * wider, else the finest. */
static int summary_level(const rt_index *ix, int c, double dx)
{
    int best = rt_index_counter_levels(ix) - 1;
    for (int l = best; l >= 0; l--) {
        rt_ix_ksum s;
        int64_t w = 0;
        if (rt_index_counter_summary(ix, c, l, 0, 0, &s, NULL, &w) == RT_OK && (double)w <= dx)
            best = l;
    }
    return best;
}

/* Processor p's summary columns of level into the current processor's pixel columns, then folded. */
static void from_summaries(cwalk *cw, const rt_index *ix, int c, int level, int p)
{
    int64_t origin, w;
    const rt_ix_ksum *row = rt_index_counter_cells(ix, c, level, p, &origin, &w);
    cw->cur = p;
    cw->has_prev = 0;
    if (row) {
        int64_t n = (int64_t)1 << level, j0 = (cw->t0 - origin) / w, j1 = (cw->t1 - 1 - origin) / w;
        for (int64_t j = j0 < 0 ? 0 : j0; j <= j1 && j < n; j++) {
            const rt_ix_ksum *s = &row[j];
            if (s->cover <= 0)
                continue;
            double a = (double)(origin + j * w), e = a + (double)w;
            int k0 = (int)floor((a - (double)cw->t0) / cw->dx), k1 = (int)floor((e - (double)cw->t0) / cw->dx);
            for (int k = k0 < 0 ? 0 : k0; k <= k1 && k < cw->w; k++) {
                double lo = cw->t0 + k * cw->dx, hi = lo + cw->dx;
                double x0 = a > lo ? a : lo, x1 = e < hi ? e : hi;
                if (x1 <= x0)
                    continue;
                double f = (x1 - x0) / (double)w; /* the share of the summary column in this pixel column */
                ccol *o = &cw->one[k];
                if (s->lo < o->lo)
                    o->lo = s->lo;
                if (s->hi > o->hi)
                    o->hi = s->hi;
                o->area += s->mean * s->cover * f;
                o->cover += s->cover * f;
            }
        }
    }
    proc_end(cw);
    cw->cur = -1;
}

static void put_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, "%.9g", x);
    else
        fputs("null", f);
}

void rt_server_meta_counters(rt_index *ix, jw *w)
{
    fputs(",\"counters\":[", w->f);
    for (int i = 0; i < rt_index_ncounters(ix); i++) {
        fputs(i ? ",{\"name\":" : "{\"name\":", w->f);
        jw_str(w, rt_index_counter_name(ix, i));
        fputs(",\"unit\":", w->f);
        jw_str(w, rt_index_counter_unit(ix, i));
        fputc('}', w->f);
    }
    fputc(']', w->f);
}

void rt_server_answer_counters(rt_index *ix, const kv *a, reply *r)
{
    int64_t t0, t1, c, w, sum, lod;
    int p0, p1;
    unsigned char *mask = NULL;
    if (arg_int(a, "c", 0, (int64_t)rt_index_ncounters(ix) - 1, 0, 0, &c, r) ||
        window_args(ix, a, &t0, &t1, &p0, &p1, r) || arg_int(a, "w", 1, 4096, 0, 0, &w, r) ||
        arg_int(a, "sum", 0, 1, 1, 0, &sum, r) || arg_int(a, "lod", 0, 1, 1, -1, &lod, r) ||
        procs_arg(a, p0, p1, &mask, r))
        return;
    int nshown = 0;
    for (int p = p0; p < p1; p++)
        nshown += mask[p - p0];
    if (!sum && nshown > RT_COUNTERS_MAXPROCS) {
        free(mask);
        return fail(r, 400, "%d processors: per-processor counters for at most %d (sum=1 sums them)", nshown,
                    RT_COUNTERS_MAXPROCS);
    }
    cwalk cw;
    memset(&cw, 0, sizeof cw);
    cw.t0 = t0;
    cw.t1 = t1;
    cw.w = (int)w;
    cw.dx = (double)(t1 - t0) / (double)w;
    cw.sum = (int)sum;
    cw.cur = -1;
    cw.exact = !sum;
    cw.nseries = sum ? 1 : nshown;
    cw.one = malloc((size_t)w * sizeof *cw.one);
    cw.series = calloc((size_t)(cw.nseries ? cw.nseries : 1), sizeof *cw.series);
    int ok = cw.one && cw.series;
    for (int i = 0, p = p0; ok && i < cw.nseries; i++) {
        while (!sum && !mask[p - p0])
            p++;
        cw.series[i].proc = sum ? -1 : p++;
        ok = (cw.series[i].col = malloc((size_t)w * sizeof(ccol))) != NULL;
        if (ok)
            cols_clear(cw.series[i].col, (int)w);
    }
    rt_err err;
    rt_err_clear(&err);
    int rc = ok ? RT_OK : RT_ENOMEM;
    int level = -1; /* the summaries' level answering, -1: the samples */
    if (rt_index_counter_levels(ix) > 0 &&
        (lod == 1 || (lod < 0 && rt_index_estimate(ix, p0, p1, t0, t1) > RT_COUNTERS_SAMPLES)))
        level = summary_level(ix, (int)c, cw.dx);
    if (ok && level >= 0) {
        cols_clear(cw.one, (int)w);
        cw.exact = 0;
        for (int p = p0; p < p1; p++)
            if (mask[p - p0])
                from_summaries(&cw, ix, (int)c, level, p);
    } else if (ok) {
        cols_clear(cw.one, (int)w);
        rt_ix_visitor v = {NULL, NULL, NULL, &cw, on_sample, (int)c};
        int p = p0, ra, rb;
        while (!rc && next_run(mask, p0, p1, &p, &ra, &rb))
            rc = rt_index_walk(ix, ra, rb, t0, t1, &v, &err);
        if (!rc)
            proc_end(&cw);
        if (cw.failed)
            rc = RT_ENOMEM;
    }
    jw out;
    if (rc || jw_open(&out)) {
        fail(r, 500, "%s", rc && err.msg[0] ? err.msg : "out of memory");
    } else {
        fprintf(out.f, "{\"counter\":%lld,\"name\":", (long long)c);
        jw_str(&out, rt_index_counter_name(ix, (int)c));
        fputs(",\"unit\":", out.f);
        jw_str(&out, rt_index_counter_unit(ix, (int)c));
        fprintf(out.f, ",\"t0\":%lld,\"t1\":%lld,\"w\":%lld,\"sum\":%lld,\"exact\":%s,\"level\":%d,",
                (long long)t0, (long long)t1, (long long)w, (long long)sum, cw.exact ? "true" : "false", level);
        rt_ix_ksum ks;
        int64_t korigin, kw;
        if (level >= 0 && rt_index_counter_summary(ix, (int)c, level, 0, 0, &ks, &korigin, &kw) == RT_OK)
            fprintf(out.f, "\"origin\":%lld,\"colw\":%lld,", (long long)korigin, (long long)kw);
        fputs("\"series\":[", out.f);
        for (int i = 0; i < cw.nseries; i++) {
            cseries *s = &cw.series[i];
            fprintf(out.f, "%s{\"proc\":%d", i ? "," : "", s->proc);
            static const char *const names[3] = {"min", "max", "mean"};
            for (int k = 0; k < 3; k++) {
                fprintf(out.f, ",\"%s\":[", names[k]);
                for (int col = 0; col < cw.w; col++) {
                    const ccol *x = &s->col[col];
                    if (col)
                        fputc(',', out.f);
                    double val = x->cover <= 0 ? NAN : k == 0 ? x->lo : k == 1 ? x->hi : x->area / x->cover;
                    put_num(out.f, val);
                }
                fputc(']', out.f);
            }
            if (cw.exact) {
                fputs(",\"samples\":[", out.f);
                for (size_t j = 0; j < s->nsamples; j++) {
                    fprintf(out.f, "%s[%.0f,", j ? "," : "", s->samples[2 * j]);
                    put_num(out.f, s->samples[2 * j + 1]);
                    fputc(']', out.f);
                }
                fputc(']', out.f);
            }
            fputc('}', out.f);
        }
        fputs("]}\n", out.f);
        jw_close(&out, r);
    }
    for (int i = 0; cw.series && i < cw.nseries; i++) {
        free(cw.series[i].col);
        free(cw.series[i].samples);
    }
    free(cw.series);
    free(cw.one);
    free(mask);
}
