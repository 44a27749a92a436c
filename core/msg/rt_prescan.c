/* rt_prescan.c - the pre-pass of a live replay (see rt_prescan.h). */
#include "rt_prescan.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_replay.h"

double rt_prescan_unit(double span)
{
    if (!(span > 0) || !isfinite(span))
        return 1e-6;
    int e = (int)floor(log10(span)) - 3;
    if (e > 0)
        e = 0;
    return pow(10.0, e);
}

double rt_prescan_scale_width(double span, double unit)
{
    double q = span > 0 && unit > 0 ? span / unit / 4 : 0;
    if (!(q > 1))
        return 1;
    double p = pow(10.0, floor(log10(q)));
    static const double steps[] = {1, 2, 5, 10};
    for (int i = 0; i < 4; i++)
        if (steps[i] * p >= q * (1 - 1e-12))
            return steps[i] * p;
    return 10 * p;
}

void rt_prescan_clear(rt_prescan *ps)
{
    free(ps->procs);
    free(ps->tasks);
    free(ps->proc_events);
    memset(ps, 0, sizeof *ps);
}

int rt_prescan_run(rt_tsource *src, rt_prescan *ps, rt_err *err)
{
    memset(ps, 0, sizeof *ps);
    ps->max_queue_proc = -1;
    rt_replay *rp = rt_replay_new(src, NULL, err);
    if (!rp)
        return RT_ENOMEM;
    int st = rt_replay_run(rp, err);
    if (st == RT_OK) {
        ps->format = src->ops->format;
        ps->nprocs = rt_replay_nprocs(rp);
        rt_replay_span(rp, &ps->t0, &ps->t1);
        ps->records = rt_replay_records(rp);
        ps->events = rt_replay_events(rp);
        rt_replay_totals tot;
        rt_replay_totals_get(rp, &tot);
        ps->messages = tot.messages;
        ps->collectives = tot.coll_instances;
        ps->max_pending = tot.max_pending;
        ps->max_pending_bytes = tot.max_pending_bytes;
        ps->ntasks = rt_replay_ntasks(rp);
        size_t np = ps->nprocs > 0 ? (size_t)ps->nprocs : 1, nt = ps->ntasks > 0 ? (size_t)ps->ntasks : 1;
        ps->procs = calloc(np, sizeof *ps->procs);
        ps->proc_events = calloc(np, sizeof *ps->proc_events);
        ps->tasks = calloc(nt, sizeof *ps->tasks);
        if (!ps->procs || !ps->proc_events || !ps->tasks) {
            st = rt_err_set(err, RT_ENOMEM, "prescan: out of memory");
        } else {
            for (int i = 0; i < ps->nprocs; i++) {
                const rt_replay_proc *p = rt_replay_proc_get(rp, i);
                rt_prescan_proc *q = &ps->procs[i];
                q->id = i;
                q->seen = p->seen;
                q->first = p->first;
                q->last = p->last;
                q->records = p->records;
                q->events = p->events;
                q->max_queue = p->max_queue;
                q->max_queue_bytes = p->max_queue_bytes;
                ps->proc_events[i] = p->events;
                if (p->max_queue > ps->max_queue) {
                    ps->max_queue = p->max_queue;
                    ps->max_queue_proc = i;
                }
                if (p->max_queue_bytes > ps->max_queue_bytes)
                    ps->max_queue_bytes = p->max_queue_bytes;
            }
            const rt_task_stat *t = rt_replay_tasks(rp);
            for (int i = 0; i < ps->ntasks; i++)
                ps->tasks[i] = t[i].task;
            double span = ps->t1 > ps->t0 ? ps->t1 - ps->t0 : 0;
            ps->unit = rt_prescan_unit(span);
            ps->scale_width = rt_prescan_scale_width(span, ps->unit);
        }
    }
    rt_replay_free(rp);
    if (st == RT_OK)
        st = rt_tsource_rewind(src, err);
    if (st != RT_OK)
        rt_prescan_clear(ps);
    return st;
}

int rt_prescan_check_window(const rt_prescan *ps, const char *path, double from, double to, rt_err *err)
{
    if (from > to)
        return rt_err_set(err, RT_EINVAL, "window: %.9g is after %.9g", from, to);
    if (!(ps->t1 >= ps->t0))
        return rt_err_set(err, RT_EINVAL, "%s: the trace has no event, so no window lies inside it",
                          path ? path : "trace");
    if (to < ps->t0 || from > ps->t1)
        return rt_err_set(err, RT_EINVAL, "%s: window %.9g .. %.9g s lies outside the trace's span %.9g .. %.9g s",
                          path ? path : "trace", from, to, ps->t0, ps->t1);
    return RT_OK;
}
