/*
 * test_paje.c - the Pajé reader (core/trace/rt_paje.c) against PajeNG's
 * pj_dump on the real samples and a hand-written trace, an exact event
 * sequence for that trace, and every error the reader reports.
 *
 * The comparison rebuilds from the neutral stream what pj_dump prints: state
 * intervals (ENTER to the LEAVE of the same region, per container and state
 * type), links (a SEND and the RECV with its tag) and events (MARKERs), then
 * checks per container the number of intervals and the summed duration of
 * each value, the links as a multiset of (start container, end container,
 * start time, end time), and the event counts.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "rt_paje.h"
#include "rt_strmap.h"
#include "rt_test.h"

/* ---- what pj_dump and the reader are compared on ---- */

/* Per (container, type, value): intervals or events and their summed duration. */
typedef struct tally {
    rt_strmap *index;        /* "container\ttype\tvalue" -> slot */
    char **keys;
    long *count;
    double *sum;
    size_t n, cap;
} tally;

typedef struct dlink {
    char *from, *to;
    double t0, t1;
} dlink;

typedef struct dump {
    tally states, events;
    tally vars;              /* variables: per (container, type, value) the stretches and their start times */
    struct rawvar { char key[512]; double start, value; } *rawvars; /* pj_dump's stretches, one by one */
    tally varvals;           /* per (container, type): the values of its stretches summed */
    size_t nraw;
    rt_strmap *procs;        /* the reader's processors' names -> their first event's time in first[] */
    double *first;
    dlink *links;
    size_t nlinks, caplinks;
} dump;

static void tally_add(tally *t, const char *cont, const char *type, const char *value, double d)
{
    char key[1024];
    int n = snprintf(key, sizeof key, "%s\t%s\t%s", cont, type, value);
    assert_true(n > 0 && (size_t)n < sizeof key);
    if (!t->index)
        assert_non_null(t->index = rt_strmap_new());
    int created;
    int64_t *v = rt_strmap_put(t->index, 0, key, (size_t)n, &created);
    assert_non_null(v);
    if (created) {
        if (t->n == t->cap) {
            t->cap = t->cap ? t->cap * 2 : 64;
            assert_non_null(t->keys = realloc(t->keys, t->cap * sizeof *t->keys));
            assert_non_null(t->count = realloc(t->count, t->cap * sizeof *t->count));
            assert_non_null(t->sum = realloc(t->sum, t->cap * sizeof *t->sum));
        }
        *v = (int64_t)t->n;
        assert_non_null(t->keys[t->n] = strdup(key));
        t->count[t->n] = 0;
        t->sum[t->n] = 0;
        t->n++;
    }
    t->count[*v]++;
    t->sum[*v] += d;
}

static void link_add(dump *d, const char *from, const char *to, double t0, double t1)
{
    if (d->nlinks == d->caplinks) {
        d->caplinks = d->caplinks ? d->caplinks * 2 : 64;
        assert_non_null(d->links = realloc(d->links, d->caplinks * sizeof *d->links));
    }
    dlink *l = &d->links[d->nlinks++];
    assert_non_null(l->from = strdup(from));
    assert_non_null(l->to = strdup(to));
    l->t0 = t0;
    l->t1 = t1;
}

static void tally_free(tally *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->count);
    free(t->sum);
    rt_strmap_free(t->index);
}

static void dump_free(dump *d)
{
    tally_free(&d->states);
    tally_free(&d->events);
    tally_free(&d->vars);
    tally_free(&d->varvals);
    rt_strmap_free(d->procs);
    free(d->first);
    free(d->rawvars);
    for (size_t i = 0; i < d->nlinks; i++) {
        free(d->links[i].from);
        free(d->links[i].to);
    }
    free(d->links);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-6 * (1 + fabs(a) + fabs(b));
}

static int link_cmp(const void *pa, const void *pb)
{
    const dlink *a = pa, *b = pb;
    int c = strcmp(a->from, b->from);
    if (!c)
        c = strcmp(a->to, b->to);
    if (!c && !near(a->t0, b->t0))
        c = a->t0 < b->t0 ? -1 : 1;
    if (!c && !near(a->t1, b->t1))
        c = a->t1 < b->t1 ? -1 : 1;
    return c;
}

/* Split a pj_dump line at ", " into at most max fields (in place). */
static int csv_split(char *s, char **f, int max)
{
    int n = 0;
    while (n < max) {
        f[n++] = s;
        char *c = strstr(s, ", ");
        if (!c)
            break;
        *c = '\0';
        s = c + 2;
    }
    return n;
}

/* pj_dump's view of a trace, or 0 when pj_dump is not installed. */
static int pj_dump_read(const char *path, dump *d)
{
    if (system("command -v pj_dump >/dev/null 2>&1") != 0)
        return 0;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "pj_dump -l 9 '%s'", path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[4096];
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        char *f[12];
        int n = csv_split(line, f, 12);
        if (strcmp(f[0], "State") == 0) {
            assert_int_equal(n, 8);
            tally_add(&d->states, f[1], f[2], f[7], strtod(f[5], NULL));
        } else if (strcmp(f[0], "Event") == 0) {
            assert_int_equal(n, 5);
            tally_add(&d->events, f[1], f[2], f[4], 0);
        } else if (strcmp(f[0], "Variable") == 0) {
            assert_int_equal(n, 7);
            assert_non_null(d->rawvars = realloc(d->rawvars, (d->nraw + 1) * sizeof *d->rawvars));
            struct rawvar *rv = &d->rawvars[d->nraw++];
            snprintf(rv->key, sizeof rv->key, "%s\t%s", f[1], f[2]);
            rv->start = strtod(f[3], NULL);
            rv->value = strtod(f[6], NULL);
        } else if (strcmp(f[0], "Link") == 0) {
            assert_true(n >= 9);
            link_add(d, f[7], f[8], strtod(f[3], NULL), strtod(f[4], NULL));
        }
    }
    assert_int_equal(pclose(p), 0);
    return 1;
}

/* One open state in the replay of the stream: its region and since when. */
typedef struct open_state {
    int proc, region;
    double t;
} open_state;

typedef struct half {
    int proc, peer;
    double t;
    int seen;
} half;

/* The reader's view of a trace, rebuilt as pj_dump prints it; also checks the
 * stream's own rules (times non-decreasing, a LEAVE closes an open state of
 * its type, both ends of a link name each other). */
static void reader_read(const char *path, dump *d, rt_paje_stats *stats)
{
    rt_err err;
    rt_tsource *s = rt_paje_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    const rt_tdefs *defs = s->defs;
    open_state *open = NULL;
    size_t nopen = 0, capopen = 0;
    half *sends = NULL, *recvs = NULL;
    size_t caphalf = 0;
    double last = -INFINITY;
    /* variables: a sample holds until the next one of its processor and counter; of samples at
     * one time the last holds (pj_dump's stretches) */
    rt_strmap *vidx = rt_strmap_new();
    double *firsts = NULL; /* each processor's first event (a container becomes one then) */
    int nfirsts = 0;
    struct vs { int proc, counter; double t, v; } *vs = NULL;
    size_t nvs = 0;
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        assert_true(ev.time >= last);
        last = ev.time;
        assert_true(ev.proc >= 0 && ev.proc < rt_tdefs_nprocs(defs));
        const char *pname = rt_tdefs_proc(defs, ev.proc)->name;
        const rt_tregion *reg = NULL;
        for (; nfirsts <= ev.proc; nfirsts++) {
            assert_non_null(firsts = realloc(firsts, (size_t)(nfirsts + 1) * sizeof *firsts));
            firsts[nfirsts] = ev.time;
        }
        if (ev.kind == RT_TE_ENTER || ev.kind == RT_TE_LEAVE || ev.kind == RT_TE_MARKER)
            assert_non_null(reg = rt_tdefs_region(defs, ev.region));
        switch (ev.kind) {
        case RT_TE_ENTER:
            if (nopen == capopen) {
                capopen = capopen ? capopen * 2 : 64;
                assert_non_null(open = realloc(open, capopen * sizeof *open));
            }
            open[nopen++] = (open_state){ev.proc, ev.region, ev.time};
            break;
        case RT_TE_LEAVE: {
            /* the innermost open state of the same type on that processor must be this region */
            size_t i = nopen;
            while (i > 0) {
                const open_state *o = &open[i - 1];
                if (o->proc == ev.proc &&
                    strcmp(rt_tdefs_region(defs, o->region)->group, reg->group) == 0)
                    break;
                i--;
            }
            assert_true(i > 0);
            assert_int_equal(open[i - 1].region, ev.region);
            tally_add(&d->states, pname, reg->group, reg->name, ev.time - open[i - 1].t);
            memmove(&open[i - 1], &open[i], (nopen - i) * sizeof *open);
            nopen--;
            break;
        }
        case RT_TE_MARKER:
            tally_add(&d->events, pname, reg->group, reg->name, 0);
            break;
        case RT_TE_COUNTER: {
            assert_non_null(rt_tdefs_counter_at(defs, ev.region));
            assert_int_equal(ev.ndata, 1);
            char key[64];
            int n = snprintf(key, sizeof key, "%d\t%d", ev.proc, ev.region);
            int created;
            int64_t *slot = rt_strmap_put(vidx, 0, key, (size_t)n, &created);
            assert_non_null(slot);
            if (created) {
                assert_non_null(vs = realloc(vs, (nvs + 1) * sizeof *vs));
                *slot = (int64_t)nvs;
                vs[nvs++] = (struct vs){ev.proc, ev.region, ev.time, ev.data[0]};
                break;
            }
            struct vs *x = &vs[*slot];
            if (ev.time != x->t && x->t > firsts[ev.proc]) {
                tally_add(&d->vars, pname, rt_tdefs_counter_at(defs, ev.region)->name, "", x->t);
                tally_add(&d->varvals, pname, rt_tdefs_counter_at(defs, ev.region)->name, "", x->v);
            }
            x->t = ev.time;
            x->v = ev.data[0];
            break;
        }
        case RT_TE_SEND:
        case RT_TE_RECV: {
            assert_true(ev.tag >= 0);
            if ((size_t)ev.tag >= caphalf) {
                size_t nc = ((size_t)ev.tag + 1) * 2;
                assert_non_null(sends = realloc(sends, nc * sizeof *sends));
                assert_non_null(recvs = realloc(recvs, nc * sizeof *recvs));
                memset(sends + caphalf, 0, (nc - caphalf) * sizeof *sends);
                memset(recvs + caphalf, 0, (nc - caphalf) * sizeof *recvs);
                caphalf = nc;
            }
            half *h = ev.kind == RT_TE_SEND ? &sends[ev.tag] : &recvs[ev.tag];
            assert_false(h->seen);
            *h = (half){ev.proc, ev.peer, ev.time, 1};
            break;
        }
        default:
            fail_msg("unexpected event kind %d", ev.kind);
        }
    }
    if (st != RT_EEOF)
        fail_msg("%s", err.msg);
    assert_int_equal(nopen, 0); /* the reader closes every state by the end */
    for (size_t t = 0; t < caphalf; t++) {
        if (!sends[t].seen && !recvs[t].seen)
            continue;
        assert_true(sends[t].seen && recvs[t].seen);
        assert_int_equal(sends[t].peer, recvs[t].proc);
        assert_int_equal(recvs[t].peer, sends[t].proc);
        link_add(d, rt_tdefs_proc(defs, sends[t].proc)->name, rt_tdefs_proc(defs, recvs[t].proc)->name,
                 sends[t].t, recvs[t].t);
    }
    for (size_t i = 0; i < nvs; i++) {
        if (vs[i].t <= firsts[vs[i].proc])
            continue; /* samples at a processor's first time may come before it is one: not compared */
        const char *pn = rt_tdefs_proc(defs, vs[i].proc)->name, *cn = rt_tdefs_counter_at(defs, vs[i].counter)->name;
        tally_add(&d->vars, pn, cn, "", vs[i].t);
        tally_add(&d->varvals, pn, cn, "", vs[i].v);
    }
    free(vs);
    rt_strmap_free(vidx);
    assert_non_null(d->procs = rt_strmap_new());
    for (int p = 0; p < rt_tdefs_nprocs(defs); p++) {
        const char *nm = rt_tdefs_proc(defs, p)->name;
        int64_t *slot = rt_strmap_put(d->procs, 0, nm, strlen(nm), NULL);
        assert_non_null(slot);
        *slot = p;
    }
    d->first = firsts;
    assert_int_equal(rt_paje_stats_get(s, stats), RT_OK);
    assert_int_equal(s->warnings, 0);
    free(open);
    free(sends);
    free(recvs);
    rt_tsource_free(s);
}

static void tally_equal(const char *what, const tally *want, const tally *got)
{
    assert_int_equal(want->n, got->n);
    for (size_t i = 0; i < want->n; i++) {
        int64_t *v = got->index ? rt_strmap_get(got->index, 0, want->keys[i], strlen(want->keys[i])) : NULL;
        if (!v)
            fail_msg("%s %s: in pj_dump, not from the reader", what, want->keys[i]);
        if (want->count[i] != got->count[*v] || !near(want->sum[i], got->sum[*v]))
            fail_msg("%s %s: pj_dump %ld, %.9f s; reader %ld, %.9f s", what, want->keys[i],
                     want->count[i], want->sum[i], got->count[*v], got->sum[*v]);
    }
}

/*
 * The variables pj_dump shows on the reader's processors, from the time each container became a
 * processor (its first state, event or link end; samples before are skipped), are the reader's
 * counter samples.
 */
static void vars_equal(dump *want, const dump *got)
{
    for (size_t i = 0; i < want->nraw; i++) {
        const char *k = want->rawvars[i].key;
        int64_t *p = rt_strmap_get(got->procs, 0, k, strcspn(k, "\t"));
        if (!p || want->rawvars[i].start <= got->first[*p])
            continue;
        const char *t = k + strcspn(k, "\t") + 1;
        char cont[512];
        snprintf(cont, sizeof cont, "%.*s", (int)strcspn(k, "\t"), k);
        tally_add(&want->vars, cont, t, "", want->rawvars[i].start);
        tally_add(&want->varvals, cont, t, "", want->rawvars[i].value);
    }
    size_t n = 0;
    for (size_t i = 0; i < want->vars.n; i++) {
        const char *k = want->vars.keys[i];
        n++;
        int64_t *v = got->vars.index ? rt_strmap_get(got->vars.index, 0, k, strlen(k)) : NULL;
        if (!v)
            fail_msg("variable %s: in pj_dump, not from the reader", k);
        if (want->vars.count[i] != got->vars.count[*v] || !near(want->vars.sum[i], got->vars.sum[*v]))
            fail_msg("variable %s: pj_dump %ld stretches from %.9f s in all; reader %ld, %.9f s", k,
                     want->vars.count[i], want->vars.sum[i], got->vars.count[*v], got->vars.sum[*v]);
        /* pj_dump adds in single precision (PajeAddVariable): values agree to 1e-6 */
        if (!near(want->varvals.sum[i], got->varvals.sum[*v]))
            fail_msg("variable %s: pj_dump's values sum to %.9g, the reader's to %.9g", k, want->varvals.sum[i],
                     got->varvals.sum[*v]);
    }
    assert_int_equal(n, got->vars.n);
}

/* The reader and pj_dump agree on path; returns the number of links. */
static size_t compare_with_pj_dump(const char *path, rt_paje_stats *stats)
{
    dump want = {0}, got = {0};
    if (!pj_dump_read(path, &want)) {
        fprintf(stderr, "pj_dump (Debian pajeng) not installed: comparison skipped\n");
        skip();
    }
    reader_read(path, &got, stats);
    tally_equal("state", &want.states, &got.states);
    tally_equal("event", &want.events, &got.events);
    vars_equal(&want, &got);
    assert_int_equal(want.nlinks, got.nlinks);
    qsort(want.links, want.nlinks, sizeof *want.links, link_cmp);
    qsort(got.links, got.nlinks, sizeof *got.links, link_cmp);
    for (size_t i = 0; i < want.nlinks; i++)
        if (link_cmp(&want.links[i], &got.links[i]) != 0)
            fail_msg("link %zu: pj_dump %s -> %s %.9f %.9f; reader %s -> %s %.9f %.9f", i,
                     want.links[i].from, want.links[i].to, want.links[i].t0, want.links[i].t1,
                     got.links[i].from, got.links[i].to, got.links[i].t0, got.links[i].t1);
    size_t n = got.nlinks;
    dump_free(&want);
    dump_free(&got);
    return n;
}

/* ../shared/data/paje/NAME.trace, or skip when the shared data is absent. */
static const char *sample(char *buf, size_t cap, const char *name)
{
    const char *dir = getenv("RETRACE_SHARED");
    struct stat sb;
    if (dir)
        snprintf(buf, cap, "%s/paje/%s.trace", dir, name);
    if (!dir || stat(buf, &sb) != 0) {
        fprintf(stderr, "shared data absent (RETRACE_SHARED): %s.trace skipped\n", name);
        skip();
    }
    return buf;
}

static void check_sample(const char *name, size_t links, uint64_t states, uint64_t variables)
{
    char path[4096];
    rt_paje_stats st;
    assert_int_equal(compare_with_pj_dump(sample(path, sizeof path, name), &st), links);
    assert_int_equal(st.links, links);
    assert_int_equal(st.unmatched, 0);
    assert_int_equal(st.states, states);
    assert_int_equal(st.variables, variables);
    assert_int_equal(st.unknown, 0);
}

/* line counts of each kind: grep -c on the samples' event ids (see their %EventDef headers) */
static void test_g5k(void **state)
{
    (void)state;
    check_sample("g5k", 6314, 0, 7812);
}

static void test_simu_mardi(void **state)
{
    (void)state;
    check_sample("simu-mardi", 405, 13451 + 169, 507);
}

static void test_ms(void **state)
{
    (void)state;
    check_sample("ms", 17, 0, 87 + 306 + 286);
}

static void test_fixture_pj_dump(void **state)
{
    (void)state;
    char path[4096];
    rt_paje_stats st;
    assert_int_equal(compare_with_pj_dump(rt_test_fixture(path, sizeof path, "paje/small.trace"), &st), 2);
}

/* ---- the hand-written trace, event by event ---- */

static void test_fixture_sequence(void **state)
{
    (void)state;
    char path[4096];
    rt_err err;
    rt_tsource *s = rt_paje_open(rt_test_fixture(path, sizeof path, "paje/small.trace"), &err);
    if (!s)
        fail_msg("%s", err.msg);
    enum { E = RT_TE_ENTER, L = RT_TE_LEAVE, S = RT_TE_SEND, R = RT_TE_RECV, M = RT_TE_MARKER, C = RT_TE_COUNTER };
    /* regions: 0 MPI_Recv, 1 user code (defined in that order), 2 "checkpoint A" (on use) */
    static const struct {
        int kind, proc;
        double time;
        int region, peer;
        int64_t tag;
        double bytes;
    } want[] = {
        {E, 0, 1.0, 1, -1, 0, 0},  {E, 1, 1.0, 1, -1, 0, 0}, {E, 1, 2.0, 0, -1, 0, 0},
        {S, 0, 2.5, 0, 1, 113, 1024}, {R, 1, 3.0, 0, 0, 113, 1024}, {L, 1, 3.0, 0, -1, 0, 0},
        {M, 0, 3.5, 2, -1, 0, 0},  {R, 0, 4.0, 0, 1, 117, 64},   {S, 1, 4.0, 0, 0, 117, 64},
        {L, 0, 4.5, 1, -1, 0, 0},  {E, 0, 4.5, 0, -1, 0, 0},  {C, 0, 4.6, 0, -1, 0, 3.5},
        {L, 0, 5.0, 0, -1, 0, 0},
        {E, 0, 5.0, 1, -1, 0, 0},  {E, 0, 5.5, 0, -1, 0, 0},  {L, 0, 6.0, 0, -1, 0, 0},
        {L, 0, 6.0, 1, -1, 0, 0},  {L, 1, 6.0, 1, -1, 0, 0},
    };
    rt_tevent ev;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (rt_tsource_next(s, &ev, &err) != RT_OK)
            fail_msg("event %zu: %s", i, err.msg);
        if (ev.kind != want[i].kind || ev.proc != want[i].proc || ev.time != want[i].time)
            fail_msg("event %zu: got %s on %d at %g", i, rt_te_kind_name(ev.kind), ev.proc, ev.time);
        if (ev.kind == S || ev.kind == R) {
            assert_int_equal(ev.peer, want[i].peer);
            assert_int_equal(ev.tag, want[i].tag);
            assert_true(ev.bytes == want[i].bytes);
            assert_int_equal(ev.comm, -1);
        } else {
            assert_int_equal(ev.region, want[i].region);
            assert_int_equal(ev.peer, -1);
        }
        if (ev.kind == C) /* the variable "queue length" set to 3.5 (its bytes column holds the value) */
            assert_true(ev.ndata == 1 && ev.data[0] == want[i].bytes);
    }
    assert_int_equal(rt_tsource_next(s, &ev, &err), RT_EEOF);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(rt_tsource_size(s), (uint64_t)sb.st_size);
    assert_int_equal(rt_tsource_offset(s), (uint64_t)sb.st_size);
    const rt_tdefs *d = s->defs;
    assert_int_equal(rt_tdefs_nprocs(d), 2);
    assert_string_equal(rt_tdefs_proc(d, 0)->name, "rank 0");
    assert_string_equal(rt_tdefs_proc(d, 0)->path, "node one/rank 0");
    assert_string_equal(rt_tdefs_proc(d, 1)->path, "node one/rank 1");
    assert_int_equal(rt_tdefs_nregions(d), 3);
    assert_int_equal(rt_tdefs_ncounters(d), 1);
    assert_string_equal(rt_tdefs_counter_at(d, 0)->name, "queue length");
    const rt_tregion *r0 = rt_tdefs_region(d, 0), *r1 = rt_tdefs_region(d, 1), *r2 = rt_tdefs_region(d, 2);
    assert_string_equal(r0->name, "MPI_Recv");
    assert_string_equal(r0->group, "MPI state");
    assert_int_equal(r0->cls, RT_TC_WAIT);
    assert_string_equal(r1->name, "user code");
    assert_int_equal(r1->cls, RT_TC_USER);
    assert_string_equal(r2->name, "checkpoint A");
    assert_string_equal(r2->group, "Mark");
    rt_paje_stats st;
    assert_int_equal(rt_paje_stats_get(s, &st), RT_OK);
    assert_int_equal(st.containers, 3);
    assert_int_equal(st.states, 8);
    assert_int_equal(st.events, 1);
    assert_int_equal(st.variables, 1);
    assert_int_equal(st.links, 2);
    assert_int_equal(st.unmatched, 0);
    assert_int_equal(s->skipped, 0); /* the variable is on a processor: a sample in the stream */
    assert_int_equal(s->warnings, 0);

    /* a second pass gives the same stream with the same processors and regions */
    assert_int_equal(rt_tsource_rewind(s, &err), RT_OK);
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_int_equal(rt_tsource_next(s, &ev, &err), RT_OK);
        assert_int_equal(ev.kind, want[i].kind);
        assert_int_equal(ev.proc, want[i].proc);
        assert_true(ev.time == want[i].time);
    }
    assert_int_equal(rt_tsource_next(s, &ev, &err), RT_EEOF);
    assert_int_equal(rt_tdefs_nprocs(d), 2);
    assert_int_equal(rt_tdefs_nregions(d), 3);
    rt_tsource_free(s);
}

/* ---- small traces written by the tests ---- */

#define HEADER                                                                              \
    "%EventDef PajeDefineContainerType 0\n% Alias string\n% Type string\n% Name string\n" \
    "%EndEventDef\n"                                                                        \
    "%EventDef PajeDefineStateType 1\n% Alias string\n% Type string\n% Name string\n"     \
    "%EndEventDef\n"                                                                        \
    "%EventDef PajeCreateContainer 2\n% Time date\n% Alias string\n% Type string\n"       \
    "% Container string\n% Name string\n%EndEventDef\n"                                     \
    "%EventDef PajeSetState 3\n% Time date\n% Type string\n% Container string\n"          \
    "% Value string\n%EndEventDef\n"                                                        \
    "%EventDef PajePopState 4\n% Time date\n% Type string\n% Container string\n"          \
    "%EndEventDef\n"                                                                        \
    "%EventDef PajeDefineLinkType 5\n% Alias string\n% Type string\n"                     \
    "% StartContainerType string\n% EndContainerType string\n% Name string\n%EndEventDef\n" \
    "%EventDef PajeStartLink 6\n% Time date\n% Type string\n% Container string\n"         \
    "% Value string\n% StartContainer string\n% Key string\n%EndEventDef\n"                 \
    "0 P 0 Process\n1 S P State\n5 L 0 P P Msg\n2 0 p0 P 0 \"rank 0\"\n"
/* lines in HEADER */
#define HL 47

/* Open text as a trace; returns the status of open or of the first failing next,
 * with the message in msg and the path written in path. */
static int run_text(const char *text, char *path, size_t cap, char *msg, size_t msgcap,
                    rt_tsource **keep)
{
    char *p = rt_test_write_text(text);
    snprintf(path, cap, "%s", p);
    rt_err err;
    rt_err_clear(&err);
    int st = RT_OK;
    rt_tsource *s = rt_paje_open(p, &err);
    if (!s) {
        st = err.status;
    } else {
        rt_tevent ev;
        while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
            ;
        if (st == RT_EEOF)
            st = RT_OK;
    }
    snprintf(msg, msgcap, "%s", err.msg);
    if (keep)
        *keep = s;
    else
        rt_tsource_free(s);
    rt_test_remove(p);
    return st;
}

/* text fails with exactly "PATH:" + want. */
static void expect_error(const char *text, const char *want)
{
    char path[256], msg[RT_ERR_MSG_MAX], full[RT_ERR_MSG_MAX + 256];
    int st = run_text(text, path, sizeof path, msg, sizeof msg, NULL);
    assert_int_equal(st, RT_EFORMAT);
    snprintf(full, sizeof full, "%s:%s", path, want);
    assert_string_equal(msg, full);
    assert_null(strchr(msg, '\n'));
}

static void test_header_counts(void **state)
{
    (void)state;
    /* HL is what the error lines below count from */
    int n = 0;
    for (const char *p = HEADER; *p; p++)
        n += *p == '\n';
    assert_int_equal(n, HL);
}

static void test_undefined_id(void **state)
{
    (void)state;
    expect_error(HEADER "3 1.0 S p0 run\n99 2.0 S p0 x\n", "49: event id 99: not defined");
}

static void test_field_count(void **state)
{
    (void)state;
    expect_error(HEADER "3 1.0 S p0 run extra\n",
                 "48: PajeSetState: 5 fields after the event id, its %EventDef (line 18) has 4");
    expect_error(HEADER "4 1.0 S\n",
                 "48: PajePopState: 2 fields after the event id, its %EventDef (line 24) has 3");
}

static void test_bad_number(void **state)
{
    (void)state;
    expect_error(HEADER "3 1.0x S p0 run\n", "48: Time: bad number '1.0x' (field 1)");
    expect_error(HEADER "3 \"\" S p0 run\n", "48: Time: bad number '' (field 1)");
}

static void test_unknown_container(void **state)
{
    (void)state;
    expect_error(HEADER "3 1.0 S p9 run\n", "48: Container: unknown container 'p9'");
    expect_error(HEADER "6 1.0 L 0 v p9 k\n", "48: StartContainer: unknown container 'p9'");
    expect_error(HEADER "3 1.0 Q p0 run\n", "48: Type: unknown type 'Q'");
    expect_error(HEADER "3 1.0 L p0 run\n", "48: Type: 'L' is not a state type");
}

static void test_header_errors(void **state)
{
    (void)state;
    expect_error("%EventDef PajeSetState\n", "1: header: expected '%EventDef NAME ID'");
    expect_error("%EventDef PajeSetState x\n",
                 "1: %EventDef PajeSetState: id 'x' is not a number from 0 to 1048575");
    expect_error("%EventDef PajeSetState 3\n% Time date\n% Type string\n% Value string\n%EndEventDef\n",
                 "5: %EventDef PajeSetState (line 1): no Container field");
    expect_error("%EventDef PajeSetState 3\n% Time moment\n",
                 "2: %EventDef PajeSetState: field Time: unknown type 'moment'");
    expect_error("%EventDef PajeSetState 3\n% Time date\n",
                 "2: %EventDef PajeSetState (line 1): no %EndEventDef before the end of the file");
    expect_error("%EventDef PajePopState 3\n% Time date\n% Time date\n",
                 "3: %EventDef PajePopState: field Time defined twice");
    expect_error(HEADER "%EventDef PajeNewEvent 3\n%EndEventDef\n",
                 "48: %EventDef PajeNewEvent: id 3 already defined at line 18");
    expect_error(HEADER "2 0 p0 P 0 again\n", "48: Alias: container 'p0' already exists");
    expect_error(HEADER "3 1.0 S p0 \"run\n", "48: field 3: unterminated quoted string");
}

static void test_unknown_kinds_counted(void **state)
{
    (void)state;
    char path[256], msg[RT_ERR_MSG_MAX];
    rt_tsource *s;
    const char *text = HEADER "%EventDef PajeLuaCallback 40\n% Time date\n% Script string\n%EndEventDef\n"
                              "3 1.0 S p0 run\n40 1.5 \"print('hi there')\"\n40 1.6 x\n4 2.0 S p0\n";
    assert_int_equal(run_text(text, path, sizeof path, msg, sizeof msg, &s), RT_OK);
    rt_paje_stats st;
    assert_int_equal(rt_paje_stats_get(s, &st), RT_OK);
    assert_int_equal(st.unknown, 2);
    assert_int_equal(s->skipped, 2);
    assert_int_equal(s->events, 2); /* ENTER run, LEAVE run */
    assert_int_equal(s->warnings, 0);
    rt_tsource_free(s);
}

static int nwarn;
static char lastwarn[RT_ERR_MSG_MAX];
static void on_warn(void *ud, const char *m)
{
    (void)ud;
    nwarn++;
    snprintf(lastwarn, sizeof lastwarn, "%s", m);
}

/* Open path with its warnings counted in nwarn (the last one in lastwarn). */
static rt_tsource *open_watched(const char *path)
{
    rt_err err;
    rt_tsource *s = rt_paje_open(path, &err);
    if (!s)
        fail_msg("%s", err.msg);
    s->on_warning = on_warn;
    nwarn = 0;
    lastwarn[0] = '\0';
    return s;
}

/* Problems the reader works around: a warning each, the stream still right. */
static void test_warnings(void **state)
{
    (void)state;
    const char *text = HEADER "3 2.0 S p0 run\n4 1.0 S p0\n4 1.5 S p0\n6 3.0 L 0 v p0 lost\n";
    char *p = rt_test_write_text(text);
    rt_err err;
    rt_tsource *s = open_watched(p);
    rt_tevent ev;
    int kinds[8], n = 0, st;
    int64_t peer = 0;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        assert_true(n < 8);
        kinds[n++] = ev.kind;
        if (ev.kind == RT_TE_SEND)
            peer = ev.peer;
    }
    assert_int_equal(st, RT_EEOF);
    /* ENTER 2.0; LEAVE at 1.0 (time goes back: warned once); pop on an empty stack
     * (warned, ignored); a link that never ends goes out with peer -1 (warned) */
    assert_int_equal(n, 3);
    assert_int_equal(kinds[0], RT_TE_ENTER);
    assert_int_equal(kinds[1], RT_TE_LEAVE);
    assert_int_equal(kinds[2], RT_TE_SEND);
    assert_int_equal(peer, -1);
    assert_int_equal(nwarn, 3);
    assert_int_equal(s->warnings, 3);
    char want[512];
    snprintf(want, sizeof want, "%s: 1 link with one end only; sent with peer -1", p);
    assert_string_equal(lastwarn, want);
    rt_paje_stats ps;
    assert_int_equal(rt_paje_stats_get(s, &ps), RT_OK);
    assert_int_equal(ps.unmatched, 1);
    assert_int_equal(ps.links, 0);
    rt_tsource_free(s);
    rt_test_remove(p);
}

/* A link open for more than RT_PAJE_LOOKAHEAD lines: its send goes out without a peer; both
 * ends carry the tag, the line of the send. */
static void test_lookahead_bound(void **state)
{
    (void)state;
    char *p = rt_test_write_text(HEADER "6 0.5 L 0 v p0 long\n");
    FILE *f = fopen(p, "a");
    assert_non_null(f);
    /* each SetState after the first gives a LEAVE and an ENTER */
    long nset = RT_PAJE_LOOKAHEAD + 10;
    long send_line = 1;
    for (const char *c = HEADER; *c; c++)
        send_line += *c == '\n';
    for (long i = 0; i < nset; i++)
        fprintf(f, "3 1.0 S p0 %s\n", i % 2 ? "a" : "b");
    fputs("%EventDef PajeEndLink 7\n% Time date\n% Type string\n% Container string\n"
          "% Value string\n% EndContainer string\n% Key string\n%EndEventDef\n"
          "7 2.0 L 0 v p0 long\n",
          f);
    fclose(f);
    rt_err err;
    rt_tsource *s = open_watched(p);
    rt_tevent ev;
    int st;
    long n = 0, sends = 0, recvs = 0;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK) {
        if (ev.kind == RT_TE_SEND) {
            assert_int_equal(n, 0);
            assert_int_equal(ev.peer, -1);
            assert_int_equal(ev.tag, send_line);
            sends++;
        } else if (ev.kind == RT_TE_RECV) {
            assert_int_equal(ev.peer, 0);
            assert_int_equal(ev.tag, send_line);
            recvs++;
        }
        n++;
    }
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(sends, 1);
    assert_int_equal(recvs, 1);
    assert_int_equal(n, 1 + 2 * nset - 1 + 1 + 1); /* send, enters and leaves, recv, last leave */
    assert_int_equal(nwarn, 1);
    assert_non_null(strstr(lastwarn, "a link stays open for more than 1048576 lines"));
    rt_paje_stats ps;
    assert_int_equal(rt_paje_stats_get(s, &ps), RT_OK);
    assert_int_equal(ps.unmatched, 1);
    rt_tsource_free(s);
    rt_test_remove(p);
}

static void test_missing_file(void **state)
{
    (void)state;
    rt_err err;
    assert_null(rt_paje_open("/nonexistent/x.trace", &err));
    assert_int_equal(err.status, RT_EIO);
    assert_non_null(strstr(err.msg, "/nonexistent/x.trace"));
}

static void test_sniff(void **state)
{
    (void)state;
#define SNIFF(t) rt_paje_sniff("x", (const unsigned char *)(t), strlen(t))
    assert_int_equal(SNIFF("%EventDef PajeDefineContainerType 0\n% Alias string\n"), 1);
    assert_int_equal(SNIFF("# made by hand\n\n  %EventDef PajeSetState 12\n"), 1);
    assert_int_equal(SNIFF("% EventDef PajeSetState 12"), 1); /* cut inside the head */
    assert_int_equal(SNIFF("#Paraver (01/01/2020 at 10:00):100_ns:0:1:1(2:0)\n"), 0);
    assert_int_equal(SNIFF("-3 0.001 0 0 0 0\n"), 0);
    assert_int_equal(SNIFF("%EventDef PajeSetState\n"), 0);
    assert_int_equal(SNIFF("%Something else 1\n"), 0);
    assert_int_equal(SNIFF(""), 0);
    assert_int_equal(rt_paje_sniff("/tmp", NULL, 0), 0);
    char path[4096];
    char *head = rt_test_read_file(rt_test_fixture(path, sizeof path, "paje/small.trace"), NULL);
    assert_int_equal(rt_paje_sniff(path, (const unsigned char *)head, strlen(head)), 1);
    free(head);
}

/* The first 4096 bytes of a file through the sniffer. */
static int sniff_file(const char *path)
{
    unsigned char head[4096];
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return rt_paje_sniff(path, head, n);
}

/* The real samples: the three Pajé traces are recognised, no other format's file is. */
static void test_sniff_samples(void **state)
{
    (void)state;
    char path[4096];
    sample(path, sizeof path, "g5k");
    const char *dir = getenv("RETRACE_SHARED");
    static const char *const paje[] = {"paje/g5k.trace", "paje/simu-mardi.trace", "paje/ms.trace"};
    static const char *const other[] = {
        "paraver/qsort_beo3.prv", "paraver/qsort_beo3.pcf", "otf2/pingpong/traces.otf2",
        "otf2/pingpong/traces.def", "otf2/pingpong/traces/0.evt", "otf2/pingpong/traces/0.def",
        "picl/fft-16.trf", "picl/mpicl-10.trf", "README.md"};
    for (size_t i = 0; i < sizeof paje / sizeof *paje; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, paje[i]);
        assert_int_equal(sniff_file(path), 1);
    }
    for (size_t i = 0; i < sizeof other / sizeof *other; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, other[i]);
        if (sniff_file(path) != 0)
            fail_msg("%s taken for a Pajé trace", other[i]);
    }
}

static void test_stats_other_source(void **state)
{
    (void)state;
    rt_tsource fake;
    memset(&fake, 0, sizeof fake);
    rt_paje_stats st;
    assert_int_equal(rt_paje_stats_get(&fake, &st), RT_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_sequence), cmocka_unit_test(test_fixture_pj_dump),
        cmocka_unit_test(test_g5k),              cmocka_unit_test(test_simu_mardi),
        cmocka_unit_test(test_ms),               cmocka_unit_test(test_header_counts),
        cmocka_unit_test(test_undefined_id),     cmocka_unit_test(test_field_count),
        cmocka_unit_test(test_bad_number),       cmocka_unit_test(test_unknown_container),
        cmocka_unit_test(test_header_errors),    cmocka_unit_test(test_unknown_kinds_counted),
        cmocka_unit_test(test_warnings),         cmocka_unit_test(test_lookahead_bound),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_sniff),            cmocka_unit_test(test_sniff_samples),
        cmocka_unit_test(test_stats_other_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
