/* Tests of the SHMAP simulator: every policy on a trace worked out on paper,
 * lines, write policies, PEs sharing caches, access events, reference counts. */
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

#include "rt_shmap_sim.h"

static rt_shmap *open_fixture(const char *name)
{
    char path[512];
    rt_err e;
    rt_shmap *r = rt_shmap_open(rt_test_fixture(path, sizeof path, "shmap/%s", name), &e);
    if (!r)
        fail_msg("%s", e.msg);
    return r;
}

/* A simulation with ncaches caches of the given geometry (ncaches 0: cache off). */
static rt_shmap_sim *make_sim(rt_shmap *r, int pes, int ncaches, uint64_t size, uint64_t line,
                              const char *policy, int write_back, uint64_t seed)
{
    rt_cache_config caches[8];
    rt_err e;
    for (int i = 0; i < ncaches; i++) {
        caches[i] = rt_cache_defaults(size, line);
        caches[i].policy = rt_policy_builtin(policy);
        assert_non_null(caches[i].policy);
        caches[i].write_back = write_back;
        caches[i].seed = seed;
    }
    rt_shmap_sim *s = rt_shmap_sim_new(r, pes, ncaches ? caches : NULL, ncaches, line, &e);
    if (!s)
        fail_msg("%s", e.msg);
    return s;
}

static uint64_t load_count(const rt_shmap_sim *s, int i, uint64_t e)
{
    uint64_t ld, st;
    rt_shmap_sim_counts(s, i, e, &ld, &st);
    return ld;
}

static uint64_t store_count(const rt_shmap_sim *s, int i, uint64_t e)
{
    uint64_t ld, st;
    rt_shmap_sim_counts(s, i, e, &ld, &st);
    return st;
}

static void run_all(rt_shmap_sim *s)
{
    rt_err e;
    uint64_t done;
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_EEOF);
}

/*
 * policy.shm: one PE, one cache of 4 one-word lines (one set, 4 ways), loads of
 * rows 1 2 3 4 1 1 5 2 6 1 3 5 4 2 of an 8 x 1 matrix (row r is line r-1), one
 * load per step: 14 steps (the definition is no step).
 * The first four fill ways 0-3 in order; 1 1 hit. Then, by hand:
 *   LRU   5 evicts 2, 2 evicts 3, 6 evicts 4, 1 hit, 3 evicts 5, 5 evicts 2,
 *         4 evicts 6, 2 evicts 1: 3 hits, 11 misses, ways 2 3 5 4
 *   LFU   (counts 3,1,1,1) 5 evicts 2 (lowest way of the ties), 2 evicts 5,
 *         6 evicts 2, 1 hit, 3 hit, 5 evicts 6, 4 hit, 2 evicts 5:
 *         5 hits, 9 misses, ways 1 2 3 4
 *   FIFO  5 evicts 1, 2 hit, 6 evicts 2, 1 evicts 3, 3 evicts 4, 5 hit,
 *         4 evicts 5, 2 evicts 6: 4 hits, 10 misses, ways 4 2 1 3
 *   LIFO  5 evicts 4, 2 hit, 6 evicts 5, 1 hit, 3 hit, 5 evicts 6, 4 evicts 5,
 *         2 hit: 6 hits, 8 misses, ways 1 2 3 4
 *   Clock 5: the hand clears all four bits and evicts way 0 (1), hand 1; 2 hit;
 *         6: clears way 1, evicts way 2 (3); 1 evicts way 3 (4); 3: clears way 0,
 *         evicts way 1 (2); 5 hit; 4: clears ways 2 3 0 1, evicts way 2 (6);
 *         2 evicts way 3 (1): 4 hits, 10 misses, ways 5 3 4 2
 */
static void test_policies(void **state)
{
    (void)state;
    static const struct {
        const char *policy;
        uint64_t hits, misses;
        uint64_t ways[4]; /* row numbers held at the end */
    } want[] = {
        {"lru", 3, 11, {2, 3, 5, 4}},  {"lfu", 5, 9, {1, 2, 3, 4}},
        {"fifo", 4, 10, {4, 2, 1, 3}}, {"lifo", 6, 8, {1, 2, 3, 4}},
        {"clock", 4, 10, {5, 3, 4, 2}},
    };
    rt_shmap *r = open_fixture("policy.shm");
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        rt_shmap_sim *s = make_sim(r, 1, 1, 4, 1, want[k].policy, 0, 1);
        run_all(s);
        const rt_cache_stats *st = rt_shmap_sim_cache_stats(s, 0);
        if (st->hits != want[k].hits || st->misses != want[k].misses)
            fail_msg("%s: %llu hits %llu misses", want[k].policy, (unsigned long long)st->hits,
                     (unsigned long long)st->misses);
        for (uint32_t w = 0; w < 4; w++)
            assert_int_equal(rt_shmap_sim_cache_line_at(s, 0, 0, w) + 1, want[k].ways[w]);
        assert_int_equal(rt_shmap_sim_pe(s, 0)->loads, 14);
        assert_int_equal(rt_sched_steps(rt_shmap_sim_sched(s)), 14);
        rt_shmap_sim_free(s);
    }
    rt_shmap_free(r);
}

/* Random: the same seed gives the same run, equal to the cache fed directly. */
static void test_random(void **state)
{
    (void)state;
    static const int rows[] = {1, 2, 3, 4, 1, 1, 5, 2, 6, 1, 3, 5, 4, 2};
    rt_shmap *r = open_fixture("policy.shm");
    for (uint64_t seed = 1; seed <= 5; seed++) {
        rt_shmap_sim *a = make_sim(r, 1, 1, 4, 1, "random", 0, seed);
        run_all(a);
        rt_shmap_sim *b = make_sim(r, 1, 1, 4, 1, "random", 0, seed);
        run_all(b);
        rt_cache_config cfg = rt_cache_defaults(4, 1);
        cfg.policy = &rt_policy_random;
        cfg.seed = seed;
        rt_cache *c;
        rt_err e;
        assert_int_equal(rt_cache_new(&cfg, &c, &e), RT_OK);
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            assert_int_equal(rt_cache_access(c, (uint64_t)rows[i] - 1, 0, NULL), RT_OK);
        const rt_cache_stats *sa = rt_shmap_sim_cache_stats(a, 0);
        const rt_cache_stats *sb = rt_shmap_sim_cache_stats(b, 0);
        assert_int_equal(sa->hits, sb->hits);
        assert_int_equal(sa->hits, rt_cache_stats_get(c)->hits);
        assert_int_equal(sa->misses, 14 - sa->hits);
        for (uint32_t w = 0; w < 4; w++)
            assert_int_equal(rt_shmap_sim_cache_line_at(a, 0, 0, w),
                             rt_cache_line_at(c, 0, w));
        rt_cache_free(c);
        rt_shmap_sim_free(a);
        rt_shmap_sim_free(b);
    }
    rt_shmap_free(r);
}

typedef struct {
    rt_shmap_access a[64];
    int n;
} recorder;

static void record(void *ud, const rt_shmap_access *a)
{
    recorder *rec = ud;
    if (rec->n < 64)
        rec->a[rec->n] = *a;
    rec->n++;
}

/*
 * Lines of 4 words: loading rows 1..8 of a 3-column matrix 2 (8 x 3, after a
 * 3 x 1 matrix 1 at words 0..2, so matrix 2 starts at word 4) misses on rows 1
 * and 5 and hits on the 6 others. Stores: no lookup under write-through; under
 * write-back they look up (and hit the lines just loaded).
 */
static void test_lines_and_writes(void **state)
{
    (void)state;
    char *path = rt_test_write_text("0 2 8 3\n0 1 3 1\n1 2 1 8 2 2 1.0\n2 2 1 8 2 2 2.0\n"
                                    "1 1 2 3 1 1 3.0\n");
    rt_err e;
    rt_shmap *r = rt_shmap_open(path, &e);
    assert_non_null(r);
    /* write-through */
    rt_shmap_sim *s = make_sim(r, 1, 1, 16, 4, "lru", 0, 1);
    assert_int_equal(rt_shmap_sim_base(s, 0), 0);
    assert_int_equal(rt_shmap_sim_base(s, 1), 4);
    recorder rec = {.n = 0};
    rt_shmap_sim_subscribe(s, record, &rec);
    run_all(s);
    const rt_cache_stats *st = rt_shmap_sim_cache_stats(s, 0);
    /* matrix 2 column 2 is words 12..19: lines 3 and 4; matrix 1 rows 2-3: line 0 */
    assert_int_equal(st->misses, 3);
    assert_int_equal(st->hits, 7);
    assert_int_equal(rt_shmap_sim_pe(s, 0)->loads, 10);
    assert_int_equal(rt_shmap_sim_pe(s, 0)->stores, 8);
    assert_int_equal(rec.n, 8 + 8 + 2);
    /* first access: matrix index 1 (ID 2), row 1, col 2, a miss loading words 12..15 */
    assert_int_equal(rec.a[0].matrix, 1);
    assert_int_equal(rec.a[0].row, 1);
    assert_int_equal(rec.a[0].col, 2);
    assert_int_equal(rec.a[0].addr, 12);
    assert_int_equal(rec.a[0].outcome, RT_SHM_MISS);
    assert_int_equal(rec.a[0].line_first, 12);
    assert_int_equal(rec.a[0].line_last, 15);
    assert_int_equal(rec.a[0].step, 1); /* the two definitions are no steps */
    assert_int_equal(rec.a[8].step, 2);
    assert_int_equal(rec.a[16].step, 3);
    assert_int_equal(rec.a[1].outcome, RT_SHM_HIT);
    assert_int_equal(rec.a[1].row, 2);
    assert_int_equal(rec.a[4].outcome, RT_SHM_MISS);
    assert_int_equal(rec.a[4].line_first, 16);
    assert_int_equal(rec.a[8].store, 1);
    assert_int_equal(rec.a[8].outcome, RT_SHM_NOLOOKUP);
    assert_int_equal(rec.a[8].cache, -1);
    assert_int_equal(rec.a[16].matrix, 0);
    assert_int_equal(rec.a[16].addr, 1);
    assert_int_equal(rec.a[16].outcome, RT_SHM_MISS);
    assert_int_equal(rec.a[16].line_first, 0);
    assert_true(rec.a[16].time == 3.0);
    assert_true(rt_shmap_sim_time(s) == 3.0);
    /* reference counts, column-major */
    assert_int_equal(load_count(s, 1, 0), 0);
    assert_int_equal(load_count(s, 1, 8), 1);
    assert_int_equal(load_count(s, 1, 15), 1);
    assert_int_equal(load_count(s, 1, 16), 0);
    assert_int_equal(store_count(s, 1, 9), 1);
    assert_int_equal(load_count(s, 0, 0), 0);
    assert_int_equal(load_count(s, 0, 2), 1);
    /* addresses back to elements; word 3 is padding */
    int m, row, col;
    assert_true(rt_shmap_sim_locate(s, 13, &m, &row, &col));
    assert_int_equal(m, 1);
    assert_int_equal(row, 2);
    assert_int_equal(col, 2);
    assert_false(rt_shmap_sim_locate(s, 3, &m, &row, &col));
    assert_true(rt_shmap_sim_locate(s, 27, &m, &row, &col));
    assert_int_equal(col, 3);
    assert_int_equal(row, 8);
    assert_false(rt_shmap_sim_locate(s, 28, &m, &row, &col));
    rt_shmap_sim_free(s);

    /* write-back: the 8 stores look up and hit */
    s = make_sim(r, 1, 1, 16, 4, "lru", 1, 1);
    run_all(s);
    st = rt_shmap_sim_cache_stats(s, 0);
    assert_int_equal(st->misses, 3);
    assert_int_equal(st->hits, 15);
    assert_int_equal(st->writes, 8);
    rt_shmap_sim_free(s);

    /* cache off: counts only */
    s = make_sim(r, 1, 0, 0, 4, NULL, 0, 1);
    rec.n = 0;
    rt_shmap_sim_subscribe(s, record, &rec);
    run_all(s);
    assert_int_equal(rt_shmap_sim_caches(s), 0);
    assert_int_equal(rt_shmap_sim_cache_of(s, 0), -1);
    assert_int_equal(rec.n, 18);
    assert_int_equal(rec.a[0].outcome, RT_SHM_NOLOOKUP);
    assert_int_equal(load_count(s, 1, 8), 1);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);
}

/*
 * machine.shm: four groups (flops, load own column, load column 1) in one
 * section of a 4 x 4 matrix; lines of 4 words = one column; caches of 16 words.
 * 4 PEs, 2 caches (PEs 0,1 -> 0; 2,3 -> 1): the definition is no step; steps
 * info (PE 0), flops, own columns (each a miss and 3 hits), column 1: cache 0
 * has it (8 hits), cache 1 misses once (PE 2) then PE 3 hits: cache 0 14/2,
 * cache 1 13/3. PE 0 executes 4 events (info, flops, 2 loads), the others 3.
 */
static void test_machine(void **state)
{
    (void)state;
    rt_shmap *r = open_fixture("machine.shm");
    rt_shmap_sim *s = make_sim(r, 4, 2, 16, 4, "lru", 0, 1);
    rt_err e;
    uint64_t done;
    assert_int_equal(rt_shmap_sim_step(s, 2, &done, &e), RT_OK);
    assert_int_equal(done, 2);
    assert_int_equal(rt_sched_active(rt_shmap_sim_sched(s)), 4);
    assert_string_equal(rt_shmap_sim_pe(s, 0)->info, "four groups on two caches");
    assert_int_equal(rt_shmap_sim_pe(s, 0)->info_matrix, 0);
    assert_string_equal(rt_shmap_sim_pe(s, 1)->info, "");
    assert_string_equal(rt_shmap_sim_pe(s, 3)->subroutine, "sgemm");
    assert_int_equal(rt_shmap_sim_pe(s, 0)->loads, 0);
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_EEOF);
    assert_int_equal(done, 2);
    assert_int_equal(rt_sched_steps(rt_shmap_sim_sched(s)), 4);
    const rt_cache_stats *c0 = rt_shmap_sim_cache_stats(s, 0);
    const rt_cache_stats *c1 = rt_shmap_sim_cache_stats(s, 1);
    assert_int_equal(c0->hits, 14);
    assert_int_equal(c0->misses, 2);
    assert_int_equal(c1->hits, 13);
    assert_int_equal(c1->misses, 3);
    int64_t flops[4] = {10, 10, 10, 20};
    for (int p = 0; p < 4; p++) {
        assert_int_equal(rt_shmap_sim_pe(s, p)->loads, 8);
        assert_int_equal(rt_shmap_sim_pe(s, p)->flops, flops[p]);
        assert_int_equal(rt_shmap_sim_pe(s, p)->events, p == 0 ? 4 : 3);
        assert_int_equal(rt_shmap_sim_pe(s, p)->busy_steps, p == 0 ? 4 : 3);
        assert_int_equal(rt_shmap_sim_cache_of(s, p), p / 2);
    }
    assert_string_equal(rt_shmap_sim_pe(s, 0)->subroutine, "sgemv");
    rt_shmap_sim_free(s);

    /* 3 caches on 4 PEs: floor(p*3/4) = 0 0 1 2; caches 1 and 2 each miss twice */
    s = make_sim(r, 4, 3, 16, 4, "lru", 0, 1);
    run_all(s);
    assert_int_equal(rt_shmap_sim_cache_of(s, 2), 1);
    assert_int_equal(rt_shmap_sim_cache_of(s, 3), 2);
    assert_int_equal(rt_shmap_sim_cache_stats(s, 0)->misses, 2);
    assert_int_equal(rt_shmap_sim_cache_stats(s, 1)->hits, 6);
    assert_int_equal(rt_shmap_sim_cache_stats(s, 2)->misses, 2);
    rt_shmap_sim_free(s);

    /* 2 PEs, 1 cache: info, then groups 1,2 (3 steps) and 3,4 (3 steps): 7 steps;
     * 4 misses (one per column) */
    s = make_sim(r, 2, 1, 16, 4, "lru", 0, 1);
    run_all(s);
    assert_int_equal(rt_sched_steps(rt_shmap_sim_sched(s)), 7);
    assert_int_equal(rt_shmap_sim_cache_stats(s, 0)->misses, 4);
    assert_int_equal(rt_shmap_sim_cache_stats(s, 0)->hits, 28);
    assert_int_equal(rt_shmap_sim_pe(s, 1)->flops, 30);
    rt_shmap_sim_free(s);

    /* bad machines */
    assert_null(rt_shmap_sim_new(r, 0, NULL, 0, 1, &e));
    assert_string_equal(e.msg, "pes: 0 is outside 1..256");
    rt_cache_config cs[3];
    for (int i = 0; i < 3; i++)
        cs[i] = rt_cache_defaults(16, 4);
    assert_null(rt_shmap_sim_new(r, 2, cs, 3, 4, &e)); /* frees the caches */
    assert_string_equal(e.msg, "caches: 3 is outside 1..2 (the number of PEs)");
    rt_shmap_free(r);
}

/* Open text as a SHMAP trace and make a one-PE simulation without caches. */
static rt_shmap_sim *sim_of_text(const char *text, rt_shmap **r, char **path)
{
    rt_err e;
    *path = rt_test_write_text(text);
    *r = rt_shmap_open(*path, &e);
    if (!*r)
        fail_msg("%s", e.msg);
    return make_sim(*r, 1, 0, 0, 4, NULL, 0, 1);
}

/*
 * Memory follows the elements touched, not the sizes declared: a 2^20 x 2^20
 * matrix touched in two corners holds two pages; 5000 declared 1000 x 1000
 * matrices hold nothing; a block larger than the budget is refused at its line
 * before any work, and a trace that creeps past a small budget at the event
 * that crosses it.
 */
static void test_huge_matrices(void **state)
{
    (void)state;
    rt_shmap *r;
    char *path;
    rt_err e;
    uint64_t done;
    rt_shmap_sim *s = sim_of_text("0 1 1048576 1048576\n1 1 1 2 1 1 0.0\n"
                                  "2 1 1048576 1048576 1048576 1048576 1.0\n", &r, &path);
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_EEOF);
    assert_int_equal(rt_shmap_sim_elements_held(s), 2048);
    assert_int_equal(load_count(s, 0, 1), 1);
    assert_int_equal(load_count(s, 0, 2), 0);
    assert_int_equal(store_count(s, 0, ((uint64_t)1 << 40) - 1), 1);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);

    size_t cap = 5000 * 24 + 64, n = 0;
    char *text = malloc(cap);
    for (int i = 1; i <= 5000; i++)
        n += (size_t)snprintf(text + n, cap - n, "0 %d 1000 1000\n", i);
    snprintf(text + n, cap - n, "1 5000 1 1 1 1 0.0\n");
    s = sim_of_text(text, &r, &path);
    free(text);
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_EEOF);
    assert_int_equal(rt_shmap_sim_elements_held(s), 1024);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);

    s = sim_of_text("0 1 30000 30000\n1 1 1 30000 1 30000 0.0\n", &r, &path);
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_ERANGE);
    char want[600];
    snprintf(want, sizeof want,
             "%s:2: matrix 1: load of rows 1..30000, columns 1..30000 of 30000 x 30000: the elements touched "
             "exceed the limit of 16777216 (--max-elements)", path);
    assert_string_equal(e.msg, want);
    assert_int_equal(rt_shmap_sim_elements_held(s), 0);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);

    /* budget of 2048 elements: two pages; the third page's event (line 4) fails */
    s = sim_of_text("0 1 4096 1\n1 1 1 1 1 1 0.0\n1 1 1025 1025 1 1 1.0\n2 1 3000 3000 1 1 2.0\n",
                    &r, &path);
    rt_shmap_sim_set_max_elements(s, 2048);
    assert_int_equal(rt_shmap_sim_step(s, 0, &done, &e), RT_ERANGE);
    snprintf(want, sizeof want, "%s:4: matrix 1: store of rows 3000..3000", path);
    assert_memory_equal(e.msg, want, strlen(want));
    assert_int_equal(rt_shmap_sim_elements_held(s), 2048);
    rt_shmap_sim_free(s);
    rt_shmap_free(r);
    rt_test_remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policies),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_lines_and_writes),
        cmocka_unit_test(test_machine),
        cmocka_unit_test(test_huge_matrices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
