/*
 * rt_medea_feed.c - feed a message-passing trace into the MEDEA parameter accumulator.
 *
 * Every trace enters as a trace source (rt_tsource_open's detector). A PICL
 * source is replayed by the message-passing engine (rt_replay.h), whose
 * warnings MEDEA counts; a listener of the replay's events hands the record
 * each file record's first event carries (ev.raw: the new-format record, old
 * formats translated by the source) to the accumulator, in file order, so
 * MEDEA sees what every other consumer of the source sees, with PICL's own
 * event numbers and statistics records.
 *
 * Any other format the dispatcher reads (OTF2, Paraver, Pajé) is fed from its
 * neutral events: regions become MEDEA event types by class (user regions keep
 * their id; the others take their PICL family's first number: send -21,
 * receive -51, wait -52, collective -750, sync -402, I/O -201, idle -601,
 * system -602, tracing -901), message bytes from the SEND after an ENTER and
 * the RECVs before a LEAVE, collective bytes from COLL_BEGIN / COLL_END.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_medea.h"
#include "rt_mem.h"
#include "rt_picl.h"
#include "rt_picl_source.h"
#include "rt_replay.h"
#include "rt_par.h"
#include "rt_par_source.h"
#include "rt_par_text.h"
#include "rt_tsource_open.h"

void rt_medea_from_picl(const rt_picl_record *rec, rt_medea_rec *out)
{
    out->rectype = rec->rectype;
    out->event = rec->event;
    out->time = rec->time;
    out->proc = rec->proc;
    out->task = rec->task;
    out->bytes = -1;
    double bytes;
    long tag, peer;
    rt_event_family f = rt_picl_event_family(rec->event);
    if (rt_picl_message_fields(rec, &bytes, &tag, &peer))
        out->bytes = bytes;
    else if (f != RT_EV_SEND && f != RT_EV_RECV && rec->ndata >= 1 && rec->data[0] >= 0)
        out->bytes = rec->data[0];
}

/* One value of a statistics record (-101..-105), kept until the trace is read. */
typedef struct stat_val {
    int proc, task, kind, event;
    double value, time;
    unsigned long line;
} stat_val;

/* Old format, per processor: what the compstats records say about the last call. */
typedef struct comp_st {
    double t0;           /* time of the last compstats record, < 0 none */
    double counter;      /* its communication-time counter (microseconds) */
    int call;            /* -21 or -51: the last send / receive since then, 0 none */
} comp_st;

/* The replay's listener: every replayed record into the accumulator. */
typedef struct feed_ctx {
    rt_medea *m;
    rt_replay *rp;
    int64_t record;      /* the replay's record count at the last record fed */
    const char *path;
    int status;          /* first failure of rt_medea_add */
    rt_err err;
    unsigned long warnings;
    int old;             /* an old-format trace (compstats rule below) */
    comp_st *comp;
    int ncomp;
    stat_val *stats;
    size_t nstats, capstats;
} feed_ctx;

static void fail(feed_ctx *c, int st, unsigned long line, const char *msg)
{
    c->status = st;
    rt_err_at(&c->err, st, c->path, line, "%.400s", msg);
}

/*
 * Old-format traces write a send or receive as one point record; the time spent in
 * the call shows only in the communication-time counter of the compstats records
 * (code 11, second value, microseconds) around it: fft-16 processor 0 goes from
 * 0 to 421 across a send from 480 to 901 us. A counter that grows between two
 * compstats records after a send (receive) is charged as one send (receive)
 * interval over them, with no bytes (the point records counted those).
 */
static void compstats(feed_ctx *c, const rt_picl_record *rec)
{
    if (rec->proc >= c->ncomp) {
        int nn = c->ncomp ? c->ncomp : 16;
        while (nn <= rec->proc)
            nn *= 2;
        comp_st *q = realloc(c->comp, (size_t)nn * sizeof *q);
        if (!q) {
            fail(c, RT_ENOMEM, rec->line, "out of memory");
            return;
        }
        for (int i = c->ncomp; i < nn; i++)
            q[i] = (comp_st){-1, 0, 0};
        c->comp = q;
        c->ncomp = nn;
    }
    comp_st *cs = &c->comp[rec->proc];
    if (rec->rectype == RT_PICL_ENTRY && (rec->event == -21 || rec->event == -51)) {
        cs->call = rec->event;
        return;
    }
    if (!(rec->rectype == RT_PICL_MARK && rec->event == -RT_PICL_OLD_COMPSTATS && rec->ndata >= 2))
        return;
    double counter = rec->data[1];
    if (cs->t0 >= 0 && cs->call && counter > cs->counter && rec->time > cs->t0) {
        rt_medea_rec in = {-3, cs->call, cs->t0, rec->proc, -1, rec->task},
                     out = {-4, cs->call, rec->time, rec->proc, -1, rec->task};
        rt_err e;
        int st = rt_medea_add(c->m, &in, &e);
        if (st == RT_OK)
            st = rt_medea_add(c->m, &out, &e);
        if (st != RT_OK) {
            fail(c, st, rec->line, e.msg);
            return;
        }
        cs->call = 0;
    }
    cs->t0 = rec->time;
    cs->counter = counter;
}

static void keep_stats(feed_ctx *c, const rt_picl_record *rec)
{
    for (int i = 0; i + 1 < rec->ndata; i += 2) {
        if (rt_grow((void **)&c->stats, &c->capstats, c->nstats + 1, sizeof *c->stats) != RT_OK) {
            fail(c, RT_ENOMEM, rec->line, "out of memory");
            return;
        }
        c->stats[c->nstats++] = (stat_val){rec->proc, rec->task, rec->rectype, (int)rec->data[i],
                                           rec->data[i + 1], rec->time, rec->line};
    }
}

static void on_event(void *ud, const rt_tevent *ev)
{
    feed_ctx *c = ud;
    int64_t record = rt_replay_records(c->rp);
    if (c->status != RT_OK || !ev->raw || record == c->record)
        return; /* a record's later events (a send entry's SEND) */
    c->record = record;
    const rt_picl_record *rec = ev->raw;
    if (rec->rectype <= RT_PICL_STAT_TIME && rec->rectype >= RT_PICL_STAT_SIZE) {
        keep_stats(c, rec);
        return;
    }
    rt_medea_rec mr;
    rt_medea_from_picl(rec, &mr);
    rt_err e;
    if ((c->status = rt_medea_add(c->m, &mr, &e)) != RT_OK) {
        rt_err_at(&c->err, c->status, c->path, rec->line, "%.400s", e.msg);
        return;
    }
    if (c->old)
        compstats(c, rec);
}

/* A trace of statistics records only (the tracer's own start and stop records
 * aside): its parameters come from them (said by rt_medea_from_stats); with any
 * other entry or exit record they are left aside. */
static int apply_stats(feed_ctx *c, rt_err *err)
{
    if (c->nstats == 0 || rt_medea_events_fed(c->m) > 0)
        return RT_OK;
    for (size_t i = 0; i < c->nstats; i++) {
        const stat_val *v = &c->stats[i];
        rt_err e;
        int st = rt_medea_add_stats(c->m, v->proc, v->task, v->kind, v->event, v->value, v->time, &e);
        if (st != RT_OK)
            return rt_err_at(err, st, c->path, v->line, "%.400s", e.msg);
    }
    return RT_OK;
}

static void on_warning(void *ud, const char *msg)
{
    (void)msg;
    ((feed_ctx *)ud)->warnings++;
}

/* ---- any other format, from its neutral events ---- */

/* The MEDEA event type of a region of class cls. */
static int medea_event(int region, int cls)
{
    static const int family[RT_TC_COUNT] = {
        [RT_TC_SEND] = -21, [RT_TC_RECV] = -51, [RT_TC_WAIT] = -52, [RT_TC_COLLECTIVE] = -750,
        [RT_TC_SYNC] = -402, [RT_TC_IO] = -201, [RT_TC_IDLE] = -601, [RT_TC_SYSTEM] = -602,
        [RT_TC_TRACING] = -901};
    if (cls >= 0 && cls < RT_TC_COUNT && cls != RT_TC_USER)
        return family[cls];
    if (region >= 0)
        return region;
    long long r = -(long long)region; /* MEDEA's user types are >= 0: negative ids move above 2^30 */
    return (int)(r % (1LL << 30)) + (1 << 30);
}

/* Per processor: an entry held until its next event (a SEND or COLL_BEGIN gives its
 * bytes), and the bytes of the receives held for the LEAVE that follows them. */
typedef struct held {
    rt_medea_rec enter;
    int has_enter;
    double recv_bytes;
    int has_recv;
} held;

typedef struct neutral_ctx {
    rt_medea *m;
    const rt_tdefs *defs;
    held *h;
    int nh;
} neutral_ctx;

static int add_rec(neutral_ctx *c, const rt_medea_rec *r, const char *path, unsigned long line, rt_err *err)
{
    rt_err e;
    int st = rt_medea_add(c->m, r, &e);
    if (st != RT_OK)
        rt_err_at(err, st, path, line, "%.400s", e.msg);
    return st;
}

static int feed_event(neutral_ctx *c, const rt_tevent *ev, const char *path, rt_err *err)
{
    if (ev->proc >= c->nh) {
        int nn = c->nh ? c->nh : 16;
        while (nn <= ev->proc)
            nn *= 2;
        held *h = realloc(c->h, (size_t)nn * sizeof *h);
        if (!h)
            return rt_err_set(err, RT_ENOMEM, "MEDEA: out of memory");
        memset(h + c->nh, 0, (size_t)(nn - c->nh) * sizeof *h);
        c->h = h;
        c->nh = nn;
    }
    held *h = &c->h[ev->proc];
    int st = RT_OK;
    if (h->has_enter) {
        if (ev->kind == RT_TE_SEND || ev->kind == RT_TE_COLL_BEGIN)
            h->enter.bytes = ev->bytes > 0 ? ev->bytes : 0;
        h->has_enter = 0;
        if ((st = add_rec(c, &h->enter, path, ev->line, err)) != RT_OK)
            return st;
    }
    rt_medea_rec r = {-2, 0, ev->time, ev->proc, -1, ev->task};
    const rt_tregion *reg = NULL;
    switch (ev->kind) {
    case RT_TE_ENTER:
        reg = rt_tdefs_region(c->defs, ev->region);
        h->enter = (rt_medea_rec){-3, medea_event(ev->region, reg ? reg->cls : RT_TC_USER), ev->time, ev->proc,
                                  ev->bytes > 0 ? ev->bytes : -1, ev->task};
        h->has_enter = 1;
        return RT_OK;
    case RT_TE_RECV:
        h->recv_bytes += ev->bytes > 0 ? ev->bytes : 0;
        h->has_recv = 1;
        r.rectype = -7; /* timed only */
        break;
    case RT_TE_COLL_END:
        h->recv_bytes += ev->bytes_in > 0 ? ev->bytes_in : 0;
        h->has_recv = 1;
        r.rectype = -7;
        break;
    case RT_TE_LEAVE:
        reg = rt_tdefs_region(c->defs, ev->region);
        r.rectype = -4;
        r.event = medea_event(ev->region, reg ? reg->cls : RT_TC_USER);
        r.bytes = h->has_recv ? h->recv_bytes : ev->bytes_in > 0 ? ev->bytes_in : -1;
        h->recv_bytes = 0;
        h->has_recv = 0;
        break;
    default:
        r.rectype = ev->kind == RT_TE_MARKER ? -2 : -7;
        break;
    }
    return add_rec(c, &r, path, ev->line, err);
}

int rt_medea_feed_source(rt_medea *m, rt_tsource *src, unsigned long *skipped, unsigned long *warnings,
                         rt_err *err)
{
    const char *path = src->path;
    neutral_ctx c = {m, src->defs, NULL, 0};
    rt_tevent ev;
    int st;
    while ((st = rt_tsource_next(src, &ev, err)) == RT_OK)
        if ((st = feed_event(&c, &ev, path, err)) != RT_OK)
            break;
    for (int p = 0; st == RT_EEOF && p < c.nh; p++) /* entries still held at the end */
        if (c.h[p].has_enter && (st = add_rec(&c, &c.h[p].enter, path, 0, err)) == RT_OK)
            st = RT_EEOF;
    free(c.h);
    if (st == RT_EEOF && (st = rt_medea_finish(m, err)) == RT_OK)
        st = RT_EEOF;
    if (skipped) /* records of kinds the model does not cover are no malformed lines */
        *skipped = 0;
    if (warnings)
        *warnings = (unsigned long)src->warnings;
    return st == RT_EEOF ? RT_OK : st;
}

/* A distributed source's PICL lines skipped (all counted on rank 0). */
static unsigned long par_skipped(rt_tsource *src)
{
    uint64_t records;
    const rt_picl_skips *sk;
    return rt_par_text_picl_lines(rt_par_source_part(src), &records, &sk) == RT_OK ? sk->n : 0;
}

int rt_medea_feed_file(rt_medea *m, const char *path, int strict, unsigned long *skipped,
                       unsigned long *warnings, rt_err *err)
{
    const char *name = NULL;
    rt_tsource *src;
    /* one part of a job (rt_medea_set_part with the job's size): this rank's part of the trace only */
    int part = rt_medea_parts(m) > 1 && rt_medea_parts(m) == rt_par_size() && rt_par_launched();
    int known = rt_tsource_detect(path, &name, NULL, 0) == RT_OK && name;
    if (part && known) /* (an unknown file: the PICL reader's own message, below) */
        src = rt_par_source_open_strict(path, NULL, strict, err);
    else if (known && strncmp(name, "picl", 4) != 0)
        src = rt_tsource_open(path, NULL, err); /* a companion file or no reader: its error */
    else { /* PICL, or no format at all: the PICL reader's own message */
        rt_picl_opts opts = {0};
        opts.strict = strict;
        src = rt_picl_source_open(path, &opts, err);
    }
    if (!src)
        return err ? err->status : RT_EFORMAT;
    part = part && rt_par_source_is_par(src);
    if (!rt_tsource_is_picl(src) && !(part && strncmp(src->ops->format, "picl", 4) == 0)) {
        int st = rt_medea_feed_source(m, src, skipped, warnings, err);
        if (part && st == RT_OK) /* whether the trace has events is the whole trace's */
            rt_medea_share_events(m);
        rt_tsource_free(src);
        return st;
    }
    feed_ctx c = {0};
    c.m = m;
    c.path = path;
    c.status = RT_OK;
    c.old = strcmp(src->ops->format, "picl-old") == 0;
    rt_replay_opts ro = {0};
    ro.ud = &c;
    ro.on_warning = on_warning;
    rt_replay *rp = rt_replay_new(src, &ro, err);
    int st = rp ? RT_OK : RT_ENOMEM;
    c.rp = rp;
    rt_replay_tap tap = {.ud = &c, .on_event = on_event};
    if (st == RT_OK && (st = rt_replay_add_tap(rp, &tap)) != RT_OK)
        rt_err_set(err, st, "MEDEA: the replay has no room for a listener");
    if (st == RT_OK)
        st = rt_replay_run(rp, err);
    if (st == RT_OK && c.status != RT_OK) {
        st = c.status;
        if (err)
            *err = c.err;
    }
    if (part && st == RT_OK)
        rt_medea_share_events(m);
    if (st == RT_OK)
        st = apply_stats(&c, err);
    if (st == RT_OK)
        st = rt_medea_finish(m, err);
    free(c.comp);
    free(c.stats);
    if (skipped)
        *skipped = part ? par_skipped(src) : rt_picl_skipped(rt_picl_source_reader(src));
    if (warnings)
        *warnings = c.warnings;
    rt_replay_free(rp);
    rt_tsource_free(src);
    return st;
}
