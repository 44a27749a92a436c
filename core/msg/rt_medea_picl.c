/*
 * rt_medea_picl.c - feed a PICL trace into the MEDEA parameter accumulator.
 *
 * Reads through the PICL reader (rt_picl.h) and translates old-format records
 * to the new vocabulary with rt_picl_xlate, exactly as the replay engine does,
 * so MEDEA sees the same records as every other consumer of the engine.
 */
#include <stdio.h>

#include "rt_medea.h"
#include "rt_picl.h"

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

int rt_medea_feed_file(rt_medea *m, const char *path, int strict, unsigned long *skipped,
                       rt_err *err)
{
    rt_picl_opts opts = {0};
    opts.strict = strict;
    rt_picl *r = rt_picl_open(path, &opts, err);
    if (!r)
        return err ? err->status : RT_EIO;
    rt_picl_xlate *x = rt_picl_xlate_new();
    int st = x ? RT_OK : rt_err_set(err, RT_ENOMEM, "out of memory");
    rt_picl_record rec, out[2];
    while (st == RT_OK && (st = rt_picl_next(r, &rec, err)) == RT_OK) {
        int n = 1;
        const rt_picl_record *recs = &rec;
        if (rec.format == RT_PICL_OLD) {
            if ((st = rt_picl_xlate_record(x, &rec, out, &n)) != RT_OK) {
                rt_err_set(err, st, "out of memory");
                break;
            }
            recs = out;
        }
        for (int i = 0; i < n && st == RT_OK; i++) {
            rt_medea_rec mr;
            rt_medea_from_picl(&recs[i], &mr);
            st = rt_medea_add(m, &mr, err);
            if (st != RT_OK && err) {
                char why[RT_ERR_MSG_MAX];
                snprintf(why, sizeof why, "%s", err->msg);
                rt_err_at(err, st, path, rec.line, "%.400s", why);
            }
        }
    }
    if (st == RT_EEOF)
        st = RT_OK;
    if (skipped)
        *skipped = rt_picl_skipped(r);
    rt_picl_xlate_free(x);
    rt_picl_free(r);
    return st;
}
