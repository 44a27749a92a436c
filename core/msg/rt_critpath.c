/*
 * rt_critpath.c - the critical path of a finished replay (see rt_replay.h):
 * walk back from the processor that ends last, jumping along the messages
 * that ended its waits.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_mem.h"
#include "rt_replay_int.h"

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
    int *upto = malloc((size_t)rp->nprocs * sizeof *upto); /* waits of each proc still usable: [0, upto) */
    if (!upto)
        return rt_err_set(err, RT_ENOMEM, "critical path: out of memory");
    for (int i = 0; i < rp->nprocs; i++)
        upto[i] = rp->procs[i].nwaits;
    size_t capseg = 0, capmsg = 0;
    double t = rp->procs[p].pub.last;
    cp->end = t;
    for (;;) {
        const proc_state *ps = &rp->procs[p];
        int k = upto[p] - 1;
        while (k >= 0 && ps->waits[k].recv_time > t)
            k--;
        if (rt_grow((void **)&cp->segments, &capseg, cp->nsegments + 1, sizeof *cp->segments) != RT_OK)
            goto nomem;
        if (k < 0) {
            cp->segments[cp->nsegments++] = (rt_cp_segment){p, ps->pub.first, t};
            cp->start = ps->pub.first;
            break;
        }
        const cp_wait *w = &ps->waits[k];
        upto[p] = k;
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
}
