/*
 * test_strmap.c - the string-keyed hash map (core/util/rt_strmap.c) against a
 * plain array searched linearly, on random puts, gets and removes over a small
 * key space (so keys collide, come back after removal and probe runs wrap).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_strmap.h"

#define NKEYS 3000

/* The model: present[k] and val[k] for key number k. */
static int present[NKEYS];
static int64_t val[NKEYS];

/* Key number k as bytes: scope k % 3, text of varying length (some with NUL bytes inside). */
static size_t key_of(int k, char *buf, int64_t *scope)
{
    *scope = k % 3;
    size_t n = (size_t)snprintf(buf, 64, "key-%d", k / 3);
    if (k % 7 == 0) {
        buf[n++] = '\0';
        buf[n++] = 'z';
    }
    return n;
}

static void test_against_model(void **state)
{
    (void)state;
    rt_strmap *m = rt_strmap_new();
    assert_non_null(m);
    memset(present, 0, sizeof present);
    srand(17);
    size_t count = 0;
    for (int step = 0; step < 200000; step++) {
        int k = rand() % NKEYS, op = rand() % 3;
        char buf[64];
        int64_t scope;
        size_t n = key_of(k, buf, &scope);
        if (op == 0) {
            int created;
            int64_t *v = rt_strmap_put(m, scope, buf, n, &created);
            assert_non_null(v);
            assert_int_equal(created, !present[k]);
            if (created) {
                assert_int_equal(*v, 0);
                present[k] = 1;
                count++;
            } else {
                assert_int_equal(*v, val[k]);
            }
            *v = val[k] = step;
        } else if (op == 1) {
            assert_int_equal(rt_strmap_remove(m, scope, buf, n), present[k]);
            count -= (size_t)present[k];
            present[k] = 0;
        } else {
            int64_t *v = rt_strmap_get(m, scope, buf, n);
            if (present[k]) {
                assert_non_null(v);
                assert_int_equal(*v, val[k]);
            } else {
                assert_null(v);
            }
        }
        assert_int_equal(rt_strmap_count(m), count);
    }
    /* every key still agrees at the end */
    for (int k = 0; k < NKEYS; k++) {
        char buf[64];
        int64_t scope;
        size_t n = key_of(k, buf, &scope);
        int64_t *v = rt_strmap_get(m, scope, buf, n);
        assert_int_equal(v != NULL, present[k]);
        if (v)
            assert_int_equal(*v, val[k]);
    }
    rt_strmap_free(m);
    rt_strmap_free(NULL);
}

static void test_scopes_and_prefixes(void **state)
{
    (void)state;
    rt_strmap *m = rt_strmap_new();
    assert_non_null(m);
    *rt_strmap_put(m, 0, "3", 1, NULL) = 10;
    *rt_strmap_put(m, 1, "3", 1, NULL) = 11;
    *rt_strmap_put(m, 0, "33", 2, NULL) = 12;
    *rt_strmap_put(m, 0, "", 0, NULL) = 13;
    assert_int_equal(*rt_strmap_get(m, 0, "3", 1), 10);
    assert_int_equal(*rt_strmap_get(m, 1, "3", 1), 11);
    assert_int_equal(*rt_strmap_get(m, 0, "33", 2), 12);
    assert_int_equal(*rt_strmap_get(m, 0, "", 0), 13);
    assert_null(rt_strmap_get(m, 2, "3", 1));
    assert_null(rt_strmap_get(m, 0, "333", 3));
    assert_int_equal(rt_strmap_count(m), 4);
    assert_int_equal(rt_strmap_remove(m, 1, "3", 1), 1);
    assert_int_equal(rt_strmap_remove(m, 1, "3", 1), 0);
    assert_int_equal(*rt_strmap_get(m, 0, "3", 1), 10);
    assert_int_equal(rt_strmap_count(m), 3);
    rt_strmap_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_model),
        cmocka_unit_test(test_scopes_and_prefixes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
