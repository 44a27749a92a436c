/*
 * test_memspy.c - the MemSpy engine on hand-computed micro-traces: each miss
 * cause, causes of replacements, invalidations and writebacks with two
 * processors, one allocation site reached by two call paths, frees, the range
 * map against a plain array, warnings and malformed records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rt_test.h"

#include "rt_memspy.h"
#include "rt_memspy_feed.h"
#include "rt_rangemap.h"

/* an engine of P processors with size-byte direct-mapped caches of 64-byte lines */
static rt_memspy *machine(int P, uint64_t size, uint64_t ways)
{
    rt_hier_config c;
    rt_err err;
    rt_hier_config_single(&c, size, 64, ways);
    rt_memspy_config mc = {.procs = P, .latency = 50, .ref_cycles = 1};
    rt_memspy *m = rt_memspy_new(&mc, &c, &err);
    assert_non_null(m);
    return m;
}

static rt_memspy *run_text(int P, uint64_t size, const char *text)
{
    rt_memspy *m = machine(P, size, 1);
    char *path = rt_test_write_text(text);
    rt_err err;
    rt_err_clear(&err);
    int st = rt_memspy_feed_msp(m, path, NULL, NULL, &err);
    if (st != RT_OK)
        fail_msg("%s", err.msg);
    rt_test_remove(path);
    return m;
}

static size_t data_index(const rt_memspy *m, const char *name)
{
    for (size_t i = 0; i < rt_memspy_data_count(m); i++)
        if (strcmp(rt_memspy_data_name(m, i), name) == 0)
            return i;
    fail_msg("no data bin %s", name);
    return 0;
}

static const rt_memspy_bin *bin(const rt_memspy *m, const char *code, const char *data)
{
    for (size_t i = 0; i < rt_memspy_bins(m); i++) {
        const rt_memspy_bin *b = rt_memspy_bin_at(m, i);
        if (strcmp(rt_memspy_code_name(m, b->code), code) == 0 &&
            strcmp(rt_memspy_data_name(m, b->data), data) == 0)
            return b;
    }
    fail_msg("no bin %s x %s", code, data);
    return NULL;
}

/* replacement count of bin b caused by data bin `by` */
static uint64_t cause(const rt_memspy *m, const rt_memspy_bin *b, int kind, uint32_t who)
{
    uint64_t n = 0;
    for (size_t i = 0; i < rt_memspy_causes(m); i++) {
        uint32_t bi, w;
        int k;
        uint64_t c;
        rt_memspy_cause_at(m, i, &bi, &k, &w, &c);
        if (rt_memspy_bin_at(m, bi) == b && k == kind && w == who)
            n += c;
    }
    return n;
}

/* P = 1, 128-byte direct-mapped cache (2 sets): a at line 0, b at line 2, same set */
static void test_replacements_by_hand(void **state)
{
    (void)state;
    rt_memspy *m = run_text(1, 128,
                            "msp 1\n"
                            "N 0 64 a\nN 80 64 b\n"
                            "E 0 main\n"
                            "R 0 0\n"     /* a: first reference */
                            "R 0 80\n"    /* b: first reference, evicts a */
                            "R 0 0\n"     /* a: replacement by b, evicts b */
                            "R 0 8\n"     /* a: hit */
                            "R 0 80\n"    /* b: replacement by a, evicts a */
                            "W 0 10\n"    /* a: write miss, replacement by b */
                            "B 0 100\n");
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.c.refs, 6);
    assert_int_equal(t.c.reads, 5);
    assert_int_equal(t.c.writes, 1);
    assert_int_equal(t.c.read_misses + t.c.write_misses, 5);
    assert_int_equal(t.c.first, 2);
    assert_int_equal(t.c.replacement, 3);
    assert_int_equal(t.c.invalidation, 0);
    assert_int_equal(t.c.stall, 250);
    assert_int_equal(t.time, 6 + 100 + 250);
    const rt_memspy_bin *a = bin(m, "main", "a"), *b = bin(m, "main", "b");
    assert_int_equal(a->c.refs, 4);
    assert_int_equal(a->c.first, 1);
    assert_int_equal(a->c.replacement, 2);
    assert_int_equal(a->c.write_misses, 1);
    assert_int_equal(a->c.stall, 150);
    assert_int_equal(cause(m, a, 0, (uint32_t)data_index(m, "b")), 2);
    assert_int_equal(b->c.refs, 2);
    assert_int_equal(b->c.first, 1);
    assert_int_equal(b->c.replacement, 1);
    assert_int_equal(cause(m, b, 0, (uint32_t)data_index(m, "a")), 1);
    assert_int_equal(rt_memspy_code_time(m, 2, 0), 356); /* main: everything */
    rt_memspy_free(m);
}

/* P = 2: a write invalidates the other copy; a read miss on a dirty line writes it back */
static void test_invalidations_by_hand(void **state)
{
    (void)state;
    rt_memspy *m = run_text(2, 4096,
                            "msp 1\n"
                            "N 0 64 x\n"
                            "E 0 main\nE 1 worker\n"
                            "R 0 0\n"   /* p0 first */
                            "R 1 0\n"   /* p1 first */
                            "W 0 0\n"   /* p0 hit, invalidates p1 */
                            "R 1 8\n"   /* p1 invalidation miss (by p0), p0 writes back */
                            "W 1 8\n"   /* p1 hit, invalidates p0 */
                            "R 0 0\n"   /* p0 invalidation miss (by p1), p1 writes back */
                            "R 1 0\n"); /* p1 hit */
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.c.refs, 7);
    assert_int_equal(t.c.first, 2);
    assert_int_equal(t.c.invalidation, 2);
    assert_int_equal(t.c.replacement, 0);
    assert_int_equal(t.invalidations, 2);
    assert_int_equal(t.writebacks, 2);
    const rt_memspy_bin *w = bin(m, "worker", "x"), *mn = bin(m, "main", "x");
    assert_int_equal(w->c.refs, 4);
    assert_int_equal(w->c.invalidation, 1);
    assert_int_equal(cause(m, w, 1, 0), 1);
    assert_int_equal(mn->c.invalidation, 1);
    assert_int_equal(cause(m, mn, 1, 1), 1);
    uint64_t busy, stall;
    rt_memspy_proc_time(m, 0, &busy, &stall);
    assert_int_equal(busy, 3);
    assert_int_equal(stall, 100);
    rt_memspy_proc_time(m, 1, &busy, &stall);
    assert_int_equal(busy, 4);
    assert_int_equal(stall, 100);
    assert_int_equal(t.time, 104);
    rt_memspy_free(m);
}

/* one allocation site reached by two call paths is two bins; the same path again is the same bin */
static void test_call_paths(void **state)
{
    (void)state;
    rt_memspy *m = run_text(1, 4096,
                            "msp 1\n"
                            "E 0 main\n"
                            "E 0 NewMatrix lu.c:30\nA 0 1000 64 double*.a lu.c:5\nX 0 NewMatrix\n"
                            "E 0 NewMatrix lu.c:31\nA 0 2000 64 double*.a lu.c:5\nX 0\n"
                            "E 0 NewMatrix lu.c:30\nA 0 3000 64 double*.a lu.c:5\nX 0\n"
                            "R 0 1000\nR 0 2000\nR 0 3000\n"
                            "F 0 1000\nR 0 1008\n"
                            "A 0 1000 32 int*.b lu.c:9\nR 0 1010\nR 0 1020\n");
    assert_int_equal(rt_memspy_data_count(m), 4); /* (unmapped), double*.a, double*.a#2, int*.b */
    size_t a1 = data_index(m, "double*.a"), a2 = data_index(m, "double*.a#2");
    assert_string_equal(rt_memspy_data_full(m, a1), "main>NewMatrix@lu.c:30/lu.c:5/double*.a");
    assert_string_equal(rt_memspy_data_full(m, a2), "main>NewMatrix@lu.c:31/lu.c:5/double*.a");
    assert_int_equal(bin(m, "main", "double*.a")->c.refs, 2);
    assert_int_equal(bin(m, "main", "double*.a#2")->c.refs, 1);
    assert_int_equal(bin(m, "main", "(unmapped)")->c.refs, 2); /* 1008 after the free, 1020 past b */
    assert_int_equal(bin(m, "main", "int*.b")->c.refs, 1);
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.warnings, 0);
    rt_memspy_free(m);
}

/* --monitor folds the other procedures into (other); a PC picks the function */
static void test_monitor_and_pc(void **state)
{
    (void)state;
    rt_hier_config c;
    rt_err err;
    rt_hier_config_single(&c, 4096, 64, 0);
    const char *mon[] = {"solve", NULL};
    rt_memspy_config mc = {.procs = 1, .latency = 10, .ref_cycles = 0, .monitor = mon};
    rt_memspy *m = rt_memspy_new(&mc, &c, &err);
    assert_non_null(m);
    char *path = rt_test_write_text("msp 1\nC 400 100 solve\nC 500 100 init\n"
                                    "E 0 main\nR 0 0\nE 0 solve\nR 0 40\nR 0 80 8 450\nR 0 c0 8 520\n");
    assert_int_equal(rt_memspy_feed_msp(m, path, NULL, NULL, &err), RT_OK);
    rt_test_remove(path);
    assert_int_equal(bin(m, "(other)", "(unmapped)")->c.refs, 2); /* main, then init by PC */
    assert_int_equal(bin(m, "solve", "(unmapped)")->c.refs, 2);
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.time, 40);
    rt_memspy_free(m);
}

/* remote latency: a miss on a line homed at another processor (line mod P) costs more */
static void test_remote_latency(void **state)
{
    (void)state;
    rt_hier_config c;
    rt_err err;
    rt_hier_config_single(&c, 4096, 64, 1);
    rt_memspy_config mc = {.procs = 2, .latency = 50, .remote_latency = 120, .ref_cycles = 0};
    rt_memspy *m = rt_memspy_new(&mc, &c, &err);
    assert_non_null(m);
    assert_int_equal(rt_memspy_ref(m, 0, 0x00, 8, 0, 0, 0, &err), RT_OK);   /* line 0, home 0: local */
    assert_int_equal(rt_memspy_ref(m, 0, 0x40, 8, 0, 0, 0, &err), RT_OK);   /* line 1, home 1: remote */
    assert_int_equal(rt_memspy_ref(m, 1, 0x40, 8, 0, 0, 0, &err), RT_OK);   /* line 1, home 1: local */
    assert_int_equal(rt_memspy_ref(m, 1, 0x80, 8, 1, 0, 0, &err), RT_OK);   /* line 2, home 0: remote */
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.c.remote, 2);
    assert_int_equal(t.c.stall, 50 + 120 + 50 + 120);
    assert_int_equal(t.c.write_stall, 120);
    assert_int_equal(t.time, 170);
    rt_memspy_free(m);
}

static void test_warnings(void **state)
{
    (void)state;
    rt_memspy *m = machine(1, 4096, 1);
    char *path = rt_test_write_text("msp 1\n"
                                    "X 0\n"                  /* line 2: exit without entry */
                                    "A 0 100 64 T.a s\n"
                                    "A 0 120 64 T.b s\n"     /* line 4: overlaps a */
                                    "F 0 999\n"              /* line 5: unknown free */
                                    "R 0 130\n");
    rt_err err;
    assert_int_equal(rt_memspy_feed_msp(m, path, NULL, NULL, &err), RT_OK);
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.warnings, 3);
    assert_int_equal(rt_memspy_warnings_kept(m), 3);
    char want[256];
    snprintf(want, sizeof want, "%s:2: warning: exit on processor 0 without an entry", path);
    assert_string_equal(rt_memspy_warning(m, 0), want);
    snprintf(want, sizeof want, "%s:4: warning: allocation 0x120..0x15f overlaps 1 live range (dropped)", path);
    assert_string_equal(rt_memspy_warning(m, 1), want);
    snprintf(want, sizeof want, "%s:5: warning: free of 0x999, which is not the start of a live allocation", path);
    assert_string_equal(rt_memspy_warning(m, 2), want);
    assert_int_equal(bin(m, "(unknown)", "T.b")->c.refs, 1);
    rt_test_remove(path);
    rt_memspy_free(m);
}

static void expect_error(const char *text, const char *suffix)
{
    rt_memspy *m = machine(2, 4096, 1);
    char *path = rt_test_write_text(text);
    rt_err err;
    rt_err_clear(&err);
    assert_int_not_equal(rt_memspy_feed_msp(m, path, NULL, NULL, &err), RT_OK);
    char want[512];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    assert_string_equal(err.msg, want);
    rt_test_remove(path);
    rt_memspy_free(m);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("mspx 1\n", ":1: magic: 'mspx' is not 'msp' (the first record of a .msp trace is 'msp 1')");
    expect_error("msp 2\n", ":1: version: '2' is not 1");
    expect_error("", ": magic: empty file, expected 'msp 1'");
    expect_error("msp 1\n# c\nQ 0 1\n", ":3: record: 'Q' is not one of E X A F N C R W B S");
    expect_error("msp 1\nR 0 zz\n", ":2: address: 'zz' is not a hexadecimal number");
    expect_error("msp 1\nR x 10\n", ":2: processor: 'x' is not a processor number");
    expect_error("msp 1\nR 2 10\n", ":2: processor: 2 is not in 0..1");
    expect_error("msp 1\nR 0 10 0\n", ":2: size: '0' is not a positive integer");
    expect_error("msp 1\nA 0 10\n", ":2: size: missing in a A record");
    expect_error("msp 1\nE 0\n", ":2: name: missing in a E record");
    expect_error("msp 1\nB 0 -3\n", ":2: cycles: '-3' is not a count");
    expect_error("msp 1\nW 0 10 8 40 9\n", ":2: record: '9' is one field too many");
}

/* the range map against a plain array on random inserts, removals and lookups */
static void test_rangemap_model(void **state)
{
    (void)state;
    enum { SPACE = 4096 };
    static uint32_t model[SPACE];
    for (int i = 0; i < SPACE; i++)
        model[i] = RT_RANGEMAP_NONE;
    rt_rangemap m;
    rt_rangemap_init(&m);
    uint64_t seed = 12345;
    for (int step = 0; step < 20000; step++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(seed >> 33);
        uint64_t lo = r % SPACE, len = 1 + (r >> 12) % 40;
        if (lo + len > SPACE)
            len = SPACE - lo;
        if ((r >> 20) % 3 != 0) {
            size_t dropped;
            assert_int_equal(rt_rangemap_insert(&m, lo, lo + len, (uint32_t)step, &dropped), RT_OK);
            /* the model drops every range touching [lo, lo+len) */
            size_t d = 0;
            for (uint64_t a = 0; a < SPACE; a++) {
                if (model[a] != RT_RANGEMAP_NONE && a >= lo && a < lo + len) {
                    uint32_t v = model[a];
                    d++;
                    for (uint64_t b = 0; b < SPACE; b++)
                        if (model[b] == v)
                            model[b] = RT_RANGEMAP_NONE;
                }
            }
            assert_int_equal(dropped, d);
            for (uint64_t a = lo; a < lo + len; a++)
                model[a] = (uint32_t)step;
        } else {
            uint32_t want = RT_RANGEMAP_NONE;
            if (model[lo] != RT_RANGEMAP_NONE && (lo == 0 || model[lo - 1] != model[lo]))
                want = model[lo];
            assert_int_equal(rt_rangemap_remove(&m, lo), want);
            if (want != RT_RANGEMAP_NONE)
                for (uint64_t a = lo; a < SPACE && model[a] == want; a++)
                    model[a] = RT_RANGEMAP_NONE;
        }
        uint64_t q = (r >> 7) % SPACE;
        assert_int_equal(rt_rangemap_find(&m, q, NULL), model[q]);
    }
    for (uint64_t a = 0; a < SPACE; a++)
        assert_int_equal(rt_rangemap_find(&m, a, NULL), model[a]);
    rt_rangemap_destroy(&m);
}


/* ---- misses per level: a slow model with plain LRU lists per set ---- */

/* an engine of P processors on the hierarchy spec (short form) */
static rt_memspy *on_hierarchy(int P, const char *spec)
{
    rt_hier_config hc;
    rt_err err;
    rt_hier_config_init(&hc);
    assert_int_equal(rt_hier_parse_short(&hc, spec, &err), RT_OK);
    rt_memspy_config mc = {.procs = P, .latency = 50, .ref_cycles = 1};
    rt_memspy *m = rt_memspy_new(&mc, &hc, &err);
    assert_non_null(m);
    return m;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

typedef struct mlist {
    uint64_t line[8]; /* most recent first */
    int dirty[8];
    int n;
} mlist;

/* reference `line` in a set of `ways`: 1 on a hit; on a miss the line is put
 * first and *vic / *vic_dirty say what left (vic -1: nothing) */
static int model_ref(mlist *s, int ways, uint64_t line, int write, int64_t *vic, int *vic_dirty)
{
    *vic = -1;
    *vic_dirty = 0;
    for (int k = 0; k < s->n; k++)
        if (s->line[k] == line) {
            int d = s->dirty[k] | write;
            memmove(&s->line[1], &s->line[0], (size_t)k * sizeof s->line[0]);
            memmove(&s->dirty[1], &s->dirty[0], (size_t)k * sizeof s->dirty[0]);
            s->line[0] = line;
            s->dirty[0] = d;
            return 1;
        }
    if (s->n == ways) {
        *vic = (int64_t)s->line[ways - 1];
        *vic_dirty = s->dirty[ways - 1];
        s->n--;
    }
    memmove(&s->line[1], &s->line[0], (size_t)s->n * sizeof s->line[0]);
    memmove(&s->dirty[1], &s->dirty[0], (size_t)s->n * sizeof s->dirty[0]);
    s->line[0] = line;
    s->dirty[0] = write;
    s->n++;
    return 0;
}

/* One processor, a 1 KiB 2-way L1 over a 4 KiB 4-way L2 (64-byte lines, LRU,
 * write-back, write-allocate, Dinero IV's non-inclusive hierarchy): random
 * loads and stores over three named ranges and an unmapped one from two
 * procedures. Each bin's misses at each level equal the model's, where an L1
 * miss fetches its line from the L2 and then writes a dirty victim there. */
static void test_levels_model(void **state)
{
    (void)state;
    rt_err err;
    rt_memspy *m = on_hierarchy(1, "l1:1k/64:2 l2:4k/64:4");
    assert_int_equal(rt_memspy_levels(m), 2);
    const char *names[3] = {"A", "B", "C"};
    for (int r = 0; r < 3; r++)
        assert_int_equal(rt_memspy_named(m, (uint64_t)r * 4096, 4096, names[r], &err), RT_OK);
    mlist l1[8], l2[16];
    memset(l1, 0, sizeof l1);
    memset(l2, 0, sizeof l2);
    uint64_t want[2][4][2]; /* [code f/g][data A B C unmapped][level] */
    memset(want, 0, sizeof want);
    uint64_t x = 0x9E3779B97F4A7C15ull;
    int code = 0;
    assert_int_equal(rt_memspy_enter(m, 0, "f", NULL, &err), RT_OK);
    for (int i = 0; i < 20000; i++) {
        xorshift(&x);
        if (x % 97 == 0) { /* switch procedure */
            assert_int_equal(rt_memspy_set_code(m, 0, code ? "f" : "g", &err), RT_OK);
            code = !code;
        }
        uint64_t addr = (x >> 8) % 16384 & ~(uint64_t)7, size = 1 + (x >> 40) % 8;
        int write = (x >> 50) % 3 == 0;
        assert_int_equal(rt_memspy_ref(m, 0, addr, size, write, 0, 0, &err), RT_OK);
        uint64_t line = addr / 64;
        int64_t vic, v2;
        int vd, d2;
        if (model_ref(&l1[line % 8], 2, line, write, &vic, &vd))
            continue;
        int data = (int)(addr / 4096);
        want[code][data][0]++;
        if (!model_ref(&l2[line % 16], 4, line, 0, &v2, &d2))
            want[code][data][1]++;
        if (vic >= 0 && vd)
            model_ref(&l2[(uint64_t)vic % 16], 4, (uint64_t)vic, 1, &v2, &d2);
    }
    const char *codes[2] = {"f", "g"}, *datas[4] = {"A", "B", "C", "(unmapped)"};
    uint64_t total[2] = {0, 0};
    for (int c = 0; c < 2; c++)
        for (int d = 0; d < 4; d++) {
            const rt_memspy_bin *b = bin(m, codes[c], datas[d]);
            assert_int_equal(b->c.level_miss[0], want[c][d][0]);
            assert_int_equal(b->c.level_miss[1], want[c][d][1]);
            assert_int_equal(b->c.read_misses + b->c.write_misses, want[c][d][0]);
            assert_true(want[c][d][1] > 0 && want[c][d][1] < want[c][d][0]);
            total[0] += want[c][d][0];
            total[1] += want[c][d][1];
        }
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    assert_int_equal(t.c.level_miss[0], total[0]);
    assert_int_equal(t.c.level_miss[1], total[1]);
    rt_memspy_free(m);
}

/* Two processors with private L1s over a shared L2: the bins' misses per
 * level add up to the machine's own figures (L1 demand misses of both cores,
 * the L2's read misses), and a store to a line the other core holds is an
 * invalidation there. */
static void test_levels_shared(void **state)
{
    (void)state;
    rt_err err;
    rt_memspy *m = on_hierarchy(2, "l1:1k/64:2 l2:8k/64:4");
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) {
        xorshift(&x);
        uint64_t addr = (x >> 8) % 12288 & ~(uint64_t)7;
        assert_int_equal(rt_memspy_ref(m, (int)(x >> 60) & 1, addr, 8, (x >> 50) % 3 == 0, 0, 0, &err), RT_OK);
    }
    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    const rt_hier *h = rt_memspy_machine(m);
    uint64_t l1 = 0;
    for (unsigned p = 0; p < 2; p++) {
        const rt_hier_stats *s = rt_hier_stats_core(h, p, 0, RT_HIER_UNIFIED);
        l1 += s->miss[RT_REF_READ] + s->miss[RT_REF_WRITE];
    }
    const rt_hier_stats *s2 = rt_hier_stats_get(h, 1, RT_HIER_UNIFIED);
    assert_int_equal(t.c.level_miss[0], l1);
    assert_int_equal(t.c.read_misses + t.c.write_misses, l1);
    assert_int_equal(t.c.level_miss[1], s2->miss[RT_REF_READ]);
    assert_true(t.c.level_miss[1] > 0 && t.c.level_miss[1] < l1);
    assert_true(t.c.invalidation > 0);
    rt_memspy_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replacements_by_hand),
        cmocka_unit_test(test_invalidations_by_hand),
        cmocka_unit_test(test_call_paths),
        cmocka_unit_test(test_monitor_and_pc),
        cmocka_unit_test(test_remote_latency),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_rangemap_model),
        cmocka_unit_test(test_levels_model),
        cmocka_unit_test(test_levels_shared),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
