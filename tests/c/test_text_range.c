/* Tests of the text readers over byte ranges (rt_lines_range, rt_picl_open_range,
 * rt_paraver_open_range): the records of K ranges that cut the file at
 * arbitrary bytes (inside lines too), put end to end, are the whole file's
 * records (every field, the line, the text), for K = 1..5 on every PICL and
 * Paraver fixture and shared sample; and the numbered lines a rank receives
 * give the same records with the file's lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "rt_lines.h"
#include "rt_paraver.h"
#include "rt_picl.h"
#include "rt_picl_source.h"
#include "rt_test.h"

/* One record as read: its line, text and (PICL) parsed fields, or (Paraver) threads. */
typedef struct rec {
    unsigned long line;
    char *text;
    rt_picl_record r;
    int t0, t1;
} rec;

typedef struct recs {
    rec *v;
    size_t n, cap;
} recs;

static void push(recs *a, unsigned long line, const char *text, size_t len)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        assert_non_null(a->v);
    }
    rec *r = &a->v[a->n++];
    memset(r, 0, sizeof *r);
    r->line = line;
    r->text = strndup(text, len);
}

static void recs_free(recs *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->v[i].text);
    free(a->v);
    memset(a, 0, sizeof *a);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* Newlines in [0, begin), counted the way the ranks count theirs. */
static unsigned long lines_before(const char *path, uint64_t begin)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    int ioerr;
    uint64_t n = rt_lines_count(f, 0, begin, &ioerr);
    assert_int_equal(ioerr, 0);
    fclose(f);
    return (unsigned long)n;
}

/* Every record of a PICL reader into a (fields, line, text). */
static void picl_drain(rt_picl *p, recs *a)
{
    rt_picl_record r;
    rt_err err;
    int st;
    while ((st = rt_picl_next(p, &r, &err)) == RT_OK) {
        const char *t;
        size_t len;
        rt_picl_line(p, &t, &len);
        push(a, r.line, t, len);
        r.text = NULL; /* points into the reader's buffer */
        a->v[a->n - 1].r = r;
    }
    if (st != RT_EEOF)
        fail_msg("%s", err.msg);
}

static void picl_whole(const char *path, recs *a)
{
    rt_err err;
    rt_picl *p = rt_picl_open(path, NULL, &err);
    if (!p)
        fail_msg("%s", err.msg);
    picl_drain(p, a);
    rt_picl_free(p);
}

static void picl_ranges(const char *path, int k, recs *a)
{
    uint64_t size = file_size(path);
    for (int i = 0; i < k; i++) {
        uint64_t b = size * (uint64_t)i / (uint64_t)k, e = size * (uint64_t)(i + 1) / (uint64_t)k;
        rt_err err;
        rt_picl *p = rt_picl_open_range(path, NULL, b, e, lines_before(path, b), &err);
        if (!p)
            fail_msg("%s", err.msg);
        size_t n0 = a->n;
        picl_drain(p, a);
        /* a second pass over the range gives it again */
        assert_int_equal(rt_picl_rewind(p, &err), RT_OK);
        recs again = {0};
        picl_drain(p, &again);
        rt_picl_free(p);
        assert_int_equal(again.n, a->n - n0);
        for (size_t j = 0; j < again.n; j++)
            assert_int_equal(again.v[j].line, a->v[n0 + j].line);
        recs_free(&again);
    }
}

static void same(const recs *w, const recs *g, const char *path, int k, int picl)
{
    if (w->n != g->n)
        fail_msg("%s, %d ranges: %zu records, whole file %zu", path, k, g->n, w->n);
    for (size_t i = 0; i < w->n; i++) {
        const rec *x = &w->v[i], *y = &g->v[i];
        if (x->line != y->line || strcmp(x->text, y->text) != 0 || x->t0 != y->t0 || x->t1 != y->t1)
            fail_msg("%s, %d ranges: record %zu: line %lu '%s' vs %lu '%s'", path, k, i, y->line, y->text,
                     x->line, x->text);
        if (picl) {
            const rt_picl_record *a = &x->r, *b = &y->r;
            assert_int_equal(a->rectype, b->rectype);
            assert_int_equal(a->event, b->event);
            assert_true(a->time == b->time);
            assert_int_equal(a->proc, b->proc);
            assert_int_equal(a->task, b->task);
            assert_int_equal(a->ndata, b->ndata);
            assert_memory_equal(a->data, b->data, (size_t)a->ndata * sizeof a->data[0]);
            assert_int_equal(a->line, b->line);
        }
    }
}

/* The sample files of one kind: fixtures, then the shared samples when present. */
static int sample_paths(const char *dir_fix, const char *dir_shared, const char *suffix, char paths[][512], int max)
{
    int n = 0;
    const char *dirs[2] = {dir_fix, dir_shared};
    for (int d = 0; d < 2; d++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "ls %s/*%s 2>/dev/null", dirs[d], suffix);
        FILE *ls = popen(cmd, "r");
        assert_non_null(ls);
        while (n < max && fgets(paths[n], 512, ls)) {
            paths[n][strcspn(paths[n], "\n")] = '\0';
            n++;
        }
        pclose(ls);
    }
    return n;
}

static const char *shared_dir(void)
{
    const char *s = getenv("RETRACE_SHARED");
    return s ? s : "../shared/data";
}

static void test_picl_ranges(void **state)
{
    (void)state;
    char paths[32][512], dir[512];
    snprintf(dir, sizeof dir, "%s/picl", shared_dir());
    int n = sample_paths(RETRACE_FIXTURES "/picl", dir, ".trf", paths, 32);
    int checked = 0;
    for (int i = 0; i < n; i++) {
        if (strstr(paths[i], "malformed"))
            continue;
        recs whole = {0};
        picl_whole(paths[i], &whole);
        assert_true(whole.n > 0);
        for (int k = 1; k <= 5; k++) {
            recs got = {0};
            picl_ranges(paths[i], k, &got);
            same(&whole, &got, paths[i], k, 1);
            recs_free(&got);
        }
        recs_free(&whole);
        checked++;
    }
    assert_true(checked >= 9);
}

/* Ranges of one line each, and ranges that begin and end at every byte of a small trace. */
static void test_picl_every_cut(void **state)
{
    (void)state;
    const char *text = "-3 -21 1.0 0 0 3 2 8 1 1\n\n-4 -21 1.5 0 0 0\n# note\n-3 -52 2.0 1 0 0\n"
                       "-4 -52 3.0 1 0 3 2 8 1 0\n-2 5 4.0 1 0 0";
    char *path = rt_test_write_text(text);
    recs whole = {0};
    picl_whole(path, &whole);
    assert_int_equal(whole.n, 5);
    assert_int_equal(whole.v[4].line, 7);
    size_t size = strlen(text);
    for (size_t cut = 0; cut <= size; cut++) {
        recs got = {0};
        rt_err err;
        rt_picl *p = rt_picl_open_range(path, NULL, 0, cut, 0, &err);
        assert_non_null(p);
        picl_drain(p, &got);
        rt_picl_free(p);
        p = rt_picl_open_range(path, NULL, cut, size, lines_before(path, cut), &err);
        assert_non_null(p);
        picl_drain(p, &got);
        rt_picl_free(p);
        same(&whole, &got, path, 2, 1);
        recs_free(&got);
    }
    recs_free(&whole);
    rt_test_remove(path);
}

/* Numbered lines give the records with the lines they name. */
static void test_picl_numbered(void **state)
{
    (void)state;
    char *path = rt_test_write_text("7\t-3 -21 1.0 0 0 3 2 8 1 1\n12\t-4 -21 1.5 0 0 0\n");
    FILE *f = fopen(path, "rb");
    rt_picl_opts o = {.format = RT_PICL_NEW, .strict = 1};
    rt_err err;
    rt_picl *p = rt_picl_open_numbered(f, path, &o, &err);
    assert_non_null(p);
    recs got = {0};
    picl_drain(p, &got);
    assert_int_equal(got.n, 2);
    assert_int_equal(got.v[0].line, 7);
    assert_int_equal(got.v[0].r.proc, 0);
    assert_int_equal(got.v[1].line, 12);
    assert_string_equal(got.v[1].text, "-4 -21 1.5 0 0 0");
    rt_picl_free(p);
    fclose(f);
    recs_free(&got);
    rt_test_remove(path);
    /* a line without its number is refused with the place */
    path = rt_test_write_text("-3 -21 1.0 0 0 0\n");
    f = fopen(path, "rb");
    p = rt_picl_open_numbered(f, path, &o, &err);
    assert_non_null(p);
    rt_picl_record r;
    assert_int_equal(rt_picl_next(p, &r, &err), RT_EFORMAT);
    assert_non_null(strstr(err.msg, "LINE<TAB>"));
    rt_picl_free(p);
    fclose(f);
    rt_test_remove(path);
}

static void on_record(void *ud, const char *text, size_t len, unsigned long line, int type, int t0, int t1)
{
    (void)type;
    recs *a = ud;
    push(a, line, text, len);
    a->v[a->n - 1].t0 = t0;
    a->v[a->n - 1].t1 = t1;
}

static void prv_drain(rt_tsource *s, recs *a)
{
    rt_paraver_on_record(s, on_record, a);
    rt_tevent ev;
    rt_err err;
    int st;
    while ((st = rt_tsource_next(s, &ev, &err)) == RT_OK)
        ;
    if (st != RT_EEOF)
        fail_msg("%s", err.msg);
}

static void test_paraver_ranges(void **state)
{
    (void)state;
    char paths[8][512], dir[512];
    snprintf(dir, sizeof dir, "%s/paraver", shared_dir());
    int n = sample_paths(RETRACE_FIXTURES "/paraver", dir, ".prv", paths, 8);
    assert_true(n >= 1);
    for (int i = 0; i < n; i++) {
        rt_err err;
        recs whole = {0};
        rt_tsource *s = rt_paraver_open(paths[i], &err);
        if (!s)
            fail_msg("%s", err.msg);
        prv_drain(s, &whole);
        uint64_t body = 0;
        rt_tsource_free(s);
        assert_true(whole.n > 0);
        uint64_t size = file_size(paths[i]);
        for (int k = 1; k <= 5; k++) {
            recs got = {0};
            for (int r = 0; r < k; r++) {
                uint64_t b = size * (uint64_t)r / (uint64_t)k, e = size * (uint64_t)(r + 1) / (uint64_t)k;
                s = rt_paraver_open_range(paths[i], b, e, lines_before(paths[i], b), &err);
                if (!s)
                    fail_msg("%s", err.msg);
                if (r == 0)
                    body = rt_paraver_body_offset(s);
                prv_drain(s, &got);
                rt_tsource_free(s);
            }
            assert_true(body > 0);
            same(&whole, &got, paths[i], k, 0);
            recs_free(&got);
        }
        /* the records as numbered lines give the whole trace's events */
        char spill[] = "/tmp/rt_test_spillXXXXXX";
        int fd = mkstemp(spill);
        FILE *f = fdopen(fd, "w+b");
        for (size_t j = 0; j < whole.n; j++)
            fprintf(f, "%lu\t%s\n", whole.v[j].line, whole.v[j].text);
        rewind(f);
        rt_tsource *a = rt_paraver_open(paths[i], &err), *b = rt_paraver_open_numbered(paths[i], f, &err);
        assert_non_null(a);
        assert_non_null(b);
        rt_tevent x, y;
        int sa, sb;
        uint64_t events = 0;
        while ((sa = rt_tsource_next(a, &x, &err)) == RT_OK) {
            sb = rt_tsource_next(b, &y, &err);
            assert_int_equal(sb, RT_OK);
            assert_int_equal(x.kind, y.kind);
            assert_int_equal(x.proc, y.proc);
            assert_true(x.ticks == y.ticks);
            assert_int_equal(x.region, y.region);
            assert_int_equal(x.peer, y.peer);
            assert_int_equal(x.line, y.line);
            events++;
        }
        assert_int_equal(sa, RT_EEOF);
        assert_int_equal(rt_tsource_next(b, &y, &err), RT_EEOF);
        assert_true(events > 0);
        rt_tsource_free(a);
        rt_tsource_free(b);
        fclose(f);
        unlink(spill);
        recs_free(&whole);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_picl_ranges),
        cmocka_unit_test(test_picl_every_cut),
        cmocka_unit_test(test_picl_numbered),
        cmocka_unit_test(test_paraver_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
