/*
 * rt_test.h - helpers shared by the C tests (cmocka): temporary input files,
 * reading a file whole, fixture paths, running the `retrace` program with its
 * output captured, format-neutral events to feed a replay, an RTMB file's
 * references against the expected ones. Header only (static inline), so every tests/c/test_*.c stays
 * one self-contained program; include it after <cmocka.h>, whose assertions a
 * failing helper uses to fail the calling test.
 */
#ifndef RT_TEST_H
#define RT_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_memtrace.h"
#include "rt_tevent.h"

/* Write n bytes to a new file /tmp/rt_test_XXXXXX; returns its path (malloc'd:
 * give it back with rt_test_remove). Fails the test when the file cannot be made. */
static inline char *rt_test_write(const void *data, size_t n)
{
    char *path = strdup("/tmp/rt_test_XXXXXX");
    assert_non_null(path);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, data, n), (ssize_t)n);
    close(fd);
    return path;
}

/* rt_test_write of a NUL-terminated text (without the NUL). */
static inline char *rt_test_write_text(const char *text)
{
    return rt_test_write(text, strlen(text));
}

/* Remove a file made by rt_test_write and free its path. */
static inline void rt_test_remove(char *path)
{
    unlink(path);
    free(path);
}

/* The whole file at path, NUL-terminated (malloc'd); its size in *len when len
 * is not NULL. Fails the test when the file cannot be read. */
static inline char *rt_test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

/* The path of a file in tests/fixtures: RETRACE_FIXTURES "/" and the printf-style
 * rest, written in buf of cap bytes; returns buf. */
__attribute__((format(printf, 3, 4))) static inline const char *
rt_test_fixture(char *buf, size_t cap, const char *fmt, ...)
{
    int n = snprintf(buf, cap, "%s/", RETRACE_FIXTURES);
    assert_true(n > 0 && (size_t)n < cap);
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(buf + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    assert_true(m >= 0 && (size_t)m < cap - (size_t)n);
    return buf;
}

/* The `retrace` program under test ($RETRACE_BIN, else ./retrace). */
static inline const char *rt_test_bin(void)
{
    const char *b = getenv("RETRACE_BIN");
    return b ? b : "./retrace";
}

/* Copy at most cap - 1 bytes of the file at path into out, NUL-terminated. */
static inline void rt_test_read_into(const char *path, char *out, size_t cap)
{
    size_t n;
    char *text = rt_test_read_file(path, &n);
    if (n > cap - 1)
        n = cap - 1;
    memcpy(out, text, n);
    out[n] = '\0';
    free(text);
}

/* Run a shell command line with stdout and stderr captured (each cut to its
 * buffer's size, NUL-terminated); returns the exit code, -1 when it did not exit. */
static inline int rt_test_run(const char *cmdline, char *out, size_t outcap, char *err,
                              size_t errcap)
{
    char *outf = rt_test_write("", 0), *errf = rt_test_write("", 0);
    size_t len = strlen(cmdline) + strlen(outf) + strlen(errf) + 16;
    char *cmd = malloc(len);
    assert_non_null(cmd);
    snprintf(cmd, len, "%s >%s 2>%s", cmdline, outf, errf);
    int st = system(cmd);
    free(cmd);
    rt_test_read_into(outf, out, outcap);
    rt_test_read_into(errf, err, errcap);
    rt_test_remove(outf);
    rt_test_remove(errf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* A format-neutral event of the given kind on proc at time t in region (ENTER, LEAVE). */
static inline rt_tevent rt_test_event(int kind, int proc, double t, int region)
{
    rt_tevent ev;
    rt_tevent_clear(&ev);
    ev.kind = kind;
    ev.proc = proc;
    ev.time = t;
    ev.region = region;
    return ev;
}

/* A SEND or RECV event on proc at time t with its peer, communicator, tag and bytes. */
static inline rt_tevent rt_test_message(int kind, int proc, double t, int peer, int comm, long tag, double bytes)
{
    rt_tevent ev = rt_test_event(kind, proc, t, 0);
    ev.peer = peer;
    ev.comm = comm;
    ev.tag = tag;
    ev.bytes = bytes;
    return ev;
}

/* The references of the RTMB file at path are refs[0, n), in order, and no more. */
static inline void rt_test_expect_rtmb(const char *path, const rt_memref *refs, size_t n)
{
    rt_err err;
    rt_memtrace *t = rt_memtrace_open(path, RT_MEMFMT_RTMB, &err);
    assert_non_null(t);
    rt_memref r;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rt_memtrace_next(t, &r, &err), RT_OK);
        assert_int_equal(r.addr, refs[i].addr);
        assert_int_equal(r.size, refs[i].size);
        assert_int_equal(r.kind, refs[i].kind);
    }
    assert_int_equal(rt_memtrace_next(t, &r, &err), RT_EEOF);
    rt_memtrace_free(t);
}

#endif
