/*
 * rt_seq_merge.c - clock drift between the members of a session, fitted on the
 * entries of a synchronisation symbol, and the members merged into one sequence whose
 * state is the tuple of every member's current state (see rt_seq.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_linalg.h"
#include "rt_seq_int.h"

/* Entry times of symbol id in member k (a fresh array, *n of them; NULL when none). */
static double *sync_entries(const rt_ses *s, size_t k, int32_t id, size_t *n, int *oom)
{
    size_t len = rt_ses_length(s, k), m = 0, cap = 0;
    const int32_t *sym = rt_ses_symbols(s, k);
    double *out = NULL;
    *oom = 0;
    for (size_t i = 0; i < len; i++) {
        if (sym[i] != id)
            continue;
        if (m == cap) {
            cap = cap ? 2 * cap : 64;
            double *t = realloc(out, cap * sizeof *t);
            if (!t) {
                free(out);
                *oom = 1;
                return NULL;
            }
            out = t;
        }
        out[m++] = rt_ses_entry(s, k, i);
    }
    *n = m;
    return out;
}

int rt_ses_sync_fit(const rt_ses *s, size_t k, int32_t id, rt_ses_clockfit *out, rt_err *err)
{
    rt_err_clear(err);
    memset(out, 0, sizeof *out);
    if (k >= rt_ses_members(s) || id < 0 || (size_t)id >= rt_ses_symbol_count(s))
        return rt_err_set(err, RT_EINVAL, "drift: no member %zu or no symbol %d", k + 1, (int)id);
    size_t n1, nk;
    int oom1, oomk;
    double *t1 = sync_entries(s, 0, id, &n1, &oom1), *tk = sync_entries(s, k, id, &nk, &oomk);
    if (oom1 || oomk) {
        free(t1);
        free(tk);
        return rt_err_set(err, RT_ENOMEM, "drift: out of memory");
    }
    out->n_ref = n1;
    out->n_member = nk;
    size_t n = n1 < nk ? n1 : nk;
    if (n < 2) {
        free(t1);
        free(tk);
        return rt_err_set(err, RT_EFORMAT, "drift: %s enters the synchronisation state %s %zu times and %s %zu: "
                          "at least 2 in each are needed", rt_ses_label(s, 0), rt_ses_name(s, id), n1,
                          rt_ses_label(s, k), nk);
    }
    rt_linfit f;
    int st = rt_fit_linear(t1, tk, n, &f, err);
    free(t1);
    free(tk);
    if (st != RT_OK)
        return st;
    if (!(f.b > 0))
        return rt_err_set(err, RT_EFORMAT, "drift: %s: the fitted drift %g is not positive (the synchronisation "
                          "points do not advance together)", rt_ses_label(s, k), f.b);
    out->offset = f.a;
    out->drift = f.b;
    out->n = n;
    out->residual = sqrt(f.sumsq / (double)n);
    return RT_OK;
}

/* Grow the output to hold one more element. */
static int push(int32_t **ids, double **times, size_t *n, size_t *cap, int32_t id, double t)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 1024;
        int32_t *a = realloc(*ids, c * sizeof *a);
        if (!a)
            return RT_ENOMEM;
        *ids = a;
        double *b = realloc(*times, c * sizeof *b);
        if (!b)
            return RT_ENOMEM;
        *times = b;
        *cap = c;
    }
    (*ids)[*n] = id;
    (*times)[*n] = t;
    (*n)++;
    return RT_OK;
}

/* Intern the tuple of the current symbols joined by sep (buf grows as needed). */
static int32_t tuple(rt_ses *dst, const rt_ses *src, const int32_t *cur, size_t P, const char *sep,
                     char **buf, size_t *cap)
{
    size_t sl = strlen(sep), len = 0;
    for (size_t k = 0; k < P; k++) {
        const char *nm = rt_ses_name(src, cur[k]);
        size_t l = strlen(nm);
        if (len + l + sl + 1 > *cap) {
            size_t c = 2 * (len + l + sl + 1);
            char *b = realloc(*buf, c);
            if (!b)
                return -1;
            *buf = b;
            *cap = c;
        }
        if (k) {
            memcpy(*buf + len, sep, sl);
            len += sl;
        }
        memcpy(*buf + len, nm, l);
        len += l;
    }
    return rt_ses_intern(dst, *buf, len);
}

int rt_ses_merge(const rt_ses *src, const double *offset, const double *drift, const char *sep, rt_ses *dst,
                 const char *label, rt_err *err)
{
    rt_err_clear(err);
    size_t P = rt_ses_members(src);
    if (P == 0)
        return rt_err_set(err, RT_EINVAL, "merge: no runs");
    size_t *pos = calloc(P, sizeof *pos);
    int32_t *cur = calloc(P, sizeof *cur);
    int32_t *ids = NULL;
    double *times = NULL;
    char *buf = NULL;
    size_t n = 0, cap = 0, bcap = 0;
    int st = RT_OK;
    if (!pos || !cur) {
        st = rt_err_set(err, RT_ENOMEM, "merge: out of memory");
        goto done;
    }
#define MAPPED(k, t) (((t) - (offset ? offset[k] : 0.0)) / (drift ? drift[k] : 1.0))
    double begin = -INFINITY, finish = INFINITY;
    for (size_t k = 0; k < P; k++) {
        size_t L = rt_ses_length(src, k);
        if (L == 0) {
            st = rt_err_set(err, RT_EFORMAT, "merge: %s is empty", rt_ses_label(src, k));
            goto done;
        }
        double b = MAPPED(k, rt_ses_entry(src, k, 0));
        double e = MAPPED(k, rt_ses_entry(src, k, L - 1) + rt_ses_time(src, k, L - 1));
        if (b > begin)
            begin = b;
        if (e < finish)
            finish = e;
    }
    if (!(finish > begin)) {
        st = rt_err_set(err, RT_EFORMAT, "merge: the runs do not overlap in time (one ends before another begins)");
        goto done;
    }
    for (;;) {
        /* the earliest next entry (ties: the lowest run) */
        size_t bk = P;
        double bt = 0;
        for (size_t k = 0; k < P; k++) {
            if (pos[k] >= rt_ses_length(src, k))
                continue;
            double t = MAPPED(k, rt_ses_entry(src, k, pos[k]));
            if (bk == P || t < bt) {
                bk = k;
                bt = t;
            }
        }
        if (bk == P || bt >= finish)
            break;
        /* every entry at time bt, then one state */
        for (size_t k = 0; k < P; k++) {
            while (pos[k] < rt_ses_length(src, k) && MAPPED(k, rt_ses_entry(src, k, pos[k])) == bt) {
                cur[k] = rt_ses_symbols(src, k)[pos[k]];
                pos[k]++;
            }
        }
        if (bt >= begin) {
            int32_t id = tuple(dst, src, cur, P, sep, &buf, &bcap);
            if (id < 0 || push(&ids, &times, &n, &cap, id, bt) != RT_OK) {
                st = rt_err_set(err, RT_ENOMEM, "merge: out of memory");
                goto done;
            }
        }
    }
#undef MAPPED
    if (n == 0) {
        st = rt_err_set(err, RT_EFORMAT, "merge: no time at which every run is in a state");
        goto done;
    }
    /* the end: its state only closes the one before */
    if (push(&ids, &times, &n, &cap, ids[n - 1], finish) != RT_OK) {
        st = rt_err_set(err, RT_ENOMEM, "merge: out of memory");
        goto done;
    }
    st = rt_ses_add_ids(dst, label, n, ids, times, err);
done:
    free(pos);
    free(cur);
    free(ids);
    free(times);
    free(buf);
    return st;
}

/* One pass of rt_ses_acquire: record (when pts) or count the acquisitions. */
static int acquire_pass(const rt_ses *s, const uint8_t *in, size_t T, int per_member, rt_ses_acq *a, int pts,
                        size_t *seen, double *ostart, double *odur, uint8_t *oflag)
{
    size_t M = rt_ses_members(s);
    for (size_t k = 0; k < M; k++) {
        size_t L = rt_ses_length(s, k);
        const int32_t *sym = rt_ses_symbols(s, k);
        size_t j0 = per_member ? k : 0, j1 = per_member ? k + 1 : T;
        if (j1 > T)
            j1 = T;
        for (size_t j = j0; j < j1; j++)
            oflag[j] = 0;
        for (size_t i = 0; i < L; i++) {
            double e = rt_ses_entry(s, k, i), h = rt_ses_time(s, k, i);
            const uint8_t *row = in + (size_t)sym[i] * T;
            for (size_t j = j0; j < j1; j++) {
                if (row[j]) {
                    if (oflag[j])
                        odur[j] += h;
                    else {
                        oflag[j] = i == 0 ? 2 : 1; /* 2: open since the start, not measured */
                        ostart[j] = e;
                        odur[j] = h;
                    }
                    continue;
                }
                if (!oflag[j])
                    continue;
                rt_ses_acq_thread *t = &a->threads[j];
                if (oflag[j] == 2) {
                    if (!pts)
                        t->cut++;
                } else if (!pts) {
                    double d = odur[j];
                    t->n++;
                    t->sum += d;
                    t->sumsq += d * d;
                    if (t->n == 1 || d < t->min)
                        t->min = d;
                    if (t->n == 1 || d > t->max)
                        t->max = d;
                    t->run_n[k]++;
                    t->run_sum[k] += d;
                } else {
                    /* evenly spaced: acquisition q is shown when q * shown / n steps on */
                    size_t q = seen[j]++;
                    if (t->nshown < a->shown && (q == 0 || (q * a->shown) / t->n != ((q - 1) * a->shown) / t->n)) {
                        t->starts[t->nshown] = ostart[j];
                        t->durations[t->nshown] = odur[j];
                        t->nshown++;
                    }
                }
                oflag[j] = 0;
            }
        }
        if (!pts)
            for (size_t j = j0; j < j1; j++)
                if (oflag[j])
                    a->threads[j].cut++;
    }
    return RT_OK;
}

void rt_ses_acq_free(rt_ses_acq *a)
{
    if (!a->threads)
        return;
    for (size_t j = 0; j < a->nthreads; j++) {
        free(a->threads[j].run_n);
        free(a->threads[j].run_sum);
        free(a->threads[j].starts);
        free(a->threads[j].durations);
    }
    free(a->threads);
    a->threads = NULL;
}

int rt_ses_acquire(const rt_ses *s, const uint8_t *in, size_t T, int per_member, size_t shown, rt_ses_acq *a,
                   rt_err *err)
{
    rt_err_clear(err);
    size_t M = rt_ses_members(s);
    memset(a, 0, sizeof *a);
    a->nthreads = T;
    a->shown = shown;
    a->threads = calloc(T ? T : 1, sizeof *a->threads);
    double *ostart = calloc(T ? T : 1, sizeof *ostart), *odur = calloc(T ? T : 1, sizeof *odur);
    uint8_t *oflag = calloc(T ? T : 1, 1);
    size_t *seen = calloc(T ? T : 1, sizeof *seen);
    int ok = a->threads && ostart && odur && oflag && seen;
    for (size_t j = 0; ok && j < T; j++) {
        a->threads[j].run_n = calloc(M ? M : 1, sizeof(size_t));
        a->threads[j].run_sum = calloc(M ? M : 1, sizeof(double));
        ok = a->threads[j].run_n && a->threads[j].run_sum;
    }
    if (ok)
        acquire_pass(s, in, T, per_member, a, 0, seen, ostart, odur, oflag);
    for (size_t j = 0; ok && j < T; j++) {
        size_t m = a->threads[j].n < shown ? a->threads[j].n : shown;
        a->threads[j].starts = malloc((m ? m : 1) * sizeof(double));
        a->threads[j].durations = malloc((m ? m : 1) * sizeof(double));
        ok = a->threads[j].starts && a->threads[j].durations;
    }
    if (ok)
        acquire_pass(s, in, T, per_member, a, 1, seen, ostart, odur, oflag);
    free(ostart);
    free(odur);
    free(oflag);
    free(seen);
    if (!ok) {
        rt_ses_acq_free(a);
        return rt_err_set(err, RT_ENOMEM, "acquisition: out of memory");
    }
    return RT_OK;
}
