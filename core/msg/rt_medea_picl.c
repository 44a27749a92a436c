/*
 * rt_medea_picl.c - feed a PICL trace into the MEDEA parameter accumulator.
 *
 * The trace is replayed by the message-passing engine (rt_replay.h), which
 * reads it with the PICL reader and translates old-format records to the new
 * vocabulary; its record callback hands every replayed record to the
 * accumulator, so MEDEA sees exactly what every other consumer of the engine sees.
 */
#include "rt_medea.h"
#include "rt_picl.h"
#include "rt_replay.h"

void rt_medea_from_picl(const rt_picl_record *rec, rt_medea_rec *out)
{
    out->rectype = rec->rectype;
    out->event = rec->event;
    out->time = rec->time;
    out->proc = rec->proc;
    out->bytes = -1;
    double bytes;
    long tag, peer;
    rt_event_family f = rt_picl_event_family(rec->event);
    if (rt_picl_message_fields(rec, &bytes, &tag, &peer))
        out->bytes = bytes;
    else if (f != RT_EV_SEND && f != RT_EV_RECV && rec->ndata >= 1 && rec->data[0] >= 0)
        out->bytes = rec->data[0];
}

/* The replay's record callback: every replayed record into the accumulator. */
typedef struct feed_ctx {
    rt_medea *m;
    const char *path;
    int status;          /* first failure of rt_medea_add */
    rt_err err;
    unsigned long warnings;
} feed_ctx;

static void on_record(void *ud, const rt_picl_record *rec)
{
    feed_ctx *c = ud;
    if (c->status != RT_OK)
        return;
    rt_medea_rec mr;
    rt_medea_from_picl(rec, &mr);
    rt_err e;
    if ((c->status = rt_medea_add(c->m, &mr, &e)) != RT_OK)
        rt_err_at(&c->err, c->status, c->path, rec->line, "%.400s", e.msg);
}

static void on_warning(void *ud, const char *msg)
{
    (void)msg;
    ((feed_ctx *)ud)->warnings++;
}

int rt_medea_feed_file(rt_medea *m, const char *path, int strict, unsigned long *skipped,
                       unsigned long *warnings, rt_err *err)
{
    rt_picl_opts opts = {0};
    opts.strict = strict;
    rt_picl *r = rt_picl_open(path, &opts, err);
    if (!r)
        return err ? err->status : RT_EIO;
    feed_ctx c = {m, path, RT_OK, {0}, 0};
    rt_replay_opts ro = {0};
    ro.ud = &c;
    ro.on_record = on_record;
    ro.on_warning = on_warning;
    rt_replay *rp = rt_replay_new_picl(r, &ro, err);
    int st = rp ? rt_replay_run(rp, err) : RT_ENOMEM;
    if (st == RT_OK && c.status != RT_OK) {
        st = c.status;
        if (err)
            *err = c.err;
    }
    if (skipped)
        *skipped = rt_picl_skipped(r);
    if (warnings)
        *warnings = c.warnings;
    rt_replay_free(rp);
    rt_picl_free(r);
    return st;
}
