/* Tests of rt_hier's multi-core machines: MESI among the private caches,
 * worked out by hand step by step (a two-core ping-pong on one block, false
 * sharing of one line by two words), the shape of the machine (private and
 * shared levels) and the configuration errors. The slow list model on random
 * traces is tests/lua/hier_mesi_spec.lua. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_hier.h"

static rt_hier *make(const char *spec)
{
    rt_hier_config cfg;
    rt_err e;
    rt_hier_config_init(&cfg);
    assert_int_equal(rt_hier_parse_short(&cfg, spec, &e), RT_OK);
    rt_hier *h;
    int st = rt_hier_new(&cfg, &h, &e);
    if (st != RT_OK)
        fail_msg("%s", e.msg);
    return h;
}

static void ref(rt_hier *h, unsigned core, int kind, uint64_t addr)
{
    rt_memref r = {addr, 4, kind};
    assert_int_equal(rt_hier_ref_core(h, core, &r), RT_OK);
}

/* core's level-1 data cache */
static const rt_hier_stats *l1d(rt_hier *h, unsigned core)
{
    return rt_hier_stats_core(h, core, 0, RT_HIER_DATA);
}

typedef struct step {
    unsigned core;
    int kind;
    char s0, s1;                            /* states after the step */
    uint64_t sent0, recv0, coh0, snoop0;    /* core 0's counts after it */
    uint64_t sent1, recv1, coh1, snoop1;    /* core 1's */
    uint64_t miss0, miss1;                  /* level-1 misses so far */
} step;

static void check_steps(rt_hier *h, const step *s, size_t n, uint64_t a0, uint64_t a1)
{
    for (size_t i = 0; i < n; i++) {
        ref(h, s[i].core, s[i].kind, s[i].core == 0 ? a0 : a1);
        char got[3] = {(char)rt_hier_mesi(h, 0, a0), (char)rt_hier_mesi(h, 1, a1), 0};
        char want[3] = {s[i].s0, s[i].s1, 0};
        if (strcmp(got, want))
            fail_msg("step %zu: states %s, expected %s", i + 1, got, want);
        const rt_hier_stats *c0 = l1d(h, 0), *c1 = l1d(h, 1);
        uint64_t g[10] = {c0->inval_sent, c0->inval_recv, c0->coh_miss, c0->snoop_wb,
                          c1->inval_sent, c1->inval_recv, c1->coh_miss, c1->snoop_wb,
                          c0->miss[0] + c0->miss[1], c1->miss[0] + c1->miss[1]};
        uint64_t w[10] = {s[i].sent0, s[i].recv0, s[i].coh0, s[i].snoop0, s[i].sent1,
                          s[i].recv1, s[i].coh1, s[i].snoop1, s[i].miss0, s[i].miss1};
        for (int k = 0; k < 10; k++)
            if (g[k] != w[k])
                fail_msg("step %zu: count %d is %llu, expected %llu", i + 1, k,
                         (unsigned long long)g[k], (unsigned long long)w[k]);
    }
}

enum { R = RT_REF_READ, W = RT_REF_WRITE };

/* write on 0, read on 1, write on 1, read on 0, read on 0, write on 0, read on 1 */
static void test_ping_pong(void **state)
{
    (void)state;
    rt_hier *h = make("cores=2 l1i:1k/64:2 l1d:1k/64:2 l2:8k/64:4");
    static const step s[] = {
        /* core kind  s0   s1   sent0 recv0 coh0 snp0 sent1 recv1 coh1 snp1 miss0 miss1 */
        {0, W, 'M', 'I', 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, /* cold write: M */
        {1, R, 'S', 'S', 0, 0, 0, 1, 0, 0, 0, 0, 1, 1}, /* 0 writes back for 1 */
        {1, W, 'I', 'M', 0, 1, 0, 1, 1, 0, 0, 0, 1, 1}, /* upgrade: 0's copy goes */
        {0, R, 'S', 'S', 0, 1, 1, 1, 1, 0, 0, 1, 2, 1}, /* coherence miss; 1 writes back */
        {0, R, 'S', 'S', 0, 1, 1, 1, 1, 0, 0, 1, 2, 1}, /* a hit: nothing moves */
        {0, W, 'M', 'I', 1, 1, 1, 1, 1, 1, 0, 1, 2, 1}, /* upgrade the other way */
        {1, R, 'S', 'S', 1, 1, 1, 2, 1, 1, 1, 1, 2, 2}, /* coherence miss on 1 */
    };
    check_steps(h, s, sizeof s / sizeof s[0], 0x1000, 0x1000);
    /* the shared level saw: the cold fill, three fills after snoops, and the
     * three snoop write-backs */
    const rt_hier_stats *l2 = rt_hier_stats_core(h, 0, 1, RT_HIER_UNIFIED);
    assert_int_equal(l2->fetch[RT_REF_READ], 4);
    assert_int_equal(l2->fetch[RT_REF_WRITE], 3);
    assert_int_equal(l2->miss[RT_REF_READ], 1);
    assert_int_equal(l1d(h, 0)->bytes_written, 128);
    assert_int_equal(l1d(h, 1)->bytes_written, 64);
    rt_hier_free(h);
}

/* two words of one 64-byte line, each written by its own core: every write
 * after the first takes the line from the other core */
static void test_false_sharing(void **state)
{
    (void)state;
    rt_hier *h = make("cores=2 l1d:1k/64:2 l1i:1k/64:2 l2:8k/64:4");
    static const step s[] = {
        {0, W, 'M', 'I', 0, 0, 0, 0, 0, 0, 0, 0, 1, 0},
        {1, W, 'I', 'M', 0, 1, 0, 1, 1, 0, 0, 0, 1, 1}, /* 0 writes back, loses it */
        {0, W, 'M', 'I', 1, 1, 1, 1, 1, 1, 0, 1, 2, 1},
        {1, W, 'I', 'M', 1, 2, 1, 2, 2, 1, 1, 1, 2, 2},
        {0, W, 'M', 'I', 2, 2, 2, 2, 2, 2, 1, 2, 3, 2},
    };
    check_steps(h, s, sizeof s / sizeof s[0], 0x2000, 0x2008);
    /* the same writes to words of two different lines: no coherence at all */
    rt_hier *g = make("cores=2 l1d:1k/64:2 l1i:1k/64:2 l2:8k/64:4");
    for (int i = 0; i < 5; i++)
        ref(g, (unsigned)i & 1, W, (i & 1) ? 0x2040 : 0x2000);
    for (unsigned p = 0; p < 2; p++) {
        const rt_hier_stats *c = rt_hier_stats_core(g, p, 0, RT_HIER_DATA);
        assert_int_equal(c->inval_sent + c->inval_recv + c->coh_miss + c->snoop_wb, 0);
        assert_int_equal(c->miss[RT_REF_WRITE], 1);
        assert_int_equal(rt_hier_mesi(g, p, p ? 0x2040 : 0x2000), 'M');
    }
    rt_hier_free(g);
    rt_hier_free(h);
}

/* a private level 2 of write-back lines: core 0's dirty line is in its level 1
 * and (after an eviction) in its level 2; a read by core 1 makes both answer */
static void test_private_l2(void **state)
{
    (void)state;
    /* direct-mapped level 1 of 2 lines: 0x0 and 0x80 collide */
    rt_hier *h = make("cores=2 l1i:128/64:1 l1d:128/64:1 l2:1k/64:4 l3:8k/64:8");
    ref(h, 0, W, 0x0);  /* M in core 0's level 1 */
    ref(h, 0, W, 0x80); /* evicts 0x0: dirty into core 0's level 2 */
    assert_int_equal(rt_hier_mesi(h, 0, 0x0), 'M');
    assert_true(rt_hier_probe_core(h, 0, 1, RT_HIER_UNIFIED, 0x0));
    assert_false(rt_hier_probe_core(h, 0, 0, RT_HIER_DATA, 0x0));
    ref(h, 1, R, 0x0);
    assert_int_equal(rt_hier_mesi(h, 0, 0x0), 'S');
    assert_int_equal(rt_hier_mesi(h, 1, 0x0), 'S');
    const rt_hier_stats *l2 = rt_hier_stats_core(h, 0, 1, RT_HIER_UNIFIED);
    assert_int_equal(l2->snoop_wb, 1);
    assert_int_equal(l1d(h, 0)->snoop_wb, 0);
    /* core 1's store removes the block from both of core 0's levels */
    ref(h, 1, W, 0x0);
    assert_false(rt_hier_probe_core(h, 0, 1, RT_HIER_UNIFIED, 0x0));
    assert_int_equal(l2->inval_recv, 1);
    assert_int_equal(l1d(h, 1)->inval_sent, 1);
    assert_int_equal(rt_hier_mesi(h, 1, 0x0), 'M');
    /* an E line: read alone, then written without a message */
    ref(h, 1, R, 0x4000);
    assert_int_equal(rt_hier_mesi(h, 1, 0x4000), 'E');
    ref(h, 1, W, 0x4000);
    assert_int_equal(rt_hier_mesi(h, 1, 0x4000), 'M');
    assert_int_equal(l1d(h, 1)->inval_sent, 1);
    rt_hier_free(h);
}

/* each spec (bad[i][0]) is refused with a message saying bad[i][1] */
static void check_bad(const char *const (*bad)[2], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        rt_hier_config cfg;
        rt_err e;
        rt_hier_config_init(&cfg);
        int st = rt_hier_parse_short(&cfg, bad[i][0], &e);
        if (st == RT_OK)
            st = rt_hier_check(&cfg, &e);
        assert_int_equal(st, RT_EINVAL);
        if (!strstr(e.msg, bad[i][1]))
            fail_msg("'%s': message '%s' does not say '%s'", bad[i][0], e.msg, bad[i][1]);
    }
}

/* an exclusive level 2 under a direct-mapped level 1 of two sets, by hand */
static void test_exclusive(void **state)
{
    (void)state;
    rt_hier *h = make("l1:128/64:1 l2:256/64:2:exclusive");
    const rt_hier_stats *l2 = rt_hier_stats_core(h, 0, 1, RT_HIER_UNIFIED);
    ref(h, 0, R, 0x0);   /* both miss; level 2 keeps nothing */
    ref(h, 0, R, 0x40);
    assert_false(rt_hier_probe(h, 1, RT_HIER_UNIFIED, 0x0));
    ref(h, 0, R, 0x80);  /* evicts 0x0 (clean) into level 2 */
    assert_true(rt_hier_probe(h, 1, RT_HIER_UNIFIED, 0x0));
    assert_int_equal(l2->victim_fills, 1);
    ref(h, 0, R, 0x0);   /* a level-2 hit: the line goes up and leaves level 2; 0x80 comes down */
    assert_false(rt_hier_probe(h, 1, RT_HIER_UNIFIED, 0x0));
    assert_true(rt_hier_probe(h, 1, RT_HIER_UNIFIED, 0x80));
    assert_int_equal(l2->fetch[RT_REF_READ], 4);
    assert_int_equal(l2->miss[RT_REF_READ], 3);
    ref(h, 0, W, 0x40);  /* a level-1 hit */
    ref(h, 0, R, 0x100); /* 0x0 down again */
    ref(h, 0, R, 0x140); /* evicts dirty 0x40: written into level 2 */
    ref(h, 0, R, 0x40);  /* hit in level 2, dirty: written to memory as it goes up */
    assert_int_equal(rt_hier_copyback_all(h), RT_OK);
    assert_int_equal(l2->fetch[RT_REF_READ], 7);
    assert_int_equal(l2->miss[RT_REF_READ], 5);
    assert_int_equal(l2->fetch[RT_REF_WRITE], 1);
    assert_int_equal(l2->miss[RT_REF_WRITE], 1);
    assert_int_equal(l2->victim_fills, 4);
    assert_int_equal(l2->bytes_read, 5 * 64);
    assert_int_equal(l2->bytes_written, 64);
    const rt_hier_stats *l1 = rt_hier_stats_core(h, 0, 0, RT_HIER_UNIFIED);
    assert_int_equal(l1->bytes_written, 5 * 64); /* four clean victims and one dirty */
    rt_hier_free(h);
    /* what an exclusive cache needs */
    static const char *const bad[][2] = {
        {"l1:1k/64:2:exclusive", "a level above"},
        {"l1:1k/32:2 l2:8k/64:4:exclusive", "block size (64)"},
        {"l1:1k/64:2:wb=n:wa=n l2:8k/64:4:exclusive", "write back"},
        {"l1:1k/64:2 l2:8k/64:4:exclusive:inclusive", "both inclusive and exclusive"},
        {"l1:1k/64:2 l2:8k/64:4:exclusive:ccc", "an exclusive cache fetches on demand"},
    };
    check_bad(bad, sizeof bad / sizeof bad[0]);
}

static void test_config(void **state)
{
    (void)state;
    rt_hier_config cfg;
    rt_err e;
    char buf[2048];
    rt_hier_config_init(&cfg);
    assert_int_equal(rt_hier_parse_short(&cfg, "cores=4 l1i:32k/64:8 l1d:32k/64:8 l2:512k/64:8 l3:8m/64:16", &e),
                     RT_OK);
    assert_int_equal(rt_hier_check(&cfg, &e), RT_OK);
    assert_int_equal(cfg.cores, 4);
    assert_int_equal(rt_hier_private_levels(&cfg), 2);
    rt_hier_describe_buf(&cfg, buf, sizeof buf);
    assert_non_null(strstr(buf, "4 cores, MESI"));
    assert_non_null(strstr(buf, "l2-unified: 512K, 64-byte blocks, 8-way, 1024 sets, lru, fetch demand, "
                                "write-allocate always, write-back always, private (one per core)"));
    assert_non_null(strstr(buf, "l3-unified: 8M, 64-byte blocks, 16-way, 8192 sets, lru, fetch demand, "
                                "write-allocate always, write-back always, shared"));
    /* level 2 marked shared: only level 1 is private */
    rt_hier_config_init(&cfg);
    assert_int_equal(rt_hier_parse_short(&cfg, "cores=2 l1:32k/64:8 l2:1m/64:8:shared l3:8m/64:16", &e), RT_OK);
    assert_int_equal(rt_hier_private_levels(&cfg), 1);
    /* Dinero IV's form with retrace's -cores */
    rt_hier_config_init(&cfg);
    const char *argv[] = {"-cores", "3", "-l1-usize", "1k", "-l1-ubsize", "64", "-l2-usize", "8k",
                          "-l2-ubsize", "64", "-l2-uprivate"};
    assert_int_equal(rt_hier_parse_dinero(&cfg, 11, argv, &e), RT_OK);
    assert_int_equal(cfg.cores, 3);
    assert_int_equal(rt_hier_private_levels(&cfg), 2);
    /* errors */
    static const char *const bad[][2] = {
        {"cores=2 l1d:1k/64:2 l1i:1k/32:2 l2:8k/64:4", "one block size"},
        {"cores=2 l1:1k/64/16:2 l2:8k/64:4", "no sub-blocks"},
        {"cores=2 l1:1k/64:2:fetch=a l2:8k/64:4", "fetch on demand"},
        {"cores=2 l1:1k/64:2:shared l2:8k/64:4:shared=0", "private below a shared level"},
        {"cores=65 l1:1k/64:2", "cores"},
    };
    check_bad(bad, sizeof bad / sizeof bad[0]);
    /* a switch list out of order */
    rt_hier *h = make("cores=2 l1:1k/64:2 l2:8k/64:4");
    uint64_t sw[] = {5, 1, 3, 0};
    assert_int_equal(rt_hier_set_cores(h, sw, 2, &e), RT_EINVAL);
    rt_hier_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ping_pong),
        cmocka_unit_test(test_false_sharing),
        cmocka_unit_test(test_private_l2),
        cmocka_unit_test(test_exclusive),
        cmocka_unit_test(test_config),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
