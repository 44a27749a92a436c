/* Tests of the batched text readers (rt_memtrace_read over the block parsers
 * of rt_memtrace_fast.c; for din files, on a parser thread of their own:
 * rt_din_ahead) against the record-by-record readers (rt_X_next),
 * on random din, xdin and lackey traces of a few MiB with odd and malformed
 * lines among plain ones: the same references, the same errors at the same
 * lines (for din, rt_memtrace_read_lines's loads and stores among them).
 * Then rt_lackey_parse_block against rt_lackey_parse_line, and the
 * capture's conversion of a lackey log (from a stand-in for valgrind that
 * prints a file) against a line-by-line model of it, and of the retrace
 * Valgrind tool's binary stream (blocks described once, then run) against
 * the references it stands for, with its malformed records' messages. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_capture.h"
#include "rt_memtrace.h"
#include "rt_test.h"
#include "vg/rt_vgproto.h"

/* ---- a growing text and a random generator ---- */

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...)
{
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int w = vsnprintf(t->s + t->n, t->cap - t->n, fmt, ap);
        va_end(ap);
        assert_true(w >= 0);
        if ((size_t)w < t->cap - t->n) {
            t->n += (size_t)w;
            return;
        }
        t->cap = t->cap * 2 + (size_t)w + 64;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
}

static uint64_t seed;
static uint64_t rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return seed ^ (seed >> 29);
}

/* r in [0, n) */
static unsigned pick(unsigned n)
{
    return (unsigned)((rnd() >> 33) % n);
}

/* blanks: one to three spaces or tabs (zero to three when may_be_none) */
static const char *blanks(int may_be_none)
{
    static const char *const b[] = {"", " ", "\t", "  ", " \t", "   "};
    return may_be_none ? b[pick(6)] : b[1 + pick(5)];
}

/* an address in hex: 1 to 16 digits, either case, now and then 0x, leading
 * zeros (past 16 digits too) */
static void put_hex(text *t, uint64_t v)
{
    char d[40];
    unsigned nd = 1 + pick(16);
    if (nd < 16)
        v &= (1ull << (4 * nd)) - 1;
    int upper = pick(4) == 0;
    snprintf(d, sizeof d, upper ? "%llX" : "%llx", (unsigned long long)v);
    unsigned z = pick(10) == 0 ? pick(6) : 0;
    put(t, "%s%.*s%s", pick(8) == 0 ? (upper ? "0X" : "0x") : "", (int)z, "000000", d);
}

/* a line ending: mostly '\n', now and then blanks first or CRLF */
static void put_end(text *t)
{
    unsigned e = pick(20);
    put(t, e == 0 ? "\r\n" : e == 1 ? "%s\n" : "\n", blanks(0));
}

/* a line past the read buffer (1 MiB): no block holds it whole at first */
static void put_long_tail(text *t)
{
    for (int i = 0; i < 150000; i++)
        put(t, "padding ");
}

/* ---- random traces of each format ---- */

static void din_line(text *t)
{
    unsigned what = pick(200);
    if (what == 0) {
        put(t, "%s\n", blanks(1)); /* blank */
    } else if (what == 1) {
        /* the neighbours of the digit and letter ranges ('/', ':', '@', 'G', '`', 'g') among them */
        static const char *const bad[] = {"5 20", "r 20", "1", "0 12g4", "0 11112222333344445", "0\t", "00 4",
                                          "0 -1", "\x01\xff 10", "0 1/2", "1 :", "0 ab@", "1 G", "0 `",
                                          "1 123456789abcdeg", "0 1 2", "2 ff\x80"};
        put(t, "%s\n", bad[pick(17)]);
    } else if (what < 100) { /* the plain shape, as Dinero IV's tools write it */
        put(t, pick(4) ? "%u %llx\n" : "%u %llX\n", pick(8) ? pick(2) : pick(5),
            (unsigned long long)(rnd() >> (4 * pick(16))));
    } else {
        put(t, "%s%u%s", blanks(1), pick(5), blanks(0));
        put_hex(t, rnd());
        if (pick(10) == 0)
            put(t, "%sa comment, 0 1234", blanks(0));
        put_end(t);
    }
}

static void xdin_line(text *t)
{
    static const char kinds[] = "rwimcv";
    unsigned what = pick(200);
    if (what == 0) {
        put(t, "%s\n", blanks(1));
    } else if (what == 1) {
        static const char *const bad[] = {"x 10 4", "rw 10 4", "r", "r zz 4", "r 10", "r 10 q", "r 10 4 9",
                                          "r ffffffffffffff00 200", "w 1000 4294967296", "R 10 4",
                                          "i 10 11112222333344445", "r 10,4"};
        put(t, "%s\n", bad[pick(12)]);
    } else {
        char k = kinds[pick(6)];
        put(t, "%s%c%s", blanks(1), k, blanks(0));
        put_hex(t, rnd() >> (pick(2) ? 20 : 0));
        put(t, "%s", blanks(0));
        unsigned s = pick(10);
        uint64_t size = s == 0 ? 0 : s == 1 ? (1u << 24) + pick(2) : s == 2 ? rnd() >> 16 : 1 + pick(64);
        put(t, pick(5) ? "%llx" : "0x%llX", (unsigned long long)size);
        put_end(t);
    }
}

static void lackey_line(text *t)
{
    unsigned what = pick(200);
    if (what < 3) {
        static const char *const own[] = {"==4242== Lackey, an example Valgrind tool", "==4242== ",
                                          "--4242-- SCHED[1]: acquired lock", "**4242** rt A 10 20",
                                          "==", "**", "--"};
        put(t, "%s\n", own[pick(7)]);
    } else if (what == 3) {
        put(t, "%s\n", blanks(1));
    } else if (what == 4) {
        static const char *const bad[] = {" X 10,4", " L 10 4", " L ,4", " L 10,", " L 10,0", " S 10,4x",
                                          " L 7ff000,99999999999", " L 100000000000000000,4", "=x",
                                          " ==1== indented", "I 10,4 5", "L10,4", " M 10,16777217"};
        put(t, "%s\n", bad[pick(13)]);
    } else {
        static const char types[] = "ILSM";
        char k = types[pick(4)];
        put(t, "%s%c%s", k == 'I' ? "" : blanks(1), k, k == 'I' ? "  " : blanks(0));
        put_hex(t, rnd() >> pick(40));
        unsigned s = pick(12);
        if (s == 0)
            put(t, ",%03u", 1 + pick(8));
        else if (s == 1)
            put(t, ",%u", (1u << 24) - pick(2));
        else
            put(t, ",%u", 1 + pick(32));
        put_end(t);
    }
}

/* lines of fmt, a few of them longer than the read buffer, maybe no final newline */
static text random_trace(int fmt, size_t lines)
{
    text t = {0};
    for (size_t i = 0; i < lines; i++) {
        if (i % 40000 == 39999) {
            if (fmt == RT_MEMFMT_LACKEY) { /* a long message of valgrind's */
                put(&t, "==4242== ");
                put_long_tail(&t);
                put(&t, "\n");
            } else if (fmt == RT_MEMFMT_DIN) { /* a long comment */
                put(&t, "1 123 ");
                put_long_tail(&t);
                put(&t, "\n");
            }
        }
        if (fmt == RT_MEMFMT_DIN)
            din_line(&t);
        else if (fmt == RT_MEMFMT_XDIN)
            xdin_line(&t);
        else
            lackey_line(&t);
    }
    if (pick(2) && t.n && t.s[t.n - 1] == '\n')
        t.n--; /* the last line without its newline */
    return t;
}

/* ---- the batch reader against the record-by-record one ---- */

/* this process's threads */
static size_t threads(void)
{
    DIR *d = opendir("/proc/self/task");
    size_t n = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* Read the whole of path as fmt both ways and compare every reference and
 * every error message (the reading goes on after an error, as both allow).
 * In lines_mode the batches are small and rt_memtrace_read_lines takes most
 * turns (din's loads and stores; nothing for the other formats).
 * Returns the errors seen. */
static size_t compare_readers(const char *path, int fmt, int lines_mode, size_t *refs_out)
{
    rt_err e1, e2;
    /* the line reader on the calling thread; din's batches parsed ahead on a
     * thread of their own (rt_din_ahead) */
    setenv("RETRACE_READ_AHEAD", "0", 1);
    rt_memtrace *one = rt_memtrace_open(path, fmt, &e1);
    size_t threads0 = threads();
    unsetenv("RETRACE_READ_AHEAD");
    rt_memtrace *many = rt_memtrace_open(path, fmt, &e2);
    assert_int_equal(threads(), threads0 + (fmt == RT_MEMFMT_DIN)); /* din's parser thread */
    assert_non_null(one);
    assert_non_null(many);
    static const size_t caps[] = {1, 2, 3, 7, 100, 4096};
    static rt_memref b[4096];
    size_t refs = 0, errors = 0, lines_refs = 0;
    static uint64_t la[4096];
    static uint8_t lw[4096];
    size_t none = 1; /* lines under 4 bytes: din's 4-byte references may span two */
    assert_int_equal(rt_memtrace_read_lines(many, 1, la, lw, 10, &none), RT_EINVAL);
    assert_int_equal(none, 0);
    for (;;) {
        size_t n = 0;
        rt_memref r;
        /* now and then the lines path first (din: its loads and stores as addresses) */
        int lines_turn = lines_mode && pick(4);
        if (lines_turn && rt_memtrace_read_lines(many, 2 + pick(6), la, lw, caps[pick(6)], &n) == RT_OK) {
            for (size_t i = 0; i < n; i++) {
                assert_int_equal(rt_memtrace_next(one, &r, &e1), RT_OK);
                if (la[i] != r.addr || lw[i] != r.kind || r.size != 4)
                    fail_msg("din reference %zu: lines path %u %llx, line reader %d %llx %llu", refs + i,
                             lw[i], (unsigned long long)la[i], r.kind, (unsigned long long)r.addr,
                             (unsigned long long)r.size);
            }
            refs += n;
            lines_refs += n;
            if (n)
                continue;
        }
        /* in lines mode short general batches, so the two paths take turns */
        int st = rt_memtrace_read(many, b, caps[pick(lines_mode ? 4 : 6)], &n, &e2);
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rt_memtrace_next(one, &r, &e1), RT_OK);
            if (b[i].addr != r.addr || b[i].size != r.size || b[i].kind != r.kind)
                fail_msg("%s reference %zu: batch %d %llx %llu, line reader %d %llx %llu", rt_memfmt_name(fmt),
                         refs + i, b[i].kind, (unsigned long long)b[i].addr, (unsigned long long)b[i].size,
                         r.kind, (unsigned long long)r.addr, (unsigned long long)r.size);
        }
        refs += n;
        if (st == RT_OK) {
            assert_true(n > 0);
            continue;
        }
        assert_int_equal(n, 0);
        assert_int_equal(rt_memtrace_next(one, &r, &e1), st);
        if (st == RT_EEOF)
            break;
        assert_string_equal(e2.msg, e1.msg);
        errors++;
    }
    rt_memtrace_free(one);
    rt_memtrace_free(many);
    if (fmt == RT_MEMFMT_DIN && lines_mode)
        assert_true(lines_refs > refs / 4); /* the lines path took its share */
    else
        assert_int_equal(lines_refs, 0); /* the others have none */
    *refs_out = refs;
    return errors;
}

static void check_format(int fmt, uint64_t s)
{
    for (int round = 0; round < 2; round++) {
        seed = s + (uint64_t)round;
        text t = random_trace(fmt, 100000);
        char *p = rt_test_write(t.s, t.n);
        size_t refs;
        size_t errors = compare_readers(p, fmt, round, &refs);
        /* the mix must have exercised both paths */
        assert_true(refs > 80000);
        assert_true(errors > 50);
        rt_test_remove(p);
        free(t.s);
    }
}

static void test_din_batch_random(void **state)
{
    (void)state;
    check_format(RT_MEMFMT_DIN, 101);
}

static void test_xdin_batch_random(void **state)
{
    (void)state;
    check_format(RT_MEMFMT_XDIN, 202);
}

static void test_lackey_batch_random(void **state)
{
    (void)state;
    check_format(RT_MEMFMT_LACKEY, 303);
}

static void expect_ref(const rt_memref *r, int kind, uint64_t addr, uint64_t size)
{
    assert_int_equal(r->kind, kind);
    assert_int_equal(r->addr, addr);
    assert_int_equal(r->size, size);
}

/* by hand: what the batch reader gives, and where its errors are */
static void test_batch_by_hand(void **state)
{
    (void)state;
    const char *s = "==1== hello\n"
                    "I  0401BD00,3\n"
                    " M 7ff0,8\n"
                    "**1** rt A 1 2\n"
                    " S 0x10,16\r\n" /* CRLF: through the slow path */
                    " L 10,0\n"      /* line 6: an error */
                    " L 20,4";       /* no newline at the end */
    char *p = rt_test_write(s, strlen(s));
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(p, RT_MEMFMT_LACKEY, &err);
    rt_memref b[8];
    size_t n;
    assert_int_equal(rt_memtrace_read(t, b, 2, &n, &err), RT_OK); /* the M's store waits */
    assert_int_equal(n, 2);
    expect_ref(&b[0], RT_REF_IFETCH, 0x0401bd00, 3);
    expect_ref(&b[1], RT_REF_READ, 0x7ff0, 8);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_OK);
    assert_int_equal(n, 2);
    expect_ref(&b[0], RT_REF_WRITE, 0x7ff0, 8);
    expect_ref(&b[1], RT_REF_WRITE, 0x10, 16);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_EFORMAT);
    char want[300];
    snprintf(want, sizeof want, "%s:6: size: '0' is not a positive number", p);
    assert_string_equal(err.msg, want);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].addr, 0x20);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_EEOF);
    rt_memtrace_free(t);
    rt_test_remove(p);

    s = "r 10 0\n"
        "c 0 0\n"
        "v 40 1000000\n"       /* flushes and invalidates may be big */
        "w ffffffffffffffff 1\n"
        "i 20 1000001\n";      /* line 5: more than 16 MiB */
    p = rt_test_write(s, strlen(s));
    t = rt_memtrace_open(p, RT_MEMFMT_XDIN, &err);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_OK);
    assert_int_equal(n, 4);
    expect_ref(&b[0], RT_REF_READ, 0x10, 1); /* size 0 of an access: one byte */
    expect_ref(&b[1], RT_REF_FLUSH, 0, 0);   /* of a flush: the whole cache */
    expect_ref(&b[2], RT_REF_INVALIDATE, 0x40, 0x1000000);
    expect_ref(&b[3], RT_REF_WRITE, UINT64_MAX, 1);
    assert_int_equal(rt_memtrace_read(t, b, 8, &n, &err), RT_EFORMAT);
    snprintf(want, sizeof want, "%s:5: size: 0x1000001: more than 16 MiB in one reference", p);
    assert_string_equal(err.msg, want);
    rt_memtrace_free(t);
    rt_test_remove(p);
}

/* ---- rt_lackey_parse_block against rt_lackey_parse_line ---- */

static void test_lackey_parse_block(void **state)
{
    (void)state;
    seed = 404;
    text t = random_trace(RT_MEMFMT_LACKEY, 20000);
    put(&t, "\nI  0401"); /* a piece of a line after the last newline: never read */
    /* exactly the bytes, so the sanitizer build catches a read past them */
    char *buf = malloc(t.n);
    memcpy(buf, t.s, t.n);
    size_t len = t.n, from = 0, parsed_lines = 0, handed_back = 0;
    unsigned long no = 0;
    rt_memref out[16], ref;
    rt_err err;
    while (from < len) {
        const char *nl = memchr(buf + from, '\n', len - from);
        if (!nl)
            break;
        size_t n;
        unsigned long lines;
        size_t cap = 2 + pick(15);
        size_t used = rt_lackey_parse_block(buf + from, len - from, out, cap, &n, &lines);
        assert_true(n <= cap);
        if (used == 0) { /* the caller's line: not one the block parser takes */
            assert_int_equal(n, 0);
            assert_int_equal(lines, 0);
            handed_back++;
            no++;
            from = (size_t)(nl - buf) + 1;
            continue;
        }
        assert_int_equal(buf[from + used - 1], '\n');
        /* the same lines, one by one */
        size_t k = 0;
        const char *q = buf + from, *end = buf + from + used;
        for (unsigned long i = 0; i < lines; i++) {
            const char *e = memchr(q, '\n', (size_t)(end - q));
            assert_non_null(e);
            int modify = 0;
            no++;
            assert_true(q[0] != '=' && q[0] != '-' && q[0] != '*' && e > q); /* records only */
            assert_int_equal(rt_lackey_parse_line(q, (size_t)(e - q), "log", no, &ref, &modify, &err), RT_OK);
            for (int half = 0; half <= modify; half++) {
                assert_true(k < n);
                assert_int_equal(out[k].addr, ref.addr);
                assert_int_equal(out[k].size, ref.size);
                assert_int_equal(out[k].kind, half ? RT_REF_WRITE : ref.kind);
                k++;
            }
            q = e + 1;
        }
        assert_ptr_equal(q, end);
        assert_int_equal(k, n);
        parsed_lines += lines;
        from += used;
    }
    assert_true(parsed_lines > 15000);
    assert_true(handed_back > 200);
    /* an M that does not fit is left whole for the next call */
    size_t n;
    unsigned long lines;
    const char *two = "I  10,4\n M 20,8\n";
    assert_int_equal(rt_lackey_parse_block(two, strlen(two), out, 2, &n, &lines), 8);
    assert_int_equal(n, 1);
    assert_int_equal(lines, 1);
    assert_int_equal(rt_lackey_parse_block(two + 8, strlen(two) - 8, out, 2, &n, &lines), 8);
    assert_int_equal(n, 2);
    assert_int_equal(out[1].kind, RT_REF_WRITE);
    assert_int_equal(out[1].addr, 0x20);
    /* nothing whole: nothing parsed */
    assert_int_equal(rt_lackey_parse_block("I  10,4", 7, out, 2, &n, &lines), 0);
    assert_int_equal(lines, 0);
    free(buf);
    free(t.s);
}

/* ---- the capture's conversion ---- */

/* What the capture makes of a log, line by line as it did before the block
 * parser: records through rt_lackey_parse_line, an M as two; lines starting
 * '-', '=' or '*' and empty lines are not references (the "**N** rt " ones
 * are allocation records). Stops at the first bad line (its error in err). */
typedef struct model {
    rt_memref *refs;
    size_t n, cap;
    uint64_t ifetches, allocs;
    int status;
    rt_err err;
} model;

static void model_log(const char *s, size_t len, model *m)
{
    memset(m, 0, sizeof *m);
    unsigned long no = 0;
    size_t from = 0;
    while (from < len) {
        const char *nl = memchr(s + from, '\n', len - from);
        size_t n = nl ? (size_t)(nl - (s + from)) : len - from;
        const char *l = s + from;
        from += n + 1;
        no++;
        if (n == 0 || l[0] == '-' || l[0] == '=')
            continue;
        if (l[0] == '*') {
            const char *p = n > 2 ? memchr(l + 2, '*', n - 2) : NULL;
            if (p && (p += 2) < l + n) {
                while (p < l + n && *p == ' ')
                    p++;
                if (l + n - p > 3 && strncmp(p, "rt ", 3) == 0)
                    m->allocs++;
            }
            continue;
        }
        rt_memref r;
        int modify = 0;
        if ((m->status = rt_lackey_parse_line(l, n, "lackey log", no, &r, &modify, &m->err)) != RT_OK)
            return;
        for (int half = 0; half <= modify; half++) {
            if (m->n == m->cap) {
                m->cap = m->cap * 2 + 1024;
                m->refs = realloc(m->refs, m->cap * sizeof *m->refs);
            }
            m->refs[m->n] = r;
            m->refs[m->n++].kind = half ? RT_REF_WRITE : r.kind;
            if (r.kind == RT_REF_IFETCH)
                m->ifetches++;
        }
    }
}

/* rt_capture_run on a stand-in for valgrind that copies data[0, len) to the
 * descriptor named by its first argument (--log-fd=N for lackey's log,
 * --retrace-fd=N for the tool's stream): dir/trace.rtmb and dir/alloc.txt are
 * left for the caller; the status, with res and err. */
static int fake_capture(const char *dir, const void *data, size_t len, int tool, rt_capture_result *res,
                        rt_err *err)
{
    char script[600], input[600], rtmb[600], alloc[600];
    snprintf(script, sizeof script, "%s/fake-valgrind", dir);
    snprintf(input, sizeof input, "%s/valgrind.out", dir);
    snprintf(rtmb, sizeof rtmb, "%s/trace.rtmb", dir);
    snprintf(alloc, sizeof alloc, "%s/alloc.txt", dir);
    FILE *f = fopen(script, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\nfd=${1#--%s-fd=}\neval \"exec cat \\\"\\$2\\\" >&$fd\"\n", tool ? "retrace" : "log");
    fclose(f);
    chmod(script, 0755);
    f = fopen(input, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
    const char *argv[] = {script, input, NULL};
    rt_capture_opts o = {.argv = argv, .rtmb = rtmb, .alloc = alloc, .tool = tool};
    int st = rt_capture_run(&o, res, err);
    unlink(script);
    unlink(input);
    return st;
}

/* Capture a lackey log through the stand-in, and compare with the model. */
static void capture_and_compare(const char *log, size_t len, const char *dir)
{
    char rtmb[600], alloc[600];
    snprintf(rtmb, sizeof rtmb, "%s/trace.rtmb", dir);
    snprintf(alloc, sizeof alloc, "%s/alloc.txt", dir);
    rt_capture_result res;
    rt_err err;
    int st = fake_capture(dir, log, len, 0, &res, &err);
    model m;
    model_log(log, len, &m);
    assert_int_equal(st, m.status);
    if (st != RT_OK) {
        assert_string_equal(err.msg, m.err.msg); /* the same line and field */
    } else {
        assert_int_equal(res.exit_code, 0);
        assert_int_equal(res.records, m.n);
        assert_int_equal(res.ifetches, m.ifetches);
        assert_int_equal(res.refs, m.n - m.ifetches);
        assert_int_equal(res.allocs, m.allocs);
        assert_int_equal(res.bytes_in, len);
        rt_test_expect_rtmb(rtmb, m.refs, m.n);
    }
    free(m.refs);
    unlink(rtmb);
    unlink(alloc);
}

/* random plain and own lines, no malformed ones (those end a capture) */
static text capture_log(size_t lines)
{
    text t = {0};
    for (size_t i = 0; i < lines; i++) {
        unsigned w = pick(100);
        if (w == 0)
            put(&t, "**77** rt A 0x%llx %u\n", (unsigned long long)(rnd() >> 20), 1 + pick(4096));
        else if (w == 1)
            put(&t, "--77-- SCHED[%u]: acquired lock (LL_PUT)\n", 1 + pick(3));
        else if (w == 2)
            put(&t, "%s\n", pick(3) == 0 ? "==77== a message" : pick(2) ? "*" : "");
        else if (w == 3)
            put(&t, " L %llx,8\r\n", (unsigned long long)(rnd() >> 24)); /* CRLF: the slow path takes it */
        else if (w < 40)
            put(&t, "I  %08llx,%u\n", (unsigned long long)(rnd() >> 36), 1 + pick(15));
        else
            put(&t, " %c %llx,%u\n", "LSM"[pick(3)], (unsigned long long)(rnd() >> pick(40)), 1u << pick(5));
    }
    return t;
}

static void test_capture_conversion(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_test_capture_XXXXXX";
    assert_non_null(mkdtemp(dir));
    seed = 505;
    text t = capture_log(200000); /* several MiB: many reads of the pipe, lines across them */
    capture_and_compare(t.s, t.n, dir);
    /* a last line without its newline */
    capture_and_compare(t.s, t.n - 1, dir);
    /* a bad line deep in the log: the same error, at the same line */
    size_t mid = t.n / 2;
    while (t.s[mid - 1] != '\n')
        mid++;
    text bad = {0};
    put(&bad, "%.*s L 10,0\n%s", (int)mid, t.s, t.s + mid);
    capture_and_compare(bad.s, bad.n, dir);
    free(bad.s);
    free(t.s);
    rmdir(dir);
}

/* ---- the retrace Valgrind tool's stream (vg/rt_vgtool.c) ---- */

#define W_REF(addr, size, kind) ((uint64_t)(addr) | (uint64_t)(size) << 48 | (uint64_t)(kind) << 60)
#define W_REC(type, n) ((uint64_t)0xF << 60 | (uint64_t)(type) << 48 | (uint64_t)(n))
#define W_RUN(id) ((uint64_t)RT_VG_KIND_BLOCK << 60 | (uint64_t)(id))

typedef struct words {
    uint64_t *w;
    size_t n, cap;
} words;

static void word(words *s, uint64_t w)
{
    if (s->n == s->cap) {
        s->cap = s->cap * 2 + 1024;
        s->w = realloc(s->w, s->cap * sizeof *s->w);
        assert_non_null(s->w);
    }
    s->w[s->n++] = w;
}

/* What a stream stands for: its references and its allocation log. */
typedef struct tool_model {
    rt_memref *refs;
    size_t n, cap;
    uint64_t ifetches, data;
    text alloc;
} tool_model;

static void model_ref(tool_model *m, uint64_t addr, uint64_t size, int kind)
{
    if (m->n == m->cap) {
        m->cap = m->cap * 2 + 1024;
        m->refs = realloc(m->refs, m->cap * sizeof *m->refs);
        assert_non_null(m->refs);
    }
    m->refs[m->n++] = (rt_memref){addr, size, kind};
    if (kind == RT_REF_IFETCH)
        m->ifetches++;
    else
        m->data++;
}

/* Capture the words through the stand-in; the status, with res, err and the
 * allocation log's text (when alloc is not NULL). */
static int tool_capture(const words *s, const char *dir, rt_capture_result *res, rt_err *err, text *alloc)
{
    char apath[600];
    snprintf(apath, sizeof apath, "%s/alloc.txt", dir);
    int st = fake_capture(dir, s->w, s->n * sizeof *s->w, 1, res, err);
    FILE *f = fopen(apath, "r");
    if (f && alloc) {
        char buf[4096];
        size_t got;
        while ((got = fread(buf, 1, sizeof buf, f)) > 0)
            put(alloc, "%.*s", (int)got, buf);
    }
    if (f)
        fclose(f);
    unlink(apath);
    return st;
}

/* The references of dir/trace.rtmb against the model's; the file removed. */
static void check_rtmb(const char *dir, const tool_model *m)
{
    char rtmb[600];
    snprintf(rtmb, sizeof rtmb, "%s/trace.rtmb", dir);
    rt_test_expect_rtmb(rtmb, m->refs, m->n);
    unlink(rtmb);
}

/* A random stream of blocks described then run (addresses of any 64 bits among
 * their loads and stores), plain reference words, high references, thread
 * switches, allocations and frees, several MiB: runs cut by the ends of reads;
 * the allocation log against the model's fprintf. */
static void test_tool_stream(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_test_toolstream_XXXXXX";
    assert_non_null(mkdtemp(dir));
    seed = 606;
    enum { MAX_BLOCKS = 300 };
    static uint64_t entry[MAX_BLOCKS][RT_VG_BLOCK_MAX];
    unsigned nent[MAX_BLOCKS], nblocks = 0;
    words s = {0};
    tool_model m = {0};
    int thread = 0;
    for (unsigned step = 0; step < 400000; step++) {
        unsigned w = pick(100);
        if (nblocks == 0 || (w < 2 && nblocks < MAX_BLOCKS)) { /* describe a block */
            unsigned n = 1 + pick(RT_VG_BLOCK_MAX);
            word(&s, W_REC(RT_VG_BLOCK, 1 + n));
            word(&s, nblocks);
            for (unsigned k = 0; k < n; k++) {
                if (pick(3))
                    entry[nblocks][k] = W_REF(rnd() >> 17, 1 + pick(15), RT_VG_KIND_IFETCH);
                else
                    entry[nblocks][k] = W_REF(0, 1u << pick(5), pick(2));
                word(&s, entry[nblocks][k]);
            }
            nent[nblocks++] = n;
        } else if (w < 80) { /* a run of a block */
            unsigned b = pick(nblocks);
            word(&s, W_RUN(b));
            for (unsigned k = 0; k < nent[b]; k++) {
                uint64_t x = entry[b][k];
                int kind = (int)(x >> 60);
                uint64_t size = (x >> 48) & 0xfff;
                if (kind == RT_REF_IFETCH) {
                    model_ref(&m, x & 0xffffffffffffull, size, kind);
                } else {
                    uint64_t a = pick(50) ? rnd() >> 16 : rnd(); /* now and then bits above 47 */
                    word(&s, a);
                    model_ref(&m, a, size, kind);
                }
            }
        } else if (w < 95) { /* a plain reference */
            uint64_t a = rnd() >> 16;
            unsigned size = 1 + pick(16);
            int kind = (int)pick(3);
            word(&s, W_REF(a, size, kind));
            model_ref(&m, a, size, kind);
        } else if (w < 96) { /* a reference above 47 bits */
            uint64_t a = rnd() | 1ull << 63;
            word(&s, W_REC(RT_VG_REF, 2));
            word(&s, a);
            word(&s, W_REF(0, 8, RT_VG_KIND_WRITE));
            model_ref(&m, a, 8, RT_REF_WRITE);
        } else if (w < 98) { /* a thread switch */
            int t = 1 + (int)pick(3);
            word(&s, W_REC(RT_VG_THREAD, 1));
            word(&s, (uint64_t)t);
            if (t != thread)
                put(&m.alloc, "@%llu S %d\n", (unsigned long long)m.data, t - 1);
            thread = t;
        } else if (w < 99) { /* an allocation, with up to 8 return addresses ("0" for none) */
            uint64_t a = rnd() >> pick(64), size = pick(4) ? 1 + pick(4096) : rnd();
            unsigned frames = pick(9);
            word(&s, W_REC(RT_VG_ALLOC, 2 + frames));
            word(&s, a);
            word(&s, size);
            put(&m.alloc, "@%llu A %llx %llu ", (unsigned long long)m.data, (unsigned long long)a,
                (unsigned long long)size);
            for (unsigned k = 0; k < frames; k++) {
                uint64_t ret = rnd() >> pick(64);
                word(&s, ret);
                put(&m.alloc, k ? "/%llx" : "%llx", (unsigned long long)ret);
            }
            put(&m.alloc, "%s", frames ? "\n" : "0\n");
        } else { /* a free */
            uint64_t a = rnd() >> pick(64);
            word(&s, W_REC(RT_VG_FREE, 1));
            word(&s, a);
            put(&m.alloc, "@%llu F %llx\n", (unsigned long long)m.data, (unsigned long long)a);
        }
    }
    assert_true(s.n * 8 > (3u << 20)); /* several reads of the pipe */
    rt_capture_result res;
    rt_err err;
    text alloc = {0};
    int st = tool_capture(&s, dir, &res, &err, &alloc);
    assert_int_equal(st, RT_OK);
    assert_int_equal(res.exit_code, 0);
    assert_int_equal(res.records, m.n);
    assert_int_equal(res.ifetches, m.ifetches);
    assert_int_equal(res.refs, m.data);
    assert_int_equal(res.bytes_in, s.n * 8);
    put(&alloc, "%s", "");
    put(&m.alloc, "%s", "");
    assert_string_equal(alloc.s, m.alloc.s);
    check_rtmb(dir, &m);
    free(s.w);
    free(m.refs);
    free(m.alloc.s);
    free(alloc.s);
    rmdir(dir);
}

/* Malformed block records and runs: one line naming the stream and the
 * record's number (references, records and runs counted from 1). */
static void test_tool_stream_errors(void **state)
{
    (void)state;
    char dir[] = "/tmp/rt_test_toolerr_XXXXXX";
    assert_non_null(mkdtemp(dir));
    static const struct {
        uint64_t w[24];
        size_t n;
        const char *msg;
    } bad[] = {
        {{W_REC(RT_VG_BLOCK, 3), 0, W_REF(0x401000, 4, 2), W_REF(0, 8, 1), W_REC(RT_VG_BLOCK, 2), 5,
          W_REF(0x401004, 2, 2)},
         7,
         "retrace tool stream:2: record: block 5 where block 1 was next"},
        {{W_REF(0x1000, 8, 0), W_REC(RT_VG_BLOCK, 3), 0, W_REF(0x401000, 4, 2), W_REF(0, 8, 3)},
         5,
         "retrace tool stream:2: record: block 0 entry 2: 3008000000000000 is not a fetch, a load or a store"},
        {{W_REC(RT_VG_BLOCK, 2), 0, W_REF(0x10, 8, 0)},
         3,
         "retrace tool stream:1: record: block 0 entry 1: 0008000000000010 is not a fetch, a load or a store"},
        {{W_REC(RT_VG_BLOCK, 2), 0, W_REF(0x401000, 0, 2)},
         3,
         "retrace tool stream:1: record: block 0 entry 1: 2000000000401000 is not a fetch, a load or a store"},
        {{W_REC(RT_VG_BLOCK, 1), 0}, 2, "retrace tool stream:1: record: type 7 with 1 words is not the tool's"},
        {{W_REC(RT_VG_BLOCK, 2 + RT_VG_BLOCK_MAX)},
         1 + 2 + RT_VG_BLOCK_MAX,
         "retrace tool stream:1: record: type 7 with 18 words is not the tool's"},
        {{W_REF(0x1000, 8, 0), W_RUN(0)}, 2, "retrace tool stream:2: word: 3000000000000000 names no block described before"},
        {{W_REC(RT_VG_BLOCK, 3), 0, W_REF(0, 8, 0), W_REF(0, 4, 1), W_RUN(0), 0x1000},
         6,
         "retrace tool stream:2: stream: ends inside a record"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        words s = {0};
        for (size_t k = 0; k < bad[i].n; k++)
            word(&s, bad[i].w[k]);
        rt_capture_result res;
        rt_err err;
        int st = tool_capture(&s, dir, &res, &err, NULL);
        assert_int_equal(st, RT_EFORMAT);
        assert_string_equal(err.msg, bad[i].msg);
        free(s.w);
        char rtmb[600];
        snprintf(rtmb, sizeof rtmb, "%s/trace.rtmb", dir);
        unlink(rtmb);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_din_batch_random),
        cmocka_unit_test(test_xdin_batch_random),
        cmocka_unit_test(test_lackey_batch_random),
        cmocka_unit_test(test_batch_by_hand),
        cmocka_unit_test(test_lackey_parse_block),
        cmocka_unit_test(test_capture_conversion),
        cmocka_unit_test(test_tool_stream),
        cmocka_unit_test(test_tool_stream_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
