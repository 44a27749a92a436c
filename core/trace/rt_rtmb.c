/*
 * rt_rtmb.c - reader and writer of RTMB, the project's binary memory-reference
 * format (layout in rt_memtrace.h). Shaped for 10^8 records read at well over
 * 70 M records per second: one 1 MiB buffer, records decoded in place, a
 * refill only when fewer than a maximal record's bytes are left.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rt_input.h"
#include "rt_memtrace.h"
#include "rt_out.h"

#define RTMB_BUF (1u << 20)
#define RTMB_MAX_RECORD 21 /* tag + two 10-byte LEB128 numbers */

struct rt_rtmb {
    FILE *fp;
    char *name;
    unsigned char *buf;
    size_t pos, fill;   /* unread bytes are buf[pos, fill) */
    int eof;            /* fread hit the end */
    uint64_t base;      /* file offset of buf[0] */
    uint64_t size;      /* file size (0 when unknown) */
    uint64_t record;    /* 1-based number of the record last read */
    uint64_t reg[8];    /* address registers */
    uint64_t last_size;
    int pending;        /* a decoding error to report on the next call */
    rt_err pending_err;
};

void rt_rtmb_free(rt_rtmb *r)
{
    if (!r)
        return;
    if (r->fp)
        fclose(r->fp);
    free(r->name);
    free(r->buf);
    free(r);
}

static int refill(rt_rtmb *r, rt_err *err)
{
    if (rt_interrupt_pending())
        return rt_interrupt_check(err);
    size_t left = r->fill - r->pos;
    memmove(r->buf, r->buf + r->pos, left);
    r->base += r->pos;
    r->pos = 0;
    r->fill = left;
    while (!r->eof && r->fill < RTMB_BUF) {
        size_t got = fread(r->buf + r->fill, 1, RTMB_BUF - r->fill, r->fp);
        r->fill += got;
        if (got == 0) {
            if (ferror(r->fp))
                return rt_err_at(err, RT_EIO, r->name, 0, "read error: %s", strerror(errno));
            r->eof = 1;
        }
    }
    return RT_OK;
}

rt_rtmb *rt_rtmb_open(const char *path, rt_err *err)
{
    rt_rtmb *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(path)) || !(r->buf = malloc(RTMB_BUF))) {
        rt_err_at(err, RT_ENOMEM, path, 0, "out of memory");
        rt_rtmb_free(r);
        return NULL;
    }
    r->fp = rt_input_fopen(path, err);
    if (!r->fp) {
        rt_rtmb_free(r);
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(r->fp), &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            rt_err_at(err, RT_EIO, path, 0, "is a directory");
            rt_rtmb_free(r);
            return NULL;
        }
        if (S_ISREG(st.st_mode))
            r->size = (uint64_t)st.st_size;
    }
    if (refill(r, err) != RT_OK) {
        rt_rtmb_free(r);
        return NULL;
    }
    const unsigned char *h = r->buf;
    if (r->fill < 16 || memcmp(h, RT_RTMB_MAGIC, 8) != 0) {
        rt_err_at(err, RT_EFORMAT, path, 0, "magic: not an RTMB binary trace");
        rt_rtmb_free(r);
        return NULL;
    }
    unsigned version = h[8] | (unsigned)h[9] << 8;
    unsigned flags = h[10] | (unsigned)h[11] << 8;
    if (version != RT_RTMB_VERSION) {
        rt_err_at(err, RT_EFORMAT, path, 0, "version: %u not supported (this program reads %d)",
                  version, RT_RTMB_VERSION);
        rt_rtmb_free(r);
        return NULL;
    }
    if (flags != 0) {
        rt_err_at(err, RT_EFORMAT, path, 0, "flags: unknown value 0x%x", flags);
        rt_rtmb_free(r);
        return NULL;
    }
    r->pos = 16;
    r->last_size = 1;
    return r;
}

/* LEB128 at *p (bounded by end); 0 on overrun or more than 10 bytes */
static inline int leb(const unsigned char **p, const unsigned char *end, uint64_t *out)
{
    const unsigned char *s = *p;
    uint64_t v = 0;
    unsigned shift = 0;
    for (;;) {
        if (s == end || shift > 63)
            return 0;
        unsigned char b = *s++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80))
            break;
        shift += 7;
    }
    *p = s;
    *out = v;
    return 1;
}

/* Decoder state kept in locals during a batch (no aliasing with the output). */
typedef struct dstate {
    uint64_t reg[8];
    uint64_t last_size;
    uint64_t record;
} dstate;

static int bad_record(rt_rtmb *r, const dstate *d, const unsigned char *at, rt_err *err,
                      const char *what)
{
    return rt_err_at(err, RT_EFORMAT, r->name, 0, "record %llu (byte %llu): %s",
                     (unsigned long long)d->record,
                     (unsigned long long)(r->base + (uint64_t)(at - r->buf)), what);
}

/* Decode one record at p (whole, or cut by the file's end at `end`). Returns
 * the byte after it, or NULL with err filled. */
static inline const unsigned char *decode(rt_rtmb *r, dstate *d, const unsigned char *p,
                                          const unsigned char *end, rt_memref *ref, rt_err *err)
{
    const unsigned char *start = p;
    unsigned tag = *p++;
    unsigned kind = tag & 7;
    d->record++;
    if ((tag & 0x80) || kind >= RT_REF_KINDS) {
        char what[32];
        snprintf(what, sizeof what, "tag: bad value 0x%02x", tag);
        bad_record(r, d, start, err, what);
        return NULL;
    }
    if (tag & 8) {
        uint64_t size;
        if (!leb(&p, end, &size)) {
            bad_record(r, d, start, err, "size: truncated");
            return NULL;
        }
        d->last_size = size;
    }
    if (d->last_size == 0 && kind < RT_REF_FLUSH) { /* 0: flushes of the whole cache only */
        bad_record(r, d, start, err, "size: 0");
        return NULL;
    }
    uint64_t delta;
    if (end - p >= 2 && !(p[0] & p[1] & 0x80)) {
        /* one or two bytes, without a branch on which (the common case) */
        unsigned b0 = p[0], b1 = p[1], two = b0 >> 7;
        delta = (b0 & 0x7f) | ((uint64_t)(b1 & 0x7f) << 7) * two;
        p += 1 + two;
    } else if (!leb(&p, end, &delta)) {
        bad_record(r, d, start, err, "address: truncated");
        return NULL;
    }
    uint64_t *reg = &d->reg[(tag >> 4) & 7];
    /* zigzag: 0, -1, 1, -2, ... */
    *reg += (delta >> 1) ^ (0 - (delta & 1));
    ref->addr = *reg;
    ref->size = d->last_size;
    ref->kind = (int)kind;
    const char *why = rt_memref_bad_size(ref);
    if (why) {
        char what[80];
        snprintf(what, sizeof what, "size: %s", why);
        bad_record(r, d, start, err, what);
        return NULL;
    }
    return p;
}

int rt_rtmb_read(rt_rtmb *r, rt_memref *out, size_t cap, size_t *n, rt_err *err)
{
    *n = 0;
    if (r->pending) {
        r->pending = 0;
        if (err)
            *err = r->pending_err;
        return r->pending_err.status;
    }
    dstate d;
    memcpy(d.reg, r->reg, sizeof d.reg);
    d.last_size = r->last_size;
    d.record = r->record;
    size_t k = 0;
    int st = RT_OK;
    while (k < cap) {
        if (r->fill - r->pos < RTMB_MAX_RECORD && !r->eof && (st = refill(r, &r->pending_err)) != RT_OK)
            break;
        if (r->pos == r->fill)
            break; /* end of file */
        const unsigned char *p = r->buf + r->pos, *end = r->buf + r->fill;
        /* records starting before limit lie whole in the buffer (or the file ends) */
        const unsigned char *limit = r->eof ? end : end - RTMB_MAX_RECORD + 1;
        while (k < cap && p < limit) {
            const unsigned char *q = decode(r, &d, p, end, &out[k], &r->pending_err);
            if (!q) {
                st = r->pending_err.status;
                break;
            }
            p = q;
            k++;
        }
        r->pos = (size_t)(p - r->buf);
        if (st != RT_OK)
            break;
    }
    memcpy(r->reg, d.reg, sizeof d.reg);
    r->last_size = d.last_size;
    r->record = d.record;
    if (st != RT_OK) {
        if (k == 0) {
            if (err)
                *err = r->pending_err;
            return st;
        }
        r->pending = 1; /* report it after the references before it */
    }
    *n = k;
    return k ? RT_OK : RT_EEOF;
}

int rt_rtmb_read_lines(rt_rtmb *r, unsigned line_shift, uint64_t *addr, uint8_t *is_write,
                       size_t cap, size_t *n)
{
    *n = 0;
    if (r->pending)
        return RT_OK; /* the error comes through rt_rtmb_read */
    const uint64_t linemask = (1ull << line_shift) - 1;
    if (line_shift >= 64 || r->last_size == 0 || r->last_size > linemask + 1)
        return RT_OK; /* (size 0 is an error for loads and stores: rt_rtmb_read says so) */
    /* a reference of last_size bytes stays in its line when its offset is <= lim */
    const uint64_t lim = linemask + 1 - r->last_size;
    uint64_t reg[8];
    memcpy(reg, r->reg, sizeof reg);
    size_t k = 0;
    while (k < cap) {
        if (r->fill - r->pos < RTMB_MAX_RECORD && !r->eof && refill(r, NULL) != RT_OK)
            break; /* rt_rtmb_read meets the error again and reports it */
        const unsigned char *p = r->buf + r->pos, *end = r->buf + r->fill;
        /* records starting before limit have 3 readable bytes, and lie whole
         * in the buffer unless the file ends first */
        size_t room = r->eof ? 2 : RTMB_MAX_RECORD - 1;
        const unsigned char *limit = r->fill > room ? end - room : r->buf;
        if (p >= limit)
            break;
        size_t k0 = k;
        while (k < cap && p < limit) {
            unsigned tag = p[0];
            /* a load or store without a size field */
            if (tag & 0x8e)
                break;
            unsigned b0 = p[1], b1 = p[2];
            const unsigned char *q = p + 1;
            uint64_t delta;
            if (!(b0 & b1 & 0x80)) { /* one or two bytes, without a branch on which */
                unsigned two = b0 >> 7;
                delta = (b0 & 0x7f) | ((uint64_t)(b1 & 0x7f) << 7) * two;
                q += 1 + two;
            } else if (!leb(&q, end, &delta)) {
                break;
            }
            uint64_t a = reg[(tag >> 4) & 7] + ((delta >> 1) ^ (0 - (delta & 1)));
            if ((a & linemask) > lim)
                break; /* spans two lines: left to rt_rtmb_read */
            reg[(tag >> 4) & 7] = a;
            addr[k] = a;
            is_write[k] = (uint8_t)(tag & 1);
            k++;
            p = q;
        }
        r->pos = (size_t)(p - r->buf);
        if (k == k0 || k == cap || p < limit)
            break;
    }
    memcpy(r->reg, reg, sizeof reg);
    r->record += k;
    *n = k;
    return RT_OK;
}

int rt_rtmb_next(rt_rtmb *r, rt_memref *ref, rt_err *err)
{
    size_t n;
    return rt_rtmb_read(r, ref, 1, &n, err);
}

uint64_t rt_rtmb_offset(const rt_rtmb *r)
{
    return r->base + r->pos;
}

uint64_t rt_rtmb_size(const rt_rtmb *r)
{
    return r->size;
}

/* ---- writer ---- */

/* The encoder's state, copied into locals for a batch so that it stays in registers. */
typedef struct enc_state {
    uint64_t reg[8], used[8], records, size;
    uint64_t moved;         /* the distances moved by registers in shortcuts, summed */
    uint64_t apart[8];      /* register k lies at least apart[k] - moved from every other */
    unsigned hist;          /* the registers of the last RTMB_HIST records, 3 bits each */
    unsigned char lastk[4]; /* per kind (its low two bits), the register its last record took */
} enc_state;

#define RTMB_HIST 4 /* records whose registers predict the next one's */

struct rt_rtmb_writer {
    rt_out *out;         /* written whole: renamed onto the target at close */
    FILE *fp;            /* rt_out_fp(out) */
    char *name;
    enc_state e;         /* the address registers, as the reader will have them, when each
                          * was last used (for replacement), the records, the last size */
    unsigned char next[1 << (3 * RTMB_HIST)]; /* per e.hist, the register the record after took */
    size_t npend;        /* records encoded into pend, not yet handed to fp */
    unsigned char pend[1 << 16];
};

/* Hand the encoded records to the stream (one fwrite for many records). */
static int flush_pending(rt_rtmb_writer *w, rt_err *err)
{
    size_t n = w->npend;
    w->npend = 0;
    if (n && fwrite(w->pend, 1, n, w->fp) != n)
        return rt_err_at(err, RT_EIO, w->name, 0, "write error: %s", strerror(errno));
    return RT_OK;
}

rt_rtmb_writer *rt_rtmb_create(const char *path, rt_err *err)
{
    rt_rtmb_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->name = strdup(path))) {
        free(w);
        rt_err_at(err, RT_ENOMEM, path, 0, "out of memory");
        return NULL;
    }
    w->out = rt_out_open(path, err);
    if (!w->out) {
        free(w->name);
        free(w);
        return NULL;
    }
    w->fp = rt_out_fp(w->out);
    setvbuf(w->fp, NULL, _IOFBF, 1 << 20);
    unsigned char h[16] = {0};
    memcpy(h, RT_RTMB_MAGIC, 8);
    h[8] = RT_RTMB_VERSION & 0xff;
    h[9] = RT_RTMB_VERSION >> 8;
    fwrite(h, 1, 16, w->fp);
    w->e.size = 1;
    return w;
}

static unsigned char *put_leb(unsigned char *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

/* the distance of two addresses: their two's complement difference either way, the smaller */
static inline uint64_t dist(uint64_t a, uint64_t b)
{
    uint64_t d = a - b;
    return d < 0 - d ? d : 0 - d;
}

/*
 * The register for addr: the nearest (the lowest of equals); the least
 * recently used when none is near. The eight distances are computed one by
 * one in scalar registers (vectorized, they went through the stack in 16-byte
 * stores read back 8 bytes at a time, a store-forwarding stall per record),
 * then a tree of conditional moves (three steps, not a chain of eight): which
 * register is nearest changes from record to record. The register found moves
 * to addr: its distances to the others are the ones computed here, and each
 * other's to it too (e->apart, see encode).
 */
static unsigned nearest(enc_state *e, uint64_t addr)
{
#define RT_ABSDIFF(k) \
    uint64_t d##k = addr - e->reg[k]; \
    d##k = (d##k ^ (0 - (d##k >> 63))) + (d##k >> 63)
    RT_ABSDIFF(0);
    RT_ABSDIFF(1);
    RT_ABSDIFF(2);
    RT_ABSDIFF(3);
    RT_ABSDIFF(4);
    RT_ABSDIFF(5);
    RT_ABSDIFF(6);
    RT_ABSDIFF(7);
#undef RT_ABSDIFF
    unsigned a = d1 < d0, b = 2 + (d3 < d2), c = 4 + (d5 < d4), f = 6 + (d7 < d6);
    uint64_t da = a ? d1 : d0, db = b == 3 ? d3 : d2, dc = c == 5 ? d5 : d4, df = f == 7 ? d7 : d6;
    unsigned ab = db < da ? b : a, cf = df < dc ? f : c;
    uint64_t dab = db < da ? db : da, dcf = df < dc ? df : dc;
    unsigned best = dcf < dab ? cf : ab;
    uint64_t bestdist = dcf < dab ? dcf : dab;
    if (bestdist >= (1u << 20)) {
        best = 0;
        for (unsigned k = 1; k < 8; k++)
            if (e->used[k] < e->used[best])
                best = k;
    }
    /* each other register's distance to addr, as a bound (best's own: none) */
    uint64_t own = UINT64_MAX, moved = e->moved;
#define RT_APART(k) \
    do { \
        uint64_t to = (d##k > (1ull << 62) ? (1ull << 62) : d##k) + moved; \
        to = best == k ? UINT64_MAX : to; \
        own = to < own ? to : own; \
        e->apart[k] = to < e->apart[k] ? to : e->apart[k]; \
    } while (0)
    RT_APART(0);
    RT_APART(1);
    RT_APART(2);
    RT_APART(3);
    RT_APART(4);
    RT_APART(5);
    RT_APART(6);
    RT_APART(7);
#undef RT_APART
    e->apart[best] = own;
    return best;
}

/* 1 when register k, at distance g from the address, is near it and surely the nearest (encode). */
static inline int surely_nearest(const enc_state *e, unsigned k, uint64_t g)
{
    return g < (1u << 20) && e->apart[k] > e->moved && 2 * g < e->apart[k] - e->moved;
}

/*
 * Encode one record at p; returns the end. The register is nearest()'s, most
 * of the time found by a shortcut: the register that followed the same last
 * registers the time before (next[e->hist]), or else the one the last record
 * of the same kind took (lastk), when addr lies near it and at less than half
 * of the least distance A it is known to keep from every other register
 * (apart[k] - moved). By the triangle inequality every other register is then
 * farther from addr (at least A less the distance), so it is the one nearest()
 * would find, and the only one (the same bytes: 93% of the records of a list
 * walked in shuffled order take one of the two shortcuts, 73% the first). Its move by
 * that distance brings it at most as much nearer to each other register:
 * moved grows by it, lowering every other register's A, while its own A
 * stays a bound (apart unchanged).
 */
static inline unsigned char *encode(enc_state *e, unsigned char *next, unsigned char *p,
                                    const rt_memref *ref)
{
    uint64_t addr = ref->addr;
    unsigned best = next[e->hist], other = e->lastk[ref->kind & 3];
    uint64_t gd = dist(addr, e->reg[best]), go;
    if (surely_nearest(e, best, gd))
        e->moved += gd;
    else if (other != best && surely_nearest(e, other, go = dist(addr, e->reg[other]))) {
        best = other;
        e->moved += go;
    } else {
        best = nearest(e, addr);
    }
    e->lastk[ref->kind & 3] = (unsigned char)best;
    next[e->hist] = (unsigned char)best;
    e->hist = ((e->hist << 3) | best) & ((1u << (3 * RTMB_HIST)) - 1);
    unsigned tag = (unsigned)ref->kind | best << 4;
    if (ref->size != e->size)
        tag |= 8;
    *p++ = (unsigned char)tag;
    if (tag & 8)
        p = put_leb(p, ref->size);
    uint64_t d = addr - e->reg[best]; /* two's complement difference */
    uint64_t zz = (d << 1) ^ (0 - (d >> 63));
    p = put_leb(p, zz);
    e->reg[best] = addr;
    e->used[best] = ++e->records;
    e->size = ref->size;
    return p;
}

/* A record the format can hold: a kind it knows, a size unless a flush or beyond. */
static int check_ref(const rt_rtmb_writer *w, const rt_memref *ref, rt_err *err)
{
    if (ref->kind < 0 || ref->kind >= RT_REF_KINDS || (ref->size == 0 && ref->kind < RT_REF_FLUSH))
        return rt_err_at(err, RT_EINVAL, w->name, 0, "record: kind %d size %llu cannot be written",
                         ref->kind, (unsigned long long)ref->size);
    return RT_OK;
}

/* One record through state e (rt_rtmb_write's: the writer's): checked, room made, encoded. */
static inline int put_one(rt_rtmb_writer *w, enc_state *e, const rt_memref *ref, rt_err *err)
{
    int st = check_ref(w, ref, err);
    if (st != RT_OK || (w->npend > sizeof w->pend - RTMB_MAX_RECORD && (st = flush_pending(w, err)) != RT_OK))
        return st;
    unsigned char *rec = w->pend + w->npend;
    w->npend += (size_t)(encode(e, w->next, rec, ref) - rec);
    return RT_OK;
}

int rt_rtmb_write_many(rt_rtmb_writer *w, const rt_memref *refs, size_t n, size_t *done, rt_err *err)
{
    enc_state e = w->e; /* in registers for the batch */
    int st = RT_OK;
    size_t i = 0;
    while (i < n && st == RT_OK) {
        /* as many records as surely fit in pend, encoded without a check of its room each */
        size_t fit = (sizeof w->pend - w->npend) / RTMB_MAX_RECORD;
        if (fit == 0) {
            st = flush_pending(w, err);
            continue;
        }
        size_t end = n - i < fit ? n : i + fit;
        unsigned char *p = w->pend + w->npend;
        for (; i < end && (st = check_ref(w, &refs[i], err)) == RT_OK; i++)
            p = encode(&e, w->next, p, &refs[i]);
        w->npend = (size_t)(p - w->pend);
    }
    w->e = e;
    if (done)
        *done = i;
    return st;
}

int rt_rtmb_write(rt_rtmb_writer *w, const rt_memref *ref, rt_err *err)
{
    return put_one(w, &w->e, ref, err);
}

int rt_rtmb_close(rt_rtmb_writer *w, rt_err *err)
{
    if (!w)
        return RT_OK;
    if (flush_pending(w, err) != RT_OK) {
        rt_out_abort(w->out);
        free(w->name);
        free(w);
        return RT_EIO;
    }
    int st = rt_out_commit(w->out, err);
    free(w->name);
    free(w);
    return st;
}

void rt_rtmb_abort(rt_rtmb_writer *w)
{
    if (!w)
        return;
    rt_out_abort(w->out);
    free(w->name);
    free(w);
}
