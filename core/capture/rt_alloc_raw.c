/* rt_alloc_raw.c - the passes over a capture's allocation records (see rt_alloc_raw.h). */
#include "rt_alloc_raw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_lines.h"
#include "rt_out.h"
#include "rt_strmap.h"

static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

/* `@SEQ KIND`: the digits of SEQ and the kind; 0 when the line does not start so. */
static int head_of(const char *p, size_t n, size_t *seq_end, char *kind)
{
    size_t i = 1;
    if (n < 4 || p[0] != '@')
        return 0;
    while (i < n && is_digit(p[i]))
        i++;
    if (i == 1 || i + 1 >= n || p[i] != ' ' || p[i + 1] < 'A' || p[i + 1] > 'Z')
        return 0;
    *seq_end = i;
    *kind = p[i + 1];
    return 1;
}

/* An A record's fields after `@SEQ A `: ADDR (hex) SIZE (digits) PCS ([hex/]+), the whole rest. */
static int a_fields(const char *p, size_t n, size_t *addr_end, size_t *size_end)
{
    size_t i = 0;
    while (i < n && is_hex(p[i]))
        i++;
    if (i == 0 || i >= n || p[i] != ' ')
        return 0;
    *addr_end = i++;
    size_t s = i;
    while (i < n && is_digit(p[i]))
        i++;
    if (i == s || i >= n || p[i] != ' ')
        return 0;
    *size_end = i++;
    if (i >= n)
        return 0;
    for (; i < n; i++)
        if (!is_hex(p[i]) && p[i] != '/')
            return 0;
    return 1;
}

int rt_alloc_raw_scan(const char *raw, int (*on_path)(void *ud, const char *pcs, size_t n),
                      int (*on_other)(void *ud, char kind, const char *rest, size_t n), void *ud,
                      rt_err *err)
{
    rt_lines *in = rt_lines_open(raw, err);
    if (!in)
        return err->status;
    rt_strmap *seen = rt_strmap_new();
    if (!seen) {
        rt_lines_free(in);
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", raw);
    }
    const char *l;
    size_t n;
    int st;
    while ((st = rt_lines_next(in, &l, &n, err)) == RT_OK) {
        size_t q, ae, se;
        char kind;
        if (!head_of(l, n, &q, &kind) || q + 3 > n || l[q + 2] != ' ')
            continue;
        const char *rest = l + q + 3;
        size_t rn = n - q - 3;
        if (kind == 'A') {
            if (!a_fields(rest, rn, &ae, &se))
                continue;
            int created;
            if (!rt_strmap_put(seen, 0, rest + se + 1, rn - se - 1, &created)) {
                st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", raw);
                break;
            }
            if (created && (st = on_path(ud, rest + se + 1, rn - se - 1)) != RT_OK)
                break;
        } else if ((kind == 'L' || kind == 'K') && (st = on_other(ud, kind, rest, rn)) != RT_OK)
            break;
    }
    rt_strmap_free(seen);
    rt_lines_free(in);
    return st == RT_EEOF ? RT_OK : st;
}

int rt_alloc_raw_rewrite(const char *raw, const char *const out[2], const char *const head[2],
                         const size_t head_len[2], const char *tail, size_t tail_len,
                         const char *(*names)(void *ud, const char *pcs, size_t n), void *ud,
                         uint64_t *nalloc, rt_err *err)
{
    rt_lines *in = rt_lines_open(raw, err);
    if (!in)
        return err->status;
    rt_out *o[2] = {NULL, NULL};
    FILE *f[2] = {NULL, NULL};
    int st = RT_OK;
    for (int k = 0; k < 2 && st == RT_OK; k++) {
        if (!(o[k] = rt_out_open(out[k], err)))
            st = err->status;
        else {
            f[k] = rt_out_fp(o[k]);
            fwrite(head[k], 1, head_len[k], f[k]);
            fwrite(tail, 1, tail_len, f[k]);
        }
    }
    uint64_t na = 0;
    long long proc = 0;
    const char *l;
    size_t n;
    while (st == RT_OK && (st = rt_lines_next(in, &l, &n, err)) == RT_OK) {
        size_t q, ae, se;
        char kind;
        if (!head_of(l, n, &q, &kind) || (kind != 'A' && kind != 'S' && kind != 'F'))
            continue;
        const char *rest = l + q + 2; /* after the kind: " ..." or the end */
        size_t rn = n - q - 2;
        const char *piece = NULL, *end = "\n"; /* written after `@SEQ K P`: " piece", then end */
        size_t piece_n = 0;
        if (kind == 'A') {
            if (rn < 2 || rest[0] != ' ' || !a_fields(rest + 1, rn - 1, &ae, &se))
                continue;
            if (!(end = names(ud, rest + 1 + se + 1, rn - 1 - se - 1))) {
                st = rt_err_at(err, RT_EINVAL, raw, rt_lines_lineno(in), "call path: not named");
                break;
            }
            piece = rest + 1; /* ADDR SIZE; the names end the line */
            piece_n = se;
            na++;
        } else {
            /* `@SEQ K`, then an optional blank and the rest */
            if (rn > 0 && rest[0] == ' ') {
                rest++;
                rn--;
            }
            if (kind == 'F') {
                piece = rest;
                piece_n = rn;
            } else { /* a thread number (an integer, as Lua's tonumber reads it); else the thread stays */
                char num[32];
                if (rn > 0 && rn < sizeof num) {
                    memcpy(num, rest, rn);
                    num[rn] = '\0';
                    char *e;
                    errno = 0;
                    long long v = strtoll(num, &e, 10);
                    if (e != num && *e == '\0' && errno == 0)
                        proc = v;
                }
            }
        }
        for (int k = 0; k < 2; k++) {
            fwrite(l, 1, q, f[k]);
            fprintf(f[k], " %c %lld", kind, proc);
            if (piece) {
                fputc(' ', f[k]);
                fwrite(piece, 1, piece_n, f[k]);
            }
            fputs(end, f[k]);
        }
    }
    if (st == RT_EEOF)
        st = RT_OK;
    for (int k = 0; k < 2; k++) {
        if (!o[k])
            continue;
        if (st == RT_OK)
            st = rt_out_commit(o[k], err);
        else
            rt_out_abort(o[k]);
    }
    rt_lines_free(in);
    if (st == RT_OK && nalloc)
        *nalloc = na;
    return st;
}
