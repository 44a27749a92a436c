/* Tests of the viewer's index (core/index) and server answers (core/server):
 * random nested PICL traces against a plain model that reads the same trace
 * through rt_tsource (intervals, messages, time per state in random windows,
 * rasters from summaries and from events); the shared OTF2, Paraver and Pajé
 * samples walked whole against the same model; stale, damaged, truncated and
 * foreign indexes refused; malformed queries answered 400. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <otf2/otf2.h>

#include "rt_index.h"
#include "rt_otf2_locs.h"
#include "rt_server.h"
#include "rt_test.h"
#include "rt_tsource_open.h"

/* ---- the model: intervals and messages straight from the source ---- */

typedef struct mint {
    int proc, rid, depth;     /* rid: the trace's own region id */
    int64_t t0, t1;
} mint;

typedef struct mmsg {
    int src, dst;
    int64_t ts, tr;
    double bytes;
} mmsg;

typedef struct model {
    mint *iv;
    size_t niv;
    mmsg *msg;
    size_t nmsg;
    int nprocs;
} model;

static int64_t ev_time(const rt_tsource *s, const rt_tevent *ev)
{
    return rt_tdefs_resolution(s->defs) > 1 ? ev->ticks - rt_tdefs_offset(s->defs) : llround(ev->time * 1e9);
}

static void build_model(const char *path, model *m)
{
    rt_err err;
    rt_tsource *s = rt_tsource_open(path, NULL, &err);
    assert_non_null(s);
    memset(m, 0, sizeof *m);
    enum { MAXP = 8192, MAXD = 64 };
    static int stk_r[MAXP][MAXD];
    static int64_t stk_t[MAXP][MAXD], last[MAXP];
    static int depth[MAXP];
    memset(depth, 0, sizeof depth);
    for (int p = 0; p < MAXP; p++)
        last[p] = -1;
    size_t cap = 1024, mcap = 1024;
    m->iv = malloc(cap * sizeof *m->iv);
    m->msg = malloc(mcap * sizeof *m->msg);
    /* pending sends, searched in order (small traces) */
    mmsg *sent = malloc(mcap * sizeof *sent);
    int64_t *stag = malloc(mcap * sizeof *stag);
    size_t nsent = 0, scap = mcap;
    rt_tevent ev;
    while (rt_tsource_next(s, &ev, &err) == RT_OK) {
        int p = ev.proc;
        assert_true(p >= 0 && p < MAXP);
        int64_t t = ev_time(s, &ev);
        if (last[p] >= 0 && t < last[p])
            t = last[p];
        last[p] = t;
        if (ev.kind == RT_TE_ENTER) {
            assert_true(depth[p] < MAXD);
            stk_r[p][depth[p]] = ev.region;
            stk_t[p][depth[p]++] = t;
        } else if (ev.kind == RT_TE_LEAVE) {
            int d = depth[p];
            while (d > 0 && stk_r[p][d - 1] != ev.region)
                d--;
            if (d == 0)
                continue;
            while (depth[p] >= d) {
                depth[p]--;
                if (m->niv == cap)
                    m->iv = realloc(m->iv, (cap *= 2) * sizeof *m->iv);
                m->iv[m->niv++] = (mint){p, stk_r[p][depth[p]], depth[p], stk_t[p][depth[p]], t};
                if (depth[p] == 0)
                    break;
            }
        } else if (ev.kind == RT_TE_SEND) {
            if (nsent == scap) {
                scap *= 2;
                sent = realloc(sent, scap * sizeof *sent);
                stag = realloc(stag, scap * sizeof *stag);
            }
            stag[nsent] = ev.tag;
            sent[nsent++] = (mmsg){p, ev.peer, t, -1, ev.bytes};
        } else if (ev.kind == RT_TE_RECV) {
            int64_t ts = -1;
            for (size_t i = 0; i < nsent; i++)
                if (sent[i].src == ev.peer && sent[i].dst == p && stag[i] == ev.tag) {
                    ts = sent[i].ts;
                    memmove(&sent[i], &sent[i + 1], (nsent - i - 1) * sizeof *sent);
                    memmove(&stag[i], &stag[i + 1], (nsent - i - 1) * sizeof *stag);
                    nsent--;
                    break;
                }
            if (m->nmsg == mcap)
                m->msg = realloc(m->msg, (mcap *= 2) * sizeof *m->msg);
            m->msg[m->nmsg++] = (mmsg){ev.peer, p, ts, t, ev.bytes > 0 ? (double)llround(ev.bytes) : 0};
        }
    }
    /* what stays open closes at the processor's last event */
    for (int p = 0; p < MAXP; p++)
        while (depth[p] > 0) {
            depth[p]--;
            if (m->niv == cap)
                m->iv = realloc(m->iv, (cap *= 2) * sizeof *m->iv);
            m->iv[m->niv++] = (mint){p, stk_r[p][depth[p]], depth[p], stk_t[p][depth[p]], last[p]};
        }
    m->nprocs = rt_tdefs_nprocs(s->defs);
    free(sent);
    free(stag);
    rt_tsource_free(s);
}

static void free_model(model *m)
{
    free(m->iv);
    free(m->msg);
}

/* ---- what the index reports ---- */

typedef struct got {
    const rt_index *ix;
    mint *iv;
    size_t niv, cap;
    mmsg *msg;
    size_t nmsg, mcap;
    double state[3];
} got;

static int got_interval(void *ud, const rt_ix_interval *v)
{
    got *g = ud;
    if (g->niv == g->cap)
        g->iv = realloc(g->iv, (g->cap = g->cap ? 2 * g->cap : 256) * sizeof *g->iv);
    g->iv[g->niv++] = (mint){v->proc, rt_index_region_id(g->ix, v->region), v->depth, v->t0, v->t1};
    return 0;
}

static int got_message(void *ud, const rt_ix_message *m)
{
    got *g = ud;
    if (g->nmsg == g->mcap)
        g->msg = realloc(g->msg, (g->mcap = g->mcap ? 2 * g->mcap : 256) * sizeof *g->msg);
    g->msg[g->nmsg++] = (mmsg){m->src, m->dst, m->ts, m->tr, m->bytes};
    return 0;
}

static int got_segment(void *ud, int proc, int state, int region, int64_t a, int64_t e)
{
    got *g = ud;
    (void)proc;
    (void)region;
    assert_true(state >= 0 && state < 3);
    assert_true(e > a);
    g->state[state] += (double)(e - a);
    return 0;
}

static int cmp_mint(const void *a, const void *b)
{
    const mint *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc - y->proc;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    if (x->depth != y->depth)
        return x->depth - y->depth;
    return x->rid - y->rid;
}

static int cmp_mmsg(const void *a, const void *b)
{
    const mmsg *x = a, *y = b;
    if (x->tr != y->tr)
        return x->tr < y->tr ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst - y->dst;
    return x->src - y->src;
}

/* Longest interval first. */
static int cmp_length(const void *a, const void *b)
{
    const mint *x = a, *y = b;
    int64_t lx = x->t1 - x->t0, ly = y->t1 - y->t0;
    return lx > ly ? -1 : lx < ly;
}

/* Walk [t0, t1] over processors [p0, p1) and compare with the model. */
static void compare_window(const rt_index *ix, const model *m, int p0, int p1, int64_t t0, int64_t t1)
{
    got g;
    memset(&g, 0, sizeof g);
    g.ix = ix;
    rt_ix_visitor v = {got_interval, NULL, NULL, &g, NULL, 0};
    rt_err err;
    if (rt_index_walk(ix, p0, p1, t0, t1, &v, &err) != RT_OK)
        fail_msg("walk %d..%d [%lld, %lld]: %s", p0, p1, (long long)t0, (long long)t1, err.msg);
    /* expected: every model interval of these processors overlapping the window */
    mint *want = malloc((m->niv + 1) * sizeof *want);
    size_t nw = 0;
    for (size_t i = 0; i < m->niv; i++)
        if (m->iv[i].proc >= p0 && m->iv[i].proc < p1 && m->iv[i].t1 >= t0 && m->iv[i].t0 <= t1)
            want[nw++] = m->iv[i];
    qsort(want, nw, sizeof *want, cmp_mint);
    if (g.niv)
        qsort(g.iv, g.niv, sizeof *g.iv, cmp_mint);
    assert_int_equal(g.niv, nw);
    for (size_t i = 0; i < nw; i++) {
        assert_int_equal(g.iv[i].proc, want[i].proc);
        assert_int_equal(g.iv[i].rid, want[i].rid);
        assert_int_equal(g.iv[i].depth, want[i].depth);
        assert_int_equal(g.iv[i].t0, want[i].t0);
        /* an interval running on past the window ends at an event after t1 (or its true end) */
        if (want[i].t1 <= t1)
            assert_int_equal(g.iv[i].t1, want[i].t1);
        else
            assert_true(g.iv[i].t1 > t1 && g.iv[i].t1 <= want[i].t1);
    }
    /* messages received in the window (or crossing it) by these processors */
    rt_ix_visitor vm = {NULL, got_message, NULL, &g, NULL, 0};
    assert_int_equal(rt_index_walk(ix, p0, p1, t0, t1, &vm, &err), RT_OK);
    mmsg *wm = malloc((m->nmsg + 1) * sizeof *wm);
    size_t nm = 0;
    for (size_t i = 0; i < m->nmsg; i++) {
        const mmsg *x = &m->msg[i];
        if (x->dst >= p0 && x->dst < p1 && x->tr >= t0 && (x->tr <= t1 || (x->ts >= 0 && x->ts <= t1)))
            wm[nm++] = *x;
    }
    qsort(wm, nm, sizeof *wm, cmp_mmsg);
    if (g.nmsg) /* qsort on NULL is undefined, even of nothing */
        qsort(g.msg, g.nmsg, sizeof *g.msg, cmp_mmsg);
    assert_int_equal(g.nmsg, nm);
    for (size_t i = 0; i < nm; i++) {
        assert_int_equal(g.msg[i].src, wm[i].src);
        assert_int_equal(g.msg[i].dst, wm[i].dst);
        assert_int_equal(g.msg[i].ts, wm[i].ts);
        assert_int_equal(g.msg[i].tr, wm[i].tr);
        assert_true(g.msg[i].bytes == wm[i].bytes);
    }
    free(want);
    free(wm);
    free(g.iv);
    free(g.msg);
}

static char *tmp_path(const char *name)
{
    char *p = malloc(256);
    snprintf(p, 256, "/tmp/retrace_test_index_%ld_%s", (long)getpid(), name);
    return p;
}

/* A random PICL trace (new format): nested user events and paired messages on nproc processors. */
static void random_picl(const char *path, unsigned seed, int nproc, int nrec)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    srand(seed);
    int depth[64] = {0}, stack[64][16];
    long t = 0;
    for (int i = 0; i < nrec; i++) {
        t += 1 + rand() % 50;
        int p = rand() % nproc;
        int r = rand() % 10;
        double ts = (double)t * 1e-6;
        if (r < 4 && depth[p] < 16) {
            int e = 1 + rand() % 6;
            stack[p][depth[p]++] = e;
            fprintf(f, "-3 %d %.6f %d 0 0\n", e, ts, p);
        } else if (r < 8 && depth[p] > 0) {
            fprintf(f, "-4 %d %.6f %d 0 0\n", stack[p][--depth[p]], ts, p);
        } else if (r == 8) {
            /* a message to q: the send now, the receive a little later */
            int q = rand() % nproc, tag = rand() % 3, bytes = 8 << (rand() % 8);
            fprintf(f, "-3 -21 %.6f %d 0 3 2 %d %d %d\n", ts, p, bytes, tag, q);
            fprintf(f, "-4 -21 %.6f %d 0 0\n", ts + 1e-6, p);
            t += 2;
            fprintf(f, "-3 -52 %.6f %d 0 2 2 %d %d\n", (double)t * 1e-6, q, tag, p);
            t += 3;
            fprintf(f, "-4 -52 %.6f %d 0 3 2 %d %d %d\n", (double)t * 1e-6, q, bytes, tag, p);
        }
    }
    fclose(f);
}

static void check_trace(const char *trace, int windows, unsigned seed)
{
    char *idx = tmp_path("idx");
    rt_err err;
    rt_index_build_info info;
    assert_int_equal(rt_index_build(trace, NULL, idx, NULL, NULL, &info, &err), RT_OK);
    rt_index *ix = rt_index_open(idx, trace, &err);
    if (!ix)
        fail_msg("%s", err.msg);
    model m;
    build_model(trace, &m);
    assert_int_equal(rt_index_nprocs(ix), m.nprocs);
    int64_t a = rt_index_tmin(ix), b = rt_index_tmax(ix);
    /* the whole run, then random windows and processor ranges */
    compare_window(ix, &m, 0, m.nprocs, a, b);
    srand(seed);
    for (int i = 0; i < windows; i++) {
        int64_t span = b - a + 1;
        int64_t w = 1 + (int64_t)((double)span * pow((double)rand() / RAND_MAX, 3));
        int64_t t0 = a - 5 + (int64_t)((double)(span + 10 - w) * rand() / RAND_MAX);
        int p0 = rand() % m.nprocs, p1 = p0 + 1 + rand() % (m.nprocs - p0);
        compare_window(ix, &m, p0, p1, t0, t0 + w);
    }
    /* windows inside the longest intervals, holding no event of their processor */
    mint *longest = malloc((m.niv + 1) * sizeof *longest);
    memcpy(longest, m.iv, m.niv * sizeof *longest);
    qsort(longest, m.niv, sizeof *longest, cmp_length);
    for (size_t k = 0; k < 20 && k < m.niv && longest[k].t1 - longest[k].t0 >= 4; k++) {
        mint x = longest[k];
        compare_window(ix, &m, x.proc, x.proc + 1, x.t0 + 1, x.t0 + 2);
        compare_window(ix, &m, 0, m.nprocs, x.t1 - 2, x.t1 - 1);
    }
    free(longest);
    /* time per state: segments of the whole run against a raster from summaries and one from events */
    got g;
    memset(&g, 0, sizeof g);
    rt_ix_visitor v = {NULL, NULL, NULL, &g, NULL, 0};
    assert_int_equal(rt_index_walk_segments(ix, 0, m.nprocs, a, b, &v, got_segment, &err), RT_OK);
    int cols[2] = {1, 5000};
    for (int k = 0; k < 2; k++) {
        rt_ix_cell *cells = calloc((size_t)cols[k] * 3, sizeof *cells);
        int from_events = -1;
        assert_int_equal(rt_index_raster(ix, 0, m.nprocs, 3, a, a + 4 * (b - a + 1), cols[k], cells, &from_events, &err), RT_OK);
        double st[3] = {0, 0, 0};
        for (int i = 0; i < cols[k] * 3; i++)
            for (int s = 0; s < 3; s++)
                st[s] += cells[i].st[s];
        for (int s = 0; s < 3; s++)
            if (!(fabs(st[s] - g.state[s]) <= 1e-3 * (g.state[0] + g.state[1] + g.state[2]) + 1))
                fail_msg("%s: %d columns (%s): state %d: raster %.0f, segments %.0f", trace, cols[k],
                         from_events ? "events" : "summaries", s, st[s], g.state[s]);
        free(cells);
    }
    free_model(&m);
    rt_index_close(ix);
    unlink(idx);
    free(idx);
}

static void test_random_traces(void **state)
{
    (void)state;
    char *trace = tmp_path("rand.trf");
    for (unsigned seed = 1; seed <= 6; seed++) {
        random_picl(trace, seed, 1 + (int)seed * 3, 400 + 900 * (int)seed);
        check_trace(trace, 60, seed);
    }
    /* enough events for several blocks a processor and summary levels */
    random_picl(trace, 99, 4, 200000);
    check_trace(trace, 40, 99);
    unlink(trace);
    free(trace);
}

static void test_shared_samples(void **state)
{
    (void)state;
    const char *shared = getenv("RETRACE_SHARED");
    if (!shared)
        shared = "../shared/data";
    const char *rel[] = {"otf2/pingpong/traces.otf2", "paraver/qsort_beo3.prv", "paje/ms.trace",
                         "paje/simu-mardi.trace", "picl/mpicl-8a.trf"};
    int seen = 0;
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", shared, rel[i]);
        if (access(path, R_OK) != 0)
            continue;
        seen++;
        check_trace(path, 30, (unsigned)i + 7);
    }
    if (!seen)
        skip();
}

/* ---- counters: the samples the index keeps are the reader's ---- */

typedef struct csample {
    int proc, counter;
    int64_t t;
    double v;
} csample;

typedef struct clist {
    csample *s;
    size_t n, cap;
    int counter;
} clist;

static void clist_add(clist *l, int proc, int counter, int64_t t, double v)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 256;
        assert_non_null(l->s = realloc(l->s, l->cap * sizeof *l->s));
    }
    l->s[l->n++] = (csample){proc, counter, t, v};
}

static int got_counter(void *ud, int proc, int64_t t, double v)
{
    clist *l = ud;
    clist_add(l, proc, l->counter, t, v);
    return 0;
}

/* By counter, processor, then the reader's order (stable). */
static int csample_cmp(const void *a, const void *b)
{
    const csample *x = a, *y = b;
    if (x->counter != y->counter)
        return x->counter < y->counter ? -1 : 1;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x < y ? -1 : x > y;
}

/*
 * Every counter sample of the trace, as its reader gives it (COUNTER events), equals what a walk
 * of the whole run reports for that counter: same processors, order, values, and times (in the
 * index's ticks, from the trace's first sample on). Returns the samples compared.
 */
static size_t check_counters(const char *trace, const char *want_name)
{
    char *idx = tmp_path("counters.idx");
    rt_err err;
    if (rt_index_build(trace, NULL, idx, NULL, NULL, NULL, &err) != RT_OK)
        fail_msg("%s", err.msg);
    rt_index *ix = rt_index_open(idx, trace, &err);
    assert_non_null(ix);
    rt_tsource *src = rt_tsource_open(trace, NULL, &err);
    assert_non_null(src);
    clist want = {NULL, 0, 0, 0};
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(src, &ev, &err)) == RT_OK)
        if (ev.kind == RT_TE_COUNTER) {
            /* Paraver: ticks of the clock; Pajé: seconds, kept as nanoseconds */
            int64_t t = rt_tdefs_resolution(src->defs) > 1 ? ev.ticks : llround(ev.time * 1e9);
            clist_add(&want, ev.proc, ev.region, t, ev.data[0]);
        }
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(rt_index_ncounters(ix), rt_tdefs_ncounters(src->defs));
    int named = 0;
    for (int c = 0; c < rt_index_ncounters(ix); c++) {
        assert_string_equal(rt_index_counter_name(ix, c), rt_tdefs_counter_at(src->defs, c)->name);
        named |= strcmp(rt_index_counter_name(ix, c), want_name) == 0;
    }
    assert_true(named);
    clist got = {NULL, 0, 0, 0};
    for (int c = 0; c < rt_index_ncounters(ix); c++) {
        got.counter = c;
        rt_ix_visitor v = {NULL, NULL, NULL, &got, got_counter, c};
        assert_int_equal(rt_index_walk(ix, 0, rt_index_nprocs(ix), rt_index_tmin(ix), rt_index_tmax(ix), &v, &err),
                         RT_OK);
    }
    qsort(want.s, want.n, sizeof *want.s, csample_cmp);
    assert_true(want.n > 0);
    assert_int_equal(got.n, want.n);
    /* the index's ticks count from the trace's first tick: compare with the first sample's offset */
    int64_t shift = want.s[0].t - got.s[0].t;
    for (size_t i = 0; i < want.n; i++) {
        const csample *a = &want.s[i], *b = &got.s[i];
        if (a->proc != b->proc || a->counter != b->counter || a->v != b->v || a->t - shift != b->t)
            fail_msg("%s: sample %zu: reader counter %d proc %d t %lld value %.17g; index counter %d proc %d t %lld "
                     "value %.17g", trace, i, a->counter, a->proc, (long long)(a->t - shift), a->v, b->counter,
                     b->proc, (long long)b->t, b->v);
    }
    size_t n = want.n;
    free(want.s);
    free(got.s);
    rt_tsource_free(src);
    rt_index_close(ix);
    unlink(idx);
    free(idx);
    return n;
}

static void test_counters(void **state)
{
    (void)state;
    char path[512];
    /* the hand-written Pajé trace: one variable, set once on rank 0 */
    assert_int_equal(check_counters(rt_test_fixture(path, sizeof path, "paje/small.trace"), "queue length"), 1);
    const char *shared = getenv("RETRACE_SHARED");
    if (!shared)
        shared = "../shared/data";
    static const struct {
        const char *rel, *name;
        size_t n;
    } cases[] = {
        /* 44 samples each of the three hardware counters: grep -c on the .prv's event records */
        {"paraver/qsort_beo3.prv", "Total cycles (Total cycles)", 132},
        {"paje/ms.trace", "power_used", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(path, sizeof path, "%s/%s", shared, cases[i].rel);
        if (access(path, R_OK) != 0) {
            fprintf(stderr, "shared data absent: %s skipped\n", cases[i].rel);
            continue;
        }
        size_t n = check_counters(path, cases[i].name);
        if (cases[i].n)
            assert_int_equal(n, cases[i].n);
    }
}

/* ---- an OTF2 archive read per location gives the index a time-ordered read gives ---- */

/* Everything a walk of the whole run reports: intervals and messages (as got), and enters. */
typedef struct evlist {
    got g;                    /* first: the evlist is handed to got_interval and got_message */
    mint *en;                 /* enters: proc, region id, depth, t0 */
    size_t nen, ecap;
} evlist;

static int ev_enter(void *ud, int proc, int region, int depth, int64_t t)
{
    evlist *g = ud;
    if (g->nen == g->ecap)
        g->en = realloc(g->en, (g->ecap = g->ecap ? 2 * g->ecap : 256) * sizeof *g->en);
    g->en[g->nen++] = (mint){proc, rt_index_region_id(g->g.ix, region), depth, t, t};
    return 0;
}

static void collect(const rt_index *ix, evlist *g)
{
    memset(g, 0, sizeof *g);
    g->g.ix = ix;
    rt_ix_visitor v = {got_interval, got_message, ev_enter, g, NULL, 0};
    rt_err err;
    assert_int_equal(rt_index_walk(ix, 0, rt_index_nprocs(ix), rt_index_tmin(ix), rt_index_tmax(ix), &v, &err), RT_OK);
    if (g->g.niv)
        qsort(g->g.iv, g->g.niv, sizeof *g->g.iv, cmp_mint);
    if (g->g.nmsg)
        qsort(g->g.msg, g->g.nmsg, sizeof *g->g.msg, cmp_mmsg);
    if (g->nen)
        qsort(g->en, g->nen, sizeof *g->en, cmp_mint);
}

/* Both indexes of trace: the same header, events, messages and stored summaries. */
static void check_per_location(const char *trace)
{
    char *merged = tmp_path("merged"), *perloc = tmp_path("perloc");
    rt_err err;
    rt_index_build_info im, il;
    assert_int_equal(rt_index_build_with(trace, NULL, merged, RT_INDEX_MERGED, NULL, NULL, &im, &err), RT_OK);
    if (rt_index_build_with(trace, NULL, perloc, 0, NULL, NULL, &il, &err) != RT_OK)
        fail_msg("%s", err.msg);
    assert_int_equal(im.events, il.events);
    assert_true(im.events > 0);
    assert_int_equal(im.bytes, il.bytes);
    rt_index *a = rt_index_open(merged, trace, &err), *b = rt_index_open(perloc, trace, &err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(rt_index_nprocs(a), rt_index_nprocs(b));
    assert_int_equal(rt_index_nregions(a), rt_index_nregions(b));
    assert_int_equal(rt_index_tmin(a), rt_index_tmin(b));
    assert_int_equal(rt_index_tmax(a), rt_index_tmax(b));
    assert_int_equal(rt_index_nevents(a), rt_index_nevents(b));
    assert_int_equal(rt_index_levels(a), rt_index_levels(b));
    evlist la, lb;
    collect(a, &la);
    collect(b, &lb);
    got ga = la.g, gb = lb.g;
    assert_int_equal(ga.niv, gb.niv);
    assert_int_equal(ga.nmsg, gb.nmsg);
    assert_int_equal(la.nen, lb.nen);
    for (int k = 0; k < 2; k++) {
        const mint *x = k ? la.en : ga.iv, *y = k ? lb.en : gb.iv;
        for (size_t i = 0, n = k ? la.nen : ga.niv; i < n; i++)
            if (x[i].proc != y[i].proc || x[i].rid != y[i].rid || x[i].depth != y[i].depth || x[i].t0 != y[i].t0 ||
                x[i].t1 != y[i].t1)
                fail_msg("%s: %s %zu: %d %d %d [%lld, %lld] against %d %d %d [%lld, %lld]", trace,
                         k ? "enter" : "interval", i, x[i].proc, x[i].rid, x[i].depth, (long long)x[i].t0,
                         (long long)x[i].t1, y[i].proc, y[i].rid, y[i].depth, (long long)y[i].t0, (long long)y[i].t1);
    }
    size_t paired = 0;
    for (size_t i = 0; i < ga.nmsg; i++) {
        assert_int_equal(ga.msg[i].src, gb.msg[i].src);
        assert_int_equal(ga.msg[i].dst, gb.msg[i].dst);
        assert_int_equal(ga.msg[i].ts, gb.msg[i].ts);
        assert_int_equal(ga.msg[i].tr, gb.msg[i].tr);
        assert_true(ga.msg[i].bytes == gb.msg[i].bytes);
        paired += ga.msg[i].ts >= 0;
    }
    assert_true(ga.nmsg == 0 || paired > 0);
    /* stored summaries: times per state and messages exactly; the top region as a region id */
    size_t cells = 0, same_top = 0;
    for (int l = 0; l < rt_index_levels(a); l++)
        for (int p = 0; p < rt_index_nprocs(a); p++)
            for (int64_t c = 0; c < ((int64_t)1 << l); c++) {
                rt_ix_cell x, y;
                int64_t ta, tb;
                assert_int_equal(rt_index_summary(a, l, p, c, &x, &ta), RT_OK);
                assert_int_equal(rt_index_summary(b, l, p, c, &y, &tb), RT_OK);
                assert_int_equal(ta, tb);
                for (int k = 0; k < 3; k++)
                    assert_true(x.st[k] == y.st[k]);
                assert_int_equal(x.nmsg, y.nmsg);
                cells++;
                same_top += (x.top < 0 ? -1 : rt_index_region_id(a, x.top)) ==
                            (y.top < 0 ? -1 : rt_index_region_id(b, y.top));
            }
    assert_int_equal(rt_index_summary(a, rt_index_levels(a), 0, 0, &(rt_ix_cell){0}, NULL), RT_EINVAL);
    /* the per-location build sets the top region at the columns' final width; the time-ordered one
     * merges it from narrower columns as the span grows, a rule of thumb that may pick otherwise */
    assert_true(same_top * 100 >= cells * 99);
    free(ga.iv), free(ga.msg), free(la.en), free(gb.iv), free(gb.msg), free(lb.en);
    rt_index_close(a);
    rt_index_close(b);
    unlink(merged);
    unlink(perloc);
    free(merged);
    free(perloc);
}

static OTF2_FlushType skew_pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *cb, bool final)
{
    (void)ud, (void)type, (void)loc, (void)cb, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp skew_post_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc)
{
    (void)ud, (void)type, (void)loc;
    return 0;
}

typedef struct skew_ev {
    uint64_t t;
    int seq, recv, peer, tag;
} skew_ev;

static int skew_cmp(const void *a, const void *b)
{
    const skew_ev *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->seq - y->seq;
}

/*
 * An archive whose clocks disagree: nloc locations exchange messages (self messages too, two tags)
 * at send and receive times drawn independently on a coarse grid, so receives often come before
 * their sends and many events share a time stamp. A time-ordered read pairs a receive only with
 * a send met before it; the per-location build must pair the same way.
 */
/* An archive written into dir, its event files open. */
static OTF2_Archive *open_archive(const char *dir)
{
    static OTF2_FlushCallbacks fl = {.otf2_pre_flush = skew_pre_flush, .otf2_post_flush = skew_post_flush};
    OTF2_Archive *ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                                         OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    assert_non_null(ar);
    OTF2_Archive_SetFlushCallbacks(ar, &fl, NULL);
    OTF2_Archive_SetSerialCollectiveCallbacks(ar);
    OTF2_Archive_OpenEvtFiles(ar);
    return ar;
}

/* Close an archive of nloc locations (nev[p] events each) of the skewed runs' definitions: one region
 * "main", one communicator of every location, a clock of 1 ns ticks from 0. */
static int with_metrics; /* close_archive also defines two metric members, a class of both and an instance */
static void close_archive(OTF2_Archive *ar, int nloc, const uint64_t *nev)
{
    OTF2_Archive_CloseEvtFiles(ar);
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(ar);
    OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, 600, OTF2_UNDEFINED_TIMESTAMP);
    const char *strings[] = {"", "node", "rank", "thread", "main", "WORLD"};
    for (uint32_t i = 0; i < 6; i++)
        OTF2_GlobalDefWriter_WriteString(g, i, strings[i]);
    OTF2_GlobalDefWriter_WriteRegion(g, 0, 4, 4, 0, OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER,
                                     OTF2_REGION_FLAG_NONE, 0, 0, 0);
    OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, 1, 1, OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    uint64_t *members = malloc((size_t)nloc * sizeof *members);
    for (int p = 0; p < nloc; p++) {
        OTF2_GlobalDefWriter_WriteLocationGroup(g, (uint32_t)p, 2, OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                OTF2_UNDEFINED_LOCATION_GROUP);
        OTF2_GlobalDefWriter_WriteLocation(g, (uint64_t)p, 3, OTF2_LOCATION_TYPE_CPU_THREAD, nev[p], (uint32_t)p);
        members[p] = (uint64_t)p;
    }
    OTF2_GlobalDefWriter_WriteGroup(g, 0, 0, OTF2_GROUP_TYPE_COMM_LOCATIONS, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)nloc, members);
    OTF2_GlobalDefWriter_WriteGroup(g, 1, 0, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE,
                                    (uint32_t)nloc, members);
    OTF2_GlobalDefWriter_WriteComm(g, 0, 5, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    if (with_metrics) {
        const char *more[] = {"cache misses", "#", "flops", "FLOP"};
        for (uint32_t i = 0; i < 4; i++)
            OTF2_GlobalDefWriter_WriteString(g, 6 + i, more[i]);
        OTF2_GlobalDefWriter_WriteMetricMember(g, 0, 6, 0, OTF2_METRIC_TYPE_PAPI, OTF2_METRIC_ACCUMULATED_START,
                                               OTF2_TYPE_UINT64, OTF2_BASE_DECIMAL, 0, 7);
        OTF2_GlobalDefWriter_WriteMetricMember(g, 1, 8, 0, OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
                                               OTF2_TYPE_DOUBLE, OTF2_BASE_DECIMAL, 0, 9);
        OTF2_MetricMemberRef both[2] = {0, 1};
        OTF2_GlobalDefWriter_WriteMetricClass(g, 0, 2, both, OTF2_METRIC_SYNCHRONOUS_STRICT, OTF2_RECORDER_KIND_CPU);
        OTF2_GlobalDefWriter_WriteMetricInstance(g, 1, 0, 0, OTF2_SCOPE_LOCATION, 0);
    }
    assert_int_equal(OTF2_Archive_Close(ar), OTF2_SUCCESS);
    free(members);
}

static void write_skewed(const char *dir, int nloc, int nmsg, unsigned seed)
{
    OTF2_Archive *ar = open_archive(dir);
    skew_ev **ev = calloc((size_t)nloc, sizeof *ev);
    int *n = calloc((size_t)nloc, sizeof *n);
    for (int p = 0; p < nloc; p++)
        ev[p] = malloc(2 * (size_t)nmsg * sizeof **ev);
    srand(seed);
    for (int m = 0; m < nmsg; m++) {
        int src = rand() % nloc, dst = rand() % nloc, tag = rand() % 2;
        uint64_t ts = 10 + 10 * (uint64_t)(rand() % 40), tr = 10 + 10 * (uint64_t)(rand() % 40);
        ev[src][n[src]] = (skew_ev){ts, 2 * m, 0, dst, tag};
        n[src]++;
        ev[dst][n[dst]] = (skew_ev){tr, 2 * m + 1, 1, src, tag};
        n[dst]++;
    }
    uint64_t *nev = calloc((size_t)nloc, sizeof *nev);
    for (int p = 0; p < nloc; p++) {
        qsort(ev[p], (size_t)n[p], sizeof **ev, skew_cmp);
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)p);
        OTF2_EvtWriter_Enter(w, NULL, 5, 0);
        for (int i = 0; i < n[p]; i++) {
            const skew_ev *e = &ev[p][i];
            if (e->recv)
                OTF2_EvtWriter_MpiRecv(w, NULL, e->t, (uint32_t)e->peer, 0, (uint32_t)e->tag, 8 + (uint64_t)i);
            else
                OTF2_EvtWriter_MpiSend(w, NULL, e->t, (uint32_t)e->peer, 0, (uint32_t)e->tag, 8 + (uint64_t)i);
        }
        OTF2_EvtWriter_Leave(w, NULL, 500, 0);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[p]);
        OTF2_Archive_CloseEvtWriter(ar, w);
        free(ev[p]);
    }
    close_archive(ar, nloc, nev);
    free(nev);
    free(n);
    free(ev);
}

static void test_per_location(void **state)
{
    (void)state;
    /* skewed clocks: receives before their sends, ties, self messages */
    for (unsigned seed = 1; seed <= 4; seed++) {
        char *dir = tmp_path("skew");
        char anchor[512], cmd[600];
        write_skewed(dir, 2 + (int)seed, 150 * (int)seed, seed);
        snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
        check_per_location(anchor);
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
        free(dir);
    }
    const char *bin = getenv("RETRACE_BIN"), *shared = getenv("RETRACE_SHARED");
    char path[512], cmd[1024];
    int seen = 0;
    snprintf(path, sizeof path, "%s/otf2/pingpong/traces.otf2", shared ? shared : "../shared/data");
    if (access(path, R_OK) == 0) {
        check_per_location(path);
        seen++;
    }
    /* generated MPI-like runs: ring and random-partner messages, collectives, 3 to 64 ranks */
    if (bin && strrchr(bin, '/')) {
        int nloc[3] = {3, 16, 64};
        long nev[3] = {3000, 60000, 400000};
        for (int k = 0; k < 3; k++) {
            char *dir = tmp_path("gen");
            snprintf(cmd, sizeof cmd, "rm -rf '%s' && '%.*s/bench/gen_otf2_mpi' '%s' %d %ld %d > /dev/null", dir,
                     (int)(strrchr(bin, '/') - bin), bin, dir, nloc[k], nev[k], k + 3);
            assert_int_equal(system(cmd), 0);
            snprintf(path, sizeof path, "%s/traces.otf2", dir);
            check_per_location(path);
            snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
            assert_int_equal(system(cmd), 0);
            free(dir);
            seen++;
        }
    }
    if (!seen)
        skip();
}

/* What a read of one location saw: its events, first and latest stamp, its sends at the latest stamp. */
typedef struct loc_seen {
    uint64_t n;
    int64_t first, latest;
    int nsend;
    int64_t send_t[8];
    int send_peer[8];
} loc_seen;

static int seen_all(void *ud, const rt_tevent *ev)
{
    loc_seen *r = ud;
    if (!r->n++)
        r->first = r->latest = ev->ticks;
    else if (ev->ticks > r->latest)
        r->latest = ev->ticks;
    if (ev->kind == RT_TE_SEND && r->nsend < 8) {
        r->send_t[r->nsend] = r->latest;
        r->send_peer[r->nsend++] = ev->peer;
    }
    return 0;
}

static int seen_sends(void *ud, const rt_tevent *ev)
{
    loc_seen *r = ud;
    assert_int_equal(ev->kind, RT_TE_SEND);
    if (r->nsend < 8) {
        r->send_t[r->nsend] = ev->ticks;
        r->send_peer[r->nsend++] = ev->peer;
    }
    return 0;
}

/* ---- OTF2 metrics: counters in the index ---- */

/* Remove (and free the paths of) an index file and an archive's folder. */
static void drop_files(char *idx, char *dir)
{
    char cmd[600];
    unlink(idx);
    free(idx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

/*
 * nloc locations, each with five samples of the class (cache misses k * (p + 1) as UINT64, flops
 * k / 2 as DOUBLE at 10 k + p) and one of the instance at 300 (7 and -1.5).
 */
static void write_metrics(const char *dir, int nloc)
{
    OTF2_Archive *ar = open_archive(dir);
    uint64_t *nev = calloc((size_t)nloc, sizeof *nev);
    assert_non_null(nev);
    OTF2_Type ty[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
    for (int p = 0; p < nloc; p++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)p);
        OTF2_EvtWriter_Enter(w, NULL, 5, 0);
        OTF2_MetricValue v[2];
        for (int k = 1; k <= 5; k++) {
            v[0].unsigned_int = (uint64_t)(k * (p + 1));
            v[1].floating_point = k / 2.0;
            OTF2_EvtWriter_Metric(w, NULL, 10 * (uint64_t)k + (uint64_t)p, 0, 2, ty, v);
        }
        v[0].unsigned_int = 7;
        v[1].floating_point = -1.5;
        OTF2_EvtWriter_Metric(w, NULL, 300, 1, 2, ty, v);
        OTF2_EvtWriter_Leave(w, NULL, 500, 0);
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[p]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    with_metrics = 1;
    close_archive(ar, nloc, nev);
    with_metrics = 0;
    free(nev);
}

/* Every sample against the hand-written values and the reader's; the per-location build equals the merged one. */
static void test_otf2_metrics(void **state)
{
    (void)state;
    char path[512];
    char *dir = tmp_path("metrics");
    write_metrics(dir, 3);
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    assert_int_equal(check_counters(path, "flops"), 3 * 6 * 2);
    check_per_location(path);
    rt_err err;
    char *idx = tmp_path("metrics.idx");
    assert_int_equal(rt_index_build(path, NULL, idx, NULL, NULL, NULL, &err), RT_OK);
    rt_index *ix = rt_index_open(idx, path, &err);
    assert_non_null(ix);
    assert_int_equal(rt_index_ncounters(ix), 2);
    assert_string_equal(rt_index_counter_unit(ix, 0), "#");
    assert_string_equal(rt_index_counter_unit(ix, 1), "FLOP");
    clist got = {NULL, 0, 0, 0};
    for (int c = 0; c < 2; c++) {
        got.counter = c;
        rt_ix_visitor v = {NULL, NULL, NULL, &got, got_counter, c};
        assert_int_equal(rt_index_walk(ix, 2, 3, rt_index_tmin(ix), rt_index_tmax(ix), &v, &err), RT_OK);
    }
    /* location 2: cache misses 3, 6, 9, 12, 15 then 7; flops 0.5 .. 2.5 then -1.5 */
    assert_int_equal(got.n, 12);
    for (int k = 0; k < 6; k++) {
        assert_true(got.s[k].v == (k < 5 ? 3.0 * (k + 1) : 7.0));
        assert_true(got.s[6 + k].v == (k < 5 ? (k + 1) / 2.0 : -1.5));
        assert_int_equal(got.s[k].t - rt_index_tmin(ix), k < 5 ? 10 * (k + 1) + 2 - 5 : 300 - 5);
    }
    free(got.s);
    rt_index_close(ix);
    drop_files(idx, dir);
}

/*
 * Counter summaries: on an archive of random metric samples (nloc locations, random times and
 * values, some locations without samples), every column of every level equals the least, largest
 * and time-weighted mean of the step function made of the raw samples (each value held until the
 * location's next sample of that counter, the last to the run's last event), computed here.
 */
/* splitmix64: the test's random stream */
static uint64_t rnd(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void test_counter_summaries(void **state)
{
    (void)state;
    enum { NLOC = 5, MAXS = 400 };
    char *dir = tmp_path("ksum");
    OTF2_Archive *ar = open_archive(dir);
    uint64_t nev[NLOC];
    /* samples[p][k][i]: times and values written, per location and member */
    static int64_t ts[NLOC][MAXS];
    static double vs[NLOC][2][MAXS];
    int ns[NLOC];
    uint64_t seed = 12345;
    OTF2_Type ty[2] = {OTF2_TYPE_UINT64, OTF2_TYPE_DOUBLE};
    int64_t tend = 0;
    for (int p = 0; p < NLOC; p++) {
        OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, (uint64_t)p);
        int64_t t = 3 + p;
        OTF2_EvtWriter_Enter(w, NULL, (uint64_t)t, 0);
        ns[p] = p == 3 ? 0 : 50 + (int)(rnd(&seed) % (MAXS - 50));
        for (int i = 0; i < ns[p]; i++) {
            t += 1 + (int64_t)(rnd(&seed) % 997);
            OTF2_MetricValue v[2];
            v[0].unsigned_int = rnd(&seed) % 100000;
            v[1].floating_point = (double)(rnd(&seed) % 20001) / 100.0 - 100.0;
            ts[p][i] = t;
            vs[p][0][i] = (double)v[0].unsigned_int;
            vs[p][1][i] = v[1].floating_point;
            OTF2_EvtWriter_Metric(w, NULL, (uint64_t)t, 0, 2, ty, v);
        }
        t += 1 + (int64_t)(rnd(&seed) % 500);
        OTF2_EvtWriter_Leave(w, NULL, (uint64_t)t, 0);
        if (t > tend)
            tend = t;
        OTF2_EvtWriter_GetNumberOfEvents(w, &nev[p]);
        OTF2_Archive_CloseEvtWriter(ar, w);
    }
    with_metrics = 1;
    close_archive(ar, NLOC, nev);
    with_metrics = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/traces.otf2", dir);
    rt_err err;
    char *idx = tmp_path("ksum.idx");
    for (int merged = 0; merged < 2; merged++) { /* per location, then through the time-ordered reader */
        if (rt_index_build_with(path, NULL, idx, merged ? RT_INDEX_MERGED : 0, NULL, NULL, NULL, &err) != RT_OK)
            fail_msg("%s", err.msg);
        rt_index *ix = rt_index_open(idx, path, &err);
        assert_non_null(ix);
        int levels = rt_index_counter_levels(ix);
        assert_true(levels >= 3);
        int64_t shift = rt_index_tmin(ix) - 3; /* the index counts ticks from the first event (tick 3) */
        size_t checked = 0;
        for (int l = 0; l < levels; l++)
            for (int p = 0; p < NLOC; p++)
                for (int c = 0; c < 2; c++)
                    for (int64_t col = 0; col < ((int64_t)1 << l); col++) {
                        rt_ix_ksum s;
                        int64_t a, cw;
                        assert_int_equal(rt_index_counter_summary(ix, c, l, p, col, &s, &a, &cw), RT_OK);
                        a -= shift;
                        int64_t e = a + cw;
                        /* the reference: each sample's value over [its time, the next one's) within [a, e) */
                        double lo = INFINITY, hi = -INFINITY, area = 0, cover = 0;
                        for (int i = 0; i < ns[p]; i++) {
                            int64_t x0 = ts[p][i], x1 = i + 1 < ns[p] ? ts[p][i + 1] : tend;
                            if (x0 < a)
                                x0 = a;
                            if (x1 > e)
                                x1 = e;
                            if (x1 <= x0)
                                continue;
                            double v = vs[p][c][i];
                            lo = v < lo ? v : lo;
                            hi = v > hi ? v : hi;
                            area += v * (double)(x1 - x0);
                            cover += (double)(x1 - x0);
                        }
                        if (cover == 0) {
                            assert_true(s.cover == 0);
                            continue;
                        }
                        if (s.cover != cover || s.lo != lo || s.hi != hi ||
                            fabs(s.mean - area / cover) > 1e-9 * (1 + fabs(area / cover)))
                            fail_msg("level %d proc %d counter %d column %lld [%lld, %lld): index lo %g hi %g mean %.17g "
                                     "cover %g; samples lo %g hi %g mean %.17g cover %g", l, p, c, (long long)col,
                                     (long long)a, (long long)e, s.lo, s.hi, s.mean, s.cover, lo, hi, area / cover, cover);
                        checked++;
                    }
        assert_true(checked > 100);
        rt_ix_ksum s;
        assert_int_equal(rt_index_counter_summary(ix, 2, 0, 0, 0, &s, NULL, NULL), RT_EINVAL);
        assert_int_equal(rt_index_counter_summary(ix, 0, levels, 0, 0, &s, NULL, NULL), RT_EINVAL);
        rt_index_close(ix);
    }
    /* an index of an earlier version (one without counter summaries): refused as stale, built again */
    FILE *f = fopen(idx, "r+b");
    assert_non_null(f);
    uint32_t old = RT_INDEX_VERSION - 1;
    assert_int_equal(fseek(f, 8, SEEK_SET), 0); /* past the magic */
    assert_int_equal(fwrite(&old, sizeof old, 1, f), 1);
    fclose(f);
    assert_null(rt_index_open(idx, path, &err));
    assert_int_equal(err.status, RT_ESTATE);
    assert_non_null(strstr(err.msg, "another version"));
    drop_files(idx, dir);
}

/* The send pass of the per-location reader (rt_otf2_locs_sends) on two locations exchanging three
 * messages: the sends with their stamps and peers, the span and the event count, by hand and as the
 * full read gives them; the index built per location equals the time-ordered one. (The OTF2 writer
 * drops a record whose stamp steps back, so a held stamp cannot be written here.) */
static void test_sends_pass(void **state)
{
    (void)state;
    char *dir = tmp_path("sendpass");
    OTF2_Archive *ar = open_archive(dir);
    uint64_t nev[2];
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(ar, 0);
    OTF2_EvtWriter_Enter(w, NULL, 5, 0);
    OTF2_EvtWriter_MpiRecv(w, NULL, 300, 1, 0, 7, 16);
    OTF2_EvtWriter_MpiSend(w, NULL, 320, 1, 0, 7, 32);
    OTF2_EvtWriter_MpiSend(w, NULL, 400, 1, 0, 7, 64);
    OTF2_EvtWriter_Leave(w, NULL, 500, 0);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[0]);
    OTF2_Archive_CloseEvtWriter(ar, w);
    w = OTF2_Archive_GetEvtWriter(ar, 1);
    OTF2_EvtWriter_Enter(w, NULL, 5, 0);
    OTF2_EvtWriter_MpiRecv(w, NULL, 350, 0, 0, 7, 32);
    OTF2_EvtWriter_MpiRecv(w, NULL, 450, 0, 0, 7, 64);
    OTF2_EvtWriter_MpiSend(w, NULL, 460, 0, 0, 7, 16);
    OTF2_EvtWriter_Leave(w, NULL, 520, 0);
    OTF2_EvtWriter_GetNumberOfEvents(w, &nev[1]);
    OTF2_Archive_CloseEvtWriter(ar, w);
    close_archive(ar, 2, nev);
    char anchor[512], cmd[600];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    rt_err err;
    rt_otf2_locs *L = rt_otf2_locs_open(anchor, &err);
    if (!L)
        fail_msg("%s", err.msg);
    static const int64_t want_send[2][2] = {{320, 400}, {460, -1}}, want_span[2][2] = {{5, 500}, {5, 520}};
    for (int p = 0; p < 2; p++) {
        loc_seen full = {0}, sends = {0};
        int64_t span[2] = {-1, -1};
        assert_int_equal(rt_otf2_locs_read(L, p, seen_all, &full, &err), RT_OK);
        assert_int_equal(rt_otf2_locs_sends(L, p, seen_sends, &sends, span, &sends.n, &err), RT_OK);
        assert_int_equal(sends.n, 5);
        assert_int_equal(full.n, 5);
        assert_int_equal(span[0], want_span[p][0]);
        assert_int_equal(span[1], want_span[p][1]);
        assert_int_equal(full.first, span[0]);
        assert_int_equal(full.latest, span[1]);
        assert_int_equal(sends.nsend, p ? 1 : 2);
        assert_int_equal(full.nsend, sends.nsend);
        for (int i = 0; i < sends.nsend; i++) {
            assert_int_equal(sends.send_t[i], want_send[p][i]);
            assert_int_equal(full.send_t[i], want_send[p][i]);
            assert_int_equal(sends.send_peer[i], 1 - p);
            assert_int_equal(full.send_peer[i], 1 - p);
        }
    }
    rt_otf2_locs_close(L);
    check_per_location(anchor);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
    free(dir);
}

static void test_refused(void **state)
{
    (void)state;
    char *trace = tmp_path("stale.trf"), *idx = tmp_path("stale.idx");
    random_picl(trace, 5, 3, 500);
    rt_err err;
    assert_int_equal(rt_index_build(trace, NULL, idx, NULL, NULL, NULL, &err), RT_OK);
    rt_index *ix = rt_index_open(idx, trace, &err);
    assert_non_null(ix);
    rt_index_close(ix);
    size_t len;
    FILE *f = fopen(idx, "rb");
    fseek(f, 0, SEEK_END);
    len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(len);
    assert_int_equal(fread(buf, 1, len, f), len);
    fclose(f);
    /* one flipped byte anywhere in the body: corrupt */
    for (size_t at = 300; at < len; at += len / 7) {
        buf[at] ^= 0x40;
        f = fopen(idx, "wb");
        fwrite(buf, 1, len, f);
        fclose(f);
        assert_null(rt_index_open(idx, trace, &err));
        assert_int_equal(err.status, RT_EFORMAT);
        assert_non_null(strstr(err.msg, "corrupt"));
        buf[at] ^= 0x40;
    }
    /* truncated, and not an index at all */
    f = fopen(idx, "wb");
    fwrite(buf, 1, len / 2, f);
    fclose(f);
    assert_null(rt_index_open(idx, trace, &err));
    assert_int_equal(err.status, RT_EFORMAT);
    assert_null(rt_index_open(trace, NULL, &err));
    assert_int_equal(err.status, RT_EFORMAT);
    assert_non_null(strstr(err.msg, "not a retrace index"));
    /* intact again, then the trace changes: stale */
    f = fopen(idx, "wb");
    fwrite(buf, 1, len, f);
    fclose(f);
    ix = rt_index_open(idx, trace, &err);
    assert_non_null(ix);
    rt_index_close(ix);
    f = fopen(trace, "a");
    fputs("-3 1 9.000000 0 0 0\n", f);
    fclose(f);
    assert_null(rt_index_open(idx, trace, &err));
    assert_int_equal(err.status, RT_ESTATE);
    assert_non_null(strstr(err.msg, "stale"));
    /* a missing trace or index: unreadable */
    assert_null(rt_index_open("/nonexistent/x.rtidx", NULL, &err));
    assert_int_equal(err.status, RT_EIO);
    free(buf);
    unlink(trace);
    unlink(idx);
    free(trace);
    free(idx);
}

/* An index of the previous version (3: blocks not packed) is refused as stale, and `retrace index
 * --keep` writes it again in this version instead of keeping it. */
static void test_old_version(void **state)
{
    (void)state;
    const char *bin = getenv("RETRACE_BIN");
    if (!bin)
        skip();
    char *trace = tmp_path("oldver.trf"), *idx = tmp_path("oldver.idx");
    random_picl(trace, 11, 4, 800);
    rt_err err;
    assert_int_equal(rt_index_build(trace, NULL, idx, NULL, NULL, NULL, &err), RT_OK);
    /* the version is the word after the 8-byte magic */
    uint32_t v = 0;
    FILE *f = fopen(idx, "r+b");
    assert_non_null(f);
    assert_int_equal(fseek(f, 8, SEEK_SET), 0);
    assert_int_equal(fread(&v, sizeof v, 1, f), 1);
    assert_int_equal(v, RT_INDEX_VERSION);
    v = RT_INDEX_VERSION - 1;
    assert_int_equal(fseek(f, 8, SEEK_SET), 0);
    assert_int_equal(fwrite(&v, sizeof v, 1, f), 1);
    fclose(f);
    assert_null(rt_index_open(idx, trace, &err));
    assert_int_equal(err.status, RT_ESTATE);
    assert_non_null(strstr(err.msg, "another version"));
    char cmd[1024], *log = tmp_path("oldver.log");
    snprintf(cmd, sizeof cmd, "'%s' index --keep '%s' -o '%s' > /dev/null 2> '%s'", bin, trace, idx, log);
    assert_int_equal(system(cmd), 0);
    f = fopen(log, "r");
    assert_non_null(f);
    char line[512] = "";
    assert_non_null(fgets(line, sizeof line, f));
    fclose(f);
    assert_non_null(strstr(line, "another version; building it again"));
    rt_index *ix = rt_index_open(idx, trace, &err);
    assert_non_null(ix);
    assert_int_equal(rt_index_nprocs(ix), 4);
    rt_index_close(ix);
    unlink(trace);
    unlink(idx);
    unlink(log);
    free(trace);
    free(idx);
    free(log);
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

/* The state byte of shares idle, overhead, busy as the README describes it, worked out here. */
static int expected_state(const rt_ix_cell *c)
{
    double tot = (double)c->st[0] + c->st[1] + c->st[2];
    if (tot <= 0)
        return 0;
    long qi = lround(15 * c->st[0] / tot), qb = lround(15 * c->st[2] / tot);
    if (qi + qb > 15)
        qi >= qb ? qi-- : qb--;
    return (int)(1 + 16 * qi + qb);
}

/* A raster answer (more processors than rows): every cell against rt_index_raster's cells. */
static void check_binary_raster(rt_server *s, rt_index *ix)
{
    int np = rt_index_nprocs(ix), w = 37, rows = np - 2;
    char args[200];
    snprintf(args, sizeof args, "w=%d&h=%d", w, rows);
    char *body = NULL;
    size_t len = 0;
    const char *type = NULL;
    assert_int_equal(rt_server_answer(s, "api/view", args, &body, &len, &type), 200);
    assert_string_equal(type, "application/octet-stream");
    const unsigned char *b = (const unsigned char *)body;
    size_t n = (size_t)rows * (size_t)w, splane = (n + 3) & ~(size_t)3;
    assert_int_equal(len, 40 + 4 * (size_t)w + splane + n);
    assert_memory_equal(b, "RTRA", 4);
    assert_int_equal(b[4], 1);
    assert_int_equal(b[5], 1); /* a handful of regions: one byte each */
    assert_int_equal(le(b + 8, 4), (uint64_t)rows);
    assert_int_equal(le(b + 12, 4), (uint64_t)w);
    assert_int_equal(le(b + 16, 4), 0);
    assert_int_equal(le(b + 20, 4), (uint64_t)np);
    uint64_t t0b = le(b + 24, 8), t1b = le(b + 32, 8);
    double t0, t1;
    memcpy(&t0, &t0b, 8);
    memcpy(&t1, &t1b, 8);
    assert_true(t0 == (double)rt_index_tmin(ix) && t1 == (double)rt_index_tmax(ix));
    rt_ix_cell *cells = calloc(n, sizeof *cells);
    rt_err err;
    assert_int_equal(rt_index_raster(ix, 0, np, rows, rt_index_tmin(ix), rt_index_tmax(ix), w, cells, NULL, &err), RT_OK);
    const unsigned char *state = b + 40 + 4 * (size_t)w, *region = state + splane;
    int colored = 0;
    for (int c = 0; c < w; c++) {
        uint64_t m = 0;
        for (int r = 0; r < rows; r++) {
            const rt_ix_cell *x = &cells[(size_t)r * (size_t)w + (size_t)c];
            m += x->nmsg;
            size_t i = (size_t)r * (size_t)w + (size_t)c;
            if (state[i] != expected_state(x) || region[i] != (unsigned)(x->top + 1))
                fail_msg("cell %d,%d: state %d region %d, expected %d and %d", r, c, state[i], region[i],
                         expected_state(x), x->top + 1);
            colored += state[i] != 0;
        }
        assert_int_equal(le(b + 40 + 4 * (size_t)c, 4), m);
    }
    assert_true(colored > (int)n / 2);
    free(cells);
    free(body);
    /* worked examples of the state byte: all idle, all overhead, all busy, even thirds, idle and busy halves */
    static const struct {
        float st[3];
        int code;
    } ex[] = {{{1, 0, 0}, 241}, {{0, 2, 0}, 1}, {{0, 0, 3}, 16}, {{1, 1, 1}, 86}, {{1, 0, 1}, 121}, {{0, 0, 0}, 0}};
    for (size_t i = 0; i < sizeof ex / sizeof *ex; i++) {
        rt_ix_cell c = {{ex[i].st[0], ex[i].st[1], ex[i].st[2]}, 0, -1, 0};
        assert_int_equal(expected_state(&c), ex[i].code);
    }
}

/* api/profile: processors per state in each column = the whole range's one-row raster over the column width,
 * and at every column the three sum to the processors that have begun and not ended (here: all of them). */
static void check_profile(rt_server *s, rt_index *ix)
{
    int np = rt_index_nprocs(ix), w = 16;
    int64_t t0 = rt_index_tmin(ix), t1 = rt_index_tmax(ix);
    char args[200];
    snprintf(args, sizeof args, "w=%d", w);
    char *body = NULL;
    size_t len = 0;
    const char *type = NULL;
    assert_int_equal(rt_server_answer(s, "api/profile", args, &body, &len, &type), 200);
    rt_ix_cell *cells = calloc((size_t)w, sizeof *cells);
    rt_err err;
    assert_int_equal(rt_index_raster(ix, 0, np, 1, t0, t1, w, cells, NULL, &err), RT_OK);
    double cw = (double)(t1 - t0) / w;
    static const char *const names[3] = {"\"idle\":[", "\"overhead\":[", "\"busy\":["};
    double sum[64] = {0};
    for (int k = 0; k < 3; k++) {
        const char *p = strstr(body, names[k]);
        assert_non_null(p);
        p += strlen(names[k]);
        for (int c = 0; c < w; c++) {
            char *end;
            double v = strtod(p, &end);
            assert_true(end != p);
            if (fabs(v - cells[c].st[k] / cw) > 1e-5 * np)
                fail_msg("profile column %d state %d: %g, raster %g", c, k, v, cells[c].st[k] / cw);
            sum[c] += v;
            p = end + 1;
        }
    }
    for (int c = 1; c < w - 1; c++) /* inner columns: every processor is between its first and last event */
        if (fabs(sum[c] - np) > 1e-3 * np)
            fail_msg("profile column %d: %g processors in all, not %d", c, sum[c], np);
    free(cells);
    free(body);
    assert_int_equal(rt_server_answer(s, "api/profile", "t0=5&t1=4&w=3", &body, &len, &type), 400);
    free(body);
    assert_int_equal(rt_server_answer(s, "api/profile", "", &body, &len, &type), 400);
    assert_non_null(strstr(body, "missing argument w"));
    free(body);
}

static void test_server_answers(void **state)
{
    (void)state;
    char *trace = tmp_path("srv.trf"), *idx = tmp_path("srv.idx");
    random_picl(trace, 3, 5, 3000);
    rt_err err;
    assert_int_equal(rt_index_build(trace, NULL, idx, NULL, NULL, NULL, &err), RT_OK);
    rt_index *ix = rt_index_open(idx, trace, &err);
    assert_non_null(ix);
    char assets[512];
    snprintf(assets, sizeof assets, "%s/../../lua/retrace/viewer", RETRACE_FIXTURES);
    rt_server *s = rt_server_start(ix, "t", assets, NULL, 0, NULL, &err);
    if (!s)
        fail_msg("%s", err.msg);
    assert_int_equal(strlen(rt_server_token(s)), 32);
    static const struct {
        const char *url, *args;
        int status;
        const char *needle;
    } cases[] = {
        {"api/meta", "", 200, "\"procs\""},
        {"api/view", "w=100&h=50", 200, "\"mode\""},
        {"api/view", "w=100", 400, "missing argument h"},
        {"api/view", "w=0&h=5", 400, "argument w"},
        {"api/view", "w=10&h=5&t0=9&t1=9", 400, "empty time window"},
        {"api/view", "w=10&h=5&p0=3&p1=2", 400, "empty processor range"},
        {"api/view", "w=10&h=5&p1=99", 400, "argument p1"},
        {"api/view", "w=10&h=5&t0=1e3", 400, "not an integer"},
        {"api/view", "w=10&h=5&t0=99999999999999999999999", 400, "not an integer"},
        {"api/stats", "t0=0&t1=1000", 200, "\"functions\""},
        {"api/search", "", 400, "missing argument q"},
        {"api/search", "q=%ZZ", 200, "\"found\":false"},
        {"api/search", "q=zzz&t=x", 400, "argument t"},
        {"api/nothing", "", 404, "no such page"},
        {"../../etc/passwd", "", 404, "no such page"},
        {"api/view", "a=1&a=2&a=3&a=4&a=5&a=6&a=7&a=8&a=9&a=10&a=11&a=12&a=13&a=14&a=15&a=16&a=17", 400,
         "too many arguments"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *body = NULL;
        size_t len = 0;
        const char *type = NULL;
        int st = rt_server_answer(s, cases[i].url, cases[i].args, &body, &len, &type);
        if (st != cases[i].status || !body || !strstr(body, cases[i].needle))
            fail_msg("%s?%s: %d %s", cases[i].url, cases[i].args, st, body ? body : "(null)");
        free(body);
    }
    check_binary_raster(s, ix);
    check_profile(s, ix);
    rt_server_stop(s);
    rt_index_close(ix);
    unlink(trace);
    unlink(idx);
    free(trace);
    free(idx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_traces),
        cmocka_unit_test(test_shared_samples),
        cmocka_unit_test(test_counters),
        cmocka_unit_test(test_otf2_metrics),
        cmocka_unit_test(test_counter_summaries),
        cmocka_unit_test(test_per_location),
        cmocka_unit_test(test_sends_pass),
        cmocka_unit_test(test_refused),
        cmocka_unit_test(test_old_version),
        cmocka_unit_test(test_server_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
