/*
 * rt_seq_transform.c - the transforms of a session (clip, aggregate, project, the
 * time and event filters), pattern search and undo. Every transform builds the
 * next version of every member in one or two linear passes (KMP for patterns,
 * arrays indexed by symbol id for projections and filters) inside a transaction
 * that commits for all members at once or for none (see rt_seq.h).
 */
#include "rt_seq.h"
#include "rt_seq_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"

/* ---- transforms: new versions, commit, undo ---- */

/* A transform under construction: one new version per member. */
typedef struct {
    rt_ses *s;
    rt_version *next; /* s->nmem versions */
    int32_t counter;  /* composite counter before the transform */
} txn;

static int txn_begin(rt_ses *s, txn *t, rt_err *err)
{
    t->s = s;
    t->counter = s->counter;
    t->next = calloc(s->nmem ? s->nmem : 1, sizeof *t->next);
    if (!t->next)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    for (size_t k = 0; k < s->nmem; k++)
        if (rt_version_alloc(&t->next[k], RT_CUR(s, k)->n) != RT_OK) {
            for (size_t j = 0; j < k; j++)
                rt_version_free(&t->next[j]);
            free(t->next);
            return rt_err_set(err, RT_ENOMEM, "out of memory");
        }
    return RT_OK;
}

static void clear_composites_above(rt_ses *s, size_t depth)
{
    for (size_t i = 0; i < s->nsym; i++)
        if (s->comp_level[i] > (int32_t)depth)
            s->comp_level[i] = 0;
}

static int txn_abort(txn *t, int status)
{
    for (size_t k = 0; k < t->s->nmem; k++)
        rt_version_free(&t->next[k]);
    free(t->next);
    t->s->counter = t->counter;
    clear_composites_above(t->s, t->s->nsteps);
    return status;
}

static int txn_commit(txn *t, char *desc, rt_err *err)
{
    rt_ses *s = t->s;
    if (!desc)
        return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
    for (size_t k = 0; k < s->nmem; k++) {
        rt_member *m = &s->mem[k];
        if (m->capver < s->nsteps + 2) {
            size_t cap = m->capver * 2 > s->nsteps + 2 ? m->capver * 2 : s->nsteps + 2;
            rt_version *v = realloc(m->ver, cap * sizeof *v);
            if (!v) {
                free(desc);
                return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
            }
            m->ver = v;
            m->capver = cap;
        }
    }
    rt_step *steps = realloc(s->steps, (s->nsteps + 1) * sizeof *steps);
    if (!steps) {
        free(desc);
        return txn_abort(t, rt_err_set(err, RT_ENOMEM, "out of memory"));
    }
    s->steps = steps;
    for (size_t k = 0; k < s->nmem; k++)
        s->mem[k].ver[s->nsteps + 1] = t->next[k];
    free(t->next);
    s->steps[s->nsteps].desc = desc;
    s->steps[s->nsteps].counter = t->counter;
    s->nsteps++;
    return RT_OK;
}

int rt_ses_undo(rt_ses *s, rt_err *err)
{
    rt_err_clear(err);
    if (!s->nsteps)
        return rt_err_set(err, RT_ESTATE, "undo: nothing to undo");
    s->nsteps--;
    for (size_t k = 0; k < s->nmem; k++)
        rt_version_free(&s->mem[k].ver[s->nsteps + 1]);
    s->counter = s->steps[s->nsteps].counter;
    free(s->steps[s->nsteps].desc);
    clear_composites_above(s, s->nsteps);
    return RT_OK;
}

size_t rt_ses_depth(const rt_ses *s) { return s->nsteps; }

const char *rt_ses_step(const rt_ses *s, size_t i)
{
    return i < s->nsteps ? s->steps[i].desc : NULL;
}

static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    int n = vsnprintf(NULL, 0, f, ap);
    va_end(ap);
    char *p = malloc((size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, f);
    vsnprintf(p, (size_t)n + 1, f, ap);
    va_end(ap);
    return p;
}

/* Append " NAME" for ids[0..n-1] to a description, at most 8 of them. */
static char *describe(const char *head, const rt_ses *s, const int32_t *ids, size_t n,
                      const char *sep, const char *tail)
{
    size_t cap = strlen(head) + strlen(tail) + 32;
    size_t shown = n < 8 ? n : 8;
    for (size_t i = 0; i < shown; i++)
        cap += strlen(s->names[ids[i]]) + strlen(sep);
    char *p = malloc(cap);
    if (!p)
        return NULL;
    strcpy(p, head);
    for (size_t i = 0; i < shown; i++) {
        if (i)
            strcat(p, sep);
        strcat(p, s->names[ids[i]]);
    }
    if (shown < n)
        strcat(p, sep), strcat(p, "...");
    strcat(p, tail);
    return p;
}

/* 1 when symbol id occurs in some member's current sequence. */
static int occurs(const rt_ses *s, int32_t id)
{
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        for (size_t i = 0; i < v->n; i++)
            if (v->sym[i] == id)
                return 1;
    }
    return 0;
}

/* A composite symbol made by the transform now running (depth nsteps + 1). */
static void mark_composite(rt_ses *s, int32_t id)
{
    if (!s->comp_level[id] && !s->orig[id])
        s->comp_level[id] = (int32_t)s->nsteps + 1;
}

/* The next free name T<k>: never an original symbol nor a live composite. */
int32_t rt_ses_fresh_composite(rt_ses *s)
{
    char buf[32];
    for (;;) {
        int n = snprintf(buf, sizeof buf, "T%d", (int)s->counter++);
        int32_t id = rt_ses_lookup(s, buf);
        if (id >= 0 && (s->orig[id] || s->comp_level[id]))
            continue;
        if (id < 0)
            id = rt_ses_intern(s, buf, (size_t)n);
        if (id >= 0)
            mark_composite(s, id);
        return id;
    }
}

int rt_ses_clip(rt_ses *s, size_t ni, size_t nf, rt_err *err)
{
    rt_err_clear(err);
    for (size_t k = 0; k < s->nmem; k++) {
        size_t n = RT_CUR(s, k)->n;
        if (ni > n || nf > n - ni)
            return rt_err_at(err, RT_EINVAL, s->mem[k].label, 0,
                             "clip: n_i + n_f = %zu exceeds the sequence length %zu", ni + nf, n);
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st)
        return st;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        o->n = v->n - ni - nf;
        memcpy(o->sym, v->sym + ni, o->n * sizeof *o->sym);
        memcpy(o->start, v->start + ni, (o->n + 1) * sizeof *o->start);
    }
    return txn_commit(&t, fmt("clip %zu %zu", ni, nf), err);
}

/*
 * Knuth-Morris-Pratt over x[0..n-1]: marks mark[i] = 1 where a non-overlapping
 * occurrence (leftmost first) of pat[0..m-1] starts. fail has m entries.
 */
static uint64_t kmp_mark(const int32_t *x, size_t n, const int32_t *pat, size_t m,
                         const size_t *fail, uint8_t *mark)
{
    uint64_t count = 0;
    size_t q = 0;
    for (size_t i = 0; i < n; i++) {
        while (q > 0 && pat[q] != x[i])
            q = fail[q - 1];
        if (pat[q] == x[i])
            q++;
        if (q == m) {
            mark[i + 1 - m] = 1;
            count++;
            q = 0;
        }
    }
    return count;
}

static void kmp_fail(const int32_t *pat, size_t m, size_t *fail)
{
    fail[0] = 0;
    size_t q = 0;
    for (size_t i = 1; i < m; i++) {
        while (q > 0 && pat[q] != pat[i])
            q = fail[q - 1];
        if (pat[q] == pat[i])
            q++;
        fail[i] = q;
    }
}

static size_t max_length(const rt_ses *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->nmem; k++)
        if (RT_CUR(s, k)->n > n)
            n = RT_CUR(s, k)->n;
    return n;
}

int rt_ses_find(const rt_ses *s, const int32_t *pattern, size_t m,
                void (*cb)(size_t member, size_t start, void *ud), void *ud,
                uint64_t *count, double *time, rt_err *err)
{
    rt_err_clear(err);
    if (m == 0)
        return rt_err_set(err, RT_EINVAL, "pattern: the pattern is empty");
    size_t nmax = max_length(s);
    size_t *fail = malloc(m * sizeof *fail);
    uint8_t *mark = calloc(nmax ? nmax : 1, 1);
    if (!fail || !mark) {
        free(fail);
        free(mark);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    kmp_fail(pattern, m, fail);
    uint64_t total = 0;
    double tsum = 0;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        memset(mark, 0, v->n);
        total += kmp_mark(v->sym, v->n, pattern, m, fail, mark);
        const double *E = s->mem[k].E;
        for (size_t i = 0; i < v->n; i++)
            if (mark[i]) {
                tsum += E[v->start[i + m]] - E[v->start[i]];
                if (cb)
                    cb(k, i, ud);
            }
    }
    free(fail);
    free(mark);
    *count = total;
    *time = tsum;
    return RT_OK;
}

int rt_ses_aggregate(rt_ses *s, const int32_t *pattern, size_t m, const char *name,
                     rt_err *err)
{
    rt_err_clear(err);
    if (m == 0)
        return rt_err_set(err, RT_EINVAL, "aggregate: the pattern is empty");
    if (!name || !name[0])
        return rt_err_set(err, RT_EINVAL, "aggregate: the composite symbol needs a name");
    for (size_t i = 0; i < m; i++)
        if (pattern[i] < 0 || (size_t)pattern[i] >= s->nsym)
            return rt_err_set(err, RT_EINVAL, "aggregate: bad symbol id %d", (int)pattern[i]);
    /* A composite named after a state would merge into it, and its definition
     * would be lost: a name in use (a state of the original sequences, a live
     * composite, or a symbol of the current sequence) is refused. */
    int32_t old = rt_ses_lookup(s, name);
    if (old >= 0 && (s->orig[old] || s->comp_level[old] > 0 || occurs(s, old))) {
        char *head = describe("", s, pattern, m, ",", "");
        int r = rt_err_set(err, RT_EINVAL, "aggregate %s=%s: %s is already a %s of the sequence; "
                           "give the composite another name", head ? head : "", name, name,
                           s->comp_level[old] > 0 ? "composite" : "state");
        free(head);
        return r;
    }
    int32_t z = rt_ses_intern(s, name, strlen(name));
    if (z < 0)
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    size_t nmax = max_length(s);
    size_t *fail = malloc(m * sizeof *fail);
    uint8_t *mark = calloc(nmax ? nmax : 1, 1);
    txn t;
    int st = RT_ENOMEM;
    if (!fail || !mark || (st = txn_begin(s, &t, err)) != RT_OK) {
        free(fail);
        free(mark);
        return st == RT_ENOMEM ? rt_err_set(err, RT_ENOMEM, "out of memory") : st;
    }
    mark_composite(s, z);
    kmp_fail(pattern, m, fail);
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        memset(mark, 0, v->n);
        kmp_mark(v->sym, v->n, pattern, m, fail, mark);
        size_t j = 0;
        for (size_t i = 0; i < v->n;) {
            o->start[j] = v->start[i];
            if (mark[i]) {
                o->sym[j++] = z;
                i += m;
            } else {
                o->sym[j++] = v->sym[i++];
            }
        }
        o->start[j] = v->start[v->n];
        o->n = j;
    }
    free(fail);
    free(mark);
    char *head = describe("aggregate ", s, pattern, m, " ", "");
    char *desc = head ? fmt("%s -> %s", head, name) : NULL;
    free(head);
    return txn_commit(&t, desc, err);
}

int rt_ses_project(rt_ses *s, const int32_t *map, size_t nmap, rt_err *err)
{
    rt_err_clear(err);
    size_t nsym = s->nsym;
    int32_t *to = malloc((nsym ? nsym : 1) * sizeof *to);
    uint8_t *target = calloc(nsym ? nsym : 1, 1);
    if (!to || !target) {
        free(to);
        free(target);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    size_t nmapped = 0;
    int32_t shown[8];
    for (size_t i = 0; i < nsym; i++) {
        int32_t y = i < nmap ? map[i] : -1;
        if (y >= (int32_t)nsym) {
            free(to);
            free(target);
            return rt_err_set(err, RT_EINVAL, "project: bad symbol id %d", (int)y);
        }
        to[i] = y < 0 ? (int32_t)i : y;
        if (y >= 0) {
            target[y] = 1;
            if (nmapped < 8)
                shown[nmapped] = (int32_t)i;
            nmapped++;
        }
    }
    if (!nmapped) {
        free(to);
        free(target);
        return rt_err_set(err, RT_EINVAL, "project: the set of symbols is empty");
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st) {
        free(to);
        free(target);
        return st;
    }
    for (size_t i = 0; i < nsym; i++)
        if (target[i])
            mark_composite(s, (int32_t)i);
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        size_t j = 0;
        for (size_t i = 0; i < v->n; i++) {
            int32_t y = to[v->sym[i]];
            if (j && target[y] && o->sym[j - 1] == y)
                continue;
            o->start[j] = v->start[i];
            o->sym[j++] = y;
        }
        o->start[j] = v->start[v->n];
        o->n = j;
    }
    /* description: "project A,B -> Z", or "project A->X, B->Y" for a map */
    int one_target = 1;
    for (size_t i = 0; i < nsym; i++)
        if (i < nmap && map[i] >= 0 && map[i] != to[shown[0]])
            one_target = 0;
    char *desc;
    if (one_target) {
        char *head = describe("project ", s, shown, nmapped < 8 ? nmapped : 8, ",", "");
        desc = head ? fmt("%s%s -> %s", head, nmapped > 8 ? ",..." : "", s->names[to[shown[0]]]) : NULL;
        free(head);
    } else {
        size_t cap = 64, used;
        for (size_t i = 0; i < (nmapped < 8 ? nmapped : 8); i++)
            cap += strlen(s->names[shown[i]]) + strlen(s->names[to[shown[i]]]) + 4;
        desc = malloc(cap);
        if (desc) {
            strcpy(desc, "project ");
            for (size_t i = 0; i < (nmapped < 8 ? nmapped : 8); i++) {
                used = strlen(desc);
                snprintf(desc + used, cap - used, "%s%s->%s", i ? ", " : "", s->names[shown[i]],
                         s->names[to[shown[i]]]);
            }
            if (nmapped > 8) {
                used = strlen(desc);
                snprintf(desc + used, cap - used, ", ... (%zu symbols)", nmapped);
            }
        }
    }
    free(to);
    free(target);
    return txn_commit(&t, desc, err);
}

/* A filter's description: its head, then the composites it made (first_new < 0: none). */
char *rt_ses_filter_desc(const rt_ses *s, const char *head, int32_t first_new, int32_t last_new, size_t n)
{
    if (first_new < 0)
        return fmt("%s (no run)", head);
    if (first_new == last_new)
        return fmt("%s -> %s", head, s->names[first_new]);
    return fmt("%s -> %s..%s (%zu composites)", head, s->names[first_new], s->names[last_new], n);
}

/* Runs of selected symbols become composites, one per (predecessor, successor). */
static int filter_apply(rt_ses *s, const uint8_t *sel, char *head, rt_err *err)
{
    rt_u64map pairs;
    if (!head || rt_u64map_init(&pairs, 64) != RT_OK) {
        free(head);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    txn t;
    int st = txn_begin(s, &t, err);
    if (st) {
        free(head);
        rt_u64map_free(&pairs);
        return st;
    }
    int32_t first_new = -1, last_new = -1;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        rt_version *o = &t.next[k];
        const int32_t *x = v->sym;
        size_t n = v->n, j = 0;
        for (size_t i = 0; i < n;) {
            o->start[j] = v->start[i];
            if (!sel[x[i]]) {
                o->sym[j++] = x[i++];
                continue;
            }
            size_t e = i;
            while (e < n && sel[x[e]])
                e++;
            int32_t pred = i ? x[i - 1] : -1, succ = e < n ? x[e] : -1;
            uint64_t key = ((uint64_t)(uint32_t)(pred + 1) << 32) | (uint32_t)(succ + 1);
            int created;
            int32_t *slot = rt_u64map_slot(&pairs, key, &created);
            if (!slot) {
                free(head);
                rt_u64map_free(&pairs);
                return txn_abort(&t, rt_err_set(err, RT_ENOMEM, "out of memory"));
            }
            if (created) {
                *slot = rt_ses_fresh_composite(s);
                if (*slot < 0) {
                    free(head);
                    rt_u64map_free(&pairs);
                    return txn_abort(&t, rt_err_set(err, RT_ENOMEM, "out of memory"));
                }
                if (first_new < 0)
                    first_new = *slot;
                last_new = *slot;
            }
            o->sym[j++] = *slot;
            i = e;
        }
        o->start[j] = v->start[n];
        o->n = j;
    }
    char *desc = rt_ses_filter_desc(s, head, first_new, last_new, pairs.n);
    free(head);
    rt_u64map_free(&pairs);
    return txn_commit(&t, desc, err);
}

int rt_ses_totals(const rt_ses *s, uint64_t *count, double *h, double *total)
{
    memset(count, 0, s->nsym * sizeof *count);
    memset(h, 0, s->nsym * sizeof *h);
    double T = 0;
    for (size_t k = 0; k < s->nmem; k++) {
        const rt_version *v = RT_CUR(s, k);
        const double *E = s->mem[k].E;
        for (size_t i = 0; i < v->n; i++) {
            double d = E[v->start[i + 1]] - E[v->start[i]];
            count[v->sym[i]]++;
            h[v->sym[i]] += d;
        }
        if (v->n)
            T += E[v->start[v->n]] - E[v->start[0]];
    }
    *total = T;
    return RT_OK;
}

static int filter_by(rt_ses *s, int domain, double p, rt_err *err)
{
    size_t nsym = s->nsym;
    uint64_t *count = malloc((nsym ? nsym : 1) * sizeof *count);
    double *h = malloc((nsym ? nsym : 1) * sizeof *h);
    uint8_t *sel = calloc(nsym ? nsym : 1, 1);
    if (!count || !h || !sel) {
        free(count);
        free(h);
        free(sel);
        return rt_err_set(err, RT_ENOMEM, "out of memory");
    }
    double T;
    rt_ses_totals(s, count, h, &T);
    int st = RT_OK;
    if (domain == 't' && !(T > 0))
        st = rt_err_set(err, RT_EINVAL, "filter_time: the sequence has no time (T = 0)");
    for (size_t i = 0; !st && i < nsym; i++)
        if (count[i])
            sel[i] = domain == 't' ? h[i] / T < p : (double)count[i] < p;
    free(count);
    free(h);
    if (!st)
        st = filter_apply(s, sel, fmt(domain == 't' ? "filter_time %.15g" : "filter_event %.15g", p), err);
    free(sel);
    return st;
}

/* p's check for a filter of domain 't' or 'e'. */
static int filter_p(int domain, double p, rt_err *err)
{
    if (domain == 't' && !(p > 0 && p < 1))
        return rt_err_set(err, RT_EINVAL, "filter_time: p = %g is outside (0, 1)", p);
    if (domain == 'e' && (!(p > 0) || !isfinite(p)))
        return rt_err_set(err, RT_EINVAL, "filter_event: p = %g must be a positive count", p);
    return RT_OK;
}

int rt_ses_filter_time(rt_ses *s, double p, rt_err *err)
{
    rt_err_clear(err);
    int st = filter_p('t', p, err);
    return st ? st : filter_by(s, 't', p, err);
}

int rt_ses_filter_event(rt_ses *s, double p, rt_err *err)
{
    rt_err_clear(err);
    int st = filter_p('e', p, err);
    return st ? st : filter_by(s, 'e', p, err);
}

int rt_ses_filter_plan(rt_ses *s, int domain, double p, rt_err *err)
{
    rt_err_clear(err);
    if (s->nmem)
        return rt_err_set(err, RT_ESTATE, "filter plan: the session has members");
    int st = filter_p(domain, p, err);
    if (st)
        return st;
    txn t;
    if ((st = txn_begin(s, &t, err)) != RT_OK)
        return st;
    return txn_commit(&t, fmt(domain == 't' ? "filter_time %.15g" : "filter_event %.15g", p), err);
}

int rt_ses_step_finish(rt_ses *s, size_t i, char *desc)
{
    if (!desc)
        return RT_ENOMEM;
    if (i >= s->nsteps) {
        free(desc);
        return RT_EINVAL;
    }
    free(s->steps[i].desc);
    s->steps[i].desc = desc;
    return RT_OK;
}
