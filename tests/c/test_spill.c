/* rt_spill: records appended one by one and in runs, across many blocks (so most
 * go through the temporary file), read back at random places and lengths,
 * against a plain array; ranges past the end refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt_error.h"
#include "rt_spill.h"

typedef struct {
    int64_t k;
    double x;
    char c[8];
} rec;

static rec make(int64_t k)
{
    rec r;
    memset(&r, 0, sizeof r);
    r.k = k;
    r.x = (double)k * 0.5 - 3;
    snprintf(r.c, sizeof r.c, "%04d", (int)(k % 10000));
    return r;
}

static void test_against_array(void **state)
{
    (void)state;
    srand(25);
    for (size_t block = 1; block <= 1000; block *= 7) {
        rt_spill *s = rt_spill_new(sizeof(rec), block);
        assert_non_null(s);
        int64_t n = 0, want = 20000;
        rec *all = malloc((size_t)want * sizeof *all);
        assert_non_null(all);
        for (int64_t i = 0; i < want; i++)
            all[i] = make(i);
        while (n < want) {
            /* runs of 1 .. 3 * block records, so runs cross block ends */
            int64_t k = 1 + rand() % (int64_t)(3 * block);
            if (k > want - n)
                k = want - n;
            assert_int_equal(RT_OK, rt_spill_append(s, all + n, (size_t)k));
            n += k;
            assert_int_equal(n, rt_spill_count(s));
            /* the file holds whole blocks only */
            assert_int_equal(0, rt_spill_file_bytes(s) % (int64_t)(block * sizeof(rec)));
            assert_true(rt_spill_file_bytes(s) / (int64_t)sizeof(rec) <= n);
            assert_true(n - rt_spill_file_bytes(s) / (int64_t)sizeof(rec) <= (int64_t)block);
            /* a read of the newest records between appends (the file then takes more) */
            rec last;
            assert_int_equal(RT_OK, rt_spill_read(s, n - 1, 1, &last));
            assert_memory_equal(&all[n - 1], &last, sizeof last);
        }
        rec buf[300];
        for (int trial = 0; trial < 2000; trial++) {
            int64_t first = rand() % want;
            size_t len = (size_t)(rand() % 300);
            if ((int64_t)len > want - first)
                len = (size_t)(want - first);
            assert_int_equal(RT_OK, rt_spill_read(s, first, len, buf));
            assert_memory_equal(all + first, buf, len * sizeof *buf);
        }
        assert_int_equal(RT_EINVAL, rt_spill_read(s, want - 1, 2, buf));
        assert_int_equal(RT_EINVAL, rt_spill_read(s, -1, 1, buf));
        assert_int_equal(RT_OK, rt_spill_read(s, want, 0, buf));
        rt_spill_free(s);
        free(all);
    }
}

static void test_bad_sizes(void **state)
{
    (void)state;
    assert_null(rt_spill_new(0, 16));
    assert_null(rt_spill_new(16, 0));
    assert_null(rt_spill_new(SIZE_MAX / 2, 4));
    rt_spill_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_array),
        cmocka_unit_test(test_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
