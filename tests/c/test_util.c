/* Tests of core/util: error formatting and the streaming line reader, checked
 * against a naive whole-file split on random input. */
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

#include "rt_error.h"
#include "rt_lines.h"
#include "rt_mem.h"

static void test_strerror_table(void **state)
{
    (void)state;
    assert_string_equal(rt_strerror(RT_OK), "success");
    assert_string_equal(rt_strerror(RT_EFORMAT), "malformed input");
    assert_string_equal(rt_strerror(-1), "unknown error");
    assert_string_equal(rt_strerror(RT_STATUS_COUNT), "unknown error");
}

static void test_err_at(void **state)
{
    (void)state;
    rt_err e;
    rt_err_clear(&e);
    assert_int_equal(e.status, RT_OK);
    int st = rt_err_at(&e, RT_EFORMAT, "trace.shm", 12, "store event: row %d outside matrix %d", 40, 2);
    assert_int_equal(st, RT_EFORMAT);
    assert_string_equal(e.msg, "trace.shm:12: store event: row 40 outside matrix 2");
    rt_err_at(&e, RT_EIO, "x", 0, "gone");
    assert_string_equal(e.msg, "x: gone");
    assert_int_equal(rt_err_set(NULL, RT_ERANGE, "ignored"), RT_ERANGE);
}

static void test_missing_file(void **state)
{
    (void)state;
    rt_err e;
    rt_lines *r = rt_lines_open("/nonexistent/file.trace", &e);
    assert_null(r);
    assert_int_equal(e.status, RT_EIO);
    assert_string_equal(e.msg, "/nonexistent/file.trace: No such file or directory");
    r = rt_lines_open("/tmp", &e);
    assert_null(r);
    assert_string_equal(e.msg, "/tmp: is a directory");
}

static void test_small_cases(void **state)
{
    (void)state;
    const char *data = "alpha\r\n\nbeta gamma\nlast-without-newline";
    char *path = rt_test_write(data, strlen(data));
    rt_err e;
    rt_lines *r = rt_lines_open(path, &e);
    assert_non_null(r);
    const char *l;
    size_t n;
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_OK);
    assert_string_equal(l, "alpha");
    assert_int_equal(n, 5);
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_OK);
    assert_int_equal(n, 0);
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_OK);
    assert_string_equal(l, "beta gamma");
    assert_int_equal(rt_lines_lineno(r), 3);
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_OK);
    assert_string_equal(l, "last-without-newline");
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_EEOF);
    assert_int_equal(rt_lines_offset(r), strlen(data));
    assert_int_equal(rt_lines_size(r), strlen(data));
    /* a second pass gives the same first line */
    assert_int_equal(rt_lines_rewind(r, &e), RT_OK);
    assert_int_equal(rt_lines_next(r, &l, &n, &e), RT_OK);
    assert_string_equal(l, "alpha");
    assert_int_equal(rt_lines_lineno(r), 1);
    rt_lines_free(r);
    rt_test_remove(path);
    rt_lines_free(NULL);
}

/* Random lines, some longer than the 1 MiB chunk, against a plain split. */
static void test_random_against_split(void **state)
{
    (void)state;
    srand(12345);
    size_t cap = 6u << 20, n = 0;
    char *data = malloc(cap);
    assert_non_null(data);
    while (n < cap - (3u << 20)) {
        size_t len = (rand() % 50 == 0) ? (size_t)(rand() % (1500000)) : (size_t)(rand() % 80);
        for (size_t i = 0; i < len; i++)
            data[n++] = (char)('a' + rand() % 26);
        data[n++] = '\n';
    }
    char *path = rt_test_write(data, n);
    rt_err e;
    rt_lines *r = rt_lines_open(path, &e);
    assert_non_null(r);
    size_t pos = 0;
    unsigned long lines = 0;
    const char *l;
    size_t len;
    while (rt_lines_next(r, &l, &len, &e) == RT_OK) {
        char *nl = memchr(data + pos, '\n', n - pos);
        assert_non_null(nl);
        size_t want = (size_t)(nl - (data + pos));
        assert_int_equal(len, want);
        assert_memory_equal(l, data + pos, want);
        assert_int_equal(l[len], '\0');
        pos += want + 1;
        lines++;
        assert_int_equal(rt_lines_lineno(r), lines);
    }
    assert_int_equal(pos, n);
    rt_lines_free(r);
    rt_test_remove(path);
    free(data);
}

static void test_tokens_and_numbers(void **state)
{
    (void)state;
    const char *line = "  1 -42\t3.5e2 0xff  zz ";
    const char *cur = line, *end = line + strlen(line);
    rt_span t;
    long v;
    double d;
    uint64_t h;
    assert_true(rt_tok_next(&cur, end, &t));
    assert_true(rt_span_long(t, &v));
    assert_int_equal(v, 1);
    assert_true(rt_tok_next(&cur, end, &t));
    assert_true(rt_span_long(t, &v));
    assert_int_equal(v, -42);
    assert_true(rt_tok_next(&cur, end, &t));
    assert_false(rt_span_long(t, &v));
    assert_true(rt_span_double(t, &d));
    assert_true(d == 350.0);
    assert_true(rt_tok_next(&cur, end, &t));
    assert_true(rt_span_hex(t, &h));
    assert_int_equal(h, 255);
    assert_true(rt_tok_next(&cur, end, &t));
    assert_false(rt_span_double(t, &d));
    assert_false(rt_span_hex(t, &h));
    assert_false(rt_tok_next(&cur, end, &t));
    rt_span big = {"123456789012345678901", 21};
    assert_false(rt_span_long(big, &v)); /* overflows long */
    rt_span minus = {"-", 1};
    assert_false(rt_span_long(minus, &v));
    /* not finite: refused, so no reader takes inf or nan for a time */
    const char *nonfinite[] = {"inf", "-inf", "Infinity", "nan", "NaN", "1e309", "-1e999"};
    for (size_t i = 0; i < sizeof nonfinite / sizeof *nonfinite; i++) {
        rt_span s = {nonfinite[i], strlen(nonfinite[i])};
        assert_false(rt_span_double(s, &d));
    }
    rt_span tiny = {"1e-320", 6}; /* subnormal but finite */
    assert_true(rt_span_double(tiny, &d));
}

/* A line past RT_LINES_MAX is an error, not unbounded memory; long ones below it are read. */
static void test_line_too_long(void **state)
{
    (void)state;
    rt_err err;
    rt_lines *r = rt_lines_open("/dev/zero", &err); /* one endless line of NULs */
    assert_non_null(r);
    const char *line;
    size_t len;
    assert_int_equal(rt_lines_next(r, &line, &len, &err), RT_EFORMAT);
    assert_string_equal(err.msg, "/dev/zero:1: line longer than 64 MiB");
    rt_lines_free(r);
    FILE *fp = tmpfile();
    assert_non_null(fp);
    fputs("a\n", fp);
    for (int i = 0; i < 3 << 20; i++)
        fputc('x', fp);
    fputs("\nb", fp);
    rewind(fp);
    r = rt_lines_from_stream(fp, "long", &err);
    assert_int_equal(rt_lines_next(r, &line, &len, &err), RT_OK);
    assert_int_equal(rt_lines_next(r, &line, &len, &err), RT_OK);
    assert_int_equal(len, 3 << 20);
    assert_int_equal(rt_lines_next(r, &line, &len, &err), RT_OK);
    assert_string_equal(line, "b");
    assert_int_equal(rt_lines_next(r, &line, &len, &err), RT_EEOF);
    rt_lines_free(r);
    fclose(fp);
}

/* rt_grow doubles from 8 up to what is needed, and refuses sizes whose bytes overflow. */
static void test_grow(void **state)
{
    (void)state;
    int *a = NULL;
    size_t cap = 0;
    assert_int_equal(rt_grow((void **)&a, &cap, 1, sizeof *a), RT_OK);
    assert_int_equal(cap, 8);
    a[7] = 7;
    assert_int_equal(rt_grow((void **)&a, &cap, 8, sizeof *a), RT_OK);
    assert_int_equal(cap, 8);
    assert_int_equal(rt_grow((void **)&a, &cap, 33, sizeof *a), RT_OK);
    assert_int_equal(cap, 64);
    assert_int_equal(a[7], 7);
    int *before = a;
    assert_int_equal(rt_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof *a), RT_ENOMEM);
    assert_int_equal(rt_grow((void **)&a, &cap, SIZE_MAX, 1), RT_ENOMEM);
    assert_int_equal(rt_resize((void **)&a, SIZE_MAX / 2, sizeof *a), RT_ENOMEM);
    assert_ptr_equal(a, before);
    assert_int_equal(cap, 64);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strerror_table),
        cmocka_unit_test(test_err_at),
        cmocka_unit_test(test_missing_file),
        cmocka_unit_test(test_small_cases),
        cmocka_unit_test(test_random_against_split),
        cmocka_unit_test(test_tokens_and_numbers),
        cmocka_unit_test(test_line_too_long),
        cmocka_unit_test(test_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
