/*
 * rt_critpath.c - the critical path of a finished replay (see rt_replay.h):
 * walk back from the processor that ends last, jumping along the messages
 * that ended its waits.
 *
 * The waits are kept in one append-only store: the newest CP_BLOCK waits in
 * memory, every older full block written to a temporary file. Each wait
 * links to the previous wait of its processor, so the walk back reads the
 * file block by block (one block cached) and the replay's memory does not
 * grow with the number of waits (it used to: about 57 bytes per wait).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_replay_int.h"

#define CP_BLOCK 4096

struct cp_store {
    cp_wait tail[CP_BLOCK];  /* waits nfile .. nfile + ntail - 1 */
    int ntail;
    int64_t nfile;           /* waits in the file (whole blocks) */
    FILE *fp;
    cp_wait cache[CP_BLOCK]; /* one block read back */
    int64_t cache_block;     /* -1: none */
};

void rt_cp_free(cp_store *st)
{
    if (!st)
        return;
    if (st->fp)
        fclose(st->fp);
    free(st);
}

int rt_cp_add(rt_replay *rp, int64_t *last1, const cp_wait *w)
{
    cp_store *st = rp->cps;
    if (!st) {
        st = calloc(1, sizeof *st);
        if (!st)
            return RT_ENOMEM;
        st->cache_block = -1;
        rp->cps = st;
    }
    if (st->ntail == CP_BLOCK) {
        if (!st->fp && !(st->fp = tmpfile()))
            return RT_EIO;
        if (fseek(st->fp, 0, SEEK_END) != 0 || fwrite(st->tail, sizeof st->tail, 1, st->fp) != 1)
            return RT_EIO;
        st->nfile += CP_BLOCK;
        st->ntail = 0;
    }
    st->tail[st->ntail++] = *w;
    *last1 = st->nfile + st->ntail;
    return RT_OK;
}

/* The wait at store index i (0-based), or NULL on a read error. */
static const cp_wait *cp_get(cp_store *st, int64_t i)
{
    if (i >= st->nfile)
        return &st->tail[i - st->nfile];
    int64_t b = i / CP_BLOCK;
    if (b != st->cache_block) {
        st->cache_block = -1;
        if (fseek(st->fp, (long)(b * (int64_t)sizeof st->cache), SEEK_SET) != 0 ||
            fread(st->cache, sizeof st->cache, 1, st->fp) != 1)
            return NULL;
        st->cache_block = b;
    }
    return &st->cache[i % CP_BLOCK];
}

void rt_critical_path_clear(rt_critical_path *cp)
{
    if (!cp)
        return;
    free(cp->segments);
    free(cp->messages);
    memset(cp, 0, sizeof *cp);
}

int rt_replay_critical_path(const rt_replay *rp, rt_critical_path *cp, rt_err *err)
{
    memset(cp, 0, sizeof *cp);
    if (!rp->finished || !rp->o.critical_path)
        return rt_err_set(err, RT_ESTATE, "critical path: needs a finished replay with critical_path set");
    int p = -1;
    for (int i = 0; i < rp->nprocs; i++)
        if (rp->procs[i].pub.seen && (p < 0 || rp->procs[i].pub.last > rp->procs[p].pub.last))
            p = i;
    if (p < 0)
        return RT_OK;
    int64_t *upto = malloc((size_t)rp->nprocs * sizeof *upto); /* 1 + index of each proc's latest usable wait */
    if (!upto)
        return rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
    for (int i = 0; i < rp->nprocs; i++)
        upto[i] = rp->procs[i].last_wait1;
    size_t capseg = 0, capmsg = 0;
    double t = rp->procs[p].pub.last;
    cp->end = t;
    for (;;) {
        const proc_state *ps = &rp->procs[p];
        int64_t k1 = upto[p];
        const cp_wait *w = NULL;
        while (k1 > 0) {
            if (!(w = cp_get(rp->cps, k1 - 1)))
                goto ioerr;
            if (w->recv_time <= t)
                break;
            k1 = w->prev1;
            w = NULL;
        }
        if (rt_grow((void **)&cp->segments, &capseg, cp->nsegments + 1, sizeof *cp->segments) != RT_OK)
            goto nomem;
        if (!w) {
            cp->segments[cp->nsegments++] = (rt_cp_segment){p, ps->pub.first, t};
            cp->start = ps->pub.first;
            break;
        }
        upto[p] = w->prev1;
        cp->segments[cp->nsegments++] = (rt_cp_segment){p, w->recv_time, t};
        if (rt_grow((void **)&cp->messages, &capmsg, cp->nmessages + 1, sizeof *cp->messages) != RT_OK)
            goto nomem;
        cp->messages[cp->nmessages++] =
            (rt_message){w->src, p, w->tag, w->bytes, w->send_time, w->recv_time, 0, w->comm};
        t = w->send_time;
        p = w->src;
    }
    free(upto);
    /* reverse into time order */
    for (int i = 0, j = cp->nsegments - 1; i < j; i++, j--) {
        rt_cp_segment s = cp->segments[i];
        cp->segments[i] = cp->segments[j];
        cp->segments[j] = s;
    }
    for (int i = 0, j = cp->nmessages - 1; i < j; i++, j--) {
        rt_message m = cp->messages[i];
        cp->messages[i] = cp->messages[j];
        cp->messages[j] = m;
    }
    cp->length = cp->end - cp->start;
    return RT_OK;
nomem:
    free(upto);
    rt_critical_path_clear(cp);
    return rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
ioerr:
    free(upto);
    rt_critical_path_clear(cp);
    return rt_err_set(err, RT_EIO, "critical path: cannot read back the waits' temporary file");
}
