/*
 * rt_par_source.c - this rank's part of a trace for a distributed replay
 * (rt_par_source.h).
 *
 * An OTF2 archive: the rank reads its own locations (rt_otf2_open_part, in
 * key order) in epochs. Each epoch it reads a batch of events (more while it
 * is not past the last horizon), the ranks agree on a horizon - the smallest
 * time stamp any rank has read up to, or the end - and on failures; each rank
 * sends the SEND / RECV records below the horizon whose peer another rank owns
 * to that rank (MPI_Alltoallv of packed records, rt_par_rec.h), and hands out
 * its own events below the horizon and the records it received, merged by key:
 * both are in key order already (the received ones are sorted only when they
 * came from several ranks), so the merge is one comparison per event, and own
 * events are read into their slots and handed out from there (no other copy).
 * Memory: a batch and the records of one epoch, never the trace.
 *
 * The global definitions are read by rank 0 and broadcast (rt_otf2_open_part_shared).
 *
 * PICL, Paraver and Pajé: the rank's reader of byte ranges (rt_par_text.h) already
 * gives its events in serial order with their keys; they pass through. Any other
 * format: every rank reads the whole trace and keeps the events routed to it (a
 * filter), keyed by their index in the file's event order.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_otf2.h"
#include "rt_par.h"
#include "rt_par_coll.h"
#include "rt_par_rec.h"
#include "rt_par_route.h"
#include "rt_par_source.h"
#include "rt_par_text.h"
#include "rt_tsource_open.h"

/* The OTF2 definitions from rank 0 to every rank (rt_otf2_open_part_shared's share). */
static int share_defs(void *ud, char **buf, size_t *len)
{
    (void)ud;
    uint64_t n = *len;
    rt_par_bcast_bytes(&n, sizeof n, 0);
    if (rt_par_rank() != 0) {
        if (!(*buf = malloc(n ? n : 1))) { /* the broadcast cannot be left: end the job */
            fprintf(stderr, "retrace: out of memory\n");
            rt_par_abort(1);
        }
        *len = (size_t)n;
    }
    rt_par_bcast_bytes(*buf, (size_t)n, 0);
    return RT_OK;
}

/* Own events read per epoch (at least). */
#define RT_PAR_BATCH 65536

const char *const rt_par_peer_failed = "another rank of the job failed";

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* An event and its key. */
typedef struct ent {
    rt_tevent ev;
    rt_tkey key;
} ent;

typedef struct ents {
    ent *v;
    size_t head, n, cap;
} ents;

/* The next free slot of q (room made), not counted until the caller increments q->n; NULL when out of memory. */
static ent *ents_slot(ents *q)
{
    if (q->n == q->cap) {
        if (q->head > 0) { /* slide the live part down before growing */
            memmove(q->v, q->v + q->head, (q->n - q->head) * sizeof *q->v);
            q->n -= q->head;
            q->head = 0;
        }
        if (q->n == q->cap) {
            size_t cap = q->cap ? 2 * q->cap : 1024;
            ent *nv = realloc(q->v, cap * sizeof *nv);
            if (!nv)
                return NULL;
            q->v = nv;
            q->cap = cap;
        }
    }
    return &q->v[q->n];
}

/* 1 when q's entries from head on are in key order. */
static int ents_sorted(const ents *q)
{
    for (size_t i = q->head + 1; i < q->n; i++)
        if (rt_tkey_cmp(&q->v[i - 1].key, &q->v[i].key) > 0)
            return 0;
    return 1;
}

static int ent_cmp(const void *a, const void *b)
{
    return rt_tkey_cmp(&((const ent *)a)->key, &((const ent *)b)->key);
}

/* The counters RETRACE_PAR_STATS asks for. */
typedef struct par_counts {
    uint64_t events, local_events, sent_records, received_records, matched_remote;
    double exchange, read, opened;
} par_counts;

typedef struct par_src {
    rt_tsource base;
    rt_tsource *part;      /* this rank's reader (its defs are base.defs) */
    int rank, size;
    int epochs;            /* 1: OTF2 epochs; 0: filter over the whole trace or pass-through */
    int through;           /* the reader is a part already (rt_par_text): its events pass through */
    ents own;              /* own events read: head .. released-1 released (handed out in order), the rest
                            * waiting for a horizon past them */
    size_t released;
    ents recv;             /* records received in the last exchange, in key order: handed out merged with own */
    int part_eof;
    rt_err part_err;       /* part_err.status != RT_OK: this rank's reader failed */
    int64_t last;          /* key.a of the last own event read */
    int64_t horizon;       /* the last epoch's */
    int done;              /* every rank reached its end and everything was released */
    rt_err fail;           /* the agreed failure, returned by every later next() */
    uint64_t filter_index; /* filter: events of the whole trace read */
    rt_tsource_ops ops;    /* par_ops under the reader's format name */
    par_counts c;
} par_src;

/* The reader's warnings join the part's; a filter's reader reads what every rank reads, so
 * rank 0 alone tells them. */
static void forward_warning(void *ud, const char *msg)
{
    par_src *s = ud;
    if (s->epochs || s->through || s->rank == 0)
        rt_tsource_warn(&s->base, "%s", msg);
}

#ifdef RETRACE_HAVE_MPI

/* Pack the released own events routed to other ranks and exchange; the received ones fill recv, in key order. */
static int exchange(par_src *s, size_t nrel, rt_err *err)
{
    int size = s->size;
    size_t rs = rt_par_rec_size(0);
    int *scount = calloc((size_t)size * 4, sizeof *scount);
    if (!scount)
        return rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->base.path);
    int *rcount = scount + size, *sdisp = rcount + size, *rdisp = sdisp + size;
    const ent *rel = s->own.v + s->own.head;
    for (size_t i = 0; i < nrel; i++) {
        int to[2];
        if (rt_par_route(&rel[i].ev, size, to) == 2)
            scount[to[1]] += (int)rs;
    }
    int st = RT_OK;
    if (MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT, rt_par_comm()) != MPI_SUCCESS)
        st = rt_err_set(err, RT_EIO, "%s: MPI: the exchange of records failed", s->base.path);
    size_t stot = 0, rtot = 0;
    for (int r = 0; r < size; r++) {
        sdisp[r] = (int)stot;
        rdisp[r] = (int)rtot;
        stot += (size_t)scount[r];
        rtot += (size_t)rcount[r];
    }
    unsigned char *sb = st == RT_OK ? malloc(stot ? stot : 1) : NULL;
    unsigned char *rb = sb ? malloc(rtot ? rtot : 1) : NULL;
    if (st == RT_OK && !rb)
        st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->base.path);
    if (st == RT_OK) {
        int *fill = calloc((size_t)size, sizeof *fill);
        if (!fill)
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->base.path);
        for (size_t i = 0; fill && i < nrel; i++) {
            int to[2];
            if (rt_par_route(&rel[i].ev, size, to) == 2) {
                rt_par_rec_pack(sb + sdisp[to[1]] + fill[to[1]], &rel[i].ev, &rel[i].key, 0);
                fill[to[1]] += (int)rs;
            }
        }
        free(fill);
    }
    if (st == RT_OK && MPI_Alltoallv(sb, scount, sdisp, MPI_BYTE, rb, rcount, rdisp, MPI_BYTE, rt_par_comm()) !=
                           MPI_SUCCESS)
        st = rt_err_set(err, RT_EIO, "%s: MPI: the exchange of records failed", s->base.path);
    s->c.sent_records += stot / rs;
    s->c.received_records += rtot / rs;
    s->recv.head = s->recv.n = 0;
    for (size_t off = 0; st == RT_OK && off < rtot; off += rs) {
        ent *e = ents_slot(&s->recv);
        if (!e) {
            st = rt_err_set(err, RT_ENOMEM, "%s: out of memory", s->base.path);
            break;
        }
        rt_par_rec_unpack(rb + off, &e->ev, &e->key, 0);
        e->ev.raw = NULL;
        if (e->ev.kind == RT_TE_SEND)
            s->c.matched_remote++;
        s->recv.n++;
    }
    /* each rank's records come in key order: several ranks' runs are sorted together */
    if (st == RT_OK && s->recv.n > 1 && !ents_sorted(&s->recv))
        qsort(s->recv.v, s->recv.n, sizeof *s->recv.v, ent_cmp);
    free(sb);
    free(rb);
    free(scount);
    return st;
}

/* One epoch: read, agree on the horizon and failures, exchange, merge. */
static int epoch(par_src *s, rt_err *err)
{
    double t0 = now_s();
    if (s->own.head == s->own.n) /* everything read was handed out */
        s->own.head = s->own.n = 0;
    while (!s->part_eof && s->part_err.status == RT_OK &&
           (s->own.n - s->own.head < RT_PAR_BATCH || s->last <= s->horizon)) {
        ent *slot = ents_slot(&s->own);
        if (!slot) {
            rt_err_set(&s->part_err, RT_ENOMEM, "%s: out of memory", s->base.path);
            break;
        }
        int st = rt_tsource_next(s->part, &slot->ev, &s->part_err);
        if (st == RT_EEOF) {
            s->part_eof = 1;
            s->part_err.status = RT_OK;
            break;
        }
        if (st != RT_OK) {
            s->part_err.status = st;
            break;
        }
        slot->ev.raw = NULL;
        slot->key = s->part->key;
        s->own.n++;
        s->c.local_events++;
        s->last = s->part->key.a;
    }
    double t1 = now_s();
    s->c.read += t1 - t0;
    int64_t in[2] = {s->part_eof ? INT64_MAX : s->last, s->part_err.status != RT_OK ? -1 : 0}, out[2];
    if (MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MIN, rt_par_comm()) != MPI_SUCCESS)
        return rt_err_set(err, RT_EIO, "%s: MPI: agreeing on the epoch failed", s->base.path);
    if (out[1] < 0) { /* some rank failed: it tells why, the others just stop */
        if (s->part_err.status != RT_OK)
            s->fail = s->part_err;
        else
            rt_err_set(&s->fail, RT_EIO, "%s", rt_par_peer_failed);
        *err = s->fail;
        return s->fail.status;
    }
    int64_t h = out[0];
    /* own events below the horizon (all at the end) are released */
    size_t nrel = 0;
    while (s->own.head + nrel < s->own.n && (h == INT64_MAX || s->own.v[s->own.head + nrel].key.a < h))
        nrel++;
    int st = exchange(s, nrel, err);
    s->released = s->own.head + nrel;
    s->horizon = h;
    if (h == INT64_MAX)
        s->done = 1;
    s->c.exchange += now_s() - t1;
    if (st != RT_OK)
        s->fail = *err;
    return st;
}

#else

static int epoch(par_src *s, rt_err *err)
{
    return rt_err_set(err, RT_EINVAL, "%s: a distributed replay needs a build with MPI", s->base.path);
}

#endif

/* The filter over the whole trace: the next event routed to this rank (pass-through: the next). */
static int filter_next(par_src *s, rt_tevent *ev, rt_err *err)
{
    double t0 = now_s();
    for (;;) {
        int st = rt_tsource_next(s->part, ev, err);
        if (st != RT_OK) {
            s->c.read += now_s() - t0;
            return st;
        }
        if (s->through) {
            s->base.key = s->part->key;
            s->base.has_key = 1;
            if (rt_par_owns(ev->proc, s->rank, s->size))
                s->c.local_events++;
            else
                s->c.received_records++;
            s->c.read += now_s() - t0;
            return RT_OK;
        }
        rt_tkey key = {(int64_t)s->filter_index++, 0, 0};
        int to[2], n = rt_par_route(ev, s->size, to);
        if (to[0] == s->rank || (n == 2 && to[1] == s->rank)) {
            s->base.key = key;
            s->base.has_key = 1;
            if (to[0] == s->rank)
                s->c.local_events++;
            else
                s->c.received_records++;
            s->c.read += now_s() - t0;
            return RT_OK;
        }
    }
}

static int par_next(rt_tsource *base, rt_tevent *ev, rt_err *err)
{
    par_src *s = (par_src *)base;
    int st = RT_OK;
    if (!s->epochs)
        st = filter_next(s, ev, err);
    else {
        while (s->own.head == s->released && s->recv.head == s->recv.n && st == RT_OK) {
            if (s->fail.status != RT_OK) {
                *err = s->fail;
                st = s->fail.status;
            } else if (s->done)
                st = RT_EEOF;
            else
                st = epoch(s, err);
        }
        if (st == RT_OK) {
            const ent *e;
            if (s->recv.head < s->recv.n &&
                (s->own.head == s->released || rt_tkey_cmp(&s->recv.v[s->recv.head].key, &s->own.v[s->own.head].key) < 0))
                e = &s->recv.v[s->recv.head++];
            else
                e = &s->own.v[s->own.head++];
            *ev = e->ev;
            base->key = e->key;
            base->has_key = 1;
        }
    }
    if (st == RT_OK)
        s->c.events++;
    return st;
}

static uint64_t par_offset(const rt_tsource *base)
{
    return rt_tsource_offset(((const par_src *)base)->part);
}

static uint64_t par_size(const rt_tsource *base)
{
    return rt_tsource_size(((const par_src *)base)->part);
}

/* RETRACE_PAR_STATS=FILE: one JSON line per rank, appended in one write. */
static void write_counts(const par_src *s)
{
    const char *file = getenv("RETRACE_PAR_STATS");
    if (!file || !*file)
        return;
    double total = now_s() - s->c.opened, inside = s->c.read + s->c.exchange;
    char line[512];
    int n = snprintf(line, sizeof line,
                     "{\"rank\":%d,\"size\":%d,\"events\":%llu,\"local_events\":%llu,\"sent_records\":%llu,"
                     "\"received_records\":%llu,\"exchange_seconds\":%.6f,\"read_seconds\":%.6f,"
                     "\"replay_seconds\":%.6f,\"messages_matched_remote\":%llu}\n",
                     s->rank, s->size, (unsigned long long)s->c.events, (unsigned long long)s->c.local_events,
                     (unsigned long long)s->c.sent_records, (unsigned long long)s->c.received_records,
                     s->c.exchange, s->c.read, total - inside > 0 ? total - inside : 0,
                     (unsigned long long)s->c.matched_remote);
    int fd = open(file, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0)
        return;
    if (n > 0 && write(fd, line, (size_t)n) < 0) {
        /* the counters are for benchmarks: a failed write loses them, nothing else */
    }
    close(fd);
}

static void par_free(rt_tsource *base)
{
    par_src *s = (par_src *)base;
    write_counts(s);
    if (s->part) {
        s->part->defs = NULL; /* shared with base: freed by rt_tsource_free */
        rt_tsource_free(s->part);
    }
    free(s->own.v);
    free(s->recv.v);
    free(s);
}

static int par_describe(const rt_tsource *base, const void *raw, char *buf, size_t size)
{
    return rt_tsource_describe(((const par_src *)base)->part, raw, buf, size);
}

rt_tsource *rt_par_source_part(rt_tsource *src)
{
    return rt_par_source_is_par(src) ? ((par_src *)src)->part : src;
}

static const rt_tsource_ops par_ops = {"par", par_next, NULL, par_offset, par_size, par_free};

int rt_par_source_is_par(const rt_tsource *src)
{
    return src != NULL && src->ops && src->ops->next == par_next;
}

int rt_par_source_peer_failed(const rt_err *err)
{
    return err && err->status != RT_OK && strcmp(err->msg, rt_par_peer_failed) == 0;
}

rt_tsource *rt_par_source_open(const char *path, const char *format, rt_err *err)
{
    return rt_par_source_open_strict(path, format, 0, err);
}

rt_tsource *rt_par_source_open_strict(const char *path, const char *format, int strict, rt_err *err)
{
    int size = rt_par_size(), rank = rt_par_rank();
    if (size <= 1)
        return rt_tsource_open(path, format, err);
    const char *name = format;
    if (!name && rt_tsource_detect(path, &name, NULL, 0) != RT_OK)
        name = NULL;
    int epochs = name && strcmp(name, "otf2") == 0;
    /* PICL, Paraver and Pajé in byte ranges (rt_par_text.h) */
    int through = !epochs && name && rt_par_text_format(name);
    rt_err e;
    e.status = RT_OK;
    rt_par_set_blocks(0); /* p % size, unless the OTF2 part sets blocks of its locations */
    rt_tsource *part = epochs    ? rt_otf2_open_part_shared(path, rank, size, share_defs, NULL, &e)
                       : through ? rt_par_text_open(path, name, strict, &e)
                                 : rt_tsource_open(path, format, &e);
    par_src *s = part ? calloc(1, sizeof *s) : NULL;
    if (part && !s)
        rt_err_set(&e, RT_ENOMEM, "%s: out of memory", path);
    if (s && rt_tsource_init(&s->base, &par_ops, path, &e) != RT_OK) {
        free(s);
        s = NULL;
    }
    /* the open is agreed: a rank that cannot open its part stops every rank */
    int bad = rt_par_agree(s ? 0 : 1);
    if (bad) {
        if (s) {
            rt_tdefs_free(s->base.defs);
            s->base.defs = NULL;
            free(s->base.path);
            free(s);
        }
        rt_tsource_free(part);
        if (e.status != RT_OK)
            *err = e;
        else
            rt_err_set(err, RT_EIO, "%s", rt_par_peer_failed);
        return NULL;
    }
    rt_tdefs_free(s->base.defs);
    s->base.defs = part->defs;
    s->base.raw_size = 0;
    s->ops = par_ops;
    s->ops.format = part->ops->format;
    s->base.ops = &s->ops;
    s->part = part;
    s->rank = rank;
    s->size = size;
    s->epochs = epochs;
    s->through = through;
    s->last = INT64_MIN;
    s->horizon = INT64_MIN;
    s->c.opened = now_s();
    part->on_warning = forward_warning;
    part->ud = &s->base;
    if (!epochs && part->raw_size > 0) { /* the reader's own records are handed out as they are */
        s->base.raw_size = part->raw_size;
        s->base.describe = par_describe;
    }
    return &s->base;
}
