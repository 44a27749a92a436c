/*
 * rt_index_block.c - the index's event blocks (see rt_index_block.h).
 */
#include "rt_index_block.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "rt_error.h"
#include "rt_mem.h"
#include "rt_tevent.h"

enum { S_TIME, S_CODE, S_ARG };

/* zstd's level: -1 (its fast mode) packs the gen_otf2_mpi blocks to 78% in half the instructions of
 * level 1 (70%), which would cost the build a tenth of its rate (bench/README.md, index section). */
#define IXB_LEVEL (-1)
/* Room each stream keeps free for one event (its largest encoding is 25 bytes). */
#define IXB_EVENT_ROOM 32

/* ---- varints ---- */

static inline size_t put_varint(unsigned char *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    return n;
}

static inline uint64_t zz(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t unzz(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Read a varint from [*p, end); 0 on overrun or a varint longer than 10 bytes. */
static inline int get_varint(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
    const unsigned char *q = *p;
    if (q < end && !(*q & 0x80)) {
        *v = *q;
        *p = q + 1;
        return 1;
    }
    uint64_t r = 0;
    int shift = 0;
    while (q < end && shift < 70) {
        unsigned char c = *q++;
        r |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *v = r;
            *p = q;
            return 1;
        }
        shift += 7;
    }
    return 0;
}

/* A size as stored: whole bytes, 0 for none or a negative one, saturated at 2^63 - 1. */
static inline uint64_t whole_bytes(uint64_t b) { return b > (uint64_t)INT64_MAX ? (uint64_t)INT64_MAX : b; }

/* ---- encoding ---- */

static inline int reserve(rt_ixb_enc *e, int k, size_t n)
{
    if (e->n[k] + n <= e->cap[k])
        return RT_OK;
    return rt_grow((void **)&e->s[k], &e->cap[k], e->n[k] + n, 1);
}

static inline void put(rt_ixb_enc *e, int k, uint64_t v) { e->n[k] += put_varint(e->s[k] + e->n[k], v); }

int rt_ixb_begin(rt_ixb_enc *e, int64_t t, size_t depth)
{
    e->n[S_TIME] = e->n[S_CODE] = e->n[S_ARG] = 0;
    e->first = e->prev = t;
    e->tag = 0;
    e->nev = 0;
    e->open = 1;
    if (reserve(e, S_CODE, IXB_EVENT_ROOM) != RT_OK)
        return RT_ENOMEM;
    put(e, S_CODE, depth);
    return RT_OK;
}

int rt_ixb_frame(rt_ixb_enc *e, int region, int64_t entered)
{
    if (region < 0 || entered > e->first)
        return RT_EINVAL;
    if (reserve(e, S_CODE, IXB_EVENT_ROOM) != RT_OK)
        return RT_ENOMEM;
    put(e, S_CODE, (uint64_t)region);
    put(e, S_CODE, (uint64_t)e->first - (uint64_t)entered);
    return RT_OK;
}

int rt_ixb_put(rt_ixb_enc *e, int proc, const rt_ixb_event *ev)
{
    if (ev->t < e->prev || ev->kind < RT_TE_ENTER || ev->kind > RT_TE_COUNTER)
        return RT_EINVAL;
    if (reserve(e, S_TIME, IXB_EVENT_ROOM) != RT_OK || reserve(e, S_CODE, IXB_EVENT_ROOM) != RT_OK ||
        reserve(e, S_ARG, IXB_EVENT_ROOM) != RT_OK)
        return RT_ENOMEM;
    uint64_t kind = (uint64_t)(ev->kind - 1);
    switch (ev->kind) {
    case RT_TE_ENTER:
    case RT_TE_LEAVE:
    case RT_TE_MARKER:
    case RT_TE_COUNTER:
        if (ev->id < 0)
            return RT_EINVAL;
        put(e, S_CODE, (uint64_t)ev->id << 3 | kind);
        if (ev->kind == RT_TE_COUNTER) {
            memcpy(e->s[S_ARG] + e->n[S_ARG], &ev->value, sizeof ev->value);
            e->n[S_ARG] += sizeof ev->value;
        }
        break;
    case RT_TE_SEND:
    case RT_TE_RECV: {
        int same = ev->tag == e->tag, comm0 = ev->comm == 0;
        put(e, S_CODE, zz((int64_t)ev->peer - proc) << 5 | (same ? 16u : 0u) | (comm0 ? 0u : 8u) | kind);
        if (!same)
            put(e, S_ARG, zz((int64_t)((uint64_t)ev->tag - (uint64_t)e->tag)));
        e->tag = ev->tag;
        put(e, S_ARG, whole_bytes(ev->bytes));
        if (!comm0)
            put(e, S_ARG, zz(ev->comm));
        break;
    }
    case RT_TE_COLL_BEGIN:
    case RT_TE_COLL_END:
        put(e, S_CODE, zz(ev->comm) << 3 | kind);
        put(e, S_ARG, zz(ev->peer));
        put(e, S_ARG, whole_bytes(ev->bytes));
        put(e, S_ARG, whole_bytes(ev->bytes_in));
        break;
    }
    put(e, S_TIME, (uint64_t)ev->t - (uint64_t)e->prev);
    if (ev->kind == RT_TE_RECV)
        put(e, S_TIME, ev->has_ts ? zz((int64_t)((uint64_t)ev->t - (uint64_t)ev->ts)) + 1 : 0);
    e->prev = ev->t;
    e->nev++;
    return RT_OK;
}

/* Bytes a varint of v takes. */
static size_t varint_len(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* The unpacked block: the streams and the varints of the first two's lengths. */
static size_t unpacked_size(const rt_ixb_enc *e)
{
    return varint_len(e->n[S_TIME]) + varint_len(e->n[S_CODE]) + e->n[S_TIME] + e->n[S_CODE] + e->n[S_ARG];
}

void rt_ixb_free(rt_ixb_enc *e)
{
    for (int k = 0; k < 3; k++)
        free(e->s[k]);
    memset(e, 0, sizeof *e);
}

int rt_ixb_pack(rt_ixb_packer *z, rt_ixb_enc *e, const unsigned char **data, size_t *len, uint32_t *raw)
{
    size_t n = unpacked_size(e);
    if (!e->open || n > UINT32_MAX)
        return RT_EINVAL;
    if (rt_grow((void **)&z->raw, &z->capraw, n, 1) != RT_OK)
        return RT_ENOMEM;
    size_t at = put_varint(z->raw, e->n[S_TIME]);
    at += put_varint(z->raw + at, e->n[S_CODE]);
    for (int k = 0; k < 3; k++) {
        if (e->n[k])
            memcpy(z->raw + at, e->s[k], e->n[k]);
        at += e->n[k];
    }
    e->open = 0;
    e->n[S_TIME] = e->n[S_CODE] = e->n[S_ARG] = 0;
    e->nev = 0;
    *data = z->raw;
    *len = n;
    *raw = 0;
    size_t bound = ZSTD_compressBound(n);
    if (!z->cctx && !(z->cctx = ZSTD_createCCtx()))
        return RT_ENOMEM;
    if (rt_grow((void **)&z->out, &z->capout, bound, 1) != RT_OK)
        return RT_ENOMEM;
    size_t c = ZSTD_compressCCtx(z->cctx, z->out, bound, z->raw, n, IXB_LEVEL);
    if (!ZSTD_isError(c) && c < n) {
        *data = z->out;
        *len = c;
        *raw = (uint32_t)n;
    }
    return RT_OK;
}

void rt_ixb_packer_free(rt_ixb_packer *z)
{
    ZSTD_freeCCtx(z->cctx);
    free(z->raw);
    free(z->out);
    memset(z, 0, sizeof *z);
}

/* ---- decoding ---- */

void rt_ixb_unpacker_free(rt_ixb_unpacker *u)
{
    ZSTD_freeDCtx(u->dctx);
    free(u->buf);
    memset(u, 0, sizeof *u);
}

int rt_ixb_open(rt_ixb_dec *d, rt_ixb_unpacker *u, const unsigned char *data, size_t len, uint32_t raw,
                size_t max_raw, int proc, int64_t tfirst, uint64_t *depth)
{
    const unsigned char *p = data, *end = data + len;
    if (raw) {
        if (raw > max_raw || raw <= len)
            return -1;
        if (!u->dctx && !(u->dctx = ZSTD_createDCtx()))
            return -1;
        if (rt_grow((void **)&u->buf, &u->cap, raw, 1) != RT_OK)
            return -1;
        size_t n = ZSTD_decompressDCtx(u->dctx, u->buf, raw, data, len);
        if (ZSTD_isError(n) || n != raw)
            return -1;
        p = u->buf;
        end = u->buf + raw;
    }
    uint64_t nt, nc;
    if (!get_varint(&p, end, &nt) || !get_varint(&p, end, &nc) || nt > (uint64_t)(end - p) ||
        nc > (uint64_t)(end - p) - nt)
        return -1;
    d->p[S_TIME] = p;
    d->end[S_TIME] = d->p[S_CODE] = p + nt;
    d->end[S_CODE] = d->p[S_ARG] = p + nt + nc;
    d->end[S_ARG] = end;
    d->proc = proc;
    d->t = tfirst;
    d->tag = 0;
    if (!get_varint(&d->p[S_CODE], d->end[S_CODE], &d->frames) || d->frames > nc)
        return -1;
    *depth = d->frames;
    return 0;
}

int rt_ixb_frame_next(rt_ixb_dec *d, int *region, int64_t *entered)
{
    uint64_t r, back;
    if (!d->frames || !get_varint(&d->p[S_CODE], d->end[S_CODE], &r) ||
        !get_varint(&d->p[S_CODE], d->end[S_CODE], &back) || r > INT_MAX)
        return -1;
    d->frames--;
    *region = (int)r;
    *entered = (int64_t)((uint64_t)d->t - back);
    return 1;
}

/* A zigzag varint from stream k that must hold an int. */
static inline int get_int(rt_ixb_dec *d, int k, int *v)
{
    uint64_t x;
    if (!get_varint(&d->p[k], d->end[k], &x))
        return 0;
    int64_t y = unzz(x);
    if (y < INT_MIN || y > INT_MAX)
        return 0;
    *v = (int)y;
    return 1;
}

int rt_ixb_next(rt_ixb_dec *d, rt_ixb_event *ev)
{
    while (d->frames) {
        int r;
        int64_t en;
        if (rt_ixb_frame_next(d, &r, &en) < 0)
            return -1;
    }
    if (d->p[S_CODE] == d->end[S_CODE])
        return d->p[S_TIME] == d->end[S_TIME] && d->p[S_ARG] == d->end[S_ARG] ? 0 : -1;
    uint64_t dt, code;
    if (!get_varint(&d->p[S_TIME], d->end[S_TIME], &dt) || !get_varint(&d->p[S_CODE], d->end[S_CODE], &code))
        return -1;
    ev->kind = (int)(code & 7) + 1;
    ev->t = d->t = (int64_t)((uint64_t)d->t + dt);
    uint64_t arg = code >> 3;
    switch (ev->kind) {
    case RT_TE_ENTER:
    case RT_TE_LEAVE:
    case RT_TE_MARKER:
    case RT_TE_COUNTER:
        if (arg > INT_MAX)
            return -1;
        ev->id = (int)arg;
        if (ev->kind == RT_TE_COUNTER) {
            if ((size_t)(d->end[S_ARG] - d->p[S_ARG]) < sizeof ev->value)
                return -1;
            memcpy(&ev->value, d->p[S_ARG], sizeof ev->value);
            d->p[S_ARG] += sizeof ev->value;
        }
        return 1;
    case RT_TE_SEND:
    case RT_TE_RECV: {
        int64_t rel = unzz(arg >> 2);
        if (rel < 2 * (int64_t)INT_MIN || rel > 2 * (int64_t)INT_MAX)
            return -1;
        int64_t peer = rel + d->proc;
        if (peer < INT_MIN || peer > INT_MAX)
            return -1;
        ev->peer = (int)peer;
        if (!(arg & 2)) {
            uint64_t x;
            if (!get_varint(&d->p[S_ARG], d->end[S_ARG], &x))
                return -1;
            d->tag = (int64_t)((uint64_t)d->tag + (uint64_t)unzz(x));
        }
        ev->tag = d->tag;
        ev->comm = 0;
        if (!get_varint(&d->p[S_ARG], d->end[S_ARG], &ev->bytes) || ((arg & 1) && !get_int(d, S_ARG, &ev->comm)))
            return -1;
        ev->has_ts = 0;
        if (ev->kind == RT_TE_RECV) {
            uint64_t f;
            if (!get_varint(&d->p[S_TIME], d->end[S_TIME], &f))
                return -1;
            ev->has_ts = f != 0;
            if (f)
                ev->ts = (int64_t)((uint64_t)ev->t - (uint64_t)unzz(f - 1));
        }
        return 1;
    }
    case RT_TE_COLL_BEGIN:
    case RT_TE_COLL_END: {
        int64_t comm = unzz(arg);
        if (comm < INT_MIN || comm > INT_MAX)
            return -1;
        ev->comm = (int)comm;
        if (!get_int(d, S_ARG, &ev->peer) || !get_varint(&d->p[S_ARG], d->end[S_ARG], &ev->bytes) ||
            !get_varint(&d->p[S_ARG], d->end[S_ARG], &ev->bytes_in))
            return -1;
        return 1;
    }
    }
    return -1;
}
