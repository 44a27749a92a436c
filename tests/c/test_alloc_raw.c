/* rt_alloc_raw: the C passes over a capture's alloc.raw, on a hand-written file with
 * every kind of record, a line of each malformed shape and a record with no name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_alloc_raw.h"
#include "rt_error.h"

static const char RAW[] =
    "@0 S 0\n"
    "@0 K 1ffe800fff 1fff000fff\n"
    "@12 A 4a35010 160 10919f/487724a/1090a1\n"
    "@13 A 4a35200 32 10919f/487724a/1090a1\n"
    "@14 A 4a35300 8 2222/3333\n"
    "@15 F 4a35010\n"
    "@20 S 2\n"
    "@21 A 4a36000 64 2222/3333\n"
    "@22 F 4a35200\n"
    "@23 S x\n"          /* not a thread number: the thread stays 2 */
    "@24 F\n"            /* a free with nothing after it */
    "@25 A 4a3g000 64 2222\n" /* not hex: passed over */
    "@26 A 4a37000 12x 2222\n" /* not a size: passed over */
    "A 1 2 3\n"          /* no sequence: passed over */
    "@27 Q something\n"  /* another kind: passed over */
    "@30 L 4876380 49ca22d 4850000 /usr/lib/libc.so.6\n"
    "@31 L 108000 10a000 100000 /tmp/prog\n";

static char *write_raw(const char *text)
{
    char *path = strdup("/tmp/test_alloc_raw_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal((ssize_t)strlen(text), write(fd, text, strlen(text)));
    close(fd);
    return path;
}

typedef struct {
    char got[1024];
} acc;

static int on_path(void *ud, const char *pcs, size_t n)
{
    acc *a = ud;
    strcat(a->got, "P:");
    strncat(a->got, pcs, n);
    strcat(a->got, ";");
    return RT_OK;
}

static int on_other(void *ud, char kind, const char *rest, size_t n)
{
    acc *a = ud;
    char k[3] = {kind, ':', 0};
    strcat(a->got, k);
    strncat(a->got, rest, n);
    strcat(a->got, ";");
    return RT_OK;
}

static void test_scan(void **state)
{
    (void)state;
    char *raw = write_raw(RAW);
    acc a;
    memset(&a, 0, sizeof a);
    rt_err err;
    rt_err_clear(&err);
    assert_int_equal(RT_OK, rt_alloc_raw_scan(raw, on_path, on_other, &a, &err));
    assert_string_equal("K:1ffe800fff 1fff000fff;P:10919f/487724a/1090a1;P:2222/3333;"
                        "L:4876380 49ca22d 4850000 /usr/lib/libc.so.6;L:108000 10a000 100000 /tmp/prog;",
                        a.got);
    unlink(raw);
    free(raw);
    /* a missing file: one line naming it */
    assert_int_not_equal(RT_OK, rt_alloc_raw_scan("/nonexistent/alloc.raw", on_path, on_other, &a, &err));
    assert_non_null(strstr(err.msg, "/nonexistent/alloc.raw"));
}

static const char *names(void *ud, const char *pcs, size_t n)
{
    (void)ud;
    if (strncmp(pcs, "10919f/487724a/1090a1", n) == 0 && n == 21)
        return " a@main:5 main@p.c:5\n";
    if (strncmp(pcs, "2222/3333", n) == 0 && n == 9)
        return " b@f:9<main:7 main@p.c:7>f@p.c:9\n";
    return NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[4096];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static void test_rewrite(void **state)
{
    (void)state;
    char *raw = write_raw(RAW);
    char o1[64], o2[64];
    snprintf(o1, sizeof o1, "%s.msp", raw);
    snprintf(o2, sizeof o2, "%s.lines.msp", raw);
    const char *out[2] = {o1, o2}, *head[2] = {"msp 1\nH1\n", "msp 1\nH2\n"};
    size_t hl[2] = {strlen(head[0]), strlen(head[1])};
    const char *tail = "@0 N 1000 8 x\n";
    rt_err err;
    rt_err_clear(&err);
    uint64_t na = 0;
    assert_int_equal(RT_OK, rt_alloc_raw_rewrite(raw, out, head, hl, tail, strlen(tail), names, NULL, &na, &err));
    assert_int_equal(4, na);
    const char *body = "@0 N 1000 8 x\n"
                       "@0 S 0\n"
                       "@12 A 0 4a35010 160 a@main:5 main@p.c:5\n"
                       "@13 A 0 4a35200 32 a@main:5 main@p.c:5\n"
                       "@14 A 0 4a35300 8 b@f:9<main:7 main@p.c:7>f@p.c:9\n"
                       "@15 F 0 4a35010\n"
                       "@20 S 2\n"
                       "@21 A 2 4a36000 64 b@f:9<main:7 main@p.c:7>f@p.c:9\n"
                       "@22 F 2 4a35200\n"
                       "@23 S 2\n"
                       "@24 F 2 \n";
    char want[2048];
    snprintf(want, sizeof want, "msp 1\nH1\n%s", body);
    assert_string_equal(want, slurp(o1));
    snprintf(want, sizeof want, "msp 1\nH2\n%s", body);
    assert_string_equal(want, slurp(o2));
    unlink(o1);
    unlink(o2);
    /* a call path without a name: an error naming the line, and no output file */
    FILE *f = fopen(raw, "a");
    fputs("@40 A 4a38000 16 7777\n", f);
    fclose(f);
    assert_int_equal(RT_EINVAL, rt_alloc_raw_rewrite(raw, out, head, hl, tail, strlen(tail), names, NULL, &na, &err));
    assert_non_null(strstr(err.msg, ":18:"));
    assert_int_not_equal(0, access(o1, F_OK));
    assert_int_not_equal(0, access(o2, F_OK));
    unlink(raw);
    free(raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_rewrite),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
