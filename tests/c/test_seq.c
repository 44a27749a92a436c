/* Tests of core/seq: the Chitra worked examples (SES, clip, aggregate, project,
 * time and event filters, the chain), undo, the reader's errors, the periodogram. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_seq.h"

#define FIX RETRACE_FIXTURES "/chitra/"

static rt_ses *load(const char *file)
{
    rt_ses *s = rt_ses_new();
    rt_err e;
    int st = rt_ses_load(s, file, &e);
    if (st)
        fprintf(stderr, "%s\n", e.msg);
    assert_int_equal(st, RT_OK);
    return s;
}

/* "A,B,C" against the current symbols; times against the array. */
static void expect(const rt_ses *s, const char *syms, const double *times, size_t n)
{
    assert_int_equal(rt_ses_length(s, 0), n);
    char buf[1024] = "";
    const int32_t *x = rt_ses_symbols(s, 0);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(buf, ",");
        strcat(buf, rt_ses_name(s, x[i]));
        assert_true(rt_ses_time(s, 0, i) == times[i]);
    }
    assert_string_equal(buf, syms);
}

static const char *EX3 = "A2T,ET,EA1,R1A1,R2A1,R2A2,TA2,TE,A1E,A1R1,A2R1,A2R2,A2T,ET,EA1,R1A1,R2A2,TA2,TE,A1E";
/* the paper prints "19" where its own entry times give 1 then 9 */
static const double EX3T[] = {10, 10, 15, 12, 4, 6, 14, 12, 18, 17, 1, 16, 1, 9, 16, 12, 8, 4, 10, 15};

static void test_example3_both_layouts(void **st)
{
    (void)st;
    rt_ses *s = load(FIX "philosophers2.pes");
    expect(s, EX3, EX3T, 20);
    assert_true(rt_ses_entry(s, 0, 0) == 1550);
    assert_true(rt_ses_entry(s, 0, 19) == 1745);
    rt_ses_free(s);
    s = load(FIX "philosophers2.txt");
    expect(s, EX3, EX3T, 20);
    rt_ses_free(s);
}

static void test_example4_clip_and_undo(void **st)
{
    (void)st;
    rt_ses *s = load(FIX "philosophers2.pes");
    rt_err e;
    assert_int_equal(rt_ses_clip(s, 8, 8, &e), RT_OK);
    const double t[] = {18, 17, 1, 16};
    expect(s, "A1E,A1R1,A2R1,A2R2", t, 4);
    assert_int_equal(rt_ses_depth(s), 1);
    assert_string_equal(rt_ses_step(s, 0), "clip 8 8");
    assert_int_equal(rt_ses_clip(s, 3, 2, &e), RT_EINVAL);
    assert_string_equal(e.msg, FIX "philosophers2.pes: clip: n_i + n_f = 5 exceeds the sequence length 4");
    assert_int_equal(rt_ses_undo(s, &e), RT_OK);
    expect(s, EX3, EX3T, 20);
    assert_int_equal(rt_ses_undo(s, &e), RT_ESTATE);
    assert_string_equal(e.msg, "undo: nothing to undo");
    rt_ses_free(s);
}

static int32_t id(rt_ses *s, const char *n) { return rt_ses_intern(s, n, strlen(n)); }

static void test_example5_aggregate(void **st)
{
    (void)st;
    rt_ses *s = load(FIX "philosophers2.pes");
    rt_err e;
    int32_t pat[] = {id(s, "R2A2"), id(s, "TA2"), id(s, "TE")};
    assert_int_equal(rt_ses_aggregate(s, pat, 3, "Z", &e), RT_OK);
    const double t[] = {10, 10, 15, 12, 4, 32, 18, 17, 1, 16, 1, 9, 16, 12, 22, 15};
    expect(s, "A2T,ET,EA1,R1A1,R2A1,Z,A1E,A1R1,A2R1,A2R2,A2T,ET,EA1,R1A1,Z,A1E", t, 16);
    assert_true(rt_ses_is_composite(s, id(s, "Z")));
    assert_int_equal(rt_ses_aggregate(s, pat, 0, "Z", &e), RT_EINVAL);
    assert_string_equal(e.msg, "aggregate: the pattern is empty");
    /* a composite named after a state or a composite is refused, nothing changed */
    int32_t pat2[] = {id(s, "A1E"), id(s, "A1R1")};
    assert_int_equal(rt_ses_aggregate(s, pat2, 2, "ET", &e), RT_EINVAL);
    assert_string_equal(e.msg, "aggregate A1E,A1R1=ET: ET is already a state of the sequence; "
                               "give the composite another name");
    assert_int_equal(rt_ses_aggregate(s, pat2, 2, "Z", &e), RT_EINVAL);
    assert_string_equal(e.msg, "aggregate A1E,A1R1=Z: Z is already a composite of the sequence; "
                               "give the composite another name");
    expect(s, "A2T,ET,EA1,R1A1,R2A1,Z,A1E,A1R1,A2R1,A2R2,A2T,ET,EA1,R1A1,Z,A1E", t, 16);
    uint64_t count;
    double time;
    assert_int_equal(rt_ses_find(s, pat, 1, NULL, NULL, &count, &time, &e), RT_OK);
    assert_int_equal(count, 0); /* R2A2 is gone */
    int32_t z = id(s, "Z");
    assert_int_equal(rt_ses_find(s, &z, 1, NULL, NULL, &count, &time, &e), RT_OK);
    assert_int_equal(count, 2);
    assert_true(time == 54);
    assert_int_equal(rt_ses_undo(s, &e), RT_OK);
    expect(s, EX3, EX3T, 20);
    assert_false(rt_ses_is_composite(s, id(s, "Z")));
    rt_ses_free(s);
}

static void test_example6_projection(void **st)
{
    (void)st;
    rt_ses *s = load(FIX "philosophers2.pes");
    rt_err e;
    /* component projection A1,A2 -> A and R1,R2 -> R, as one map */
    static const char *pairs[][2] = {
        {"A2T", "AT"}, {"EA1", "EA"}, {"R1A1", "RA"}, {"R2A1", "RA"}, {"R2A2", "RA"},
        {"TA2", "TA"}, {"A1E", "AE"}, {"A1R1", "AR"}, {"A2R1", "AR"}, {"A2R2", "AR"}};
    int32_t from[10], to[10];
    for (int i = 0; i < 10; i++) {
        from[i] = id(s, pairs[i][0]);
        to[i] = id(s, pairs[i][1]);
    }
    size_t n = rt_ses_symbol_count(s);
    int32_t *map = malloc(n * sizeof *map);
    for (size_t i = 0; i < n; i++)
        map[i] = -1;
    for (int i = 0; i < 10; i++)
        map[from[i]] = to[i];
    assert_int_equal(rt_ses_project(s, map, n, &e), RT_OK);
    free(map);
    const double t[] = {10, 10, 15, 22, 14, 12, 18, 34, 1, 9, 16, 20, 4, 10, 15};
    expect(s, "AT,ET,EA,RA,TA,TE,AE,AR,AT,ET,EA,RA,TA,TE,AE", t, 15);
    rt_ses_free(s);
}

static void test_example7_filters_and_example8_chain(void **st)
{
    (void)st;
    rt_ses *s = load(FIX "philosophers2.pes");
    rt_err e;
    /* h(s)/T: T = 210, A1E 33/210 = 15.7%, EA1 31/210 = 14.76%, all others <= 24/210 */
    size_t n = rt_ses_symbol_count(s);
    uint64_t *count = malloc(n * sizeof *count);
    double *h = malloc(n * sizeof *h), T;
    rt_ses_totals(s, count, h, &T);
    assert_true(T == 210);
    assert_true(h[id(s, "A1E")] == 33 && h[id(s, "EA1")] == 31 && h[id(s, "R1A1")] == 24);
    free(count);
    free(h);
    assert_int_equal(rt_ses_filter_time(s, 1.2, &e), RT_EINVAL);
    assert_string_equal(e.msg, "filter_time: p = 1.2 is outside (0, 1)");
    assert_int_equal(rt_ses_filter_time(s, 0, &e), RT_EINVAL);
    assert_int_equal(rt_ses_filter_time(s, 0.147, &e), RT_OK);
    const double t7[] = {20, 15, 48, 18, 44, 16, 34, 15};
    expect(s, "T1,EA1,T2,A1E,T3,EA1,T2,A1E", t7, 8);
    assert_int_equal(rt_ses_filter_event(s, 2, &e), RT_OK);
    expect(s, "T4,EA1,T2,A1E,T5,EA1,T2,A1E", t7, 8);
    assert_string_equal(rt_ses_step(s, 1), "filter_event 2 -> T4..T5 (2 composites)");

    rt_chain *c;
    assert_int_equal(rt_ses_chain(s, NULL, 0, &c, &e), RT_OK);
    assert_int_equal(c->nstates, 6);
    static const char *names[] = {"T4", "EA1", "T2", "A1E", "T5", "OTHER"};
    static const double mean[] = {20, 15.5, 41, 16.5, 44, 0}, var[] = {0, 0.5, 98, 4.5, 0, 0};
    static const uint64_t cnt[] = {1, 2, 2, 2, 1, 1};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(rt_ses_name(s, c->states[i].sym), names[i]);
        assert_int_equal(c->states[i].n, cnt[i]);
        assert_true(fabs(c->states[i].mean - mean[i]) < 1e-12);
        assert_true(fabs(c->states[i].var - var[i]) < 1e-12);
    }
    assert_int_equal(c->narcs, 6);
    static const char *arcs[][2] = {{"T4", "EA1"}, {"EA1", "T2"}, {"T2", "A1E"},
                                    {"A1E", "T5"}, {"A1E", "OTHER"}, {"T5", "EA1"}};
    static const double p[] = {1, 1, 1, 0.5, 0.5, 1};
    for (int i = 0; i < 6; i++) {
        assert_string_equal(rt_ses_name(s, c->arcs[i].from), arcs[i][0]);
        assert_string_equal(rt_ses_name(s, c->arcs[i].to), arcs[i][1]);
        assert_true(c->arcs[i].p == p[i]);
    }
    /* composites in order of appearance: T4 = A2T,ET; T2 = a tree of two runs; T5 */
    assert_int_equal(c->ncomps, 3);
    assert_string_equal(rt_ses_name(s, c->comps[0].sym), "T4");
    assert_int_equal(c->comps[0].count, 2);
    rt_chain_node *nd = &c->nodes[c->comps[0].first];
    assert_string_equal(rt_ses_name(s, nd[0].sym), "A2T");
    assert_string_equal(rt_ses_name(s, nd[1].sym), "ET");
    assert_int_equal(nd[1].parent, (int)c->comps[0].first);
    assert_int_equal(nd[1].ends, 1);
    assert_string_equal(rt_ses_name(s, c->comps[1].sym), "T2");
    /* R1A1 (12, 12) -> R2A1 -> R2A2 -> TA2 -> TE and R1A1 -> R2A2 -> TA2 -> TE */
    assert_int_equal(c->comps[1].count, 8);
    nd = &c->nodes[c->comps[1].first];
    assert_string_equal(rt_ses_name(s, nd[0].sym), "R1A1");
    assert_int_equal(nd[0].n, 2);
    assert_true(nd[0].mean == 12 && nd[0].var == 0);
    assert_string_equal(rt_ses_name(s, c->comps[2].sym), "T5");
    assert_int_equal(c->comps[2].count, 5);
    rt_chain_free(c);

    /* undo twice returns Example 3 exactly, and names T1.. are free again */
    assert_int_equal(rt_ses_undo(s, &e), RT_OK);
    expect(s, "T1,EA1,T2,A1E,T3,EA1,T2,A1E", t7, 8);
    assert_int_equal(rt_ses_undo(s, &e), RT_OK);
    expect(s, EX3, EX3T, 20);
    assert_int_equal(rt_ses_filter_time(s, 0.147, &e), RT_OK);
    expect(s, "T1,EA1,T2,A1E,T3,EA1,T2,A1E", t7, 8);
    assert_int_equal(rt_ses_filter_event(s, -1, &e), RT_EINVAL);
    rt_ses_free(s);
}

static void expect_load_error(const char *text, const char *msg)
{
    char *path = rt_test_write_text(text);
    rt_ses *s = rt_ses_new();
    rt_err e;
    assert_int_not_equal(rt_ses_load(s, path, &e), RT_OK);
    char want[600];
    snprintf(want, sizeof want, "%s%s", path, msg);
    assert_string_equal(e.msg, want);
    assert_int_equal(rt_ses_members(s), 0);
    rt_ses_free(s);
    rt_test_remove(path);
}

static void test_reader_errors(void **st)
{
    (void)st;
    expect_load_error("", ": empty PES: no states");
    expect_load_error("# only a comment\n\n", ": empty PES: no states");
    expect_load_error("A 1\nB 3\nC 2\n", ":3: time: 2 is less than the previous time 3");
    expect_load_error("A 1\nB\n", ":2: expected 'STATE TIME', found one field");
    expect_load_error("A 1 2\n", ":1: expected 'STATE TIME', found more than two fields");
    expect_load_error("A 1\nB x\n", ":2: time: 'x' is not a number");
    expect_load_error("A 1\n", ":1: a PES needs at least two states (found 1)");
    expect_load_error("(A,1), (B,0)", ":1: time: 0 is less than the previous time 1");
    expect_load_error("(A,1),\n(B)", ":2: expected '(STATE,TIME)', found one field");
    expect_load_error("(A,1), (B,2\n", ":1: unterminated tuple at the end of the file");
    expect_load_error("(A,1) x", ":1: expected '(' before 'x'");
}

static void test_periodogram_pure_signal(void **st)
{
    (void)st;
    /* a period-8 square-ish wave sampled 1024 times: power only at k = 128 j */
    size_t n = 1024;
    double *x = malloc(n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        x[i] = cos(2 * M_PI * (double)i / 8.0) + 0.5 * cos(2 * M_PI * 2 * (double)i / 8.0);
    double *f, *p;
    size_t m;
    rt_err e;
    assert_int_equal(rt_periodogram(x, n, 1.0, &f, &p, &m, &e), RT_OK);
    assert_int_equal(m, 513);
    size_t best = 0;
    for (size_t k = 1; k < m; k++)
        if (p[k] > p[best])
            best = k;
    assert_true(f[best] == 0.125);
    assert_true(p[256] > 1e3 * p[200]); /* harmonic at 2/8 */
    assert_true(p[256] > 1e-3 * p[128]);
    free(x);
    free(f);
    free(p);
}

static void test_simulation_matches_chain(void **st)
{
    (void)st;
    /* A -> B (0.25) | C (0.75); B, C -> A. Times: A 10 (var 4), B 2, C 5 (var 1). */
    double mean[] = {10, 2, 5}, var[] = {4, 0, 1};
    int32_t from[] = {0, 0, 1, 2}, to[] = {1, 2, 0, 0};
    double p[] = {0.25, 0.75, 1, 1};
    size_t n = 200000;
    int32_t *xs = malloc(n * sizeof *xs);
    double *ts = malloc(n * sizeof *ts);
    rt_err e;
    assert_int_equal(rt_chain_simulate(3, mean, var, 4, from, to, p, 0, 42, n, xs, ts, &e), RT_OK);
    size_t nb = 0, na = 0;
    double sa = 0, sa2 = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (xs[i] == 0) {
            na++;
            nb += xs[i + 1] == 1;
            sa += ts[i];
            sa2 += ts[i] * ts[i];
        }
    double ma = sa / (double)na, va = (sa2 - na * ma * ma) / (double)(na - 1);
    assert_true(fabs((double)nb / (double)na - 0.25) < 0.01);
    assert_true(fabs(ma - 10) < 0.05);
    assert_true(fabs(va - 4) < 0.15);
    int32_t *ys = malloc(n * sizeof *ys);
    double *us = malloc(n * sizeof *us);
    rt_chain_simulate(3, mean, var, 4, from, to, p, 0, 42, n, ys, us, &e);
    assert_memory_equal(xs, ys, n * sizeof *xs);
    free(xs);
    free(ts);
    free(ys);
    free(us);
}

/* ---- time and event views ---- */

/* A member of n random states over nsym symbols with random (fractional) times. */
static rt_ses *random_member(size_t n, int nsym, unsigned seed)
{
    rt_ses *s = rt_ses_new();
    int32_t *ids = malloc(n * sizeof *ids);
    double *t = malloc(n * sizeof *t);
    char name[16];
    srand(seed);
    double now = 3.5;
    for (size_t i = 0; i < n; i++) {
        snprintf(name, sizeof name, "S%d", rand() % nsym);
        ids[i] = rt_ses_intern(s, name, strlen(name));
        t[i] = now;
        now += (rand() % 4 == 0) ? 0 : (double)(rand() % 1000) / 128.0;
    }
    rt_err e;
    assert_int_equal(rt_ses_add_ids(s, "random", n, ids, t, &e), RT_OK);
    free(ids);
    free(t);
    return s;
}

/* Column by column and element by element, straight from the definition. */
static void reference_columns(const rt_ses *s, char dom, double a, double b, size_t ncols,
                              const int32_t *row, int32_t *lo, int32_t *hi)
{
    size_t n = rt_ses_length(s, 0);
    const int32_t *x = rt_ses_symbols(s, 0);
    for (size_t c = 0; c < ncols; c++) {
        lo[c] = hi[c] = -1;
        for (size_t i = 0; i < n; i++) {
            double x0 = dom == 't' ? rt_ses_entry(s, 0, i) : (double)i;
            double x1 = dom == 't' ? x0 + rt_ses_time(s, 0, i) : (double)i + 1;
            if (x1 < a || x0 > b)
                continue;
            double c0 = floor((x0 - a) / (b - a) * (double)ncols);
            double c1 = floor((x1 - a) / (b - a) * (double)ncols);
            c0 = c0 < 0 ? 0 : c0 >= (double)ncols ? (double)ncols - 1 : c0;
            c1 = c1 < 0 ? 0 : c1 >= (double)ncols ? (double)ncols - 1 : c1;
            if ((double)c < c0 || (double)c > c1)
                continue;
            int32_t r = row[x[i]];
            if (lo[c] < 0 || r < lo[c])
                lo[c] = r;
            if (r > hi[c])
                hi[c] = r;
        }
    }
}

static void test_view_columns_match_reference(void **st)
{
    (void)st;
    rt_ses *s = random_member(5000, 7, 42);
    size_t n = rt_ses_length(s, 0), nrows;
    int32_t *row = malloc(rt_ses_symbol_count(s) * sizeof *row);
    rt_ses_rows(s, 0, row, &nrows);
    assert_int_equal(nrows, 7);
    assert_int_equal(row[rt_ses_symbols(s, 0)[0]], 0);
    double tend = rt_ses_entry(s, 0, n - 1) + rt_ses_time(s, 0, n - 1);
    struct {
        char dom;
        double a, b;
        size_t ncols;
    } cases[] = {{'t', rt_ses_entry(s, 0, 0), tend, 97},  {'t', 1000.25, 1800, 61},
                 {'e', 0, (double)n, 128},               {'e', 2500, 2540, 300},
                 {'t', tend - 10, tend + 50, 7},          {'t', -100, -50, 5}};
    int32_t lo[300], hi[300], rlo[300], rhi[300];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        rt_ses_view_columns(s, 0, cases[k].dom, cases[k].a, cases[k].b, cases[k].ncols, row, lo, hi);
        reference_columns(s, cases[k].dom, cases[k].a, cases[k].b, cases[k].ncols, row, rlo, rhi);
        assert_memory_equal(lo, rlo, cases[k].ncols * sizeof *lo);
        assert_memory_equal(hi, rhi, cases[k].ncols * sizeof *hi);
    }
    /* the span: elements touching [a, b] */
    size_t first, count;
    rt_ses_view_span(s, 0, 'e', 2500, 2540, &first, &count);
    assert_int_equal(first, 2499); /* [2499, 2500] touches 2500 */
    assert_int_equal(count, 42);
    rt_ses_view_span(s, 0, 't', -100, -50, &first, &count);
    assert_int_equal(count, 0);

    /* segments: the exact step line when short, at most a few per column when long */
    rt_ses_frame f = {'e', 2500, 2540, 10, 20, 300, 100, -0.5, 6.5};
    rt_pack *p;
    rt_err e;
    assert_int_equal(rt_pack_new(4, &p, &e), RT_OK);
    assert_int_equal(rt_ses_view_segments(s, 0, &f, row, p, &e), RT_OK);
    assert_int_equal(p->n, 2 * 42 - 1);
    assert_true(p->v[0] == 10 + (2499.0 - 2500) / 40 * 300); /* element 2499 starts left of the box */
    assert_true(p->v[1] == 20 + 100 - (row[rt_ses_symbols(s, 0)[2499]] + 0.5) / 7 * 100);
    p->n = 0;
    f.a = 0, f.b = (double)n, f.iw = 100;
    assert_int_equal(rt_ses_view_segments(s, 0, &f, row, p, &e), RT_OK);
    assert_true(p->n >= 1 && p->n <= 100);
    for (size_t i = 0; i < p->n; i++) /* random states: every column is a vertical bar */
        assert_true(p->v[4 * i] == p->v[4 * i + 2] && p->v[4 * i] == 10 + (double)i + 0.5);
    f.b = f.a;
    assert_int_equal(rt_ses_view_segments(s, 0, &f, row, p, &e), RT_EINVAL);
    rt_pack_free(p);
    free(row);
    rt_ses_free(s);
}

typedef struct {
    int calls;
    uint64_t last, total;
    int decreasing;
} progress_log;

static void log_progress(void *ud, uint64_t done, uint64_t total)
{
    progress_log *l = ud;
    if (done < l->last)
        l->decreasing = 1;
    l->calls++;
    l->last = done;
    l->total = total;
}

static void test_load_reports_progress(void **st)
{
    (void)st;
    char *text = malloc(200000);
    size_t len = 0;
    for (int i = 0; i < 20000; i++)
        len += (size_t)sprintf(text + len, "S%d %d\n", i % 5, i);
    char *path = rt_test_write_text(text);
    free(text);
    rt_ses *s = rt_ses_new();
    progress_log l = {0, 0, 0, 0};
    rt_err e;
    assert_int_equal(rt_ses_load_progress(s, path, 16384, log_progress, &l, &e), RT_OK);
    assert_int_equal(rt_ses_length(s, 0), 19999);
    /* a report per 16 KiB read and one at the end, with the whole size */
    assert_true(l.calls >= (int)(len / 16384) && l.calls <= (int)(len / 16384) + 2);
    assert_false(l.decreasing);
    assert_true(l.last == len && l.total == len);
    rt_ses_free(s);
    /* a file shorter than the step gives no report */
    s = rt_ses_new();
    l = (progress_log){0, 0, 0, 0};
    assert_int_equal(rt_ses_load_progress(s, path, 1 << 20, log_progress, &l, &e), RT_OK);
    assert_int_equal(l.calls, 0);
    rt_ses_free(s);
    rt_test_remove(path);
}

/* The strongest local maxima, strongest first, against a direct search. */
static void test_spectrum_peaks(void **state)
{
    (void)state;
    /* bin 0 (the mean) is never a peak; 9 is the last bin, compared to the left only */
    const double p[] = {100, 1, 5, 2, 7, 7, 3, 9, 1, 4};
    size_t idx[8];
    assert_int_equal(rt_spectrum_peaks(p, 10, 3, idx), 3);
    assert_int_equal(idx[0], 7); /* 9 */
    assert_int_equal(idx[1], 4); /* 7 (the first of the plateau 7, 7) */
    assert_int_equal(idx[2], 2); /* 5 */
    assert_int_equal(rt_spectrum_peaks(p, 10, 8, idx), 4);
    assert_int_equal(idx[3], 9); /* 4 at the end */
    assert_int_equal(rt_spectrum_peaks(p, 10, 0, idx), 0);
    /* random spectra: the k strongest candidates of a direct search */
    srand(5);
    double q[500];
    for (int round = 0; round < 20; round++) {
        for (size_t i = 0; i < 500; i++)
            q[i] = (double)(rand() % 1000);
        size_t got[6];
        size_t n = rt_spectrum_peaks(q, 500, 6, got);
        assert_int_equal(n, 6);
        for (size_t j = 0; j < n; j++) {
            size_t k = got[j];
            assert_true(k >= 1 && q[k] > q[k - 1] && (k == 499 || q[k] >= q[k + 1]));
            /* no candidate left out is stronger than the weakest kept */
            for (size_t i = 1; i < 500; i++) {
                int cand = q[i] > q[i - 1] && (i == 499 || q[i] >= q[i + 1]);
                int kept = 0;
                for (size_t m = 0; m < n; m++)
                    kept |= got[m] == i;
                if (cand && !kept)
                    assert_true(q[i] <= q[got[n - 1]]);
            }
            if (j > 0)
                assert_true(q[got[j - 1]] >= q[k]);
        }
    }
}

/* The sequence as CSV: header, whole numbers plain, decimals exact, errors named. */
static void test_write_csv(void **state)
{
    (void)state;
    rt_ses *s = rt_ses_new();
    const char *names[] = {"A", "B", "A", "C"};
    const double times[] = {0, 1.5, 4, 10};
    rt_err e;
    assert_int_equal(rt_ses_add(s, "m", 4, names, times, &e), RT_OK);
    char path[] = "/tmp/rt_test_csv_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(rt_ses_write_csv(s, 0, path, &e), RT_OK);
    FILE *f = fopen(path, "rb");
    char buf[256] = "";
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    assert_string_equal(buf, "event,entry,occupancy,symbol\n1,0,1.5,A\n2,1.5,2.5,B\n3,4,6,A\n");
    remove(path);
    assert_int_equal(rt_ses_write_csv(s, 0, "/nonexistent/dir/x.csv", &e), RT_EIO);
    assert_string_equal(e.msg, "/nonexistent/dir/x.csv: No such file or directory");
    assert_int_equal(rt_ses_write_csv(s, 3, path, &e), RT_EINVAL);
    rt_ses_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example3_both_layouts),
        cmocka_unit_test(test_example4_clip_and_undo),
        cmocka_unit_test(test_example5_aggregate),
        cmocka_unit_test(test_example6_projection),
        cmocka_unit_test(test_example7_filters_and_example8_chain),
        cmocka_unit_test(test_reader_errors),
        cmocka_unit_test(test_periodogram_pure_signal),
        cmocka_unit_test(test_simulation_matches_chain),
        cmocka_unit_test(test_view_columns_match_reference),
        cmocka_unit_test(test_load_reports_progress),
        cmocka_unit_test(test_spectrum_peaks),
        cmocka_unit_test(test_write_csv),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
