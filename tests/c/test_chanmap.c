/* Tests of core/util/rt_chanmap: the channel table of the replay and the
 * pre-pass, against a plain list on random keys (growth included). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_chanmap.h"

typedef struct item {
    rt_chankey k;
    int64_t count;
} item;

static void test_random_against_list(void **state)
{
    (void)state;
    enum { N = 20000, KEYS = 3000 };
    int (*keys)[4] = malloc(KEYS * sizeof *keys);
    int64_t *model = calloc(KEYS, sizeof *model);
    assert_non_null(keys);
    srand(11);
    for (int i = 0; i < KEYS; i++) {
        keys[i][0] = rand() % 64 - 1; /* -1: a negative processor or communicator is a key too */
        keys[i][1] = rand() % 64;
        keys[i][2] = rand() % 3 - 1;
        keys[i][3] = rand() % 40 - 20;
        for (int j = 0; j < i; j++) /* distinct keys: a repeat takes another tag */
            if (!memcmp(keys[i], keys[j], sizeof keys[i])) {
                keys[i][3] = 1000 + i;
                break;
            }
    }
    rt_chanmap m;
    rt_chanmap_init(&m, sizeof(item));
    for (int n = 0; n < N; n++) {
        int i = rand() % KEYS;
        item *it = rt_chanmap_get(&m, keys[i][0], keys[i][1], keys[i][2], keys[i][3]);
        assert_non_null(it);
        assert_int_equal(it->k.src, keys[i][0]);
        assert_int_equal(it->k.dst, keys[i][1]);
        assert_int_equal(it->k.comm, keys[i][2]);
        assert_int_equal(it->k.tag, keys[i][3]);
        assert_int_equal(it->count, model[i]); /* a new item starts at zero */
        it->count++;
        model[i]++;
    }
    size_t used = 0;
    int64_t sum = 0;
    for (size_t s = 0; s < m.cap; s++) {
        item *it = rt_chanmap_slot(&m, s);
        if (it) {
            used++;
            sum += it->count;
        }
    }
    size_t distinct = 0;
    for (int i = 0; i < KEYS; i++)
        distinct += model[i] > 0;
    assert_int_equal(used, distinct);
    assert_int_equal(m.n, distinct);
    assert_int_equal(sum, N);
    assert_true(m.cap >= 2 * m.n); /* kept at most half full */
    rt_chanmap_free(&m);
    assert_int_equal(m.cap, 0);
    free(keys);
    free(model);
}

/* drop items whose count is even (ud counts the calls) */
static int drop_even(void *p, void *ud)
{
    ++*(int *)ud;
    return ((item *)p)->count % 2 == 0;
}

/* Sweeps between random gets: the kept items keep their counts and stay findable,
 * the dropped ones come back new (count 0), as a plain list says. */
static void test_sweep_against_list(void **state)
{
    (void)state;
    enum { N = 30000, KEYS = 2000 };
    int64_t *model = calloc(KEYS, sizeof *model);
    char *present = calloc(KEYS, 1);
    assert_non_null(model);
    rt_chanmap m;
    rt_chanmap_init(&m, sizeof(item));
    srand(5);
    for (int n = 0; n < N; n++) {
        int i = rand() % KEYS;
        item *it = rt_chanmap_get(&m, i % 37, i / 37, 0, i * 7);
        assert_non_null(it);
        assert_int_equal(it->count, present[i] ? model[i] : 0);
        it->count++;
        model[i] = it->count;
        present[i] = 1;
        if (n % 997 == 996) {
            int calls = 0;
            size_t before = m.n, cap = m.cap;
            size_t dropped = rt_chanmap_sweep(&m, drop_even, &calls);
            assert_int_equal(calls, (int)before); /* every item asked once */
            size_t expect = 0;
            for (int k = 0; k < KEYS; k++)
                if (present[k] && model[k] % 2 == 0) {
                    expect++;
                    present[k] = 0;
                }
            assert_int_equal(dropped, expect);
            assert_int_equal(m.n, before - dropped);
            assert_int_equal(m.cap, cap);
        }
    }
    size_t used = 0;
    for (size_t s = 0; s < m.cap; s++)
        used += rt_chanmap_slot(&m, s) != NULL;
    size_t live = 0;
    for (int k = 0; k < KEYS; k++)
        live += present[k];
    assert_int_equal(used, live);
    assert_int_equal(m.n, live);
    rt_chanmap_free(&m);
    free(model);
    free(present);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_list),
        cmocka_unit_test(test_sweep_against_list),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
