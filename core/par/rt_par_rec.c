/*
 * rt_par_rec.c - packing events for the wire and spill files (rt_par_rec.h).
 */
#include <string.h>

#include "rt_par_rec.h"

void rt_par_rec_pack(void *buf, const rt_tevent *ev, const rt_tkey *key, size_t raw_size)
{
    rt_par_rec r;
    memset(&r, 0, sizeof r);
    r.key = *key;
    r.time = ev->time;
    r.bytes = ev->bytes;
    r.bytes_in = ev->bytes_in;
    r.ticks = ev->ticks;
    r.tag = ev->tag;
    r.line = ev->line;
    r.kind = ev->kind;
    r.proc = ev->proc;
    r.region = ev->region;
    r.task = ev->task;
    r.peer = ev->peer;
    r.comm = ev->comm;
    r.ndata = ev->ndata < 0 ? 0 : ev->ndata > RT_TE_MAXDATA ? RT_TE_MAXDATA : ev->ndata;
    memcpy(r.data, ev->data, sizeof r.data);
    r.has_raw = raw_size > 0 && ev->raw != NULL;
    unsigned char *p = buf;
    memcpy(p, &r, sizeof r);
    size_t total = rt_par_rec_size(raw_size);
    if (r.has_raw)
        memcpy(p + sizeof r, ev->raw, raw_size);
    else
        memset(p + sizeof r, 0, raw_size);
    memset(p + sizeof r + raw_size, 0, total - sizeof r - raw_size);
}

void rt_par_rec_unpack(const void *buf, rt_tevent *ev, rt_tkey *key, size_t raw_size)
{
    rt_par_rec r;
    const unsigned char *p = buf;
    memcpy(&r, p, sizeof r);
    if (key)
        *key = r.key;
    ev->kind = r.kind;
    ev->proc = r.proc;
    ev->time = r.time;
    ev->ticks = r.ticks;
    ev->region = r.region;
    ev->task = r.task;
    ev->peer = r.peer;
    ev->tag = r.tag;
    ev->comm = r.comm;
    ev->bytes = r.bytes;
    ev->bytes_in = r.bytes_in;
    ev->ndata = r.ndata;
    memcpy(ev->data, r.data, sizeof r.data);
    ev->line = (unsigned long)r.line;
    ev->raw = (r.has_raw && raw_size > 0) ? (const void *)(p + sizeof r) : NULL;
}
