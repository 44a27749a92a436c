/* Tests of core/cache: every policy on small traces worked out by hand, the
 * write policies, geometry errors, and the engine against slow list-based
 * models (LRU, FIFO) on random input for several geometries. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_cache.h"
#include "rt_linemap.h"

static rt_cache *make(uint64_t size, uint64_t line, uint64_t ways, const rt_policy_ops *p,
                      int wb)
{
    rt_cache_config cfg = rt_cache_defaults(size, line);
    cfg.ways = ways;
    cfg.policy = p;
    cfg.write_back = wb;
    rt_cache *c;
    rt_err e;
    assert_int_equal(rt_cache_new(&cfg, &c, &e), RT_OK);
    return c;
}

/* Run loads of the given unit addresses; write 'h' or 'm' per access into out. */
static void run_loads(rt_cache *c, const uint64_t *a, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        rt_cache_result r;
        assert_int_equal(rt_cache_access(c, a[i], 0, &r), RT_OK);
        out[i] = r.hit ? 'h' : 'm';
    }
    out[n] = 0;
}

/* The classic reference string 1 2 3 4 1 2 5 1 2 3 4 5 on a fully associative
 * cache of 4 one-unit lines (ways 0..3 fill with 1,2,3,4 first). */
static const uint64_t belady[] = {1, 2, 3, 4, 1, 2, 5, 1, 2, 3, 4, 5};

static void check_policy(const rt_policy_ops *p, const char *expect, uint64_t final[4])
{
    rt_cache *c = make(4, 1, 0, p, 0);
    char out[32];
    run_loads(c, belady, 12, out);
    assert_string_equal(out, expect);
    for (uint32_t w = 0; w < 4; w++)
        assert_int_equal(rt_cache_line_at(c, 0, w), final[w]);
    rt_cache_free(c);
}

static void test_lru_by_hand(void **state)
{
    (void)state;
    /* 1 2 3 4 fill ways 0-3; 1 h, 2 h (t5, t6); 5: LRU is 3 (t3) -> way 2 = 5;
     * 1 h (t8), 2 h (t9); 3: LRU is 4 (t4) -> way 3 = 3;
     * 4: LRU is 5 (t7) -> way 2 = 4; 5: LRU is 1 (t8) -> way 0 = 5. */
    check_policy(&rt_policy_lru, "mmmmhhmhhmmm", (uint64_t[]){5, 2, 4, 3});
}

static void test_fifo_by_hand(void **state)
{
    (void)state;
    /* 1 h, 2 h; 5 evicts 1 (way 0); 1 evicts 2 (way 1); 2 evicts 3 (way 2);
     * 3 evicts 4 (way 3); 4 evicts 5 (way 0); 5 evicts 1 (way 1): Belady's 10 misses. */
    check_policy(&rt_policy_fifo, "mmmmhhmmmmmm", (uint64_t[]){4, 5, 2, 3});
}

static void test_lifo_by_hand(void **state)
{
    (void)state;
    /* 5 evicts the latest load, 4 (way 3); 1 2 3 hit; 4 evicts 5 (way 3);
     * 5 evicts 4 (way 3). */
    check_policy(&rt_policy_lifo, "mmmmhhmhhhmm", (uint64_t[]){1, 2, 3, 5});
}

static void test_lfu_by_hand(void **state)
{
    (void)state;
    /* counts after the fills 1,1,1,1; hits make 1:2, 2:2; 5 evicts the lowest
     * way with count 1, way 2 (3); 1 h (3), 2 h (3); 3 evicts 5 (way 2, count 1
     * ties 4 at way 3: lowest way); 4 h (2); 5 evicts 3 (way 2, count 1). */
    check_policy(&rt_policy_lfu, "mmmmhhmhhmhm", (uint64_t[]){1, 2, 5, 4});
}

static void test_clock_by_hand(void **state)
{
    (void)state;
    /* fills set bits 1111, hand 0; 1 h, 2 h. 5: the hand clears all four bits
     * and comes back to way 0: evict 1, hand 1 (bits 1000). 1: way 1 bit 0:
     * evict 2, hand 2. 2: evict 3 (way 2), hand 3. 3: evict 4 (way 3), hand 0,
     * bits 1111. 4: clears all, evicts way 0 (5), hand 1. 5: evicts way 1 (1). */
    check_policy(&rt_policy_clock, "mmmmhhmmmmmm", (uint64_t[]){4, 5, 2, 3});
}

static void test_clock_skips_used(void **state)
{
    (void)state;
    /* 4 ways: 1 2 3 4 fill (bits 1111, hand 0); 5 clears all, evicts way 0
     * (bits 1000, hand 1); 3 hits (way 2, bits 1010); 6: way 1 bit 0 -> evict
     * 2 (bits 1110, hand 2); 7: way 2 bit 1 -> clear, way 3 bit 0 -> evict 4
     * (bits 1101, hand 0); 8: ways 0 and 1 have bit 1 -> clear both, way 2 bit
     * 0 -> evict 3 (hand 3). */
    rt_cache *c = make(4, 1, 0, &rt_policy_clock, 0);
    char out[16];
    run_loads(c, (uint64_t[]){1, 2, 3, 4, 5, 3, 6, 7, 8}, 9, out);
    assert_string_equal(out, "mmmmmhmmm");
    uint64_t expect[4] = {5, 6, 8, 7};
    for (uint32_t w = 0; w < 4; w++)
        assert_int_equal(rt_cache_line_at(c, 0, w), expect[w]);
    rt_cache_free(c);
}

static void test_random_reproducible(void **state)
{
    (void)state;
    char a[4][2100];
    uint64_t seeds[4] = {7, 7, 8, 9};
    uint64_t trace[2048];
    uint64_t x = 12345;
    for (int i = 0; i < 2048; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        trace[i] = (x >> 33) % 24;
    }
    for (int k = 0; k < 4; k++) {
        rt_cache_config cfg = rt_cache_defaults(16, 1);
        cfg.ways = 4;
        cfg.policy = &rt_policy_random;
        cfg.seed = seeds[k];
        rt_cache *c;
        assert_int_equal(rt_cache_new(&cfg, &c, NULL), RT_OK);
        run_loads(c, trace, 2048, a[k]);
        rt_cache_free(c);
    }
    assert_string_equal(a[0], a[1]);
    /* other seeds choose other victims somewhere in 2048 references */
    assert_true(strcmp(a[0], a[2]) != 0 || strcmp(a[0], a[3]) != 0);
}

static void test_random_fills_empty_first(void **state)
{
    (void)state;
    /* random only chooses among full sets: the first four distinct lines land
     * in ways 0..3 in order */
    rt_cache *c = make(4, 1, 0, &rt_policy_random, 0);
    char out[8];
    run_loads(c, (uint64_t[]){9, 8, 7, 6}, 4, out);
    assert_string_equal(out, "mmmm");
    for (uint32_t w = 0; w < 4; w++)
        assert_int_equal(rt_cache_line_at(c, 0, w), 9 - w);
    rt_cache_free(c);
}

static void test_set_associative_by_hand(void **state)
{
    (void)state;
    /* S=8, L=2, W=2: 2 sets; line = addr/2, set = line mod 2.
     * 0 (line 0, set 0) m -> way 0; 1 (line 0) h; 4 (line 2, set 0) m -> way 1;
     * 8 (line 4, set 0) m: LRU line 0 (t2) -> way 0; 2 (line 1, set 1) m -> way 0;
     * 0 (line 0) m: LRU line 2 (t3) -> way 1; 4 (line 2) m: LRU line 4 (t4) -> way 0. */
    rt_cache *c = make(8, 2, 2, &rt_policy_lru, 0);
    assert_int_equal(rt_cache_sets(c), 2);
    uint64_t a[] = {0, 1, 4, 8, 2, 0, 4};
    char out[8];
    run_loads(c, a, 7, out);
    assert_string_equal(out, "mhmmmmm");
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(s->refs, 7);
    assert_int_equal(s->hits, 1);
    assert_int_equal(s->misses, 6);
    assert_int_equal(s->evictions, 3);
    assert_int_equal(rt_cache_line_at(c, 0, 0), 2);
    assert_int_equal(rt_cache_line_at(c, 0, 1), 0);
    assert_int_equal(rt_cache_line_at(c, 1, 0), 1);
    assert_int_equal(rt_cache_line_at(c, 1, 1), UINT64_MAX);
    /* one more access: 9 (line 4) evicts the LRU line of set 0, line 0 (t6;
     * line 2 was referenced at t7), from way 1 */
    rt_cache_result r;
    assert_int_equal(rt_cache_access(c, 9, 0, &r), RT_OK);
    assert_int_equal(r.hit, 0);
    assert_int_equal(r.line, 4);
    assert_int_equal(r.set, 0);
    assert_int_equal(r.way, 1);
    assert_int_equal(r.evicted, 1);
    assert_int_equal(r.evicted_line, 0);
    rt_cache_free(c);
}

static void test_write_back(void **state)
{
    (void)state;
    /* S=2, L=1, fully associative, write-back-write-allocate:
     * W0 m (dirty), R1 m, R2 m evicts 0 (LRU, dirty: writeback), W1 h (dirty),
     * R0 m evicts 2 (t3 < 1's t4; clean). A flush writes back 1: 2 writebacks. */
    rt_cache *c = make(2, 1, 0, &rt_policy_lru, 1);
    int w[] = {1, 0, 0, 1, 0};
    uint64_t a[] = {0, 1, 2, 1, 0};
    rt_cache_result r;
    for (int i = 0; i < 5; i++)
        assert_int_equal(rt_cache_access(c, a[i], w[i], &r), RT_OK);
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(s->refs, 5);
    assert_int_equal(s->reads, 3);
    assert_int_equal(s->writes, 2);
    assert_int_equal(s->hits, 1);
    assert_int_equal(s->read_misses, 3);
    assert_int_equal(s->write_misses, 1);
    assert_int_equal(s->evictions, 2);
    assert_int_equal(s->writebacks, 1);
    assert_int_equal(rt_cache_flush(c, 1), RT_OK);
    assert_int_equal(s->writebacks, 2);
    assert_false(rt_cache_probe(c, 0));
    rt_cache_free(c);
}

static void test_write_through(void **state)
{
    (void)state;
    /* the same trace write-through-no-write-allocate: stores bypass; the clock
     * counts loads only: R1 (t1) m, R2 (t2) m, R0 (t3) m evicts 1. */
    rt_cache *c = make(2, 1, 0, &rt_policy_lru, 0);
    int w[] = {1, 0, 0, 1, 0};
    uint64_t a[] = {0, 1, 2, 1, 0};
    rt_cache_result r;
    for (int i = 0; i < 5; i++) {
        assert_int_equal(rt_cache_access(c, a[i], w[i], &r), RT_OK);
        assert_int_equal(r.bypassed, w[i]);
    }
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(s->refs, 3);
    assert_int_equal(s->misses, 3);
    assert_int_equal(s->hits, 0);
    assert_int_equal(s->bypassed_writes, 2);
    assert_int_equal(s->writebacks, 0);
    assert_false(rt_cache_probe(c, 1));
    assert_true(rt_cache_probe(c, 2));
    rt_cache_free(c);
}

static void test_access_range(void **state)
{
    (void)state;
    /* byte cache, 64-byte lines: 8 bytes at 60 span lines 0 and 1 */
    rt_cache *c = make(1024, 64, 4, &rt_policy_lru, 1);
    unsigned m;
    assert_int_equal(rt_cache_access_range(c, 60, 8, 0, &m), RT_OK);
    assert_int_equal(m, 2);
    assert_int_equal(rt_cache_access_range(c, 64, 64, 1, &m), RT_OK);
    assert_int_equal(m, 0);
    assert_int_equal(rt_cache_access_range(c, 200, 0, 0, &m), RT_OK);
    assert_int_equal(m, 1);
    assert_int_equal(rt_cache_stats_get(c)->refs, 4);
    rt_cache_free(c);
}

static void test_geometry_errors(void **state)
{
    (void)state;
    struct {
        uint64_t s, l, w;
        const char *msg;
    } bad[] = {
        {48, 4, 0, "cache size: 48 is not a power of two"},
        {64, 3, 0, "line size: 3 is not a power of two"},
        {64, 128, 0, "line size: 128 is larger than the cache size 64"},
        {64, 4, 3, "ways: 3 does not divide the 16 lines of the cache"},
        {64, 4, 32, "ways: 32 does not divide the 16 lines of the cache"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        rt_cache_config cfg = rt_cache_defaults(bad[i].s, bad[i].l);
        cfg.ways = bad[i].w;
        rt_cache *c = (rt_cache *)1;
        rt_err e;
        assert_int_equal(rt_cache_new(&cfg, &c, &e), RT_EINVAL);
        assert_null(c);
        assert_string_equal(e.msg, bad[i].msg);
    }
    assert_null(rt_policy_builtin("mru"));
    rt_cache *c = make(4, 1, 0, &rt_policy_lru, 1);
    assert_int_equal(rt_cache_access(c, UINT64_MAX, 0, NULL), RT_ERANGE);
    assert_string_equal(rt_cache_error(c),
                        "address: 0xffffffffffffffff is out of range with 1-unit lines");
    assert_int_equal(rt_cache_stats_get(c)->refs, 0);
    assert_false(rt_cache_probe(c, UINT64_MAX));
    uint64_t a = UINT64_MAX;
    uint8_t w = 0;
    assert_int_equal(rt_cache_access_batch(c, &a, &w, 1, NULL), RT_ERANGE);
    rt_cache_free(c);
    assert_ptr_equal(rt_policy_builtin("clock"), &rt_policy_clock);
}

static void test_one_lookup_one_check_one_ratio(void **state)
{
    (void)state;
    const rt_policy_ops *ops = NULL;
    rt_err e;
    assert_int_equal(rt_policy_lookup("fifo", &ops, &e), RT_OK);
    assert_ptr_equal(ops, &rt_policy_fifo);
    assert_int_equal(rt_policy_lookup("mru", &ops, &e), RT_EINVAL);
    assert_null(ops);
    assert_string_equal(e.msg, "policy: unknown 'mru' (built-ins: lru lfu fifo lifo clock random)");
    assert_int_equal(rt_cache_check_geometry(1024, 4, 0, "words", &e), RT_OK);
    assert_int_equal(rt_cache_check_geometry(1024, 4, 256, "words", &e), RT_OK);
    assert_int_equal(rt_cache_check_geometry(100, 4, 0, "words", &e), RT_EINVAL);
    assert_string_equal(e.msg, "cache size: 100 words is not a power of two");
    assert_int_equal(rt_cache_check_geometry(8, 16, 0, "words", &e), RT_EINVAL);
    assert_string_equal(e.msg, "line size: 16 words is larger than the cache size 8 words");
    assert_int_equal(rt_cache_check_geometry(1024, 4, 512, NULL, &e), RT_EINVAL);
    assert_string_equal(e.msg, "ways: 512 does not divide the 256 lines of the cache");
    assert_true(rt_hit_ratio(0, 0) == 0.0);
    assert_true(rt_hit_ratio(1, 3) == 0.25);
    assert_true(rt_hit_ratio(7, 0) == 1.0);
}

/* ---- slow models: per set, a list of lines in recency (LRU) or load (FIFO) order ---- */

typedef struct {
    uint64_t *l; /* sets * ways; list per set, index 0 = next victim */
    uint32_t *n;
    uint32_t sets, ways;
    int fifo;
} model;

/* returns 1 on hit; *ev = evicted line or UINT64_MAX */
static int model_access(model *m, uint64_t line, uint64_t *ev)
{
    uint32_t set = (uint32_t)(line % m->sets);
    uint64_t *l = m->l + (uint64_t)set * m->ways;
    *ev = UINT64_MAX;
    for (uint32_t i = 0; i < m->n[set]; i++) {
        if (l[i] == line) {
            if (!m->fifo) { /* move to the most recent end */
                memmove(l + i, l + i + 1, (m->n[set] - i - 1) * sizeof *l);
                l[m->n[set] - 1] = line;
            }
            return 1;
        }
    }
    if (m->n[set] == m->ways) {
        *ev = l[0];
        memmove(l, l + 1, (m->ways - 1) * sizeof *l);
        m->n[set]--;
    }
    l[m->n[set]++] = line;
    return 0;
}

static void compare_with_model(const rt_policy_ops *p, int fifo)
{
    uint64_t geo[][3] = {{64, 1, 0}, {64, 4, 2}, {256, 8, 4}, {1024, 16, 64},
                         {512, 2, 8}, {128, 128, 1}, {4096, 64, 1}, {1 << 14, 64, 256}};
    uint64_t x = 99;
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        rt_cache *c = make(geo[g][0], geo[g][1], geo[g][2], p, 0);
        model m;
        m.sets = rt_cache_sets(c);
        m.ways = (uint32_t)rt_cache_config_get(c)->ways;
        m.l = calloc((size_t)m.sets * m.ways, sizeof *m.l);
        m.n = calloc(m.sets, sizeof *m.n);
        m.fifo = fifo;
        uint64_t span = geo[g][0] * 3;
        for (int i = 0; i < 40000; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            /* skewed addresses: a hot region and a cold one */
            uint64_t a = (x >> 20) % 4 ? (x >> 33) % (span / 2) : (x >> 33) % (span * 4);
            rt_cache_result r;
            assert_int_equal(rt_cache_access(c, a, 0, &r), RT_OK);
            uint64_t ev;
            int hit = model_access(&m, a / geo[g][1], &ev);
            assert_int_equal(r.hit, hit);
            if (!hit) {
                assert_int_equal(r.evicted, ev != UINT64_MAX);
                if (r.evicted)
                    assert_int_equal(r.evicted_line, ev);
            }
            assert_int_equal(rt_cache_line_at(c, r.set, r.way), a / geo[g][1]);
        }
        free(m.l);
        free(m.n);
        rt_cache_free(c);
    }
}

static void test_lru_vs_model(void **state)
{
    (void)state;
    compare_with_model(&rt_policy_lru, 0);
}

static void test_fifo_vs_model(void **state)
{
    (void)state;
    compare_with_model(&rt_policy_fifo, 1);
}

/* The batch call (with its inline paths for the built-in LRU) gives exactly
 * what one rt_cache_access per reference gives: every counter and every way. */
static void test_batch_equals_single(void **state)
{
    (void)state;
    uint64_t geo[][3] = {{32768, 64, 8}, {4096, 64, 8}, {1024, 16, 4}, {2048, 64, 2},
                         {512, 8, 1},    {1024, 1, 8},  {8192, 64, 32}, {4096, 64, 0}};
    const rt_policy_ops *pol[] = {&rt_policy_lru, &rt_policy_fifo, &rt_policy_clock};
    enum { N = 60000 };
    uint64_t *a = malloc(N * sizeof *a);
    uint8_t *w = malloc(N);
    uint64_t x = 12345;
    for (size_t g = 0; g < sizeof geo / sizeof geo[0]; g++) {
        for (size_t q = 0; q < 3; q++) {
            for (int wb = 0; wb < 2; wb++) {
                rt_cache *one = make(geo[g][0], geo[g][1], geo[g][2], pol[q], wb);
                rt_cache *many = make(geo[g][0], geo[g][1], geo[g][2], pol[q], wb);
                uint64_t span = geo[g][0] * 3;
                for (int i = 0; i < N; i++) {
                    x = x * 6364136223846793005ull + 1442695040888963407ull;
                    a[i] = (x >> 20) % 4 ? (x >> 33) % (span / 2) : (x >> 33) % (span * 4);
                    w[i] = (x >> 13) % 3 == 0;
                    assert_int_equal(rt_cache_access(one, a[i], w[i], NULL), RT_OK);
                }
                /* batches of uneven sizes, with single accesses between them */
                size_t i = 0, done;
                while (i < N) {
                    size_t n = 1 + (i * 7919) % 700;
                    if (n > N - i)
                        n = N - i;
                    assert_int_equal(rt_cache_access_batch(many, a + i, w + i, n, &done), RT_OK);
                    assert_int_equal(done, n);
                    i += n;
                    if (i < N) {
                        assert_int_equal(rt_cache_access(many, a[i], w[i], NULL), RT_OK);
                        i++;
                    }
                }
                assert_memory_equal(rt_cache_stats_get(one), rt_cache_stats_get(many),
                                    sizeof(rt_cache_stats));
                for (uint32_t s = 0; s < rt_cache_sets(one); s++)
                    for (uint32_t k = 0; k < rt_cache_config_get(one)->ways; k++)
                        assert_int_equal(rt_cache_line_at(one, s, k), rt_cache_line_at(many, s, k));
                /* and both go on alike after a range flush (holes in sets) */
                assert_int_equal(rt_cache_flush_range(one, span / 4, span / 3, 0), RT_OK);
                assert_int_equal(rt_cache_flush_range(many, span / 4, span / 3, 0), RT_OK);
                for (int k = 0; k < 2000; k++)
                    assert_int_equal(rt_cache_access(one, a[k], w[k], NULL), RT_OK);
                assert_int_equal(rt_cache_access_batch(many, a, w, 2000, NULL), RT_OK);
                assert_memory_equal(rt_cache_stats_get(one), rt_cache_stats_get(many),
                                    sizeof(rt_cache_stats));
                rt_cache_free(one);
                rt_cache_free(many);
            }
        }
    }
    free(a);
    free(w);
}

/* A policy of the engine's recency (as the shipped Lua ones: no hit hook)
 * takes the batch path too, and a failure in the middle of a batch leaves what
 * one access per reference leaves: done, every counter, the message. */
typedef struct {
    int calls, fail_at;
} failing_lru;

static int failing_lru_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)now;
    failing_lru *f = ud;
    if (++f->calls == f->fail_at)
        return rt_err_set(s->err, RT_EINVAL, "policy flru: victim: call %d", f->calls);
    unsigned best = 0;
    for (unsigned w = 1; w < s->ways; w++)
        if (s->last[w] < s->last[best])
            best = w;
    *way = best;
    return RT_OK;
}

/* the same without recency: the hierarchy's general path, way 0 always */
static int failing_first_victim(void *ud, rt_policy_set *s, uint64_t now, unsigned *way)
{
    (void)now;
    failing_lru *f = ud;
    if (++f->calls == f->fail_at)
        return rt_err_set(s->err, RT_EINVAL, "policy ffirst: victim: call %d", f->calls);
    *way = 0;
    return RT_OK;
}

static void test_batch_policy_failure(void **state)
{
    (void)state;
    static const rt_policy_ops flru = {.name = "flru", .recency = 1, .victim = failing_lru_victim};
    static const rt_policy_ops ffirst = {.name = "ffirst", .victim = failing_first_victim};
    enum { N = 30000 };
    uint64_t *a = malloc(N * sizeof *a);
    uint8_t *w = malloc(N);
    uint64_t x = 777;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        a[i] = (x >> 20) % 4 ? (x >> 33) % 16384 : (x >> 33) % 262144;
        w[i] = (x >> 13) % 3 == 0;
    }
    rt_cache *ref = make(4096, 64, 8, &rt_policy_lru, 1);
    for (int i = 0; i < N; i++)
        assert_int_equal(rt_cache_access(ref, a[i], w[i], NULL), RT_OK);
    for (int fail_at = 1; fail_at <= 6002; fail_at += 1500) {
        const rt_policy_ops *ops = fail_at > 3001 ? &ffirst : &flru;
        failing_lru fo = {0, fail_at}, fm = {0, fail_at};
        rt_cache *c[2];
        failing_lru *ud[2] = {&fo, &fm};
        for (int k = 0; k < 2; k++) {
            rt_cache_config cfg = rt_cache_defaults(4096, 64);
            cfg.ways = 8;
            cfg.policy = ops;
            cfg.policy_ud = ud[k];
            cfg.write_back = 1;
            rt_err e;
            assert_int_equal(rt_cache_new(&cfg, &c[k], &e), RT_OK);
        }
        size_t failed_at = N;
        for (size_t i = 0; i < N; i++)
            if (rt_cache_access(c[0], a[i], w[i], NULL) != RT_OK) {
                failed_at = i;
                break;
            }
        assert_true(failed_at < N);
        size_t done;
        assert_int_equal(rt_cache_access_batch(c[1], a, w, N, &done), RT_EINVAL);
        assert_int_equal(done, failed_at);
        assert_string_equal(rt_cache_error(c[1]), rt_cache_error(c[0]));
        assert_memory_equal(rt_cache_stats_get(c[0]), rt_cache_stats_get(c[1]), sizeof(rt_cache_stats));
        /* both go on alike after the failure */
        assert_int_equal(rt_cache_access_batch(c[1], a + done + 1, w + done + 1, N - done - 1, &done), RT_OK);
        for (size_t i = failed_at + 1; i < N; i++)
            assert_int_equal(rt_cache_access(c[0], a[i], w[i], NULL), RT_OK);
        assert_memory_equal(rt_cache_stats_get(c[0]), rt_cache_stats_get(c[1]), sizeof(rt_cache_stats));
        rt_cache_free(c[0]);
        rt_cache_free(c[1]);
    }
    /* without a failure: the figures of the C LRU */
    failing_lru never = {0, -1};
    rt_cache_config cfg = rt_cache_defaults(4096, 64);
    cfg.ways = 8;
    cfg.policy = &flru;
    cfg.policy_ud = &never;
    cfg.write_back = 1;
    rt_cache *m;
    rt_err e;
    assert_int_equal(rt_cache_new(&cfg, &m, &e), RT_OK);
    assert_int_equal(rt_cache_access_batch(m, a, w, N, NULL), RT_OK);
    assert_true(never.calls > 1000);
    assert_memory_equal(rt_cache_stats_get(ref), rt_cache_stats_get(m), sizeof(rt_cache_stats));
    rt_cache_free(m);
    rt_cache_free(ref);
    free(a);
    free(w);
}

static void test_linemap(void **state)
{
    (void)state;
    rt_linemap m;
    assert_int_equal(rt_linemap_init(&m, 4), RT_OK);
    static int8_t present[5000];
    uint64_t x = 5;
    for (int i = 0; i < 200000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t k = (x >> 33) % 5000;
        if ((x >> 20) & 1) {
            int added;
            assert_int_equal(rt_linemap_put(&m, k * 977, (uint32_t)k, &added), RT_OK);
            assert_int_equal(added, !present[k]);
            present[k] = 1;
        } else {
            assert_int_equal(rt_linemap_del(&m, k * 977), present[k]);
            present[k] = 0;
        }
        uint64_t q = (x >> 40) % 5000;
        assert_int_equal(rt_linemap_get(&m, q * 977), present[q] ? (int64_t)q : -1);
    }
    rt_linemap_destroy(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lru_by_hand),
        cmocka_unit_test(test_fifo_by_hand),
        cmocka_unit_test(test_lifo_by_hand),
        cmocka_unit_test(test_lfu_by_hand),
        cmocka_unit_test(test_clock_by_hand),
        cmocka_unit_test(test_clock_skips_used),
        cmocka_unit_test(test_random_reproducible),
        cmocka_unit_test(test_random_fills_empty_first),
        cmocka_unit_test(test_set_associative_by_hand),
        cmocka_unit_test(test_write_back),
        cmocka_unit_test(test_write_through),
        cmocka_unit_test(test_access_range),
        cmocka_unit_test(test_geometry_errors),
        cmocka_unit_test(test_lru_vs_model),
        cmocka_unit_test(test_fifo_vs_model),
        cmocka_unit_test(test_batch_equals_single),
        cmocka_unit_test(test_batch_policy_failure),
        cmocka_unit_test(test_linemap),
        cmocka_unit_test(test_one_lookup_one_check_one_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
