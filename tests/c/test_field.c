/* Tests of core/util/rt_field (the field rules every reader applies) and
 * core/util/rt_input (a one-time input's first bytes handed to its reader):
 * hand-worked cases, and checked arithmetic against 128-bit arithmetic on
 * random operands. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_test.h"

#include "rt_detect.h"
#include "rt_field.h"
#include "rt_input.h"
#include "rt_lines.h"

static void test_name(void **state)
{
    (void)state;
    rt_err e;
    assert_int_equal(rt_field_name("abc", 3, "t.shm", 4, "info event: field TEXT", &e), RT_OK);
    assert_int_equal(rt_field_name("", 0, "t.shm", 4, "x", &e), RT_OK);
    /* the NUL at the start, in the middle and at the end: each refused, the name shown escaped */
    static const struct { const char *s; size_t n; const char *shown; } cases[] = {
        {"\0ab", 3, "'\\x00ab'"}, {"a\0b", 3, "'a\\x00b'"}, {"ab\0", 3, "'ab\\x00'"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(rt_field_name(cases[i].s, cases[i].n, "t.msp", 7, "name", &e), RT_EFORMAT);
        char want[128];
        snprintf(want, sizeof want, "t.msp:7: name: %s holds a NUL byte", cases[i].shown);
        assert_string_equal(e.msg, want);
    }
}

static void test_count(void **state)
{
    (void)state;
    rt_err e;
    assert_int_equal(rt_field_count(0, "a.prv", 3, "size", &e), RT_OK);
    assert_int_equal(rt_field_count(1e18, "a.prv", 3, "size", &e), RT_OK);
    assert_int_equal(rt_field_count(-1, "a.prv", 3, "size", &e), RT_EFORMAT);
    assert_string_equal(e.msg, "a.prv:3: size: -1 is negative");
    assert_int_equal(rt_field_count(-0.5, "a.trace", 9, "Value", &e), RT_EFORMAT);
    assert_string_equal(e.msg, "a.trace:9: Value: -0.5 is negative");
    assert_int_equal(rt_field_count(0.0 / 0.0, "a.trace", 9, "Size", &e), RT_EFORMAT);
}

static void test_timespan(void **state)
{
    (void)state;
    rt_err e;
    rt_timespan s = {0};
    assert_int_equal(rt_timespan_add(&s, 5, "t", 1, "time", &e), RT_OK);
    assert_int_equal(rt_timespan_add(&s, -3, "t", 2, "time", &e), RT_OK);
    assert_int_equal(rt_timespan_add(&s, 1e308, "t", 3, "time", &e), RT_OK); /* 1e308 + 3 fits */
    assert_true(s.lo == -3 && s.hi == 1e308);
    /* -1e308 is 2e308 from 1e308: infinite */
    assert_int_equal(rt_timespan_add(&s, -1e308, "t", 4, "time", &e), RT_EFORMAT);
    assert_non_null(strstr(e.msg, "t:4: time: -1e+308 is too far before the time 1e+308"));
    assert_true(s.lo == -3); /* the refused stamp is not kept */
    /* the other direction, and the largest finite values */
    rt_timespan u = {0};
    assert_int_equal(rt_timespan_add(&u, -DBL_MAX, "u", 1, "Time", &e), RT_OK);
    assert_int_equal(rt_timespan_add(&u, 0, "u", 2, "Time", &e), RT_OK);
    assert_int_equal(rt_timespan_add(&u, DBL_MAX, "u", 3, "Time", &e), RT_EFORMAT);
    assert_non_null(strstr(e.msg, "u:3: Time:"));
    assert_non_null(strstr(e.msg, "too far after"));
    /* not finite at all */
    rt_timespan v = {0};
    assert_int_equal(rt_timespan_add(&v, 1.0 / 0.0, "v", 1, "time", &e), RT_EFORMAT);
    assert_int_equal(v.any, 0);
}

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void test_checked_arith(void **state)
{
    (void)state;
    uint64_t r;
    assert_int_equal(rt_mul_u64(1ull << 62, 4, &r), 0);
    assert_true(r == UINT64_MAX);
    assert_int_equal(rt_mul_u64(1ull << 31, 1ull << 32, &r), 1);
    assert_true(r == 1ull << 63);
    assert_int_equal(rt_mul_u64(0, UINT64_MAX, &r), 1);
    assert_int_equal(rt_add_u64(UINT64_MAX, 1, &r), 0);
    assert_int_equal(rt_add_u64(UINT64_MAX - 1, 1, &r), 1);
    /* against 128-bit arithmetic, operands of every magnitude */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        uint64_t a = next_rand(&x) >> (next_rand(&x) % 64), b = next_rand(&x) >> (next_rand(&x) % 64);
        unsigned __int128 p = (unsigned __int128)a * b, s = (unsigned __int128)a + b;
        assert_int_equal(rt_mul_u64(a, b, &r), p <= UINT64_MAX);
        if (p <= UINT64_MAX)
            assert_true(r == (uint64_t)p);
        assert_int_equal(rt_add_u64(a, b, &r), s <= UINT64_MAX);
        if (s <= UINT64_MAX)
            assert_true(r == (uint64_t)s);
    }
}

/* A FIFO fed by a child with `text` (nbytes of it): the detector's head and the
 * reader's lines must together be the whole text, and a second open is refused. */
static void test_fifo_head_then_reader(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_fifo_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/f", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    /* 3000 din lines: about 25 KB, much more than the 4096-byte head */
    size_t cap = 64 * 1024, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < 3000; i++)
        n += (size_t)snprintf(text + n, cap - n, "%d %x\n", i % 2, 0x100 + i);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *w = fopen(path, "w");
        fwrite(text, 1, n, w);
        fclose(w);
        _exit(0);
    }
    const char *name;
    char why[1024];
    assert_int_equal(rt_detect(path, &name, why, sizeof why), RT_OK);
    assert_string_equal(name, "din");
    /* asked again: the same bytes, not the next ones */
    assert_int_equal(rt_detect(path, &name, why, sizeof why), RT_OK);
    assert_string_equal(name, "din");
    rt_err e;
    rt_lines *r = rt_lines_open(path, &e);
    assert_non_null(r);
    const char *line;
    size_t len, got = 0;
    int k = 0;
    while (rt_lines_next(r, &line, &len, &e) == RT_OK) {
        char want[32];
        snprintf(want, sizeof want, "%d %x", k % 2, 0x100 + k);
        assert_string_equal(line, want);
        got += len + 1;
        k++;
    }
    assert_int_equal(k, 3000);
    assert_int_equal(got, n);
    assert_int_equal(rt_lines_rewind(r, &e), RT_EINVAL);
    assert_non_null(strstr(e.msg, "can be read only once"));
    rt_lines_free(r);
    /* a second reader is refused at once, not left waiting for a writer */
    assert_null(rt_lines_open(path, &e));
    assert_non_null(strstr(e.msg, "can be read only once"));
    int status;
    waitpid(pid, &status, 0);
    unlink(path);
    rmdir(dir);
    free(text);
}

/* The detector on regular files: a vote per format, and the objections of an unknown file. */
static void test_detect_files(void **state)
{
    (void)state;
    static const struct { const char *text, *name; } cases[] = {
        {"0 1000\n1 2000\n2 3000\n", "din"},
        {"# comment\nr 1000 4\nw 0x2000 8\n", "xdin"},
        {"==123== Lackey\nI  0400d7d4,8\n S 7ff000,8\n", "lackey"},
        {"0 1 4 4\n3 A\n1 1 1 4 1 4 0.5\n", "shmap"},
        {"msp 1\nE 0 main\n", "msp"},
        {"A 0\nB 1.5\nA 2\n", "pes"},
        {"-3 -901 0.000000 0 0 0\n-4 -901 1.0 0 0 0\n", "picl-new"},
        {"%EventDef PajeDefineContainerType 0\n% Alias string\n", "paje"},
        {"hello world\n", "unknown"},
        {"", "unknown"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *p = rt_test_write(cases[i].text, strlen(cases[i].text));
        const char *name;
        char why[1024];
        assert_int_equal(rt_detect(p, &name, why, sizeof why), RT_OK);
        if (strcmp(name, cases[i].name) != 0)
            fail_msg("case %zu: %s detected as %s (%s)", i, cases[i].name, name, why);
        if (i == 8) {
            assert_non_null(strstr(why, "din: line 1: label: 'hello' is not 0-4"));
            assert_non_null(strstr(why, "xdin: line 1:"));
            assert_non_null(strstr(why, "lackey: line 1:"));
        }
        rt_test_remove(p);
    }
    const char *name;
    char why[256];
    assert_int_equal(rt_detect("/nonexistent/x", &name, why, sizeof why), RT_EIO);
    assert_null(name);
    assert_string_equal(why, "/nonexistent/x: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_name),
        cmocka_unit_test(test_count),
        cmocka_unit_test(test_timespan),
        cmocka_unit_test(test_checked_arith),
        cmocka_unit_test(test_fifo_head_then_reader),
        cmocka_unit_test(test_detect_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
