/* Tests of the memory-trace readers (din, xdin, lackey, RTMB), every error
 * they report, the trace-driven simulation (line splitting, ignored records,
 * flushes, miss classification by hand) and the one-pass sweep against
 * separate single-size runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt_cache.h"
#include "rt_memsim.h"
#include "rt_memtrace.h"
#include "rt_sweep.h"
#include "rt_test.h"

static char *write_temp(const void *data, size_t n)
{
    char *path = strdup("/tmp/rt_test_mem_XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

static char *temp_text(const char *s)
{
    return write_temp(s, strlen(s));
}

/* read a whole trace of format fmt; returns count, fills refs (up to cap) */
static size_t read_all(const char *path, int fmt, rt_memref *refs, size_t cap, int *status,
                       rt_err *err)
{
    rt_memtrace *t = rt_memtrace_open(path, fmt, err);
    if (!t) {
        *status = err->status;
        return 0;
    }
    size_t n = 0;
    rt_memref r;
    int st;
    while ((st = rt_memtrace_next(t, &r, err)) == RT_OK) {
        if (n < cap)
            refs[n] = r;
        n++;
    }
    *status = st;
    rt_memtrace_free(t);
    return n;
}

/* the error message of reading text as fmt (the file name replaced by F) */
static void expect_status(int fmt, const char *text, int status, const char *msg)
{
    char *p = temp_text(text);
    rt_memref refs[8];
    rt_err err;
    int st;
    read_all(p, fmt, refs, 8, &st, &err);
    assert_int_equal(st, status);
    char want[600];
    snprintf(want, sizeof want, "%s:%s", p, msg);
    assert_string_equal(err.msg, want);
    unlink(p);
    free(p);
}

static void expect_error(int fmt, const char *text, const char *msg)
{
    expect_status(fmt, text, RT_EFORMAT, msg);
}

static void test_din(void **state)
{
    (void)state;
    char *p = temp_text("0 1000\n1 7fff000b a comment\n\n2 400\n3 0\n4 0\n  0 0x11\n");
    rt_memref r[8];
    rt_err err;
    int st;
    size_t n = read_all(p, RT_MEMFMT_DIN, r, 8, &st, &err);
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(n, 6);
    int kinds[] = {RT_REF_READ, RT_REF_WRITE, RT_REF_IFETCH, RT_REF_MISC, RT_REF_FLUSH, RT_REF_READ};
    uint64_t addrs[] = {0x1000, 0x7fff0008, 0x400, 0, 0, 0x10};
    for (size_t i = 0; i < n; i++) { /* 4 bytes at 4-byte aligned addresses, as Dinero IV */
        assert_int_equal(r[i].kind, kinds[i]);
        assert_int_equal(r[i].addr, addrs[i]);
        assert_int_equal(r[i].size, 4); /* a flush too: the line of its address */
    }
    unlink(p);
    free(p);
}

/* the batch reader (a fast path over whole buffers) against the line reader */
static void test_din_batch_equals_lines(void **state)
{
    (void)state;
    size_t cap = 1 << 22, len = 0;
    char *text = malloc(cap);
    uint64_t x = 9;
    for (int i = 0; i < 60000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        unsigned v = (unsigned)(x >> 59);
        unsigned digits = 1 + (unsigned)((x >> 40) % 16);
        unsigned long long a = x * 0x9E3779B97F4A7C15ull;
        if (digits < 16)
            a &= (1ull << (4 * digits)) - 1;
        const char *fmt = v == 0   ? "  %d\t%llx\n"
                          : v == 1 ? "%d 0x%llX\r\n"
                          : v == 2 ? "%d %llx some comment\n"
                          : v == 3 ? "\n%d %llx\n"
                                   : "%d %llx\n";
        len += (size_t)snprintf(text + len, cap - len, fmt, (int)((x >> 30) % 5), a);
    }
    len += (size_t)snprintf(text + len, cap - len, "1 abc"); /* no final newline */
    char *p = write_temp(text, len);
    rt_err err;
    rt_memtrace *one = rt_memtrace_open(p, RT_MEMFMT_DIN, &err);
    rt_memtrace *many = rt_memtrace_open(p, RT_MEMFMT_DIN, &err);
    rt_memref b[100], r;
    size_t n, total = 0;
    while (rt_memtrace_read(many, b, 100, &n, &err) == RT_OK) {
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rt_memtrace_next(one, &r, &err), RT_OK);
            assert_int_equal(b[i].addr, r.addr);
            assert_int_equal(b[i].kind, r.kind);
        }
        total += n;
    }
    assert_int_equal(rt_memtrace_next(one, &r, &err), RT_EEOF);
    assert_int_equal(total, 60001);
    rt_memtrace_free(one);
    rt_memtrace_free(many);
    unlink(p);
    free(p);
    /* an error inside a batch comes after the references before it */
    p = temp_text("0 10\n1 20\n0 30\n0 3g\n0 40\n0 11112222333344445\n");
    many = rt_memtrace_open(p, RT_MEMFMT_DIN, &err);
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_OK);
    assert_int_equal(n, 3);
    assert_int_equal(b[2].addr, 0x30);
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_EFORMAT);
    assert_int_equal(n, 0);
    char want[300];
    snprintf(want, sizeof want, "%s:4: address: '3g' is not hexadecimal", p);
    assert_string_equal(err.msg, want);
    rt_memtrace_free(many);
    many = rt_memtrace_open(p, RT_MEMFMT_DIN, &err);
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_OK);
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_EFORMAT); /* line 4 */
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(b[0].addr, 0x40);
    assert_int_equal(rt_memtrace_read(many, b, 100, &n, &err), RT_ERANGE);
    snprintf(want, sizeof want, "%s:6: address: '11112222333344445' is out of range (more than 64 bits)", p);
    assert_string_equal(err.msg, want);
    rt_memtrace_free(many);
    unlink(p);
    free(p);
    free(text);
}

static void test_din_errors(void **state)
{
    (void)state;
    expect_error(RT_MEMFMT_DIN, "0 10\n5 20\n", "2: label: '5' is not 0-4");
    expect_error(RT_MEMFMT_DIN, "r 20\n", "1: label: 'r' is not 0-4");
    expect_error(RT_MEMFMT_DIN, "0 10\n\n1\n", "3: address: missing");
    expect_error(RT_MEMFMT_DIN, "0 12g4\n", "1: address: '12g4' is not hexadecimal");
    /* all hex digits, but more than 64 bits of them: a range error, not "not hexadecimal" */
    expect_status(RT_MEMFMT_DIN, "0 11112222333344445\n", RT_ERANGE,
                  "1: address: '11112222333344445' is out of range (more than 64 bits)");
    expect_status(RT_MEMFMT_DIN, "0 99999999999999999999\n", RT_ERANGE,
                  "1: address: '99999999999999999999' is out of range (more than 64 bits)");
    /* leading zeros are not significant */
    char *p = temp_text("0 000000000000000000000000ff\n");
    rt_memref r[2];
    rt_err err;
    int st;
    assert_int_equal(read_all(p, RT_MEMFMT_DIN, r, 2, &st, &err), 1);
    assert_int_equal(r[0].addr, 0xfc); /* din: 4 aligned bytes */
    unlink(p);
    free(p);
    /* binary junk is escaped and cut short in the message */
    expect_error(RT_MEMFMT_DIN, "\x01\xff\x02 10\n", "1: label: '\\x01\\xff\\x02' is not 0-4");
    expect_error(RT_MEMFMT_DIN, "0 zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz\n",
                 "1: address: 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz...' is not hexadecimal");
}

static void test_xdin(void **state)
{
    (void)state;
    char *p = temp_text("r 1000 4\nw 1004 8\ni 400 2\nm 0 1\nc 0 0\nv 0 0\nr 8 0\nc 40 80\n");
    rt_memref r[8];
    rt_err err;
    int st;
    size_t n = read_all(p, RT_MEMFMT_XDIN, r, 8, &st, &err);
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(n, 8);
    int kinds[] = {RT_REF_READ, RT_REF_WRITE, RT_REF_IFETCH, RT_REF_MISC, RT_REF_FLUSH,
                   RT_REF_INVALIDATE, RT_REF_READ, RT_REF_FLUSH};
    /* size 0: one byte for an access; the whole cache for c and v */
    uint64_t sizes[] = {4, 8, 2, 1, 0, 0, 1, 0x80};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].kind, kinds[i]);
        assert_int_equal(r[i].size, sizes[i]);
    }
    assert_int_equal(r[1].addr, 0x1004);
    unlink(p);
    free(p);
}

static void test_xdin_errors(void **state)
{
    (void)state;
    expect_error(RT_MEMFMT_XDIN, "r 10 4\nx 10 4\n",
                 "2: access type: 'x' is not one of r w i m c v");
    expect_error(RT_MEMFMT_XDIN, "rw 10 4\n", "1: access type: 'rw' is not one of r w i m c v");
    expect_error(RT_MEMFMT_XDIN, "r\n", "1: address: missing");
    expect_error(RT_MEMFMT_XDIN, "r zz 4\n", "1: address: 'zz' is not hexadecimal");
    expect_error(RT_MEMFMT_XDIN, "r 10\n", "1: size: missing");
    expect_error(RT_MEMFMT_XDIN, "r 10 q\n", "1: size: 'q' is not hexadecimal");
    expect_error(RT_MEMFMT_XDIN, "r 10 4 9\n", "1: unexpected field '9' after the size");
    /* an access running past the top of the address space */
    expect_status(RT_MEMFMT_XDIN, "r ffffffffffffff00 200\n", RT_ERANGE,
                  "1: size: 0x200 bytes from address 0xffffffffffffff00 run past the top of the address space");
    expect_status(RT_MEMFMT_XDIN, "r ffffffffffffff00 100\nr ffffffffffffffff 2\n", RT_ERANGE,
                  "2: size: 0x2 bytes from address 0xffffffffffffffff run past the top of the address space");
    /* a size no reference has (the cache would walk 2^34 lines) */
    expect_error(RT_MEMFMT_XDIN, "r 1000 8\nr 1000 4294967296\n",
                 "2: size: 0x4294967296: more than 16 MiB in one reference");
}

static void test_lackey(void **state)
{
    (void)state;
    char *p = temp_text("==123== Lackey, an example Valgrind tool\n"
                        "I  04016c1e,3\n"
                        " S 1ffefffe48,8\n"
                        " L 04225e68,8\n"
                        " M 0422a1a0,4\n"
                        "==123== \n");
    rt_memref r[8];
    rt_err err;
    int st;
    size_t n = read_all(p, RT_MEMFMT_LACKEY, r, 8, &st, &err);
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(n, 5); /* M is a load then a store */
    int kinds[] = {RT_REF_IFETCH, RT_REF_WRITE, RT_REF_READ, RT_REF_READ, RT_REF_WRITE};
    uint64_t addrs[] = {0x04016c1e, 0x1ffefffe48, 0x04225e68, 0x0422a1a0, 0x0422a1a0};
    uint64_t sizes[] = {3, 8, 8, 4, 4};
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(r[i].kind, kinds[i]);
        assert_int_equal(r[i].addr, addrs[i]);
        assert_int_equal(r[i].size, sizes[i]);
    }
    unlink(p);
    free(p);
}

static void test_lackey_errors(void **state)
{
    (void)state;
    expect_error(RT_MEMFMT_LACKEY, " L 10,4\n X 10,4\n", "2: access type: 'X' is not I, L, S or M");
    expect_error(RT_MEMFMT_LACKEY, " L 10 4\n", "1: address: '10' is not HEXADDR,SIZE");
    expect_status(RT_MEMFMT_LACKEY, " L 100000000000000000,4\n", RT_ERANGE,
                  "1: address: '100000000000000000,4' is out of range (more than 64 bits)");
    expect_error(RT_MEMFMT_LACKEY, " L ,4\n", "1: address: ',4' is not HEXADDR,SIZE");
    expect_error(RT_MEMFMT_LACKEY, " L 10,\n", "1: size: '' is not a positive number");
    expect_error(RT_MEMFMT_LACKEY, " L 10,0\n", "1: size: '0' is not a positive number");
    expect_error(RT_MEMFMT_LACKEY, " S 10,4x\n", "1: size: '4x' is not a positive number");
    /* a trailing field after the size is named as such, not taken for a bad size */
    expect_error(RT_MEMFMT_LACKEY, " L 10,1 00001010\n", "1: unexpected field '00001010' after the size (a lackey line is TYPE ADDRESS,SIZE)");
    expect_error(RT_MEMFMT_LACKEY, " I 0400d7d4,8 x y\n", "1: unexpected field 'x' after the size (a lackey line is TYPE ADDRESS,SIZE)");
    expect_error(RT_MEMFMT_LACKEY, " L 7ff000,99999999999\n",
                 "1: size: 99999999999: more than 16 MiB in one reference");
    /* an access running past the top of the address space */
    expect_status(RT_MEMFMT_LACKEY, " L 10,4\n L ffffffffffffffff,8\n", RT_ERANGE,
                  "2: size: 8 bytes from address 0xffffffffffffffff run past the top of the address space");
    expect_status(RT_MEMFMT_LACKEY, " M fffffffffffffffc,8\n", RT_ERANGE,
                  "1: size: 8 bytes from address 0xfffffffffffffffc run past the top of the address space");
}

/* the one-line parsers (for a format detector): the reader's result and errors */
static void test_parse_line(void **state)
{
    (void)state;
    rt_memref r;
    rt_err err;
    const char *l = "2 130 4\ti1\n";
    assert_int_equal(rt_din_parse_line(l, strlen(l), "f", 3, &r, &err), RT_OK);
    assert_int_equal(r.kind, RT_REF_IFETCH);
    assert_int_equal(r.addr, 0x130);
    assert_int_equal(r.size, 4);
    l = "r 0x10034a28 0x4";
    assert_int_equal(rt_xdin_parse_line(l, strlen(l), "f", 1, &r, &err), RT_OK);
    assert_int_equal(r.addr, 0x10034a28);
    assert_int_equal(r.size, 4);
    l = "r 0x10034a28 0x4\n";
    assert_int_equal(rt_din_parse_line(l, strlen(l), "f", 7, &r, &err), RT_EFORMAT);
    assert_string_equal(err.msg, "f:7: label: 'r' is not 0-4");
    l = "   \n";
    assert_int_equal(rt_xdin_parse_line(l, strlen(l), "f", 2, &r, &err), RT_EFORMAT);
    assert_string_equal(err.msg, "f:2: label: missing (a blank line)");
    l = "r ffffffffffffffff 8";
    assert_int_equal(rt_xdin_parse_line(l, strlen(l), "f", 1, &r, &err), RT_ERANGE);
}

/* lines as Dinero IV's own tools write them: p2d's din with size and comment
 * fields, xdin with 0x prefixes */
static void test_dinero_tool_lines(void **state)
{
    (void)state;
    char *p = temp_text("2 130 4\ti1\n0 7fff0010 8\td7\n1 7fff0013\n");
    rt_memref r[4];
    rt_err err;
    int st;
    size_t n = read_all(p, RT_MEMFMT_DIN, r, 4, &st, &err);
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].kind, RT_REF_IFETCH);
    assert_int_equal(r[0].addr, 0x130);
    assert_int_equal(r[1].addr, 0x7fff0010);
    assert_int_equal(r[2].kind, RT_REF_WRITE);
    assert_int_equal(r[2].addr, 0x7fff0010); /* 4 aligned bytes, whatever the size field says */
    for (int i = 0; i < 3; i++)
        assert_int_equal(r[i].size, 4);
    unlink(p);
    free(p);
    p = temp_text("r 0x10034a28 0x4\nw 0X10 0x10\ni 400 2\n");
    n = read_all(p, RT_MEMFMT_XDIN, r, 4, &st, &err);
    assert_int_equal(st, RT_EEOF);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].addr, 0x10034a28);
    assert_int_equal(r[0].size, 4);
    assert_int_equal(r[1].kind, RT_REF_WRITE);
    assert_int_equal(r[1].addr, 0x10);
    assert_int_equal(r[1].size, 16);
    assert_int_equal(r[2].size, 2);
    unlink(p);
    free(p);
}

static void test_rtmb_roundtrip(void **state)
{
    (void)state;
    enum { N = 300000 };
    rt_memref *in = malloc(N * sizeof *in);
    uint64_t x = 77;
    uint64_t bases[] = {0, 0x7ffffff000ull, 0x400000, UINT64_MAX - 4096, 0x10000000};
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        in[i].kind = (int)((x >> 40) % RT_REF_KINDS);
        in[i].size = (x >> 20) % 5 ? 8 : 1 + (x >> 45) % 300;
        in[i].addr = bases[(x >> 50) % 5] + ((x >> 10) & 4095);
        if ((x >> 30) % 97 == 0)
            in[i].addr = x; /* anywhere */
    }
    char path[] = "/tmp/rt_test_rtmb_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(path, &err);
    assert_non_null(w);
    for (int i = 0; i < N; i++)
        assert_int_equal(rt_rtmb_write(w, &in[i], &err), RT_OK);
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    rt_test_expect_rtmb(path, in, N); /* one at a time */
    /* in batches of an odd size, across buffer refills */
    rt_memtrace *t = rt_memtrace_open(path, RT_MEMFMT_RTMB, &err);
    rt_memref batch[777];
    size_t n, k = 0;
    while (rt_memtrace_read(t, batch, 777, &n, &err) == RT_OK)
        for (size_t i = 0; i < n; i++, k++)
            assert_int_equal(batch[i].addr, in[k].addr);
    assert_int_equal(k, N);
    rt_memtrace_free(t);
    unlink(path);
    free(in);
}

/* The writer's choice of register against a slow model of the rule: the
 * register nearest the address (the lowest of equals), the least recently
 * used when none is within 2^20. Streams that walk a few regions in small
 * steps (where the writer's shortcut applies), jump between them, repeat
 * addresses, cross 0 and the top of the address space; written one by one
 * and in batches of random sizes. The tag of each record names the register. */
static void test_rtmb_register_choice(void **state)
{
    (void)state;
    enum { N = 400000 };
    rt_memref *in = malloc(N * sizeof *in);
    assert_non_null(in);
    uint64_t x = 99, cur[6] = {0x400000, 0x400100, 0x400200, 8, UINT64_MAX - 64, 0x10080000};
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* stretches of a fixed cycle over three walks (the writer predicts those),
         * stretches of walks in random order */
        unsigned which = (i >> 10) & 1 ? (unsigned)(i % 3) : (unsigned)((x >> 58) % 6);
        unsigned step = (unsigned)((x >> 20) % 100);
        if (step < 70)
            cur[which] += (x >> 30) % 64 - 32 + which; /* a small step either way: walks cross */
        else if (step < 80)
            cur[which] = (cur[which] & ~(uint64_t)4095) + (x >> 30) % 4096; /* within its page */
        else if (step < 85)
            cur[which] -= (x >> 30) % 300000; /* back, a region's width */
        else if (step < 88)
            cur[which] = x; /* elsewhere */
        else if (step < 90)
            cur[which] = cur[(which + 1) % 6]; /* where another is */
        /* else the same address again */
        in[i].addr = cur[which];
        in[i].kind = (int)((x >> 40) % 3);
        in[i].size = (x >> 44) % 3 ? 8 : 1 + (x >> 46) % 16;
    }
    char path[] = "/tmp/rt_test_rtmb_choice_XXXXXX";
    close(mkstemp(path));
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(path, &err);
    assert_non_null(w);
    for (size_t i = 0; i < N;) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        size_t n = (x >> 33) % 3 ? 1 + (x >> 40) % 5000 : 1, done;
        if (n > N - i)
            n = N - i;
        if (n == 1)
            assert_int_equal(rt_rtmb_write(w, &in[i], &err), RT_OK);
        else
            assert_int_equal(rt_rtmb_write_many(w, &in[i], n, &done, &err), RT_OK);
        i += n;
    }
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static unsigned char buf[N * 21 + 16];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint64_t reg[8] = {0}, used[8] = {0}, size = 1;
    size_t p = 16;
    for (int i = 0; i < N; i++) {
        unsigned best = 0;
        uint64_t bestd = UINT64_MAX;
        for (unsigned k = 0; k < 8; k++) {
            uint64_t d = in[i].addr - reg[k];
            if (d > 0 - d)
                d = 0 - d;
            if (d < bestd) {
                bestd = d;
                best = k;
            }
        }
        if (bestd >= (1u << 20))
            for (unsigned k = 0; k < 8; k++)
                if (used[k] < used[best])
                    best = k;
        assert_true(p < len);
        unsigned tag = buf[p++];
        assert_int_equal((tag >> 4) & 7, best);
        assert_int_equal(tag & 7, (unsigned)in[i].kind);
        assert_int_equal(!!(tag & 8), in[i].size != size);
        for (int field = tag & 8 ? 2 : 1; field > 0; field--)
            while (buf[p++] & 0x80)
                assert_true(p < len);
        reg[best] = in[i].addr;
        used[best] = (uint64_t)i + 1;
        size = in[i].size;
    }
    assert_int_equal(p, len);
    /* a record the format cannot hold stops a batch there: those before it are written */
    w = rt_rtmb_create(path, &err);
    assert_non_null(w);
    rt_memref three[3] = {{0x1000, 8, RT_REF_READ}, {0x1008, 8, RT_REF_WRITE}, {0x1010, 8, 9}};
    size_t done = 99;
    assert_int_equal(rt_rtmb_write_many(w, three, 3, &done, &err), RT_EINVAL);
    assert_int_equal(done, 2);
    assert_non_null(strstr(err.msg, ": record: kind 9 size 8 cannot be written"));
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    rt_test_expect_rtmb(path, three, 2);
    unlink(path);
    free(in);
}

static void test_rtmb_compact(void **state)
{
    (void)state;
    /* interleaved streams cost about two bytes a record */
    char path[] = "/tmp/rt_test_rtmb_XXXXXX";
    close(mkstemp(path));
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(path, &err);
    for (uint64_t i = 0; i < 10000; i++) {
        rt_memref a = {0x7fff0000 - 8 * (i % 16), 8, RT_REF_WRITE};
        rt_memref b = {0x10000000 + 8 * i, 8, RT_REF_READ};
        rt_memref c = {0x400000 + 4 * i, 4, RT_REF_IFETCH};
        rt_rtmb_write(w, &a, &err);
        rt_rtmb_write(w, &b, &err);
        rt_rtmb_write(w, &c, &err);
    }
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    assert_true(size < 16 + 30000 * 3);
    unlink(path);
}

static void expect_rtmb_error(const unsigned char *data, size_t n, int records_ok, const char *msg)
{
    char *p = write_temp(data, n);
    rt_memref r[8];
    rt_err err;
    int st;
    size_t got = read_all(p, RT_MEMFMT_RTMB, r, 8, &st, &err);
    assert_int_equal(got, records_ok);
    assert_int_not_equal(st, RT_EEOF);
    char want[600];
    snprintf(want, sizeof want, "%s: %s", p, msg);
    assert_string_equal(err.msg, want);
    unlink(p);
    free(p);
}

static void test_rtmb_errors(void **state)
{
    (void)state;
    unsigned char h[40] = "RTMB\r\n\032\n\001\000\000\000\000\000\000\000";
    expect_rtmb_error((const unsigned char *)"0 1000\n", 7, 0, "magic: not an RTMB binary trace");
    unsigned char v2[16];
    memcpy(v2, h, 16);
    v2[8] = 2;
    expect_rtmb_error(v2, 16, 0, "version: 2 not supported (this program reads 1)");
    memcpy(v2, h, 16);
    v2[10] = 1;
    expect_rtmb_error(v2, 16, 0, "flags: unknown value 0x1");
    /* a good record (read, +8 from register 0), then a bad tag */
    memcpy(h + 16, "\x00\x10\x07\x00", 4);
    expect_rtmb_error(h, 20, 1, "record 2 (byte 18): tag: bad value 0x07");
    memcpy(h + 16, "\x00\x10\x80\x00", 4);
    expect_rtmb_error(h, 20, 1, "record 2 (byte 18): tag: bad value 0x80");
    /* a delta cut short by the end of the file */
    memcpy(h + 16, "\x00\x10\x01\x90", 4);
    expect_rtmb_error(h, 20, 1, "record 2 (byte 18): address: truncated");
    /* size 0 */
    memcpy(h + 16, "\x08\x00\x10", 3);
    expect_rtmb_error(h, 19, 0, "record 1 (byte 16): size: 0");
    /* size 2^24 + 1 (LEB128 81 80 80 08) */
    memcpy(h + 16, "\x08\x81\x80\x80\x08\x10", 6);
    expect_rtmb_error(h, 22, 0, "record 1 (byte 16): size: more than 16 MiB in one reference");
    rt_err err;
    assert_null(rt_rtmb_open("/nonexistent/x.rtmb", &err));
    assert_string_equal(err.msg, "/nonexistent/x.rtmb: No such file or directory");
    assert_null(rt_rtmb_create("/nonexistent/dir/x.rtmb", &err));
    assert_string_equal(err.msg, "/nonexistent/dir/x.rtmb: No such file or directory");
}

/* run a text trace through a cache; returns the result */
static rt_memsim_result sim_text(const char *text, int fmt, rt_cache *c, rt_cache *shadow,
                                 int unified, int sweep)
{
    char *p = temp_text(text);
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(p, fmt, &err);
    assert_non_null(t);
    rt_memsim_opts o = {.unified = unified, .shadow = shadow, .sweep = sweep};
    rt_memsim_result res;
    assert_int_equal(rt_memsim_run(c, t, &o, &res, &err), RT_OK);
    rt_memtrace_free(t);
    unlink(p);
    free(p);
    return res;
}

static rt_cache *make(uint64_t size, uint64_t line, uint64_t ways, int wb)
{
    rt_cache_config cfg = rt_cache_defaults(size, line);
    cfg.ways = ways;
    cfg.write_back = wb;
    rt_cache *c;
    assert_int_equal(rt_cache_new(&cfg, &c, NULL), RT_OK);
    return c;
}

static void test_memsim_lines_and_ignored(void **state)
{
    (void)state;
    /* 64-byte lines: r 3e 4 spans lines 0 and 1 (2 refs); w 40 40 is line 1
     * exactly (hit); i is ignored unless unified; m is ignored. */
    const char *t = "r 3e 4\nw 40 40\ni 1000 4\nm 0 1\nr 80 1\n";
    rt_cache *c = make(1024, 64, 4, 1);
    rt_memsim_result r = sim_text(t, RT_MEMFMT_XDIN, c, NULL, 0, 0);
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(r.records, 5);
    assert_int_equal(r.ignored, 2);
    assert_int_equal(r.ifetches, 1);
    assert_int_equal(s->refs, 4);
    assert_int_equal(s->reads, 3);
    assert_int_equal(s->writes, 1);
    assert_int_equal(s->misses, 3);
    assert_int_equal(s->write_misses, 0);
    rt_cache_free(c);
    c = make(1024, 64, 4, 1);
    r = sim_text(t, RT_MEMFMT_XDIN, c, NULL, 1, 0);
    s = rt_cache_stats_get(c);
    assert_int_equal(r.ignored, 1);
    assert_int_equal(s->refs, 5);
    assert_int_equal(s->misses, 4);
    rt_cache_free(c);
}

static void test_memsim_flush(void **state)
{
    (void)state;
    /* two dirty lines; label 4 writes back and empties the line of its
     * address (4 bytes, as Dinero IV reads din), so the next read of line 0
     * misses again and line 0x40 stays dirty */
    rt_cache *c = make(1024, 64, 0, 1);
    rt_memsim_result r = sim_text("1 0\n1 40\n0 0\n4 0\n0 0\n", RT_MEMFMT_DIN, c, NULL, 0, 0);
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(r.flushes, 1);
    assert_int_equal(s->writebacks, 1);
    assert_int_equal(s->refs, 4);
    assert_int_equal(s->misses, 3);
    rt_cache_free(c);
    /* write-through: stores never look up */
    c = make(1024, 64, 0, 0);
    sim_text("1 0\n1 40\n0 0\n", RT_MEMFMT_DIN, c, NULL, 0, 0);
    s = rt_cache_stats_get(c);
    assert_int_equal(s->refs, 1);
    assert_int_equal(s->misses, 1);
    assert_int_equal(s->bypassed_writes, 2);
    rt_cache_free(c);
}

/* xdin c and v act on the lines their range covers (Dinero IV), size 0 on
 * the whole cache. Cache: 1 KiB, 64-byte lines, fully associative, write-back. */
static void test_memsim_flush_ranges(void **state)
{
    (void)state;
    /* dirty lines 0 1 2 (stores at 0, 40, 80), clean line 3 (load at c0).
     * "c 44 40" covers bytes 44..83: lines 1 and 2, both dirty: 2 writebacks,
     * both emptied. Then loads of 0 40 80 c0: 0 and c0 hit, 40 and 80 miss. */
    rt_cache *c = make(1024, 64, 0, 1);
    rt_memsim_result r = sim_text("w 0 4\nw 40 4\nw 80 4\nr c0 4\nc 44 40\n"
                                  "r 0 4\nr 40 4\nr 80 4\nr c0 4\n",
                                  RT_MEMFMT_XDIN, c, NULL, 0, 0);
    const rt_cache_stats *s = rt_cache_stats_get(c);
    assert_int_equal(r.flushes, 1);
    assert_int_equal(s->writebacks, 2);
    assert_int_equal(s->refs, 8);
    assert_int_equal(s->misses, 4 + 2);
    /* line 0 still dirty, lines 1 2 refilled clean: a whole flush writes back 1 */
    rt_cache_flush_range(c, 0, 0, 0);
    assert_int_equal(rt_cache_stats_get(c)->writebacks, 3);
    rt_cache_free(c);

    /* invalidate: "v 0 41" covers bytes 0..40, lines 0 and 1 (dirty): dropped,
     * no writeback; line 2 stays (dirty) and is the only one written back by
     * the whole-cache "c 0 0"; 0 and 40 miss again, 80 hits until that flush. */
    c = make(1024, 64, 0, 1);
    r = sim_text("w 0 4\nw 40 4\nw 80 4\nv 0 41\nr 80 4\nr 0 4\nr 40 4\nc 0 0\nr 80 4\n",
                 RT_MEMFMT_XDIN, c, NULL, 0, 0);
    s = rt_cache_stats_get(c);
    assert_int_equal(r.flushes, 2);
    assert_int_equal(s->writebacks, 1);
    assert_int_equal(s->refs, 7);
    assert_int_equal(s->misses, 3 + 2 + 1);
    rt_cache_free(c);

    /* a range flush leaves a hole; the next miss in that set fills the lowest
     * empty way. Direct sets: 2 sets x 2 ways, 64-byte lines (256 bytes).
     * Lines 0 2 fill set 0 ways 0 1; "v 0 1" empties way 0; line 4 goes to
     * way 0, so line 2 (way 1) is still there and hits. */
    c = make(256, 64, 2, 1);
    sim_text("r 0 1\nr 80 1\nv 0 1\nr 100 1\nr 80 1\n", RT_MEMFMT_XDIN, c, NULL, 0, 0);
    assert_int_equal(rt_cache_line_at(c, 0, 0), 4);
    assert_int_equal(rt_cache_line_at(c, 0, 1), 2);
    assert_int_equal(rt_cache_stats_get(c)->misses, 3);
    assert_int_equal(rt_cache_stats_get(c)->hits, 1);
    rt_cache_free(c);

    /* a range wider than the cache (all of memory) takes the scan over the
     * ways: everything dropped */
    c = make(256, 64, 2, 1);
    sim_text("w 0 1\nr 80 1\nv 0 ffffffffffffffff\nr 0 1\nr 80 1\n", RT_MEMFMT_XDIN, c, NULL, 0,
             0);
    assert_int_equal(rt_cache_stats_get(c)->misses, 4);
    assert_int_equal(rt_cache_stats_get(c)->writebacks, 0);
    rt_cache_free(c);
}

static void test_classify_by_hand(void **state)
{
    (void)state;
    /* direct mapped, 4 one-byte lines (sets 0-3); the shadow is fully
     * associative with 4 lines. 0: compulsory; 4 (set 0): compulsory, evicts 0;
     * 0: the shadow still has it -> conflict; 4: conflict. 1 2 3: compulsory
     * (3 makes the shadow evict its LRU line, 0); 5 (set 1): compulsory (the
     * shadow evicts 4); 0 (set 0 holds 4): the shadow misses too -> capacity. */
    rt_cache *c = make(4, 1, 1, 1);
    rt_cache *sh = make(4, 1, 0, 1);
    rt_memsim_result r = sim_text("r 0 1\nr 4 1\nr 0 1\nr 4 1\nr 1 1\nr 2 1\nr 3 1\nr 5 1\nr 0 1\n",
                                  RT_MEMFMT_XDIN, c, sh, 0, 0);
    assert_true(r.classified);
    assert_int_equal(rt_cache_stats_get(c)->misses, 9);
    assert_int_equal(r.compulsory, 6);
    assert_int_equal(r.conflict, 2);
    assert_int_equal(r.capacity, 1);
    rt_cache_free(c);
    rt_cache_free(sh);
}

static void test_sweep_by_hand(void **state)
{
    (void)state;
    /* lines a b c a b d a: distances -, -, -, 3, 3, -, 3 (a after b, d) */
    rt_sweep *s = rt_sweep_new();
    uint64_t t[] = {10, 11, 12, 10, 11, 13, 10};
    for (int i = 0; i < 7; i++)
        assert_int_equal(rt_sweep_ref(s, t[i]), RT_OK);
    assert_int_equal(rt_sweep_distinct(s), 4);
    assert_int_equal(rt_sweep_misses(s, 0), 7); /* 1 line */
    assert_int_equal(rt_sweep_misses(s, 1), 7); /* 2 lines */
    assert_int_equal(rt_sweep_misses(s, 2), 4); /* 4 lines: only compulsory */
    assert_int_equal(rt_sweep_top(s), 2);
    rt_sweep_free(s);
}

static void test_sweep_vs_single_runs(void **state)
{
    (void)state;
    /* 400000 references with locality over about 6000 lines (so times are
     * compacted several times); every power-of-two size checked against a
     * separate fully associative LRU cache. */
    enum { N = 400000, K = 14 };
    rt_sweep *s = rt_sweep_new();
    rt_cache *c[K];
    for (int k = 0; k < K; k++)
        c[k] = make(1u << k, 1, 0, 1);
    uint64_t x = 3, hot = 0;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t line;
        unsigned r = (unsigned)(x >> 60);
        if (r < 8)
            line = hot + ((x >> 20) % 16);
        else if (r < 14)
            line = (x >> 24) % 1024;
        else
            line = (x >> 24) % 6000;
        if ((x >> 40) % 1000 == 0)
            hot = (x >> 12) % 5000;
        assert_int_equal(rt_sweep_ref(s, line), RT_OK);
        for (int k = 0; k < K; k++)
            rt_cache_access(c[k], line, 0, NULL);
    }
    assert_int_equal(rt_sweep_refs(s), N);
    assert_true(rt_sweep_compactions(s) >= 2);
    for (int k = 0; k < K; k++) {
        assert_int_equal(rt_sweep_misses(s, (unsigned)k), rt_cache_stats_get(c[k])->misses);
        rt_cache_free(c[k]);
    }
    rt_sweep_free(s);
}

static void test_memsim_sweep_sizes(void **state)
{
    (void)state;
    /* 64-byte lines, 5 distinct lines: sizes 64 .. 512 bytes reported */
    rt_cache *c = make(256, 64, 0, 1);
    rt_memsim_result r = sim_text("0 0\n0 40\n0 80\n0 c0\n0 100\n0 0\n0 40\n", RT_MEMFMT_DIN, c,
                                  NULL, 0, 1);
    assert_true(r.swept);
    assert_int_equal(r.sweep_n, 4);
    assert_int_equal(r.sweep_size[0], 64);
    assert_int_equal(r.sweep_size[3], 512);
    /* distances of the last two: 5 each -> miss below 8 lines */
    assert_int_equal(r.sweep_misses[0], 7);
    assert_int_equal(r.sweep_misses[2], 7);
    assert_int_equal(r.sweep_misses[3], 5);
    /* the 4-line (256-byte) cache itself agrees */
    assert_int_equal(rt_cache_stats_get(c)->misses, 7);
    rt_cache_free(c);
    /* write-through: the stores are looked up nowhere, the sweep included */
    c = make(256, 64, 0, 0);
    r = sim_text("1 0\n0 40\n1 40\n0 0\n0 40\n", RT_MEMFMT_DIN, c, NULL, 0, 1);
    assert_int_equal(r.sweep_refs, 3);
    assert_int_equal(r.sweep_misses[0], 3); /* 1 line: 40, 0, 40 all miss */
    assert_int_equal(r.sweep_misses[1], 2); /* 2 lines: the second 40 hits */
    assert_int_equal(rt_cache_stats_get(c)->refs, 3);
    rt_cache_free(c);
}

/* A binary trace of every kind but flushes, odd sizes, references that span
 * lines, long deltas and a size change now and then: the simulation (whose
 * fast path decodes runs of single-line references straight into addresses)
 * counts exactly what a plain loop over rt_memtrace_next and
 * rt_cache_access_range counts. */
static void test_memsim_rtmb_equals_reference(void **state)
{
    (void)state;
    enum { N = 200000 };
    char path[] = "/tmp/rt_test_rtmb_sim_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(path, &err);
    assert_non_null(w);
    uint64_t x = 4242, size = 8;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        rt_memref r;
        unsigned k = (unsigned)(x >> 58);
        r.kind = k < 2 ? RT_REF_IFETCH : k < 3 ? RT_REF_MISC : (x >> 13) % 3 == 0;
        if ((x >> 20) % 500 == 0)
            size = (x >> 30) % 3 ? 8 : 1 + (x >> 33) % 100;
        r.size = size;
        unsigned pick = (unsigned)(x >> 24) % 16;
        if (pick < 10)
            r.addr = 0x7fff0000 + ((x >> 32) % 3000);
        else if (pick < 15)
            r.addr = 0x10000000 + ((x >> 32) % 70000);
        else
            r.addr = x >> 8; /* far: a long delta */
        assert_int_equal(rt_rtmb_write(w, &r, &err), RT_OK);
    }
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    uint64_t geo[][2] = {{32768, 64}, {4096, 32}, {1024, 4}, {64, 1}};
    for (size_t g = 0; g < 4; g++) {
        for (int unified = 0; unified < 2; unified++) {
            rt_cache *c = make(geo[g][0], geo[g][1], 8 < geo[g][0] / geo[g][1] ? 8 : 0, 1);
            rt_cache *ref = make(geo[g][0], geo[g][1], 8 < geo[g][0] / geo[g][1] ? 8 : 0, 1);
            rt_memtrace *t = rt_memtrace_open(path, RT_MEMFMT_RTMB, &err);
            /* the sweep too (its thread fed many blocks): against one fed line by line */
            rt_memsim_opts o = {.unified = unified, .sweep = 1};
            rt_memsim_result res;
            assert_int_equal(rt_memsim_run(c, t, &o, &res, &err), RT_OK);
            rt_memtrace_free(t);
            t = rt_memtrace_open(path, RT_MEMFMT_RTMB, &err);
            rt_sweep *sw = rt_sweep_new();
            unsigned shift = (unsigned)__builtin_ctzll(geo[g][1]);
            rt_memref r;
            uint64_t records = 0, ignored = 0;
            while (rt_memtrace_next(t, &r, &err) == RT_OK) {
                records++;
                if (r.kind == RT_REF_MISC || (r.kind == RT_REF_IFETCH && !unified)) {
                    ignored++;
                    continue;
                }
                assert_int_equal(rt_cache_access_range(ref, r.addr, r.size,
                                                       r.kind == RT_REF_WRITE, NULL),
                                 RT_OK);
                uint64_t last = (r.addr + r.size - 1) >> shift;
                if (last < r.addr >> shift)
                    last = UINT64_MAX >> shift;
                for (uint64_t l = r.addr >> shift;; l++) {
                    assert_int_equal(rt_sweep_ref(sw, l), RT_OK);
                    if (l == last)
                        break;
                }
            }
            assert_true(res.swept);
            assert_int_equal(res.sweep_refs, rt_sweep_refs(sw));
            assert_true(res.sweep_refs > 8 * 4096);
            for (unsigned k = 0; k < res.sweep_n; k++)
                assert_int_equal(res.sweep_misses[k], rt_sweep_misses(sw, k));
            assert_int_equal(res.sweep_n, rt_sweep_top(sw) + 1);
            rt_sweep_free(sw);
            rt_memtrace_free(t);
            assert_int_equal(res.records, records);
            assert_int_equal(res.ignored, ignored);
            assert_memory_equal(rt_cache_stats_get(c), rt_cache_stats_get(ref),
                                sizeof(rt_cache_stats));
            assert_true(rt_cache_stats_get(c)->refs > N / 2);
            rt_cache_free(c);
            rt_cache_free(ref);
        }
    }
    unlink(path);
}

/* The sweep's two stages on two threads, through several renumberings of
 * its times (400000 references over about 3000 lines): the same misses at
 * every size as a sweep fed line by line. */
static void test_memsim_sweep_compacts(void **state)
{
    (void)state;
    enum { N = 400000 };
    char path[] = "/tmp/rt_test_rtmb_sw_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    rt_err err;
    rt_rtmb_writer *w = rt_rtmb_create(path, &err);
    rt_sweep *sw = rt_sweep_new();
    uint64_t x = 99, hot = 0;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t line = (x >> 60) < 9 ? hot + (x >> 20) % 24 : (x >> 24) % 3000;
        if ((x >> 40) % 2000 == 0)
            hot = (x >> 12) % 2900;
        rt_memref r = {.addr = line * 64 + (x >> 8) % 56, .size = 8, .kind = (x >> 5) & 1};
        assert_int_equal(rt_rtmb_write(w, &r, &err), RT_OK);
        assert_int_equal(rt_sweep_ref(sw, line), RT_OK);
    }
    assert_int_equal(rt_rtmb_close(w, &err), RT_OK);
    assert_true(rt_sweep_compactions(sw) >= 2);
    rt_cache *c = make(4096, 64, 8, 1);
    rt_memtrace *t = rt_memtrace_open(path, RT_MEMFMT_RTMB, &err);
    rt_memsim_opts o = {.sweep = 1};
    rt_memsim_result res;
    assert_int_equal(rt_memsim_run(c, t, &o, &res, &err), RT_OK);
    assert_int_equal(res.sweep_refs, N);
    assert_int_equal(res.sweep_n, rt_sweep_top(sw) + 1);
    for (unsigned k = 0; k < res.sweep_n; k++)
        assert_int_equal(res.sweep_misses[k], rt_sweep_misses(sw, k));
    rt_memtrace_free(t);
    rt_cache_free(c);
    rt_sweep_free(sw);
    unlink(path);
}

static void test_memsim_stops_at_error(void **state)
{
    (void)state;
    rt_cache *c = make(1024, 64, 0, 1);
    char *p = temp_text("0 0\n0 40\n7 80\n0 0\n");
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(p, RT_MEMFMT_DIN, &err);
    rt_memsim_result res;
    assert_int_equal(rt_memsim_run(c, t, NULL, &res, &err), RT_EFORMAT);
    char want[300];
    snprintf(want, sizeof want, "%s:3: label: '7' is not 0-4", p);
    assert_string_equal(err.msg, want);
    assert_int_equal(rt_cache_stats_get(c)->refs, 2);
    rt_memtrace_free(t);
    unlink(p);
    free(p);
    rt_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_din),
        cmocka_unit_test(test_din_batch_equals_lines),
        cmocka_unit_test(test_din_errors),
        cmocka_unit_test(test_xdin),
        cmocka_unit_test(test_xdin_errors),
        cmocka_unit_test(test_dinero_tool_lines),
        cmocka_unit_test(test_parse_line),
        cmocka_unit_test(test_lackey),
        cmocka_unit_test(test_lackey_errors),
        cmocka_unit_test(test_rtmb_roundtrip),
        cmocka_unit_test(test_rtmb_register_choice),
        cmocka_unit_test(test_rtmb_compact),
        cmocka_unit_test(test_rtmb_errors),
        cmocka_unit_test(test_memsim_lines_and_ignored),
        cmocka_unit_test(test_memsim_flush),
        cmocka_unit_test(test_memsim_flush_ranges),
        cmocka_unit_test(test_classify_by_hand),
        cmocka_unit_test(test_sweep_by_hand),
        cmocka_unit_test(test_sweep_vs_single_runs),
        cmocka_unit_test(test_memsim_sweep_sizes),
        cmocka_unit_test(test_memsim_rtmb_equals_reference),
        cmocka_unit_test(test_memsim_sweep_compacts),
        cmocka_unit_test(test_memsim_stops_at_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
