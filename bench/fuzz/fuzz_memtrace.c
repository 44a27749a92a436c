/* libFuzzer target: the memory-trace readers (din, xdin, lackey, RTMB) feeding
 * a small cache, and the batched reader (rt_memtrace_read) checked against
 * the record-by-record one on the same file: the same references, the same
 * messages, or abort. The first byte picks the format; the rest is the file,
 * which also goes whole to rt_lackey_parse_block (a copy of exactly its bytes,
 * so a read past them is the sanitizer's to catch). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "rt_cache.h"
#include "rt_memtrace.h"

static int fmt; /* of the current input */

static void run(const char *path)
{
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(path, fmt, &err);
    if (t) {
        rt_cache_config cfg = rt_cache_defaults(1024, 16);
        cfg.ways = 2;
        rt_cache *c = NULL;
        if (rt_cache_new(&cfg, &c, &err) == RT_OK) {
            rt_memref r;
            for (int k = 0; k < 100000 && rt_memtrace_next(t, &r, &err) == RT_OK; k++)
                if (r.kind == RT_REF_READ || r.kind == RT_REF_WRITE)
                    rt_cache_access(c, r.addr, r.kind == RT_REF_WRITE, NULL);
            rt_cache_free(c);
        }
        rt_memtrace_free(t);
    }
}

static int same(const rt_memref *a, const rt_memref *b)
{
    return a->addr == b->addr && a->size == b->size && a->kind == b->kind;
}

/* both readers to the end (or 100000 references), going on after errors */
static void differ(const char *path)
{
    rt_err e1, e2;
    rt_memtrace *one = rt_memtrace_open(path, fmt, &e1);
    rt_memtrace *many = rt_memtrace_open(path, fmt, &e2);
    if (!one || !many)
        abort();
    static const size_t caps[] = {1, 2, 5, 64};
    rt_memref b[64], r;
    size_t total = 0;
    for (unsigned call = 0; total < 100000; call++) {
        size_t n;
        int st = rt_memtrace_read(many, b, caps[call % 4], &n, &e2);
        for (size_t i = 0; i < n; i++)
            if (rt_memtrace_next(one, &r, &e1) != RT_OK || !same(&r, &b[i]))
                abort();
        total += n + 1;
        if (st == RT_OK)
            continue;
        if (n != 0 || rt_memtrace_next(one, &r, &e1) != st)
            abort();
        if (st == RT_EEOF || st == RT_EIO)
            break;
        if (strcmp(e1.msg, e2.msg) != 0)
            abort();
    }
    rt_memtrace_free(one);
    rt_memtrace_free(many);
}

static void parse_block(const uint8_t *data, size_t n)
{
    char *buf = malloc(n ? n : 1);
    if (!buf)
        return;
    memcpy(buf, data, n);
    rt_memref out[8];
    size_t from = 0, got;
    unsigned long lines;
    while (from < n) {
        size_t used = rt_lackey_parse_block(buf + from, n - from, out, 8, &got, &lines);
        if (used == 0) { /* the caller's line: step over it */
            const char *nl = memchr(buf + from, '\n', n - from);
            if (!nl)
                break;
            used = (size_t)(nl - (buf + from)) + 1;
        }
        from += used;
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
    if (n < 1)
        return 0;
    fmt = data[0] % RT_MEMFMT_COUNT;
    rt_fuzz_with_file(data + 1, n - 1, run);
    if (fmt != RT_MEMFMT_RTMB)
        rt_fuzz_with_file(data + 1, n - 1, differ);
    parse_block(data + 1, n - 1);
    return 0;
}
