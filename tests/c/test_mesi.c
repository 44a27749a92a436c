/*
 * test_mesi.c - the coherence rule (rt_mesi.h) and its two users: rt_hier's
 * snooping cores and MemSpy's directory must give the same misses and
 * invalidations on the same references.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "rt_hier.h"
#include "rt_memspy.h"
#include "rt_mesi.h"

/* the rule, case by case, as MESI's transition table gives it */
static void test_rule_table(void **state)
{
    (void)state;
    static const char states[] = "MESI";
    /* snoop needed: a load only from I, a store from E, S and I */
    static const int snoop_load[] = {0, 0, 0, 1}, snoop_store[] = {0, 1, 1, 1};
    /* another core's answer: M writes back; a store removes any copy */
    static const unsigned ans_load[] = {RT_MESI_WRITEBACK, 0, 0, 0};
    static const unsigned ans_store[] = {RT_MESI_WRITEBACK | RT_MESI_INVALIDATE, RT_MESI_INVALIDATE,
                                         RT_MESI_INVALIDATE, 0};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(rt_mesi_snoops(states[i], 0), snoop_load[i]);
        assert_int_equal(rt_mesi_snoops(states[i], 1), snoop_store[i]);
        assert_int_equal(rt_mesi_answer(states[i], 0), ans_load[i]);
        assert_int_equal(rt_mesi_answer(states[i], 1), ans_store[i]);
    }
    assert_int_equal(rt_mesi_after(1, 1), 'M');
    assert_int_equal(rt_mesi_after(1, 0), 'M');
    assert_int_equal(rt_mesi_after(0, 1), 'S');
    assert_int_equal(rt_mesi_after(0, 0), 'E');
}

static uint64_t rnd_state = 0x2545F4914F6CDD1Dull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

/* P cores, each a private 1 KiB 4-way LRU write-back cache of 32-byte lines,
 * on random loads and stores over 96 lines (so sets overflow and cores share
 * lines): per-core misses and the invalidations agree between the engines */
static void check_engines(unsigned P, unsigned refs)
{
    rt_err err;
    rt_hier_config mcfg;
    rt_hier_config_single(&mcfg, 1024, 32, 4);
    rt_memspy_config mc = {.procs = (int)P, .latency = 50};
    rt_memspy *m = rt_memspy_new(&mc, &mcfg, &err);
    assert_non_null(m);

    rt_hier_config hc;
    rt_hier_config_init(&hc);
    char spec[64];
    snprintf(spec, sizeof spec, "cores=%u l1:1k/32:4:shared=0", P);
    assert_int_equal(rt_hier_parse_short(&hc, spec, &err), RT_OK);
    rt_hier *h;
    assert_int_equal(rt_hier_new(&hc, &h, &err), RT_OK);

    for (unsigned i = 0; i < refs; i++) {
        uint64_t x = rnd();
        unsigned core = (unsigned)(x % P);
        int write = (x >> 8) % 3 == 0;
        uint64_t addr = 0x1000 + ((x >> 16) % 96) * 32 + ((x >> 24) % 8) * 4;
        assert_int_equal(rt_memspy_ref(m, (int)core, addr, 4, write, 0, 0, &err), RT_OK);
        rt_memref r = {addr, 4, write ? RT_REF_WRITE : RT_REF_READ};
        assert_int_equal(rt_hier_ref_core(h, core, &r), RT_OK);
    }

    rt_memspy_totals t;
    rt_memspy_get_totals(m, &t);
    uint64_t misses = 0, inval = 0, coh = 0;
    for (unsigned c = 0; c < P; c++) {
        const rt_hier_stats *s = rt_hier_stats_core(h, c, 0, RT_HIER_UNIFIED);
        assert_non_null(s);
        misses += s->miss[0] + s->miss[1];
        inval += s->inval_recv;
        coh += s->coh_miss;
    }
    assert_int_equal(t.c.read_misses + t.c.write_misses, misses);
    assert_int_equal(t.invalidations, inval);
    assert_true(t.invalidations > 0);
    assert_int_equal(t.c.invalidation, coh);
    rt_memspy_free(m);
    rt_hier_free(h);
}

static void test_engines_agree(void **state)
{
    (void)state;
    check_engines(2, 200000);
    check_engines(4, 200000);
    check_engines(8, 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_table),
        cmocka_unit_test(test_engines_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
